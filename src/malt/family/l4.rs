//! Level 4: planning over several changes (drains, expansions, upgrades), each made on G and
//! then queried, and shared failure domains.

use super::super::answer::AnswerType;
use super::super::graph::Id;
use super::super::kind::Kind;
use super::super::plan::{Action, Plan, Query, highest};
use super::words::FABRIC;
use super::{Ctx, Draft, Redraw, join};

/// Whether the wording says to apply the changes to G (v2 on). v1's W2 and W3 read as
/// hypotheticals ("What-if: ...", "If ... are removed") while the checker grades the changes,
/// so an agent that took them literally and left G alone lost the task.
fn applied(c: &Ctx<'_>) -> bool {
    c.version >= 2
}

fn draft(question: String, actions: Vec<Action>, query: Query) -> Result<Draft, Redraw> {
    Ok(Draft { question, plan: Plan { actions, query } })
}

fn switches_under(c: &Ctx<'_>, y: Id) -> Vec<Id> {
    c.g.descendants(y).into_iter().filter(|&s| c.g.kind(s) == Kind::PacketSwitch).collect()
}

/// `k` distinct nodes of `pool` (partial Fisher–Yates), listed in canonical order.
fn some(c: &mut Ctx<'_>, pool: &[Id], k: usize) -> Vec<Id> {
    let mut picked: Vec<Id> = c.rng.subset(pool.len(), k).into_iter().map(|i| pool[i]).collect();
    picked.sort_unstable();
    picked
}

/// A block's capacity question target: the block, its superblock (aggregation blocks only) or
/// the fabric, uniformly.
fn block_scope(c: &mut Ctx<'_>, b: Id) -> Result<Id, Redraw> {
    let ju = c.g.require(FABRIC).map_err(|_| Redraw("no fabric".into()))?;
    let mut options = vec![b];
    if c.g.kind(b) == Kind::AggBlock {
        options.extend(c.g.parents(b));
    }
    options.push(ju);
    c.pick(&options, "scope")
}

fn block_and_switches(c: &mut Ctx<'_>) -> Result<(Id, Vec<Id>), Redraw> {
    let b = c.pick(&c.blocks(), "block")?;
    let switches = switches_under(c, b);
    c.set("block", c.name(b));
    Ok((b, switches))
}

pub fn drain(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let (b, switches) = block_and_switches(c)?;
    let k = c.rng.range(1, 3.min(switches.len() as u64)) as usize;
    let xs = some(c, &switches, k);
    let y = block_scope(c, b)?;
    let (xs_text, yname) = (join(c.g, &xs), c.name(y));
    c.set("xs", xs.iter().map(|&x| c.name(x)).collect::<Vec<_>>());
    c.set("y", yname.clone());
    let (w, yy) = (c.w, c.w.node(&yname));
    let sentence = match (w.0, applied(c)) {
        (1, _) => format!(
            "Drain {xs_text}: remove each of these switches with its ports. Report the remaining total capacity of {yy} in bps."
        ),
        (2, false) => {
            format!("What capacity is left in {yy} after switches {xs_text} are taken out with their ports?")
        }
        (2, true) => {
            format!("Take switches {xs_text} out of G with their ports. What capacity is left in {yy}?")
        }
        (_, false) => {
            format!("Maintenance removes {xs_text} and their ports. How many bps does {yy} still have?")
        }
        (_, true) => {
            format!(
                "Maintenance: remove {xs_text} and their ports from G. How many bps does {yy} still have?"
            )
        }
    };
    let actions = xs.iter().map(|&x| Action::RemoveSwitch { switch: c.name(x) }).collect();
    draft(format!("{sentence} {}", w.ret(AnswerType::Text, false)), actions, Query::Capacity { y: yname })
}

/// A superblock and `k ∈ 1..=max` distinct switches of its aggregation blocks.
fn superblock_switches(c: &mut Ctx<'_>, max: u64) -> Result<(String, Vec<Id>), Redraw> {
    let z = c.pick(&c.g.nodes_of(Kind::Superblock), "superblock")?;
    let pool = switches_under(c, z);
    let k = c.rng.range(1, max.min(pool.len() as u64)) as usize;
    let xs = some(c, &pool, k);
    let zname = c.name(z);
    c.set("z", zname.clone());
    c.set("xs", xs.iter().map(|&x| c.name(x)).collect::<Vec<_>>());
    Ok((zname, xs))
}

pub fn least(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let (z, xs) = superblock_switches(c, 4)?;
    let least = c.rng.chance(1, 2);
    c.set("extreme", if least { "least" } else { "most" });
    let (w, xs_text) = (c.w, join(c.g, &xs));
    let pick = |a: &'static str, b: &'static str| if least { a } else { b };
    let sentence = match (w.0, applied(c)) {
        (1, _) => format!(
            "Remove the switches {xs_text}, each with its ports. Which aggregation block of {z} now has the {} total capacity (ties: smallest name)?",
            pick("least", "most")
        ),
        (2, false) => format!(
            "If {xs_text} and their ports are removed, which aggregation block in {z} has the {} capacity? Ties: alphabetically first.",
            pick("lowest", "highest")
        ),
        (2, true) => format!(
            "Remove {xs_text} and their ports from G. Which aggregation block in {z} then has the {} capacity? Ties: alphabetically first.",
            pick("lowest", "highest")
        ),
        (_, false) => format!(
            "After decommissioning {xs_text} (ports included), name {z}'s {} aggregation block by total capacity, first name on ties.",
            pick("weakest", "strongest")
        ),
        (_, true) => format!(
            "Decommission {xs_text} in G (ports included), then name {z}'s {} aggregation block by total capacity, first name on ties.",
            pick("weakest", "strongest")
        ),
    };
    let actions = xs.iter().map(|&x| Action::RemoveSwitch { switch: c.name(x) }).collect();
    draft(format!("{sentence} {}", w.ret(AnswerType::Text, true)), actions, Query::Extreme { z, least })
}

pub fn expand(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let (b, switches) = block_and_switches(c)?;
    let count = c.rng.range(1, 8) as u32;
    let cap = c.cap();
    let y = block_scope(c, b)?;
    let first = *switches.first().ok_or_else(|| Redraw("empty block".into()))?;
    let prefix = format!("{}.p", c.g.name(first));
    let m = highest(c.g, first, &prefix);
    let ex = (1..=count).map(|i| format!("{prefix}{}", m + i)).collect::<Vec<_>>().join(", ");
    let (bname, yname) = (c.name(b), c.name(y));
    c.set("count", count);
    c.set("capacity_bps", cap);
    c.set("y", yname.clone());
    let (w, yy) = (c.w, c.w.node(&yname));
    let cc = w.cap(cap);
    let sentence = match (w.0, applied(c)) {
        (1, _) => format!(
            "Add {count} new ports of {cc} to every packet switch in {bname}, numbered after each switch's highest port (e.g. {ex}). Report the new total capacity of {yy} in bps."
        ),
        (2, false) => format!(
            "Each switch of {bname} gets {count} extra ports at {cc} ({ex}). What is {yy}'s total capacity then, in bps?"
        ),
        (2, true) => format!(
            "Give each switch of {bname} {count} extra ports at {cc} in G ({ex}). What is {yy}'s total capacity then, in bps?"
        ),
        (_, false) => format!(
            "What-if: grow every switch in {bname} by {count} ports of {cc}, numbered after its last port ({ex}); report {yy}'s new capacity."
        ),
        (_, true) => format!(
            "Grow every switch in {bname} by {count} ports of {cc} in G, numbered after its last port ({ex}); report {yy}'s new capacity."
        ),
    };
    let action = Action::AddPortsEach { block: bname, count, cap };
    draft(
        format!("{sentence} {}", w.ret(AnswerType::Text, false)),
        vec![action],
        Query::Capacity { y: yname },
    )
}

pub fn upgrade_rank(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let (z, xs) = superblock_switches(c, 3)?;
    let cap = c.cap();
    let high = c.rng.chance(1, 2);
    c.set("capacity_bps", cap);
    c.set("dir", if high { "high" } else { "low" });
    let (w, xs_text) = (c.w, join(c.g, &xs));
    let (cc, dir) = (w.cap(cap), w.dir(high));
    let sentence = match (w.0, applied(c)) {
        (1, _) => format!(
            "Upgrade every port of {xs_text} to {cc}. Then rank the aggregation blocks of {z} by total capacity, {dir}, ties by name ascending."
        ),
        (2, false) => format!(
            "Ports on {xs_text} move to {cc}. Rank {z}'s aggregation blocks by resulting capacity, {dir}, ties by name."
        ),
        (2, true) => format!(
            "Move the ports on {xs_text} to {cc} in G. Rank {z}'s aggregation blocks by resulting capacity, {dir}, ties by name."
        ),
        (_, false) => format!(
            "What-if: all ports of {xs_text} run at {cc}. Order {z}'s aggregation blocks by total capacity {dir}, alphabetical on ties."
        ),
        (_, true) => format!(
            "Set all ports of {xs_text} to {cc} in G. Order {z}'s aggregation blocks by total capacity {dir}, alphabetical on ties."
        ),
    };
    let actions = xs.iter().map(|&x| Action::SetPortCaps { switch: c.name(x), cap }).collect();
    let query = Query::Rank { y: z, high, k: None };
    draft(format!("{sentence} {}", w.ret(AnswerType::Table, false)), actions, query)
}

pub fn shared_risk(c: &mut Ctx<'_>) -> Result<Draft, Redraw> {
    let all = c.g.nodes_of(Kind::PacketSwitch);
    let x = c.pick(&all, "switch")?;
    let mode = c.rng.index(3);
    let block =
        c.g.parents(x).into_iter().find(|&p| matches!(c.g.kind(p), Kind::AggBlock | Kind::Spineblock));
    let superblock =
        block.and_then(|b| c.g.parents(b).into_iter().find(|&p| c.g.kind(p) == Kind::Superblock));
    let pool = match (mode, block, superblock) {
        (0, Some(b), _) => switches_under(c, b),
        (1, _, Some(z)) => switches_under(c, z),
        _ => all,
    };
    let pool: Vec<Id> = pool.into_iter().filter(|&s| s != x).collect();
    let x2 = c.pick(&pool, "second switch")?;
    let (xn, x2n) = (c.name(x), c.name(x2));
    c.set("x", xn.clone());
    c.set("x2_from", ["block", "superblock", "anywhere"][mode]);
    c.set("x2", x2n.clone());
    let w = c.w;
    let sentence = match w.0 {
        1 => format!(
            "List every aggregation block, spine block, superblock, rack and control domain that contains both switches {xn} and {x2n} (a switch counts as inside its control point's domain)."
        ),
        2 => format!(
            "Which aggregation/spine blocks, superblocks, racks and control domains contain both {xn} and {x2n} (a switch belongs to its control point's domain)?"
        ),
        _ => format!(
            "Find the shared failure domains of {xn} and {x2n}: blocks, superblocks, racks, control domains (via control points)."
        ),
    };
    let query = Query::SharedRisk { x: xn, x2: x2n };
    draft(format!("{sentence} {}", w.ret(AnswerType::List, false)), vec![], query)
}
