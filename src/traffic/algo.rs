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
/// removal separates them. Dinic's algorithm on flat arrays (docs/traffic.md, "Speed"): each
/// phase labels nodes with their residual distance *to* `t` (a breadth-first pass from `t`
/// that stops as soon as it reaches `s`), then depth-first walks from `s` push flow along arcs
/// that step one closer to `t` until no such walk is left, each arc tried at most once per
/// phase. Because the labels are exact distances to `t`, a walk only meets a dead end where
/// this phase has saturated an arc, so a phase costs little beyond its breadth-first pass.
///
/// The flow stops growing once it equals the capacity around `s` or around `t` (each is a
/// cut, so no flow exceeds it), which spares the last pass that would only prove there is no
/// further path. The value is unique, so none of this can change the answer.
pub fn max_flow(v: &View, s: usize, t: usize) -> i64 {
    if s == t || s >= v.ips.len() || t >= v.ips.len() {
        return 0;
    }
    let mut net = Residual::new(v);
    let bound = net.around(s).min(net.around(t));
    let mut flow = 0;
    while flow < bound && net.level(s, t) {
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

/// Marks a node not reached by this phase's breadth-first pass.
const FAR: u32 = u32::MAX;

/// The residual network of an undirected graph. Edge `e` of the view (in its map order) gives
/// arc `2e` from its smaller end to its larger and arc `2e + 1` back, both starting with the
/// edge's capacity, so an arc's twin is `a ^ 1` and pushing along one frees the same amount
/// on the other. `out[start[u]..start[u + 1]]` lists the arcs leaving `u`.
///
/// Built in one walk of the view's edge map: the arc arrays are written in map order (no
/// scattered writes), and only the per-node lists of 4-byte arc numbers are filled out of
/// order. Indexes are `u32` (the largest mock, 100,000 nodes at 1‰, has 10 million arcs), which
/// halves the memory the passes read compared with `usize`.
struct Residual {
    start: Vec<u32>,
    out: Vec<u32>,
    /// Each arc's head and residual capacity.
    head: Vec<u32>,
    res: Vec<i64>,
    /// Each node's residual distance to `t` in this phase ([`FAR`]: not reached).
    dist: Vec<u32>,
    /// The position in `out` of each node's first arc not yet found blocked in this phase.
    next: Vec<u32>,
    queue: Vec<u32>,
    path: Vec<u32>,
}

impl Residual {
    fn new(v: &View) -> Residual {
        let n = v.ips.len();
        let arcs = 2 * v.edges.len();
        assert!(u32::try_from(arcs).is_ok(), "{arcs} arcs do not fit u32 indexes");
        let (mut head, mut res) = (Vec::with_capacity(arcs), Vec::with_capacity(arcs));
        let mut start = vec![0u32; n + 1];
        for (&(a, b), w) in &v.edges {
            head.extend([b as u32, a as u32]);
            res.extend([w[1], w[1]]);
            start[a + 1] += 1;
            start[b + 1] += 1;
        }
        for u in 0..n {
            start[u + 1] += start[u];
        }
        let mut fill = start.clone();
        let mut out = vec![0u32; arcs];
        for (e, ends) in head.chunks_exact(2).enumerate() {
            let (b, a) = (ends[0] as usize, ends[1] as usize);
            out[fill[a] as usize] = 2 * e as u32;
            fill[a] += 1;
            out[fill[b] as usize] = 2 * e as u32 + 1;
            fill[b] += 1;
        }
        Residual {
            start,
            out,
            head,
            res,
            dist: vec![FAR; n],
            next: vec![0; n],
            queue: Vec::new(),
            path: Vec::new(),
        }
    }

    /// The total positive capacity of the arcs leaving `u`: a cut between `u` and the rest.
    fn around(&self, u: usize) -> i64 {
        let arcs = &self.out[self.start[u] as usize..self.start[u + 1] as usize];
        arcs.iter().map(|&a| self.res[a as usize].max(0)).fold(0, i64::saturating_add)
    }

    /// Labels nodes with their residual distance to `t`, breadth first from `t` along arcs
    /// read backwards; whether `s` was reached. It stops on reaching `s`: every node closer
    /// to `t` than `s` is labelled by then (the pass is expanding the level just before `s`'s),
    /// and no walk of this phase goes through a node as far as `s` or further.
    fn level(&mut self, s: usize, t: usize) -> bool {
        self.dist.fill(FAR);
        self.dist[t] = 0;
        self.queue.clear();
        self.queue.push(t as u32);
        let mut i = 0;
        while let Some(&x) = self.queue.get(i) {
            i += 1;
            let d = self.dist[x as usize] + 1;
            for &a in &self.out[self.start[x as usize] as usize..self.start[x as usize + 1] as usize] {
                // The arc x → y is `a`; y → x is its twin.
                let y = self.head[a as usize] as usize;
                if self.res[a as usize ^ 1] > 0 && self.dist[y] == FAR {
                    self.dist[y] = d;
                    if y == s {
                        return true;
                    }
                    self.queue.push(y as u32);
                }
            }
        }
        false
    }

    /// One augmenting path, each arc one step closer to `t`, by an explicit stack (a path may
    /// be as long as the graph has nodes); the flow pushed, 0 when the phase is blocked.
    fn augment(&mut self, s: usize, t: usize) -> i64 {
        self.path.clear();
        let mut x = s;
        loop {
            if x == t {
                let push = self.path.iter().map(|&a| self.res[a as usize]).min().unwrap_or(0);
                for &a in &self.path {
                    self.res[a as usize] -= push;
                    self.res[a as usize ^ 1] += push;
                }
                return push;
            }
            let (end, closer) = (self.start[x + 1], self.dist[x].wrapping_sub(1));
            let mut i = self.next[x];
            while i < end {
                let a = self.out[i as usize] as usize;
                if self.res[a] > 0 && self.dist[self.head[a] as usize] == closer {
                    break;
                }
                i += 1;
            }
            self.next[x] = i;
            if i < end {
                let a = self.out[i as usize];
                self.path.push(a);
                x = self.head[a as usize] as usize;
                continue;
            }
            // A dead end: no path of this phase goes through x; retreat and skip its arc.
            match self.path.pop() {
                None => return 0,
                Some(a) => {
                    x = self.head[a as usize ^ 1] as usize;
                    self.next[x] += 1;
                }
            }
        }
    }
}

/// Most Bron–Kerbosch calls before the count gives up.
pub const MAX_CLIQUE_STEPS: u64 = 10_000_000;

/// The number of maximal cliques (an isolated node is one), or of those containing `node`, by
/// Bron–Kerbosch with a pivot of most neighbours in P; `None` past [`MAX_CLIQUE_STEPS`]. The
/// cliques containing a node are the search started with R = {node} and P its neighbours.
pub fn maximal_cliques(adj: &[BTreeSet<usize>], node: Option<usize>) -> Option<i64> {
    let mut count = 0i64;
    let mut steps = 0u64;
    let start = match node {
        Some(u) => adj.get(u)?.clone(),
        None => (0..adj.len()).collect(),
    };
    let mut stack: Vec<(BTreeSet<usize>, BTreeSet<usize>)> = vec![(start, BTreeSet::new())];
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
///
/// Augmenting paths (Ford–Fulkerson over integer capacities) found by two breadth-first searches,
/// one from each end, each step growing the side whose frontier is smaller and stopping after the
/// level where they meet. One search from the source alone visits almost the whole graph per path
/// (paths are short and the degree is ten, so the last level is most of the graph): at n = 10,000,
/// seed 0's searches scanned 1.66 million arcs and ran past the sandbox's 2 s. Meeting in the
/// middle scans 33,009 for 30 paths, and the last, failing search ends as soon as the sink's side,
/// cut off by saturated arcs, runs out of nodes.
pub const MIN_CUT_CODE: &str = "cap = {}
    for a, b, w in G.edges(data=True):
        c = w['connection_weight']
        cap.setdefault(a, {})[b] = c
        cap.setdefault(b, {})[a] = c
    s, t = {u}, {v}
    flow = 0
    while s in cap and t in cap:
        seen = [{s: None}, {t: None}]
        ends = [[s], [t]]
        meet = None
        while meet is None and ends[0] and ends[1]:
            k = 0 if len(ends[0]) <= len(ends[1]) else 1
            grown = []
            for x in ends[k]:
                for y, c in cap[x].items():
                    if k == 1:
                        c = cap[y][x]
                    if c > 0 and y not in seen[k]:
                        seen[k][y] = x
                        grown.append(y)
                        if y in seen[1 - k]:
                            meet = y
            ends[k] = grown
        if meet is None:
            break
        path = []
        y = meet
        while seen[0][y] is not None:
            path.append((seen[0][y], y))
            y = seen[0][y]
        y = meet
        while seen[1][y] is not None:
            path.append((y, seen[1][y]))
            y = seen[1][y]
        push = min(cap[a][b] for a, b in path)
        for a, b in path:
            cap[a][b] = cap[a][b] - push
            cap[b][a] = cap[b][a] + push
        flow += push
    return {'type': 'text', 'data': flow}";

/// The reference clique count (Bron–Kerbosch with a pivot, iterative). `p` and `x` are the
/// popped frame's own sets, so they shrink and grow in place: a copy per vertex made the first
/// frame, which holds every node, quadratic (past the sandbox's 2 s at n = 10,000). For the same
/// reason the pivot's count is `p & nb[u]`, not `nb[u] & p`: the sandbox's interpreter copies a
/// set operator's right operand whole before it intersects, and `p` is the large one.
pub const CLIQUES_CODE: &str = "nb = {}
    for n in G.nodes():
        nb[n] = set(G.neighbors(n))
    count = 0
    stack = [({start}, set())]
    while stack:
        p, x = stack.pop()
        if not p and not x:
            count += 1
            continue
        pivot = max(p | x, key=lambda u: len(p & nb[u]))
        for v in sorted(p - nb[pivot]):
            stack.append((p & nb[v], x & nb[v]))
            p.discard(v)
            x.add(v)
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
        assert_eq!(maximal_cliques(&adj(5, &[(0, 1), (1, 2), (0, 2), (2, 3)]), None), Some(3));
        // A 4-cycle: four edges.
        assert_eq!(maximal_cliques(&adj(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]), None), Some(4));
        assert_eq!(maximal_cliques(&adj(3, &[]), None), Some(3));
        // Those containing a node: 2 is in {0,1,2} and {2,3}, 3 in {2,3}, 4 alone in {4}.
        let g = adj(5, &[(0, 1), (1, 2), (0, 2), (2, 3)]);
        let of = |u| maximal_cliques(&g, Some(u));
        assert_eq!((of(2), of(3), of(4), of(9)), (Some(2), Some(1), Some(1), None));
    }

    #[test]
    fn flow_is_the_cut() {
        let mk = |edges: &[(usize, usize, i64)]| View {
            ips: (0..4).map(|i| format!("10.0.0.{i}")).collect(),
            labels: vec![Vec::new(); 4].into(),
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
                labels: vec![Vec::new(); n].into(),
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
