//! The graph algorithms behind the level-3 exact families (docs/traffic.md, "Families"):
//! the minimum cut between two nodes (as a maximum flow) and the number of maximal cliques,
//! natively for the truth, and as the reference Python the oracle submits.
//!
//! Hand-written rather than a graph crate: both are a few dozen lines on the adjacency the
//! truth already holds, and the crates that have them (petgraph's max-flow is recent and
//! cliques absent) would add a dependency to the wasm core for two functions.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::family::View;

/// The maximum flow from `s` to `t` with each undirected edge's connection weight as its
/// capacity both ways (Edmonds–Karp: shortest augmenting paths), which equals the smallest
/// total connection weight of edges whose removal separates them.
pub fn max_flow(v: &View, s: usize, t: usize) -> i64 {
    if s == t {
        return 0;
    }
    let mut cap: Vec<BTreeMap<usize, i64>> = vec![BTreeMap::new(); v.ips.len()];
    for (&(a, b), w) in &v.edges {
        cap[a].insert(b, w[1]);
        cap[b].insert(a, w[1]);
    }
    let mut flow = 0;
    loop {
        let mut prev = vec![usize::MAX; cap.len()];
        prev[s] = s;
        let mut queue = VecDeque::from([s]);
        while let Some(x) = queue.pop_front() {
            if x == t {
                break;
            }
            for (&y, &c) in &cap[x] {
                if c > 0 && prev[y] == usize::MAX {
                    prev[y] = x;
                    queue.push_back(y);
                }
            }
        }
        if prev[t] == usize::MAX {
            return flow;
        }
        let mut path = Vec::new();
        let mut y = t;
        while y != s {
            path.push((prev[y], y));
            y = prev[y];
        }
        let push = path.iter().map(|&(a, b)| cap[a][&b]).min().unwrap_or(0);
        for (a, b) in path {
            *cap[a].entry(b).or_default() -= push;
            *cap[b].entry(a).or_default() += push;
        }
        flow += push;
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
        };
        // Two paths 0-1-3 (3 then 2) and 0-2-3 (5 then 7): 2 + 5.
        let v = mk(&[(0, 1, 3), (1, 3, 2), (0, 2, 5), (2, 3, 7)]);
        assert_eq!(max_flow(&v, 0, 3), 7);
        assert_eq!(max_flow(&v, 3, 0), 7);
        assert_eq!(max_flow(&mk(&[(0, 1, 3)]), 0, 2), 0);
    }
}
