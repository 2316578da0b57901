//! The collectors' files as real MRT (RFC 6396), the bytes `bgpdump -m` would read.
//!
//! A RIB dump is a TABLE_DUMP_V2 PEER_INDEX_TABLE (the collector's BGP identifier, an empty view
//! name, two peers per vantage point: its IPv4 session, then its IPv6 session, both with 4-byte
//! ASNs) followed by one RIB_IPV4_UNICAST or RIB_IPV6_UNICAST record per prefix, in the order
//! the text lists them. An updates file is one BGP4MP_MESSAGE_AS4 record per update, each an
//! UPDATE message with one prefix. Attributes go in type-code order: ORIGIN, AS_PATH (one
//! AS_SEQUENCE of 4-byte ASNs), NEXT_HOP (IPv4), COMMUNITIES, then MP_REACH_NLRI or
//! MP_UNREACH_NLRI for IPv6 (in RIB entries the abbreviated form RFC 6396 §4.3.4 gives: next-hop
//! length and address only). Files are uncompressed. Hand-written because the one maintained
//! writer (bgpkit-parser's encoder) orders RIB entries by a hash map, so its bytes vary from
//! run to run, and it is a large dependency for the browser; the tests read our files back with
//! bgpkit-parser.

use std::net::IpAddr;

use ipnet::IpNet;

use super::bgpdump::{File, UPDATES_SPAN};
use super::view::{community, peer_ip, vp_asn};
use crate::bgp::collectors;
use crate::bgp::task::Task;
use crate::bgp::timeline::VpRoute;

const TABLE_DUMP_V2: u16 = 13;
const PEER_INDEX_TABLE: u16 = 1;
const RIB_IPV4_UNICAST: u16 = 2;
const RIB_IPV6_UNICAST: u16 = 4;
const BGP4MP: u16 = 16;
const BGP4MP_MESSAGE_AS4: u16 = 4;

/// The MRT bytes of `file`.
pub fn bytes(task: &Task, file: File) -> Vec<u8> {
    let mut out = Vec::new();
    match file {
        File::Bview { collector, t } => rib(task, collector, t, &mut out),
        File::Updates { collector, t } => updates(task, collector, t, &mut out),
    }
    out
}

fn record(out: &mut Vec<u8>, t: u64, kind: u16, subtype: u16, body: &[u8]) {
    out.extend_from_slice(&(t as u32).to_be_bytes());
    out.extend_from_slice(&kind.to_be_bytes());
    out.extend_from_slice(&subtype.to_be_bytes());
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(body);
}

fn ip_bytes(ip: IpAddr) -> Vec<u8> {
    match ip {
        IpAddr::V4(a) => a.octets().to_vec(),
        IpAddr::V6(a) => a.octets().to_vec(),
    }
}

/// A prefix as NLRI: its length, then the bytes that hold it.
fn nlri(p: IpNet) -> Vec<u8> {
    let len = p.prefix_len();
    let mut b = vec![len];
    b.extend_from_slice(&ip_bytes(p.network())[..usize::from(len).div_ceil(8)]);
    b
}

fn attr(out: &mut Vec<u8>, flags: u8, code: u8, value: &[u8]) {
    if value.len() > 255 {
        out.extend_from_slice(&[flags | 0x10, code]);
        out.extend_from_slice(&(value.len() as u16).to_be_bytes());
    } else {
        out.extend_from_slice(&[flags, code, value.len() as u8]);
    }
    out.extend_from_slice(value);
}

/// The path attributes of a route; `mp` is the IPv6 MP_REACH_NLRI value, if any.
fn attributes(task: &Task, vp: usize, prefix: IpNet, r: &VpRoute, mp: Option<Vec<u8>>) -> Vec<u8> {
    let mut a = Vec::new();
    attr(&mut a, 0x40, 1, &[0]);
    let mut path = Vec::new();
    for chunk in r.path.chunks(255) {
        path.extend_from_slice(&[2, chunk.len() as u8]);
        for asn in chunk {
            path.extend_from_slice(&asn.to_be_bytes());
        }
    }
    attr(&mut a, 0x40, 2, &path);
    if let IpAddr::V4(nh) = peer_ip(task, vp, prefix) {
        attr(&mut a, 0x40, 3, &nh.octets());
    }
    if let Some((x, y)) = community(task, vp, r) {
        let mut c = (x as u16).to_be_bytes().to_vec();
        c.extend_from_slice(&(y as u16).to_be_bytes());
        attr(&mut a, 0xC0, 8, &c);
    }
    if let Some(mp) = mp {
        attr(&mut a, 0x80, 14, &mp);
    }
    a
}

/// Peer index of VP `vp` (its position among the collector's peers) for `prefix`'s family.
fn peer_index(feeding: &[usize], vp: usize, prefix: IpNet) -> u16 {
    let k = feeding.iter().position(|&v| v == vp).unwrap_or(0);
    (2 * k + usize::from(prefix.addr().is_ipv6())) as u16
}

fn rib(task: &Task, collector: usize, t: u64, out: &mut Vec<u8>) {
    let feeding: Vec<usize> = task.world.collectors.feeding(collector).collect();
    let mut table = collectors::bgp_id(collector).octets().to_vec();
    table.extend_from_slice(&0u16.to_be_bytes());
    table.extend_from_slice(&((2 * feeding.len()) as u16).to_be_bytes());
    for &vp in &feeding {
        let v = &task.world.collectors.vps[vp];
        let asn = vp_asn(task, vp).to_be_bytes();
        table.push(0x02);
        table.extend_from_slice(&v.ip4.octets());
        table.extend_from_slice(&v.ip4.octets());
        table.extend_from_slice(&asn);
        table.push(0x03);
        table.extend_from_slice(&v.ip4.octets());
        table.extend_from_slice(&v.ip6.octets());
        table.extend_from_slice(&asn);
    }
    record(out, t, TABLE_DUMP_V2, PEER_INDEX_TABLE, &table);
    let rib = task.timeline.rib_at(t);
    let entries: Vec<_> = rib.iter().filter(|e| feeding.contains(&e.vp)).collect();
    for (seq, group) in (0u32..).zip(entries.chunk_by(|a, b| a.prefix == b.prefix)) {
        let prefix = group[0].prefix;
        let mut body = seq.to_be_bytes().to_vec();
        body.extend_from_slice(&nlri(prefix));
        body.extend_from_slice(&(group.len() as u16).to_be_bytes());
        for e in group {
            let mp = match peer_ip(task, e.vp, prefix) {
                IpAddr::V6(nh) => {
                    let mut m = vec![16];
                    m.extend_from_slice(&nh.octets());
                    Some(m)
                }
                IpAddr::V4(_) => None,
            };
            let attrs = attributes(task, e.vp, prefix, e.route, mp);
            body.extend_from_slice(&peer_index(&feeding, e.vp, prefix).to_be_bytes());
            body.extend_from_slice(&(e.originated as u32).to_be_bytes());
            body.extend_from_slice(&(attrs.len() as u16).to_be_bytes());
            body.extend_from_slice(&attrs);
        }
        let subtype = if prefix.addr().is_ipv4() { RIB_IPV4_UNICAST } else { RIB_IPV6_UNICAST };
        record(out, t, TABLE_DUMP_V2, subtype, &body);
    }
}

fn updates(task: &Task, collector: usize, t: u64, out: &mut Vec<u8>) {
    let feeding: Vec<usize> = task.world.collectors.feeding(collector).collect();
    for u in task.timeline.updates_between(t, t + UPDATES_SPAN).iter().filter(|u| feeding.contains(&u.vp)) {
        let v6 = u.prefix.addr().is_ipv6();
        let peer = peer_ip(task, u.vp, u.prefix);
        let local: IpAddr = if v6 {
            IpAddr::V6(std::net::Ipv6Addr::from(
                u128::from(task.world.collectors.vps[u.vp].ip6) & !0xffff | (200 + collector as u128),
            ))
        } else {
            IpAddr::V4(collectors::bgp_id(collector))
        };
        let (withdrawn, attrs, reach) = match (&u.route, v6) {
            (Some(r), false) => (Vec::new(), attributes(task, u.vp, u.prefix, r, None), nlri(u.prefix)),
            (Some(r), true) => {
                let mut mp = vec![0, 2, 1, 16];
                mp.extend_from_slice(&ip_bytes(peer));
                mp.push(0);
                mp.extend_from_slice(&nlri(u.prefix));
                (Vec::new(), attributes(task, u.vp, u.prefix, r, Some(mp)), Vec::new())
            }
            (None, false) => (nlri(u.prefix), Vec::new(), Vec::new()),
            (None, true) => {
                let mut mp = vec![0, 2, 1];
                mp.extend_from_slice(&nlri(u.prefix));
                let mut a = Vec::new();
                attr(&mut a, 0x80, 15, &mp);
                (Vec::new(), a, Vec::new())
            }
        };
        let mut msg = vec![0xff; 16];
        let len = 19 + 2 + withdrawn.len() + 2 + attrs.len() + reach.len();
        msg.extend_from_slice(&(len as u16).to_be_bytes());
        msg.push(2);
        msg.extend_from_slice(&(withdrawn.len() as u16).to_be_bytes());
        msg.extend_from_slice(&withdrawn);
        msg.extend_from_slice(&(attrs.len() as u16).to_be_bytes());
        msg.extend_from_slice(&attrs);
        msg.extend_from_slice(&reach);
        let mut body = vp_asn(task, u.vp).to_be_bytes().to_vec();
        body.extend_from_slice(&collectors::asn(collector).to_be_bytes());
        body.extend_from_slice(&0u16.to_be_bytes());
        body.extend_from_slice(&(if v6 { 2u16 } else { 1u16 }).to_be_bytes());
        body.extend_from_slice(&ip_bytes(peer));
        body.extend_from_slice(&ip_bytes(local));
        body.extend_from_slice(&msg);
        record(out, u.secs(), BGP4MP, BGP4MP_MESSAGE_AS4, &body);
    }
}
