//! Agreement between two partitions of the same items, given as label vectors: the adjusted
//! Rand index, adjusted mutual information and pairwise precision, recall and F1.
//!
//! The micro-segmentation application scores role inference with these, and its threshold
//! table is written in scikit-learn's terms, so every value here is scikit-learn's
//! (`adjusted_rand_score`, `adjusted_mutual_info_score` with its default arithmetic
//! normalisation), degenerate cases included; `scripts/microseg_sklearn_diff.py` checks that
//! on random partitions. docs/microseg-partition.md says what each case returns and why.
//!
//! Labels are any `Ord` values; clusters are visited in label order, so the floating-point
//! sums (and so the bits of every result) are the same natively and in wasm32. Pair counts are
//! exact integers; logarithms come from `libm` (the same bits natively and in wasm32), and
//! the expected mutual information is summed with double-double log-factorials (see
//! [`Contingency::expected_mi`] for why not `lgamma`).

use std::collections::BTreeMap;

/// The scores of a predicted partition against a true one.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PartitionScores {
    /// Adjusted Rand index (Hubert–Arabie), in [-0.5, 1].
    pub ari: f64,
    /// Adjusted mutual information, arithmetic normalisation, at most 1.
    pub ami: f64,
    /// Of the unordered pairs the prediction puts together, the share the truth does too.
    pub precision: f64,
    /// Of the unordered pairs the truth puts together, the share the prediction does too.
    pub recall: f64,
    /// Harmonic mean of pairwise precision and recall.
    pub f1: f64,
}

/// The two label vectors have different lengths.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("label vectors differ in length ({truth} true labels, {pred} predicted)")]
pub struct LengthMismatch {
    pub truth: usize,
    pub pred: usize,
}

/// Scores `pred` against `truth` (item i has labels `truth[i]` and `pred[i]`).
pub fn compare_partitions<T: Ord, P: Ord>(
    truth: &[T],
    pred: &[P],
) -> Result<PartitionScores, LengthMismatch> {
    if truth.len() != pred.len() {
        return Err(LengthMismatch { truth: truth.len(), pred: pred.len() });
    }
    let c = Contingency::new(truth, pred);
    let pairs = c.pairs();
    let (precision, recall, f1) = pairs.precision_recall_f1();
    Ok(PartitionScores { ari: pairs.ari(), ami: c.ami(), precision, recall, f1 })
}

/// The contingency table: cell counts by (true cluster, predicted cluster) and the margins.
struct Contingency {
    n: u64,
    /// Row sums (true cluster sizes), in label order.
    rows: Vec<u64>,
    /// Column sums (predicted cluster sizes), in label order.
    cols: Vec<u64>,
    /// Non-zero cells as (row, column, count), row-major.
    cells: Vec<(usize, usize, u64)>,
}

impl Contingency {
    fn new<T: Ord, P: Ord>(truth: &[T], pred: &[P]) -> Self {
        let rows_of = index_labels(truth);
        let cols_of = index_labels(pred);
        let mut counts: BTreeMap<(usize, usize), u64> = BTreeMap::new();
        for (t, p) in truth.iter().zip(pred) {
            *counts.entry((rows_of[t], cols_of[p])).or_default() += 1;
        }
        let (mut rows, mut cols) = (vec![0; rows_of.len()], vec![0; cols_of.len()]);
        for (&(r, c), &k) in &counts {
            rows[r] += k;
            cols[c] += k;
        }
        let cells = counts.into_iter().map(|((r, c), k)| (r, c, k)).collect();
        Contingency { n: truth.len() as u64, rows, cols, cells }
    }

    /// The pair confusion counts over unordered pairs of items.
    fn pairs(&self) -> PairCounts {
        let same_both: u128 = self.cells.iter().map(|&(_, _, k)| choose2(k)).sum();
        let same_truth: u128 = self.rows.iter().map(|&k| choose2(k)).sum();
        let same_pred: u128 = self.cols.iter().map(|&k| choose2(k)).sum();
        let total = choose2(self.n);
        let tp = same_both;
        let fp = same_pred - tp;
        let fn_ = same_truth - tp;
        PairCounts { tp, fp, fn_, tn: total - tp - fp - fn_ }
    }

    /// Adjusted mutual information with arithmetic normalisation, scikit-learn's special
    /// cases: no items or one cluster on both sides is a perfect match (1); one cluster on one
    /// side only is 0; numerator and denominator are kept at least machine epsilon away from 0
    /// with their sign.
    fn ami(&self) -> f64 {
        let (r, c) = (self.rows.len(), self.cols.len());
        if r == c && r <= 1 {
            return 1.0;
        }
        if r == 1 || c == 1 {
            return 0.0;
        }
        let emi = self.expected_mi();
        let normalizer = (entropy(&self.rows, self.n) + entropy(&self.cols, self.n)) / 2.0;
        away_from_zero(self.mi() - emi) / away_from_zero(normalizer - emi)
    }

    /// Mutual information (nats), each cell's term written as scikit-learn writes it and
    /// flushed to 0 below machine epsilon, the compensated sum clipped at 0.
    fn mi(&self) -> f64 {
        let n = self.n as f64;
        let log_n = ln(n);
        let sum = Dd::sum(self.cells.iter().map(|&(i, j, k)| {
            let p = k as f64 / n;
            let outer = (self.rows[i] * self.cols[j]) as f64;
            let term = p * (ln(k as f64) - log_n) + p * (-ln(outer) + log_n + log_n);
            if term.abs() < f64::EPSILON { 0.0 } else { term }
        }));
        sum.max(0.0)
    }

    /// Expected mutual information under the hypergeometric model of random partitions with
    /// these margins (Vinh, Epps and Bailey 2010). Each term's probability is a sum of nine
    /// log-factorials of size up to n ln n: in plain doubles (scikit-learn's `lgamma`) that
    /// sum loses about 1e-12, so it is formed in double-double from a table of log-factorials
    /// accumulated the same way. The tens of thousands of terms are summed in double-double
    /// too (plain summation drifts by 1e-12 at a few hundred clusters); the result is within
    /// a few 1e-15 of exact.
    fn expected_mi(&self) -> f64 {
        let n = self.n as usize;
        let lf = log_factorials(n);
        let nf = n as f64;
        let log_n = ln(nf);
        let mut emi = Dd::ZERO;
        for &a in &self.rows {
            let a = a as usize;
            for &b in &self.cols {
                let b = b as usize;
                let fixed = Dd::ZERO + lf[a] + lf[b] + lf[n - a] + lf[n - b] - lf[n];
                let (log_a, log_b) = (ln(a as f64), ln(b as f64));
                for nij in (a + b).saturating_sub(n).max(1)..=a.min(b) {
                    let x = nij as f64;
                    let term2 = log_n + ln(x) - log_a - log_b;
                    let gln = fixed - lf[nij] - lf[a - nij] - lf[b - nij] - lf[n + nij - a - b];
                    emi = emi + Dd::from(x / nf * term2 * gln.exp());
                }
            }
        }
        emi.hi
    }
}

/// A double-double: the unevaluated sum `hi + lo` with |lo| ≤ half an ulp of `hi`.
#[derive(Clone, Copy)]
struct Dd {
    hi: f64,
    lo: f64,
}

impl Dd {
    const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };

    /// `self + x` (Knuth's two-sum on the high parts, the low parts added).
    fn add(self, x: Dd) -> Dd {
        let s = self.hi + x.hi;
        let v = s - self.hi;
        let err = (self.hi - (s - v)) + (x.hi - v) + self.lo + x.lo;
        let hi = s + err;
        Dd { hi, lo: err - (hi - s) }
    }

    fn sum(xs: impl IntoIterator<Item = f64>) -> f64 {
        xs.into_iter().fold(Dd::ZERO, |acc, x| acc + Dd::from(x)).hi
    }

    fn exp(self) -> f64 {
        libm::exp(self.hi) * (1.0 + self.lo)
    }
}

impl From<f64> for Dd {
    fn from(hi: f64) -> Dd {
        Dd { hi, lo: 0.0 }
    }
}

impl std::ops::Add for Dd {
    type Output = Dd;
    fn add(self, x: Dd) -> Dd {
        Dd::add(self, x)
    }
}

impl std::ops::Sub for Dd {
    type Output = Dd;
    fn sub(self, x: Dd) -> Dd {
        Dd::add(self, Dd { hi: -x.hi, lo: -x.lo })
    }
}

/// ln(k!) for k in 0..=n, each a double-double sum of ln 1 … ln k.
fn log_factorials(n: usize) -> Vec<Dd> {
    let mut table = Vec::with_capacity(n + 1);
    let mut acc = Dd::ZERO;
    table.push(acc);
    for k in 1..=n {
        acc = acc + Dd::from(ln(k as f64));
        table.push(acc);
    }
    table
}

/// The natural logarithm with the same bits natively and in wasm32 (`f64::ln` calls the
/// platform's libm natively).
fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// Dense indexes of the distinct labels, in label order.
fn index_labels<T: Ord>(labels: &[T]) -> BTreeMap<&T, usize> {
    let mut index: BTreeMap<&T, usize> = labels.iter().map(|l| (l, 0)).collect();
    for (i, v) in index.values_mut().enumerate() {
        *v = i;
    }
    index
}

fn choose2(k: u64) -> u128 {
    let k = u128::from(k);
    k * k.saturating_sub(1) / 2
}

/// Shannon entropy (nats) of cluster sizes summing to `n`; one cluster has none.
fn entropy(sizes: &[u64], n: u64) -> f64 {
    if sizes.len() <= 1 {
        return 0.0;
    }
    let log_n = ln(n as f64);
    -Dd::sum(sizes.iter().map(|&k| k as f64 / n as f64 * (ln(k as f64) - log_n)))
}

/// `x`, or machine epsilon with x's sign when |x| is smaller (0 counts as positive).
fn away_from_zero(x: f64) -> f64 {
    if x < 0.0 { x.min(-f64::EPSILON) } else { x.max(f64::EPSILON) }
}

/// Unordered pairs of items by whether the truth and the prediction put them together.
struct PairCounts {
    tp: u128,
    fp: u128,
    fn_: u128,
    tn: u128,
}

impl PairCounts {
    /// Hubert–Arabie ARI in pair-count form; 1 when no pair is split differently (which
    /// covers fewer than two items).
    fn ari(&self) -> f64 {
        let &PairCounts { tp, fp, fn_, tn } = self;
        if fp == 0 && fn_ == 0 {
            return 1.0;
        }
        let (tp, fp, fn_, tn) = (tp as i128, fp as i128, fn_ as i128, tn as i128);
        let num = 2 * (tp * tn - fn_ * fp);
        let den = (tp + fn_) * (fn_ + tn) + (tp + fp) * (fp + tn);
        num as f64 / den as f64
    }

    /// Pairwise precision, recall and F1 as scikit-learn's `precision_recall_fscore_support`
    /// over the "same cluster" indicator of every pair with `zero_division=1`: a ratio with
    /// nothing to count is 1, so two all-singleton partitions agree perfectly.
    fn precision_recall_f1(&self) -> (f64, f64, f64) {
        let ratio = |num: u128, den: u128| if den == 0 { 1.0 } else { num as f64 / den as f64 };
        let precision = ratio(self.tp, self.tp + self.fp);
        let recall = ratio(self.tp, self.tp + self.fn_);
        let f1 = ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn_);
        (precision, recall, f1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn scores(t: &[u32], p: &[u32]) -> PartitionScores {
        compare_partitions(t, p).unwrap()
    }

    #[test]
    fn known_values_match_scikit_learn() {
        // Values printed by scikit-learn 1.9.1 for these vectors.
        let s = scores(&[0, 0, 1, 1], &[0, 0, 1, 2]);
        assert!((s.ari - 0.5714285714285715).abs() < 1e-15, "{s:?}");
        assert!((s.ami - 0.5714285714285715).abs() < 1e-12, "{s:?}");
        assert_eq!((s.precision, s.recall), (1.0, 0.5));
        let s = scores(&[0, 0, 0, 1, 1, 1], &[0, 1, 2, 0, 1, 2]);
        assert!((s.ari - -0.36363636363636365).abs() < 1e-15, "{s:?}");
        assert!((s.ami - -0.4481886872563352).abs() < 1e-12, "{s:?}");
    }

    #[test]
    fn degenerate_cases_follow_scikit_learn() {
        let empty: [u32; 0] = [];
        let s = scores(&empty, &empty);
        assert_eq!((s.ari, s.ami, s.f1), (1.0, 1.0, 1.0));
        let s = scores(&[7], &[3]);
        assert_eq!((s.ari, s.ami, s.f1), (1.0, 1.0, 1.0));
        // One cluster against several: AMI 0; all singletons on both sides: perfect.
        assert_eq!(scores(&[0, 0, 0], &[0, 1, 2]).ami, 0.0);
        let s = scores(&[0, 1, 2], &[5, 4, 3]);
        assert_eq!((s.ari, s.ami, s.precision, s.recall, s.f1), (1.0, 1.0, 1.0, 1.0, 1.0));
        assert_eq!(compare_partitions(&[1, 2], &[1]), Err(LengthMismatch { truth: 2, pred: 1 }));
    }

    fn partition_pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
        (0usize..40).prop_flat_map(|n| (prop::collection::vec(0u8..6, n), prop::collection::vec(0u8..9, n)))
    }

    proptest! {
        #[test]
        fn identical_partitions_score_one(labels in prop::collection::vec(0u8..8, 0..40)) {
            let s = scores_u8(&labels, &labels);
            prop_assert_eq!((s.ari, s.precision, s.recall, s.f1), (1.0, 1.0, 1.0, 1.0));
            prop_assert!((s.ami - 1.0).abs() < 1e-12, "{:?}", s);
        }

        #[test]
        fn ari_and_ami_are_symmetric((t, p) in partition_pair()) {
            let (a, b) = (scores_u8(&t, &p), scores_u8(&p, &t));
            prop_assert_eq!(a.ari, b.ari);
            prop_assert!((a.ami - b.ami).abs() < 1e-12, "{} vs {}", a.ami, b.ami);
            prop_assert_eq!((a.precision, a.recall, a.f1), (b.recall, b.precision, b.f1));
        }

        #[test]
        fn renaming_labels_changes_nothing((t, p) in partition_pair(), shift in 1u8..200) {
            // A bijection that also reverses label order: names carry no meaning.
            let renamed: Vec<String> = p.iter().map(|&l| format!("r{:03}", 255 - l.wrapping_add(shift))).collect();
            let (a, b) = (scores_u8(&t, &p), compare_partitions(&t, &renamed).unwrap());
            prop_assert_eq!((a.ari, a.precision, a.recall, a.f1), (b.ari, b.precision, b.recall, b.f1));
            prop_assert!((a.ami - b.ami).abs() < 1e-12, "{} vs {}", a.ami, b.ami);
        }
    }

    fn scores_u8(t: &[u8], p: &[u8]) -> PartitionScores {
        compare_partitions(t, p).unwrap()
    }
}
