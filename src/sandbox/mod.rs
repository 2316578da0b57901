//! The sandbox layer: what every application whose episodes run untrusted code shares, below
//! the applications themselves.
//!
//! Some answers are programs. A MALT agent replies with Python that runs against a graph, and
//! later applications will run other code an agent wrote. Such a run has to be bounded: in
//! time, because a loop may never end; in memory, because a list may grow until the tab dies;
//! in calls into the host, and in recursion. Those bounds are the same idea whatever the
//! interpreter, so they live here once, as [`Limits`], while each application keeps its own
//! engine (MALT's monty interpreter is `crate::malt::sandbox`) and reads the limits it is
//! given.
//!
//! In the browser a bound is not enough: a running interpreter cannot be interrupted from the
//! thread it runs on, and a run that hits the memory ceiling traps the whole wasm instance.
//! So sandboxed episodes run in a Web Worker of their own (`netpress-worker`), which the page
//! can terminate and replace without losing itself. The page and the worker talk through one
//! small message protocol, [`worker`]: requests such as `start`, `submit`, `check` and `replay` in,
//! responses such as `turn` and `result` out, all JSON text. The protocol knows nothing of any
//! one application. It takes a [`crate::registry::Registry`], builds a task from its id through
//! the application the id names, applies a request's [`LimitOverrides`] through
//! [`crate::app::App::generate_limited`], and drives the episode with the library's runner, the
//! same one the CLI and the page use. An application therefore runs in the worker by being
//! registered, and nothing here changes when one is added.
//!
//! The protocol is pure (strings in, strings out, no I/O), so natively the same worker binary
//! is a JSON-lines filter and every exchange can be tested without a browser. docs/sandbox.md
//! tells the whole story: why a worker, the ops, the limits, and when the page respawns one.

mod limits;
mod lost;
mod replay;
// The worker needs a clock: natively `std`'s, in the browser the one the sandbox feature
// brings (`web-time`), so the wasm page bundle, which talks to the worker but is not one,
// does not build it.
#[cfg(any(feature = "sandbox", not(target_arch = "wasm32")))]
pub mod worker;
// The worker bundles' main loop: on wasm32 it needs the web bindings only `worker` brings.
#[cfg(any(feature = "worker", not(target_arch = "wasm32")))]
mod serve;

#[cfg(any(feature = "worker", not(target_arch = "wasm32")))]
pub use serve::serve;

pub use limits::{LimitOverrides, Limits};
pub use lost::Lost;
pub use replay::{ReplayTurn, Replayed};
