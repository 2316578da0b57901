//! A topology picture ([`crate::view::Picture`]) as SVG: routers, switches, hosts, services,
//! edges with arrows for call graphs. Tone shows as colour *and* as a symbol and dash style,
//! and the edges are also listed as text for screen readers. Where nodes and labels go is
//! the library's [`Picture::layout`], which keeps labels from covering each other.

use yew::prelude::*;

use super::{tone_class, tone_words};
use crate::view::{Layout, PicEdge, PicNode, Picture, PlacedLabel, Tone, radius, shape_half};

#[derive(Properties, PartialEq)]
pub struct PictureProps {
    pub picture: Picture,
}

/// Screen pixels per picture unit at least, so labels stay readable (a 22-unit label is about
/// 12 px); a wider picture scrolls sideways inside its figure.
const MIN_PX_PER_UNIT: f64 = 0.55;

fn shape(node: &PicNode, (x, y): (f64, f64)) -> Html {
    let (hw, hh) = shape_half(&node.role);
    let class = classes!("node", format!("role-{}", node.role), tone_class(node.tone));
    match node.role.as_str() {
        "router" => html! { <circle {class} cx={x.to_string()} cy={y.to_string()} r={hw.to_string()} /> },
        "switch" | "subnet" | "block" | "host" | "pod" | "ixp" => {
            // Sharp corners tell an exchange point's square from a host's rounded one.
            let rx = match node.role.as_str() {
                "host" | "pod" => "8",
                "ixp" => "0",
                _ => "4",
            };
            html! {
                <rect {class} x={(x - hw).to_string()} y={(y - hh).to_string()}
                      width={(hw * 2.0).to_string()} height={(hh * 2.0).to_string()} {rx} />
            }
        }
        _ => html! {
            <ellipse {class} cx={x.to_string()} cy={y.to_string()} rx={hw.to_string()} ry={hh.to_string()} />
        },
    }
}

/// A label's lines as one `<text>`, each line a `<tspan>` at its baseline.
fn label(l: &PlacedLabel, class: Classes) -> Html {
    let x = l.x.to_string();
    html! {
        <text {class} x={x.clone()} y={l.top.to_string()} font-size={l.size.to_string()} text-anchor="middle">
            { for l.lines.iter().zip(l.baselines()).map(|(line, y)| html! {
                <tspan x={x.clone()} y={y.to_string()}>{ line }</tspan>
            }) }
        </text>
    }
}

fn edge(e: &PicEdge, p: &Picture, layout: &Layout) -> Html {
    let find = |id: &str| p.nodes.iter().position(|n| n.id == id);
    let (Some(a), Some(b)) = (find(&e.from), find(&e.to)) else { return html! {} };
    let ((ax, ay), (bx, by)) = (layout.centres[a], layout.centres[b]);
    let (dx, dy) = (bx - ax, by - ay);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    // Stop lines at the node outlines so arrow heads stay visible.
    let ra = radius(&p.nodes[a].role);
    let rb = radius(&p.nodes[b].role) + if e.directed { 6.0 } else { 0.0 };
    let (x1, y1) = (ax + dx / len * ra, ay + dy / len * ra);
    let (x2, y2) = (bx - dx / len * rb, by - dy / len * rb);
    let dashed = matches!(e.tone, Tone::Bad | Tone::Broken);
    let class = classes!("edge", tone_class(e.tone), dashed.then_some("dashed"));
    let marker = e.directed.then(|| format!("url(#arrow-{})", tone_class(e.tone)));
    html! {
        <line {class} x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()}
              marker-end={marker} />
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
    let layout = use_memo(p.clone(), |p| p.layout());
    let b = layout.bounds;
    let view_box = format!("{} {} {} {}", b.x0, b.y0, b.width(), b.height());
    let style = format!("min-width: {:.0}px", b.width() * MIN_PX_PER_UNIT);
    html! {
        <figure class="picture">
            <div class="picture-scroll">
                <svg viewBox={view_box} {style} role="img" aria-label={p.caption.clone()} preserveAspectRatio="xMidYMid meet">
                    <title>{ &p.caption }</title>
                    { markers() }
                    // Lines, then shapes, then every label on top: a label is never under a line.
                    { for p.edges.iter().map(|e| edge(e, p, &layout)) }
                    { for p.nodes.iter().zip(&layout.centres).map(|(n, c)| shape(n, *c)) }
                    { for p.edges.iter().zip(&layout.edge_labels).filter_map(|(e, l)| Some(label(l.as_ref()?, classes!("edge-label", tone_class(e.tone))))) }
                    { for layout.node_labels.iter().map(|l| label(l, classes!("node-label"))) }
                </svg>
            </div>
            <figcaption>{ &p.caption }</figcaption>
            if !p.edges.is_empty() {
                <details class="edges-text">
                    <summary>{ crate::view::count(p.edges.len(), "link", "links") + " as text" }</summary>
                    <ul>{ for p.edges.iter().map(|e| html! { <li>{ edge_text(e) }</li> }) }</ul>
                </details>
            }
        </figure>
    }
}
