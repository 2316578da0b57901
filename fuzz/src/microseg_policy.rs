//! Fuzzes the micro-segmentation policy parser: arbitrary text, read as JSON, parsed as a
//! policy's `data` and as a whole answer; a valid policy is scored on a small fixed world.
//! Each yields a policy or a one-line error, never a panic.

use std::sync::OnceLock;

use netpress::microseg::world::{Shape, World, build, setup};
use netpress::microseg::{judge, policy, score};
use serde_json::Value;

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let s = setup(&"microseg-v1-L1-s0-i2-d15-c20".parse().expect("id")).expect("setup");
        build(&s, Shape::Split).expect("world")
    })
}

pub fn fuzz(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else { return };
    if let Ok(p) = policy::parse(&v) {
        assert_eq!(policy::parse(&p.to_json()).as_ref(), Ok(&p));
        if p.rules.len() <= 64 {
            let _ = score::evaluate(world(), world().sets(), &p);
        }
    }
    let _ = judge::envelope(&v, "policy");
}
