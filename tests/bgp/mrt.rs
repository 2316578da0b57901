//! Our MRT files read back by an independent parser, bgpkit-parser: every record parses, and the
//! routes and updates it finds, printed as `bgpdump -m` lines, equal the text our `bgpdump` tool
//! prints for the same file (RIB entries with their originated times, `RibTime::Originated`,
//! since that is the time bgpkit-parser gives a RIB entry).

use bgpkit_parser::BgpkitParser;
use bgpkit_parser::models::ElemType;
use netpress::QueryId;
use netpress::bgp::task::Task;
use netpress::bgp::tools::bgpdump::{File, RibTime, dump, lookup};
use netpress::bgp::tools::{mrt, time};

/// The `bgpdump -m` lines bgpkit-parser's reading of `bytes` amounts to.
fn read_back(bytes: &[u8]) -> String {
    let mut out = String::new();
    for e in BgpkitParser::from_reader(bytes).into_elem_iter() {
        let ts = e.timestamp as u64;
        let kind = if e.timestamp.fract() == 0.0 { "" } else { "fractional time!" };
        match e.elem_type {
            ElemType::WITHDRAW => out
                .push_str(&format!("BGP4MP|{ts}{kind}|W|{}|{}|{}\n", e.peer_ip, e.peer_asn, e.prefix.prefix)),
            ElemType::ANNOUNCE => {
                let comm: Vec<String> = e.communities.iter().flatten().map(|c| c.to_string()).collect();
                let path = e.as_path.as_ref().map(|p| p.to_string()).unwrap_or_default();
                let nh = e.next_hop.map(|n| n.to_string()).unwrap_or_default();
                out.push_str(&format!(
                    "|{ts}{kind}|X|{}|{}|{}|{path}|IGP|{nh}|0|0|{}|NAG||\n",
                    e.peer_ip,
                    e.peer_asn,
                    e.prefix.prefix,
                    comm.join(" ")
                ));
            }
        }
    }
    out
}

/// Our text with the record type and entry kind blanked, as [`read_back`] cannot tell them.
fn normalised(text: &str) -> String {
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.splitn(4, '|').collect();
            match f.as_slice() {
                [_, t, "W", rest] => format!("BGP4MP|{t}|W|{rest}\n"),
                [_, t, _, rest] => format!("|{t}|X|{rest}\n"),
                _ => format!("{l}\n"),
            }
        })
        .collect()
}

fn check(task: &Task, file: File, name: &str) -> usize {
    let bytes = mrt::bytes(task, file);
    let ours = normalised(&dump(task, file, RibTime::Originated));
    let theirs = read_back(&bytes);
    assert_eq!(theirs, ours, "{} {name}", task.id);
    ours.lines().count()
}

#[test]
fn bgpkit_parser_reads_our_files_as_bgpdump_prints_them() {
    let mut lines = 0;
    let mut files = 0;
    for id in ["bgp-v1-L1-s0-i0", "bgp-v1-L2-s1-i0", "bgp-v1-L2-s5-i0-c2", "bgp-v1-L3-s2-i0-n200"] {
        let task = Task::generate(&id.parse::<QueryId>().unwrap()).unwrap();
        let c = task.world.clock;
        for k in 0..task.world.collectors.count {
            let dir = format!("rc{k:02}");
            let mut names =
                vec![format!("bview.{}", time::stamp(c.w0)), format!("bview.{}", time::stamp(c.end()))];
            names.extend((c.w0..c.end()).step_by(900).map(|t| format!("updates.{}", time::stamp(t))));
            for name in names {
                let path = format!("{dir}/{name}");
                let file = lookup(&task, &path).unwrap_or_else(|| panic!("{id}: {path} exists"));
                lines += check(&task, file, &path);
                files += 1;
            }
        }
    }
    assert!(lines > 1000, "a meaningful sample: {lines} lines in {files} files");
    println!("bgp-mrt: {files} files, {lines} routes and updates read back equal by bgpkit-parser");
}
