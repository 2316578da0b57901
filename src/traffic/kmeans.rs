//! Optimal one-dimensional k-means (docs/traffic.md, "Property families"): the least
//! within-cluster sum of squared deviations of sorted values split into k contiguous runs,
//! by dynamic programming with divide and conquer over the split points, O(k·n log n).
//!
//! Costs are computed from exact integer prefix sums: the cost of a run is
//! (len·Σx² − (Σx)²) / len with the numerator in i128, so equal partitions cost the same to
//! the last bit whichever way they are summed, and no cancellation eats the small clusters.

/// The sum of squared deviations of `xs` from their mean.
pub fn sse(xs: &[i64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let (s1, s2) =
        xs.iter().fold((0i128, 0i128), |(a, b), &x| (a + i128::from(x), b + i128::from(x) * i128::from(x)));
    run_cost(xs.len(), s1, s2)
}

fn run_cost(len: usize, s1: i128, s2: i128) -> f64 {
    let len = len as i128;
    (s2 * len - s1 * s1) as f64 / len as f64
}

/// The optimum for sorted `xs` in `k` non-empty runs (1 ≤ k ≤ len): its cost and the run
/// boundaries `[0, c1, …, len]`. Among equal costs the earliest split wins.
pub fn optimal(xs: &[i64], k: usize) -> (f64, Vec<usize>) {
    let m = xs.len();
    let k = k.clamp(1, m.max(1));
    let mut s1 = vec![0i128; m + 1];
    let mut s2 = vec![0i128; m + 1];
    for (i, &x) in xs.iter().enumerate() {
        s1[i + 1] = s1[i] + i128::from(x);
        s2[i + 1] = s2[i] + i128::from(x) * i128::from(x);
    }
    let cost = |i: usize, j: usize| run_cost(j - i, s1[j] - s1[i], s2[j] - s2[i]);
    let mut prev = vec![f64::INFINITY; m + 1];
    prev[0] = 0.0;
    let mut back: Vec<Vec<usize>> = Vec::with_capacity(k);
    for layer in 1..=k {
        let mut cur = vec![f64::INFINITY; m + 1];
        let mut arg = vec![0usize; m + 1];
        // (lo, hi, tlo, thi): fill cur[lo..=hi] knowing their best splits lie in tlo..=thi.
        let mut stack = vec![(layer, m, layer - 1, m - 1)];
        while let Some((lo, hi, tlo, thi)) = stack.pop() {
            if lo > hi {
                continue;
            }
            let mid = (lo + hi) / 2;
            let (mut best, mut bt) = (f64::INFINITY, tlo);
            let top = thi.min(mid - 1);
            for (t, &before) in prev.iter().enumerate().take(top + 1).skip(tlo) {
                let v = before + cost(t, mid);
                if v < best {
                    (best, bt) = (v, t);
                }
            }
            cur[mid] = best;
            arg[mid] = bt;
            if mid > lo {
                stack.push((lo, mid - 1, tlo, bt));
            }
            stack.push((mid + 1, hi, bt, thi));
        }
        back.push(arg);
        prev = cur;
    }
    let mut cuts = vec![m];
    let mut j = m;
    for layer in (0..k).rev() {
        j = back[layer][j];
        cuts.push(j);
    }
    cuts.reverse();
    (prev[m], cuts)
}

/// The reference Python: the same dynamic program over the sorted totals, costs from exact
/// integer sums; leaves `cl` mapping each node to its cluster number (by ascending totals).
pub const OPTIMAL_CODE: &str = "tot = dict(G.degree(weight='byte_weight'))
    order = sorted(tot, key=lambda n: (tot[n], [int(x) for x in n.split('.')]))
    xs = [tot[n] for n in order]
    m = len(xs)
    s1 = [0]
    s2 = [0]
    for x in xs:
        s1.append(s1[-1] + x)
        s2.append(s2[-1] + x * x)
    def cost(i, j):
        c = j - i
        d = s1[j] - s1[i]
        return ((s2[j] - s2[i]) * c - d * d) / c
    inf = float('inf')
    prev = [0.0] + [inf] * m
    back = []
    for layer in range(1, k + 1):
        cur = [inf] * (m + 1)
        arg = [0] * (m + 1)
        stack = [(layer, m, layer - 1, m - 1)]
        while stack:
            lo, hi, tlo, thi = stack.pop()
            if lo > hi:
                continue
            mid = (lo + hi) // 2
            best = inf
            bt = tlo
            for t in range(tlo, min(thi, mid - 1) + 1):
                v = prev[t] + cost(t, mid)
                if v < best:
                    best = v
                    bt = t
            cur[mid] = best
            arg[mid] = bt
            stack.append((lo, mid - 1, tlo, bt))
            stack.append((mid + 1, hi, bt, thi))
        back.append(arg)
        prev = cur
    cuts = [m]
    j = m
    for layer in range(k - 1, -1, -1):
        j = back[layer][j]
        cuts.append(j)
    cuts.reverse()
    cl = {}
    for c in range(k):
        for n in order[cuts[c]:cuts[c + 1]]:
            cl[n] = c";

/// The baseline's Python: 20 Lloyd iterations from centres at evenly spaced ranks of the
/// sorted totals; it stops where Lloyd stops, which need not be the optimum (and an emptied
/// cluster leaves its number unused).
pub const LLOYD_CODE: &str = "tot = dict(G.degree(weight='byte_weight'))
    xs = sorted(tot.values())
    cs = [xs[i * (len(xs) - 1) // (k - 1)] for i in range(k)]
    cl = {}
    for it in range(20):
        for n, x in tot.items():
            cl[n] = min(range(k), key=lambda i: (abs(x - cs[i]), i))
        for i in range(k):
            mine = [tot[n] for n in tot if cl[n] == i]
            if mine:
                cs[i] = sum(mine) / len(mine)";

#[cfg(test)]
mod tests {
    use super::*;

    /// Every split of `xs` into `k` non-empty runs, the least cost.
    fn brute(xs: &[i64], k: usize) -> f64 {
        if k == 1 {
            return sse(xs);
        }
        (k - 1..xs.len()).map(|c| brute(&xs[..c], k - 1) + sse(&xs[c..])).fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn the_dynamic_program_is_optimal_on_small_inputs() {
        let mut r = crate::seed::Stream::new("kmeans-test", crate::seed::Width::W64);
        for _ in 0..300 {
            let n = 1 + r.index(9);
            let mut xs: Vec<i64> = (0..n).map(|_| r.below(40) as i64 * 1_000_003).collect();
            xs.sort_unstable();
            let k = 1 + r.index(n.min(5));
            let (cost, cuts) = optimal(&xs, k);
            let want = brute(&xs, k);
            assert!((cost - want).abs() <= 1e-9 * want.max(1.0), "{xs:?} k={k}: {cost} vs {want}");
            assert_eq!(cuts.len(), k + 1);
            assert!(cuts.windows(2).all(|w| w[0] < w[1]), "{cuts:?}");
            let parts: f64 = cuts.windows(2).map(|w| sse(&xs[w[0]..w[1]])).sum();
            assert!((parts - cost).abs() <= 1e-9 * cost.max(1.0));
        }
    }

    #[test]
    fn large_values_keep_small_clusters_exact() {
        // Totals near 10¹³ differing by one: a float prefix-sum formula would lose them.
        let xs = [10_000_000_000_000, 10_000_000_000_001, 20_000_000_000_000, 20_000_000_000_002];
        let (cost, cuts) = optimal(&xs, 2);
        assert_eq!(cuts, vec![0, 2, 4]);
        assert_eq!(cost, 0.5 + 2.0);
    }
}
