//! A fast hash for the flow model's membership sets (used client ports, covered combinations).
//!
//! Why not the standard `HashSet`: its SipHash is built to resist chosen keys, which these
//! sets never see (the keys are the model's own small integer tuples), and hashing was about a
//! seventh of building a ~1,000-VM world (docs/microseg.md, "Speed"). The sets are only asked
//! whether they hold a key, never iterated, so the hash cannot change any output.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashSet` with [`Mix`].
pub type FastSet<T> = HashSet<T, BuildHasherDefault<Mix>>;

/// Folds each integer in with a rotate, xor and odd multiply, and finishes with a 64-bit
/// avalanche so that the low bits the table indexes by depend on every input bit.
#[derive(Debug, Default, Clone, Copy)]
pub struct Mix(u64);

impl Mix {
    fn add(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, x: u8) {
        self.add(u64::from(x));
    }

    fn write_u16(&mut self, x: u16) {
        self.add(u64::from(x));
    }

    fn write_u32(&mut self, x: u32) {
        self.add(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        self.add(x);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_was_inserted_and_nothing_else() {
        let mut s: FastSet<(u32, u16, u32, u16)> = FastSet::default();
        for i in 0..5000u32 {
            assert!(s.insert((i, (i % 7) as u16, i / 3, 443)));
        }
        assert!(!s.insert((10, 3, 3, 443)));
        assert!(!s.contains(&(10, 3, 3, 80)));
        assert_eq!(s.len(), 5000);
    }
}
