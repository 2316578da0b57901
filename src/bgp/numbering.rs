//! AS numbers: every AS of the emulated Internet has a private ASN, so nothing in a task can be
//! mistaken for (or looked up as) a real network.
//!
//! Tier-1, transit and content ASes take 16-bit private numbers from 64512 upwards in creation
//! order; so do stubs at L1 and L2. At L3 and L4 stubs take 32-bit private numbers from
//! 4200000000 upwards, as many real stub networks now do. The top of the 16-bit private range is
//! reserved: 65500–65519 for route collectors (`rcNN` is 65500+NN) and 65520–65534 for IXP
//! route servers. Because numbers are handed out in creation order, a lower index always means
//! a lower ASN, but code compares ASNs, never indexes, where the order matters.

use std::ops::RangeInclusive;

/// 16-bit private numbers for ordinary ASes.
pub const PRIVATE_16: RangeInclusive<u32> = 64512..=65499;
/// 32-bit private numbers for stubs at L3 and L4.
pub const PRIVATE_32: RangeInclusive<u32> = 4_200_000_000..=4_294_967_294;
/// Route collectors: `rcNN` peers as 65500+NN.
pub const COLLECTORS: RangeInclusive<u32> = 65500..=65519;
/// IXP route servers, one per exchange point.
pub const ROUTE_SERVERS: RangeInclusive<u32> = 65520..=65534;

/// Hands out ASNs in creation order from the two ordinary pools.
#[derive(Debug, Clone)]
pub struct AsnAllocator {
    next16: u32,
    next32: u32,
}

impl Default for AsnAllocator {
    fn default() -> Self {
        AsnAllocator { next16: *PRIVATE_16.start(), next32: *PRIVATE_32.start() }
    }
}

impl AsnAllocator {
    /// The next number, from the 32-bit pool when `wide`; `None` once the pool is spent.
    pub fn next(&mut self, wide: bool) -> Option<u32> {
        let (next, pool) = if wide { (&mut self.next32, PRIVATE_32) } else { (&mut self.next16, PRIVATE_16) };
        if !pool.contains(next) {
            return None;
        }
        let asn = *next;
        *next += 1;
        Some(asn)
    }
}

/// The route server ASN of exchange point `i` (0-based), if there is one.
pub fn route_server_asn(i: usize) -> Option<u32> {
    let asn = ROUTE_SERVERS.start().checked_add(u32::try_from(i).ok()?)?;
    ROUTE_SERVERS.contains(&asn).then_some(asn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_count_up_and_end() {
        let mut a = AsnAllocator::default();
        assert_eq!(a.next(false), Some(64512));
        assert_eq!(a.next(false), Some(64513));
        assert_eq!(a.next(true), Some(4_200_000_000));
        let mut a = AsnAllocator { next16: 65499, next32: 0 };
        assert_eq!(a.next(false), Some(65499));
        assert_eq!(a.next(false), None);
        assert_eq!(a.next(true), None);
    }

    #[test]
    fn route_servers_fit_their_range() {
        assert_eq!(route_server_asn(0), Some(65520));
        assert_eq!(route_server_asn(14), Some(65534));
        assert_eq!(route_server_asn(15), None);
    }
}
