//! YAML in and out, as kubectl does it.
//!
//! Input: kubectl turns YAML into JSON with go-yaml v2, which resolves plain scalars by the
//! YAML 1.1 rules (`yes`, `on`, `0x1F`, `010` are not strings). yaml-rust2 (maintained, pure
//! Rust, builds for wasm32) gives us the event stream with each scalar's style, and the 1.1
//! resolution is done here. Aliases are expanded with a node budget so that a small input
//! cannot blow up.
//!
//! Output: `kubectl get -o yaml` is go-yaml v2's rendering of the JSON object: sorted keys,
//! two-space indentation, sequences not indented under their key, strings quoted only when
//! they would read back as something else, multi-line strings as literal blocks, long plain
//! strings folded at column 80. That exact style is what agents see, so the emitter is
//! hand-written rather than taken from a YAML crate with its own conventions.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::TScalarStyle;

/// Nodes an input may expand to (aliases included).
const MAX_NODES: usize = 100_000;
/// Nesting depth accepted.
const MAX_DEPTH: usize = 200;

enum Frame {
    Seq(Vec<Value>, usize),
    Map(Map<String, Value>, Option<String>, usize),
}

/// Parses a YAML stream into its documents (empty documents are skipped). Errors read like
/// go-yaml's: `yaml: line 3: <reason>`.
pub fn parse_documents(text: &str) -> Result<Vec<Value>, String> {
    let mut parser = Parser::new_from_str(text);
    let mut docs = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: HashMap<usize, Value> = HashMap::new();
    let mut nodes = 0usize;
    let mut doc_value: Option<Value> = None;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            let line = e.marker().line();
            format!("yaml: line {line}: {}", e.info())
        })?;
        let value = match event {
            Event::StreamEnd => break,
            Event::DocumentStart | Event::StreamStart | Event::Nothing => continue,
            Event::DocumentEnd => {
                if let Some(v) = doc_value.take().filter(|v| !v.is_null()) {
                    docs.push(v);
                }
                continue;
            }
            Event::SequenceStart(anchor, _) => {
                check_depth(&stack, mark.line())?;
                stack.push(Frame::Seq(Vec::new(), anchor));
                continue;
            }
            Event::MappingStart(anchor, _) => {
                check_depth(&stack, mark.line())?;
                stack.push(Frame::Map(Map::new(), None, anchor));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq(items, anchor)) => remember(&mut anchors, anchor, Value::Array(items)),
                Some(Frame::Map(map, _, anchor)) => remember(&mut anchors, anchor, Value::Object(map)),
                None => return Err(format!("yaml: line {}: unbalanced collection", mark.line())),
            },
            Event::Alias(id) => {
                let v = anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| format!("yaml: line {}: unknown anchor referenced", mark.line()))?;
                nodes += count_nodes(&v);
                v
            }
            Event::Scalar(text, style, anchor, tag) => {
                let v = resolve_scalar(&text, style, tag.as_ref())
                    .map_err(|e| format!("yaml: line {}: {e}", mark.line()))?;
                remember(&mut anchors, anchor, v)
            }
        };
        nodes += 1;
        if nodes > MAX_NODES {
            return Err("yaml: document is too large (too many nodes after expanding aliases)".into());
        }
        attach(&mut stack, &mut doc_value, value, mark.line())?;
    }
    Ok(docs)
}

fn check_depth(stack: &[Frame], line: usize) -> Result<(), String> {
    if stack.len() >= MAX_DEPTH {
        return Err(format!("yaml: line {line}: exceeded max depth of {MAX_DEPTH}"));
    }
    Ok(())
}

fn remember(anchors: &mut HashMap<usize, Value>, anchor: usize, v: Value) -> Value {
    if anchor > 0 {
        anchors.insert(anchor, v.clone());
    }
    v
}

fn count_nodes(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(count_nodes).sum::<usize>(),
        Value::Object(m) => 1 + m.values().map(count_nodes).sum::<usize>(),
        _ => 1,
    }
}

/// Puts a finished node into its parent (or makes it the document).
fn attach(stack: &mut [Frame], doc: &mut Option<Value>, value: Value, line: usize) -> Result<(), String> {
    match stack.last_mut() {
        None => *doc = Some(value),
        Some(Frame::Seq(items, _)) => items.push(value),
        Some(Frame::Map(map, key, _)) => match key.take() {
            None => *key = Some(key_string(&value, line)?),
            Some(k) => {
                if map.contains_key(&k) {
                    return Err(format!("yaml: line {line}: key {k:?} already set in map"));
                }
                map.insert(k, value);
            }
        },
    }
    Ok(())
}

/// JSON object keys are strings; YAMLToJSON writes scalar keys in their text form.
fn key_string(v: &Value, line: usize) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Ok("null".into()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(format!("yaml: line {line}: invalid map key: a mapping or sequence cannot be a key")),
    }
}

fn is_core_tag(tag: Option<&Tag>, name: &str) -> bool {
    tag.is_some_and(|t| t.suffix == name && (t.handle == "!!" || t.handle == "tag:yaml.org,2002:"))
}

fn resolve_scalar(text: &str, style: TScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if is_core_tag(tag, "str") {
        return Ok(Value::String(text.to_string()));
    }
    let plain = matches!(style, TScalarStyle::Plain);
    let tagged_other = ["int", "float", "bool", "null"].iter().any(|t| is_core_tag(tag, t));
    if !plain && !tagged_other {
        return Ok(Value::String(text.to_string()));
    }
    resolve_plain(text)
}

/// go-yaml v2's resolution of a plain scalar (YAML 1.1).
pub fn resolve_plain(s: &str) -> Result<Value, String> {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Ok(Value::Bool(true));
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Ok(Value::Bool(false));
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF" | ".nan"
        | ".NaN" | ".NAN" => return Err(format!("cannot convert {s} to JSON (not a finite number)")),
        _ => {}
    }
    if let Some(n) = parse_int(s) {
        return Ok(Value::Number(n));
    }
    if is_float(s)
        && let Ok(f) = s.replace('_', "").parse::<f64>()
    {
        return Ok(float_value(f));
    }
    Ok(Value::String(s.to_string()))
}

/// A float as JSON; integral values become integers, as Go's JSON encoder writes them.
fn float_value(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        return Value::Number(Number::from(f as i64));
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

fn parse_int(s: &str) -> Option<Number> {
    let plain: String = s.chars().filter(|c| *c != '_').collect();
    let (neg, body) = match plain.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, plain.strip_prefix('+').unwrap_or(&plain)),
    };
    if body.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x") {
        (h, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        (b, 2)
    } else if let Some(o) = body.strip_prefix("0o") {
        (o, 8)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if neg {
        let v = i64::try_from(magnitude).ok().map(|m| -m).or((magnitude == 1 << 63).then_some(i64::MIN))?;
        Some(Number::from(v))
    } else {
        Some(Number::from(magnitude))
    }
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (underscores allowed).
fn is_float(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '_');
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    let exp_ok = exp.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exp_ok
}

/// Renders a JSON value as kubectl's `-o yaml` does.
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => emit_map(m, 0, &mut out),
        Value::Array(a) if !a.is_empty() => emit_seq(a, 0, &mut out),
        scalar => {
            out.push_str(&inline(scalar, 0));
            out.push('\n');
        }
    }
    out
}

/// One item of a top-level sequence as [`to_yaml`] writes it (`- ` and the item's block at
/// indent 2), so a long list can be written item by item: the items' texts in a row are the
/// sequence's.
pub fn to_yaml_item(v: &Value) -> String {
    let mut out = String::from("- ");
    emit_after_indicator(v, 2, &mut out);
    out
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn sorted_keys(m: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    keys
}

fn emit_map(m: &Map<String, Value>, indent: usize, out: &mut String) {
    for (i, k) in sorted_keys(m).into_iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        emit_entry(k, &m[k], indent, out);
    }
}

/// `key: value` starting at the current position (indentation already written).
fn emit_entry(k: &str, v: &Value, indent: usize, out: &mut String) {
    if !simple_key(k) {
        out.push_str("? ");
        out.push_str(&scalar_text(k, Some(indent + 2)));
        out.push('\n');
        pad(out, indent);
        out.push_str(": ");
        return emit_after_indicator(v, indent + 2, out);
    }
    // A mapping key is a simple key, which go-yaml never breaks across lines.
    let key = scalar_text(k, None);
    out.push_str(&key);
    out.push(':');
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            pad(out, indent + 2);
            emit_map(m, indent + 2, out);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            pad(out, indent);
            emit_seq(a, indent, out);
        }
        Value::String(s) if s.contains('\n') && block_allowed(s) => {
            emit_literal(s, indent + 2, out);
        }
        scalar => {
            out.push(' ');
            out.push_str(&inline(scalar, indent + key.chars().count() + 2));
            out.push('\n');
        }
    }
}

/// libyaml's (so go-yaml's) test for a simple key: at most 128 bytes on one line. Any other
/// key is written `? key` with its value after `: ` on the next line; YAML readers refuse an
/// implicit key over 1024 characters, so a long label key would not read back otherwise.
fn simple_key(k: &str) -> bool {
    k.len() <= 128 && !k.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
}

fn emit_seq(a: &[Value], indent: usize, out: &mut String) {
    for (i, item) in a.iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        out.push_str("- ");
        emit_after_indicator(item, indent + 2, out);
    }
}

/// A value after a `- ` or `? `-key's `: ` indicator, its block indented to `indent`: a
/// collection starts on the indicator's line.
fn emit_after_indicator(v: &Value, indent: usize, out: &mut String) {
    match v {
        Value::Object(m) if !m.is_empty() => emit_map(m, indent, out),
        Value::Array(inner) if !inner.is_empty() => emit_seq(inner, indent, out),
        Value::String(s) if s.contains('\n') && block_allowed(s) => {
            out.pop();
            emit_literal(s, indent, out);
        }
        scalar => {
            out.push_str(&inline(scalar, indent));
            out.push('\n');
        }
    }
}

fn emit_literal(s: &str, indent: usize, out: &mut String) {
    let trailing = s.len() - s.trim_end_matches('\n').len();
    let chomp = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    out.push_str(&format!(" |{chomp}\n"));
    let body = if trailing == 1 { &s[..s.len() - 1] } else { s };
    for line in body.split('\n') {
        if !line.is_empty() {
            pad(out, indent);
            out.push_str(line);
        }
        out.push('\n');
    }
    if trailing > 1 {
        out.pop();
    }
}

/// A literal block is only used when its lines need no escaping or indentation indicator.
fn block_allowed(s: &str) -> bool {
    !s.starts_with([' ', '\n']) && !s.chars().any(|c| c.is_control() && c != '\n') && !s.contains(" \n")
}

/// A scalar on one line, starting at `column`.
fn inline(v: &Value, column: usize) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar_text(s, Some(column)),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
    }
}

/// A string scalar; folded at spaces past column 80 when it starts at `Some(column)`.
fn scalar_text(s: &str, column: Option<usize>) -> String {
    let reads_as_string =
        matches!(resolve_plain(s), Ok(Value::String(_))) && !is_base60_float(s) && !is_timestamp(s);
    if !reads_as_string || s.contains('\n') || has_special(s) {
        return double_quoted(s);
    }
    if plain_allowed(s) { fold(s, column, false) } else { fold(s, column, true) }
}

/// go-yaml v2's timestamp shapes (`2006-1-2`, with `T`/`t`/space and `15:4:5[.frac][zone]`).
/// They read back as strings, but the emitter quotes them, as `creationTimestamp` shows.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let (date, time) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let nums = |t: &str, sep: char, n: usize| {
        let parts: Vec<&str> = t.split(sep).collect();
        parts.len() == n
            && parts.iter().all(|p| (1..=2).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_digit()))
    };
    if !nums(&date[5..], '-', 2) {
        return false;
    }
    let Some(time) = time else { return true };
    let clock_end = time.find(['.', 'Z', '+', '-']).unwrap_or(time.len());
    nums(&time[..clock_end], ':', 3)
}

fn is_base60_float(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (head, frac) = match s.split_once('.') {
        Some((h, f)) => (h, Some(f)),
        None => (s, None),
    };
    let mut parts = head.split(':');
    let first = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    !rest.is_empty()
        && first.starts_with(|c: char| c.is_ascii_digit())
        && first.chars().all(|c| c.is_ascii_digit() || c == '_')
        && rest
            .iter()
            .all(|p| (1..=2).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()) && p < &"60")
        && frac.is_none_or(|f| f.chars().all(|c| c.is_ascii_digit() || c == '_'))
}

/// Characters a plain or single-quoted scalar cannot carry (controls, the BOM, and the
/// Unicode line and paragraph separators YAML treats as line breaks).
fn has_special(s: &str) -> bool {
    s.chars().any(|c| c.is_control() || matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}'))
}

/// libyaml's test for a plain scalar in block context.
fn plain_allowed(s: &str) -> bool {
    if s.is_empty() || s.starts_with(' ') || s.ends_with(' ') || s.starts_with("---") || s.starts_with("...")
    {
        return false;
    }
    let chars: Vec<char> = s.chars().collect();
    let ws_after = |i: usize| chars.get(i + 1).is_none_or(|c| *c == ' ');
    let first = chars[0];
    if "#,[]{}&*!|>'\"%@`".contains(first) {
        return false;
    }
    if matches!(first, '-' | '?' | ':') && ws_after(0) {
        return false;
    }
    for i in 0..chars.len() {
        match chars[i] {
            ':' if ws_after(i) => return false,
            '#' if i > 0 && chars[i - 1] == ' ' => return false,
            _ => {}
        }
    }
    true
}

/// Writes a plain or single-quoted scalar, breaking at a space once past column 80 as the
/// emitter's `best_width` does.
fn fold(s: &str, column: Option<usize>, quoted: bool) -> String {
    let breaks = column.is_some();
    let column = column.unwrap_or(0);
    let mut out = String::new();
    let mut col = column;
    if quoted {
        out.push('\'');
        col += 1;
    }
    let chars: Vec<char> = s.chars().collect();
    // Continuation lines start at the scalar's own column, which is deeper than the block
    // holding it; capping it (at 80) let a deeply nested item's continuation read as a new item.
    let indent = column;
    let mut prev_space = false;
    for (i, &c) in chars.iter().enumerate() {
        if breaks
            && c == ' '
            && !prev_space
            && col > 80
            && chars.get(i + 1).is_some_and(|n| *n != ' ')
            && i > 0
        {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', indent));
            col = indent;
            prev_space = true;
            continue;
        }
        prev_space = c == ' ';
        if quoted && c == '\'' {
            out.push('\'');
        }
        out.push(c);
        col += 1;
    }
    if quoted {
        out.push('\'');
    }
    out
}

fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() && (c as u32) != 0x85 => out.push_str(&format!("\\x{:02X}", c as u32)),
            '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}' => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `json.MarshalIndent(v, "", "    ")` with HTML escaping, as `kubectl -o json` prints.
pub fn to_json_pretty(v: &Value) -> String {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    serde::Serialize::serialize(v, &mut ser).expect("JSON values serialise");
    go_html_escape(&String::from_utf8(buf).expect("serde_json writes UTF-8"))
}

/// Go's compact `json.Marshal` (sorted keys, HTML escaping).
pub fn to_json_compact(v: &Value) -> String {
    go_html_escape(&v.to_string())
}

/// `<`, `>`, `&`, U+2028 and U+2029 only occur inside JSON strings, so escaping them
/// everywhere is exactly Go's `HTMLEscape`.
fn go_html_escape(s: &str) -> String {
    if !s.contains(['<', '>', '&', '\u{2028}', '\u{2029}']) {
        return s.to_string();
    }
    s.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Value {
        parse_documents(text).unwrap().remove(0)
    }

    #[test]
    fn yaml_11_scalars() {
        let v = one(
            "a: yes\nb: off\nc: 0x1F\nd: 010\ne: '80'\nf: 1.0\ng: ~\nh: 1_000\ni: !!str 5\nj: -3\nk: 1e3\nl: grpc\n",
        );
        assert_eq!(
            v,
            json!({"a": true, "b": false, "c": 31, "d": 8, "e": "80", "f": 1, "g": null, "h": 1000, "i": "5", "j": -3, "k": 1000, "l": "grpc"})
        );
    }

    #[test]
    fn multi_document_and_json() {
        let docs = parse_documents("---\na: 1\n---\n---\n[1, 2]\n").unwrap();
        assert_eq!(docs, vec![json!({"a": 1}), json!([1, 2])]);
        assert_eq!(one(r#"{"spec": {"ports": [{"port": 80}]}}"#), json!({"spec": {"ports": [{"port": 80}]}}));
    }

    #[test]
    fn errors_and_limits() {
        assert!(parse_documents("a: [1, 2").unwrap_err().starts_with("yaml: line"));
        assert!(parse_documents("a: 1\na: 2").unwrap_err().contains("already set"));
        let bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n";
        assert!(parse_documents(bomb).unwrap_err().contains("too large"));
        let deep = "[".repeat(500);
        assert!(parse_documents(&deep).is_err());
    }

    #[test]
    fn emits_kubectl_style() {
        let v = json!({
            "metadata": {"annotations": {"x": "{\"a\":1}\n"}, "name": "np", "resourceVersion": "1234", "empty": ""},
            "spec": {"ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "a"}}}], "ports": [{"port": 80, "protocol": "TCP"}]}],
                     "egress": [{}], "podSelector": {}, "policyTypes": ["Ingress", "Egress"], "on": "yes", "star": "*x"}
        });
        let want = "\
metadata:
  annotations:
    x: |
      {\"a\":1}
  empty: \"\"
  name: np
  resourceVersion: \"1234\"
spec:
  egress:
  - {}
  ingress:
  - from:
    - podSelector:
        matchLabels:
          app: a
    ports:
    - port: 80
      protocol: TCP
  \"on\": \"yes\"
  podSelector: {}
  policyTypes:
  - Ingress
  - Egress
  star: '*x'
";
        assert_eq!(to_yaml(&v), want);
        assert_eq!(parse_documents(want).unwrap()[0], v, "emit then parse is the identity");
    }

    #[test]
    fn timestamps_are_quoted_on_output_and_strings_on_input() {
        assert_eq!(to_yaml(&json!({"t": "2025-01-01T01:00:00Z"})), "t: \"2025-01-01T01:00:00Z\"\n");
        assert_eq!(to_yaml(&json!({"t": "2025-01-01"})), "t: \"2025-01-01\"\n");
        assert_eq!(to_yaml(&json!({"t": "2025-x"})), "t: 2025-x\n");
        assert_eq!(one("t: 2025-01-01T01:00:00Z\n"), json!({"t": "2025-01-01T01:00:00Z"}));
    }

    #[test]
    fn folds_long_plain_strings() {
        let long = "word ".repeat(30).trim_end().to_string();
        let text = to_yaml(&json!({ "k": long.clone() }));
        assert!(text.lines().count() > 1);
        assert_eq!(parse_documents(&text).unwrap()[0]["k"], json!(long));
    }

    /// Found by the k8s_yaml fuzzer: a long key was folded like a value and did not read back.
    #[test]
    fn long_keys_stay_on_one_line() {
        let key = format!("w; - -0w; {}- -0e8::; - -0e8:", "x ".repeat(40));
        let text = to_yaml(&json!({ key.clone(): null }));
        assert_eq!(text.lines().count(), 1, "{text}");
        assert_eq!(parse_documents(&text).unwrap()[0], json!({ key: null }));
    }

    /// Found by the k8s_yaml fuzzer: a key past 1024 characters did not read back as a simple
    /// key. Keys over 128 bytes or spanning lines are written `? key` / `: value`, as go-yaml does.
    #[test]
    fn long_and_multiline_keys_are_explicit() {
        let long = format!("example.com/{}", "k".repeat(1100));
        let values = [
            json!(null),
            json!("v"),
            json!({"a": 1, "b": [1, 2]}),
            json!([{"x": 1}, "y"]),
            json!("l1\nl2\n"),
        ];
        for key in [long.as_str(), "two\nlines", &"x".repeat(129)] {
            for v in &values {
                let doc = json!({ "a": 1, key: v.clone(), "z": {key: v.clone()} });
                let text = to_yaml(&doc);
                assert!(text.contains("? "), "{text}");
                assert_eq!(parse_documents(&text).unwrap()[0], doc, "{text}");
            }
        }
        assert_eq!(
            to_yaml(&json!({ "x".repeat(129): {"a": 1} })),
            format!("? {}\n: a: 1\n", "x".repeat(129))
        );
    }

    /// Found by the k8s_yaml fuzzer: a long string nested past column 80 folded onto lines
    /// less indented than its sequence and read back as other items.
    #[test]
    fn deeply_nested_long_strings_read_back() {
        let mut v = json!(format!("A {}", "- ".repeat(60).trim_end()));
        for _ in 0..45 {
            v = json!([v]);
        }
        assert_eq!(parse_documents(&to_yaml(&v)).unwrap()[0], v);
    }

    #[test]
    fn json_matches_go() {
        assert_eq!(
            to_json_pretty(&json!({"a": ["<none>"]})),
            "{\n    \"a\": [\n        \"\\u003cnone\\u003e\"\n    ]\n}"
        );
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| Value::Number(n.into())),
            "\\PC{0,12}".prop_map(Value::String),
            prop::sample::select(vec![
                "yes", "on", "0x1F", "010", "1e3", "~", "", " a", "a: b", "- x", "#c", "'q'", "a\nb\n",
                "x\n\n", "*", "1:20"
            ])
            .prop_map(|s| Value::String(s.to_string())),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z:# -]{0,6}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,200}") {
            let _ = parse_documents(&s);
        }

        #[test]
        fn emit_then_parse_is_the_identity(v in json_value()) {
            prop_assume!(!v.is_null());
            let text = to_yaml(&v);
            let back = parse_documents(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(back.first(), Some(&v), "{}", text);
            let json = to_json_pretty(&v);
            prop_assert_eq!(&parse_documents(&json).unwrap()[0], &v);
        }
    }
}
