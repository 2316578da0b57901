//! What a transport adds to a step: the same steps timed natively (a [`Session`] in this
//! process, no I/O, no JSON) and through `netpress env --stdio` in a child process (a JSON line
//! written, flushed, and its answer read and parsed, one at a time).
//!
//! Both walk the same episodes: [`Family::task_id`] of seeds 0, 1, … with a turn limit of 50,
//! each stepped with [`Family::reply`] until it ends, then the next, until the step count or
//! the time limit. Resets are not timed. `netpress bench --env stdio` prints both and the
//! difference of their percentiles; the MALT load (`--serve ws --app malt`) takes its native
//! figures from here too.

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use super::load::{Family, observation_str, percentiles, walk};
use crate::conversation::AgentReply;
use crate::env::{Defaults, ResetParams, Session};
use crate::registry::Registry;

/// Latency percentiles of one way of stepping, in ms.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Latency {
    pub steps: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
}

impl Latency {
    fn of(mut samples: Vec<u64>) -> Latency {
        let [p50_ms, p95_ms, p99_ms] = percentiles(&mut samples);
        Latency { steps: samples.len(), p50_ms, p95_ms, p99_ms }
    }
}

/// The stdio round trip against the native step.
#[derive(Debug, Clone, Serialize)]
pub struct RoundTrip {
    pub app: Family,
    pub native: Latency,
    pub stdio: Latency,
    /// `stdio.p99_ms - native.p99_ms`.
    pub p99_above_native_ms: f64,
}

impl std::fmt::Display for RoundTrip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (n, s) = (&self.native, &self.stdio);
        writeln!(
            f,
            "native, {}: {:>6} steps; step p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms",
            self.app.name(),
            n.steps,
            n.p50_ms,
            n.p95_ms,
            n.p99_ms
        )?;
        writeln!(
            f,
            "stdio,  {}: {:>6} steps; step p50 {:.3} ms, p95 {:.3} ms, p99 {:.3} ms",
            self.app.name(),
            s.steps,
            s.p50_ms,
            s.p95_ms,
            s.p99_ms
        )?;
        write!(
            f,
            "stdio above native: p50 {:+.3} ms, p99 {:+.3} ms",
            s.p50_ms - n.p50_ms,
            self.p99_above_native_ms
        )
    }
}

/// Walks episodes of seeds 0, 1, … (`load::walk`): `start(seed)` starts one and gives its
/// prompt (untimed), `step(reply)` takes a turn and says whether the episode is over.
fn walk_seeds(
    family: Family,
    steps: usize,
    limit: Duration,
    mut start: impl FnMut(usize) -> Result<String, String>,
    step: impl FnMut(&str) -> Result<bool, String>,
) -> Result<Vec<u64>, String> {
    let mut seed = 0;
    let prompt = start(seed)?;
    walk(
        family,
        steps,
        limit,
        prompt,
        || {
            seed += 1;
            start(seed)
        },
        step,
    )
}

/// The steps in this process: a [`Session`] of the library, stepped directly (a sandboxed
/// application's answers run here, as `netpress run` runs them).
pub fn native(registry: &Registry, family: Family, steps: usize, limit: Duration) -> Result<Latency, String> {
    let session: RefCell<Option<Session>> = RefCell::new(None);
    let samples = walk_seeds(
        family,
        steps,
        limit,
        |seed| {
            let params = ResetParams::from_value(Some(family.reset_data(seed))).map_err(|e| e.to_string())?;
            let resolved =
                params.resolve_with(registry, &Defaults::default(), true).map_err(|e| e.to_string())?;
            let (s, started) = Session::start(resolved, || format!("native-{seed}"));
            *session.borrow_mut() = Some(s);
            Ok(started.observation.text)
        },
        |reply| {
            let mut session = session.borrow_mut();
            let s = session.as_mut().ok_or("no session")?;
            let turn = Ok(AgentReply { text: reply.to_string(), latency_ms: None, tokens: None });
            Ok(s.step(turn).done)
        },
    )?;
    Ok(Latency::of(samples))
}

/// `netpress env --stdio` as a child process, one line at a time.
struct EnvChild {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    line: String,
}

impl EnvChild {
    fn spawn(exe: &Path, family: Family) -> Result<EnvChild, String> {
        let mut command = Command::new(exe);
        command.args(["env", "--stdio"]);
        if family.sandboxed() {
            // One line at a time: one sandbox process serves every step.
            command.args(["--sandbox-jobs", "1"]);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {} env --stdio: {e}", exe.display()))?;
        let (input, output) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, BufReader::new(o)),
            _ => return Err("the child's pipes are missing".into()),
        };
        Ok(EnvChild { child, input, output, line: String::new() })
    }

    /// Sends one message; the answer's `data`.
    fn ask(&mut self, message: &Value) -> Result<Value, String> {
        writeln!(self.input, "{message}").and_then(|()| self.input.flush()).map_err(|e| e.to_string())?;
        self.line.clear();
        if self.output.read_line(&mut self.line).map_err(|e| e.to_string())? == 0 {
            return Err("netpress env --stdio ended".into());
        }
        let mut answer: Value = serde_json::from_str(&self.line).map_err(|e| e.to_string())?;
        if answer["type"] != "observation" {
            return Err(format!("not an observation: {}", self.line.trim_end()));
        }
        Ok(answer["data"].take())
    }
}

impl Drop for EnvChild {
    fn drop(&mut self) {
        // End of input ends the child; wait for it so it leaves no zombie.
        let _ = self.input.flush();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The steps through `exe env --stdio` (this program, in the command line).
pub fn stdio(exe: &Path, family: Family, steps: usize, limit: Duration) -> Result<Latency, String> {
    let mut child = EnvChild::spawn(exe, family)?;
    let child = RefCell::new(&mut child);
    let samples = walk_seeds(
        family,
        steps,
        limit,
        |seed| {
            let data = child.borrow_mut().ask(&json!({"type": "reset", "data": family.reset_data(seed)}))?;
            observation_str(&data["observation"], "text")
        },
        |reply| {
            let data = child.borrow_mut().ask(&json!({"type": "step", "data": {"reply": reply}}))?;
            data["done"].as_bool().ok_or_else(|| format!("no done: {data}"))
        },
    )?;
    Ok(Latency::of(samples))
}

/// Both, native first.
pub fn run(
    registry: &Registry,
    exe: &Path,
    family: Family,
    steps: usize,
    limit: Duration,
) -> Result<RoundTrip, String> {
    let native = native(registry, family, steps, limit)?;
    let stdio = stdio(exe, family, steps, limit)?;
    Ok(RoundTrip { app: family, native, stdio, p99_above_native_ms: stdio.p99_ms - native.p99_ms })
}
