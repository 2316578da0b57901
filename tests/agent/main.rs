//! The agent clients' integration tests, one binary (one link of the library for the whole
//! area; see `tests/route/main.rs`): OpenAI-compatible and A2A clients against the mock
//! server, the CLI's agent commands, every application solved over HTTP, the prompt
//! digests, and a toy fourth application through the CLI and the batch runner. `support`
//! holds the helpers they share (and `tests/wasm_agent.rs` its digests).

mod a2a;
mod apps;
#[path = "../support/bless.rs"]
mod bless;
mod cli;
mod openai;
mod prompts;
mod support;
mod toy_app;
