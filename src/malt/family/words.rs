//! The three wordings (docs/malt.md, "Tasks"). W1 is the exact reference
//! style the baseline parses; W2 and W3 are paraphrases with the same meaning.

use super::super::answer::AnswerType;
use super::super::kind::Kind;

/// Port speeds a question may ask for, in bps (1, 2.5, 5, 10, 25, 40, 50, 100, 200, 400 Gbps).
pub const CAPACITIES: [i64; 10] = [
    1_000_000_000,
    2_500_000_000,
    5_000_000_000,
    10_000_000_000,
    25_000_000_000,
    40_000_000_000,
    50_000_000_000,
    100_000_000_000,
    200_000_000_000,
    400_000_000_000,
];

/// The fabric's root.
pub const FABRIC: &str = "ju1";

/// A wording: 1, 2 or 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words(pub u8);

/// `10 Gbps`, `2.5 Gbps`.
pub fn gbps(bps: i64) -> String {
    let whole = bps / 1_000_000_000;
    let frac = bps % 1_000_000_000;
    if frac == 0 {
        format!("{whole} Gbps")
    } else {
        let digits = format!("{frac:09}");
        format!("{whole}.{} Gbps", digits.trim_end_matches('0'))
    }
}

/// Lower-cases the first letter (for "After that, what does …").
pub fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_lowercase().chain(chars).collect()).unwrap_or_default()
}

impl Words {
    fn pick<'a>(self, w1: &'a str, w2: &'a str, w3: &'a str) -> &'a str {
        match self.0 {
            1 => w1,
            2 => w2,
            _ => w3,
        }
    }

    pub fn w1(self) -> bool {
        self.0 == 1
    }

    /// A capacity: W1 `10000000000 bps`, W2 `10 Gbps`, W3 `10 Gbps (10000000000 bps)`.
    pub fn cap(self, bps: i64) -> String {
        match self.0 {
            1 => format!("{bps} bps"),
            2 => gbps(bps),
            _ => format!("{} ({bps} bps)", gbps(bps)),
        }
    }

    /// A kind, singular: W1 `EK_PORT`, else `port`.
    pub fn kind(self, k: Kind) -> String {
        if self.w1() { k.as_str().into() } else { k.noun().into() }
    }

    /// A kind, plural: W1 `EK_PORT`, else `ports`.
    pub fn kinds(self, k: Kind) -> String {
        if self.w1() { k.as_str().into() } else { k.plural().into() }
    }

    /// A node: `ju1` is "the whole fabric" in W2/W3.
    pub fn node(self, name: &str) -> String {
        if name == FABRIC && !self.w1() { "the whole fabric".into() } else { name.into() }
    }

    /// `{kind} {Y}` (W3): the noun then the name, or "the whole fabric".
    pub fn kind_node(self, kind: Kind, name: &str) -> String {
        if name == FABRIC { self.node(name) } else { format!("{} {name}", kind.noun()) }
    }

    /// `{ret}`; `name` selects W1's text-name form.
    pub fn ret(self, ty: AnswerType, name: bool) -> &'static str {
        match ty {
            AnswerType::Graph => self.pick(
                "Return a graph.",
                "Answer with type graph.",
                "Give the updated graph as the result.",
            ),
            AnswerType::Text if name => {
                self.pick("Return the name as text.", "Answer with type text.", "Reply as text, value only.")
            }
            AnswerType::Text => self.pick(
                "Return the number as text.",
                "Answer with type text.",
                "Reply as text, value only.",
            ),
            AnswerType::List => self.pick(
                "Return a list of node names.",
                "Answer with type list; order does not matter.",
                "Reply with the names as a list (any order).",
            ),
            AnswerType::Table => self.pick(
                "Return a table of [name, capacity_bps] rows in that order.",
                "Answer with type table, one [name, bps] row each.",
                "Reply with ordered [name, capacity in bps] rows.",
            ),
        }
    }

    /// `{dir}`.
    pub fn dir(self, high: bool) -> &'static str {
        if high {
            self.pick("highest first", "from largest to smallest capacity", "descending")
        } else {
            self.pick("lowest first", "from smallest to largest capacity", "ascending")
        }
    }

    /// `{top}`.
    pub fn top(self, k: Option<usize>) -> String {
        match k {
            None => String::new(),
            Some(k) => match self.0 {
                1 => format!(", keeping only the first {k} rows"),
                2 => format!("; list only the top {k}"),
                _ => format!(" (first {k} only)"),
            },
        }
    }

    /// `{rm}` for a port, switch or aggregation block.
    pub fn rm(self, kind: Kind, x: &str) -> String {
        match kind {
            Kind::Port => match self.0 {
                1 => format!("Remove EK_PORT {x}."),
                2 => format!("Take port {x} out of service and delete it."),
                _ => format!("Decommission port {x}."),
            },
            Kind::PacketSwitch => match self.0 {
                1 => format!("Remove EK_PACKET_SWITCH {x} and the EK_PORT nodes it contains."),
                2 => format!("Delete switch {x} together with all its ports."),
                _ => format!(
                    "Decommission packet switch {x}: remove it and its ports; its chassis and control point stay."
                ),
            },
            _ => match self.0 {
                1 => format!("Remove EK_AGG_BLOCK {x} with every EK_PACKET_SWITCH and EK_PORT below it."),
                2 => format!("Delete aggregation block {x}, all its switches and their ports."),
                _ => format!("Decommission aggregation block {x} including its switches and their ports."),
            },
        }
    }

    /// `{new}` for a port `n` of capacity `c`.
    pub fn new_port(self, n: &str, c: i64) -> String {
        let c = self.cap(c);
        match self.0 {
            1 => format!("EK_PORT {n} with physical_capacity_bps {c}"),
            2 => format!("a port {n} of {c}"),
            _ => format!("port {n} ({c})"),
        }
    }

    /// `{new}` for a switch `n` of stage `st` with `k` ports of capacity `c`.
    pub fn new_switch(self, n: &str, st: i64, k: u32, c: i64) -> String {
        let c = self.cap(c);
        match self.0 {
            1 => format!(
                "EK_PACKET_SWITCH {n} with stage {st} and {k} EK_PORT children {n}.p1 to {n}.p{k}, each with physical_capacity_bps {c}"
            ),
            2 => format!("a stage-{st} switch {n} with {k} ports ({n}.p1…{n}.p{k}) of {c} each"),
            _ => format!("packet switch {n} (stage {st}) carrying ports {n}.p1 to {n}.p{k}, {c} each"),
        }
    }

    /// `{new}` for an empty aggregation block `n`.
    pub fn new_agg(self, n: &str) -> String {
        match self.0 {
            1 => format!("EK_AGG_BLOCK {n} with no children"),
            2 => format!("an empty aggregation block {n}"),
            _ => format!("aggregation block {n} (no switches yet)"),
        }
    }

    /// `{add}`.
    pub fn add(self, new: &str, parent_kind: Kind, parent: &str) -> String {
        match self.0 {
            1 => format!("Add {new} to {parent}."),
            2 => format!("Create {new} inside {parent}."),
            _ => format!("Install {new} in {} {parent}; change nothing else.", parent_kind.noun()),
        }
    }

    /// The W2/W3 joint after a change: `After that, ` / `Then, in the resulting topology, `.
    pub fn then(self, query: &str) -> String {
        match self.0 {
            2 => format!("After that, {}", lower_first(query)),
            _ => format!("Then, in the resulting topology, {}", lower_first(query)),
        }
    }

    /// The list question: children of `y` (mode a), those of kind `k` (b), or every `k`
    /// anywhere below (c, `deep`). `updated` adds W1's ` in the updated graph`.
    pub fn list(self, y: &str, ykind: Kind, k: Option<Kind>, deep: bool, updated: bool) -> String {
        let upd = if updated { " in the updated graph" } else { "" };
        let yy = self.node(y);
        match (self.0, k, deep) {
            (1, None, _) => format!("List the direct children of {y}{upd}."),
            (1, Some(k), false) => {
                format!("List the direct children of {y}{upd} that are {}.", self.kinds(k))
            }
            (1, Some(k), true) => format!("List all {} contained in {y}{upd}.", self.kinds(k)),
            (2, None, _) => format!("What does {yy} directly contain?"),
            (2, Some(k), false) => format!("Which {} does {yy} directly contain?", self.kinds(k)),
            (2, Some(k), true) => format!("Which {} are anywhere under {yy}?", self.kinds(k)),
            (_, None, _) => format!("Name the immediate children of {}.", self.kind_node(ykind, y)),
            (_, Some(k), false) => {
                format!("Name the {} directly inside {}.", self.kinds(k), self.kind_node(ykind, y))
            }
            (_, Some(k), true) => {
                format!("Name every {} inside {}.", self.kinds(k), self.kind_node(ykind, y))
            }
        }
    }

    /// The W2/W3 count question (W1 forms differ per family); `None` = the whole topology.
    pub fn count(self, k: Kind, y: Option<(Kind, &str)>) -> String {
        let ks = self.kinds(k);
        match (self.0, y) {
            (1, Some((_, y))) => format!("How many {ks} does {y} contain?"),
            (1, None) => format!("How many {ks} are in the graph?"),
            (2, Some((_, y))) => format!("Count the {ks} under {}.", self.node(y)),
            (2, None) => format!("Count the {ks} in the whole topology."),
            (_, Some((yk, y))) => format!("What is the number of {ks} inside {}?", self.kind_node(yk, y)),
            (_, None) => format!("What is the number of {ks} in the whole topology?"),
        }
    }

    /// `{rank}` (`updated` gives W1's `{rank'}`).
    pub fn rank(self, y: &str, high: bool, k: Option<usize>, updated: bool) -> String {
        let (dir, top) = (self.dir(high), self.top(k));
        match self.0 {
            1 => {
                let upd = if updated { " in the updated graph" } else { "" };
                format!(
                    "Rank the direct children of {y}{upd} by total capacity, {dir}, ties by name ascending{top}."
                )
            }
            2 => format!(
                "Order the children of {} by total capacity {dir} (equal capacities: by name){top}.",
                self.node(y)
            ),
            _ => format!(
                "Sort what {} directly contains by aggregate port capacity, {dir}, breaking ties alphabetically{top}.",
                self.node(y)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_render_in_each_wording() {
        assert_eq!(Words(1).cap(10_000_000_000), "10000000000 bps");
        assert_eq!(Words(2).cap(2_500_000_000), "2.5 Gbps");
        assert_eq!(Words(3).cap(10_000_000_000), "10 Gbps (10000000000 bps)");
    }

    #[test]
    fn fabric_and_kinds() {
        assert_eq!(Words(1).node("ju1"), "ju1");
        assert_eq!(Words(2).node("ju1"), "the whole fabric");
        assert_eq!(Words(3).kind_node(Kind::AggBlock, "ju1.a1.m1"), "aggregation block ju1.a1.m1");
        assert_eq!(Words(3).kinds(Kind::PacketSwitch), "packet switches");
        assert_eq!(
            Words(2).then("What does x directly contain?"),
            "After that, what does x directly contain?"
        );
    }
}
