//! A topology picture ([`crate::view::Picture`]) as SVG: routers, switches, hosts, services,
//! edges with arrows for call graphs. Tone shows as colour *and* as a symbol and dash style,
//! and the edges are also listed as text for screen readers.

use yew::prelude::*;

use super::{tone_class, tone_words};
use crate::view::{PicEdge, PicNode, Picture, Tone};

#[derive(Properties, PartialEq)]
pub struct PictureProps {
    pub picture: Picture,
}

/// Node half-size by role, in the picture's 0..1000 units.
fn radius(role: &str) -> f64 {
    match role {
        "router" => 30.0,
        "switch" | "subnet" => 26.0,
        "host" => 20.0,
        _ => 24.0,
    }
}

fn shape(node: &PicNode) -> Html {
    let (x, y, r) = (node.x, node.y, radius(&node.role));
    let class = classes!("node", format!("role-{}", node.role), tone_class(node.tone));
    match node.role.as_str() {
        "router" => html! { <circle {class} cx={x.to_string()} cy={y.to_string()} r={r.to_string()} /> },
        "switch" | "subnet" | "block" => html! {
            <rect {class} x={(x - r * 1.3).to_string()} y={(y - r * 0.7).to_string()}
                  width={(r * 2.6).to_string()} height={(r * 1.4).to_string()} rx="4" />
        },
        "host" | "pod" => html! {
            <rect {class} x={(x - r).to_string()} y={(y - r).to_string()}
                  width={(r * 2.0).to_string()} height={(r * 2.0).to_string()} rx="8" />
        },
        _ => html! {
            <ellipse {class} cx={x.to_string()} cy={y.to_string()} rx={(r * 1.6).to_string()} ry={r.to_string()} />
        },
    }
}

fn edge(e: &PicEdge, nodes: &[PicNode]) -> Html {
    let find = |id: &str| nodes.iter().find(|n| n.id == id);
    let (Some(a), Some(b)) = (find(&e.from), find(&e.to)) else { return html! {} };
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    // Stop lines at the node outlines so arrow heads stay visible.
    let (ra, rb) = (radius(&a.role), radius(&b.role) + if e.directed { 6.0 } else { 0.0 });
    let (x1, y1) = (a.x + dx / len * ra, a.y + dy / len * ra);
    let (x2, y2) = (b.x - dx / len * rb, b.y - dy / len * rb);
    let dashed = matches!(e.tone, Tone::Bad | Tone::Broken);
    let class = classes!("edge", tone_class(e.tone), dashed.then_some("dashed"));
    let marker = e.directed.then(|| format!("url(#arrow-{})", tone_class(e.tone)));
    let label = match (e.label.as_str(), e.tone.symbol()) {
        ("", "") => String::new(),
        (l, "") => l.to_string(),
        (l, s) => format!("{s} {l}").trim().to_string(),
    };
    html! {
        <g>
            <line {class} x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()}
                  marker-end={marker} />
            if !label.is_empty() {
                <text class={classes!("edge-label", tone_class(e.tone))} x={((x1 + x2) / 2.0).to_string()}
                      y={((y1 + y2) / 2.0 - 6.0).to_string()} text-anchor="middle">{ label }</text>
            }
        </g>
    }
}

fn node(n: &PicNode) -> Html {
    let label = match n.tone.symbol() {
        "" => n.label.clone(),
        s => format!("{s} {}", n.label),
    };
    html! {
        <g>
            { shape(n) }
            <text class="node-label" x={n.x.to_string()} y={(n.y + radius(&n.role) + 24.0).to_string()}
                  text-anchor="middle">{ label }</text>
        </g>
    }
}

/// Arrow heads, one per tone so they take the edge's colour.
fn markers() -> Html {
    let tones = [Tone::Good, Tone::Bad, Tone::Broken, Tone::Fixed, Tone::None, Tone::Neutral];
    html! {
        <defs>
        { for tones.iter().map(|t| html! {
            <marker id={format!("arrow-{}", tone_class(*t))} viewBox="0 0 10 10" refX="9" refY="5"
                    markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path class={classes!("arrow", tone_class(*t))} d="M 0 0 L 10 5 L 0 10 z" />
            </marker>
        }) }
        </defs>
    }
}

/// The bounding box of the nodes with room for labels.
fn view_box(p: &Picture) -> String {
    let fold =
        |f: fn(f64, f64) -> f64, init: f64, g: fn(&PicNode) -> f64| p.nodes.iter().map(g).fold(init, f);
    if p.nodes.is_empty() {
        return "0 0 1000 400".into();
    }
    let (x0, x1) = (fold(f64::min, f64::MAX, |n| n.x) - 120.0, fold(f64::max, f64::MIN, |n| n.x) + 120.0);
    let (y0, y1) = (fold(f64::min, f64::MAX, |n| n.y) - 60.0, fold(f64::max, f64::MIN, |n| n.y) + 70.0);
    format!("{x0} {y0} {} {}", x1 - x0, y1 - y0)
}

fn edge_text(e: &PicEdge) -> String {
    let arrow = if e.directed { "→" } else { "—" };
    let mut s = format!("{} {arrow} {}", e.from, e.to);
    if !e.label.is_empty() {
        s.push_str(&format!(" ({})", e.label));
    }
    if !tone_words(e.tone).is_empty() {
        s.push_str(&format!(": {} {}", e.tone.symbol(), tone_words(e.tone)));
    }
    s
}

#[function_component(PictureView)]
pub fn picture_view(props: &PictureProps) -> Html {
    let p = &props.picture;
    html! {
        <figure class="picture">
            <svg viewBox={view_box(p)} role="img" aria-label={p.caption.clone()} preserveAspectRatio="xMidYMid meet">
                <title>{ &p.caption }</title>
                { markers() }
                { for p.edges.iter().map(|e| edge(e, &p.nodes)) }
                { for p.nodes.iter().map(node) }
            </svg>
            <figcaption>{ &p.caption }</figcaption>
            if !p.edges.is_empty() {
                <details class="edges-text">
                    <summary>{ format!("{} links as text", p.edges.len()) }</summary>
                    <ul>{ for p.edges.iter().map(|e| html! { <li>{ edge_text(e) }</li> }) }</ul>
                </details>
            }
        </figure>
    }
}
