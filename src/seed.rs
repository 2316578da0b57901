//! Seeded randomness with value-stable draws.
//!
//! Every task is generated from its own RNG: ChaCha20 keyed by the SHA-256 of a seed-material
//! string (by default [`crate::id::QueryId::seed_material`], e.g.
//! `netpress|route|v1|L2|s42|i7`). The same string gives the same stream on every machine,
//! natively and in wasm32, with no clock and no OS entropy.
//!
//! `rand`'s distributions (`gen_range`, `choose`, `shuffle`) are not promised to keep their
//! values across versions, so generators never call them. They draw through [`Stream`], whose
//! integer sampler is written down here and pinned by tests:
//!
//! `below(n)`: take the next raw word `x` (`next_u32`, or `next_u64` for a 64-bit stream);
//! reject it while `x >= n * floor(2^w / n)`; return `x mod n`.
//!
//! Every other draw (ranges, choices, weighted picks, subsets, coin flips) is built on `below`.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

/// Width of the raw words [`Stream::below`] draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// `next_u32`; `below(n)` needs `n <= 2^32`. Route and K8s generators.
    W32,
    /// `next_u64`. MALT generator.
    W64,
}

/// A generator's random stream.
#[derive(Debug, Clone)]
pub struct Stream {
    rng: ChaCha20Rng,
    width: Width,
}

/// SHA-256 of `material`, the 32-byte ChaCha20 seed.
pub fn seed_bytes(material: &str) -> [u8; 32] {
    Sha256::digest(material.as_bytes()).into()
}

impl Stream {
    /// The stream for a seed-material string.
    pub fn new(material: &str, width: Width) -> Self {
        Stream { rng: ChaCha20Rng::from_seed(seed_bytes(material)), width }
    }

    /// The raw RNG, for callers that need words rather than draws.
    pub fn rng(&mut self) -> &mut ChaCha20Rng {
        &mut self.rng
    }

    /// Uniform in `0..n`. Panics only if `n == 0` (a generator bug, never agent input).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        // The bound n * floor(2^w / n), worked out in u64 (`None`: 2^w itself, every word
        // accepted). The u128 arithmetic this replaces cost two 128-bit divisions a draw, and
        // trace generation draws millions of times (docs/microseg.md, "Speed"); the values are
        // the same (`below_matches_the_u128_formula` checks them).
        let limit = match self.width {
            Width::W32 => {
                assert!(n <= 1 << 32, "below({n}) on a 32-bit stream");
                Some(n * ((1u64 << 32) / n))
            }
            // 2^64 = q * n + r + 1, so floor(2^64 / n) is q + 1 when r + 1 = n, else q.
            Width::W64 => (u64::MAX % n != n - 1).then(|| n * (u64::MAX / n)),
        };
        loop {
            let x = match self.width {
                Width::W32 => u64::from(self.rng.next_u32()),
                Width::W64 => self.rng.next_u64(),
            };
            if limit.is_none_or(|l| x < l) {
                return x % n;
            }
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        assert!(lo <= hi, "range({lo}, {hi})");
        lo + self.below(hi - lo + 1)
    }

    /// A uniform index into a slice of length `len`.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// A uniform element.
    pub fn choose<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// An index drawn with integer weights: `below(sum)` walked over the cumulative weights.
    pub fn weighted(&mut self, weights: &[u64]) -> usize {
        let total: u64 = weights.iter().sum();
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        unreachable!("x < total")
    }

    /// True with probability `num/den`: `below(den) < num`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// `k` distinct indexes of `0..n` by a partial Fisher–Yates shuffle, in draw order:
    /// for `i` in `0..k`, swap position `i` with `i + below(n - i)`.
    pub fn subset(&mut self, n: usize, k: usize) -> Vec<usize> {
        assert!(k <= n, "subset({n}, {k})");
        let mut pool: Vec<usize> = (0..n).collect();
        for i in 0..k {
            let j = i + self.index(n - i);
            pool.swap(i, j);
        }
        pool.truncate(k);
        pool
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_is_sha256_of_material() {
        let hex: String = seed_bytes("abc").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    /// Pins our draws for fixed materials (tests/data/core_golden.json, also checked in wasm):
    /// any change to the RNG crate, the seeding or the sampler shows up here.
    #[test]
    fn golden_draws() {
        let golden: serde_json::Value =
            serde_json::from_str(include_str!("../tests/data/core_golden.json")).unwrap();
        for case in golden["draws"].as_array().unwrap() {
            let width = if case["width"] == 32 { Width::W32 } else { Width::W64 };
            let mut s = Stream::new(case["material"].as_str().unwrap(), width);
            let n = case["below"].as_u64().unwrap();
            let draws: Vec<u64> = (0..8).map(|_| s.below(n)).collect();
            let expected: Vec<u64> = serde_json::from_value(case["values"].clone()).unwrap();
            assert_eq!(draws, expected);
        }
    }

    #[test]
    fn below_covers_its_range_only() {
        for width in [Width::W32, Width::W64] {
            let mut s = Stream::new("cover", width);
            let mut seen = [0u32; 7];
            for _ in 0..7000 {
                seen[s.below(7) as usize] += 1;
            }
            assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
            assert_eq!(s.below(1), 0);
        }
    }

    #[test]
    fn below_accepts_powers_of_two_and_extremes() {
        let mut s = Stream::new("pow", Width::W64);
        for n in [1u64, 2, 1 << 63, u64::MAX] {
            assert!(s.below(n) < n);
        }
        let mut s = Stream::new("pow", Width::W32);
        assert!(s.below(1 << 32) < 1 << 32);
    }

    /// `below` as first written, in u128 arithmetic: the specification the u64 version keeps.
    fn below_u128(s: &mut Stream, n: u64) -> u64 {
        let bits = if s.width == Width::W32 { 32 } else { 64 };
        let limit = u128::from(n) * ((1u128 << bits) / u128::from(n));
        loop {
            let x = if bits == 32 { u128::from(s.rng.next_u32()) } else { u128::from(s.rng.next_u64()) };
            if x < limit {
                return (x % u128::from(n)) as u64;
            }
        }
    }

    #[test]
    fn below_matches_the_u128_formula() {
        let mut ns: Vec<u64> = (1..=300).collect();
        ns.extend([1000, 1 << 20, (1 << 31) + 1, 3 << 30, u64::from(u32::MAX), 1 << 32]);
        let wide = [(1 << 32) + 1, 1 << 63, (1 << 63) + 1, u64::MAX / 3, u64::MAX - 1, u64::MAX];
        for width in [Width::W32, Width::W64] {
            let (mut a, mut b) = (Stream::new("u128", width), Stream::new("u128", width));
            let extra: &[u64] = if width == Width::W64 { &wide } else { &[] };
            for &n in ns.iter().chain(extra) {
                for _ in 0..20 {
                    assert_eq!(a.below(n), below_u128(&mut b, n), "below({n}), {width:?}");
                }
            }
        }
    }

    #[test]
    fn subset_is_distinct_and_in_range() {
        let mut s = Stream::new("subset", Width::W32);
        let pick = s.subset(10, 4);
        assert_eq!(pick.len(), 4);
        let mut sorted = pick.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 4);
        assert!(pick.iter().all(|&i| i < 10));
        assert_eq!(s.subset(3, 3).len(), 3);
    }

    #[test]
    fn weighted_respects_zero_weights() {
        let mut s = Stream::new("w", Width::W32);
        for _ in 0..200 {
            assert_ne!(s.weighted(&[2, 0, 1]), 1);
        }
    }

    #[test]
    fn same_material_same_stream() {
        let a: Vec<u64> = {
            let mut s = Stream::new("x", Width::W32);
            (0..16).map(|_| s.range(3, 9)).collect()
        };
        let mut s = Stream::new("x", Width::W32);
        let b: Vec<u64> = (0..16).map(|_| s.range(3, 9)).collect();
        assert_eq!(a, b);
    }
}
