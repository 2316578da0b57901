//! Optimal one-dimensional k-means (docs/traffic.md, "Property families"): the least
//! within-cluster sum of squared deviations of sorted values split into k contiguous runs,
//! by dynamic programming with divide and conquer over the split points, O(k·n log n).
//!
//! Costs are computed from exact integer prefix sums: the cost of a run is
//! (len·Σx² − (Σx)²) / len with the numerator in i128, so equal partitions cost the same to
//! the last bit whichever way they are summed, and no cancellation eats the small clusters.
//!
//! Hand-written rather than taken from the `ckmeans` crate (Wang and Song's Ckmeans.1d.dp):
//! it clusters floats with squared deviations updated incrementally in floating point, so its
//! costs could differ in the last bits from the reference Python's exact integer sums and
//! break ties between equal partitions differently from the truth the checker expects.

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
    to_f64(s2 * len - s1 * s1) / len as f64
}

/// `v as f64` for `v ≥ 0`, rounded to nearest (ties to even) exactly as `as` rounds, but
/// without the library call `as` makes for a 128-bit integer (the costs of the dynamic
/// program are most of its time, and every one converts a 128-bit numerator). Above 2⁶³ the
/// top 63 bits are converted with the bits below folded into the lowest ("sticky") bit, which
/// keeps the rounding decision of the whole number, then scaled by a power of two (exact).
fn to_f64(v: i128) -> f64 {
    let v = v as u128;
    if v < 1 << 63 {
        return v as i64 as f64;
    }
    let shift = 65 - v.leading_zeros();
    let top = (v >> shift) as u64 | u64::from(v & ((1 << shift) - 1) != 0);
    top as i64 as f64 * f64::from_bits(u64::from(1023 + shift) << 52)
}

/// The optimum for sorted `xs` in `k` non-empty runs (1 ≤ k ≤ len): its cost and the run
/// boundaries `[0, c1, …, len]`. Among equal costs the earliest split wins.
///
/// Layer by layer (runs used), each layer's best costs for every prefix come from the layer
/// before by divide and conquer: the middle prefix's best split is found by a scan, and the
/// prefixes left and right of it search only up to, and from, that split. Two layers are
/// cheaper than that and give the same numbers (docs/traffic.md, "Speed"): the first, whose
/// only finite choice is to split at 0, is each prefix's cost directly; the last is needed at
/// the whole input only, so only the scans on the path from the middle to the end are made,
/// with the same bounds the full divide and conquer would give them.
pub fn optimal(xs: &[i64], k: usize) -> (f64, Vec<usize>) {
    let m = xs.len();
    let k = k.clamp(1, m.max(1));
    let mut s1 = vec![0i128; m + 1];
    let mut s2 = vec![0i128; m + 1];
    for (i, &x) in xs.iter().enumerate() {
        s1[i + 1] = s1[i] + i128::from(x);
        s2[i + 1] = s2[i] + i128::from(x) * i128::from(x);
    }
    // The least of prev[t] + cost(t, mid) over t in tlo..=top, at its first t (tlo if none).
    let scan = |prev: &[f64], mid: usize, tlo: usize, top: usize| {
        let (a1, a2) = (s1[mid], s2[mid]);
        let (mut best, mut bt) = (f64::INFINITY, tlo);
        for (t, &before) in (tlo..=top).zip(&prev[tlo..=top]) {
            let v = before + run_cost(mid - t, a1 - s1[t], a2 - s2[t]);
            if v < best {
                (best, bt) = (v, t);
            }
        }
        (best, bt)
    };
    let mut prev = vec![f64::INFINITY; m + 1];
    prev[0] = 0.0;
    let mut back: Vec<Vec<usize>> = Vec::with_capacity(k);
    for layer in 1..=k {
        let mut cur = vec![f64::INFINITY; m + 1];
        let mut arg = vec![0usize; m + 1];
        if layer == 1 {
            // Every t > 0 has prev[t] = ∞, so the scan would pick t = 0 for every prefix.
            for (j, c) in cur.iter_mut().enumerate().skip(1) {
                *c = prev[0] + run_cost(j, s1[j], s2[j]);
            }
        } else if layer == k {
            // The right spine of the divide and conquer below: (lo, m, tlo, m - 1) down to mid = m.
            let (mut lo, mut tlo) = (layer, layer - 1);
            loop {
                let mid = (lo + m) / 2;
                let (best, bt) = scan(&prev, mid, tlo, mid - 1);
                if mid == m {
                    (cur[m], arg[m]) = (best, bt);
                    break;
                }
                (lo, tlo) = (mid + 1, bt);
            }
        } else {
            // (lo, hi, tlo, thi): fill cur[lo..=hi] knowing their best splits lie in tlo..=thi.
            let mut stack = vec![(layer, m, layer - 1, m - 1)];
            while let Some((lo, hi, tlo, thi)) = stack.pop() {
                if lo > hi {
                    continue;
                }
                let mid = (lo + hi) / 2;
                let (best, bt) = scan(&prev, mid, tlo, thi.min(mid - 1));
                cur[mid] = best;
                arg[mid] = bt;
                if mid > lo {
                    stack.push((lo, mid - 1, tlo, bt));
                }
                stack.push((mid + 1, hi, bt, thi));
            }
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

    /// The dynamic program as first written: every layer in full by divide and conquer, `as`
    /// for the conversion. The faster one must give the same bits and the same cuts.
    fn plain(xs: &[i64], k: usize) -> (f64, Vec<usize>) {
        let m = xs.len();
        let (mut s1, mut s2) = (vec![0i128; m + 1], vec![0i128; m + 1]);
        for (i, &x) in xs.iter().enumerate() {
            s1[i + 1] = s1[i] + i128::from(x);
            s2[i + 1] = s2[i] + i128::from(x) * i128::from(x);
        }
        let cost = |i: usize, j: usize| {
            let len = (j - i) as i128;
            ((s2[j] - s2[i]) * len - (s1[j] - s1[i]) * (s1[j] - s1[i])) as f64 / len as f64
        };
        let mut prev = vec![f64::INFINITY; m + 1];
        prev[0] = 0.0;
        let mut back = Vec::new();
        for layer in 1..=k {
            let (mut cur, mut arg) = (vec![f64::INFINITY; m + 1], vec![0usize; m + 1]);
            let mut stack = vec![(layer, m, layer - 1, m - 1)];
            while let Some((lo, hi, tlo, thi)) = stack.pop() {
                if lo > hi {
                    continue;
                }
                let mid = (lo + hi) / 2;
                let (mut best, mut bt) = (f64::INFINITY, tlo);
                for (t, &before) in prev.iter().enumerate().take(thi.min(mid - 1) + 1).skip(tlo) {
                    let v = before + cost(t, mid);
                    if v < best {
                        (best, bt) = (v, t);
                    }
                }
                (cur[mid], arg[mid]) = (best, bt);
                if mid > lo {
                    stack.push((lo, mid - 1, tlo, bt));
                }
                stack.push((mid + 1, hi, bt, thi));
            }
            back.push(arg);
            prev = cur;
        }
        let mut cuts = vec![m];
        for layer in (0..k).rev() {
            cuts.push(back[layer][*cuts.last().unwrap()]);
        }
        cuts.reverse();
        (prev[m], cuts)
    }

    #[test]
    fn same_bits_and_cuts_as_the_plain_program() {
        let mut r = crate::seed::Stream::new("kmeans-plain", crate::seed::Width::W64);
        for round in 0..600 {
            let n = 1 + r.index(80);
            // Few distinct values (ties), small ones, and ones near 2⁵⁶ (numerators far past
            // 2⁶³, still inside i128 for 80 values).
            let (range, scale) = [(4, 1), (50, 1_000_003), (1 << 20, 1 << 36)][round % 3];
            let mut xs: Vec<i64> = (0..n).map(|_| r.below(range) as i64 * scale).collect();
            xs.sort_unstable();
            for k in 1..=n.min(7) {
                let (want, got) = (plain(&xs, k), optimal(&xs, k));
                assert_eq!(got.0.to_bits(), want.0.to_bits(), "{xs:?} k={k}");
                assert_eq!(got.1, want.1, "{xs:?} k={k}");
            }
        }
    }

    #[test]
    fn conversion_rounds_as_as_does() {
        let mut r = crate::seed::Stream::new("kmeans-to-f64", crate::seed::Width::W64);
        let mut cases: Vec<u128> = vec![0, 1, (1 << 63) - 1, 1 << 63, u128::MAX >> 1];
        for bit in 53..127 {
            let p = 1u128 << bit;
            // Around powers of two and around halfway points between neighbouring doubles.
            let half = 1u128 << (bit - 53);
            cases.extend([p - 1, p, p + 1, p + half, p + half - 1, p + half + 1, p + 3 * half]);
        }
        for _ in 0..40_000 {
            let word = u128::from(r.below(u64::MAX)) << 64 | u128::from(r.below(u64::MAX));
            cases.push(word >> (1 + r.index(127)));
        }
        for v in cases {
            let v = (v & (u128::MAX >> 1)) as i128;
            assert_eq!(to_f64(v).to_bits(), (v as f64).to_bits(), "{v}");
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
