//! `fake:PRED`: an agent whose weakness is known exactly, for testing the search and for demos.
//!
//! The adaptive search claims to find where an agent trails the baseline. The only way to
//! check that claim is an agent whose weak region we wrote down ourselves: this one plays the
//! application's reference (its baseline, or its oracle where the application's search
//! compares with one, as MALT's does) everywhere except on tasks matching a predicate, where it sends
//! a harmless no-op reply every turn and so fails. `netpress adapt --agent fake:PRED` uses it
//! (left out of the agent list: it is test support, not a way to evaluate anything), and the
//! search's acceptance tests in `tests/adapt` drive it on every application.
//!
//! A predicate is clauses joined by `,`, all of which must hold:
//!
//! - `level>=2`, `subnets>=6`, `hosts=4`, `turns=10`: a dimension of the application's
//!   search space that the id carries (its level or a knob), compared as numbers when both
//!   sides are numbers (`=`, `!=`, `<`, `<=`, `>`, `>=`), with the value as the id writes it
//!   (MALT spells a shape as its dimensions: `shape=8x8x32x32`, not `large`);
//! - `families~WR`, `label~EDNS`: the value, split at `+` and `:`, contains the token;
//! - `label…`: the generated task's label (the fault set, the query family), for the
//!   dimensions an id does not spell out (K8s's fault sets, MALT's families);
//!
//! and two whole predicates: `never` (the agent is the baseline) and `random=P` (fails with
//! probability `P` by a hash of the id, so the same id always gets the same fate).

use crate::adapt::Via;
use crate::app::App;
use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message};
use crate::error::{Error, Result};
use crate::id::QueryId;

/// A parsed `fake:` predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Fake {
    /// Never fails: the agent is the baseline.
    Never,
    /// Fails with this probability, by a hash of the id.
    Random(f64),
    /// Fails where every clause holds.
    All(Vec<Clause>),
}

/// One `field OP value` test.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    field: Field,
    op: Op,
    value: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    Level,
    Knob(char),
    Label,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Has,
}

/// Operators in the order they are looked for: two-character ones before their prefixes.
const OPS: [(&str, Op); 7] = [
    (">=", Op::Ge),
    ("<=", Op::Le),
    ("!=", Op::Ne),
    ("=", Op::Eq),
    ("<", Op::Lt),
    (">", Op::Gt),
    ("~", Op::Has),
];

impl Fake {
    /// Parses `pred` against `app`'s search space, naming what is wrong.
    pub fn parse(app: &dyn App, pred: &str) -> Result<Fake> {
        let bad = |m: String| Error::Invalid(format!("fake agent {pred:?}: {m}"));
        match pred.trim() {
            "never" => return Ok(Fake::Never),
            p if p.starts_with("random=") => {
                let v = &p["random=".len()..];
                return match v.parse::<f64>() {
                    Ok(x) if (0.0..=1.0).contains(&x) => Ok(Fake::Random(x)),
                    _ => Err(bad(format!("{v:?} is not a probability between 0 and 1"))),
                };
            }
            "" => return Err(bad("empty predicate (try never, random=0.3 or subnets>=6)".into())),
            _ => {}
        }
        let space = app.space();
        let clauses = pred.split(',').map(|c| clause(&space, c.trim()).map_err(&bad));
        Ok(Fake::All(clauses.collect::<Result<_>>()?))
    }

    /// Whether the agent fails on `id` (a task that does not generate matches no label).
    pub fn fails(&self, app: &dyn App, id: &QueryId) -> bool {
        match self {
            Fake::Never => false,
            Fake::Random(p) => {
                let h = crate::seed::seed_bytes(&id.to_string());
                f64::from(u16::from_le_bytes([h[0], h[1]])) < p * 65536.0
            }
            Fake::All(clauses) => {
                let label = || app.generate(id).ok().map(|t| t.card().label.clone());
                clauses.iter().all(|c| c.holds(id, &label))
            }
        }
    }

    /// The agent for the task `id`: the no-op where the predicate holds, elsewhere the
    /// application's reference (its oracle where it has one, else its baseline).
    pub fn agent(&self, app: &'static dyn App, id: &str) -> Box<dyn Agent> {
        let Ok(q) = id.parse::<QueryId>() else { return app.baseline() };
        if self.fails(app, &q) {
            return Box::new(Noop(noop_reply(app.info().name)));
        }
        app.oracle(&q).unwrap_or_else(|| app.baseline())
    }
}

fn clause(space: &crate::adapt::Space, text: &str) -> std::result::Result<Clause, String> {
    let (at, op, len) = OPS
        .iter()
        .filter_map(|(s, op)| text.find(s).map(|at| (at, *op, s.len())))
        .min_by_key(|(at, _, len)| (*at, usize::MAX - len))
        .ok_or_else(|| format!("clause {text:?} has no operator (=, !=, <, <=, >, >=, ~)"))?;
    let (name, value) = (text[..at].trim(), text[at + len..].trim());
    if value.is_empty() {
        return Err(format!("clause {text:?} has no value"));
    }
    let field = match name {
        "level" => Field::Level,
        "label" => Field::Label,
        _ => match space.dim(name).map(|(_, d)| d.via) {
            Some(Via::Knob(k)) => Field::Knob(k),
            Some(_) => return Err(format!("{name:?} is not in the id; test the task's label instead")),
            None => return Err(format!("unknown field {name:?} (level, label or a knob dimension)")),
        },
    };
    let ordered = matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge);
    if ordered && value.parse::<f64>().is_err() {
        return Err(format!("clause {text:?} compares with a value that is not a number"));
    }
    Ok(Clause { field, op, value: value.to_string() })
}

impl Clause {
    fn holds(&self, id: &QueryId, label: &dyn Fn() -> Option<String>) -> bool {
        let actual = match self.field {
            Field::Level => Some(id.level.to_string()),
            Field::Knob(k) => id.knob(k).map(str::to_string),
            Field::Label => label(),
        };
        let Some(actual) = actual else { return false };
        let numbers = actual.parse::<f64>().ok().zip(self.value.parse::<f64>().ok());
        match (self.op, numbers) {
            (Op::Has, _) => actual.split(['+', ':']).any(|t| t == self.value),
            (Op::Eq, Some((a, b))) => a == b,
            (Op::Ne, Some((a, b))) => a != b,
            (Op::Eq, None) => actual == self.value,
            (Op::Ne, None) => actual != self.value,
            (Op::Lt, Some((a, b))) => a < b,
            (Op::Le, Some((a, b))) => a <= b,
            (Op::Gt, Some((a, b))) => a > b,
            (Op::Ge, Some((a, b))) => a >= b,
            _ => false,
        }
    }
}

/// Replies the same no-op every turn.
pub struct Noop(pub &'static str);

impl Agent for Noop {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("fake", "noop")
    }
    fn reply(&mut self, _: &[Message]) -> std::result::Result<AgentReply, AgentError> {
        Ok(AgentReply { text: self.0.to_string(), ..Default::default() })
    }
}

/// A reply that is valid for the application and changes nothing. An application not named
/// here gets an empty reply, which its episode refuses: a failure all the same.
pub fn noop_reply(app: &str) -> &'static str {
    match app {
        "route" => r#"{"machine": "r0", "command": "true"}"#,
        "k8s" => "kubectl get pods",
        "malt" => "def process_graph(G):\n    return None",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;

    fn app(name: &str) -> &'static dyn App {
        Registry::standard().app(name).unwrap()
    }

    fn fails(app_name: &str, pred: &str, id: &str) -> bool {
        let a = app(app_name);
        Fake::parse(a, pred).unwrap().fails(a, &id.parse().unwrap())
    }

    #[test]
    fn knob_clauses_compare_as_numbers_and_tokens() {
        let id = "route-v1-L2-s1-i0-n7-m4-fWR+DI-t10";
        assert!(fails("route", "subnets>=6", id));
        assert!(!fails("route", "subnets<7", id));
        assert!(fails("route", "hosts=4,families~WR", id));
        assert!(!fails("route", "hosts=4,families~DR", id));
        assert!(fails("route", "level=2", id));
        assert!(!fails("route", "level!=2", id));
        // A knob the id leaves out matches nothing.
        assert!(!fails("route", "routers>=1", id));
    }

    #[test]
    fn labels_come_from_the_generated_task() {
        let a = app("k8s");
        let id = a.default_id(3, 1, 0);
        let label = a.generate(&id).unwrap().card().label.clone();
        let token = label.split(['+', ':']).nth(1).unwrap().to_string();
        assert!(Fake::parse(a, &format!("label~{token}")).unwrap().fails(a, &id));
        assert!(!Fake::parse(a, "label~NOSUCH").unwrap().fails(a, &id));
    }

    #[test]
    fn random_is_a_fixed_share_of_ids() {
        let a = app("route");
        let f = Fake::parse(a, "random=0.3").unwrap();
        let n = (0..2000).filter(|i| f.fails(a, &a.default_id(1, *i, 0))).count();
        assert!((500..700).contains(&n), "{n}");
        assert!(!Fake::parse(a, "never").unwrap().fails(a, &a.default_id(1, 1, 0)));
    }

    #[test]
    fn bad_predicates_are_refused_by_name() {
        let a = app("route");
        for (pred, says) in [
            ("", "empty"),
            ("random=2", "probability"),
            ("subnets", "no operator"),
            ("subnets>=", "no value"),
            ("colour=red", "unknown field"),
            ("subnets>=many", "not a number"),
        ] {
            let e = Fake::parse(a, pred).unwrap_err().to_string();
            assert!(e.contains(says), "{pred}: {e}");
        }
        let e = Fake::parse(app("malt"), "family=x").unwrap_err().to_string();
        assert!(e.contains("label"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn any_predicate_parses_or_is_refused(pred in ".{0,40}") {
            let a = app("route");
            if let Ok(f) = Fake::parse(a, &pred) {
                let _ = f.fails(a, &a.default_id(1, 1, 0));
            }
        }
    }
}
