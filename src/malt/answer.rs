//! The return contract of `process_graph` (docs/malt.md): a dict with `type` ∈ {text, list,
//! table, graph} and `data`, or a JSON string of one. Shapes are validated here, so a
//! malformed return is an observation the agent can act on, never a wrong-but-silent score.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::api::Py;

/// The four answer types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerType {
    Text,
    List,
    Table,
    Graph,
}

impl AnswerType {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerType::Text => "text",
            AnswerType::List => "list",
            AnswerType::Table => "table",
            AnswerType::Graph => "graph",
        }
    }

    fn parse(s: &str) -> Option<AnswerType> {
        [AnswerType::Text, AnswerType::List, AnswerType::Table, AnswerType::Graph]
            .into_iter()
            .find(|t| t.as_str() == s)
    }
}

impl fmt::Display for AnswerType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text answer: a number or a string (kept as given; the checker parses strings).
#[derive(Debug, Clone, PartialEq)]
pub enum Text {
    Number(f64),
    Str(String),
}

/// A validated answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Text(Text),
    List(Vec<String>),
    Table(Vec<(String, f64)>),
    Graph,
}

impl Answer {
    pub fn answer_type(&self) -> AnswerType {
        match self {
            Answer::Text(_) => AnswerType::Text,
            Answer::List(_) => AnswerType::List,
            Answer::Table(_) => AnswerType::Table,
            Answer::Graph => AnswerType::Graph,
        }
    }

    /// One line for observations and explanations.
    pub fn summary(&self) -> String {
        match self {
            Answer::Text(Text::Number(n)) => format!("type text, value {}", fmt_number(*n)),
            Answer::Text(Text::Str(s)) => format!("type text, value {}", quoted(s)),
            Answer::List(l) => format!("type list, {} names", l.len()),
            Answer::Table(t) => format!("type table, {} rows", t.len()),
            Answer::Graph => "type graph".to_string(),
        }
    }
}

/// The most characters of an answer's own text an observation or explanation quotes.
pub const MAX_SHOWN_CHARS: usize = 200;

/// `s` quoted for a message, cut after [`MAX_SHOWN_CHARS`] characters with its full length
/// said, so a huge answer cannot flood the terminal, the record or the explanation.
pub fn quoted(s: &str) -> String {
    match s.char_indices().nth(MAX_SHOWN_CHARS) {
        None => format!("{s:?}"),
        Some((cut, _)) => {
            format!("{:?}… ({} characters in all)", &s[..cut], s.chars().count())
        }
    }
}

/// An answer's name for a message: as given when short, else [`quoted`].
pub fn shown(name: &str) -> String {
    if name.chars().count() <= MAX_SHOWN_CHARS { name.to_string() } else { quoted(name) }
}

/// A number as Python would print an int-valued float or an int.
pub fn fmt_number(n: f64) -> String {
    if n == n.trunc() && n.abs() < 9.0e15 { format!("{}", n as i64) } else { format!("{n}") }
}

const SHAPE: &str = "process_graph must return a dict like {'type': 'text', 'data': 42}, with type one of \
'text', 'list', 'table', 'graph'";

/// Validates the value `process_graph` returned.
pub fn parse(value: Py) -> Result<Answer, String> {
    let value = match value {
        Py::Str(s) => from_json_string(&s)?,
        other => other,
    };
    let Py::Dict(pairs) = value else {
        return Err(format!("{SHAPE}; it returned a {}", value.type_name()));
    };
    let get = |key: &str| pairs.iter().find(|(k, _)| *k == Py::Str(key.into())).map(|(_, v)| v.clone());
    let ty = match get("type") {
        Some(Py::Str(t)) => AnswerType::parse(&t).ok_or_else(|| format!("{SHAPE}; type was {t:?}"))?,
        _ => return Err(format!("{SHAPE}; the 'type' key is missing or not a str")),
    };
    let data = get("data");
    if ty == AnswerType::Graph {
        return Ok(Answer::Graph);
    }
    let data = data.ok_or_else(|| format!("{SHAPE}; the 'data' key is missing"))?;
    match ty {
        AnswerType::Text => text(data).map(Answer::Text),
        AnswerType::List => list(data).map(Answer::List),
        _ => table(data).map(Answer::Table),
    }
}

/// A returned str that holds the dict as JSON.
fn from_json_string(s: &str) -> Result<Py, String> {
    let json: serde_json::Value =
        serde_json::from_str(s).map_err(|_| format!("{SHAPE}; it returned a str that is not JSON"))?;
    Ok(from_json(json))
}

fn from_json(v: serde_json::Value) -> Py {
    use serde_json::Value as J;
    match v {
        J::Null => Py::None,
        J::Bool(b) => Py::Bool(b),
        J::Number(n) => n.as_i64().map_or_else(|| Py::Float(n.as_f64().unwrap_or(f64::NAN)), Py::Int),
        J::String(s) => Py::Str(s),
        J::Array(a) => Py::List(a.into_iter().map(from_json).collect()),
        J::Object(o) => Py::Dict(o.into_iter().map(|(k, v)| (Py::Str(k), from_json(v))).collect()),
    }
}

fn number(v: &Py) -> Option<f64> {
    match v {
        Py::Int(i) => Some(*i as f64),
        Py::Float(f) => Some(*f),
        _ => None,
    }
}

fn text(data: Py) -> Result<Text, String> {
    match data {
        Py::Str(s) => Ok(Text::Str(s)),
        other => number(&other)
            .map(Text::Number)
            .ok_or_else(|| format!("text data must be an int, float or str, got {}", other.type_name())),
    }
}

fn items(data: Py, what: &str) -> Result<Vec<Py>, String> {
    match data {
        Py::List(l) | Py::Tuple(l) => Ok(l),
        other => Err(format!("{what} data must be a list, got {}", other.type_name())),
    }
}

fn list(data: Py) -> Result<Vec<String>, String> {
    items(data, "list")?
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Py::Str(s) => Ok(s),
            other => Err(format!("list item {i} must be a node name (str), got {}", other.type_name())),
        })
        .collect()
}

fn table(data: Py) -> Result<Vec<(String, f64)>, String> {
    let bad = |i: usize| format!("table row {i} must be [name, number]");
    items(data, "table")?
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let cells = items(row, "a table row's").map_err(|_| bad(i))?;
            match cells.as_slice() {
                [Py::Str(name), n] => number(n).map(|n| (name.clone(), n)).ok_or_else(|| bad(i)),
                _ => Err(bad(i)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dict(ty: &str, data: Py) -> Py {
        Py::Dict(vec![(Py::Str("type".into()), Py::Str(ty.into())), (Py::Str("data".into()), data)])
    }

    #[test]
    fn accepts_each_type() {
        assert_eq!(parse(dict("text", Py::Int(15))), Ok(Answer::Text(Text::Number(15.0))));
        assert_eq!(
            parse(dict("list", Py::Tuple(vec![Py::Str("a".into())]))),
            Ok(Answer::List(vec!["a".into()]))
        );
        let row = Py::List(vec![Py::Str("a".into()), Py::Float(1.5)]);
        assert_eq!(parse(dict("table", Py::List(vec![row]))), Ok(Answer::Table(vec![("a".into(), 1.5)])));
        assert_eq!(parse(dict("graph", Py::None)), Ok(Answer::Graph));
        let json = Py::Str(r#"{"type": "text", "data": "15 bps", "updated_graph": 1}"#.into());
        assert_eq!(parse(json), Ok(Answer::Text(Text::Str("15 bps".into()))));
    }

    #[test]
    fn long_text_is_quoted_with_its_length() {
        let huge = "x".repeat(10_000_000);
        let summary = Answer::Text(Text::Str(huge)).summary();
        assert!(summary.len() < 300, "{} bytes", summary.len());
        assert!(summary.ends_with("… (10000000 characters in all)"), "{summary}");
        assert_eq!(quoted("ab\n"), "\"ab\\n\"");
        let exact = "é".repeat(MAX_SHOWN_CHARS);
        assert_eq!(quoted(&exact), format!("{exact:?}"), "at the limit nothing is cut");
        assert_eq!(shown("ju1.a1.m1"), "ju1.a1.m1");
    }

    #[test]
    fn rejects_bad_shapes_with_a_reason() {
        assert!(parse(Py::Int(3)).unwrap_err().contains("returned a int"));
        assert!(parse(dict("number", Py::Int(1))).unwrap_err().contains("\"number\""));
        assert!(parse(dict("text", Py::Bool(true))).unwrap_err().contains("got bool"));
        assert!(parse(dict("list", Py::List(vec![Py::Int(1)]))).unwrap_err().contains("item 0"));
        assert!(
            parse(dict("table", Py::List(vec![Py::List(vec![Py::Int(1)])]))).unwrap_err().contains("row 0")
        );
        assert!(parse(Py::Dict(vec![(Py::Str("type".into()), Py::Str("text".into()))])).is_err());
        assert!(parse(Py::Str("not json".into())).is_err());
    }
}
