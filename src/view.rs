//! Plain data the surfaces draw: state panels (grids, tables, lines) and topology pictures.
//!
//! Applications fill these in; the web app renders them as HTML and SVG and the CLI as text,
//! without knowing which application produced them. Every cell carries a [`Tone`] *and* a
//! symbol, so meaning never rests on colour alone.

use serde::{Deserialize, Serialize};

/// How a cell, row or line should read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// Working as intended.
    Good,
    /// Failing.
    Bad,
    /// Was working and is now broken (a safety violation).
    Broken,
    /// Was failing and now works.
    Fixed,
    /// Not applicable (the diagonal of a matrix).
    None,
    /// Informational.
    Neutral,
}

impl Tone {
    /// The symbol shown with the colour.
    pub fn symbol(self) -> &'static str {
        match self {
            Tone::Good => "✓",
            Tone::Bad => "✗",
            Tone::Broken => "!",
            Tone::Fixed => "+",
            Tone::None => "·",
            Tone::Neutral => "",
        }
    }
}

/// One grid cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub tone: Tone,
    /// Tooltip / accessible text, e.g. `h1 → h2: lost`.
    pub title: String,
}

/// A square or rectangular matrix such as the ping matrix (rows = sources).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    /// `cells[r][c]`.
    pub cells: Vec<Vec<Cell>>,
}

/// A table with an optional tone per row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub tones: Vec<Tone>,
}

/// One block of a state view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Panel {
    Grid { title: String, summary: String, grid: Grid },
    Table { title: String, summary: String, table: Table },
    Lines { title: String, summary: String, lines: Vec<(Tone, String)> },
}

impl Panel {
    pub fn title(&self) -> &str {
        match self {
            Panel::Grid { title, .. } | Panel::Table { title, .. } | Panel::Lines { title, .. } => title,
        }
    }
}

/// A node of a topology picture, positioned by the application in a 0..1000 × 0..1000 box.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PicNode {
    pub id: String,
    pub label: String,
    /// What it is (`router`, `switch`, `host`, `service`, `block`, …); the UI picks a shape.
    pub role: String,
    pub x: f64,
    pub y: f64,
    pub tone: Tone,
}

/// An edge of a topology picture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PicEdge {
    pub from: String,
    pub to: String,
    pub label: String,
    pub tone: Tone,
    /// Drawn with an arrow head (call graphs) or as a plain link (cables).
    pub directed: bool,
}

/// A topology picture.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Picture {
    pub caption: String,
    pub nodes: Vec<PicNode>,
    pub edges: Vec<PicEdge>,
}

/// Label sizes of a topology picture in its units. The web app draws labels in a monospace
/// font at these sizes, which is what lets [`Picture::layout`] know their boxes.
pub const NODE_LABEL_SIZE: f64 = 22.0;
pub const EDGE_LABEL_SIZE: f64 = 17.0;
/// Advance of an ASCII character in em: 0.6 in common monospace fonts (DejaVu Sans Mono,
/// Liberation Mono, Menlo), rounded up so a font a little wider still fits its box.
const ADVANCE: f64 = 0.63;
/// Advance of any other character (tone symbols, arrows, wide scripts), which may come from a
/// fallback font.
const WIDE_ADVANCE: f64 = 1.05;
/// Font ascent and descent in em, rounded up over the same fonts, and the line pitch.
const ASCENT: f64 = 0.95;
const DESCENT: f64 = 0.32;
const LINE: f64 = 1.25;
/// Room kept between a label and anything else.
const GAP: f64 = 4.0;
/// Labels break at spaces into lines of about this many characters (a name, then an address).
const WRAP: usize = 12;
/// The most a crowded picture is stretched sideways to give its labels room; past that,
/// labels move above, beside or further below their node.
const MAX_STRETCH: f64 = 3.0;

/// An axis-aligned box in picture units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    fn around(cx: f64, cy: f64, half_w: f64, half_h: f64) -> Rect {
        Rect { x0: cx - half_w, y0: cy - half_h, x1: cx + half_w, y1: cy + half_h }
    }

    /// Whether the two boxes share any area (touching edges do not count).
    pub fn intersects(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    pub fn width(&self) -> f64 {
        self.x1 - self.x0
    }

    pub fn height(&self) -> f64 {
        self.y1 - self.y0
    }

    fn union(&self, o: &Rect) -> Rect {
        Rect { x0: self.x0.min(o.x0), y0: self.y0.min(o.y0), x1: self.x1.max(o.x1), y1: self.y1.max(o.y1) }
    }

    fn padded(&self, d: f64) -> Rect {
        Rect { x0: self.x0 - d, y0: self.y0 - d, x1: self.x1 + d, y1: self.y1 + d }
    }

    fn moved(&self, dx: f64, dy: f64) -> Rect {
        Rect { x0: self.x0 + dx, y0: self.y0 + dy, x1: self.x1 + dx, y1: self.y1 + dy }
    }
}

/// The size of a node's shape by role: its radius, in picture units.
pub fn radius(role: &str) -> f64 {
    match role {
        "router" => 30.0,
        "switch" | "subnet" => 26.0,
        "host" | "ixp" => 20.0,
        _ => 24.0,
    }
}

/// Half the width and height of the shape the web app draws for a role (a circle for routers,
/// wide boxes for switches and blocks, squares for hosts, pods and exchange points, ellipses
/// otherwise).
pub fn shape_half(role: &str) -> (f64, f64) {
    let r = radius(role);
    match role {
        "router" | "host" | "pod" | "ixp" => (r, r),
        "switch" | "subnet" | "block" => (r * 1.3, r * 0.7),
        _ => (r * 1.6, r),
    }
}

/// A node's label as shown: its tone's symbol, then the label.
pub fn node_text(n: &PicNode) -> String {
    join_symbol(n.tone, &n.label)
}

/// An edge's label as shown: its tone's symbol, then the label (empty when both are).
pub fn edge_text(e: &PicEdge) -> String {
    join_symbol(e.tone, &e.label)
}

fn join_symbol(tone: Tone, label: &str) -> String {
    format!("{} {label}", tone.symbol()).trim().to_string()
}

/// Words joined into lines of at most [`WRAP`] characters; a longer word keeps a line alone.
fn wrap(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= WRAP => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// The width of a line of text at `size`, an upper bound for the fonts the page names.
fn text_width(line: &str, size: f64) -> f64 {
    line.chars().map(|c| if c.is_ascii() { ADVANCE } else { WIDE_ADVANCE }).sum::<f64>() * size
}

/// A label placed in the picture: lines centred on `x`, the box's top at `top`.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedLabel {
    pub lines: Vec<String>,
    pub size: f64,
    pub x: f64,
    pub top: f64,
    /// The box the text stays inside.
    pub rect: Rect,
}

impl PlacedLabel {
    /// The baseline of each line, top to bottom.
    pub fn baselines(&self) -> Vec<f64> {
        (0..self.lines.len()).map(|i| self.top + (ASCENT + LINE * i as f64) * self.size).collect()
    }
}

/// A label's lines and size before it is placed.
struct Text {
    lines: Vec<String>,
    size: f64,
    width: f64,
    height: f64,
}

impl Text {
    fn new(text: &str, size: f64) -> Text {
        let lines = wrap(text);
        let width = lines.iter().map(|l| text_width(l, size)).fold(0.0, f64::max);
        let height = (ASCENT + DESCENT + LINE * (lines.len().max(1) - 1) as f64) * size;
        Text { lines, size, width, height }
    }

    /// The box of the text centred on `x` with its top at `top`.
    fn at(&self, x: f64, top: f64) -> Rect {
        Rect { x0: x - self.width / 2.0, y0: top, x1: x + self.width / 2.0, y1: top + self.height }
    }

    fn place(self, rect: Rect) -> PlacedLabel {
        PlacedLabel { x: (rect.x0 + rect.x1) / 2.0, top: rect.y0, rect, lines: self.lines, size: self.size }
    }
}

/// Where a picture's nodes and labels go so that no label covers another label or a node.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Node centres in picture order: the application's positions, stretched sideways when
    /// the labels of a row need room.
    pub centres: Vec<(f64, f64)>,
    /// One label per node.
    pub node_labels: Vec<PlacedLabel>,
    /// One per edge: `None` for an edge without a label or with an unknown end.
    pub edge_labels: Vec<Option<PlacedLabel>>,
    /// Everything drawn, with a margin.
    pub bounds: Rect,
}

impl Layout {
    /// The box of node `i`'s shape.
    pub fn shape(&self, p: &Picture, i: usize) -> Rect {
        let (hw, hh) = shape_half(&p.nodes[i].role);
        Rect::around(self.centres[i].0, self.centres[i].1, hw, hh)
    }

    /// Every placed label's box.
    pub fn label_rects(&self) -> Vec<Rect> {
        self.node_labels.iter().chain(self.edge_labels.iter().flatten()).map(|l| l.rect).collect()
    }
}

/// Boxes already taken while labels are placed.
struct Taken(Vec<Rect>);

impl Taken {
    fn free(&self, r: &Rect) -> bool {
        let r = r.padded(GAP / 2.0);
        !self.0.iter().any(|t| t.intersects(&r))
    }

    /// The first free candidate, or else the box moved down below everything in its columns,
    /// which is always free.
    fn claim(&mut self, candidates: impl IntoIterator<Item = Rect>, fallback: Rect) -> Rect {
        let chosen = candidates.into_iter().find(|r| self.free(r)).unwrap_or_else(|| {
            let below = self
                .0
                .iter()
                .filter(|t| t.x0 < fallback.x1 + GAP && fallback.x0 - GAP < t.x1)
                .map(|t| t.y1)
                .fold(fallback.y0 - GAP, f64::max);
            fallback.moved(0.0, below + GAP - fallback.y0)
        });
        self.0.push(chosen);
        chosen
    }
}

impl Picture {
    /// Lays the picture out: see [`Layout`].
    pub fn layout(&self) -> Layout {
        let texts: Vec<Text> = self.nodes.iter().map(|n| Text::new(&node_text(n), NODE_LABEL_SIZE)).collect();
        let centres = self.stretched(&texts);
        let shapes: Vec<Rect> = self
            .nodes
            .iter()
            .zip(&centres)
            .map(|(n, &(x, y))| {
                let (hw, hh) = shape_half(&n.role);
                Rect::around(x, y, hw, hh)
            })
            .collect();
        let mut taken = Taken(shapes.clone());
        let node_labels = texts
            .into_iter()
            .zip(&shapes)
            .map(|(text, shape)| {
                let rect = taken.claim(
                    node_candidates(&text, shape),
                    text.at((shape.x0 + shape.x1) / 2.0, shape.y1 + GAP),
                );
                text.place(rect)
            })
            .collect::<Vec<_>>();
        let edge_labels =
            self.edges.iter().map(|e| self.edge_label(e, &centres, &mut taken)).collect::<Vec<_>>();
        let bounds = taken.0.iter().fold(
            taken.0.first().copied().unwrap_or(Rect { x0: 0.0, y0: 0.0, x1: 1000.0, y1: 400.0 }),
            |a, b| a.union(b),
        );
        Layout { centres, node_labels, edge_labels, bounds: bounds.padded(12.0) }
    }

    /// Node centres with x stretched about the leftmost node until the default labels (below
    /// their nodes) of nodes side by side no longer meet, up to [`MAX_STRETCH`].
    fn stretched(&self, texts: &[Text]) -> Vec<(f64, f64)> {
        let under = |i: usize| {
            let n = &self.nodes[i];
            let (hw, hh) = shape_half(&n.role);
            (n.y + hh + GAP, n.y + hh + GAP + texts[i].height, hw.max(texts[i].width / 2.0))
        };
        let mut stretch: f64 = 1.0;
        for i in 0..self.nodes.len() {
            let (top_i, bottom_i, half_i) = under(i);
            for j in i + 1..self.nodes.len() {
                let (top_j, bottom_j, half_j) = under(j);
                let dx = (self.nodes[i].x - self.nodes[j].x).abs();
                if top_i < bottom_j && top_j < bottom_i && dx > 1e-6 {
                    stretch = stretch.max((half_i + half_j + 2.0 * GAP) / dx);
                }
            }
        }
        let stretch = stretch.min(MAX_STRETCH);
        let left = self.nodes.iter().map(|n| n.x).fold(f64::INFINITY, f64::min);
        self.nodes.iter().map(|n| (left + (n.x - left) * stretch, n.y)).collect()
    }

    /// An edge's label on the edge (its middle, else further along either way), or else moved
    /// down out of the way.
    fn edge_label(&self, e: &PicEdge, centres: &[(f64, f64)], taken: &mut Taken) -> Option<PlacedLabel> {
        let text = edge_text(e);
        let end = |id: &str| self.nodes.iter().position(|n| n.id == id);
        let (a, b) = (end(&e.from)?, end(&e.to)?);
        if text.is_empty() {
            return None;
        }
        let text = Text::new(&text, EDGE_LABEL_SIZE);
        let ((ax, ay), (bx, by)) = (centres[a], centres[b]);
        let at = |t: f64| text.at(ax + (bx - ax) * t, ay + (by - ay) * t - text.height / 2.0);
        let along = [0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.2, 0.8].map(at);
        let rect = taken.claim(along, at(0.5));
        Some(text.place(rect))
    }
}

/// Where a node's label may go, best first: under the node, over it, beside it, then
/// further under or over it a line at a time.
fn node_candidates(text: &Text, shape: &Rect) -> Vec<Rect> {
    let cx = (shape.x0 + shape.x1) / 2.0;
    let cy = (shape.y0 + shape.y1) / 2.0;
    let below = text.at(cx, shape.y1 + GAP);
    let above = text.at(cx, shape.y0 - GAP - text.height);
    let side = text.width / 2.0 + GAP;
    let right = text.at(shape.x1 + side, cy - text.height / 2.0);
    let left = text.at(shape.x0 - side, cy - text.height / 2.0);
    let step = LINE * text.size;
    let further =
        (1..=4).flat_map(|k| [below.moved(0.0, step * k as f64), above.moved(0.0, -step * k as f64)]);
    [below, above, right, left].into_iter().chain(further).collect()
}

/// `1 link`, `2 links`: a count with its noun in the right number.
pub fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

/// Renders panels as plain text (CLI `exec`, logs).
pub fn panels_to_text(panels: &[Panel]) -> String {
    let mut out = String::new();
    for panel in panels {
        match panel {
            Panel::Grid { title, summary, grid } => {
                out.push_str(&format!("{title}: {summary}\n"));
                let width = grid.rows.iter().map(String::len).max().unwrap_or(0);
                for (name, row) in grid.rows.iter().zip(&grid.cells) {
                    let cells: Vec<&str> = row.iter().map(|c| c.tone.symbol()).collect();
                    out.push_str(&format!("  {name:<width$} {}\n", cells.join(" ")));
                }
            }
            Panel::Table { title, summary, table } => {
                out.push_str(&format!("{title}: {summary}\n"));
                for row in &table.rows {
                    out.push_str(&format!("  {}\n", row.join(" | ")));
                }
            }
            Panel::Lines { title, summary, lines } => {
                out.push_str(&format!("{title}: {summary}\n"));
                for (tone, line) in lines {
                    out.push_str(&format!("  {} {line}\n", tone.symbol()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of boxes that meet: labels with labels, labels with node shapes.
    fn collisions(p: &Picture) -> Vec<String> {
        let l = p.layout();
        let labels = l.label_rects();
        let shapes: Vec<Rect> = (0..p.nodes.len()).map(|i| l.shape(p, i)).collect();
        let mut out = Vec::new();
        for (i, a) in labels.iter().enumerate() {
            for b in &labels[i + 1..] {
                if a.intersects(b) {
                    out.push(format!("labels {a:?} and {b:?}"));
                }
            }
            for (n, s) in shapes.iter().enumerate() {
                if a.intersects(s) {
                    out.push(format!("label {a:?} and node {}", p.nodes[n].id));
                }
            }
        }
        out
    }

    fn node(id: &str, label: &str, x: f64, y: f64) -> PicNode {
        PicNode { id: id.into(), label: label.into(), role: "host".into(), x, y, tone: Tone::Neutral }
    }

    fn edge(from: &str, to: &str, label: &str) -> PicEdge {
        PicEdge { from: from.into(), to: to.into(), label: label.into(), tone: Tone::Bad, directed: false }
    }

    #[test]
    fn labels_wrap_at_spaces_and_keep_long_words_whole() {
        assert_eq!(wrap("h1 192.168.1.100"), ["h1", "192.168.1.100"]);
        assert_eq!(wrap("✗ r0"), ["✗ r0"]);
        assert_eq!(wrap("ju1.a1.m1.s2c1.p1"), ["ju1.a1.m1.s2c1.p1"]);
        assert_eq!(wrap("allowed, should be denied"), ["allowed,", "should be", "denied"]);
        assert!(wrap("   ").is_empty());
    }

    #[test]
    fn crowded_and_stacked_nodes_get_separate_labels() {
        // Nodes on one spot, a crowded row, and edges sharing a midpoint.
        let mut nodes: Vec<PicNode> =
            (0..30).map(|i| node(&format!("h{i}"), "h 10.0.0.1", i as f64 * 5.0, 500.0)).collect();
        nodes.extend((0..5).map(|i| node(&format!("same{i}"), "same place", 300.0, 300.0)));
        let edges = (1..30).map(|i| edge("h0", &format!("h{i}"), "eth1 10.0.0.1/24")).collect();
        let p = Picture { caption: String::new(), nodes, edges };
        assert_eq!(collisions(&p), Vec::<String>::new());
        let l = p.layout();
        assert!(l.edge_labels.iter().all(Option::is_some));
        for r in l.label_rects() {
            assert!(r.x0 >= l.bounds.x0 && r.x1 <= l.bounds.x1 && r.y0 >= l.bounds.y0 && r.y1 <= l.bounds.y1);
        }
    }

    #[test]
    fn an_empty_picture_and_unknown_edge_ends_lay_out() {
        let p = Picture { caption: String::new(), nodes: vec![], edges: vec![edge("a", "b", "x")] };
        let l = p.layout();
        assert_eq!(l.edge_labels, vec![None]);
        assert!(l.bounds.width() > 0.0 && l.bounds.height() > 0.0);
    }

    /// The pictures of generated tasks of every application and level (default knobs and the
    /// largest topologies), as tasks and as episodes show them.
    fn generated_pictures() -> Vec<(String, Picture)> {
        let mut out = Vec::new();
        for app in crate::registry::apps() {
            let info = app.info();
            for level in info.levels.iter().map(|l| l.level) {
                // Fewer seeds where generation is slow in a debug build and more of them would
                // add no new layouts: a BGP picture holds at most 40 ASes however large the world
                // (an L4 world of 600-3,000 ASes takes ~20 s), and a microseg task (1-3 s, its
                // flow logs) draws no picture yet (one seed keeps it in when it does).
                let seeds = match (info.name, level) {
                    ("bgp", 4) | ("microseg", _) => 1,
                    ("bgp", 3) => 3,
                    _ => 12,
                };
                let mut ids: Vec<crate::QueryId> = (0..seeds)
                    .flat_map(|seed| (0..2).map(move |index| app.default_id(level, seed, index)))
                    .collect();
                let big: &[&[(char, &str)]] = match info.name {
                    "route" => &[
                        &[('n', "8"), ('m', "4")],
                        &[('n', "16"), ('m', "4")],
                        &[('n', "12"), ('m', "4"), ('r', "4")],
                    ],
                    "malt" => &[&[('k', "large")]],
                    _ => &[],
                };
                for knobs in big {
                    let order = info.knob_order();
                    for seed in 0..4 {
                        let mut id = app.default_id(level, seed, 0);
                        for (k, v) in knobs.iter() {
                            id = id.with_knob(*k, v.to_string(), &order);
                        }
                        ids.push(id);
                    }
                }
                for id in ids {
                    let Ok(task) = app.generate(&id) else { continue };
                    out.push((id.to_string(), task.picture()));
                    if let Some(p) = task.start(None).picture() {
                        out.push((format!("{id} (episode)"), p));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn no_label_covers_another_in_any_generated_picture() {
        let pictures = generated_pictures();
        assert!(pictures.len() > 100, "{} pictures", pictures.len());
        for (id, p) in &pictures {
            let c = collisions(p);
            assert!(c.is_empty(), "{id}: {} collisions, first {}", c.len(), c[0]);
        }
    }
}
