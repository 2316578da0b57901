//! JSON as RIPEstat-style tools print it: four-space indents, object keys in the order given
//! (serde_json's map sorts them, so ordered objects are lists of pairs here), and arrays of
//! plain values on one line so an AS path reads as `[64530, 64512, 64541]`.

use serde_json::Value;

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone)]
pub enum Json {
    Plain(Value),
    Object(Vec<(&'static str, Json)>),
}

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        Json::Plain(v)
    }
}

/// An ordered object.
pub fn obj(pairs: Vec<(&'static str, Json)>) -> Json {
    Json::Object(pairs)
}

/// A plain value.
pub fn v(value: impl Into<Value>) -> Json {
    Json::Plain(value.into())
}

/// The text of `j`, pretty-printed, with a final newline.
pub fn pretty(j: &Json) -> String {
    let mut out = String::new();
    write(&mut out, j, 0);
    out.push('\n');
    out
}

fn write(out: &mut String, j: &Json, depth: usize) {
    match j {
        Json::Plain(value) => plain(out, value, depth),
        Json::Object(pairs) => {
            let items: Vec<(String, &Json)> =
                pairs.iter().map(|(k, v)| (Value::from(*k).to_string(), v)).collect();
            block(out, '{', '}', depth, items.len(), |out, i| {
                out.push_str(&items[i].0);
                out.push_str(": ");
                write(out, items[i].1, depth + 1);
            });
        }
    }
}

fn plain(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Array(items) if items.iter().all(|x| !x.is_array() && !x.is_object()) => {
            let parts: Vec<String> = items.iter().map(Value::to_string).collect();
            out.push('[');
            out.push_str(&parts.join(", "));
            out.push(']');
        }
        Value::Array(items) => {
            block(out, '[', ']', depth, items.len(), |out, i| plain(out, &items[i], depth + 1))
        }
        Value::Object(map) => {
            let keys: Vec<&String> = map.keys().collect();
            block(out, '{', '}', depth, keys.len(), |out, i| {
                out.push_str(&Value::from(keys[i].as_str()).to_string());
                out.push_str(": ");
                plain(out, &map[keys[i]], depth + 1);
            });
        }
        other => out.push_str(&other.to_string()),
    }
}

fn block(
    out: &mut String,
    open: char,
    close: char,
    depth: usize,
    n: usize,
    mut item: impl FnMut(&mut String, usize),
) {
    out.push(open);
    if n == 0 {
        out.push(close);
        return;
    }
    for i in 0..n {
        out.push('\n');
        out.push_str(&"    ".repeat(depth + 1));
        item(out, i);
        if i + 1 < n {
            out.push(',');
        }
    }
    out.push('\n');
    out.push_str(&"    ".repeat(depth));
    out.push(close);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_keep_their_order_and_scalar_arrays_stay_on_one_line() {
        let j = obj(vec![("z", v(1)), ("a", v(json!({"path": [1, 2], "x": [], "o": [{"k": "v"}]})))]);
        let text = pretty(&j);
        assert_eq!(
            text,
            "{\n    \"z\": 1,\n    \"a\": {\n        \"o\": [\n            {\n                \"k\": \"v\"\n            }\n        ],\n        \"path\": [1, 2],\n        \"x\": []\n    }\n}\n"
        );
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["a"]["path"], json!([1, 2]));
    }
}
