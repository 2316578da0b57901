//! `netpress bgp mrt`: a task's collector files as real MRT, for the tools people already use
//! (`netpress bgp exec`, the shared command, runs tool commands on a task).

use std::io::{Read, Write};

use super::task::Task;
use super::tools::{self, bgpdump, mrt};
use crate::app::Tool;

pub const MRT: Tool = Tool {
    name: "mrt",
    about: "write a task's collector files as real MRT (RFC 6396) plus as-rel.txt and vrps.csv (--task ID -o DIR)",
    usage: "usage: netpress bgp mrt --task ID -o DIR [--collector rcNN] [--with-truth]

Writes DIR/rcNN/bview.YYYYMMDD.HHMM (TABLE_DUMP_V2) and DIR/rcNN/updates.YYYYMMDD.HHMM
(BGP4MP_MESSAGE_AS4), uncompressed, for every collector (or one), plus DIR/as-rel.txt,
DIR/vrps.csv and, with --with-truth, DIR/truth.json (the answer).
",
    run: write_mrt,
};

struct Args {
    task: Option<String>,
    out: Option<String>,
    collector: Option<String>,
    truth: bool,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args { task: None, out: None, collector: None, truth: false };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
        match x.as_str() {
            "--task" => a.task = Some(value("--task")?),
            "-o" | "--output" => a.out = Some(value("-o")?),
            "--collector" => a.collector = Some(value("--collector")?),
            "--with-truth" => a.truth = true,
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    Ok(a)
}

fn task_of(a: &Args) -> Result<Task, String> {
    let id = a.task.as_deref().ok_or("--task ID is required")?;
    let id = id.parse().map_err(|e: crate::error::Error| e.to_string())?;
    Task::generate(&id).map_err(|e| e.to_string())
}

fn write_mrt(args: &[String], _stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let result = (|| -> Result<usize, String> {
        let a = parse(args)?;
        let task = task_of(&a)?;
        let dir = std::path::PathBuf::from(a.out.as_deref().ok_or("-o DIR is required")?);
        let mut files = 0;
        let io = |e: std::io::Error| e.to_string();
        for k in 0..task.world.collectors.count {
            let name = super::collectors::name(k);
            if a.collector.as_ref().is_some_and(|c| *c != name) {
                continue;
            }
            std::fs::create_dir_all(dir.join(&name)).map_err(io)?;
            for f in bgpdump::file_names(&task) {
                let path = format!("{name}/{f}");
                let Some(file) = bgpdump::lookup(&task, &path) else { continue };
                std::fs::write(dir.join(&path), mrt::bytes(&task, file)).map_err(io)?;
                files += 1;
            }
        }
        let text = |line: &str| tools::run(&task, 0, line).output;
        std::fs::write(dir.join("as-rel.txt"), text("asrel --all")).map_err(io)?;
        std::fs::write(dir.join("vrps.csv"), text("vrps")).map_err(io)?;
        if a.truth {
            let truth = super::score::truth(&task);
            std::fs::write(dir.join("truth.json"), format!("{truth:#}\n")).map_err(io)?;
        }
        Ok(files)
    })();
    match result {
        Ok(n) => {
            let _ = writeln!(out, "wrote {n} MRT files");
            0
        }
        Err(e) => {
            let _ = writeln!(err, "netpress bgp mrt: {e}");
            2
        }
    }
}
