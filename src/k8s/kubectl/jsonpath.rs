//! kubectl's JSONPath templates (`-o jsonpath=…`), after client-go's `util/jsonpath`.
//!
//! Templates mix literal text with `{…}` actions: field paths (`.a.b`, `['a']`, `..a`),
//! indexes and slices (`[0]`, `[-1]`, `[1:3]`, `[*]`, `[0,2]`), filters
//! (`[?(@.a=="x")]`, `[?(@.n>1)]`, `[?(@.a)]`), quoted literals (`{"\n"}`) and
//! `{range …}…{end}`. As in kubectl, missing keys print nothing; the results of one action
//! are joined by spaces; maps and lists print as compact JSON. Parsing is a hand-written
//! linear scan: the grammar is small and the crates that exist implement other dialects.

use serde_json::Value;

use crate::k8s::yaml::to_json_compact;

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Field(String),
    /// `.*` or `[*]`.
    All,
    /// `..`: the node and all its descendants.
    Descend,
    Indexes(Vec<i64>),
    Slice(Option<i64>, Option<i64>),
    Filter(Filter),
}

#[derive(Debug, Clone, PartialEq)]
struct Filter {
    left: Vec<Step>,
    /// `None` for an existence test.
    op: Option<(String, Operand)>,
}

#[derive(Debug, Clone, PartialEq)]
enum Operand {
    Lit(Value),
    Path(Vec<Step>),
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Text(String),
    Path(Vec<Step>),
    Range(Vec<Step>, Vec<Node>),
}

/// Parses and runs a template against `root`.
pub fn render(template: &str, root: &Value) -> Result<String, String> {
    let nodes = parse(template).map_err(|e| format!("error parsing jsonpath {template}, {e}"))?;
    let mut out = String::new();
    exec(&nodes, root, &mut out).map_err(|e| {
        format!(
            "error executing jsonpath {template:?}: Error executing template: {e}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{template}"
        )
    })?;
    Ok(out)
}

fn parse(t: &str) -> Result<Vec<Node>, String> {
    let mut stack: Vec<(Vec<Step>, Vec<Node>)> = Vec::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut rest = t;
    while !rest.is_empty() {
        let Some(open) = rest.find('{') else {
            nodes.push(Node::Text(rest.to_string()));
            break;
        };
        if open > 0 {
            nodes.push(Node::Text(rest[..open].to_string()));
        }
        let close = find_close(&rest[open..]).ok_or("unclosed action")? + open;
        let action = rest[open + 1..close].trim();
        rest = &rest[close + 1..];
        if action == "end" {
            let (path, outer) = stack.pop().ok_or("not in range, nothing to end")?;
            let body = std::mem::replace(&mut nodes, outer);
            nodes.push(Node::Range(path, body));
        } else if let Some(path) = action.strip_prefix("range ") {
            stack.push((parse_path(path.trim())?, std::mem::take(&mut nodes)));
        } else if action.starts_with('"') || action.starts_with('\'') {
            nodes.push(Node::Text(unquote(action)?));
        } else {
            nodes.push(Node::Path(parse_path(action)?));
        }
    }
    if !stack.is_empty() {
        return Err("unclosed range".into());
    }
    Ok(nodes)
}

/// The index of the `}` closing the `{` at 0, skipping quoted text.
fn find_close(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '}') => return Some(i),
            _ => {}
        }
    }
    None
}

fn unquote(s: &str) -> Result<String, String> {
    let q = s.chars().next().ok_or("empty literal")?;
    let body = s.strip_prefix(q).and_then(|b| b.strip_suffix(q)).ok_or("unterminated quoted string")?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => return Err("invalid escape at end of string".into()),
        }
    }
    Ok(out)
}

fn parse_path(p: &str) -> Result<Vec<Step>, String> {
    let chars: Vec<char> = p.chars().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    if chars.first() == Some(&'$') {
        i = 1;
    }
    if chars.get(i) == Some(&'@') {
        i += 1;
    }
    while i < chars.len() {
        match chars[i] {
            '.' if chars.get(i + 1) == Some(&'.') => {
                steps.push(Step::Descend);
                i += 2;
                if chars.get(i) != Some(&'[') {
                    i = field(&chars, i, &mut steps)?;
                }
            }
            '.' => i = field(&chars, i + 1, &mut steps)?,
            '[' => {
                let end = bracket_end(&chars, i).ok_or("unclosed array expect ]")?;
                let inner: String = chars[i + 1..end].iter().collect();
                steps.push(bracket(inner.trim())?);
                i = end + 1;
            }
            c if c.is_whitespace() => i += 1,
            c if i == 0 && (c.is_alphanumeric() || c == '_') => i = field(&chars, i, &mut steps)?,
            c => return Err(format!("unrecognized character in action: U+{:04X} '{c}'", c as u32)),
        }
    }
    Ok(steps)
}

fn field(chars: &[char], start: usize, steps: &mut Vec<Step>) -> Result<usize, String> {
    let mut i = start;
    while i < chars.len() && !matches!(chars[i], '.' | '[' | ' ') {
        i += 1;
    }
    let name: String = chars[start..i].iter().collect();
    if name == "*" {
        steps.push(Step::All);
    } else if !name.is_empty() {
        steps.push(Step::Field(name));
    }
    Ok(i)
}

fn bracket_end(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut quote: Option<char> = None;
    for (i, &c) in chars.iter().enumerate().skip(open) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => {
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

fn bracket(inner: &str) -> Result<Step, String> {
    if inner == "*" {
        return Ok(Step::All);
    }
    if let Some(f) = inner.strip_prefix("?(").and_then(|f| f.strip_suffix(')')) {
        return Ok(Step::Filter(parse_filter(f.trim())?));
    }
    if inner.starts_with('\'') || inner.starts_with('"') {
        return Ok(Step::Field(unquote(inner)?));
    }
    if let Some((a, b)) = inner.split_once(':') {
        let num = |s: &str| -> Result<Option<i64>, String> {
            let s = s.split(':').next().unwrap_or("").trim();
            if s.is_empty() {
                Ok(None)
            } else {
                s.parse().map(Some).map_err(|_| format!("invalid array index {s}"))
            }
        };
        return Ok(Step::Slice(num(a)?, num(b)?));
    }
    let idx: Result<Vec<i64>, String> = inner
        .split(',')
        .map(|s| s.trim().parse::<i64>().map_err(|_| format!("invalid array index {s}")))
        .collect();
    idx.map(Step::Indexes)
}

fn parse_filter(f: &str) -> Result<Filter, String> {
    for op in ["==", "!=", "<=", ">=", "<", ">"] {
        if let Some((l, r)) = f.split_once(op) {
            let (l, r) = (l.trim(), r.trim());
            let right = if r.starts_with('"') || r.starts_with('\'') {
                Operand::Lit(Value::String(unquote(r)?))
            } else if r.starts_with('@') || r.starts_with('$') {
                Operand::Path(parse_path(r)?)
            } else if let Ok(n) = r.parse::<f64>() {
                Operand::Lit(serde_json::json!(n))
            } else {
                Operand::Lit(match r {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "nil" | "null" => Value::Null,
                    _ => return Err(format!("unrecognized filter operand {r}")),
                })
            };
            return Ok(Filter { left: parse_path(l)?, op: Some((op.to_string(), right)) });
        }
    }
    Ok(Filter { left: parse_path(f)?, op: None })
}

fn exec(nodes: &[Node], cur: &Value, out: &mut String) -> Result<(), String> {
    for n in nodes {
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Path(steps) => {
                let vals = eval(steps, cur)?;
                let texts: Vec<String> = vals.iter().map(text).collect();
                out.push_str(&texts.join(" "));
            }
            Node::Range(steps, body) => {
                for v in eval(steps, cur)? {
                    exec(body, &v, out)?;
                }
            }
        }
    }
    Ok(())
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        Value::Object(_) | Value::Array(_) => to_json_compact(v),
        other => other.to_string(),
    }
}

fn eval(steps: &[Step], root: &Value) -> Result<Vec<Value>, String> {
    let mut cur = vec![root.clone()];
    for step in steps {
        let mut next = Vec::new();
        for v in &cur {
            apply(step, v, &mut next)?;
        }
        cur = next;
    }
    Ok(cur)
}

fn apply(step: &Step, v: &Value, next: &mut Vec<Value>) -> Result<(), String> {
    match (step, v) {
        (Step::Field(name), Value::Object(m)) => next.extend(m.get(name).cloned()),
        (Step::Field(_), _) => {}
        (Step::All, Value::Object(m)) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            next.extend(keys.into_iter().map(|k| m[k].clone()));
        }
        (Step::All, Value::Array(a)) => next.extend(a.iter().cloned()),
        (Step::All, _) => {}
        (Step::Descend, v) => descend(v, next),
        (Step::Indexes(idx), Value::Array(a)) => {
            for &i in idx {
                let j = if i < 0 { a.len() as i64 + i } else { i };
                match usize::try_from(j).ok().and_then(|j| a.get(j)) {
                    Some(x) => next.push(x.clone()),
                    None => return Err(format!("array index out of bounds: index {i}, length {}", a.len())),
                }
            }
        }
        (Step::Slice(s, e), Value::Array(a)) => {
            let len = a.len() as i64;
            let norm = |x: i64| if x < 0 { (len + x).max(0) } else { x.min(len) };
            let (s, e) = (norm(s.unwrap_or(0)), norm(e.unwrap_or(len)));
            if s < e {
                next.extend(a[s as usize..e as usize].iter().cloned());
            }
        }
        (Step::Filter(f), Value::Array(a)) => {
            for item in a {
                if filter_holds(f, item)? {
                    next.push(item.clone());
                }
            }
        }
        (Step::Indexes(_) | Step::Slice(..) | Step::Filter(_), _) => {}
    }
    Ok(())
}

fn descend(v: &Value, out: &mut Vec<Value>) {
    out.push(v.clone());
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            for k in keys {
                descend(&m[k], out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| descend(x, out)),
        _ => {}
    }
}

fn filter_holds(f: &Filter, item: &Value) -> Result<bool, String> {
    let left = eval(&f.left, item)?;
    let Some((op, right)) = &f.op else { return Ok(!left.is_empty()) };
    let right = match right {
        Operand::Lit(v) => vec![v.clone()],
        Operand::Path(p) => eval(p, item)?,
    };
    let (Some(l), Some(r)) = (left.first(), right.first()) else { return Ok(false) };
    let ord = match (l.as_f64(), r.as_f64()) {
        (Some(a), Some(b)) => a.partial_cmp(&b),
        _ => match (l, r) {
            (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
            _ => (l == r).then_some(std::cmp::Ordering::Equal),
        },
    };
    Ok(match op.as_str() {
        "==" => ord == Some(std::cmp::Ordering::Equal),
        "!=" => ord != Some(std::cmp::Ordering::Equal),
        "<" => ord == Some(std::cmp::Ordering::Less),
        ">" => ord == Some(std::cmp::Ordering::Greater),
        "<=" => matches!(ord, Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)),
        _ => matches!(ord, Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({"items": [
            {"metadata": {"name": "a", "labels": {"app": "x"}}, "spec": {"ports": [{"port": 80}, {"port": 81}]}},
            {"metadata": {"name": "b"}, "spec": {"ports": [{"port": 90}]}}
        ]})
    }

    #[test]
    fn fields_indexes_and_wildcards() {
        let d = doc();
        assert_eq!(render("{.items[*].metadata.name}", &d).unwrap(), "a b");
        assert_eq!(render("{.items[0].spec.ports[-1].port}", &d).unwrap(), "81");
        assert_eq!(render("{.items[0].metadata.labels}", &d).unwrap(), r#"{"app":"x"}"#);
        assert_eq!(render("{.items[1:].metadata.name}", &d).unwrap(), "b");
        assert_eq!(render("{..port}", &d).unwrap(), "80 81 90");
        assert_eq!(render("{.items[0].metadata['name']}", &d).unwrap(), "a");
        assert_eq!(render("{.missing.field}", &d).unwrap(), "");
        assert_eq!(render("name: {.items[0].metadata.name}!", &d).unwrap(), "name: a!");
    }

    #[test]
    fn filters_and_ranges() {
        let d = doc();
        assert_eq!(render(r#"{.items[?(@.metadata.name=="b")].spec.ports[0].port}"#, &d).unwrap(), "90");
        assert_eq!(render("{.items[?(@.metadata.labels)].metadata.name}", &d).unwrap(), "a");
        assert_eq!(render("{.items[*].spec.ports[?(@.port>80)].port}", &d).unwrap(), "81 90");
        assert_eq!(
            render(r#"{range .items[*]}{.metadata.name}{"\t"}{.spec.ports[*].port}{"\n"}{end}"#, &d).unwrap(),
            "a\t80 81\nb\t90\n"
        );
    }

    #[test]
    fn errors() {
        let d = doc();
        assert!(render("{.items[}", &d).unwrap_err().starts_with("error parsing jsonpath"));
        assert!(render("{range .items[*]}", &d).is_err());
        assert!(render("{.items[5]}", &d).unwrap_err().contains("array index out of bounds"));
        assert!(render("{end}", &d).is_err());
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics(t in "[{}\\[\\]().*?@=<>!'\"a-z0-9:, -]{0,60}") {
            let doc = serde_json::json!({"items": [{"a": 1, "b": [1, 2]}, {"a": "x"}]});
            let _ = render(&t, &doc);
        }
    }
}
