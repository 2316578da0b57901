//! Replays a fuzz corpus through a target without libFuzzer's instrumentation and reports the
//! slowest inputs, for the specs' "no input over 10 ms" (libFuzzer's own `-timeout` counts in
//! whole seconds, under sanitizer overhead).
//!
//!     cargo build --release --bin slowest
//!     target/release/slowest k8s_shell corpus/k8s_shell [--limit-ms 10]
//!
//! Each input runs three times and its fastest run counts, so a busy machine does not fail it
//! by a stall. Exits 1 when an input is over the limit, 2 on a usage error.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (limit_ms, rest) = match args.iter().position(|a| a == "--limit-ms") {
        Some(i) => match args.get(i + 1).and_then(|v| v.parse::<f64>().ok()) {
            Some(ms) => (ms, [&args[..i], &args[i + 2..]].concat()),
            None => return usage("--limit-ms takes a number of milliseconds"),
        },
        None => (10.0, args),
    };
    let [name, dir] = rest.as_slice() else { return usage("expected a target and a corpus directory") };
    let Some(&(_, target)) = netpress_fuzz::TARGETS.iter().find(|(n, _)| n == name) else {
        return usage(&format!("no target {name}"));
    };
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect(),
        Err(e) => return usage(&format!("{dir}: {e}")),
    };
    files.sort();
    let mut timed: Vec<(f64, PathBuf)> = files
        .into_iter()
        .filter_map(|path| {
            let data = std::fs::read(&path).ok()?;
            Some((fastest_ms(target, &data), path))
        })
        .collect();
    timed.sort_by(|a, b| b.0.total_cmp(&a.0));
    let over = timed.iter().filter(|(ms, _)| *ms > limit_ms).count();
    println!("{name}: {} inputs, {over} over {limit_ms} ms", timed.len());
    for (ms, path) in timed.iter().take(5) {
        println!("  {ms:9.3} ms  {}", path.display());
    }
    if over > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn fastest_ms(target: fn(&[u8]), data: &[u8]) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            target(data);
            start.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

fn usage(why: &str) -> ExitCode {
    eprintln!("slowest: {why}\nusage: slowest TARGET CORPUS_DIR [--limit-ms MS]");
    ExitCode::from(2)
}
