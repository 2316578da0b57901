//! `netpress-worker`: the sandbox Web Worker (feature `worker`), for every registered
//! application.
//!
//! The main page bundle does not carry the Python interpreter; it spawns this worker (its own
//! wasm bundle, Trunk `data-type="worker"`), so a runaway answer can be terminated without
//! freezing the page. In the browser each `postMessage` string is one request; natively the
//! binary reads one request per line on stdin and writes the responses as JSON lines, for
//! tests and for comparing browser results with native ones. The protocol, every op and field,
//! is described once, in `netpress::sandbox::worker`; docs/sandbox.md says why the worker
//! exists and when the page respawns one.

/// The memory limit of the sandbox works only with this allocator, armed during runs.
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

use netpress::registry::Registry;
use netpress::sandbox::worker::Worker;

#[cfg(target_arch = "wasm32")]
fn main() {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::{Closure, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = scope.clone();
    let mut worker = Worker::new(Registry::standard());
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

    let mut worker = Worker::new(Registry::standard());
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
