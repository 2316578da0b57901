//! The shell of a Route machine: the crate's one shell (`src/shell`) over the machine's
//! commands and its only files, the `/proc/sys` tree.
//!
//! Route keeps the shell narrow: any `$`, backquote or `<` is refused (the lab has no
//! variables, substitutions or readable redirections, and saying so beats running a line
//! bash would have expanded differently), a line is at most 4096 bytes and prints at most
//! 64 KiB. `sudo` is transparent: everyone is root here. Redirections may write a writable
//! `/proc/sys` key, which is how `echo 0 > /proc/sys/net/ipv4/ip_forward` works. docs/shell.md
//! lists the refusals' words and why these limits.

use super::cmd::{self, Ctx};
use super::net::{Net, NodeId, sysctl};
use crate::shell::{
    self, Commands, FileError, Grammar, Io, MAX_COMMANDS, MAX_STAGES, OpenError, Refused, Settings,
};

pub use crate::shell::{Outcome, Script, SyntaxError as ShellError};

/// Longest line the shell reads.
pub const MAX_LINE: usize = 4096;

/// Output one line may print.
pub const MAX_OUTPUT: usize = 64 * 1024;

const SETTINGS: Settings = Settings {
    grammar: Grammar { expansions: false, files: true, max_input: MAX_LINE },
    output: MAX_OUTPUT,
    refusal,
};

/// The lab's words for what it refuses.
fn refusal(r: &Refused) -> String {
    let what = match r {
        Refused::TooLong { limit, .. } => return format!("netpress: command line longer than {limit} bytes"),
        Refused::TooManyCommands => {
            return format!("netpress: more than {MAX_COMMANDS} commands on one line");
        }
        Refused::TooManyStages => {
            return format!("netpress: more than {MAX_STAGES} commands in one pipeline");
        }
        Refused::Dollar => "$".to_string(),
        Refused::Backquote => "`".into(),
        Refused::Input | Refused::HereString => "<".into(),
        Refused::Subshell => "( )".into(),
        Refused::Background => "&".into(),
        Refused::PipeBoth => "|&".into(),
        Refused::Keyword(k) if k == "{" || k == "}" => "{ }".into(),
        Refused::Keyword(_) => "loops and conditionals".into(),
        other => other.describe(),
    };
    format!("bash: {what}: not supported in this lab")
}

/// Runs one command line on `node`.
pub fn run(net: &mut Net, node: NodeId, line: &str) -> Outcome {
    shell::run(line, &SETTINGS, &mut Machine { net, node })
}

/// Reads a line into the script [`execute`] runs, for lines run many times.
pub fn read(line: &str) -> Result<Script, ShellError> {
    shell::read(line, &SETTINGS)
}

/// Runs a line read by [`read`] on `node`.
pub fn execute(net: &mut Net, node: NodeId, script: &Script) -> Outcome {
    shell::execute(script, &SETTINGS, &mut Machine { net, node })
}

/// One machine of the lab, as the shell sees it.
struct Machine<'a> {
    net: &'a mut Net,
    node: NodeId,
}

impl Commands for Machine<'_> {
    fn run(&mut self, name: &str, args: &[String], _stdin: &str, io: &mut Io) -> Option<i32> {
        let mut ctx = Ctx { net: self.net, node: self.node };
        cmd::run(&mut ctx, name, args, io)
    }

    /// `sudo [-E|-n|-H] CMD…` runs CMD.
    fn command_words<'a>(&self, words: &'a [String]) -> &'a [String] {
        let mut rest = words;
        while rest.first().is_some_and(|w| w == "sudo") {
            rest = &rest[1..];
            while rest.first().is_some_and(|w| matches!(w.as_str(), "-E" | "-n" | "-H")) {
                rest = &rest[1..];
            }
        }
        rest
    }

    /// A `/proc/sys` value.
    fn read(&self, path: &str) -> Result<String, FileError> {
        let key = sysctl::path_key(path).ok_or(FileError::NotFound)?;
        let found = sysctl::matching(&self.net.nodes[self.node], &key);
        if found.len() == 1 && found[0].0 == key {
            return Ok(format!("{}\n", found[0].1));
        }
        if !found.is_empty() || key == "net" { Err(FileError::IsDirectory) } else { Err(FileError::NotFound) }
    }

    /// Only a writable `/proc/sys` key opens for writing.
    fn open(&mut self, path: &str) -> Result<(), OpenError> {
        let Some(key) = sysctl::path_key(path) else {
            return Err(OpenError::bash(format!("bash: {path}: Read-only file system"), 1));
        };
        let n = &self.net.nodes[self.node];
        let found = sysctl::matching(n, &key);
        if found.len() != 1 || found[0].0 != key {
            return Err(OpenError::bash(format!("bash: {path}: No such file or directory"), 1));
        }
        if !sysctl::writable(n, &key) {
            return Err(OpenError::refusal(
                format!("netpress: writing {path}: not supported in this lab"),
                2,
            ));
        }
        Ok(())
    }

    fn write(&mut self, path: &str, text: &str, who: &str) -> Result<(), String> {
        let key = sysctl::path_key(path).unwrap_or_default();
        sysctl::write(self.net.node_mut(self.node), &key, text).map_err(|_| {
            let prefix = if who == "echo" { "bash: echo" } else { who };
            format!("{prefix}: write error: Invalid argument")
        })
    }

    fn after_pipeline(&mut self) {
        self.net.sync_carrier();
    }
}

#[cfg(test)]
mod tests;
