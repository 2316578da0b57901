//! Fuzzes the traffic checker: an arbitrary return value (as JSON text, parsed as a returned
//! str would be, and as any Python value the sandbox can hand back, built from the same bytes)
//! against the truth of a seeded question, arbitrary colour strings, and the id-keyed diff of
//! arbitrary node-link documents: each yields a verdict, never a panic.

use netpress::malt::api::Py;
use netpress::traffic::check;
use netpress::traffic::family::Truth;
use serde_json::{Value, json};

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = check::colour(&text);
    verdicts(&Py::Str(text.to_string()));
    verdicts(&py(&mut &data[..], 0));
    if let Ok(doc) = serde_json::from_str::<Value>(&text) {
        let base =
            json!({"nodes": [{"id": "10.0.0.1", "color": "red", "size": 4, "labels": ["a"]}], "links": []});
        let _ = check::diff(&base, &doc);
        let _ = check::diff(&doc, &doc);
    }
}

/// Parses a returned value and checks it against a few truths of each shape.
fn verdicts(returned: &Py) {
    let Ok((ty, got)) = check::parse(returned, "process_graph") else { return };
    for (ty_want, want, ordered, header) in [
        ("text", json!(3), true, 0),
        ("list", json!([60, 180]), true, 0),
        ("table", json!([["a", "b"], [1, 2]]), false, 1),
        ("table", json!([["1.1.1.1", ["x"], 2]]), true, 0),
        ("new", json!({"nodes": [{"id": "a"}], "links": [{"source": "a", "target": "a"}]}), false, 0),
    ] {
        let t = Truth { ty: ty_want, data: want, ordered, header };
        let _ = check::value_ok(&t, &ty, &got);
    }
}

/// Words a returned dict's keys and strings are drawn from, so that inputs reach the checks
/// past the `type`/`data` shape test.
const WORDS: [&str; 10] = ["type", "data", "text", "list", "table", "graph", "new", "nodes", "links", "id"];

/// A Python value read from the input: a tag byte picks the kind (None, bool, int, float, str,
/// a word, list, tuple, dict), its contents follow; containers nest four deep at most.
fn py(bytes: &mut &[u8], depth: u8) -> Py {
    let Some((&tag, rest)) = bytes.split_first() else { return Py::None };
    *bytes = rest;
    let mut take = |n: usize| {
        let (head, tail) = bytes.split_at(n.min(bytes.len()));
        *bytes = tail;
        head
    };
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    match tag % 9 {
        0 => Py::None,
        1 => Py::Bool(tag & 0x10 != 0),
        2 => Py::Int(word(take(8)) as i64),
        3 => Py::Float(f64::from_bits(word(take(8)))),
        4 => Py::Str(String::from_utf8_lossy(take(usize::from(tag >> 4))).into_owned()),
        5 => Py::Str(WORDS[usize::from(tag >> 4) % WORDS.len()].to_string()),
        _ if depth >= 4 => Py::None,
        kind => {
            let len = usize::from(tag >> 4) % 6;
            match kind {
                6 => Py::List((0..len).map(|_| py(bytes, depth + 1)).collect()),
                7 => Py::Tuple((0..len).map(|_| py(bytes, depth + 1)).collect()),
                _ => Py::Dict((0..len).map(|_| (py(bytes, depth + 1), py(bytes, depth + 1))).collect()),
            }
        }
    }
}
