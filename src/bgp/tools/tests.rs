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
fn bgpdump_t_change_prints_zero_rib_times_as_the_real_one() {
    let t = task("bgp-v1-L1-s0-i0");
    let (files, _) = out(&t, "ls rc00");
    let bview = files.lines().find(|l| l.starts_with("bview.")).unwrap();
    let updates = files.lines().find(|l| l.starts_with("updates.")).unwrap();
    let (dump, _) = out(&t, &format!("bgpdump -m rc00/{bview}"));
    let (change, st) = out(&t, &format!("bgpdump -m -t change rc00/{bview}"));
    assert_eq!(st, 0);
    assert_eq!(change.lines().count(), dump.lines().count());
    for (c, d) in change.lines().zip(dump.lines()) {
        let rest = |l: &str| l.splitn(3, '|').nth(2).unwrap().to_string();
        assert!(c.starts_with("TABLE_DUMP2|0|B|"), "{c}");
        assert_eq!(rest(c), rest(d));
    }
    let same = |args: &str| out(&t, &format!("bgpdump -m {args}rc00/{updates}"));
    assert_eq!(same("-t change "), same(""));
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

/// `atlas traceroute`: RIPE Atlas's result objects, one per probe, keys sorted, hops answered by
/// the routers of the path and the destination's echo reply last.
#[test]
fn traceroutes_print_atlas_results() {
    let t = task("bgp-v1-L2-s3-i0");
    let p = t.world.topology.prefixes.iter().find(|p| p.net.addr().is_ipv4()).unwrap();
    let dst = match p.net {
        ipnet::IpNet::V4(n) => std::net::Ipv4Addr::from(u32::from(n.network()) + 10),
        _ => unreachable!(),
    };
    let (text, st) = out(&t, &format!("atlas traceroute --probes 1000,1001 --target {dst}"));
    assert_eq!(st, 0, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!((lines[0], lines[lines.len() - 1], lines.len()), ("[", "]", 4));
    assert!(lines[1].starts_with("{\"af\":4,\"dst_addr\":") && lines[1].ends_with("},"), "{}", lines[1]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let r = &v[0];
    let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(
        (r["fw"].as_u64(), r["prb_id"].as_u64(), r["size"].as_u64()),
        (Some(5080), Some(1000), Some(48))
    );
    assert_eq!(r["timestamp"].as_u64(), Some(t.world.clock.end()));
    assert_eq!(r["msm_id"], r["group_id"]);
    assert_eq!(r["src_addr"], t.world.probes[0].v4.to_string());
    let hops = r["result"].as_array().unwrap();
    let last = &hops[hops.len() - 1]["result"];
    // Delivered: the destination answers the echo with the probe's 48 bytes and a TTL from 64.
    assert_eq!(last[0]["from"], dst.to_string());
    assert_eq!(last[0]["size"], 48);
    assert_eq!(last[0]["ttl"].as_u64(), Some(64 - hops.len() as u64 + 1));
    for (i, h) in hops.iter().enumerate() {
        assert_eq!(h["hop"].as_u64(), Some(i as u64 + 1));
        for reply in h["result"].as_array().unwrap() {
            let rtt = reply["rtt"].as_f64().unwrap();
            assert_eq!((rtt * 1000.0).round() / 1000.0, rtt, "three decimals");
            assert!(rtt >= 0.4 * (i + 1) as f64);
        }
        if i + 1 < hops.len() {
            assert_eq!(h["result"][0]["size"], 76);
            assert_eq!(h["result"][0]["ttl"].as_u64(), Some(255 - i as u64));
        }
    }
    // The same call gives the same bytes; jq reads it.
    assert_eq!(out(&t, &format!("atlas traceroute --probes 1000,1001 --target {dst}")).0, text);
    let (ids, _) = out(&t, &format!("atlas traceroute --probes 1001 --target {dst} | jq -c '[.[].prb_id]'"));
    assert_eq!(ids, "[1001]\n");
}

#[test]
fn traceroute_errors_name_the_bad_argument() {
    let t = task("bgp-v1-L2-s3-i0");
    let end = t.world.clock.end();
    let cases = [
        ("atlas traceroute --probes 1000,99 --target 198.18.0.1", "atlas: unknown probe 99"),
        ("atlas traceroute --probes x --target 198.18.0.1", "atlas: unknown probe x"),
        (
            "atlas traceroute --probes 1000,1001,1002,1003,1004,1005,1006,1007,1008,1009,1010 --target 198.18.0.1",
            "atlas: at most 10 probes per call",
        ),
        (
            "atlas traceroute --probes 1000 --target 198.18.0.300",
            "atlas: invalid target address: 198.18.0.300",
        ),
        ("atlas traceroute --probes 1000 --target 198.18.0.1 --time soon", "atlas: invalid time: soon"),
        (
            "atlas traceroute --probes 1000 --target 198.18.0.1 --bogus",
            "atlas: unknown option -- bogus\nTry 'help'.",
        ),
    ];
    for (line, want) in cases {
        assert_eq!(out(&t, line), (format!("{want}\n"), 2), "{line}");
    }
    let late = format!("atlas traceroute --probes 1000 --target 198.18.0.1 --time {}", end + 1);
    assert_eq!(out(&t, &late), ("atlas: --time outside the window\n".into(), 2));
    let early = format!("atlas traceroute --probes 1000 --target 198.18.0.1 --time {}", t.world.clock.w0 - 1);
    assert_eq!(out(&t, &early).1, 2);
    let (usage, st) = out(&t, "atlas traceroute --target 198.18.0.1");
    assert!(usage.starts_with("atlas: usage: ") && st == 2, "{usage}");
    if let Some(p) = t.world.probes.iter().find(|p| p.v6.is_none()) {
        let line = format!("atlas traceroute --probes {} --target 2001:db8::1", p.id);
        assert_eq!(out(&t, &line), (format!("atlas: probe {} has no IPv6 address\n", p.id), 2));
    }
    let (help, _) = out(&t, "help");
    assert!(help.contains("atlas traceroute --probes ID,... --target ADDR [--time T]"));
}

/// An address nobody routes: the probe's own router answers, then five silent hops and the
/// probe gives up at hop 255.
#[test]
fn an_unrouted_target_ends_in_silence() {
    let t = task("bgp-v1-L1-s0-i0");
    let (text, st) = out(&t, "atlas traceroute --probes 1000 --target 192.0.2.77");
    assert_eq!(st, 0);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let hops = v[0]["result"].as_array().unwrap();
    let numbers: Vec<u64> = hops.iter().map(|h| h["hop"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 255]);
    assert!(hops[0]["result"][0]["from"].is_string());
    for h in &hops[1..] {
        assert_eq!(h["result"], serde_json::json!([{"x": "*"}, {"x": "*"}, {"x": "*"}]));
    }
    assert_eq!(v[0]["endtime"].as_u64(), Some(t.world.clock.end() + 1 + 4 * 18));
}
