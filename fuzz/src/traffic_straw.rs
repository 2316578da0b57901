//! Fuzzes the strawman reply parser (`m=straw`): an arbitrary reply is read or refused with a
//! message, never a panic; whatever it reads, written back in the prompt's form, reads back
//! the same; and a read answer is scored against a small straw task (a graph answer's data
//! goes through the node-link reader and the id-keyed diff).

use std::sync::OnceLock;

use netpress::traffic::straw;
use netpress::traffic::task::{Generated, generate, score_returned};

/// A change question (question 3, labels by prefix) on a ten-node graph, made once.
fn task() -> &'static Generated {
    static TASK: OnceLock<Generated> = OnceLock::new();
    TASK.get_or_init(|| generate(&"traffic-v1-L1-s0-i2-n10-mstraw".parse().unwrap()).unwrap())
}

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(answer) = straw::parse_reply(&text) else { return };
    assert_eq!(straw::parse_reply(&straw::reply_of(&answer)).as_ref(), Ok(&answer), "round trip of {text:?}");
    let _ = score_returned(task(), answer);
}
