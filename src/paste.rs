//! How typed and pasted text becomes replies: `machine: command` prefixes, one command per
//! line, fenced blocks, and transcripts copied from a run.
//!
//! The web app's terminal and paste modes are its users, but the rules are plain text
//! handling with no rendering, so they live in the library where `cargo test` checks them
//! natively on every build (the web module only compiles for wasm).

use crate::answer::{AnswerKind, Pasting};

/// Longest line the terminal runs. The emulated shells refuse longer command lines (Route's at
/// 4096 bytes) and doing so would use a turn; the terminal refuses them before they do.
pub const MAX_TYPED_COMMAND: usize = 4096;

/// Why a typed line is not run (so it uses no turn), or `None` when it is a command.
pub fn refusal(typed: &str) -> Option<String> {
    let line = typed.trim();
    if line.is_empty() {
        Some("Nothing to run: the line is empty (no turn used).".into())
    } else if line.len() > MAX_TYPED_COMMAND {
        Some(format!(
            "Not run: the line is {} bytes, over the {MAX_TYPED_COMMAND}-byte limit of a command line (no turn used).",
            line.len()
        ))
    } else {
        None
    }
}

/// One typed or pasted command: the machine it is addressed to (if the line names one the
/// episode knows) and the command itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub target: Option<String>,
    pub command: String,
}

impl Line {
    /// Reads `r0: ip route` as a command for `r0` when `r0` is one of `targets`.
    pub fn parse(line: &str, targets: &[String]) -> Line {
        let line = line.trim();
        if let Some((target, command)) = line.split_once(':') {
            let target = target.trim();
            if targets.iter().any(|t| t == target) {
                return Line { target: Some(target.to_string()), command: command.trim().to_string() };
            }
        }
        Line { target: None, command: line.to_string() }
    }

    /// The form [`Line::parse`] reads back, for links and history.
    pub fn written(&self) -> String {
        match &self.target {
            Some(t) => format!("{t}: {}", self.command),
            None => self.command.clone(),
        }
    }
}

/// A piece of a paste: either a ready reply (JSON, a fenced block, a transcript reply) or a
/// command line still to be composed into the application's reply format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Reply(String),
    Command(Line),
}

/// The marker of an agent's reply in a transcript ([`crate::conversation::transcript`]).
const REPLY_MARK: &str = "=== Your reply ===";

/// Splits a pasted answer into turns. A transcript gives its replies, whatever the kind: it is
/// how a program-answered episode of several turns (traffic's 24-question chain) is pasted.
/// Otherwise a whole-text kind (a program) is one reply; fenced blocks give one reply each;
/// plain text gives one command per line (blank lines and `#` comments skipped, a trailing `\`
/// joins the next line).
pub fn split_paste(text: &str, answer: AnswerKind, targets: &[String]) -> Vec<Piece> {
    if answer.pasting() == Pasting::Whole || text.contains(REPLY_MARK) {
        return whole_replies(text).into_iter().map(Piece::Reply).collect();
    }
    let fences = crate::reply::fenced_blocks(text);
    if !fences.is_empty() {
        return fences.into_iter().map(|f| Piece::Reply(format!("```{}\n{}\n```", f.info, f.body))).collect();
    }
    let mut pieces = Vec::new();
    let mut pending = String::new();
    for raw in text.lines() {
        // A continued line joins the previous one with a single space.
        let line = if pending.is_empty() { raw.trim_end() } else { raw.trim() };
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head.trim_end());
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        let whole = std::mem::take(&mut pending);
        let whole = whole.trim();
        if whole.is_empty() || whole.starts_with('#') {
            continue;
        }
        pieces.push(if whole.starts_with('{') {
            Piece::Reply(whole.to_string())
        } else {
            Piece::Command(Line::parse(whole, targets))
        });
    }
    if !pending.trim().is_empty() {
        pieces.push(Piece::Command(Line::parse(&pending, targets)));
    }
    pieces
}

/// The agent replies of a transcript, in order.
/// The replies of a pasted text that is not split by lines: a transcript's replies, else the
/// whole text as one reply (none when blank). Replays read plain text of a program-answered
/// kind the same way.
pub fn whole_replies(text: &str) -> Vec<String> {
    if text.contains(REPLY_MARK) {
        transcript_replies(text)
    } else if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![text.to_string()]
    }
}

fn transcript_replies(text: &str) -> Vec<String> {
    text.split(REPLY_MARK)
        .skip(1)
        .map(|part| part.split("\n=== ").next().unwrap_or_default().trim().to_string())
        .filter(|r| !r.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets() -> Vec<String> {
        vec!["r0".into(), "h1".into()]
    }

    #[test]
    fn lines_name_known_machines_only() {
        assert_eq!(
            Line::parse(" r0:  ip route ", &targets()),
            Line { target: Some("r0".into()), command: "ip route".into() }
        );
        let url = Line::parse("curl http://x", &targets());
        assert_eq!(url, Line { target: None, command: "curl http://x".into() });
        assert_eq!(
            Line::parse(&Line::parse("h1: ping -c1 a", &targets()).written(), &targets()).target.as_deref(),
            Some("h1")
        );
    }

    #[test]
    fn empty_and_overlong_lines_are_refused() {
        assert!(refusal("   ").is_some_and(|r| r.contains("empty")));
        assert!(refusal(&"x".repeat(MAX_TYPED_COMMAND + 1)).is_some_and(|r| r.contains("4097 bytes")));
        assert_eq!(refusal(&"x".repeat(MAX_TYPED_COMMAND)), None);
        assert_eq!(refusal(" r0: ip route "), None);
    }

    #[test]
    fn python_is_one_reply() {
        let code = "def process_graph(G):\n    return {'type': 'text', 'data': 1}\n";
        assert_eq!(split_paste(code, AnswerKind::Python, &[]), vec![Piece::Reply(code.into())]);
        assert!(split_paste("  \n", AnswerKind::Python, &[]).is_empty());
        // Several programs, one a turn, as a transcript: each after its reply marker.
        let two = format!(
            "=== Your reply ===\n{code}\n=== Observation ===\nQuestion 2 …\n\n=== Your reply ===\n{code}"
        );
        assert_eq!(split_paste(&two, AnswerKind::Python, &[]), vec![Piece::Reply(code.trim().into()); 2]);
    }

    #[test]
    fn commands_one_per_line() {
        let text = "# check first\nr0: ip link\n\n{\"machine\": \"h1\", \"command\": \"ip a\"}\nkubectl get netpol \\\n  -n default\n";
        let pieces = split_paste(text, AnswerKind::MachineCommands, &targets());
        assert_eq!(
            pieces,
            vec![
                Piece::Command(Line { target: Some("r0".into()), command: "ip link".into() }),
                Piece::Reply("{\"machine\": \"h1\", \"command\": \"ip a\"}".into()),
                Piece::Command(Line { target: None, command: "kubectl get netpol -n default".into() }),
            ]
        );
    }

    #[test]
    fn fenced_blocks_are_replies() {
        let text = "First:\n```bash\nkubectl get pods\n```\nthen\n```\nkubectl get netpol\n```";
        let pieces = split_paste(text, AnswerKind::Commands, &[]);
        assert_eq!(pieces.len(), 2);
        assert_eq!(pieces[0], Piece::Reply("```bash\nkubectl get pods\n```".into()));
        assert_eq!(pieces[1], Piece::Reply("```\nkubectl get netpol\n```".into()));
    }

    #[test]
    fn transcripts_give_their_replies() {
        let text = "=== Task ===\nfix it\n\n=== Your reply ===\n{\"machine\": \"r0\", \"command\": \"ip a\"}\n\n\
                    === Observation ===\nMachine: r0\n\n=== Your reply ===\nline one\nline two";
        assert_eq!(
            split_paste(text, AnswerKind::MachineCommands, &targets()),
            vec![
                Piece::Reply("{\"machine\": \"r0\", \"command\": \"ip a\"}".into()),
                Piece::Reply("line one\nline two".into())
            ]
        );
    }
}

#[cfg(test)]
mod kind_tests {
    use super::*;

    #[test]
    fn an_investigation_pastes_tool_calls_then_its_final_answer() {
        let kind = AnswerKind::Investigation { final_answer: &[] };
        let pieces = split_paste("whois AS7\n{\"final_answer\": {}}\n", kind, &[]);
        assert_eq!(
            pieces,
            vec![
                Piece::Command(Line { target: None, command: "whois AS7".into() }),
                Piece::Reply("{\"final_answer\": {}}".into())
            ]
        );
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn split_paste_never_panics(text in "(.|\n){0,300}") {
            let investigation = AnswerKind::Investigation { final_answer: &[] };
            for kind in [AnswerKind::Python, AnswerKind::Commands, AnswerKind::MachineCommands, investigation] {
                let _ = split_paste(&text, kind, &["r0".to_string()]);
            }
        }

        #[test]
        fn written_lines_read_back(target in proptest::option::of("[a-z][a-z0-9]{0,3}"), command in "[^\n:]{1,40}") {
            let targets: Vec<String> = target.iter().cloned().collect();
            let line = Line { target, command: command.trim().to_string() };
            prop_assume!(!line.command.is_empty());
            prop_assert_eq!(Line::parse(&line.written(), &targets), line);
        }
    }
}
