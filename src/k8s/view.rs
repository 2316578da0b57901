//! What the UI draws for K8s: the service call graph and the state panels.

use super::cluster::WORKLOADS;
use super::generate::expected;
use super::intent::CALLERS;
use super::probe::{Matrix, ProbeKind, Verdict, mismatches, probes};
use crate::view::{Cell, Grid, Panel, PicEdge, PicNode, Picture, Table, Tone};

/// Node positions in the 0..1000 box: callers on the left, callees to the right.
const LAYOUT: [(&str, f64, f64); 12] = [
    ("loadgenerator", 80.0, 500.0),
    ("frontend", 260.0, 500.0),
    ("checkoutservice", 480.0, 250.0),
    ("recommendationservice", 480.0, 700.0),
    ("adservice", 480.0, 900.0),
    ("cartservice", 720.0, 100.0),
    ("currencyservice", 720.0, 260.0),
    ("emailservice", 720.0, 420.0),
    ("paymentservice", 720.0, 560.0),
    ("shippingservice", 720.0, 700.0),
    ("productcatalogservice", 720.0, 860.0),
    ("redis-cart", 920.0, 100.0),
];

/// The intended calls with their Service ports, loadgenerator → frontend first.
fn edges() -> Vec<(&'static str, &'static str)> {
    let mut v = vec![("loadgenerator", "frontend")];
    for (callee, callers) in CALLERS {
        v.extend(callers.iter().map(|c| (*c, callee)));
    }
    v
}

fn name_verdict(m: &Matrix, src: &str, dst: &str) -> Option<Verdict> {
    probes()
        .iter()
        .zip(m)
        .find(|(p, _)| p.kind == ProbeKind::Name && p.src == src && p.dst == dst)
        .map(|(_, v)| *v)
}

/// The call graph; with a matrix, edges are toned by the name probe's verdict and probes
/// that should be denied but are allowed are drawn as extra edges.
pub fn call_graph(m: Option<&Matrix>, caption: &str) -> Picture {
    let nodes = LAYOUT
        .iter()
        .map(|(n, x, y)| PicNode {
            id: n.to_string(),
            label: n.to_string(),
            role: "service".into(),
            x: *x,
            y: *y,
            tone: Tone::Neutral,
        })
        .collect();
    let mut out = Vec::new();
    for (src, dst) in edges() {
        let port = WORKLOADS.iter().find(|w| w.name == dst).and_then(|w| w.service).map_or(0, |s| s.1);
        let tone = match m.and_then(|m| name_verdict(m, src, dst)) {
            None => Tone::Neutral,
            Some(Verdict::True) => Tone::Good,
            Some(_) => Tone::Bad,
        };
        out.push(PicEdge {
            from: src.into(),
            to: dst.into(),
            label: format!(":{port}"),
            tone,
            directed: true,
        });
    }
    if let Some(m) = m {
        for (p, v) in probes().iter().zip(m) {
            let intended = p.dst == "frontend" || edges().contains(&(p.src, p.dst));
            if p.kind == ProbeKind::Name && *v != Verdict::False && !intended {
                out.push(PicEdge {
                    from: p.src.into(),
                    to: p.dst.into(),
                    label: "allowed, should be denied".into(),
                    tone: Tone::Broken,
                    directed: true,
                });
            }
        }
    }
    Picture { caption: caption.into(), nodes, edges: out }
}

fn tone(i: usize, initial: &Matrix, now: &Matrix) -> Tone {
    let exp = expected();
    match (initial[i] == exp[i], now[i] == exp[i]) {
        (true, true) => Tone::Good,
        (false, true) => Tone::Fixed,
        (true, false) => Tone::Broken,
        (false, false) => Tone::Bad,
    }
}

/// The mismatch table and the name-probe grid.
pub fn panels(initial: &Matrix, now: &Matrix) -> Vec<Panel> {
    let exp = expected();
    let wrong = mismatches(exp, now);
    let rows: Vec<Vec<String>> = wrong
        .iter()
        .map(|&i| {
            let p = &probes()[i];
            vec![p.src.to_string(), p.target(), exp[i].as_str().into(), now[i].as_str().into()]
        })
        .collect();
    let tones = wrong.iter().map(|&i| tone(i, initial, now)).collect();
    let table =
        Table { headers: ["Source", "Target", "Expected", "Actual"].map(String::from).to_vec(), rows, tones };
    let summary = if wrong.is_empty() {
        "No mismatches found.".to_string()
    } else {
        format!("{} mismatches", wrong.len())
    };
    let sources: Vec<&str> = WORKLOADS.iter().map(|w| w.name).collect();
    let targets: Vec<&str> = WORKLOADS.iter().filter(|w| w.service.is_some()).map(|w| w.name).collect();
    let cells = sources
        .iter()
        .map(|s| {
            targets
                .iter()
                .map(|t| {
                    let found =
                        probes().iter().position(|p| p.kind == ProbeKind::Name && p.src == *s && p.dst == *t);
                    match found {
                        None => Cell { tone: Tone::None, title: format!("{s} → {t}: not probed") },
                        Some(i) => Cell {
                            tone: tone(i, initial, now),
                            title: format!(
                                "{s} → {}: {} (expected {})",
                                probes()[i].target(),
                                now[i].as_str(),
                                exp[i].as_str()
                            ),
                        },
                    }
                })
                .collect()
        })
        .collect();
    let grid = Grid {
        rows: sources.iter().map(|s| s.to_string()).collect(),
        cols: targets.iter().map(|t| t.to_string()).collect(),
        cells,
    };
    vec![
        Panel::Table { title: "Connectivity mismatches".into(), summary: summary.clone(), table },
        Panel::Grid { title: "Name probes (source → Service)".into(), summary, grid },
    ]
}
