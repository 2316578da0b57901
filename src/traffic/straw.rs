//! The `straw` mode (docs/traffic.md, "`m=straw`"): NeMoEval's strawman baseline made a task.
//! The task is the `nemo` mode's (same question, same golden-chain graph S(k−1), same checks);
//! what differs is the interface: NeMoEval's strawman prompt with the graph pasted in as
//! node-link JSON, and a reply that is no program but the answer itself, written after
//! `Answer:` between `'''` and `'''` as the inside of a JSON object `{"type": …, "data": …}`.
//! Here are the prompt, the reply parser (lenient about form, clear about what it refuses, never
//! panicking) and the generation that refuses graphs too large to paste.

use std::io;

use serde::Serialize;
use serde_json::Value;

use super::task::{self, Generated};
use crate::error::{Error, Result};
use crate::id::QueryId;

/// NeMoEval's strawman prompt up to its one input, as its model received it: the prefix and
/// suffix of `app_traffic_analysis/strawman/ai_models.py` joined (a Python string, so the
/// `\n` in `"Answer:\n'''"` reached the model as a newline). Kept byte for byte, trailing
/// spaces included: it is the benchmark's interface, like the question texts.
const HEAD: &str = concat!(
    "\n",
    "Generate the answer of graph processing queries. \n",
    "User will specify the output type. The return_object will be a JSON object with two keys, 'type' and 'data'. \n",
    "The 'type' key should indicate the output format depending on the user query or request. It should be one of 'list', 'table' or 'graph'.\n",
    "The 'data' key should contain the data needed to render the output. If the output type is 'text' then the 'data' key should contain a string. \n",
    "If the output type is 'list' then the 'data' key should contain a list of items.\n",
    "If the output type is 'table' then the 'data' key should contain a list of lists where each list represents a row in the table. \n",
    "If the output type is 'graph' then the 'data' key should contain the updated graph JSON.\n",
    "\n",
    "Remember, your reply should always start with string \"Answer:\n",
    "'''\".\n",
    " Please answer the following question:\n",
    "\n",
    "Answer:\n",
    "'''\n",
    "\"type\": list or table or graph\n",
    "\"data\": LLM output list or table or graph\n",
    "'''\n",
    "\n",
    "Question: ",
);
/// What follows the input in NeMoEval's template.
const TAIL: &str = "\n";
/// The input NeMoEval's strawman built around the graph and the question.
const GRAPH_LEAD: &str = "Here is the original graph data: ";
const QUESTION_LEAD: &str = ". Please answer the following question: ";

/// The most nodes a pasted graph may have: NeMoEval's largest graph (`node50.json`); its prompt
/// is 35–45 kB at the default density (the floats print with up to 17 digits).
pub const MAX_NODES: u64 = 50;

/// Whether an id asks in the strawman's form.
pub fn is_straw(id: &QueryId) -> bool {
    id.knob('m') == Some("straw")
}

/// Generates a `straw` task: the `nemo` task of the same id with `m=nemo` (so the same graph,
/// question and checks), under the straw id. A graph over [`MAX_NODES`] is refused, and so is
/// whatever the `nemo` mode refuses, with its reason.
pub fn generate(id: &QueryId) -> Result<Generated> {
    let n = id.knob('n').and_then(|v| v.parse::<u64>().ok());
    if let Some(n) = n.filter(|&n| n > MAX_NODES) {
        return Err(Error::bad_id(
            &id.to_string(),
            format!(
                "knob n={n}: m=straw pastes the graph into the prompt and takes at most {MAX_NODES} nodes \
                 (NeMoEval's largest graph); m=nemo asks the same questions of larger graphs"
            ),
        ));
    }
    let twin = id.clone().with_knob('m', "nemo", &super::INFO.knob_order());
    let mut g = task::generate(&twin).map_err(|e| as_straw(e, &twin, id))?;
    g.id = id.clone();
    Ok(g)
}

/// The `nemo` twin's refusal told of the straw id.
fn as_straw(e: Error, twin: &QueryId, id: &QueryId) -> Error {
    let note = " (m=straw asks m=nemo's questions)";
    match e {
        Error::BadId { reason, .. } => Error::bad_id(&id.to_string(), reason + note),
        Error::Invalid(m) => Error::Invalid(m.replace(&twin.to_string(), &id.to_string()) + note),
        other => other,
    }
}

/// The prompt: NeMoEval's template around its input, the graph the question is asked of
/// (S(k−1)) as node-link JSON, then the question verbatim. One prompt for every variant: the
/// strawman has no examples and no chain of thought.
pub fn prompt(g: &Generated) -> String {
    format!("{HEAD}{GRAPH_LEAD}{}{QUESTION_LEAD}{}{TAIL}", python_json(&g.graph.to_json()), g.question)
}

/// Whether a prompt is a strawman prompt (for agents that answer by form: the baseline).
pub fn is_prompt(text: &str) -> bool {
    text.starts_with(HEAD)
}

/// JSON as Python's `json.dumps` spaces it (`", "` and `": "`), which is how NeMoEval pasted
/// the graph; the values print as serde_json prints them (floats shortest round-trip).
fn python_json(v: &Value) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PySpacing);
    // Writing a Value into a Vec cannot fail; the output is UTF-8 by construction.
    let _ = v.serialize(&mut ser);
    String::from_utf8(out).unwrap_or_default()
}

struct PySpacing;

impl serde_json::ser::Formatter for PySpacing {
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// A strawman reply giving `answer` (a `{type, data}` object) in the form the prompt asks:
/// `Answer:`, then the object's inside between `'''` lines. Single quotes inside strings are
/// written `\u0027`, so no string can close the block early.
pub fn reply_of(answer: &Value) -> String {
    let json = python_json(answer).replace('\'', "\\u0027");
    let inside = json.strip_prefix('{').and_then(|j| j.strip_suffix('}')).unwrap_or(&json);
    format!("Answer:\n'''\n{inside}\n'''")
}

/// The `{type, data}` object a strawman reply gives, or what is wrong with it.
///
/// The answer is the text after the first `Answer:` that opens a block with `'''` (or a
/// fenced ```` ``` ```` block), up to the block's closing delimiter; text before and after is
/// ignored. A fence inside the block is dropped. The block is the inside of a JSON object, as
/// NeMoEval wrapped it in `{}`; one already in braces is taken as it is. Python literals
/// (single-quoted strings, `True`, `False`, `None`, trailing commas) are read as their JSON.
/// The `type` and `data` themselves are checked by the scoring, as a returned dict's are.
pub fn parse_reply(reply: &str) -> std::result::Result<Value, String> {
    let (reply, _) = crate::reply::bounded(reply);
    let block = answer_block(reply)?;
    read_object(strip_fence(block.trim()))
}

const SAY: &str = "Answer: then the answer between ''' and ''' lines, e.g. Answer:\n'''\n\"type\": \"text\", \
                   \"data\": \"5\"\n'''";

/// The text between the delimiters of the first `Answer:` block.
fn answer_block(reply: &str) -> std::result::Result<&str, String> {
    let mut rest = reply;
    let mut named = false;
    while let Some(at) = rest.find("Answer:") {
        named = true;
        rest = &rest[at + "Answer:".len()..];
        let after = rest.trim_start();
        for delim in ["'''", "```"] {
            if let Some(open) = after.strip_prefix(delim) {
                let open = skip_tag(open);
                return open.find(delim).map(|end| &open[..end]).ok_or_else(|| {
                    format!(
                        "the answer opened with {delim} after Answer: is never closed: end it with {delim}"
                    )
                });
            }
        }
    }
    Err(if named {
        format!("Answer: is not followed by ''': write {SAY}")
    } else {
        format!("the reply has no Answer:; write {SAY}")
    })
}

/// Skips a block's language tag (`'''json`, ```` ```json ````): a word alone on the opening line.
fn skip_tag(s: &str) -> &str {
    let word = s.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
    if word.len() < s.len() && word.trim_start_matches([' ', '\t', '\r']).starts_with('\n') {
        word
    } else {
        s
    }
}

/// The block without a fence around it (a model that fenced its JSON inside the `'''`).
fn strip_fence(body: &str) -> &str {
    let Some(rest) = body.strip_prefix("```") else { return body };
    let rest = rest.split_once('\n').map_or("", |(_, r)| r);
    rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
}

/// The block as a JSON object: wrapped in braces unless it has them; JSON first, then read
/// as Python literals.
fn read_object(body: &str) -> std::result::Result<Value, String> {
    let braced = body.starts_with('{');
    // A line of its own for the opening brace, so line numbers stay the block's.
    let text = if braced { body.to_string() } else { format!("{{\n{body}\n}}") };
    let strict = match serde_json::from_str::<Value>(&text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let relaxed = pythonish(&text);
    if let Ok(v) = serde_json::from_str::<Value>(&relaxed) {
        return Ok(v);
    }
    let line = |l: usize| if braced { l } else { l.saturating_sub(1).max(1) };
    if let Some((word, l)) = bare_word(&relaxed) {
        return Err(format!(
            "the answer is not JSON: {word} (line {}) is not quoted; JSON strings need double quotes, \"{word}\"",
            line(l)
        ));
    }
    let what = strict.to_string();
    let what = what.rfind(" at line ").map_or(what.as_str(), |i| &what[..i]);
    Err(format!(
        "the answer is not JSON{}: {what} at line {} column {}",
        if braced { "" } else { " once wrapped in {}" },
        line(strict.line()),
        strict.column()
    ))
}

/// Python literal syntax as JSON: single-quoted strings double-quoted, `True`, `False`,
/// `None` as `true`, `false`, `null`, commas before a closing bracket dropped. Anything else
/// is copied, so what is not JSON stays not JSON.
fn pythonish(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => string(c, &mut chars, &mut out),
            '}' | ']' => {
                let kept = out.trim_end().len();
                if out[..kept].ends_with(',') {
                    out.truncate(kept - 1);
                }
                out.push(c);
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut word = String::from(c);
                while let Some(&d) = chars.peek().filter(|d| d.is_alphanumeric() || **d == '_') {
                    word.push(d);
                    chars.next();
                }
                out.push_str(match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    w => w,
                });
            }
            c => out.push(c),
        }
    }
    out
}

/// One string opened by `quote` as a JSON string (its opening quote already read).
fn string(quote: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String) {
    out.push('"');
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\'') => out.push('\''),
                Some(d) => {
                    out.push('\\');
                    out.push(d);
                }
                None => out.push('\\'),
            },
            c if c == quote => break,
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The first unquoted word of a JSON text that is not `true`, `false` or `null` (the usual
/// slip: `"type": list`), shortened, with its line.
fn bare_word(text: &str) -> Option<(String, usize)> {
    let (mut line, mut in_string, mut escaped) = (1, false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            _ if in_string => {
                in_string = c != '"' || escaped;
                escaped = c == '\\' && !escaped;
            }
            '"' => in_string = true,
            // A number's exponent is not a word.
            c if c.is_ascii_digit() => {
                while chars.peek().is_some_and(|d| d.is_ascii_alphanumeric() || ['.', '+', '-'].contains(d)) {
                    chars.next();
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut word = String::from(c);
                while let Some(&d) = chars.peek().filter(|d| d.is_alphanumeric() || **d == '_') {
                    word.push(d);
                    chars.next();
                }
                if !["true", "false", "null"].contains(&word.as_str()) {
                    return Some((word.chars().take(40).collect(), line));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(reply: &str) -> String {
        parse_reply(reply).unwrap_err()
    }

    #[test]
    fn the_prompt_is_nemoevals_template_byte_for_byte() {
        // NeMoEval's prefix + suffix with `{input}` where the input goes; any edit (a trimmed
        // trailing space, the `\n` of "Answer:\n'''" written as two characters) moves this.
        let template = format!("{HEAD}{{input}}{TAIL}");
        assert_eq!(
            crate::hash::sha256_hex(template.as_bytes()),
            "ed7f82431d9dc92326f3c1779826f634767dd881ed22e71edcb21be9b065e255"
        );
        assert!(HEAD.contains("queries. \nUser") && HEAD.ends_with("'''\n\nQuestion: "));
        assert_eq!(
            (GRAPH_LEAD, QUESTION_LEAD),
            ("Here is the original graph data: ", ". Please answer the following question: ")
        );
    }

    #[test]
    fn graphs_are_spaced_as_json_dumps_spaces_them() {
        let v = json!({"nodes": [{"id": "10.55.0.1", "labels": ["type=VM"]}], "links": [], "w": 0.5});
        assert_eq!(
            python_json(&v),
            r#"{"links": [], "nodes": [{"id": "10.55.0.1", "labels": ["type=VM"]}], "w": 0.5}"#
        );
    }

    #[test]
    fn a_reply_in_the_prompts_form_is_read() {
        let reply = "Answer:\n'''\n\"type\": \"text\", \"data\": \"50\"\n'''";
        assert_eq!(parse_reply(reply).unwrap(), json!({"type": "text", "data": "50"}));
        let answer = json!({"type": "table", "data": [["it's", 1], ["'''", 2]]});
        assert_eq!(parse_reply(&reply_of(&answer)).unwrap(), answer);
    }

    #[test]
    fn lenient_forms_are_read() {
        let want = json!({"type": "list", "data": [50, 120]});
        for reply in [
            // Text before and after the block.
            "Sure.\nAnswer:\n'''\n\"type\": \"list\", \"data\": [50, 120]\n'''\nThe graph has 50 nodes.",
            // A fence inside the block, with a language tag.
            "Answer:\n'''\n```json\n\"type\": \"list\", \"data\": [50, 120]\n```\n'''",
            // A fence in place of the quotes, the object already braced.
            "Answer:\n```json\n{\"type\": \"list\", \"data\": [50, 120]}\n```",
            // The whole reply fenced.
            "```\nAnswer:\n'''\n\"type\": \"list\", \"data\": [50, 120]\n'''\n```",
            // A Python dict's inside, single quotes and a trailing comma.
            "Answer:\n'''\n'type': 'list', 'data': [50, 120,],\n'''",
            "Answer: '''json\n{'type': 'list', 'data': [50, 120]}'''",
        ] {
            assert_eq!(parse_reply(reply).as_ref(), Ok(&want), "{reply}");
        }
        let py = "Answer:\n'''\n'type': 'text', 'data': {'a': True, 'b': None, 'c': \"it's\", 'd': 'say \"hi\"'}\n'''";
        let data = json!({"a": true, "b": null, "c": "it's", "d": "say \"hi\""});
        assert_eq!(parse_reply(py).unwrap(), json!({"type": "text", "data": data}));
    }

    #[test]
    fn refusals_say_what_is_wrong() {
        assert!(err("The graph has 50 nodes.").starts_with("the reply has no Answer:; write Answer: then"));
        assert!(err("Answer: 50").starts_with("Answer: is not followed by '''"));
        assert_eq!(
            err("Answer:\n'''\n\"type\": \"text\", \"data\": \"50\""),
            "the answer opened with ''' after Answer: is never closed: end it with '''"
        );
        // The prompt's own placeholder copied: the words are named.
        assert_eq!(
            err("Answer:\n'''\n\"type\": list or table or graph\n\"data\": 1\n'''"),
            "the answer is not JSON: list (line 1) is not quoted; JSON strings need double quotes, \"list\""
        );
        assert_eq!(
            err("Answer:\n'''\n\"type\": \"text\",\n\"data\": [1, 2\n'''"),
            "the answer is not JSON once wrapped in {}: expected `,` or `]` at line 3 column 1"
        );
        assert!(
            err("Answer:\n'''{\"type\": \"text\", \"data\": 1}}'''")
                .starts_with("the answer is not JSON: trailing")
        );
        let long = format!("Answer:\n'''\n\"type\": {}\n'''", "é".repeat(500));
        assert!(err(&long).chars().count() < 200);
    }

    #[test]
    fn odd_replies_never_panic() {
        for reply in [
            "",
            "Answer:",
            "Answer:'''",
            "Answer:```",
            "Answer:'''''",
            "Answer:'''\\'''",
            "Answer:'''\"\\",
            "Answer:'''{'''",
            "Answer:''']],,}}'''",
            "Answer:'''é'é'''",
        ] {
            let _ = parse_reply(reply);
        }
        assert_eq!(parse_reply("Answer:''''''"), Ok(json!({})));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    /// A value as Python's `repr` writes it: single quotes, `True`, `None`.
    fn py_repr(v: &Value) -> String {
        match v {
            Value::Null => "None".into(),
            Value::Bool(b) => if *b { "True" } else { "False" }.into(),
            Value::Number(n) => n.to_string(),
            Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
            Value::Array(a) => format!("[{}]", a.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
            Value::Object(o) => {
                let items: Vec<String> = o
                    .iter()
                    .map(|(k, v)| format!("{}: {}", py_repr(&Value::from(k.as_str())), py_repr(v)))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
        }
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            "[a-z0-9 '\"\\\\:{},é\\[\\]]{0,10}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map("[a-z']{1,4}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn replies_never_panic(text in "(Answer:|'''|```|\\{|\\}|\"|'|\\\\|:|,|True|list|1e5|é|\n| )*") {
            let _ = parse_reply(&text);
        }

        #[test]
        fn json_and_python_forms_read_back(ty in "text|list|table|graph", data in value()) {
            let answer = serde_json::json!({"type": ty, "data": data});
            prop_assert_eq!(parse_reply(&reply_of(&answer)).unwrap(), answer.clone());
            let py = py_repr(&answer);
            let reply = format!("Answer:\n'''\n{}\n'''\nDone.", &py[1..py.len() - 1]);
            prop_assert_eq!(parse_reply(&reply).unwrap(), answer);
        }
    }
}
