//! Fuzzes the traffic checker: an arbitrary return value (as JSON text, parsed as a returned
//! str would be) against the truth of a seeded question, arbitrary colour strings, and the
//! id-keyed diff of arbitrary node-link documents: each yields a verdict, never a panic.

use netpress::malt::api::Py;
use netpress::traffic::check;
use netpress::traffic::family::Truth;
use serde_json::{Value, json};

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = check::colour(&text);
    if let Ok((ty, got)) = check::parse(&Py::Str(text.to_string()), "process_graph") {
        for (ty_want, want, ordered, header) in [
            ("text", json!(3), true, 0),
            ("table", json!([["a", "b"], [1, 2]]), false, 1),
            ("table", json!([["1.1.1.1", ["x"], 2]]), true, 0),
        ] {
            let t = Truth { ty: ty_want, data: want, ordered, header };
            let _ = check::value_ok(&t, &ty, &got);
        }
    }
    if let Ok(doc) = serde_json::from_str::<Value>(&text) {
        let base =
            json!({"nodes": [{"id": "10.0.0.1", "color": "red", "size": 4, "labels": ["a"]}], "links": []});
        let _ = check::diff(&base, &doc);
        let _ = check::diff(&doc, &doc);
    }
}
