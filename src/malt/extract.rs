//! Finding the Python answer in a reply (malt.md §5 "Extraction"), leniently: the first fenced
//! block defining `process_graph`, else the first block, else the text from `def
//! process_graph`. A renamed definition (`def my_process_graph_v2(`) is renamed back, imports
//! of networkx and copy are dropped (G is not a networkx graph and cannot be copied), and the
//! host appends the call. Every such fix is noted so the agent learns of it.

use crate::reply::{bounded, fenced_blocks};

/// Longest accepted source.
pub const MAX_SOURCE_BYTES: usize = 64 * 1024;

/// The call the host appends; its value is the answer.
pub const CALL: &str = "process_graph(G)";

/// Source ready to run, with notes about what was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The agent's code as found (after fixes), without the appended call.
    pub code: String,
    pub notes: Vec<String>,
}

impl Source {
    /// The program the sandbox runs: the code, then the call.
    pub fn program(&self) -> String {
        format!("{}\n\n{CALL}\n", self.code.trim_end())
    }
}

/// Position and length of the first `def <x>process_graph<y>(` (word characters around).
fn find_def(code: &str) -> Option<(usize, usize, bool)> {
    let mut from = 0;
    while let Some(off) = code[from..].find("def ") {
        let start = from + off;
        let after = &code[start + 4..];
        let ident: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let line_start = code[..start].rfind('\n').map_or(0, |i| i + 1);
        let at_line_start = code[line_start..start].chars().all(char::is_whitespace);
        if at_line_start
            && ident.contains("process_graph")
            && after[ident.len()..].trim_start().starts_with('(')
        {
            return Some((start, 4 + ident.len(), ident == "process_graph"));
        }
        from = start + 4;
    }
    None
}

/// Extracts the answer from a reply, or says why there is none.
pub fn extract(reply: &str) -> Result<Source, String> {
    let (reply, cut) = bounded(reply);
    let mut notes = Vec::new();
    if cut {
        notes.push("the reply was cut at 256 KiB".to_string());
    }
    let fences = fenced_blocks(reply);
    let code = if let Some(f) = fences.iter().find(|f| find_def(&f.body).is_some()) {
        f.body.clone()
    } else if let Some(f) = fences.first() {
        notes.push("no fenced block defines process_graph; using the first block".to_string());
        f.body.clone()
    } else if let Some((start, _, _)) = find_def(reply) {
        notes.push("no fenced block; using the text from def process_graph".to_string());
        reply[start..].to_string()
    } else {
        return Err(
            "No Python code found. Reply with one fenced ```python block that defines def process_graph(G):"
                .to_string(),
        );
    };
    if code.len() > MAX_SOURCE_BYTES {
        return Err(format!("The code is {} bytes; the limit is {MAX_SOURCE_BYTES} bytes.", code.len()));
    }
    let code = rename(&code, &mut notes)?;
    Ok(Source { code: drop_imports(&code, &mut notes), notes })
}

fn rename(code: &str, notes: &mut Vec<String>) -> Result<String, String> {
    if code.lines().any(|l| l.trim_start().starts_with("def process_graph(")) {
        return Ok(code.to_string());
    }
    match find_def(code) {
        Some((start, len, _)) => {
            let old = code[start + 4..start + len].to_string();
            notes.push(format!("renamed def {old}( to def process_graph("));
            Ok(format!("{}def process_graph{}", &code[..start], &code[start + len..]))
        }
        None => Err(
            "The code does not define process_graph(G). Define def process_graph(G): and return the dict."
                .to_string(),
        ),
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
