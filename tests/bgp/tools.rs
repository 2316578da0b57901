//! Byte goldens of the tools' answers: every RIPEstat data call (by `ripestat` and by `curl`),
//! each registry and `bgpdump`, run on two tasks with resources taken from the trigger, their
//! first lines and exit status pinned in `tests/data/bgp/tools.txt`. The unit tests check
//! fields and the property test the envelope; this pins the whole text (key order,
//! indentation, number forms, error wording), so any change to a tool's format is seen in
//! review. Re-record after an intended change with `NETPRESS_BLESS=1 cargo test --test bgp
//! tools::`.

use netpress::QueryId;
use netpress::bgp::task::Task;
use netpress::bgp::tools;

use crate::bless::golden;

/// Lines kept of each answer: enough for every call's keys and a few records.
const HEAD: usize = 40;

/// The command lines run on `task`, with resources from its trigger.
fn commands(task: &Task) -> Vec<String> {
    let t = &task.trigger;
    let addr =
        t.address.or(t.prefix.map(|p| p.addr())).map_or_else(|| "198.18.0.1".into(), |a| a.to_string());
    let p = t.prefix.map_or_else(|| addr.clone(), |p| p.to_string());
    let asn = t.asns.first().copied().unwrap_or(64512);
    let mut out: Vec<String> = [
        "bgp-updates",
        "looking-glass",
        "routing-history",
        "prefix-overview",
        "whois",
        "visibility",
        "routing-status",
    ]
    .iter()
    .map(|call| format!("ripestat {call} resource={p}"))
    .collect();
    for call in ["announced-prefixes", "as-overview", "asn-neighbours", "routing-status", "whois"] {
        out.push(format!("ripestat {call} resource=AS{asn}"));
    }
    out.extend([
        format!("ripestat rpki-validation resource=AS{asn} prefix={p}"),
        format!("ripestat looking-glass resource={addr}"),
        format!("curl -s 'https://stat.ripe.net/data/prefix-overview/data.json?resource={p}'"),
        "ripestat rpki-validation resource=AS1".into(),
        "ripestat bgp-updates resource=999.0.0.0/8".into(),
        "ripestat nosuch resource=AS1".into(),
        format!("asrel {asn}"),
        format!("vrps --asn {asn}"),
        "atlas probes".into(),
        "ls".into(),
    ]);
    out
}

/// One command's block: the line, its answer's first [`HEAD`] lines, its exit status.
fn block(task: &Task, line: &str) -> String {
    let o = tools::run(task, 1, line);
    let mut text: String = o.output.lines().take(HEAD).map(|l| format!("{l}\n")).collect();
    let total = o.output.lines().count();
    if total > HEAD {
        text.push_str(&format!("[… {} more lines]\n", total - HEAD));
    }
    format!("$ {line}\n{text}[exit {}]\n\n", o.status)
}

#[test]
fn tool_answers_keep_their_bytes() {
    let mut actual = String::new();
    for id in ["bgp-v2-L2-s7-i0", "bgp-v2-L3-s1-i0"] {
        let task = Task::generate(&id.parse::<QueryId>().unwrap()).unwrap();
        actual.push_str(&format!("### {id}\n\n"));
        for line in commands(&task) {
            actual.push_str(&block(&task, &line));
        }
    }
    let committed = golden("tests/data/bgp/tools.txt", || actual.clone());
    if committed != actual {
        let first = committed.lines().zip(actual.lines()).position(|(a, b)| a != b);
        panic!(
            "the tools' answers moved from tests/data/bgp/tools.txt (first differing line {first:?}); bless if intended"
        );
    }
}
