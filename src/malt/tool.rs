//! The `netpress malt …` tools: `check` scores one answer file against one task and prints the
//! score, the explanation and the graph diff; `export` writes a base topology as node-link JSON
//! in canonical order (or its SHA-256).

use std::io::{Read, Write};

use crate::app::{Task, Tool};
use crate::tool_args;

use super::generate::generate;
use super::task::MaltTask;
use super::topo::{Shape, TopoKey, topology};

pub const CHECK: Tool = Tool {
    name: "check",
    about: "score a Python answer file against one task and show the graph diff",
    usage: "usage: netpress malt check --task ID --answer FILE.py

Runs FILE.py (a reply: a fenced python block or plain code defining process_graph(G)) in the
sandbox against task ID, and prints the score, the explanation and the name-keyed graph diff
(missing / unexpected / wrong value). Use --answer - to read standard input.
",
    run,
};

const CHECK_USAGE: &str = "usage: netpress malt check --task ID --answer FILE.py";

fn args(argv: &[String]) -> Result<(String, String), String> {
    use lexopt::Arg::Long;
    let (mut task, mut answer) = (None, None);
    let mut p = tool_args::parser(argv);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        let slot = match arg {
            Long("task") => &mut task,
            Long("answer") => &mut answer,
            _ => return Err(format!("unknown argument {flag:?}; {CHECK_USAGE}")),
        };
        *slot = Some(tool_args::value(&mut p, &flag)?);
    }
    match (task, answer) {
        (Some(t), Some(a)) => Ok((t, a)),
        _ => Err(CHECK_USAGE.into()),
    }
}

fn check(argv: &[String], stdin: &mut dyn Read) -> Result<String, String> {
    let (id, file) = args(argv)?;
    let id: crate::QueryId = id.parse().map_err(|e: crate::Error| e.to_string())?;
    super::MALT_INFO.check_id(&id).map_err(|e| e.to_string())?;
    let task = MaltTask::new(generate(&id).map_err(|e| e.to_string())?);
    let reply = crate::tool_args::read_input(&file, stdin)?;
    let mut episode = task.start(Some(1));
    let step = episode.step(&reply);
    let score = episode.score();
    let mut out = format!("task {}  content hash {}\n", task.card().id, task.card().content_hash);
    out.push_str(&format!("question: {}\n\n", task.card().question.as_deref().unwrap_or("")));
    out.push_str(&format!("observation:\n{}\n\n", step.observation));
    out.push_str(&score.verdict_text());
    out.push_str("\ngraph diff (expected vs. yours):\n");
    if score.details.diff.is_empty() {
        out.push_str("  (no differences)\n");
    }
    for line in &score.details.diff {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str("\nsafety:\n");
    for line in &score.details.safety {
        out.push_str(&format!("  {line}\n"));
    }
    Ok(out)
}

fn run(argv: &[String], stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    match check(argv, stdin) {
        Ok(text) => {
            let _ = stdout.write_all(text.as_bytes());
            0
        }
        Err(e) => {
            let _ = writeln!(stderr, "netpress malt check: {e}");
            2
        }
    }
}

pub const EXPORT: Tool = Tool {
    name: "export",
    about: "write a base topology as node-link JSON in canonical order (or its SHA-256)",
    usage: "usage: netpress malt export [--shape SxAxWxP|small|default|large|xl] [--topo-seed T] [--sha256]

Writes the base topology of the knobs as compact node-link JSON with sorted keys, nodes in
canonical order and links by (source, target); --sha256 prints only the SHA-256 of that export,
which is the same natively and in the browser.
",
    run: run_export,
};

fn export(argv: &[String], out: &mut dyn Write) -> Result<(), String> {
    use lexopt::Arg::Long;
    let mut key = TopoKey::default();
    let mut hash = false;
    let mut p = tool_args::parser(argv);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        match arg {
            Long("shape") => key.shape = Shape::parse(&tool_args::value(&mut p, &flag)?)?,
            Long("topo-seed") => {
                let v = tool_args::value(&mut p, &flag)?;
                key.seed = v.parse().map_err(|_| "--topo-seed takes a number".to_string())?
            }
            Long("sha256") => hash = true,
            _ => return Err(format!("unknown argument {flag:?}; see netpress malt export --help")),
        }
    }
    let t = topology(key);
    let written = if hash {
        writeln!(out, "{}", t.node_link_sha256())
    } else {
        let mut result = Ok(());
        t.write_node_link(&mut |piece| {
            if result.is_ok() {
                result = out.write_all(piece.as_bytes());
            }
        });
        result.and_then(|_| writeln!(out))
    };
    tool_args::written(written)
}

fn run_export(argv: &[String], _stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let mut buffered = std::io::BufWriter::new(stdout);
    match export(argv, &mut buffered).and_then(|_| buffered.flush().map_err(|e| e.to_string())) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(stderr, "netpress malt export: {e}");
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(tool: &Tool, args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = (tool.run)(&args, &mut "".as_bytes(), &mut out, &mut err);
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    }

    /// Bad arguments exit 2 with one line on standard error that names what was wrong.
    #[test]
    fn bad_arguments_exit_2_with_one_line() {
        let usage = "usage: netpress malt check --task ID --answer FILE.py";
        for (tool, args, want) in [
            (&CHECK, &["--task", "malt-v1-L1-s0-i0"][..], usage.to_string()),
            (&CHECK, &[], usage.to_string()),
            (&CHECK, &["--task", "x", "-a", "y"], format!("unknown argument \"-a\"; {usage}")),
            (&CHECK, &["--task"], "--task needs a value".into()),
            (&EXPORT, &["--sha256", "--topo-seed", "x"], "--topo-seed takes a number".into()),
            (&EXPORT, &["--shape"], "--shape needs a value".into()),
            (&EXPORT, &["small"], "unknown argument \"small\"; see netpress malt export --help".into()),
        ] {
            let (code, out, err) = call(tool, args);
            assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
            assert_eq!(err, format!("netpress malt {}: {want}\n", tool.name), "{args:?}");
        }
    }

    /// `--shape=small` and `--shape small` are the same request.
    #[test]
    fn option_spellings_agree() {
        let a = call(&EXPORT, &["--shape", "small", "--sha256"]);
        assert_eq!(a.0, 0);
        assert_eq!(a.1.trim().len(), 64);
        assert_eq!(call(&EXPORT, &["--shape=small", "--sha256"]), a);
    }
}
