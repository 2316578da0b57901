//! Labels, label selectors and the label-query language of `kubectl -l`.
//!
//! Policies select pods, peers and namespaces through `LabelSelector`s; kubectl filters lists
//! with a label query. Both reduce to the same requirements (`=`, `!=`, `in`, `notin`,
//! exists, does-not-exist), so one [`Requirement`] type serves both, and one formatter gives
//! apimachinery's canonical text (`app=adservice`, `k in (a,b)`, `!k`) used by `kubectl get`
//! and `describe`.

use std::collections::BTreeMap;

/// Labels of an object, sorted by key (the order kubectl prints them).
pub type Labels = BTreeMap<String, String>;

/// The operator of one requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    Equals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

/// One requirement of a selector or label query.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Requirement {
    pub key: String,
    pub op: Op,
    /// Sorted and deduplicated, as apimachinery stores them.
    pub values: Vec<String>,
}

impl Requirement {
    pub fn new(key: &str, op: Op, values: &[&str]) -> Self {
        let mut values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        values.sort();
        values.dedup();
        Requirement { key: key.to_string(), op, values }
    }

    /// Whether a label set satisfies this requirement (apimachinery's semantics: `NotIn` and
    /// `!=` hold when the key is absent).
    pub fn matches(&self, labels: &Labels) -> bool {
        let value = labels.get(&self.key);
        match self.op {
            Op::Equals | Op::In => value.is_some_and(|v| self.values.iter().any(|x| x == v)),
            Op::NotEquals | Op::NotIn => value.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            Op::Exists => value.is_some(),
            Op::DoesNotExist => value.is_none(),
        }
    }

    fn render(&self) -> String {
        match self.op {
            Op::Equals => format!("{}={}", self.key, self.values.first().map_or("", String::as_str)),
            Op::NotEquals => format!("{}!={}", self.key, self.values.first().map_or("", String::as_str)),
            Op::In => format!("{} in ({})", self.key, self.values.join(",")),
            Op::NotIn => format!("{} notin ({})", self.key, self.values.join(",")),
            Op::Exists => self.key.clone(),
            Op::DoesNotExist => format!("!{}", self.key),
        }
    }
}

/// A list of requirements, all of which must hold (an empty one matches everything).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector(pub Vec<Requirement>);

impl Selector {
    pub fn matches(&self, labels: &Labels) -> bool {
        self.0.iter().all(|r| r.matches(labels))
    }

    /// apimachinery's `Selector.String()`: requirements sorted by key, joined by commas;
    /// empty for a selector that matches everything.
    pub fn render(&self) -> String {
        let mut reqs = self.0.clone();
        reqs.sort();
        reqs.iter().map(Requirement::render).collect::<Vec<_>>().join(",")
    }

    /// `metav1.FormatLabelSelector`: the rendering, or `<none>` when empty.
    pub fn format(&self) -> String {
        let s = self.render();
        if s.is_empty() { "<none>".to_string() } else { s }
    }
}

/// The text form of a label set: `k=v` pairs sorted by key, comma-separated.
pub fn format_labels(labels: &Labels) -> String {
    labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

/// Parses a label query as `kubectl -l` does: comma-separated requirements
/// `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`.
/// Errors are apimachinery's texts, to be prefixed with `error: ` by the caller.
pub fn parse_query(text: &str) -> Result<Selector, String> {
    let mut reqs = Vec::new();
    for part in split_top_level(text)? {
        let part = part.trim();
        if part.is_empty() {
            if text.trim().is_empty() {
                continue;
            }
            return Err(format!("unable to parse requirement: found '', expected: identifier in {text:?}"));
        }
        reqs.push(parse_requirement(part)?);
    }
    Ok(Selector(reqs))
}

/// Splits on commas outside parentheses.
fn split_top_level(text: &str) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        if !(0..=1).contains(&depth) {
            return Err(format!("unable to parse requirement: unbalanced parentheses in {text:?}"));
        }
    }
    if depth != 0 {
        return Err("unable to parse requirement: found '', expected: ')'".to_string());
    }
    parts.push(&text[start..]);
    Ok(parts)
}

fn parse_requirement(part: &str) -> Result<Requirement, String> {
    if let Some(key) = part.strip_prefix('!') {
        let key = key.trim();
        check_key(key)?;
        return Ok(Requirement::new(key, Op::DoesNotExist, &[]));
    }
    for (token, op) in [("!=", Op::NotEquals), ("==", Op::Equals), ("=", Op::Equals)] {
        if let Some((k, v)) = part.split_once(token) {
            let (k, v) = (k.trim(), v.trim());
            check_key(k)?;
            check_value(v).map_err(|e| format!("unable to parse requirement: {e}"))?;
            return Ok(Requirement::new(k, op, &[v]));
        }
    }
    let words: Vec<&str> = part.splitn(2, char::is_whitespace).collect();
    if words.len() == 1 {
        check_key(words[0])?;
        return Ok(Requirement::new(words[0], Op::Exists, &[]));
    }
    let key = words[0];
    let rest = words[1].trim_start();
    let (op, list) = if let Some(r) = rest.strip_prefix("notin") {
        (Op::NotIn, r)
    } else if let Some(r) = rest.strip_prefix("in") {
        (Op::In, r)
    } else {
        let found = rest.split_whitespace().next().unwrap_or("");
        return Err(format!(
            "unable to parse requirement: found '{found}', expected: in, notin, =, ==, !=, gt, lt"
        ));
    };
    check_key(key)?;
    let list = list.trim();
    let inner = list
        .strip_prefix('(')
        .and_then(|l| l.strip_suffix(')'))
        .ok_or_else(|| format!("unable to parse requirement: found '{list}', expected: '('"))?;
    let values: Vec<&str> = inner.split(',').map(str::trim).collect();
    for v in &values {
        check_value(v).map_err(|e| format!("unable to parse requirement: {e}"))?;
    }
    Ok(Requirement::new(key, op, &values))
}

fn check_key(key: &str) -> Result<(), String> {
    validate_key(key).map_err(|e| format!("unable to parse requirement: invalid label key \"{key}\": {e}"))
}

fn check_value(value: &str) -> Result<(), String> {
    validate_value(value).map_err(|e| format!("invalid label value: \"{value}\": at key: {e}"))
}

const NAME_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, written out: three character classes do not
/// justify a regex engine on this hot path.
fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A lowercase RFC 1123 subdomain (object names, label-key prefixes).
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253
        && !s.is_empty()
        && s.split('.').all(|l| {
            let b = l.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        })
}

/// The API server's check of an object name: the message of a failure, without field path.
pub fn validate_subdomain(s: &str) -> Result<(), String> {
    if s.len() > 253 {
        return Err("must be no more than 253 characters".to_string());
    }
    if is_dns1123_subdomain(s) { Ok(()) } else { Err(SUBDOMAIN_MSG.to_string()) }
}

/// A label key (a qualified name): `[prefix/]name`.
pub fn validate_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if name.is_empty() {
        return Err("name part must be non-empty".to_string());
    }
    if name.len() > 63 {
        return Err("name part must be no more than 63 characters".to_string());
    }
    if !is_name_part(name) {
        return Err(NAME_MSG.to_string());
    }
    match prefix {
        Some("") => Err("prefix part must be non-empty".to_string()),
        Some(p) if !is_dns1123_subdomain(p) => Err(format!("prefix part {SUBDOMAIN_MSG}")),
        _ => Ok(()),
    }
}

/// A label value: empty, or at most 63 characters of the name-part alphabet.
pub fn validate_value(value: &str) -> Result<(), String> {
    if value.len() > 63 {
        return Err("must be no more than 63 characters".to_string());
    }
    if value.is_empty() || is_name_part(value) { Ok(()) } else { Err(VALUE_MSG.to_string()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn requirement_semantics() {
        let l = labels(&[("app", "web"), ("tier", "fe")]);
        assert!(Requirement::new("app", Op::In, &["web", "db"]).matches(&l));
        assert!(!Requirement::new("app", Op::NotIn, &["web"]).matches(&l));
        assert!(Requirement::new("env", Op::NotIn, &["prod"]).matches(&l), "absent key satisfies notin");
        assert!(Requirement::new("env", Op::NotEquals, &["prod"]).matches(&l));
        assert!(Requirement::new("tier", Op::Exists, &[]).matches(&l));
        assert!(Requirement::new("env", Op::DoesNotExist, &[]).matches(&l));
        assert!(!Requirement::new("env", Op::In, &["prod"]).matches(&l));
    }

    #[test]
    fn renders_like_apimachinery() {
        let s = Selector(vec![
            Requirement::new("tier", Op::In, &["b", "a"]),
            Requirement::new("app", Op::Equals, &["adservice"]),
            Requirement::new("x", Op::DoesNotExist, &[]),
        ]);
        assert_eq!(s.format(), "app=adservice,tier in (a,b),!x");
        assert_eq!(Selector::default().format(), "<none>");
    }

    #[test]
    fn parses_queries() {
        let s = parse_query("app in (a, b),!x,tier!=fe,env==prod,k").unwrap();
        assert_eq!(s.render(), "app in (a,b),env=prod,k,tier!=fe,!x");
        assert!(parse_query("").unwrap().0.is_empty());
        assert!(parse_query("app in a").unwrap_err().contains("expected: '('"));
        assert!(parse_query("app foo (a)").unwrap_err().contains("found 'foo'"));
        assert!(parse_query("a=b,").is_err());
        assert!(parse_query("a=-b").unwrap_err().contains("invalid label value"));
    }

    #[test]
    fn validates_keys_and_values() {
        assert!(validate_key("kubernetes.io/metadata.name").is_ok());
        assert!(validate_key("app").is_ok());
        assert!(validate_key("Bad_/x").is_err());
        assert!(validate_key("-x").is_err());
        assert!(validate_key(&"a".repeat(64)).is_err());
        assert!(validate_value("").is_ok());
        assert!(validate_value("a.b_c-d").is_ok());
        assert!(validate_value("a b").is_err());
        assert!(validate_subdomain("adservice").is_ok());
        assert!(validate_subdomain("Ad").is_err());
    }
}
