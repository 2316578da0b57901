//! The report's formats: `txt`, `json`, `csv`, `md` and `dot`. All share one wording of
//! the allowed connections ([`conn_text`]).

use serde_json::{Value, json};

use super::matrix::Connection;
use crate::k8s::cluster::Protocol;
use crate::k8s::eval::PortSet;
use crate::k8s::yaml::to_json_pretty;

/// An output format of `netpress k8s connectivity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Txt,
    Json,
    Csv,
    Md,
    Dot,
}

impl Format {
    /// Parses `-o`'s value (`text` is kept as another name for `txt`).
    pub fn parse(v: &str) -> Result<Format, String> {
        match v {
            "txt" | "text" => Ok(Format::Txt),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "md" => Ok(Format::Md),
            "dot" => Ok(Format::Dot),
            other => Err(format!("unknown output format {other:?} (txt, json, csv, md, dot)")),
        }
    }

    pub fn render(self, conns: &[Connection]) -> String {
        match self {
            Format::Txt => render_text(conns),
            Format::Json => render_json(conns),
            Format::Csv => render_csv(conns),
            Format::Md => render_md(conns),
            Format::Dot => render_dot(conns),
        }
    }
}

/// `All Connections`, or `TCP 80,8080-8090,UDP 53`: per protocol in the order TCP, UDP,
/// SCTP, its name and its ports and ranges, all comma-separated.
pub fn conn_text(p: &PortSet) -> String {
    if p.is_all() {
        return "All Connections".into();
    }
    Protocol::ALL
        .iter()
        .filter(|proto| !p.ranges(**proto).is_empty())
        .map(|proto| {
            let ranges: Vec<String> = p
                .ranges(*proto)
                .iter()
                .map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
                .collect();
            format!("{} {}", proto.as_str(), ranges.join(","))
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn render_text(conns: &[Connection]) -> String {
    conns.iter().map(|c| format!("{} => {} : {}\n", c.src, c.dst, conn_text(&c.ports))).collect()
}

fn render_json(conns: &[Connection]) -> String {
    let items: Vec<Value> = conns
        .iter()
        .map(|c| {
            let ports: serde_json::Map<String, Value> = Protocol::ALL
                .iter()
                .filter(|p| !c.ports.ranges(**p).is_empty())
                .map(|p| (p.as_str().to_string(), json!(c.ports.ranges(*p))))
                .collect();
            json!({"src": c.src, "dst": c.dst, "conn": conn_text(&c.ports), "ports": ports})
        })
        .collect();
    format!("{}\n", to_json_pretty(&Value::Array(items)))
}

fn render_csv(conns: &[Connection]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let rows = conns.iter().map(|c| [c.src.clone(), c.dst.clone(), conn_text(&c.ports)]);
    for row in std::iter::once(["src".into(), "dst".into(), "conn".into()]).chain(rows) {
        // Writing to a Vec cannot fail.
        let _ = w.write_record(&row);
    }
    w.into_inner().map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
}

/// A Markdown table; `|` inside a cell is escaped.
fn render_md(conns: &[Connection]) -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut s = String::from("| src | dst | conn |\n|---|---|---|\n");
    for c in conns {
        s.push_str(&format!("| {} | {} | {} |\n", cell(&c.src), cell(&c.dst), cell(&conn_text(&c.ports))));
    }
    s
}

/// A Graphviz digraph: one node per workload or range, one labelled edge per connection.
fn render_dot(conns: &[Connection]) -> String {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut nodes: Vec<&str> = conns.iter().flat_map(|c| [c.src.as_str(), c.dst.as_str()]).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let mut s = String::from("digraph connectivity {\n");
    for n in nodes {
        s.push_str(&format!("  {};\n", quote(n)));
    }
    for c in conns {
        s.push_str(&format!(
            "  {} -> {} [label={}];\n",
            quote(&c.src),
            quote(&c.dst),
            quote(&conn_text(&c.ports))
        ));
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Connection> {
        let mut p = PortSet::default();
        p.add(Protocol::Tcp, 1, 79);
        p.add(Protocol::Tcp, 81, 65535);
        p.add(Protocol::Udp, 53, 53);
        vec![Connection { src: "default/a[Pod]".into(), dst: "default/b[Pod]".into(), ports: p }]
    }

    #[test]
    fn conn_text_one_format() {
        assert_eq!(conn_text(&sample()[0].ports), "TCP 1-79,81-65535,UDP 53");
        assert_eq!(conn_text(&PortSet::all()), "All Connections");
    }

    #[test]
    fn every_format() {
        let c = sample();
        assert_eq!(Format::Txt.render(&c), "default/a[Pod] => default/b[Pod] : TCP 1-79,81-65535,UDP 53\n");
        assert_eq!(
            Format::Csv.render(&c),
            "src,dst,conn\ndefault/a[Pod],default/b[Pod],\"TCP 1-79,81-65535,UDP 53\"\n"
        );
        assert_eq!(
            Format::Md.render(&c),
            "| src | dst | conn |\n|---|---|---|\n| default/a[Pod] | default/b[Pod] | TCP 1-79,81-65535,UDP 53 |\n"
        );
        assert_eq!(
            Format::Dot.render(&c),
            "digraph connectivity {\n  \"default/a[Pod]\";\n  \"default/b[Pod]\";\n  \
             \"default/a[Pod]\" -> \"default/b[Pod]\" [label=\"TCP 1-79,81-65535,UDP 53\"];\n}\n"
        );
        let json: Value = serde_json::from_str(&Format::Json.render(&c)).unwrap();
        assert_eq!(json[0]["conn"], "TCP 1-79,81-65535,UDP 53");
        assert_eq!(json[0]["ports"]["UDP"], json!([[53, 53]]));
        assert_eq!(Format::parse("text"), Ok(Format::Txt));
        assert!(Format::parse("yaml").unwrap_err().contains("(txt, json, csv, md, dot)"));
    }
}
