//! Single operations that can run long or grow huge inside one interpreter step, where the
//! VM's clock is never read: each must end at once with the Python error the agent sees.
//! Shared by the native sandbox tests and the headless-Chrome ones (`malt_wasm_browser.rs`).

use netpress::malt::graph::Working;
use netpress::malt::sandbox::{self, Limits};
use netpress::malt::topo::{TopoKey, topology};

#[cfg(not(target_arch = "wasm32"))]
use std::time::Instant;
#[cfg(target_arch = "wasm32")]
use web_time::Instant;

/// A function body and the error it must end in.
pub const CASES: &[(&str, &str)] = &[
    ("    return 10 ** (10 ** 8)", "OverflowError: integer too large for the sandbox"),
    ("    return 10 ** (10 ** 7)", "OverflowError: integer too large for the sandbox"),
    ("    return pow(7, 10 ** 9)", "OverflowError: integer too large for the sandbox"),
    ("    return (-3) ** (2 ** 40)", "OverflowError: integer too large for the sandbox"),
    ("    x = 10 ** 70000\n    return x * x", "OverflowError: integer too large for the sandbox"),
    ("    x = 10 ** 40000\n    return x * 10 ** 40000", "OverflowError: integer too large for the sandbox"),
    ("    return 1 << (10 ** 9)", "OverflowError: integer too large for the sandbox"),
    ("    return (10 ** 5000) << (10 ** 8)", "OverflowError: integer too large for the sandbox"),
    ("    return pow(3, 2 ** 100000, 2 ** 100000 + 1)", "OverflowError: pow() with a modulus too costly"),
    ("    return int('f' * 1000000, 16)", "OverflowError: integer too large for the sandbox"),
    ("    return str(10 ** 70000)", "ValueError: Exceeds the limit (4300 digits)"),
    ("    return repr(10 ** 70000)", "ValueError: Exceeds the limit (4300 digits)"),
    ("    return f'{10 ** 70000}'", "ValueError: Exceeds the limit (4300 digits)"),
    ("    print(10 ** 70000)", "ValueError: Exceeds the limit (4300 digits)"),
    ("    return int('9' * 100000)", "ValueError: Exceeds the limit (4300 digits)"),
    ("    return 'x' * (10 ** 9)", "MemoryError"),
    ("    return [0] * (10 ** 9)", "MemoryError"),
    ("    return ('ab',) * (10 ** 9)", "MemoryError"),
    ("    return 'x'.ljust(10 ** 9)", "MemoryError"),
    // A refused operation is a limit like time and memory: it cannot be caught and retried.
    (
        "    try:\n        x = 10 ** (10 ** 8)\n    except Exception:\n        return 1\n    return 2",
        "OverflowError: integer too large for the sandbox",
    ),
];

/// Bodies with big but bounded integers that must keep working, and their results.
pub const ALLOWED: &[(&str, i64)] = &[
    ("    return len(str(2 ** 14000))", 4215),
    ("    return (10 ** 70000) % 997", 731),
    ("    return pow(2, 10 ** 6, 10 ** 9 + 7) > 0", 1),
    ("    x = 3 ** 50000\n    return (x * x) % 1000", 1),
    ("    return (1 << 200000) >> 199990", 1024),
    ("    return int('f' * 60000, 16) % 7", 0),
];

fn run(body: &str) -> (Result<String, String>, f64) {
    let program = format!("def process_graph(G):\n{body}\n\nprocess_graph(G)\n");
    let start = Instant::now();
    let o = sandbox::run(&program, Working::new(topology(TopoKey::default())), &Limits::default());
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    (o.value.map(|v| format!("{v:?}")), ms)
}

/// Every case ends in its error well within the 2 s limit (`max_ms`), and the allowed
/// bodies return their values.
pub fn single_operations_are_bounded(max_ms: f64) {
    for (body, want) in CASES {
        let (value, ms) = run(body);
        let err = value.expect_err(body);
        assert!(err.contains(want), "{body}: {err}");
        assert!(ms < max_ms, "{body}: {ms:.0} ms");
    }
    for (body, want) in ALLOWED {
        let (value, ms) = run(body);
        let got = value.unwrap_or_else(|e| panic!("{body}: {e}"));
        let want =
            if got.starts_with("Bool") { format!("Bool({})", *want == 1) } else { format!("Int({want})") };
        assert_eq!(got, want, "{body}");
        assert!(ms < max_ms, "{body}: {ms:.0} ms");
    }
}
