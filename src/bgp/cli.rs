//! `netpress bgp mrt`: a task's collector files as real MRT, for the tools people already use;
//! `netpress bgp topo`: the AS neighbourhood the task's picture draws, as text (`netpress bgp
//! exec`, the shared command, runs tool commands on a task).

use std::io::{Read, Write};

use serde_json::json;

use super::picture::Neighbourhood;
use super::picture::exchanges::Exchanges;
use super::task::Task;
use super::tools::{self, bgpdump, mrt};
use super::topology::Tier;
use crate::app::Tool;
use crate::tool_args;

pub const MRT: Tool = Tool {
    name: "mrt",
    about: "write a task's collector files as real MRT (RFC 6396) plus as-rel.txt and vrps.csv (--task ID -o DIR)",
    usage: "usage: netpress bgp mrt --task ID -o DIR [--collector rcNN] [--with-truth]

Writes DIR/rcNN/bview.YYYYMMDD.HHMM (TABLE_DUMP_V2) and DIR/rcNN/updates.YYYYMMDD.HHMM
(BGP4MP_MESSAGE_AS4), uncompressed, for every collector (or one), plus DIR/as-rel.txt,
DIR/vrps.csv and, with --with-truth, DIR/truth.json (the answer).
",
    run: write_mrt,
};

struct Args {
    task: Option<String>,
    out: Option<String>,
    collector: Option<String>,
    truth: bool,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args { task: None, out: None, collector: None, truth: false };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match x.as_str() {
            "--task" => a.task = Some(value("--task")?),
            "-o" | "--output" => a.out = Some(value("-o")?),
            "--collector" => a.collector = Some(value("--collector")?),
            "--with-truth" => a.truth = true,
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    Ok(a)
}

fn task_of(a: &Args) -> Result<Task, String> {
    let id = a.task.as_deref().ok_or("--task ID is required")?;
    let id = id.parse().map_err(|e: crate::error::Error| e.to_string())?;
    Task::generate(&id).map_err(|e| e.to_string())
}

fn write_mrt(args: &[String], _stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let result = (|| -> Result<usize, String> {
        let a = parse(args)?;
        let task = task_of(&a)?;
        let dir = std::path::PathBuf::from(a.out.as_deref().ok_or("-o DIR is required")?);
        let mut files = 0;
        let io = |e: std::io::Error| e.to_string();
        for k in 0..task.world.collectors.count {
            let name = super::collectors::name(k);
            if a.collector.as_ref().is_some_and(|c| *c != name) {
                continue;
            }
            std::fs::create_dir_all(dir.join(&name)).map_err(io)?;
            for f in bgpdump::file_names(&task) {
                let path = format!("{name}/{f}");
                let Some(file) = bgpdump::lookup(&task, &path) else { continue };
                std::fs::write(dir.join(&path), mrt::bytes(&task, file)).map_err(io)?;
                files += 1;
            }
        }
        let text = |line: &str| tools::run(&task, 0, line).output;
        std::fs::write(dir.join("as-rel.txt"), text("asrel --all")).map_err(io)?;
        std::fs::write(dir.join("vrps.csv"), text("vrps")).map_err(io)?;
        if a.truth {
            let truth = super::score::truth(&task);
            std::fs::write(dir.join("truth.json"), format!("{truth:#}\n")).map_err(io)?;
        }
        Ok(files)
    })();
    match result {
        Ok(n) => {
            let _ = writeln!(out, "wrote {n} MRT files");
            0
        }
        Err(e) => {
            let _ = writeln!(err, "netpress bgp mrt: {e}");
            2
        }
    }
}

pub const TOPO: Tool = Tool {
    name: "topo",
    about: "print the AS neighbourhood of a task's incident (the picture's ASes and links) as CAIDA serial-1, JSON or DOT (--task ID)",
    usage: "usage: netpress bgp topo --task ID [--format caida|json|dot]

Prints the ASes the task's picture shows (the victim prefix's origin, the incident's ASes,
the affected vantage points' paths and further vantage points, at most 40) and the links
among them, with their true relationships (the published as-rel file of L3 and L4 has
errors; these do not). caida (the default): `provider|customer|-1` and `peer|peer|0` rows
under `#` comments; json: the ASes (number, handle, organisation, tier, region, feed if a
vantage point) and the links; dot: a Graphviz digraph, arrows from provider to customer,
peerings dashed without arrows.
",
    run: write_topo,
};

/// `netpress bgp topo`'s output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Caida,
    Json,
    Dot,
}

fn parse_topo(args: &[String]) -> Result<(String, Format), String> {
    use lexopt::Arg::Long;
    let (mut task, mut format) = (None, Format::Caida);
    let mut p = tool_args::parser(args);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        match arg {
            Long("task") => task = Some(tool_args::value(&mut p, &flag)?),
            Long("format") => {
                format = match tool_args::value(&mut p, &flag)?.as_str() {
                    "caida" => Format::Caida,
                    "json" => Format::Json,
                    "dot" => Format::Dot,
                    other => return Err(format!("unknown format {other:?} (caida, json or dot)")),
                }
            }
            _ => return Err(format!("unexpected argument {flag:?}")),
        }
    }
    Ok((task.ok_or("--task ID is required")?, format))
}

fn write_topo(args: &[String], _stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let result = parse_topo(args).and_then(|(id, format)| {
        let task = task_of(&Args { task: Some(id), out: None, collector: None, truth: false })?;
        Ok(topo_text(&task, format))
    });
    match result {
        Ok(text) => match out.write_all(text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(err, "netpress bgp topo: {e}");
                1
            }
        },
        Err(e) => {
            let _ = writeln!(err, "netpress bgp topo: {e}\n{}", TOPO.usage);
            2
        }
    }
}

/// One link among the shown ASes, as ASNs: `(provider, customer)` or `(low, high)` for a
/// peering, with the exchange point that mediates a route-server session.
struct Row {
    a: u32,
    b: u32,
    peer: bool,
    ixp: Option<usize>,
}

fn rows(task: &Task, n: &Neighbourhood) -> Vec<Row> {
    let t = &task.world.topology;
    let links = n.links(t);
    let exchanges = Exchanges::of(t, &links);
    let mut rows: Vec<Row> = links
        .into_iter()
        .map(|(a, b, peer)| {
            let ixp = exchanges.via(a, b);
            let (a, b) = (t.ases[a].asn, t.ases[b].asn);
            if peer { Row { a: a.min(b), b: a.max(b), peer, ixp } } else { Row { a, b, peer, ixp } }
        })
        .collect();
    rows.sort_by_key(|r| (r.a, r.b));
    rows
}

fn tier_name(t: Tier) -> &'static str {
    match t {
        Tier::Tier1 => "tier1",
        Tier::Transit => "transit",
        Tier::Content => "content",
        Tier::Stub => "stub",
    }
}

/// The neighbourhood of `task` in `format`.
fn topo_text(task: &Task, format: Format) -> String {
    let n = Neighbourhood::of(task, &[]);
    let t = &task.world.topology;
    let rows = rows(task, &n);
    let about = format!(
        "AS neighbourhood of {} around {}: {} of {} ASes, true relationships",
        task.id,
        task.incident.prefix,
        n.ases.len(),
        t.len()
    );
    match format {
        Format::Caida => {
            let mut s = format!("# {about}\n# <provider-as>|<customer-as>|-1 and <peer-as>|<peer-as>|0\n");
            for r in &rows {
                s.push_str(&format!("{}|{}|{}\n", r.a, r.b, if r.peer { 0 } else { -1 }));
            }
            s
        }
        Format::Json => {
            let ases: Vec<_> = n
                .ases
                .iter()
                .map(|&a| {
                    let info = &t.ases[a];
                    let feed =
                        task.world.collectors.vp_of(a).map(|k| task.world.collectors.vps[k].feed.name());
                    json!({"asn": info.asn, "handle": info.handle, "org": t.orgs[info.org].name,
                           "tier": tier_name(info.tier), "region": info.region.name(), "vantage_point": feed})
                })
                .collect();
            let links: Vec<_> = rows
                .iter()
                .map(|r| {
                    let mut l = json!({"a": r.a, "b": r.b, "rel": if r.peer { "p2p" } else { "p2c" }});
                    if let Some(x) = r.ixp {
                        l["route_server"] = json!(t.ixps[x].rs_asn);
                    }
                    l
                })
                .collect();
            let doc = json!({"about": about, "task": task.id.to_string(), "prefix": task.incident.prefix.to_string(),
                             "ases_total": t.len(), "ases": ases, "links": links});
            format!("{doc:#}\n")
        }
        Format::Dot => {
            let mut s = format!("// {about}\ndigraph \"{}\" {{\n  rankdir=TB;\n", task.id);
            for &a in &n.ases {
                let info = &t.ases[a];
                s.push_str(&format!("  \"AS{0}\" [label=\"AS{0}\\n{1}\"];\n", info.asn, info.handle));
            }
            for r in &rows {
                let style = if r.peer { " [dir=none, style=dashed]" } else { "" };
                s.push_str(&format!("  \"AS{}\" -> \"AS{}\"{style};\n", r.a, r.b));
            }
            s.push_str("}\n");
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = write_topo(&args, &mut &b""[..], &mut out, &mut err);
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    }

    #[test]
    fn topo_prints_the_pictures_ases_in_three_formats() {
        let id = "bgp-v1-L2-s0-i0-fEH";
        let task = Task::generate(&id.parse().unwrap()).unwrap();
        let n = Neighbourhood::of(&task, &[]);
        let (code, caida, _) = run(&["--task", id]);
        assert_eq!(code, 0);
        let lines: Vec<&str> = caida.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines.len(), n.links(&task.world.topology).len());
        let t = &task.world.topology;
        for l in &lines {
            let f: Vec<&str> = l.split('|').collect();
            let (a, b) =
                (t.index_of(f[0].parse().unwrap()).unwrap(), t.index_of(f[1].parse().unwrap()).unwrap());
            let want = if f[2] == "0" {
                super::super::topology::Rel::Peer
            } else {
                super::super::topology::Rel::Customer
            };
            assert_eq!(t.relation(a, b), Some(want), "{l}: the true relationship");
        }
        let (_, json, _) = run(&["--task", id, "--format", "json"]);
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["ases"].as_array().unwrap().len(), n.ases.len());
        assert_eq!(doc["links"].as_array().unwrap().len(), lines.len());
        let (_, dot, _) = run(&["--task", id, "--format=dot"]);
        assert!(dot.contains("digraph") && dot.trim_end().ends_with('}'));
        assert_eq!(dot.matches(" -> ").count(), lines.len());
        assert_eq!(run(&["--task", id]).1, caida, "the same id prints the same bytes");
    }

    #[test]
    fn topo_refuses_bad_arguments_with_its_usage() {
        for bad in [
            &[][..],
            &["--task"],
            &["--task", "bgp-v1-L9-s0-i0"],
            &["--task", "bgp-v1-L1-s0-i0", "--format", "svg"],
            &["-x"],
        ] {
            let (code, out, err) = run(bad);
            assert_eq!((code, out.as_str()), (2, ""), "{bad:?}");
            assert!(
                err.starts_with("netpress bgp topo: ") && err.contains("usage: netpress bgp topo"),
                "{bad:?}: {err}"
            );
        }
    }
}
