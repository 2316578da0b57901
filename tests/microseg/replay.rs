//! The replay membership rule: the plurality rule with its tie, and a reused address that a
//! /32 rule still admits (counted in FAR) while its old group membership lapses.

use netpress::flows::tenant::dotted;
use netpress::microseg::allow::Compiled;
use netpress::microseg::policy::parse;
use netpress::microseg::score::evaluate;
use netpress::microseg::world::{Shape, World, build, setup};
use serde_json::json;

fn world() -> World {
    build(&setup(&"microseg-v1-L3-s1-i2".parse().unwrap()).unwrap(), Shape::Split).unwrap()
}

/// A VM created in the hidden window at an address whose old VM had another role.
fn reused(w: &World) -> (u32, u32) {
    for &v in &w.test_vms {
        let vm = &w.trace.vms[v as usize];
        let old =
            w.trace.vms.iter().position(|o| o.ip == vm.ip && o.stop_ms == w.vis_end && o.role != vm.role);
        if let (true, Some(o)) = (vm.start_ms >= w.vis_end, old) {
            return (v, o as u32);
        }
    }
    panic!("an L3 world reuses an address");
}

#[test]
fn a_new_vm_joins_the_plurality_role_groups_and_ties_go_to_the_smaller_name() {
    let w = world();
    let (new, _) = reused(&w);
    let role = w.role_name(new).to_string();
    let holder = |name: &str| {
        w.visible
            .iter()
            .copied()
            .find(|&v| w.role_name(v) == name && w.holder(w.trace.vms[v as usize].ip) == Some(v))
            .unwrap()
    };
    let same = holder(&role);
    let other_name =
        w.tenant.roles.iter().map(|r| r.name.clone()).find(|n| *n != role && n.starts_with("hub.")).unwrap();
    let other = holder(&other_name);
    let ip = |v: u32| dotted(w.trace.vms[v as usize].ip);
    let p =
        parse(&json!({"groups": {"tie": [ip(same), ip(other)], "mine": [ip(same)], "theirs": [ip(other)]},
                          "rules": [], "default": "deny"}))
        .unwrap();
    let c = Compiled::new(&p, &w);
    let mut want = vec!["mine"];
    if role < other_name {
        want.push("tie");
    }
    want.sort();
    assert_eq!(c.groups_of(new), want, "{role} vs {other_name}");
    assert_eq!(c.groups_of(same), vec!["mine", "tie"]);
}

#[test]
fn a_reused_address_keeps_cidr_rights_but_not_its_old_groups() {
    let w = world();
    let (new, old) = reused(&w);
    let sets = w.sets();
    let addr = w.trace.vms[new as usize].ip;
    let key = sets
        .a
        .iter()
        .find(|k| k.s.ip == addr || k.d.ip == addr)
        .expect("an attack key on the reused address");
    let cidr = |ip: u32| format!("{}/32", dotted(ip));
    let proto = if key.proto == 17 { "udp" } else { "tcp" };
    let p = parse(&json!({"rules": [{"src": cidr(key.s.ip), "dst": cidr(key.d.ip), "proto": proto, "ports": key.port.to_string()}],
                          "default": "deny"}))
    .unwrap();
    let m = evaluate(&w, sets, &p);
    assert!(m.far.hit >= 1, "{:?}", m.lines);
    assert!(m.lines.iter().any(|l| l.starts_with("rule 1 admits attack key")), "{:?}", m.lines);
    let g = parse(&json!({"groups": {"old": [dotted(addr)]}, "rules": [], "default": "deny"})).unwrap();
    let c = Compiled::new(&g, &w);
    assert!(
        c.groups_of(new).is_empty(),
        "the new VM at {} is no member of {}'s group",
        dotted(addr),
        w.role_name(old)
    );
}
