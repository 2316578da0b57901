//! IPv4 text forms as the emulated tools read them.
//!
//! Prefixes are [`ipnet::Ipv4Net`]; this module only holds the parsing rules that differ
//! between tools: iproute2 accepts short and octal/hex forms (`10/8`, `0x0a.1`), iptables masks
//! host bits and takes dotted masks, net-tools and ping take plain dotted quads.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

/// iproute2's `get_addr_ipv4`: up to four `strtoul(…, 0)` parts joined by dots, missing parts
/// zero (`10` is 10.0.0.0). Hand-written because no crate reproduces this C behaviour.
pub fn parse_iproute(text: &str) -> Option<Ipv4Addr> {
    let mut octets = [0u8; 4];
    let mut parts = text.split('.');
    for (i, octet) in octets.iter_mut().enumerate() {
        let Some(part) = parts.next() else { break };
        *octet = u8::try_from(parse_c_ulong(part)?).ok()?;
        if i == 3 && parts.clone().next().is_some() {
            return None;
        }
    }
    if parts.next().is_some() { None } else { Some(Ipv4Addr::from(octets)) }
}

/// `strtoul(s, &end, 0)` that must consume the whole (non-empty) string.
fn parse_c_ulong(s: &str) -> Option<u64> {
    let (digits, radix) = if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (hex, 16)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() || digits.len() > 12 {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// `inet_aton`: one to four `strtoul(…, 0)` parts, the last filling the remaining bytes
/// (`1.2.3` is 1.2.0.3), as net-tools and ping accept them.
pub fn parse_aton(text: &str) -> Option<Ipv4Addr> {
    let parts: Vec<u64> = text.split('.').map(parse_c_ulong).collect::<Option<_>>()?;
    let (last, head) = parts.split_last()?;
    if head.len() > 3 || head.iter().any(|&p| p > 255) {
        return None;
    }
    let tail_bits = 8 * (4 - head.len() as u32);
    if tail_bits < 64 && *last >= 1u64 << tail_bits {
        return None;
    }
    let value = head.iter().fold(0u64, |acc, &p| (acc << 8) | p);
    Some(Ipv4Addr::from(((value << tail_bits) | last) as u32))
}

/// A strict dotted quad (`inet_aton` as ping, ifconfig and route mostly see it).
pub fn parse_dotted(text: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = text.split('.').collect();
    if parts.len() != 4
        || parts.iter().any(|p| p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    text.parse().ok()
}

/// The prefix length of a contiguous netmask.
pub fn mask_len(mask: Ipv4Addr) -> Option<u8> {
    let bits = u32::from(mask);
    let len = bits.leading_ones();
    (bits.checked_shl(len).unwrap_or(0) == 0).then_some(len as u8)
}

/// The netmask of a prefix length.
pub fn len_mask(len: u8) -> Ipv4Addr {
    Ipv4Addr::from(u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0))
}

/// A prefix length or a dotted mask after a slash (iproute2 `get_netmask`).
pub fn parse_len_or_mask(text: &str) -> Option<u8> {
    if text.contains('.') {
        return mask_len(parse_iproute(text)?);
    }
    let len: u8 = text.parse().ok()?;
    (len <= 32 && text.bytes().all(|b| b.is_ascii_digit())).then_some(len)
}

/// iproute2 `A[/P]` with its keyword forms; `None` for anything else. `host_len` is the length
/// used without a slash (32). `default`, `any` and `all` are 0.0.0.0/0.
pub fn parse_iproute_prefix(text: &str) -> Option<Ipv4Net> {
    if matches!(text, "default" | "any" | "all") {
        return Some(Ipv4Net::default());
    }
    let (addr, len) = match text.split_once('/') {
        Some((a, l)) => (parse_iproute(a)?, parse_len_or_mask(l)?),
        None => (parse_iproute(text)?, 32),
    };
    Ipv4Net::new(addr, len).ok()
}

/// Class A/B/C default prefix length, as the kernel gives an address set by `ifconfig`.
pub fn classful_len(addr: Ipv4Addr) -> u8 {
    match addr.octets()[0] {
        0..=127 => 8,
        128..=191 => 16,
        192..=223 => 24,
        _ => 32,
    }
}

/// The text of a prefix as iproute2 prints destinations: a /32 bare, others `a/len`.
pub fn show_prefix(net: Ipv4Net) -> String {
    if net.prefix_len() == 32 {
        net.addr().to_string()
    } else {
        format!("{}/{}", net.addr(), net.prefix_len())
    }
}

/// Whether `net` holds `ip`: `Ipv4Net::contains` with one shift instead of two masks and two
/// comparisons. The packet engine asks this of every route and rule at every hop.
pub fn covers(net: &Ipv4Net, ip: Ipv4Addr) -> bool {
    let differing = u32::from(net.addr()) ^ u32::from(ip);
    differing.checked_shr(32 - u32::from(net.prefix_len())).unwrap_or(0) == 0
}

/// Whether two prefixes share an address (prefixes nest or are apart).
pub fn overlaps(a: &Ipv4Net, b: &Ipv4Net) -> bool {
    covers(a, b.network()) || covers(b, a.network())
}

/// Whether `addr` lies in 127.0.0.0/8.
pub fn is_loopback(addr: Ipv4Addr) -> bool {
    addr.octets()[0] == 127
}

/// Addresses that are never valid packet sources or destinations on the wire.
pub fn is_martian(addr: Ipv4Addr) -> bool {
    let first = addr.octets()[0];
    first == 0 || first >= 224 || addr == Ipv4Addr::BROADCAST
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iproute_accepts_short_and_c_forms() {
        assert_eq!(parse_iproute("10"), Some(Ipv4Addr::new(10, 0, 0, 0)));
        assert_eq!(parse_iproute("192.168.1"), Some(Ipv4Addr::new(192, 168, 1, 0)));
        assert_eq!(parse_iproute("0x0a.010.0.1"), Some(Ipv4Addr::new(10, 8, 0, 1)));
        for bad in ["", "1.", "1..2", "256.0.0.0", "1.2.3.4.5", "a.b.c.d", "1.2.3.4/"] {
            assert_eq!(parse_iproute(bad), None, "{bad}");
        }
    }

    #[test]
    fn prefixes_and_masks() {
        let p = parse_iproute_prefix("192.168.1.7/24").unwrap();
        assert_eq!((p.addr(), p.prefix_len()), (Ipv4Addr::new(192, 168, 1, 7), 24));
        assert_eq!(parse_iproute_prefix("10.0.0.0/255.0.0.0").unwrap().prefix_len(), 8);
        assert_eq!(parse_iproute_prefix("1.2.3.4").unwrap().prefix_len(), 32);
        assert_eq!(parse_iproute_prefix("default"), Some(Ipv4Net::default()));
        assert_eq!(parse_iproute_prefix("1.2.3.4/33"), None);
        assert_eq!(parse_iproute_prefix("1.2.3.4/255.0.255.0"), None);
        assert_eq!(mask_len(Ipv4Addr::new(255, 255, 255, 0)), Some(24));
        assert_eq!(len_mask(0), Ipv4Addr::UNSPECIFIED);
        assert_eq!(len_mask(32), Ipv4Addr::BROADCAST);
    }

    #[test]
    fn aton_forms() {
        assert_eq!(parse_aton("1.2.3"), Some(Ipv4Addr::new(1, 2, 0, 3)));
        assert_eq!(parse_aton("10"), Some(Ipv4Addr::new(0, 0, 0, 10)));
        assert_eq!(parse_aton("192.168.1.1"), Some(Ipv4Addr::new(192, 168, 1, 1)));
        assert_eq!(parse_aton("300.1.1.1"), None);
        assert_eq!(parse_aton("1.2.3.256"), None);
        assert_eq!(parse_aton("h1"), None);
    }

    #[test]
    fn dotted_is_strict() {
        assert!(parse_dotted("192.168.1.1").is_some());
        for bad in ["192.168.1", "1.2.3.256", "01234.1.1.1", "h1", "1.2.3.-4"] {
            assert!(parse_dotted(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn classful_defaults() {
        assert_eq!(classful_len(Ipv4Addr::new(10, 1, 2, 3)), 8);
        assert_eq!(classful_len(Ipv4Addr::new(172, 16, 0, 1)), 16);
        assert_eq!(classful_len(Ipv4Addr::new(192, 168, 2, 7)), 24);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn parsers_are_total(s in "[0-9a-fx./ ]{0,40}") {
            let _ = parse_iproute(&s);
            let _ = parse_iproute_prefix(&s);
            let _ = parse_aton(&s);
            let _ = parse_dotted(&s);
            let _ = parse_len_or_mask(&s);
        }

        #[test]
        fn dotted_quads_round_trip(a: u8, b: u8, c: u8, d: u8, len in 0u8..=32) {
            let ip = Ipv4Addr::new(a, b, c, d);
            prop_assert_eq!(parse_iproute(&ip.to_string()), Some(ip));
            prop_assert_eq!(parse_aton(&ip.to_string()), Some(ip));
            let net = parse_iproute_prefix(&format!("{ip}/{len}")).unwrap();
            prop_assert_eq!((net.addr(), net.prefix_len()), (ip, len));
            prop_assert_eq!(mask_len(len_mask(len)), Some(len));
        }

        #[test]
        fn covers_is_contains(net: u32, len in 0u8..=32, ip: u32) {
            let net = Ipv4Net::new(Ipv4Addr::from(net), len).unwrap();
            for ip in [Ipv4Addr::from(ip), net.network(), net.broadcast(), net.addr()] {
                prop_assert_eq!(covers(&net, ip), net.contains(&ip));
            }
        }
    }
}
