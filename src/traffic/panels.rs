//! The episode's panels: what the code returned, and how it changed `G`.
//!
//! The score card already says whether the answer is right and why; these panels show the
//! state behind it. Until the episode is scored the changes are listed plainly; afterwards
//! each carries the tone the picture gives its node or edge ([`Marks`]), and the changes an
//! exact answer should have made but did not are listed after them.

use serde_json::Value;

use super::check;
use super::picture::Marks;
use crate::view::{Panel, Tone};

/// Lines a panel lists before it summarises the rest.
const LINES: usize = 50;
/// Lines of a returned value shown.
const VALUE_LINES: usize = 20;

/// The answer panel: the returned type and value (a list one item a line), or why there is
/// none. Compact JSON rather than pretty: serde_json's pretty printer would add its own
/// serializer to the worker bundle, which has a size hold.
pub fn answer(answer: &Result<(String, Value), String>) -> Panel {
    let (summary, lines) = match answer {
        Ok((ty, data)) => {
            let items = match data {
                Value::Array(items) => items.iter().map(Value::to_string).collect(),
                other => vec![other.to_string()],
            };
            (format!("returned {ty}"), capped(items.into_iter().map(|l| (Tone::Neutral, l)), VALUE_LINES))
        }
        Err(e) => (
            "no valid return".to_string(),
            capped(e.lines().map(|l| (Tone::Bad, l.to_string())), VALUE_LINES),
        ),
    };
    Panel::Lines { title: "Answer".into(), summary, lines }
}

/// The changes panel: `graph` against the task's `base`; once scored, toned by `marks`, with
/// what the `expected` graph has that the answer did not do.
pub fn changes(base: &Value, graph: &Value, scored: Option<(&Marks, Option<&Value>)>) -> Panel {
    let done = check::diff(base, graph);
    let mut lines: Vec<(Tone, String)> = Vec::new();
    let mut summary = format!("{} changes to G", done.len());
    let Some((marks, expected)) = scored else {
        lines.extend(done.into_iter().map(|c| (Tone::Neutral, c.line)));
        return Panel::Lines { title: "Changes".into(), summary, lines: capped(lines.into_iter(), LINES) };
    };
    let touched: Vec<check::At> = done.iter().map(|c| c.at.clone()).collect();
    lines.extend(done.into_iter().map(|c| (marks.tone(&c.at), c.line)));
    let undone = expected.map(|e| check::diff(e, graph)).unwrap_or_default();
    lines.extend(
        undone
            .into_iter()
            .filter(|c| !touched.contains(&c.at))
            .map(|c| (Tone::Bad, format!("not done: {}", c.line))),
    );
    let count = |t: Tone| lines.iter().filter(|(x, _)| *x == t).count();
    let (fixed, bad, broken) = (count(Tone::Fixed), count(Tone::Bad), count(Tone::Broken));
    summary = format!(
        "{summary}: {fixed} as expected, {bad} wrong or missing, {broken} outside the question's scope"
    );
    Panel::Lines { title: "Changes".into(), summary, lines: capped(lines.into_iter(), LINES) }
}

/// At most `n` lines, then one saying how many more there were.
fn capped(lines: impl Iterator<Item = (Tone, String)>, n: usize) -> Vec<(Tone, String)> {
    let mut out: Vec<(Tone, String)> = lines.collect();
    if out.len() > n {
        let more = out.len() - n;
        out.truncate(n);
        out.push((Tone::Neutral, format!("… and {more} more")));
    }
    out
}
