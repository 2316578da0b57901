//! Any bytes as an agent reply to a Route episode: parsed or explained, never a panic.

use netpress::registry;

pub fn fuzz(data: &[u8]) {
    let task = registry::generate("route-v1-L1-s0-i0-n2-m1").expect("generates");
    let mut episode = task.start(Some(3));
    let reply = String::from_utf8_lossy(data);
    let out = episode.step(&reply);
    assert!(out.observation.len() <= 20_000);
    let _ = episode.score();
    let _ = episode.panels();
}
