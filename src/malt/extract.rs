//! Finding the Python answer in a reply (docs/malt.md, "Answering and checking"), leniently: the first fenced
//! block defining `process_graph`, else the first block, else, without fences, the code around
//! `def process_graph`: the lines above it that read as Python (imports, helpers, constants,
//! comments) are kept, prose above them is not. A renamed definition (`def my_process_graph_v2(`)
//! is renamed back, imports of networkx and copy are dropped (G is not a networkx graph and cannot
//! be copied), and the host appends the call. Every such fix is noted so the agent learns of it.
//!
//! Line numbers in tracebacks are those of the reply as written: the program starts with as
//! many blank lines as the reply has above the code, and fixes never add or remove lines.

use crate::reply::{bounded, fenced_blocks};

/// Longest accepted source.
pub const MAX_SOURCE_BYTES: usize = 64 * 1024;

/// The entry point a program must define: its name and the inputs the host passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub name: &'static str,
    pub params: &'static str,
}

/// MALT's and the traffic application's `process_graph(G)`.
pub const GRAPH: Entry = Entry { name: "process_graph", params: "G" };
/// The flow applications' `process_flows(F, G)`.
pub const FLOWS: Entry = Entry { name: "process_flows", params: "F, G" };

/// Source ready to run, with notes about what was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The agent's code as found (after fixes), without the appended call.
    pub code: String,
    pub notes: Vec<String>,
    /// The line of the reply the code starts on (1-based).
    pub first_line: usize,
    /// The entry point the host calls.
    pub entry: Entry,
}

impl Source {
    /// The program the sandbox runs: blank lines up to the code's place in the reply (so
    /// tracebacks name the reply's own lines), the code, then the call.
    pub fn program(&self) -> String {
        let above = "\n".repeat(self.first_line.saturating_sub(1));
        let Entry { name, params } = self.entry;
        format!("{above}{}\n\n{name}({params})\n", self.code.trim_end())
    }
}

/// The 1-based line of `reply` on which `body` (a fence's lines joined with `\n`) starts:
/// the first place the body's lines follow each other in the reply after a fence line.
fn line_of(reply: &str, body: &str) -> usize {
    let lines: Vec<&str> = reply.lines().collect();
    let want: Vec<&str> = body.split('\n').collect();
    (1..lines.len())
        .find(|&i| {
            let fence = lines[i - 1].trim_start();
            (fence.starts_with("```") || fence.starts_with("~~~"))
                && lines.len() - i >= want.len()
                && lines[i..].iter().zip(&want).all(|(a, b)| a == b)
        })
        .map_or(1, |i| i + 1)
}

/// Python keywords a top-level line of a module may start with.
const STATEMENT_WORDS: [&str; 17] = [
    "import", "from", "def", "class", "async", "if", "for", "while", "try", "with", "assert", "raise",
    "global", "del", "pass", "print", "return",
];

/// Whether a line above `def process_graph` reads as Python rather than prose: blank, a
/// comment, a decorator, an indented line, a statement keyword, or an assignment or call
/// (`NAME = ...`, `NAME += ...`, `NAME(...)`, `a.b(...)`, `x[0] = ...`).
fn code_like(line: &str) -> bool {
    let t = line.trim_end();
    if t.is_empty() || t.starts_with(['#', '@', ' ', '\t']) {
        return true;
    }
    let word: String = t.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let rest = &t[word.len()..];
    if STATEMENT_WORDS.contains(&word.as_str()) {
        return rest.is_empty() || rest.starts_with([' ', ':', '(']);
    }
    let rest = rest.trim_start_matches(|c: char| c.is_alphanumeric() || "_.[]'\"".contains(c)).trim_start();
    let assignment = rest.starts_with(['=', '+', '-', '*', '/', '|', '&', ',']) && rest.contains('=');
    rest.starts_with('(') || assignment
}

/// Where the unfenced code around a `def` at byte `def_at` starts: the first of the
/// contiguous Python-like lines above it (blank lines at the top of the run are skipped).
fn code_start(reply: &str, def_at: usize) -> usize {
    let mut start = reply[..def_at].rfind('\n').map_or(0, |i| i + 1);
    let mut first_code = start;
    while start > 0 {
        let prev = reply[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        let line = &reply[prev..start - 1];
        if !code_like(line) {
            break;
        }
        start = prev;
        if !line.trim().is_empty() {
            first_code = prev;
        }
    }
    first_code
}

/// Position and length of the first `def <x>process_graph<y>(` (word characters around).
fn find_def(code: &str, entry: &str) -> Option<(usize, usize, bool)> {
    let mut from = 0;
    while let Some(off) = code[from..].find("def ") {
        let start = from + off;
        let after = &code[start + 4..];
        let ident: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let line_start = code[..start].rfind('\n').map_or(0, |i| i + 1);
        let at_line_start = code[line_start..start].chars().all(char::is_whitespace);
        if at_line_start && ident.contains(entry) && after[ident.len()..].trim_start().starts_with('(') {
            return Some((start, 4 + ident.len(), ident == entry));
        }
        from = start + 4;
    }
    None
}

/// Extracts the answer from a reply, or says why there is none.
pub fn extract(reply: &str) -> Result<Source, String> {
    extract_entry(reply, GRAPH)
}

/// [`extract`] for a program whose entry point is `entry`.
pub fn extract_entry(reply: &str, entry: Entry) -> Result<Source, String> {
    let Entry { name, params } = entry;
    let (reply, cut) = bounded(reply);
    let mut notes = Vec::new();
    if cut {
        notes.push("the reply was cut at 256 KiB".to_string());
    }
    let fences = fenced_blocks(reply);
    let (code, first_line) = if let Some(f) = fences.iter().find(|f| find_def(&f.body, name).is_some()) {
        (f.body.clone(), line_of(reply, &f.body))
    } else if let Some(f) = fences.first() {
        notes.push(format!("no fenced block defines {name}; using the first block"));
        (f.body.clone(), line_of(reply, &f.body))
    } else if let Some((def_at, _, _)) = find_def(reply, name) {
        let start = code_start(reply, def_at);
        let line = 1 + reply[..start].matches('\n').count();
        if start > 0 {
            notes.push(format!("no fenced block; running the reply from line {line}, where its code starts"));
        }
        (reply[start..].to_string(), line)
    } else {
        return Err(format!(
            "No Python code found. Reply with one fenced ```python block that defines def {name}({params}):"
        ));
    };
    if code.len() > MAX_SOURCE_BYTES {
        return Err(format!("The code is {} bytes; the limit is {MAX_SOURCE_BYTES} bytes.", code.len()));
    }
    let code = rename(&code, entry, &mut notes)?;
    Ok(Source { code: drop_imports(&code, &mut notes), notes, first_line, entry })
}

fn rename(code: &str, entry: Entry, notes: &mut Vec<String>) -> Result<String, String> {
    let Entry { name, params } = entry;
    if code.lines().any(|l| l.trim_start().starts_with(&format!("def {name}("))) {
        return Ok(code.to_string());
    }
    match find_def(code, name) {
        Some((start, len, _)) => {
            let old = code[start + 4..start + len].to_string();
            notes.push(format!("renamed def {old}( to def {name}("));
            Ok(format!("{}def {name}{}", &code[..start], &code[start + len..]))
        }
        None => Err(format!(
            "The code does not define {name}({params}). Define def {name}({params}): and return the dict."
        )),
    }
}

const DROPPED: [&str; 2] = ["networkx", "copy"];

fn dropped_module(module: &str) -> bool {
    let name = module.split_whitespace().next().unwrap_or("");
    let root = name.split('.').next().unwrap_or(name);
    DROPPED.contains(&root)
}

/// Replaces `import networkx as nx`, `from copy import deepcopy` and the like by `pass`, and
/// removes those modules from mixed `import a, b` lines.
fn drop_imports(code: &str, notes: &mut Vec<String>) -> String {
    let mut out = Vec::new();
    for line in code.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(rest) = trimmed.strip_prefix("from ") {
            let module = rest.split_whitespace().next().unwrap_or("");
            if dropped_module(module) {
                notes.push(format!("dropped `{}` (not available in the sandbox)", trimmed.trim_end()));
                out.push(format!("{indent}pass"));
                continue;
            }
        } else if let Some(rest) = trimmed.strip_prefix("import ") {
            let parts: Vec<&str> = rest.split(',').map(str::trim).collect();
            let keep: Vec<&str> = parts.iter().copied().filter(|p| !dropped_module(p)).collect();
            if keep.len() != parts.len() {
                notes.push(format!("dropped `{}` (not available in the sandbox)", trimmed.trim_end()));
                out.push(if keep.is_empty() {
                    format!("{indent}pass")
                } else {
                    format!("{indent}import {}", keep.join(", "))
                });
                continue;
            }
        }
        out.push(line.to_string());
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefers_the_block_defining_process_graph() {
        let reply = "Plan:\n```text\nsteps\n```\n```python\nimport networkx as nx\ndef process_graph(G):\n    return 1\n```";
        let s = extract(reply).unwrap();
        assert_eq!(s.code, "pass\ndef process_graph(G):\n    return 1");
        assert_eq!(s.notes.len(), 1);
        assert!(s.program().ends_with("\n\nprocess_graph(G)\n"));
    }

    #[test]
    fn falls_back_to_first_block_then_text() {
        let s = extract("```\ndef solve(G):\n    pass\n```").unwrap_err();
        assert!(s.contains("does not define process_graph"));
        let s = extract("Here:\ndef process_graph(G):\n    return {'type': 'text', 'data': 1}").unwrap();
        assert!(s.code.starts_with("def process_graph(G):"));
        assert!(extract("I cannot help").unwrap_err().starts_with("No Python code found"));
    }

    #[test]
    fn unfenced_code_keeps_what_is_above_the_def() {
        let reply = "import math\nLIMIT = 10 ** 9\n\ndef helper(x):\n    return x\n\ndef process_graph(G):\n    return helper(1)";
        let s = extract(reply).unwrap();
        assert_eq!(s.code, reply, "the whole answer runs");
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        let prose = format!("Here is my answer.\nIt counts ports:\n{reply}");
        let s = extract(&prose).unwrap();
        assert_eq!(s.code, reply, "prose above the code is left out");
        assert_eq!(s.first_line, 3);
        assert!(s.program().starts_with("\n\nimport math\n"), "{:?}", s.program());
    }

    #[test]
    fn programs_keep_the_reply_line_numbers() {
        let fenced = "Plan:\n\n```python\nx = 1\ndef process_graph(G):\n    return x\n```\n";
        let s = extract(fenced).unwrap();
        assert_eq!(s.first_line, 4);
        let program = s.program();
        assert_eq!(program.lines().nth(4), Some("def process_graph(G):"), "line 5 as in the reply");
        let crlf = fenced.replace('\n', "\r\n");
        assert_eq!(extract(&crlf).unwrap().first_line, 4);
    }

    #[test]
    fn prose_is_not_code() {
        for line in ["Here is my answer:", "Note: G is large.", "The answer is 42.", "1. count", "```"] {
            assert!(!code_like(line), "{line}");
        }
        for line in [
            "import json",
            "x = 3",
            "total += 1",
            "print(1)",
            "G.nodes()",
            "    y",
            "",
            "# c",
            "@cache",
            "a, b = 1, 2",
        ] {
            assert!(code_like(line), "{line}");
        }
    }

    #[test]
    fn renames_and_drops() {
        let code = "```python\nimport json, copy\nfrom networkx.algorithms import x\ndef my_process_graph_v2(G):\n    import copy\n    return 1\n```";
        let s = extract(code).unwrap();
        assert_eq!(s.code, "import json\npass\ndef process_graph(G):\n    pass\n    return 1");
        assert_eq!(s.notes.len(), 4, "{:?}", s.notes);
    }

    #[test]
    fn rejects_huge_sources() {
        let big = format!("```python\ndef process_graph(G):\n{}\n```", "    x = 1\n".repeat(8000));
        assert!(extract(&big).unwrap_err().contains("limit"));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics(s in "(def |process_graph|```|python|\n|import |copy|networkx|[a-z( ):,]){0,60}") {
            let _ = extract(&s);
        }
    }
}
