//! The template families of levels 1–4 (docs/malt.md, "Tasks"): their ids, and the drawing of one
//! question's parameters, wording and plan.
//!
//! A draw reads the fresh base graph, makes its random choices in the documented order through
//! [`Ctx`], records every choice in `params`, and returns a [`Draft`]; a violated constraint is
//! a [`Redraw`], and the generator draws again (the wording stays).

mod draw;
mod l4;
pub mod words;

use serde_json::{Map, Value};

use super::graph::{Id, Working};
use super::kind::Kind;
use super::plan::{Action, Plan};
use crate::seed::Stream;
use words::{CAPACITIES, Words};

/// A template family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    L1Add,
    L1Remove,
    L1Update,
    L1List,
    L1Count,
    L1Rank,
    L2RemoveList,
    L2RemoveRank,
    L2RemoveCount,
    L3AddList,
    L3AddRank,
    L3AddCount,
    L3ForeachCount,
    L4Drain,
    L4Least,
    L4Expand,
    L4UpgradeRank,
    L4SharedRisk,
}

use Family::*;

impl Family {
    pub const ALL: [Family; 18] = [
        L1Add,
        L1Remove,
        L1Update,
        L1List,
        L1Count,
        L1Rank,
        L2RemoveList,
        L2RemoveRank,
        L2RemoveCount,
        L3AddList,
        L3AddRank,
        L3AddCount,
        L3ForeachCount,
        L4Drain,
        L4Least,
        L4Expand,
        L4UpgradeRank,
        L4SharedRisk,
    ];

    /// The family id, which is also the task label: `L1-add`.
    pub fn id(self) -> &'static str {
        match self {
            L1Add => "L1-add",
            L1Remove => "L1-remove",
            L1Update => "L1-update",
            L1List => "L1-list",
            L1Count => "L1-count",
            L1Rank => "L1-rank",
            L2RemoveList => "L2-remove-list",
            L2RemoveRank => "L2-remove-rank",
            L2RemoveCount => "L2-remove-count",
            L3AddList => "L3-add-list",
            L3AddRank => "L3-add-rank",
            L3AddCount => "L3-add-count",
            L3ForeachCount => "L3-foreach-count",
            L4Drain => "L4-drain",
            L4Least => "L4-least",
            L4Expand => "L4-expand",
            L4UpgradeRank => "L4-upgrade-rank",
            L4SharedRisk => "L4-shared-risk",
        }
    }

    pub fn parse(id: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.id() == id)
    }

    /// The level is the id's prefix.
    pub fn level(self) -> u8 {
        self.id().as_bytes()[1] - b'0'
    }

    /// The families of a level, in table order: family = families(level)[index mod F].
    pub fn of_level(level: u8) -> Vec<Family> {
        Family::ALL.into_iter().filter(|f| f.level() == level).collect()
    }

    /// Read-only families must leave the graph untouched.
    pub fn read_only(self) -> bool {
        matches!(self, L1List | L1Count | L1Rank | L4SharedRisk)
    }

    /// Draws the parameters, wording and plan of one question.
    pub fn draw(self, c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
        match self {
            L1Add => draw::l1_add(c),
            L1Remove => draw::l1_remove(c),
            L1Update => draw::l1_update(c),
            L1List => draw::l1_list(c),
            L1Count => draw::l1_count(c),
            L1Rank => draw::l1_rank(c),
            L2RemoveList => draw::l2_remove_list(c),
            L2RemoveRank => draw::l2_remove_rank(c),
            L2RemoveCount => draw::l2_remove_count(c),
            L3AddList => draw::l3_add_list(c),
            L3AddRank => draw::l3_add_rank(c),
            L3AddCount => draw::l3_add_count(c),
            L3ForeachCount => draw::l3_foreach_count(c),
            L4Drain => l4::drain(c),
            L4Least => l4::least(c),
            L4Expand => l4::expand(c),
            L4UpgradeRank => l4::upgrade_rank(c),
            L4SharedRisk => l4::shared_risk(c),
        }
    }
}

/// A drawn question.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub question: String,
    pub plan: Plan,
}

/// A violated constraint: draw the parameters again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redraw(pub String);

/// The state of one draw: the stream, the fresh base graph, the wording and the parameters
/// recorded so far.
pub struct Ctx<'a> {
    pub rng: &'a mut Stream,
    pub g: &'a Working,
    pub w: Words,
    /// The id's generator version: wordings that changed since v1 keep v1's text for v1 ids.
    pub version: u32,
    pub params: Map<String, Value>,
}

impl<'a> Ctx<'a> {
    pub fn new(rng: &'a mut Stream, g: &'a Working, w: Words, version: u32) -> Ctx<'a> {
        Ctx { rng, g, w, version, params: Map::new() }
    }

    /// Records a parameter.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.params.insert(key.to_string(), value.into());
    }

    pub fn name(&self, id: Id) -> String {
        self.g.name(id).to_string()
    }

    /// A uniform element of `ids` (canonical order), or a redraw when empty.
    pub fn pick(&mut self, ids: &[Id], what: &str) -> Result<Id, Redraw> {
        if ids.is_empty() {
            return Err(Redraw(format!("no {what} to choose from")));
        }
        Ok(*self.rng.choose(ids))
    }

    /// Kind-first: a kind uniformly, then a node of that kind uniformly.
    pub fn kind_first(&mut self, kinds: &[Kind]) -> Result<Id, Redraw> {
        let kind = *self.rng.choose(kinds);
        let nodes = self.g.nodes_of(kind);
        self.pick(&nodes, kind.as_str())
    }

    /// A port speed, uniformly.
    pub fn cap(&mut self) -> i64 {
        *self.rng.choose(&CAPACITIES)
    }

    /// The graph after some actions, for parameters drawn on the updated graph.
    pub fn after(&self, actions: &[Action]) -> Result<Working, Redraw> {
        let mut g = self.g.clone();
        for a in actions {
            a.apply(&mut g).map_err(|e| Redraw(format!("intended action failed: {e:?}")))?;
        }
        Ok(g)
    }

    /// All blocks (aggregation and spine) in canonical order.
    pub fn blocks(&self) -> Vec<Id> {
        let mut blocks = self.g.nodes_of(Kind::AggBlock);
        blocks.extend(self.g.nodes_of(Kind::Spineblock));
        blocks.sort_unstable();
        blocks
    }
}

/// Names joined by ", " (`{Xs}`).
pub fn join(g: &Working, ids: &[Id]) -> String {
    ids.iter().map(|&i| g.name(i)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_levels_and_order() {
        assert_eq!(Family::of_level(1).len(), 6);
        assert_eq!(Family::of_level(2).len(), 3);
        assert_eq!(Family::of_level(3).len(), 4);
        assert_eq!(Family::of_level(4).len(), 5);
        for f in Family::ALL {
            assert_eq!(Family::parse(f.id()), Some(f));
        }
        assert_eq!(Family::of_level(4)[0], L4Drain);
    }
}
