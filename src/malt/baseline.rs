//! The `baseline` agent (docs/malt.md): a deterministic template compiler. It reads only the
//! conversation, finds the question in the prompt, matches it against one pattern per L1–L3
//! family in the W1 wording, and emits G-API Python for the extracted parameters. Anything
//! else (W2/W3 paraphrases, all of level 4) gets code returning 'unsupported': safe and wrong.
//! The gap between this and a language model is a reported figure.

use std::sync::OnceLock;

use regex_lite::{Captures, Regex};

use crate::conversation::{Agent, AgentError, AgentInfo, AgentReply, Message, Role};

use super::kind::Kind;
use super::plan::{Action, Child, Plan, Query};
use super::{prompt, python};

/// The answer for questions the compiler does not know.
pub const UNSUPPORTED: &str = "def process_graph(G):\n    return {'type': 'text', 'data': 'unsupported'}";

const N: &str = r"(\S+)";
const RET_GRAPH: &str = r" Return a graph\.";
const RET_LIST: &str = r" Return a list of node names\.";
const RET_NUMBER: &str = r" Return the number as text\.";
const RET_TABLE: &str = r" Return a table of \[name, capacity_bps\] rows in that order\.";

/// `{rm}` in W1.
const RM: &str = r"(?:Remove EK_PORT (?P<rport>\S+)\.|Remove EK_PACKET_SWITCH (?P<rsw>\S+) and the EK_PORT nodes it contains\.|Remove EK_AGG_BLOCK (?P<ragg>\S+) with every EK_PACKET_SWITCH and EK_PORT below it\.)";

/// `{add}` in W1.
const ADD: &str = r"Add (?:EK_PORT (?P<port>\S+) with physical_capacity_bps (?P<pcap>\d+) bps|EK_PACKET_SWITCH (?P<sw>\S+) with stage (?P<st>\d+) and (?P<n>\d+) EK_PORT children \S+ to \S+, each with physical_capacity_bps (?P<scap>\d+) bps|EK_AGG_BLOCK (?P<agg>\S+) with no children) to (?P<parent>\S+)\.";

/// `{rank}` / `{rank'}` in W1.
const RANK: &str = r"Rank the direct children of (?P<y>\S+)(?: in the updated graph)? by total capacity, (?P<dir>highest|lowest) first, ties by name ascending(?:, keeping only the first (?P<k>\d+) rows)?\.";

/// The new child of a W1 for-each question.
const EACH: &str = r"For each (?P<per>EK_[A-Z_]+) in (?P<scope>\S+), add (?:EK_PORT \S+ with physical_capacity_bps (?P<pcap>\d+) bps|EK_PACKET_SWITCH \S+ with stage (?P<st>\d+) and (?P<n>\d+) EK_PORT children \S+ to \S+, each with physical_capacity_bps (?P<scap>\d+) bps|(?P<agg>EK_AGG_BLOCK) \S+ with no children)\. Then count the (?P<ck>EK_[A-Z_]+) in (?P<z>\S+)\.";

type Build = fn(&Captures<'_>) -> Option<Plan>;

fn patterns() -> &'static [(Regex, Build)] {
    static PATTERNS: OnceLock<Vec<(Regex, Build)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        let table: Vec<(String, Build)> = vec![
            (format!("{ADD}{RET_GRAPH}"), |c| plan(vec![added(c)?], Query::Graph)),
            (format!("{RM}{RET_GRAPH}"), |c| plan(vec![removed(c)?], Query::Graph)),
            (format!(r"Set physical_capacity_bps of EK_PORT {N} to (\d+) bps\.{RET_GRAPH}"), |c| {
                plan(vec![Action::SetPortCap { port: text(c, 1)?, cap: num(c, 2)? }], Query::Graph)
            }),
            (format!(r"List the direct children of {N}\.{RET_LIST}"), |c| {
                plan(vec![], Query::Children { y: text(c, 1)?, kind: None })
            }),
            (format!(r"List the direct children of {N} that are (EK_[A-Z_]+)\.{RET_LIST}"), |c| {
                plan(vec![], Query::Children { y: text(c, 1)?, kind: Some(kind(c, 2)?) })
            }),
            (format!(r"List all (EK_[A-Z_]+) contained in {N}\.{RET_LIST}"), |c| {
                plan(vec![], Query::Descendants { y: text(c, 2)?, kind: kind(c, 1)? })
            }),
            (format!(r"How many (EK_[A-Z_]+) does {N} contain\?{RET_NUMBER}"), |c| {
                plan(vec![], Query::Count { kind: kind(c, 1)?, under: Some(text(c, 2)?) })
            }),
            (format!(r"How many (EK_[A-Z_]+) are in the graph\?{RET_NUMBER}"), |c| {
                plan(vec![], Query::Count { kind: kind(c, 1)?, under: None })
            }),
            (format!("{RANK}{RET_TABLE}"), |c| plan(vec![], rank(c)?)),
            (format!(r"{RM} List the direct children of {N} in the updated graph\.{RET_LIST}"), |c| {
                plan(vec![removed(c)?], Query::Children { y: text(c, 4)?, kind: None })
            }),
            (format!("{RM} {RANK}{RET_TABLE}"), |c| plan(vec![removed(c)?], rank(c)?)),
            (format!(r"{RM} How many (EK_[A-Z_]+) remain in {N}\?{RET_NUMBER}"), |c| {
                plan(vec![removed(c)?], Query::Count { kind: kind(c, 4)?, under: Some(text(c, 5)?) })
            }),
            (format!(r"{ADD} List the direct children of (?P<y>\S+) in the updated graph\.{RET_LIST}"), |c| {
                plan(vec![added(c)?], Query::Children { y: named(c, "y")?, kind: None })
            }),
            (format!("{ADD} {RANK}{RET_TABLE}"), |c| plan(vec![added(c)?], rank(c)?)),
            (
                format!(r"{ADD} How many (?P<k>EK_[A-Z_]+) does (?P<y>\S+) contain in the updated graph\?{RET_NUMBER}"),
                |c| {
                    let kind = Kind::parse(&named(c, "k")?)?;
                    plan(vec![added(c)?], Query::Count { kind, under: Some(named(c, "y")?) })
                },
            ),
            (format!("{EACH}{RET_NUMBER}"), for_each),
        ];
        table
            .into_iter()
            .map(|(p, build)| (Regex::new(&format!("^{p}$")).expect("baseline patterns compile"), build))
            .collect()
    })
}

fn plan(actions: Vec<Action>, query: Query) -> Option<Plan> {
    Some(Plan { actions, query })
}

fn text(c: &Captures<'_>, i: usize) -> Option<String> {
    c.get(i).map(|m| m.as_str().to_string())
}

fn named(c: &Captures<'_>, name: &str) -> Option<String> {
    c.name(name).map(|m| m.as_str().to_string())
}

fn num<T: std::str::FromStr>(c: &Captures<'_>, i: usize) -> Option<T> {
    text(c, i)?.parse().ok()
}

fn named_num<T: std::str::FromStr>(c: &Captures<'_>, name: &str) -> Option<T> {
    named(c, name)?.parse().ok()
}

fn kind(c: &Captures<'_>, i: usize) -> Option<Kind> {
    Kind::parse(&text(c, i)?)
}

fn removed(c: &Captures<'_>) -> Option<Action> {
    if let Some(port) = named(c, "rport") {
        return Some(Action::RemovePort { port });
    }
    if let Some(switch) = named(c, "rsw") {
        return Some(Action::RemoveSwitch { switch });
    }
    named(c, "ragg").map(|block| Action::RemoveAggBlock { block })
}

fn added(c: &Captures<'_>) -> Option<Action> {
    let parent = named(c, "parent")?;
    if let Some(port) = named(c, "port") {
        return Some(Action::AddPort { switch: parent, port, cap: named_num(c, "pcap")? });
    }
    if let Some(switch) = named(c, "sw") {
        let (stage, ports, cap) = (named_num(c, "st")?, named_num(c, "n")?, named_num(c, "scap")?);
        return Some(Action::AddSwitch { block: parent, switch, stage, ports, cap });
    }
    named(c, "agg").map(|block| Action::AddAggBlock { superblock: parent, block })
}

fn rank(c: &Captures<'_>) -> Option<Query> {
    let k = match named(c, "k") {
        Some(k) => Some(k.parse().ok()?),
        None => None,
    };
    Some(Query::Rank { y: named(c, "y")?, high: named(c, "dir")? == "highest", k })
}

fn for_each(c: &Captures<'_>) -> Option<Plan> {
    let what = if let Some(cap) = named_num(c, "pcap") {
        Child::Port { cap }
    } else if let Some(cap) = named_num(c, "scap") {
        Child::Switch { stage: named_num(c, "st")?, ports: named_num(c, "n")?, cap }
    } else {
        named(c, "agg").map(|_| Child::AggBlock)?
    };
    let per = Kind::parse(&named(c, "per")?)?;
    let ck = Kind::parse(&named(c, "ck")?)?;
    let action = Action::ForEach { scope: named(c, "scope")?, per, what };
    plan(vec![action], Query::Count { kind: ck, under: Some(named(c, "z")?) })
}

/// The plan of a W1 question, if the compiler knows its template.
pub fn compile(question: &str) -> Option<Plan> {
    patterns().iter().find_map(|(re, build)| re.captures(question).and_then(|c| build(&c)))
}

/// The Python the baseline answers a question with.
pub fn answer(question: &str) -> String {
    compile(question).map_or_else(|| UNSUPPORTED.to_string(), |p| python::render(&p))
}

/// The baseline agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Baseline;

impl Agent for Baseline {
    fn info(&self) -> AgentInfo {
        AgentInfo::new("baseline", "malt-template-compiler")
    }

    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        let prompt = messages
            .iter()
            .find(|m| m.role == Role::User)
            .ok_or_else(|| AgentError::fatal("the conversation has no prompt"))?;
        let code = prompt::question_of(&prompt.content).map_or_else(|| UNSUPPORTED.to_string(), answer);
        Ok(AgentReply { text: format!("```python\n{code}\n```"), latency_ms: None, tokens: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_w1_and_refuses_paraphrases() {
        let q =
            "Remove EK_PORT ju1.a1.m1.s2c1.p3. How many EK_PORT remain in ju1.a1? Return the number as text.";
        let p = compile(q).unwrap();
        assert_eq!(p.actions, vec![Action::RemovePort { port: "ju1.a1.m1.s2c1.p3".into() }]);
        assert_eq!(p.query, Query::Count { kind: Kind::Port, under: Some("ju1.a1".into()) });
        let q = "Add EK_PACKET_SWITCH ju1.s1.s2c9 with stage 2 and 3 EK_PORT children ju1.s1.s2c9.p1 to ju1.s1.s2c9.p3, each with physical_capacity_bps 2500000000 bps to ju1.s1. Return a graph.";
        let p = compile(q).unwrap();
        assert_eq!(
            p.actions,
            vec![Action::AddSwitch {
                block: "ju1.s1".into(),
                switch: "ju1.s1.s2c9".into(),
                stage: 2,
                ports: 3,
                cap: 2_500_000_000
            }]
        );
        assert!(
            compile("Decommission port ju1.a1.m1.s2c1.p3. Give the updated graph as the result.").is_none()
        );
        assert_eq!(answer("What is 2+2?"), UNSUPPORTED);
    }

    #[test]
    fn rank_with_and_without_k() {
        let q = "Rank the direct children of ju1 by total capacity, lowest first, ties by name ascending, keeping only the first 2 rows. Return a table of [name, capacity_bps] rows in that order.";
        assert_eq!(compile(q).unwrap().query, Query::Rank { y: "ju1".into(), high: false, k: Some(2) });
    }
}
