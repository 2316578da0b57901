use super::*;
use crate::bgp::task::Task;

fn task(id: &str) -> Task {
    Task::generate(&id.parse().unwrap()).unwrap()
}

fn out(t: &Task, line: &str) -> (String, i32) {
    let o = run(t, 1, line);
    (o.output, o.status)
}

#[test]
fn ls_and_bgpdump_read_the_collectors_files() {
    let t = task("bgp-v1-L1-s0-i0");
    let (dirs, st) = out(&t, "ls");
    assert_eq!((dirs.as_str(), st), ("rc00\n", 0));
    let (files, _) = out(&t, "ls rc00");
    let bview = files.lines().find(|l| l.starts_with("bview.")).unwrap();
    let (rib, st) = out(&t, &format!("bgpdump -m rc00/{bview}"));
    assert_eq!(st, 0);
    let first = rib.lines().next().unwrap();
    let fields: Vec<&str> = first.split('|').collect();
    assert_eq!(fields[0], "TABLE_DUMP2");
    assert_eq!(fields[2], "B");
    assert_eq!(fields.len(), 15, "{first}");
    assert!(first.ends_with("|NAG||"), "{first}");
    let updates: String = files
        .lines()
        .filter(|l| l.starts_with("updates."))
        .map(|f| out(&t, &format!("bgpdump -m rc00/{f}")).0)
        .collect();
    assert!(!updates.is_empty(), "the incident shows in some updates file");
    for l in updates.lines() {
        let f: Vec<&str> = l.split('|').collect();
        assert_eq!(f[0], "BGP4MP");
        assert!(f[2] == "A" && f.len() == 15 || f[2] == "W" && f.len() == 6, "{l}");
    }
}

#[test]
fn bgpdump_errors_are_bgpdumps() {
    let t = task("bgp-v1-L1-s0-i0");
    assert_eq!(
        out(&t, "bgpdump -m rc00/nothing"),
        ("can't open dumpfile: No such file or directory\n".into(), 1)
    );
    let (text, st) = out(&t, "bgpdump -m");
    assert!(text.starts_with("you must supply exactly one file to process\nUsage: bgpdump"), "{text}");
    assert_eq!(st, 1);
    assert_eq!(out(&t, "nosuch").1, 127);
}

#[test]
fn ripestat_answers_in_its_envelope() {
    let t = task("bgp-v1-L1-s0-i0");
    let p = t.trigger.prefix.unwrap();
    let (text, st) = out(&t, &format!("ripestat bgp-updates resource={p}"));
    assert_eq!(st, 0);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["data_call_name"], "bgp-updates");
    assert!(v["data"]["nr_updates"].as_u64().unwrap() > 0);
    assert!(text.starts_with("{\n    \"messages\": [],\n    \"see_also\": [],\n    \"version\": \"1.0\""));
    let url = format!("curl -s 'https://stat.ripe.net/data/routing-history/data.json?resource={p}'");
    let v: serde_json::Value = serde_json::from_str(&out(&t, &url).0).unwrap();
    assert!(!v["data"]["by_origin"].as_array().unwrap().is_empty());
    let (bad, st) = out(&t, "ripestat bgp-updates resource=10.0.0.1/8");
    assert_eq!(st, 22);
    let v: serde_json::Value = serde_json::from_str(&bad).unwrap();
    assert_eq!(v["messages"][0][1], "The given resource is not valid: 10.0.0.1/8");
    assert_eq!(v["status_code"], 400);
    assert_eq!(
        out(&t, "curl -s https://example.com/x"),
        ("curl: (6) Could not resolve host: example.com\n".into(), 6)
    );
    let (nope, _) = out(&t, "ripestat nosuch resource=AS1");
    assert!(nope.contains("Unknown data call: nosuch"));
    let (miss, _) = out(&t, "ripestat whois");
    assert!(miss.contains("Missing parameter: resource"));
}

#[test]
fn registries_print_their_formats() {
    let t = task("bgp-v1-L2-s3-i0");
    let (rel, _) = out(&t, "asrel --all");
    assert!(rel.starts_with(registry::ASREL_HEADER));
    assert!(rel.lines().skip(1).all(|l| l.ends_with("|-1") || l.ends_with("|0")));
    assert_eq!(out(&t, "asrel x1").0, "asrel: not an AS number: x1\n");
    let (v, _) = out(&t, "vrps");
    assert!(v.starts_with("ASN,IP Prefix,Max Length,Trust Anchor\nAS"));
    assert_eq!(out(&t, "vrps --prefix 1.2.3.4/8").0, "vrps: invalid prefix: 1.2.3.4/8\n");
    let (p, _) = out(&t, "atlas probes");
    assert!(p.starts_with("prb_id asn_v4 asn_v6 address_v4 address_v6 country region\n1000 "));
    assert_eq!(out(&t, "vrps --bogus").0, "vrps: unknown option -- bogus\nTry 'help'.\n");
}

#[test]
fn long_outputs_are_cut_at_a_line_with_a_paging_note() {
    let long: String = (0..5000).map(|i| format!("line {i}\n")).collect();
    let cut = observe(&long);
    assert!(cut.chars().count() <= OBSERVATION);
    assert!(cut.contains("[truncated: lines 1–"), "{}", &cut[cut.len() - 100..]);
    assert_eq!(observe("short\n"), "short\n");
}

/// BGP's shell registers `jq` (the JSON tools' reader), fed by a pipe or by a file operand
/// through the lab's files (an MRT file reads as a pointer to bgpdump, not JSON).
#[test]
fn jq_reads_ripestat_answers_in_the_bgp_shell() {
    let t = task("bgp-v1-L1-s0-i0");
    let (status, st) = out(&t, "ripestat as-overview resource=AS1 | jq -r .status");
    assert_eq!((status.as_str(), st), ("ok\n", 0), "{status}");
    let (echoed, st) = out(&t, "echo '{\"a\": [1, 2]}' | jq -c .a");
    assert_eq!((echoed.as_str(), st), ("[1,2]\n", 0));
    // The fuzz target's form: a quoted input over several lines, echoed into jq.
    let (doc, st) = out(&t, "echo '{\"a\":\n 1}' | jq -c .a");
    assert_eq!((doc.as_str(), st), ("1\n", 0));
    let (missing, st) = out(&t, "jq . nowhere.json");
    assert_eq!(st, 2, "{missing}");
}
