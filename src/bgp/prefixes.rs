//! Address space: every AS's prefixes, handed out by aligned bump allocation.
//!
//! Only IANA special-purpose space is used, so no task ever names a real network's addresses:
//! routed IPv4 comes from 198.18.0.0/15 (RFC 2544, benchmarking; 512 /24s) and, once that is
//! full, from 100.64.0.0/10 (RFC 6598); routed IPv6 from 2001:db8::/32 (RFC 3849,
//! documentation) below 2001:db8:ff00::/40, which is kept for collector and exchange LANs. A
//! bump allocator walks each pool upwards, aligning the cursor to the size of the block asked
//! for, so prefixes never overlap and their order follows creation order.
//!
//! Draws, over the ASes in creation order: the lengths of its IPv4 blocks (Tier-1 one /20;
//! transit one /21 or /22; content one /22 plus 1–4 /24s, one of which is anycast-ready; stub
//! one /23 or /24), then whether it also has IPv6 (the level's share), which gives a /44 to
//! Tier-1, transit and content (content adds one /48 per extra /24) and a /48 to a stub.
//!
//! The LANs are fixed, not drawn: collectors peer on 192.0.2.0/24 and 2001:db8:ffff:c::/64,
//! exchange point `i` on a /26 of 198.51.100.0/24 or 203.0.113.0/24 (RFC 5737) and
//! 2001:db8:ffff:i::/64.

use std::net::{Ipv4Addr, Ipv6Addr};

use ipnet::{IpNet, Ipv4Net, Ipv6Net};

use super::topology::{AsIx, Prefix, Tier};
use crate::error::{Error, Result};
use crate::seed::Stream;

/// The routed IPv4 pools, in order of use.
pub fn ipv4_pools() -> [Ipv4Net; 2] {
    [
        Ipv4Net::new(Ipv4Addr::new(198, 18, 0, 0), 15).expect("valid"),
        Ipv4Net::new(Ipv4Addr::new(100, 64, 0, 0), 10).expect("valid"),
    ]
}

/// The routed IPv6 pool: 2001:db8::/32 up to (not including) 2001:db8:ff00::/40.
pub fn ipv6_pool() -> (Ipv6Net, Ipv6Addr) {
    let pool = Ipv6Net::new(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32).expect("valid");
    (pool, Ipv6Addr::new(0x2001, 0xdb8, 0xff00, 0, 0, 0, 0, 0))
}

/// The collectors' peering LAN: 192.0.2.0/24 and 2001:db8:ffff:c::/64 (RFC 5737, RFC 3849).
pub fn collector_lan() -> (Ipv4Net, Ipv6Net) {
    (
        Ipv4Net::new(Ipv4Addr::new(192, 0, 2, 0), 24).expect("valid"),
        Ipv6Net::new(Ipv6Addr::new(0x2001, 0xdb8, 0xffff, 0xc, 0, 0, 0, 0), 64).expect("valid"),
    )
}

/// Exchange point `i`'s LAN: a /26 of 198.51.100.0/24 for the first four, of 203.0.113.0/24
/// for the next four, and 2001:db8:ffff:i::/64.
pub fn ixp_lan(i: usize) -> Option<(Ipv4Net, Ipv6Net)> {
    let (base, k) = match i {
        0..4 => ([198, 51, 100], i),
        4..8 => ([203, 0, 113], i - 4),
        _ => return None,
    };
    let v4 = Ipv4Net::new(Ipv4Addr::new(base[0], base[1], base[2], 64 * k as u8), 26).ok()?;
    let v6 = Ipv6Net::new(Ipv6Addr::new(0x2001, 0xdb8, 0xffff, i as u16, 0, 0, 0, 0), 64).ok()?;
    Some((v4, v6))
}

/// Bump allocation over both families.
#[derive(Debug, Clone)]
pub struct Allocator {
    pool4: usize,
    next4: u64,
    next6: u128,
}

impl Default for Allocator {
    fn default() -> Self {
        Allocator { pool4: 0, next4: u64::from(u32::from(ipv4_pools()[0].network())), next6: ipv6_base() }
    }
}

fn ipv6_base() -> u128 {
    u128::from(ipv6_pool().0.network())
}

fn align(x: u128, size: u128) -> u128 {
    x.div_ceil(size) * size
}

impl Allocator {
    /// The allocator as it stood after handing out `given` (in allocation order): the next
    /// blocks come after every one of them, so later space (churn's new prefixes) never
    /// overlaps the world's.
    pub fn resume(given: &[Prefix]) -> Allocator {
        let mut a = Allocator::default();
        let pools = ipv4_pools();
        for p in given {
            match p.net {
                IpNet::V4(n) => {
                    a.pool4 = pools.iter().position(|q| q.contains(&n)).unwrap_or(a.pool4);
                    a.next4 = u64::from(u32::from(n.broadcast())) + 1;
                }
                IpNet::V6(n) => a.next6 = u128::from(n.broadcast()) + 1,
            }
        }
        a
    }

    /// The next free IPv4 block of length `len`.
    pub fn v4(&mut self, len: u8) -> Result<Ipv4Net> {
        let size = 1u64 << (32 - u32::from(len));
        let pools = ipv4_pools();
        while self.pool4 < pools.len() {
            let start = align(u128::from(self.next4), u128::from(size)) as u64;
            let end = u64::from(u32::from(pools[self.pool4].broadcast())) + 1;
            if start + size <= end {
                self.next4 = start + size;
                let addr = Ipv4Addr::from(start as u32);
                return Ipv4Net::new(addr, len).map_err(|e| Error::Invalid(e.to_string()));
            }
            self.pool4 += 1;
            if let Some(p) = pools.get(self.pool4) {
                self.next4 = u64::from(u32::from(p.network()));
            }
        }
        Err(Error::Invalid("bgp: routed IPv4 space exhausted".into()))
    }

    /// The next free IPv6 block of length `len`.
    pub fn v6(&mut self, len: u8) -> Result<Ipv6Net> {
        let size = 1u128 << (128 - u32::from(len));
        let start = align(self.next6, size);
        if start.checked_add(size).is_none_or(|end| end > u128::from(ipv6_pool().1)) {
            return Err(Error::Invalid("bgp: routed IPv6 space exhausted".into()));
        }
        self.next6 = start + size;
        Ipv6Net::new(Ipv6Addr::from(start), len).map_err(|e| Error::Invalid(e.to_string()))
    }
}

/// Draws every AS's prefixes (`tiers` in creation order; `ipv6_pct` the level's share).
pub fn draw(s: &mut Stream, tiers: &[Tier], ipv6_pct: u64) -> Result<Vec<Prefix>> {
    let mut alloc = Allocator::default();
    let mut out = Vec::new();
    for (owner, &tier) in tiers.iter().enumerate() {
        let extra = draw_v4(s, &mut alloc, owner, tier, &mut out)?;
        if s.chance(ipv6_pct, 100) {
            draw_v6(&mut alloc, owner, tier, extra, &mut out)?;
        }
    }
    Ok(out)
}

/// The AS's IPv4 blocks; returns how many extra /24s a content AS got.
fn draw_v4(
    s: &mut Stream,
    alloc: &mut Allocator,
    owner: AsIx,
    tier: Tier,
    out: &mut Vec<Prefix>,
) -> Result<usize> {
    let mut push =
        |net: Ipv4Net, anycast_ready: bool| out.push(Prefix { net: IpNet::V4(net), owner, anycast_ready });
    match tier {
        Tier::Tier1 => push(alloc.v4(20)?, false),
        Tier::Transit => push(alloc.v4(21 + s.below(2) as u8)?, false),
        Tier::Stub => push(alloc.v4(23 + s.below(2) as u8)?, false),
        Tier::Content => {
            push(alloc.v4(22)?, false);
            let extra = s.range(1, 4) as usize;
            let anycast = s.index(extra);
            for k in 0..extra {
                push(alloc.v4(24)?, k == anycast);
            }
            return Ok(extra);
        }
    }
    Ok(0)
}

fn draw_v6(
    alloc: &mut Allocator,
    owner: AsIx,
    tier: Tier,
    extra: usize,
    out: &mut Vec<Prefix>,
) -> Result<()> {
    let mut push = |net: Ipv6Net| out.push(Prefix { net: IpNet::V6(net), owner, anycast_ready: false });
    if tier == Tier::Stub {
        push(alloc.v6(48)?);
        return Ok(());
    }
    push(alloc.v6(44)?);
    for _ in 0..extra {
        push(alloc.v6(48)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::Width;

    #[test]
    fn blocks_are_aligned_and_ordered() {
        let mut a = Allocator::default();
        assert_eq!(a.v4(24).unwrap().to_string(), "198.18.0.0/24");
        assert_eq!(a.v4(22).unwrap().to_string(), "198.18.4.0/22");
        assert_eq!(a.v4(24).unwrap().to_string(), "198.18.8.0/24");
        assert_eq!(a.v4(20).unwrap().to_string(), "198.18.16.0/20");
        assert_eq!(a.v6(48).unwrap().to_string(), "2001:db8::/48");
        assert_eq!(a.v6(44).unwrap().to_string(), "2001:db8:10::/44");
    }

    #[test]
    fn ipv4_moves_to_the_second_pool_then_ends() {
        let mut a = Allocator::default();
        assert_eq!(a.v4(15).unwrap().to_string(), "198.18.0.0/15");
        assert_eq!(a.v4(24).unwrap().to_string(), "100.64.0.0/24");
        assert_eq!(a.v4(10).unwrap_err(), Error::Invalid("bgp: routed IPv4 space exhausted".into()));
    }

    #[test]
    fn ipv6_stops_below_the_reserved_slash40() {
        let next6 = u128::from(Ipv6Addr::new(0x2001, 0xdb8, 0xfeff, 0xffff, 0, 0, 0, 0));
        let mut a = Allocator { next6, ..Allocator::default() };
        assert_eq!(a.v6(64).unwrap().to_string(), "2001:db8:feff:ffff::/64");
        assert!(a.v6(48).is_err());
    }

    #[test]
    fn lans_sit_outside_the_routed_pools() {
        let (v4, v6) = collector_lan();
        assert_eq!((v4.to_string(), v6.to_string()), ("192.0.2.0/24".into(), "2001:db8:ffff:c::/64".into()));
        let lan = |i| ixp_lan(i).map(|(a, b)| (a.to_string(), b.to_string()));
        assert_eq!(lan(1), Some(("198.51.100.64/26".into(), "2001:db8:ffff:1::/64".into())));
        assert_eq!(lan(5), Some(("203.0.113.64/26".into(), "2001:db8:ffff:5::/64".into())));
        assert_eq!(lan(8), None);
        let reserved = Ipv6Net::new(ipv6_pool().1, 40).unwrap();
        assert!(reserved.contains(&v6) && reserved.contains(&ixp_lan(0).unwrap().1));
    }

    #[test]
    fn content_has_one_anycast_ready_block() {
        let mut s = Stream::new("p", Width::W32);
        let p = draw(&mut s, &[Tier::Content, Tier::Stub], 100).unwrap();
        assert_eq!(p.iter().filter(|x| x.anycast_ready).count(), 1);
        assert!(p.iter().any(|x| x.owner == 1 && x.net.prefix_len() == 48));
    }
}
