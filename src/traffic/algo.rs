//! The graph algorithms behind the level-3 exact families (docs/traffic.md, "Families"):
//! the minimum cut between two nodes (as a maximum flow) and the number of maximal cliques,
//! natively for the truth, and as the reference Python the oracle submits.
//!
//! Hand-written rather than taken from petgraph (already a dependency, for MALT): its
//! Bron–Kerbosch is absent, and its Dinic (`algo::dinics`, 0.8) restarts every augmenting
//! path's search from the source with fresh visited marks and arc positions, so a dead end is
//! searched again by each path of a phase; it would also need the view copied into a
//! directed petgraph graph with two arcs per edge. Both are a few dozen lines here on the
//! adjacency the truth already holds.

use std::collections::BTreeSet;

use super::family::View;

/// The maximum flow from `s` to `t` with each undirected edge's connection weight as its
/// capacity both ways, which equals the smallest total connection weight of edges whose
/// removal separates them. Dinic's algorithm on flat arrays (docs/traffic.md, "Speed"): a
/// breadth-first pass levels the residual graph, then depth-first walks along rising levels
/// push flow until the levels are blocked, each arc tried at most once per phase.
pub fn max_flow(v: &View, s: usize, t: usize) -> i64 {
    if s == t || s >= v.ips.len() || t >= v.ips.len() {
        return 0;
    }
    let mut net = Residual::new(v);
    let mut flow = 0;
    while net.level(s, t) {
        net.next.copy_from_slice(&net.start[..net.start.len() - 1]);
        loop {
            let pushed = net.augment(s, t);
            if pushed == 0 {
                break;
            }
            flow += pushed;
        }
    }
    flow
}

/// The residual network of an undirected graph: arcs grouped by tail (`start[u]..start[u+1]`),
/// each undirected edge a pair of opposite arcs (twins) that both start with the edge's
/// capacity, so pushing along one frees the same amount on its twin.
struct Residual {
    start: Vec<usize>,
    head: Vec<usize>,
    /// The opposite arc of each arc, and each arc's residual capacity.
    twin: Vec<usize>,
    cap: Vec<i64>,
    /// The breadth-first level of each node in this phase (`usize::MAX`: not reached).
    depth: Vec<usize>,
    /// The first arc of each node not yet found blocked in this phase.
    next: Vec<usize>,
}

impl Residual {
    fn new(v: &View) -> Residual {
        let n = v.ips.len();
        let mut start = vec![0usize; n + 1];
        for &(a, b) in v.edges.keys() {
            start[a + 1] += 1;
            start[b + 1] += 1;
        }
        for u in 0..n {
            start[u + 1] += start[u];
        }
        let arcs = start[n];
        let (mut head, mut twin, mut cap) = (vec![0; arcs], vec![0; arcs], vec![0; arcs]);
        let mut fill = start.clone();
        for (&(a, b), w) in &v.edges {
            let (x, y) = (fill[a], fill[b]);
            fill[a] += 1;
            fill[b] += 1;
            (head[x], twin[x], cap[x]) = (b, y, w[1]);
            (head[y], twin[y], cap[y]) = (a, x, w[1]);
        }
        Residual { start, head, twin, cap, depth: vec![usize::MAX; n], next: vec![0; n] }
    }

    /// Levels the nodes by residual distance from `s`, stopping at `t`'s level (nothing
    /// further can lie on a shortest path); whether `t` was reached.
    fn level(&mut self, s: usize, t: usize) -> bool {
        self.depth.fill(usize::MAX);
        self.depth[s] = 0;
        let mut queue = std::collections::VecDeque::from([s]);
        while let Some(x) = queue.pop_front() {
            if self.depth[x] >= self.depth[t] {
                break;
            }
            for a in self.start[x]..self.start[x + 1] {
                let y = self.head[a];
                if self.cap[a] > 0 && self.depth[y] == usize::MAX {
                    self.depth[y] = self.depth[x] + 1;
                    queue.push_back(y);
                }
            }
        }
        self.depth[t] != usize::MAX
    }

    /// One augmenting path along rising levels, by an explicit stack (a path may be as long
    /// as the graph has nodes); the flow pushed, 0 when the phase is blocked.
    fn augment(&mut self, s: usize, t: usize) -> i64 {
        let mut path: Vec<usize> = Vec::new();
        let mut x = s;
        loop {
            if x == t {
                let push = path.iter().map(|&a| self.cap[a]).min().unwrap_or(0);
                for &a in &path {
                    self.cap[a] -= push;
                    self.cap[self.twin[a]] += push;
                }
                return push;
            }
            let end = self.start[x + 1];
            while self.next[x] < end {
                let a = self.next[x];
                let y = self.head[a];
                if self.cap[a] > 0 && self.depth[y] == self.depth[x] + 1 {
                    break;
                }
                self.next[x] += 1;
            }
            if self.next[x] < end {
                let a = self.next[x];
                path.push(a);
                x = self.head[a];
                continue;
            }
            // A dead end: no path of this phase goes through x; retreat and skip its arc.
            match path.pop() {
                None => return 0,
                Some(a) => {
                    x = self.head[self.twin[a]];
                    self.next[x] += 1;
                }
            }
        }
    }
}

/// Most Bron–Kerbosch calls before the count gives up.
pub const MAX_CLIQUE_STEPS: u64 = 10_000_000;

/// The number of maximal cliques (an isolated node is one), by Bron–Kerbosch with a pivot of
/// most neighbours in P; `None` past [`MAX_CLIQUE_STEPS`].
pub fn maximal_cliques(adj: &[BTreeSet<usize>]) -> Option<i64> {
    let mut count = 0i64;
    let mut steps = 0u64;
    let mut stack: Vec<(BTreeSet<usize>, BTreeSet<usize>)> =
        vec![((0..adj.len()).collect(), BTreeSet::new())];
    while let Some((mut p, mut x)) = stack.pop() {
        steps += 1;
        if steps > MAX_CLIQUE_STEPS {
            return None;
        }
        if p.is_empty() && x.is_empty() {
            count += 1;
            continue;
        }
        let pivot = p.iter().chain(&x).copied().max_by_key(|&u| adj[u].intersection(&p).count())?;
        let outside: Vec<usize> = p.difference(&adj[pivot]).copied().collect();
        for v in outside {
            stack.push((
                p.intersection(&adj[v]).copied().collect(),
                x.intersection(&adj[v]).copied().collect(),
            ));
            p.remove(&v);
            x.insert(v);
        }
    }
    Some(count)
}

/// The reference min-cut answer; `{u}` and `{v}` are replaced by the nodes' literals.
pub const MIN_CUT_CODE: &str = "cap = {}
    for a, b, w in G.edges(data=True):
        c = w['connection_weight']
        cap.setdefault(a, {})[b] = c
        cap.setdefault(b, {})[a] = c
    s, t = {u}, {v}
    flow = 0
    while True:
        prev = {s: None}
        queue = [s]
        i = 0
        while i < len(queue) and t not in prev:
            x = queue[i]
            i += 1
            for y, c in cap.get(x, {}).items():
                if c > 0 and y not in prev:
                    prev[y] = x
                    queue.append(y)
        if t not in prev:
            break
        path = []
        y = t
        while prev[y] is not None:
            path.append((prev[y], y))
            y = prev[y]
        push = min(cap[a][b] for a, b in path)
        for a, b in path:
            cap[a][b] = cap[a][b] - push
            cap[b][a] = cap[b].get(a, 0) + push
        flow += push
    return {'type': 'text', 'data': flow}";

/// The reference clique count (Bron–Kerbosch with a pivot, iterative).
pub const CLIQUES_CODE: &str = "nb = {}
    for n in G.nodes():
        nb[n] = set(G.neighbors(n))
    count = 0
    stack = [(set(nb.keys()), set())]
    while stack:
        p, x = stack.pop()
        if not p and not x:
            count += 1
            continue
        pivot = max(p | x, key=lambda u: len(nb[u] & p))
        for v in sorted(p - nb[pivot]):
            stack.append((p & nb[v], x & nb[v]))
            p = p - {v}
            x = x | {v}
    return {'type': 'text', 'data': count}";

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn adj(n: usize, edges: &[(usize, usize)]) -> Vec<BTreeSet<usize>> {
        let mut a = vec![BTreeSet::new(); n];
        for &(u, v) in edges {
            a[u].insert(v);
            a[v].insert(u);
        }
        a
    }

    #[test]
    fn cliques_of_small_graphs() {
        // A triangle with a tail and an isolated node: {0,1,2}, {2,3}, {4}.
        assert_eq!(maximal_cliques(&adj(5, &[(0, 1), (1, 2), (0, 2), (2, 3)])), Some(3));
        // A 4-cycle: four edges.
        assert_eq!(maximal_cliques(&adj(4, &[(0, 1), (1, 2), (2, 3), (3, 0)])), Some(4));
        assert_eq!(maximal_cliques(&adj(3, &[])), Some(3));
    }

    #[test]
    fn flow_is_the_cut() {
        let mk = |edges: &[(usize, usize, i64)]| View {
            ips: (0..4).map(|i| format!("10.0.0.{i}")).collect(),
            labels: vec![Vec::new(); 4],
            adj: adj(4, &edges.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>()),
            edges: edges.iter().map(|&(a, b, c)| ((a.min(b), a.max(b)), [0, c, 0])).collect(),
            unit: 1.0,
        };
        // Two paths 0-1-3 (3 then 2) and 0-2-3 (5 then 7): 2 + 5.
        let v = mk(&[(0, 1, 3), (1, 3, 2), (0, 2, 5), (2, 3, 7)]);
        assert_eq!(max_flow(&v, 0, 3), 7);
        assert_eq!(max_flow(&v, 3, 0), 7);
        assert_eq!(max_flow(&mk(&[(0, 1, 3)]), 0, 2), 0);
    }

    /// The smallest cut by trying every side of `s` (the definition, for small graphs).
    fn cut_by_subsets(v: &View, s: usize, t: usize) -> i64 {
        let n = v.ips.len();
        (0u32..1 << n)
            .filter(|side| side & (1 << s) != 0 && side & (1 << t) == 0)
            .map(|side| {
                let inside = |u: usize| side & (1 << u) != 0;
                v.edges.iter().filter(|&(&(a, b), _)| inside(a) != inside(b)).map(|(_, w)| w[1]).sum()
            })
            .min()
            .unwrap_or(0)
    }

    #[test]
    fn flow_matches_every_cut_on_random_graphs() {
        let mut r = crate::seed::Stream::new("algo-test", crate::seed::Width::W64);
        for _ in 0..300 {
            let n = 2 + r.index(8);
            let mut edges = BTreeMap::new();
            for _ in 0..r.index(3 * n) {
                let (a, b) = (r.index(n), r.index(n));
                if a != b {
                    edges.insert((a.min(b), a.max(b)), [0, 1 + r.below(9) as i64, 0]);
                }
            }
            let pairs: Vec<(usize, usize)> = edges.keys().copied().collect();
            let v = View {
                ips: (0..n).map(|i| format!("10.0.0.{i}")).collect(),
                labels: vec![Vec::new(); n],
                adj: adj(n, &pairs),
                edges,
                unit: 1.0,
            };
            let (s, t) = (r.index(n), r.index(n));
            let want = if s == t { 0 } else { cut_by_subsets(&v, s, t) };
            assert_eq!(max_flow(&v, s, t), want, "{pairs:?} {s} {t}");
        }
    }
}
