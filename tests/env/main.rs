//! The environment protocol's integration tests, one binary (one link of the library for the
//! area; see `tests/route/main.rs`): the same records as `netpress run` through the protocol,
//! the stdio command as a process, the HTTP and WebSocket server on loopback, its messages
//! against OpenEnv's types, and a panicking application isolated to its session.
#![cfg(all(feature = "cli", not(target_arch = "wasm32")))]

mod assessor;
mod bench_serve;
mod openenv;
mod panic;
mod parity;
mod sandbox;
mod sandbox_callers;
mod sandbox_turns;
mod serve;
mod stdio;
mod support;
