//! `netpress traffic check`: scores a returned value, given as JSON, against one task with the
//! episode's own checker (`task::score_returned`), for answers made outside the sandbox: the
//! networkx differential test's own witnesses, a hand-made answer (docs/traffic.md, "Checking
//! an answer from the command line").

use std::io::{Read, Write};

use crate::app::Tool;
use crate::id::QueryId;
use crate::tool_args;

use super::task::{generate, score_returned};

pub const CHECK: Tool = Tool {
    name: "check",
    about: "score a returned {\"type\", \"data\"} value (JSON) against one task",
    usage: "usage: netpress traffic check --task ID [FILE]

Scores FILE (standard input when it is absent or -) against task ID as the task scores what the
answer's function returns: a JSON object {\"type\": ..., \"data\": ...}, or a JSON string holding
one. A graph answer's data is the graph the code left, as node-link data (networkx's
node_link_data; links may be called edges); without it the task's graph is unchanged, as it is
for every other type. Prints the verdict, the checker's explanations, the graph diff and the
safety findings. Exits 0 when the answer is correct, 1 when it is not, 2 on a usage or input
error.
",
    run,
};

const USAGE: &str = "usage: netpress traffic check --task ID [FILE]";

fn args(argv: &[String]) -> Result<(String, Option<String>), String> {
    use lexopt::Arg::{Long, Value};
    let (mut task, mut file) = (None, None);
    let mut p = tool_args::parser(argv);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        match arg {
            Long("task") => task = Some(tool_args::value(&mut p, &flag)?),
            Value(v) if file.is_none() => file = Some(v.to_string_lossy().into_owned()),
            _ => return Err(format!("unexpected argument {flag:?}; {USAGE}")),
        }
    }
    Ok((task.ok_or(USAGE)?, file.filter(|f| f != "-")))
}

/// The report and whether the answer is correct.
fn check(argv: &[String], stdin: &mut dyn Read) -> Result<(String, bool), String> {
    let (id, file) = args(argv)?;
    let id: QueryId = id.parse().map_err(|e: crate::Error| e.to_string())?;
    super::INFO.check_id(&id).map_err(|e| e.to_string())?;
    if super::chain::is_chain(&id) {
        return Err(format!(
            "{id} is a chain of {} answers, each run on the graph the ones before it left: play it as an \
             episode (netpress run, or the page), not as one returned value",
            super::chain::QUESTIONS
        ));
    }
    let text = crate::tool_args::read_input(file.as_deref().unwrap_or("-"), stdin)?;
    let returned: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let generated = generate(&id).map_err(|e| e.to_string())?;
    let score = score_returned(&generated, returned);
    let mut out = format!("task {id}\nquestion: {}\n\n", generated.question);
    out.push_str(&score.verdict_text());
    let section = |out: &mut String, title: &str, lines: &[String]| {
        if !lines.is_empty() {
            out.push_str(&format!("\n{title}:\n"));
            for l in lines {
                out.push_str(&format!("  {l}\n"));
            }
        }
    };
    section(&mut out, "why", &score.details.correctness);
    section(&mut out, "differences", &score.details.diff);
    section(&mut out, "safety", &score.details.safety);
    Ok((out, score.correct))
}

fn run(argv: &[String], stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    match check(argv, stdin) {
        Ok((text, correct)) => {
            let _ = stdout.write_all(text.as_bytes());
            if correct { 0 } else { 1 }
        }
        Err(e) => {
            let _ = writeln!(stderr, "netpress traffic check: {e}");
            2
        }
    }
}
