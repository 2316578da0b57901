//! The sandbox processes: a sandboxed application's step (MALT's, which runs the agent's
//! Python) never runs in the process that holds the sessions (`netpress serve`'s, `netpress
//! env --stdio`'s, the assessor's).
//!
//! The sandbox's memory limit counts every live byte of the process it runs in, and a run past
//! the hard ceiling ends that process. In a process holding thousands of sessions, one runaway
//! answer would take them all down, and the others' bytes would count against it. So each run
//! goes to a child process (`netpress sandbox-worker`, the sandbox worker's JSON-lines protocol,
//! op `replay`) that does one request at a time and keeps nothing between requests, so any
//! child serves any step. At most `jobs` children live; at most 4 × `jobs` steps wait for one,
//! later ones are refused (`SANDBOX_BUSY`). A child that exits mid-run (the memory ceiling) or
//! stays silent past its runs' time limits plus a margin is killed and forgotten, and a fresh
//! one is started for the next step; the step observes the loss as the browser's page does: a
//! failed turn `MemoryError: sandbox crashed (memory)` or `TimeoutError: sandbox terminated`.
//! A child found dead while idle (killed from outside) is dropped before it is asked anything,
//! so no step pays for it.
//!
//! Everything here blocks: the server's steps already run on tokio's blocking pool, stdio's and
//! the assessor's on threads of their own.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::error::{EnvError, Reason};
pub use crate::sandbox::Lost;

/// Set (to `1`) in every sandbox process's environment: a process that only knows at its
/// first allocation whether it will run the sandbox reads it (the Python extension's allocator
/// counts live bytes, which the sandbox's memory limit needs, only where it is set).
pub const SANDBOX_PROCESS_VAR: &str = "NETPRESS_SANDBOX_PROCESS";

/// How long a new process may take to say it is ready.
const START: Duration = Duration::from_secs(10);

/// How to start sandbox processes and how many.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// The program (the `netpress` binary) and its arguments (`sandbox-worker`).
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Processes at most (a run each at a time).
    pub jobs: usize,
    /// How long a request of one run may keep its process silent: the sandbox's time limit
    /// plus a margin.
    pub silence: Duration,
    /// What each further run of a request (a replayed turn) adds to that: its time limit.
    pub per_run: Duration,
}

impl SandboxConfig {
    /// `netpress sandbox-worker` of `program`, `jobs` of them, the default time limit + 3 s.
    pub fn new(program: PathBuf, jobs: usize) -> Self {
        let per_run = crate::sandbox::Limits::default().time;
        let silence = per_run + Duration::from_secs(3);
        SandboxConfig { program, args: vec!["sandbox-worker".into()], jobs: jobs.max(1), silence, per_run }
    }

    /// How long a request of `runs` runs may keep its process silent.
    fn silence_for(&self, runs: usize) -> Duration {
        let more = u32::try_from(runs.saturating_sub(1)).unwrap_or(u32::MAX);
        self.silence.saturating_add(self.per_run.saturating_mul(more))
    }
}

/// One child process and the lines it writes.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Process {
    fn spawn(config: &SandboxConfig) -> Result<Process, String> {
        let mut child = Command::new(&config.program)
            .args(&config.args)
            .env(SANDBOX_PROCESS_VAR, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the sandbox process {}: {e}", config.program.display()))?;
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            let _ = child.kill();
            return Err("the sandbox process has no pipes".into());
        };
        // A reader thread per process, so a read can time out: it ends when the process does.
        let (tx, lines) = channel();
        std::thread::Builder::new()
            .name("netpress-sandbox-read".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| format!("cannot start a reader thread: {e}"))?;
        let mut process = Process { child, stdin, lines };
        match process.read(config.silence.max(START)) {
            Ok(v) if v["op"] == "ready" => Ok(process),
            _ => {
                process.end();
                Err("the sandbox process did not start".into())
            }
        }
    }

    fn read(&mut self, silence: Duration) -> Result<Value, Lost> {
        match self.lines.recv_timeout(silence) {
            Ok(line) => serde_json::from_str(&line).map_err(|_| Lost::Crashed),
            Err(RecvTimeoutError::Timeout) => Err(Lost::Silent),
            Err(RecvTimeoutError::Disconnected) => Err(Lost::Crashed),
        }
    }

    fn ask(&mut self, request: &Value, silence: Duration) -> Result<Value, Lost> {
        writeln!(self.stdin, "{request}").and_then(|_| self.stdin.flush()).map_err(|_| Lost::Crashed)?;
        self.read(silence)
    }

    /// Whether the process has exited (killed while idle).
    fn exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    fn end(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The processes, started on demand and reused.
pub struct SandboxPool {
    config: SandboxConfig,
    idle: Mutex<Idle>,
    freed: Condvar,
    /// Steps admitted: running plus waiting.
    admitted: AtomicUsize,
}

#[derive(Default)]
struct Idle {
    processes: Vec<Process>,
    /// Processes alive, idle or running.
    alive: usize,
}

impl SandboxPool {
    pub fn new(config: SandboxConfig) -> Self {
        SandboxPool { config, idle: Mutex::default(), freed: Condvar::new(), admitted: AtomicUsize::new(0) }
    }

    pub fn jobs(&self) -> usize {
        self.config.jobs
    }

    /// Sends `request` (a worker `replay` of `runs` turns) to a process and returns its answer,
    /// or why the process was lost; `Err` when the queue is full or no process could be started.
    pub fn run(&self, request: &Value, runs: usize) -> Result<Result<Value, Lost>, EnvError> {
        let most = self.config.jobs * 5;
        self.admitted
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < most).then_some(n + 1))
            .map_err(|_| {
                EnvError::new(
                    Reason::SandboxBusy,
                    format!("{} sandbox runs are running or waiting, the most the sandbox pool queues", most),
                )
            })?;
        let answer = self.run_admitted(request, self.config.silence_for(runs));
        self.admitted.fetch_sub(1, Ordering::SeqCst);
        answer
    }

    fn run_admitted(&self, request: &Value, silence: Duration) -> Result<Result<Value, Lost>, EnvError> {
        let mut process = self.take()?;
        match process.ask(request, silence) {
            Ok(answer) => {
                self.give_back(process);
                Ok(Ok(answer))
            }
            Err(lost) => {
                process.end();
                self.forget();
                Ok(Err(lost))
            }
        }
    }

    /// An idle process, a new one while fewer than `jobs` live, else the next one freed.
    fn take(&self) -> Result<Process, EnvError> {
        let mut idle = lock(&self.idle);
        loop {
            if let Some(mut p) = idle.processes.pop() {
                if !p.exited() {
                    return Ok(p);
                }
                p.end();
                idle.alive = idle.alive.saturating_sub(1);
                continue;
            }
            if idle.alive < self.config.jobs {
                idle.alive += 1;
                drop(idle);
                return Process::spawn(&self.config)
                    .inspect_err(|_| self.forget())
                    .map_err(|e| EnvError::new(Reason::Panic, format!("{e}; the step did not run")));
            }
            idle = self.freed.wait(idle).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn give_back(&self, process: Process) {
        lock(&self.idle).processes.push(process);
        self.freed.notify_one();
    }

    /// A process ended: one fewer alive, so a waiting step may start a fresh one.
    fn forget(&self) {
        let mut idle = lock(&self.idle);
        idle.alive = idle.alive.saturating_sub(1);
        drop(idle);
        self.freed.notify_one();
    }

    /// Processes alive now (idle or running).
    pub fn alive(&self) -> usize {
        lock(&self.idle).alive
    }

    /// Steps admitted now: running or waiting for a process.
    pub fn queued(&self) -> usize {
        self.admitted.load(Ordering::SeqCst)
    }

    /// The process ids of the idle processes (for operators and tests: a process killed from
    /// outside is replaced before the next step uses it).
    pub fn idle_pids(&self) -> Vec<u32> {
        lock(&self.idle).processes.iter().map(|p| p.child.id()).collect()
    }
}

/// Locks a mutex, carrying on after a panic elsewhere poisoned it (the pool's counts are
/// updated in single statements, so they stay consistent).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Drop for SandboxPool {
    fn drop(&mut self) {
        for p in lock(&self.idle).processes.drain(..) {
            p.end();
        }
    }
}
