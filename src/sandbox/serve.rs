//! The worker bundles' main loop: the protocol of [`super::worker`] over a transport.
//!
//! In the browser each `postMessage` string is one request, answered by `postMessage`s; natively
//! one request per line on stdin, answered by JSON lines on stdout, for tests and for comparing
//! browser results with native ones. Every worker binary (the one for all applications and each
//! application's own bundle, docs/bundles.md) is this loop over a different list of
//! applications, so a bundle links only the engines it lists.

use crate::app::App;
use crate::registry::Registry;

use super::worker::Worker;

/// Serves the protocol for `apps` until the transport closes (natively) or forever (in a Web
/// Worker, where the page terminates it).
pub fn serve(apps: &[&'static dyn App]) {
    let registry = apps.iter().fold(Registry::empty(), |r, app| r.with(*app));
    run(Worker::new(Box::leak(Box::new(registry))));
}

#[cfg(target_arch = "wasm32")]
fn run(mut worker: Worker) {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::{Closure, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = scope.clone();
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
fn run(mut worker: Worker) {
    use std::io::{BufRead, Write};

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
