//! `env --stdio`: the episode protocol as JSON lines on standard input and output.
//!
//! The dispatcher ([`crate::env::Dispatcher`]) does the work; this loop only reads bounded
//! lines, writes one response per line and flushes, so a trainer can drive episodes through
//! a pipe. Standard output carries protocol lines only; end of input closes every session and
//! exits 0. Sandboxed applications' turns run in sandbox processes (`netpress sandbox-worker`),
//! as under `netpress serve`.

use std::io::{BufRead, BufReader, Write};

use clap::Args;

use super::{CliResult, Context};
use crate::env::{Defaults, Dispatcher, Limits, SandboxConfig, SandboxPool};

#[derive(Args, Debug)]
pub struct EnvArgs {
    /// Speak the protocol over standard input and output (one JSON object per line).
    #[arg(long, required = true)]
    pub stdio: bool,
    #[command(flatten)]
    pub sessions: SessionArgs,
}

/// The flags `env --stdio` and `serve` share: reset defaults and session limits.
#[derive(Args, Debug)]
pub struct SessionArgs {
    /// The application of resets that name none (`{"seed": 42}`).
    #[arg(long)]
    pub app: Option<String>,
    /// The level of resets of `--app` that name none.
    #[arg(long)]
    pub level: Option<u8>,
    /// Sessions open at once (over every transport of this process).
    #[arg(long, default_value_t = 4096)]
    pub max_sessions: usize,
    /// Largest message (a stdio line, an HTTP body or a WebSocket message), in bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_body: usize,
    /// Sandbox processes for sandboxed applications' steps (MALT, traffic, microseg; each runs
    /// one answer at a time); default: the cores.
    #[arg(long)]
    pub sandbox_jobs: Option<usize>,
}

impl SessionArgs {
    /// The reset defaults and limits these flags set, once `--app` is known to the registry.
    pub fn resolve(&self, cx: &Context) -> CliResult<(Defaults, Limits)> {
        if let Some(app) = &self.app {
            cx.registry.app(app)?;
        }
        let defaults = Defaults { app: self.app.clone(), level: self.level };
        let limits =
            Limits { max_sessions: self.max_sessions.max(1), max_body: self.max_body, ..Limits::default() };
        Ok((defaults, limits))
    }

    /// This program as the sandbox processes (`netpress sandbox-worker`), when it is built with
    /// the sandbox (whose memory limit needs the binary's counting allocator).
    pub fn sandbox(&self) -> Option<SandboxConfig> {
        let program = std::env::current_exe().ok().filter(|_| cfg!(feature = "sandbox"))?;
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Some(SandboxConfig::new(program, self.sandbox_jobs.unwrap_or(cores)))
    }
}

pub fn env(cx: &mut Context, args: EnvArgs) -> CliResult {
    let (defaults, limits) = args.sessions.resolve(cx)?;
    // The dispatcher holds the registry for as long as it lives; the process's is 'static.
    let registry: &'static crate::registry::Registry = Box::leak(Box::new(cx.registry.clone()));
    let mut dispatcher = Dispatcher::new(registry, defaults, limits, Box::new(random_id));
    if let Some(config) = args.sessions.sandbox() {
        dispatcher = dispatcher.with_sandbox(SandboxPool::new(config));
    }
    let mut input = BufReader::new(&mut cx.console.stdin);
    let out = &mut cx.console.stdout;
    let mut line = Vec::new();
    while let Some(too_long) = read_line(&mut input, limits.max_body, &mut line)? {
        if !too_long && line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // A line past the limit is answered as one too large, whatever it holds.
        let answer = if too_long {
            dispatcher.handle(&vec![b' '; limits.max_body + 1])
        } else {
            dispatcher.handle(&line)
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    dispatcher.close_all();
    Ok(())
}

/// Reads one line (without its newline) into `line`, keeping at most `max` bytes: `None` at
/// the end of input, `Some(true)` when the line was longer (the rest is skipped, not stored).
fn read_line(input: &mut dyn BufRead, max: usize, line: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    line.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(read_any.then_some(too_long));
        }
        read_any = true;
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if line.len() + chunk.len() > max {
            too_long = true;
        } else {
            line.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(too_long));
        }
    }
}

/// 128 random bits in hex, the `episode_id` of a reset that names none.
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 16];
    // Without OS randomness (never expected natively) the ids would repeat across processes
    // only; within one, the dispatcher's map still keeps them apart by session name.
    let _ = getrandom::fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_bounded() {
        let text = b"short\r\nlong line here\n\nlast";
        let mut input = &text[..];
        let mut line = Vec::new();
        let mut got = Vec::new();
        while let Some(too_long) = read_line(&mut input, 8, &mut line).unwrap() {
            got.push((String::from_utf8(line.clone()).unwrap(), too_long));
        }
        let want = [("short", false), ("", true), ("", false), ("last", false)];
        assert_eq!(got, want.map(|(s, t)| (s.to_string(), t)));
        assert_ne!(random_id(), random_id());
        assert_eq!(random_id().len(), 32);
    }
}
