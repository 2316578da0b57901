//! `netpress-worker`: the MALT sandbox as a Web Worker of its own (feature `worker`).
//!
//! The main page bundle does not carry the Python interpreter; it spawns this worker (its own
//! wasm bundle, Trunk `data-type="worker"`), so a runaway answer can be terminated without
//! freezing the page. The worker builds and caches the task's topology from its id, runs the
//! answer in the sandbox, diffs, checks and posts the score.
//!
//! Message protocol (JSON strings through `postMessage`, both ways; the full description with
//! every field is in `netpress::malt::worker`):
//! - worker → page on start: `{"op":"ready","version":…}`;
//! - page → worker: `start` (id, max_turns?, variant?, limits?, agent?), `submit` (reply,
//!   latency_ms?, tokens?), `fail` (message, fatal?), `stop` (reason?), `check` (id, answer,
//!   limits?, agent?) and `ping`;
//! - worker → page: `started` (prompt), `turn` (turn record, finished, panels), `result`
//!   (result record, panels), `checked` (result record, panels, check_ms), `pong`, `error`.
//!   Every response carries `memory_bytes` (the worker's linear memory).
//!
//! The page keeps a watchdog: a worker silent for the time limit + 3 s is terminated and
//! respawned (`TimeoutError: sandbox terminated`); a worker that traps (the memory ceiling of
//! `monty-alloc`) is respawned (`sandbox crashed (memory)`); one whose `memory_bytes` passed
//! 1 GiB is respawned after its answer.
//!
//! Natively the same binary reads one JSON request per line on stdin and writes the responses
//! as JSON lines, for tests and for comparing browser results with native ones.

/// The memory limit of the sandbox works only with this allocator, armed during runs.
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

use netpress::malt::worker::Worker;

#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::{Closure, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = scope.clone();
    let mut worker = Worker::default();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let text = event.data().as_string().unwrap_or_default();
        for response in worker.handle(&text) {
            let _ = post.post_message(&JsValue::from_str(&response));
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str(&Worker::ready()));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use std::io::{BufRead, Write};

    let mut worker = Worker::default();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(out, "{}", Worker::ready());
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        for response in worker.handle(&line) {
            if writeln!(out, "{response}").and_then(|_| out.flush()).is_err() {
                return;
            }
        }
    }
}
