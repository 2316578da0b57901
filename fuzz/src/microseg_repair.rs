//! Any bytes as a repair reply: no panic; every parsed command prints as a line that parses
//! back to it; an error is one `error: …` line.

use netpress::microseg::repair::{MAX_LINES, parse_command, parse_reply};

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let batch = parse_reply(&text);
    assert!(batch.commands.len() <= MAX_LINES);
    for c in &batch.commands {
        assert_eq!(parse_command(&c.to_string()).as_ref(), Ok(c));
    }
    if let Some(e) = batch.error {
        let msg = e.to_string();
        assert!(msg.starts_with("error: ") && !msg.contains('\n'), "{msg}");
    }
    for line in text.lines().take(8) {
        let _ = parse_command(line);
    }
}
