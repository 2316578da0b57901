//! The investigator's tools, as commands of the crate's one shell (docs/bgp.md, "Tools").
//!
//! Everything the agent can look at is computed on demand from the task: the collectors'
//! files read through `bgpdump -m` ([`bgpdump`]), RIPEstat-shaped JSON through `ripestat` or an
//! offline `curl` (`ripestat`), the AS relationships and the VRPs (`registry`), the probes and
//! their traceroutes over the data plane (`atlas`, `traceroute`). Pipes, `grep`, `head`, `tail`, `wc` and the rest come from the shell.
//!
//! The agent sees at most [`OBSERVATION`] characters of a command's output, cut at a line end
//! with a note that says how to page; pipes in between carry up to [`PIPE_LIMIT`] bytes, so a
//! whole RIB dump can be grepped.

mod atlas;
pub mod bgpdump;
mod json;
pub mod mrt;
mod registry;
pub mod ripestat;
pub mod time;
mod traceroute;
pub mod view;

use super::task::Task;
use crate::shell::{self, Commands, FileError, Grammar, Io, MAX_COMMANDS, MAX_STAGES, Refused, Settings};

pub use crate::shell::Outcome;

/// Longest line the shell reads.
pub const MAX_LINE: usize = 4096;
/// Bytes a command or a pipe may carry.
pub const PIPE_LIMIT: usize = 64 << 20;
/// Characters of output the agent sees per turn.
pub const OBSERVATION: usize = 16_000;

const SETTINGS: Settings = Settings {
    grammar: Grammar { expansions: false, files: true, max_input: MAX_LINE },
    output: PIPE_LIMIT,
    refusal,
};

/// The commands `help` lists, one line each; v2 prompts quote it whole.
pub const HELP: &str = "\
help                                   this list
ls [rcNN]                              the collectors' files: rcNN/bview.YYYYMMDD.HHMM (8-hourly RIB dumps), rcNN/updates.YYYYMMDD.HHMM (15 minutes each)
bgpdump -m [-t dump|change] FILE       one line per route or update of an MRT file
ripestat CALL k=v ...                  RIPEstat data call (bgp-updates, looking-glass, routing-history, announced-prefixes, prefix-overview, as-overview, asn-neighbours, rpki-validation, whois, visibility, routing-status)
curl -s 'https://stat.ripe.net/data/CALL/data.json?k=v&...'   the same, as a URL
asrel ASN [ASN] | asrel --all          AS relationships inferred before the window (provider|customer|-1, peer|peer|0)
vrps [--asn N] [--prefix P]            validated ROA payloads at the window's end (CSV)
atlas probes [--asn N] [--region R]    the measurement probes
atlas traceroute --probes ID,... --target ADDR [--time T]   ICMP traceroutes from up to 10 probes at T (default the window's end), RIPE Atlas JSON
submit {JSON}                          your verdict; ends the investigation
Text tools: grep, head, tail, wc, sort, uniq, cut, sed (line addresses: sed -n 'A,Bp'), cat, echo, jq; pipes |, ;, &&.
";

/// The list v1 prompts quote, frozen: the prompt is part of every task's content hash, so a v1
/// id keeps this text; `help` adds [`HELP_LATER`] to it for v1 tasks (docs/bgp.md, "The tools").
pub const HELP_V1: &str = "\
help                                   this list
ls [rcNN]                              the collectors' files: rcNN/bview.YYYYMMDD.HHMM (8-hourly RIB dumps), rcNN/updates.YYYYMMDD.HHMM (15 minutes each)
bgpdump -m [-t dump|change] FILE       one line per route or update of an MRT file
ripestat CALL k=v ...                  RIPEstat data call (bgp-updates, looking-glass, routing-history, announced-prefixes, prefix-overview, as-overview, asn-neighbours, rpki-validation, whois)
curl -s 'https://stat.ripe.net/data/CALL/data.json?k=v&...'   the same, as a URL
asrel ASN [ASN] | asrel --all          AS relationships inferred before the window (provider|customer|-1, peer|peer|0)
vrps [--asn N] [--prefix P]            validated ROA payloads at the window's end (CSV)
atlas probes [--asn N] [--region R]    the measurement probes
submit {JSON}                          your verdict; ends the investigation
Text tools: grep, head, tail, wc, sort, uniq, cut, sed (line addresses: sed -n 'A,Bp'), cat, echo; pipes |, ;, &&.
";

/// What `help` adds to [`HELP_V1`] for a v1 task: the calls served after v1's prompt was fixed.
pub const HELP_LATER: &str = "\
atlas traceroute --probes ID,... --target ADDR [--time T]   ICMP traceroutes from up to 10 probes at T (default the window's end), RIPE Atlas JSON
RIPEstat also serves: visibility (resource, query_time, include=peers_seeing), routing-status (resource, timestamp).
";

/// The command list a prompt of generator version `version` quotes.
pub fn commands(version: u32) -> &'static str {
    if version == 1 { HELP_V1 } else { HELP }
}

/// The lab's words for what it refuses.
fn refusal(r: &Refused) -> String {
    match r {
        Refused::TooLong { limit, .. } => format!("netpress-sh: command line longer than {limit} bytes"),
        Refused::TooManyCommands => format!("netpress-sh: more than {MAX_COMMANDS} commands on one line"),
        Refused::TooManyStages => format!("netpress-sh: more than {MAX_STAGES} commands in one pipeline"),
        other => format!("netpress-sh: unsupported in this lab: {}", other.describe()),
    }
}

/// Runs one command line over `task`; `turn` numbers RIPEstat's query ids.
pub fn run(task: &Task, turn: u32, line: &str) -> Outcome {
    shell::run(line, &SETTINGS, &mut Lab { task, turn })
}

/// The observation of an output: at most [`OBSERVATION`] characters, cut at a line end, with a
/// paging note when cut.
pub fn observe(output: &str) -> String {
    if output.chars().count() <= OBSERVATION {
        return output.to_string();
    }
    let total = output.lines().count();
    let mut shown = 0;
    let mut used = 0;
    for line in output.split_inclusive('\n') {
        let n = line.chars().count();
        if used + n > OBSERVATION - 200 {
            break;
        }
        used += n;
        shown += 1;
    }
    let mut text: String = output.split_inclusive('\n').take(shown).collect();
    if shown == 0 {
        text = output.chars().take(OBSERVATION - 200).collect();
        text.push('\n');
    }
    text.push_str(&format!(
        "[truncated: lines 1–{shown} of {total} shown; page with | tail -n +{} | head -n {shown}]\n",
        shown + 1
    ));
    text
}

/// The task as the shell sees it.
struct Lab<'a> {
    task: &'a Task,
    turn: u32,
}

impl Commands for Lab<'_> {
    fn run(&mut self, name: &str, args: &[String], stdin: &str, io: &mut Io) -> Option<i32> {
        let task = self.task;
        Some(match name {
            "help" => {
                io.out(commands(task.id.version));
                if task.id.version == 1 {
                    io.out(HELP_LATER);
                }
                0
            }
            "ls" => bgpdump::ls(task, args, io),
            "bgpdump" => bgpdump::run(task, args, io),
            "ripestat" => ripestat::command(task, self.turn, args, io),
            "curl" => ripestat::curl(task, self.turn, args, io),
            "asrel" => registry::asrel(task, args, io),
            "vrps" => registry::vrps(task, args, io),
            "atlas" => atlas::atlas(task, args, io),
            // RIPEstat answers and traceroutes are JSON: the shell's jq reads them.
            "jq" => shell::tools::jq(args, stdin, &|path| self.read(path), io),
            "submit" => {
                io.fail(2, "submit: give the verdict as JSON: submit {\"incident_type\": \"...\", ...}")
            }
            _ => return None,
        })
    }

    /// The collectors' files are binary MRT: the text tools see a pointer to bgpdump.
    fn read(&self, path: &str) -> Result<String, FileError> {
        match bgpdump::lookup(self.task, path) {
            Some(_) => Ok(format!("(binary MRT data; read it with: bgpdump -m {path})\n")),
            None if bgpdump::is_dir(self.task, path) => Err(FileError::IsDirectory),
            None => Err(FileError::NotFound),
        }
    }
}

/// `<tool>: unknown option -- X` and the pointer to `help`, status 2.
fn unknown_option(io: &mut Io, tool: &str, opt: &str) -> i32 {
    io.fail(2, &format!("{tool}: unknown option -- {}\nTry 'help'.", opt.trim_start_matches('-')))
}

#[cfg(test)]
mod tests;
