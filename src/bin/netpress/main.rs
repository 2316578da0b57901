//! `netpress`: the command-line surface of the NetPress library.
//!
//! The tool itself is the library's module `netpress::cli`, run here over the shipped
//! applications and the process's own streams. What stays here belongs to the process: a
//! panic (a bug) prints one line, never a backtrace, and the allocator the sandbox counts
//! with.

use std::process::ExitCode;

use netpress::cli::Console;
use netpress::registry::Registry;

/// Counts live bytes so the MALT sandbox can enforce its memory limit; armed only while an
/// answer runs (the 256 MiB limit of docs/malt.md, "Answering and checking").
#[cfg(feature = "sandbox")]
#[global_allocator]
static ALLOC: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("netpress: internal error (please report): {msg}{at}");
    }));
    ExitCode::from(netpress::cli::main(Registry::standard(), std::env::args_os(), Console::process()))
}
