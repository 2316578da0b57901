//! `netpress microseg logs`: a task's flow logs as files in the providers' own formats, for
//! reading them with the tools people already use on real logs (docs/microseg.md, "Command
//! line"). The text is the flows module's rendering (docs/flows.md, "Formats"), so the file of
//! the id's own format is exactly what `F.raw` shows the agent.

use std::io::{Read, Write};

use crate::app::Tool;
use crate::flows::Format;
use crate::tool_args;

use super::task::generate;

pub const LOGS: Tool = Tool {
    name: "logs",
    about: "write a task's visible flow logs in a provider's format (aws2, aws5, nsg2, vnet4, gcp)",
    usage: "usage: netpress microseg logs --task ID [--format F|all] [-o DIR]

Writes the flow logs of the task's visible windows (never the hidden window it is judged on)
as the provider writes them: aws2 (AWS VPC Flow Logs, default format), aws5 (AWS, version-5
custom format), nsg2 (Azure NSG flow logs v2), vnet4 (Azure virtual network flow logs) or gcp
(GCP VPC Flow Logs, one JSON object per line). --format defaults to the task's own format,
the text its F.raw shows; all writes the five. Without -o the one format goes to standard
output; with -o each goes to DIR/flows.FORMAT.EXT (.log for AWS, .json for Azure, .jsonl
for GCP).
",
    run,
};

struct Args {
    task: String,
    /// `None`: the task's own format.
    formats: Option<Vec<Format>>,
    out: Option<String>,
}

fn args(argv: &[String]) -> Result<Args, String> {
    use lexopt::Arg::{Long, Short};
    let (mut task, mut formats, mut out) = (None, None, None);
    let mut p = tool_args::parser(argv);
    while let Some(arg) = tool_args::next(&mut p)? {
        let flag = tool_args::shown(&arg);
        match arg {
            Long("task") => task = Some(tool_args::value(&mut p, &flag)?),
            Long("format") => formats = Some(formats_of(&tool_args::value(&mut p, &flag)?)?),
            Short('o') | Long("output") => out = Some(tool_args::value(&mut p, &flag)?),
            _ => return Err(format!("unknown argument {flag:?}; see netpress microseg logs --help")),
        }
    }
    let task = task.ok_or("--task ID is required")?;
    if out.is_none() && formats.as_ref().is_some_and(|f| f.len() > 1) {
        return Err("--format all writes five files: give -o DIR".into());
    }
    Ok(Args { task, formats, out })
}

fn formats_of(v: &str) -> Result<Vec<Format>, String> {
    if v == "all" {
        return Ok(Format::ALL.to_vec());
    }
    Format::parse(v)
        .map(|f| vec![f])
        .ok_or(format!("--format takes aws2, aws5, nsg2, vnet4, gcp or all, got {v:?}"))
}

/// The file name of a format's export: the extension says how the provider's files read.
pub fn file_name(format: Format) -> String {
    let ext = match format {
        Format::Aws2 | Format::Aws5 => "log",
        Format::Nsg2 | Format::Vnet4 => "json",
        Format::Gcp => "jsonl",
    };
    format!("flows.{}.{ext}", format.name())
}

fn write_logs(a: &Args, stdout: &mut dyn Write) -> Result<(), String> {
    let id = a.task.parse().map_err(|e: crate::Error| e.to_string())?;
    super::INFO.check_id(&id).map_err(|e| e.to_string())?;
    let g = generate(&id).map_err(|e| e.to_string())?;
    let formats = a.formats.clone().unwrap_or_else(|| vec![g.world.tenant.key.knobs.format]);
    let Some(dir) = &a.out else {
        return tool_args::written(g.world.write_logs(formats[0], stdout));
    };
    let dir = std::path::Path::new(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for f in formats {
        let path = dir.join(file_name(f));
        std::fs::File::create(&path)
            .and_then(|mut file| g.world.write_logs(f, &mut file))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        tool_args::written(writeln!(stdout, "{}", path.display()))?;
    }
    Ok(())
}

fn run(argv: &[String], _stdin: &mut dyn Read, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    match args(argv).and_then(|a| write_logs(&a, stdout)) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(stderr, "netpress microseg logs: {e}");
            2
        }
    }
}
