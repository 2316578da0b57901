//! What an answer looks like, described so that every surface can offer the right input
//! without knowing the application.
//!
//! The CLI's replay files, the web page's answer tabs and the paste box all have to decide
//! the same few things: does a terminal make sense, how does a pasted text split into the
//! replies of successive turns, and what does the box say the answer should look like. If
//! each surface matched on application names, every new application would mean touching
//! them all again; instead an [`AnswerKind`] answers those questions itself, and a new kind
//! of answer is one new variant here.
//!
//! A kind belongs to a task: an application states its usual one ([`crate::app::AppInfo`]),
//! and a task whose family is answered differently says so ([`crate::app::Task::answer_kind`]).
//!
//! The investigation kind is for tasks answered by looking around first (tool calls over
//! several turns) and then committing to one structured final answer, a JSON object under
//! `final_answer` whose fields the task declares. [`AnswerKind::final_answer`] reads and
//! checks that object, so every application of the kind rejects a malformed answer with the
//! same clear messages.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::reply::{bounded, json_objects};

/// How an agent answers a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// One shell command line per turn, run on a named machine (Route).
    MachineCommands,
    /// One command or short script per turn (K8s).
    Commands,
    /// A Python program defining `process_graph(G)` (MALT).
    Python,
    /// Tool calls over several turns, then one final answer with these fields.
    Investigation { final_answer: &'static [Field] },
}

/// How a pasted or replayed text becomes replies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pasting {
    /// The whole text is one reply (a program).
    Whole,
    /// One reply per turn: lines, fenced blocks or a transcript's replies.
    PerTurn,
}

/// One field of a structured final answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Field {
    pub name: &'static str,
    pub kind: FieldKind,
    /// What the field means, for prompts and hints.
    pub about: &'static str,
}

/// The JSON type a field must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    Text,
    Integer,
    Number,
    Boolean,
    /// An array of strings.
    TextList,
    /// A string, one of these.
    OneOf(&'static [&'static str]),
}

impl FieldKind {
    fn describe(self) -> String {
        match self {
            FieldKind::Text => "a string".into(),
            FieldKind::Integer => "an integer".into(),
            FieldKind::Number => "a number".into(),
            FieldKind::Boolean => "true or false".into(),
            FieldKind::TextList => "an array of strings".into(),
            FieldKind::OneOf(values) => format!("one of {}", values.join(", ")),
        }
    }

    fn accepts(self, v: &Value) -> bool {
        match self {
            FieldKind::Text => v.is_string(),
            FieldKind::Integer => v.is_i64() || v.is_u64(),
            FieldKind::Number => v.is_number(),
            FieldKind::Boolean => v.is_boolean(),
            FieldKind::TextList => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            FieldKind::OneOf(values) => v.as_str().is_some_and(|s| values.contains(&s)),
        }
    }
}

/// A final answer that passed its checks: field name to value.
pub type FinalAnswer = BTreeMap<String, Value>;

/// The key a final answer stands under in a reply.
pub const FINAL_KEY: &str = "final_answer";

impl AnswerKind {
    /// How a pasted or replayed text splits into replies.
    pub fn pasting(self) -> Pasting {
        match self {
            AnswerKind::Python => Pasting::Whole,
            _ => Pasting::PerTurn,
        }
    }

    /// Whether typing one command at a time in a terminal makes sense.
    pub fn terminal(self) -> bool {
        self.pasting() == Pasting::PerTurn
    }

    /// One sentence for the paste box: what an answer looks like.
    pub fn hint(self) -> String {
        match self {
            AnswerKind::Python => "The answer the prompt asks for, as an agent would give it (a Python program \
defining process_graph(G) for most tasks); for several turns, a transcript: each answer after a line \
`=== Your reply ===`."
                .into(),
            AnswerKind::MachineCommands => {
                "One command per line as `machine: command` (e.g. r0: ip route), JSON actions, or a transcript."
                    .into()
            }
            AnswerKind::Commands => "One command per line, fenced blocks, or a transcript.".into(),
            AnswerKind::Investigation { final_answer } => format!(
                "One tool call per line, then the final answer as one JSON line {{\"{FINAL_KEY}\": {{…}}}} with {}.",
                field_list(final_answer)
            ),
        }
    }

    /// The final answer a reply gives, if it gives one: `Ok(None)` for a reply that is not
    /// a final answer (a tool call, or any reply of a kind without one), `Err` with a message
    /// for the agent when it tries and gets the form wrong.
    pub fn final_answer(self, reply: &str) -> Result<Option<FinalAnswer>, String> {
        let AnswerKind::Investigation { final_answer: fields } = self else { return Ok(None) };
        let (text, _) = bounded(reply);
        let mut given: Vec<Value> =
            json_objects(text).into_iter().filter_map(|mut o| o.remove(FINAL_KEY)).collect();
        match given.len() {
            0 if text.contains(FINAL_KEY) => Err(format!(
                "the reply names {FINAL_KEY} but holds no valid JSON object with it; write {{\"{FINAL_KEY}\": {{…}}}} with {}",
                field_list(fields)
            )),
            0 => Ok(None),
            1 => check(fields, given.remove(0)).map(Some),
            n => Err(format!("the reply holds {n} final answers; give exactly one")),
        }
    }
}

/// Checks a final answer's object against the declared fields.
fn check(fields: &[Field], value: Value) -> Result<FinalAnswer, String> {
    let Value::Object(map) = value else {
        return Err(format!(
            "{FINAL_KEY} must be a JSON object, not {}; give {}",
            shown(&value),
            field_list(fields)
        ));
    };
    if let Some(extra) = map.keys().find(|k| !fields.iter().any(|f| f.name == k.as_str())) {
        return Err(format!(
            "the final answer has no field {extra:?}; its fields are {}",
            field_list(fields)
        ));
    }
    for f in fields {
        match map.get(f.name) {
            None => {
                return Err(format!(
                    "the final answer lacks {:?} ({}: {})",
                    f.name,
                    f.kind.describe(),
                    f.about
                ));
            }
            Some(v) if !f.kind.accepts(v) => {
                return Err(format!("field {:?} must be {}, not {}", f.name, f.kind.describe(), shown(v)));
            }
            Some(_) => {}
        }
    }
    Ok(map.into_iter().collect())
}

/// `name (type)` for every field, for messages and hints.
fn field_list(fields: &[Field]) -> String {
    if fields.is_empty() {
        return "no fields".into();
    }
    let items: Vec<String> = fields.iter().map(|f| format!("{} ({})", f.name, f.kind.describe())).collect();
    items.join(", ")
}

/// A value as a message quotes it, cut to a readable length on a character boundary.
fn shown(v: &Value) -> String {
    const MAX: usize = 60;
    let text = v.to_string();
    match text.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[Field] = &[
        Field { name: "culprit", kind: FieldKind::Text, about: "the AS that leaked" },
        Field { name: "hops", kind: FieldKind::Integer, about: "path length" },
        Field { name: "kind", kind: FieldKind::OneOf(&["leak", "hijack"]), about: "what happened" },
    ];
    const KIND: AnswerKind = AnswerKind::Investigation { final_answer: FIELDS };

    fn err(reply: &str) -> String {
        KIND.final_answer(reply).unwrap_err()
    }

    #[test]
    fn a_well_formed_final_answer_is_read() {
        let a = KIND
            .final_answer("Done.\n```json\n{\"final_answer\": {\"culprit\": \"AS7\", \"hops\": 3, \"kind\": \"leak\"}}\n```")
            .unwrap()
            .unwrap();
        assert_eq!(a["culprit"], "AS7");
        assert_eq!(a["hops"], 3);
    }

    #[test]
    fn tool_calls_are_not_final_answers() {
        assert_eq!(KIND.final_answer("{\"tool\": \"traceroute\", \"args\": [\"AS7\"]}"), Ok(None));
        assert_eq!(KIND.final_answer(""), Ok(None));
        assert_eq!(AnswerKind::Commands.final_answer("{\"final_answer\": 1}"), Ok(None));
    }

    #[test]
    fn bad_final_answers_say_what_is_wrong() {
        assert_eq!(
            err("{\"final_answer\": {\"culprit\": \"AS7\", \"kind\": \"leak\"}}"),
            "the final answer lacks \"hops\" (an integer: path length)"
        );
        assert_eq!(
            err("{\"final_answer\": {\"culprit\": \"AS7\", \"hops\": \"three\", \"kind\": \"leak\"}}"),
            "field \"hops\" must be an integer, not \"three\""
        );
        assert_eq!(
            err("{\"final_answer\": {\"culprit\": \"AS7\", \"hops\": 3, \"kind\": \"outage\"}}"),
            "field \"kind\" must be one of leak, hijack, not \"outage\""
        );
        assert!(err("{\"final_answer\": {\"why\": 1}}").starts_with("the final answer has no field \"why\""));
        assert!(
            err("{\"final_answer\": [1, 2]}").starts_with("final_answer must be a JSON object, not [1,2]")
        );
        assert!(err("{\"final_answer\": {\"culprit\": ").starts_with("the reply names final_answer but"));
        assert_eq!(
            err("{\"final_answer\": {}} {\"final_answer\": {}}"),
            "the reply holds 2 final answers; give exactly one"
        );
        let long = format!(
            "{{\"final_answer\": {{\"culprit\": 1, \"hops\": 1, \"kind\": \"{}\"}}}}",
            "é".repeat(200)
        );
        assert!(err(&long).starts_with("field \"culprit\" must be a string, not 1"));
        let long = format!("{{\"final_answer\": \"{}\"}}", "é".repeat(200));
        assert!(err(&long).chars().count() < 200);
    }

    #[test]
    fn odd_replies_never_panic() {
        let odd = [
            "{",
            "}",
            "{{{{",
            "\"final_answer\"",
            "{\"final_answer\":}",
            "\u{0}{\"final_answer\":null}",
            "é{é}é",
        ];
        for reply in odd {
            let _ = KIND.final_answer(reply);
        }
        let huge = format!("{{\"final_answer\": {{\"culprit\": \"{}\"}}}}", "x".repeat(300 * 1024));
        assert!(KIND.final_answer(&huge).is_err());
    }

    #[test]
    fn surfaces_read_the_kind_not_the_app() {
        assert_eq!(AnswerKind::Python.pasting(), Pasting::Whole);
        assert!(!AnswerKind::Python.terminal());
        assert!(KIND.terminal() && AnswerKind::Commands.terminal());
        assert!(KIND.hint().contains("culprit (a string), hops (an integer), kind (one of leak, hijack)"));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    const FIELDS: &[Field] = &[
        Field { name: "a", kind: FieldKind::TextList, about: "" },
        Field { name: "b", kind: FieldKind::Number, about: "" },
    ];

    proptest! {
        #[test]
        fn final_answers_never_panic(text in "(\\{|\\}|\"|final_answer|:|,|a|b|1|\\[|\\]|é| )*") {
            let _ = AnswerKind::Investigation { final_answer: FIELDS }.final_answer(&text);
        }
    }
}
