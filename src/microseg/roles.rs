//! Partition agreement for the role families: adjusted Rand index, adjusted mutual information
//! (expected MI, arithmetic normalisation) and pairwise precision/recall/F1 over unordered
//! pairs, with scikit-learn's degenerate cases.
//!
//! Hand-written and private on purpose: a shared, differential-tested implementation
//! (`stats::partition`) is being written beside this one and replaces it at merge; these keep
//! the plain signatures it will offer. Labels are any `u32`s; only equality matters.

use std::collections::BTreeMap;

/// Contingency counts n_ij (true class i, predicted cluster j) and the marginals.
struct Table {
    n: f64,
    cells: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    /// (i, j, n_ij) for the non-zero cells.
    nz: Vec<(usize, usize, u64)>,
}

fn table(truth: &[u32], pred: &[u32]) -> Table {
    let index = |xs: &[u32]| -> Vec<usize> {
        let ids: BTreeMap<u32, usize> = xs
            .iter()
            .copied()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .enumerate()
            .map(|(i, x)| (x, i))
            .collect();
        xs.iter().map(|x| ids[x]).collect()
    };
    let (t, p) = (index(truth), index(pred));
    let (ra, rb) = (t.iter().max().map_or(0, |m| m + 1), p.iter().max().map_or(0, |m| m + 1));
    let mut count: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for (&i, &j) in t.iter().zip(&p) {
        *count.entry((i, j)).or_default() += 1;
    }
    let (mut a, mut b) = (vec![0.0; ra], vec![0.0; rb]);
    let nz: Vec<(usize, usize, u64)> = count.into_iter().map(|((i, j), c)| (i, j, c)).collect();
    for &(i, j, c) in &nz {
        a[i] += c as f64;
        b[j] += c as f64;
    }
    Table { n: t.len() as f64, cells: nz.iter().map(|x| x.2 as f64).collect(), a, b, nz }
}

/// Ordered-pair confusion (tn, fp, fn, tp) as scikit-learn's `pair_confusion_matrix`.
fn pairs(t: &Table) -> (f64, f64, f64, f64) {
    let sq: f64 = t.cells.iter().map(|c| c * c).sum();
    let tp = sq - t.n;
    let fp = t.b.iter().map(|x| x * x).sum::<f64>() - sq;
    let fn_ = t.a.iter().map(|x| x * x).sum::<f64>() - sq;
    (t.n * t.n - fp - fn_ - sq, fp, fn_, tp)
}

/// Adjusted Rand index (Hubert–Arabie).
pub fn ari(truth: &[u32], pred: &[u32]) -> f64 {
    let (tn, fp, fn_, tp) = pairs(&table(truth, pred));
    if fn_ == 0.0 && fp == 0.0 {
        return 1.0;
    }
    2.0 * (tp * tn - fn_ * fp) / ((tp + fn_) * (fn_ + tn) + (tp + fp) * (fp + tn))
}

/// Pairwise (precision, recall, F1) of "same cluster" over unordered pairs; 0 where undefined.
pub fn pair_f1(truth: &[u32], pred: &[u32]) -> (f64, f64, f64) {
    let (_, fp, fn_, tp) = pairs(&table(truth, pred));
    let div = |a: f64, b: f64| if b == 0.0 { 0.0 } else { a / b };
    let (p, r) = (div(tp, tp + fp), div(tp, tp + fn_));
    (p, r, div(2.0 * p * r, p + r))
}

fn entropy(xs: &[f64], n: f64) -> f64 {
    -xs.iter().filter(|&&x| x > 0.0).map(|&x| x / n * (x / n).ln()).sum::<f64>()
}

/// Adjusted mutual information, arithmetic normalisation.
pub fn ami(truth: &[u32], pred: &[u32]) -> f64 {
    let t = table(truth, pred);
    let (ra, rb) = (t.a.len(), t.b.len());
    if (ra == 1 && rb == 1) || (ra == 0 && rb == 0) {
        return 1.0;
    }
    let n = t.n;
    let mi: f64 =
        t.nz.iter()
            .map(|&(i, j, c)| {
                let c = c as f64;
                c / n * (n * c / (t.a[i] * t.b[j])).ln()
            })
            .sum();
    let emi = expected_mi(&t);
    let norm = (entropy(&t.a, n) + entropy(&t.b, n)) / 2.0;
    let mut den = norm - emi;
    den = if den < 0.0 { den.min(-f64::EPSILON) } else { den.max(f64::EPSILON) };
    (mi - emi) / den
}

/// The expected mutual information under the hypergeometric model.
fn expected_mi(t: &Table) -> f64 {
    let n = t.n as usize;
    let mut lf = vec![0.0f64; n + 1];
    for k in 1..=n {
        lf[k] = lf[k - 1] + (k as f64).ln();
    }
    let nf = t.n;
    let mut emi = 0.0;
    for &a in &t.a {
        for &b in &t.b {
            let (ai, bj) = (a as usize, b as usize);
            let lo = (ai + bj).saturating_sub(n).max(1);
            for nij in lo..=ai.min(bj) {
                let x = nij as f64;
                let term = x / nf * (nf * x / (a * b)).ln();
                let lg = lf[ai] + lf[bj] + lf[n - ai] + lf[n - bj]
                    - lf[n]
                    - lf[nij]
                    - lf[ai - nij]
                    - lf[bj - nij]
                    - lf[n + nij - ai - bj];
                emi += term * lg.exp();
            }
        }
    }
    emi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // scikit-learn: adjusted_rand_score([0,0,1,1],[0,0,1,2]) = 0.5714285714285715
        assert!((ari(&[0, 0, 1, 1], &[0, 0, 1, 2]) - 0.571_428_571_428_571_5).abs() < 1e-12);
        assert_eq!(ari(&[0, 0, 1, 1], &[5, 5, 3, 3]), 1.0);
        assert_eq!(ari(&[0, 1, 2], &[0, 1, 2]), 1.0);
        let a = ami(&[0, 0, 1, 1], &[0, 0, 1, 1]);
        assert!((a - 1.0).abs() < 1e-12, "{a}");
        let (p, r, f) = pair_f1(&[0, 0, 1, 1], &[0, 0, 0, 0]);
        assert!((p - 1.0 / 3.0).abs() < 1e-12 && r == 1.0 && (f - 0.5).abs() < 1e-12);
        assert_eq!(pair_f1(&[0, 1], &[0, 1]), (0.0, 0.0, 0.0));
    }

    #[test]
    fn symmetric_and_invariant_under_renaming() {
        let t = [0, 0, 1, 1, 2, 2, 2, 3];
        let p = [1, 1, 1, 0, 2, 2, 5, 5];
        let renamed: Vec<u32> = p.iter().map(|x| 100 - x).collect();
        for f in [ari, ami] {
            assert!((f(&t, &p) - f(&p, &t)).abs() < 1e-12);
            assert!((f(&t, &p) - f(&t, &renamed)).abs() < 1e-12);
            assert!((f(&t, &t) - 1.0).abs() < 1e-12);
        }
    }
}
