//! Lenient pieces of agent replies: fenced code blocks and embedded JSON objects.
//!
//! Language models wrap actions in prose, Markdown fences and JSON. Each application decides
//! which piece is its action (Route: the first JSON object with `machine` and `command`; K8s:
//! the first fenced block; MALT: the block defining `process_graph`); this module finds the
//! pieces, in order, with linear scans that cannot panic or loop on any input.

use serde_json::Value;

/// Longest reply considered; the rest is ignored (and said so by the caller).
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// A fenced code block: ```` ```info ```` … ```` ``` ```` (or `~~~`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    /// The info string after the opening fence, trimmed (`bash`, `python`, or empty).
    pub info: String,
    /// The lines between the fences, joined with `\n`, without a trailing newline.
    pub body: String,
    /// False when the reply ended before a closing fence (the body runs to the end).
    pub closed: bool,
}

/// Every fenced block in order. A fence opens with three or more backticks or tildes at the
/// start of a line (after up to three spaces) and closes with a line of at least as many of
/// the same character.
pub fn fenced_blocks(text: &str) -> Vec<Fence> {
    let mut fences = Vec::new();
    let mut open: Option<(char, usize, String, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start_matches(' ');
        let indent_ok = line.len() - trimmed.len() <= 3;
        match &mut open {
            None => {
                if let Some((ch, n)) = fence_marker(trimmed).filter(|_| indent_ok) {
                    let info = trimmed[n..].trim().to_string();
                    if ch == '`' && info.contains('`') {
                        continue; // inline code such as ```x``` on one line
                    }
                    open = Some((ch, n, info, Vec::new()));
                }
            }
            Some((ch, n, _, body)) => {
                let closes = fence_marker(trimmed)
                    .is_some_and(|(c, m)| c == *ch && m >= *n && trimmed[m..].trim().is_empty());
                if closes && indent_ok {
                    let (_, _, info, body) = open.take().expect("open fence");
                    fences.push(Fence { info, body: body.join("\n"), closed: true });
                } else {
                    body.push(line);
                }
            }
        }
    }
    if let Some((_, _, info, body)) = open {
        fences.push(Fence { info, body: body.join("\n"), closed: false });
    }
    fences
}

fn fence_marker(line: &str) -> Option<(char, usize)> {
    let ch = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = line.chars().take_while(|c| *c == ch).count();
    (n >= 3).then_some((ch, n))
}

/// Every top-level balanced `{…}` span that parses as a JSON object, in order.
/// Braces inside JSON strings are skipped; a span that fails to parse is skipped and the scan
/// resumes one character after its opening brace, so nested objects are still found.
pub fn json_objects(text: &str) -> Vec<serde_json::Map<String, Value>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut start = 0;
    while let Some(offset) = text[start..].find('{') {
        let open = start + offset;
        match balanced_end(bytes, open) {
            Some(end) => {
                if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&text[open..=end]) {
                    found.push(map);
                    start = end + 1;
                    continue;
                }
                start = open + 1;
            }
            None => start = open + 1,
        }
    }
    found
}

/// The index of the `}` closing the `{` at `open`, honouring JSON string escapes.
fn balanced_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Cuts a reply to [`MAX_REPLY_BYTES`] on a character boundary; says whether it cut.
pub fn bounded(text: &str) -> (&str, bool) {
    if text.len() <= MAX_REPLY_BYTES {
        return (text, false);
    }
    let mut end = MAX_REPLY_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_fences_with_info_strings() {
        let text = "Let me look.\n```bash\nip route\nip addr\n```\nthen\n~~~\nx\n~~~\n";
        let f = fenced_blocks(text);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0], Fence { info: "bash".into(), body: "ip route\nip addr".into(), closed: true });
        assert_eq!(f[1].body, "x");
    }

    #[test]
    fn unclosed_fence_runs_to_the_end() {
        let f = fenced_blocks("```python\ndef process_graph(G):\n    return 1");
        assert_eq!(f.len(), 1);
        assert!(!f[0].closed);
        assert!(f[0].body.ends_with("return 1"));
    }

    #[test]
    fn longer_fences_contain_shorter_ones() {
        let f = fenced_blocks("````md\n```\ninner\n```\n````");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].body, "```\ninner\n```");
    }

    #[test]
    fn inline_triple_backticks_are_not_fences() {
        assert!(fenced_blocks("use ```ip a``` here").is_empty());
    }

    #[test]
    fn finds_json_objects_in_prose() {
        let text = r#"I think {"machine": "r0", "command": "echo }"} and {bad} then {"a": {"b": 1}}"#;
        let objs = json_objects(text);
        assert_eq!(objs.len(), 2);
        assert_eq!(objs[0]["command"], "echo }");
        assert_eq!(objs[1]["a"]["b"], 1);
    }

    #[test]
    fn nested_object_found_when_outer_is_not_json() {
        let objs = json_objects(r#"{ note: {"machine": "h1", "command": "ip a"} }"#);
        assert_eq!(objs.len(), 1);
        assert_eq!(objs[0]["machine"], "h1");
    }

    #[test]
    fn bounded_cuts_on_a_char_boundary() {
        let long = "é".repeat(MAX_REPLY_BYTES);
        let (cut, was_cut) = bounded(&long);
        assert!(was_cut);
        assert!(cut.len() <= MAX_REPLY_BYTES);
        assert_eq!(bounded("short"), ("short", false));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics(s in "[{}\"\\\\`~a-z \n:]{0,200}") {
            let _ = fenced_blocks(&s);
            let _ = json_objects(&s);
        }

        #[test]
        fn finds_an_embedded_object(prefix in "[a-z .]{0,30}", cmd in "[a-z {}\"]{0,20}") {
            let obj = serde_json::json!({"machine": "r0", "command": cmd});
            let text = format!("{prefix}{obj} trailing");
            let found = json_objects(&text);
            prop_assert_eq!(&found[0]["command"], &serde_json::Value::String(cmd));
        }
    }
}
