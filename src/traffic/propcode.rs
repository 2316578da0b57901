//! The reference Python of the property families (docs/traffic.md, "Property families"): the
//! strategies of the native witness, over the G API. The oracle submits it; the baseline too,
//! except that its k-means runs Lloyd's iterations instead of the exact program.

use super::family::{COLORS, Query, py_list};
use super::kmeans::{LLOYD_CODE, OPTIMAL_CODE};

/// Sorting key of an address, as Python.
const IP_KEY: &str = "lambda n: [int(x) for x in n.split('.')]";

/// The reference answer of a property question (`lloyd`: the baseline's k-means).
pub fn code(q: &Query, lloyd: bool) -> String {
    let body = match q {
        Query::ColorPrefix => format!(
            "pre = {{}}\n    for n in G.nodes():\n        a, b, c, d = n.split('.')\n        pre[n] = a + '.' + b\n    \
             order = sorted(set(pre.values()), key={IP_KEY})\n    rank = {{}}\n    for i, p in enumerate(order):\n        \
             rank[p] = i\n    for n in G.nodes():\n        G.set(n, 'color', f'#{{rank[pre[n]] * 40503 % 16777216:06x}}')"
        ),
        Query::Bisect { c1, c2 } => format!(
            "order = sorted(G.nodes(), key={IP_KEY})\n    half = (len(order) + 1) // 2\n    \
             for i, n in enumerate(order):\n        G.set(n, 'color', '{c1}' if i < half else '{c2}')"
        ),
        // Moving a node to the second colour lowers the difference by its degree.
        Query::CutBalanced { c1, c2, d } => format!(
            "order = sorted(G.nodes(), key={IP_KEY})\n    for n in order:\n        G.set(n, 'color', '{c1}')\n    \
             diff = G.number_of_edges()\n    for n in order:\n        if abs(diff) <= {d}:\n            break\n        \
             G.set(n, 'color', '{c2}')\n        diff -= G.degree(n)"
        ),
        Query::Kmeans { k, color } => {
            let paint = if *color {
                format!("\n        G.set(n, 'color', {}[c])", py_list(&COLORS))
            } else {
                String::new()
            };
            format!(
                "k = {k}\n    {}\n    for n, c in cl.items():\n        G.add_label(n, 'cluster=' + str(c)){paint}",
                if lloyd { LLOYD_CODE } else { OPTIMAL_CODE }
            )
        }
        Query::Heatmap { palette } => format!(
            "pal = {}\n    tot = dict(G.degree(weight='byte_weight'))\n    levels = sorted(set(tot.values()))\n    \
             top = max(1, len(levels) - 1)\n    rank = {{}}\n    for i, x in enumerate(levels):\n        rank[x] = i\n    \
             for n, x in tot.items():\n        G.set(n, 'color', pal[rank[x] * (len(pal) - 1) // top])",
            py_list(palette)
        ),
        _ => return String::new(),
    };
    format!("def process_graph(G):\n    {body}\n    return {{'type': 'graph', 'data': G}}\n")
}
