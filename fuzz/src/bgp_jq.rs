//! The shell's `jq` on any filter over any input: the first line is the filter (quoted, so the
//! bytes reach jq whole), the rest its standard input (quoted and echoed). No panic, no hang, no stack overflow,
//! output within the shell's limit: the walk that refuses unbounded filters and the depth
//! checks on filters and input are what this target leans on. It runs in BGP's shell, the one
//! that registers `jq` (inputs past the shell's line limit are refused before jq runs).

use netpress::bgp::task::Task;
use netpress::bgp::tools;

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (filter, input) = text.split_once('\n').unwrap_or((&text, ""));
    let (flags, filter) = match filter.split_once('\u{1}') {
        Some((f, rest)) => (f.chars().filter(|c| "rcnsjS".contains(*c)).take(6).collect::<String>(), rest),
        None => (String::new(), filter),
    };
    let flags = if flags.is_empty() { String::new() } else { format!("-{flags} ") };
    let quoted = filter.replace('\'', "'\\''");
    thread_local! {
        static TASK: Task = Task::generate(&"bgp-v1-L1-s1-i0".parse().expect("valid id")).expect("generates");
    }
    // BGP's grammar has no here-documents: the input comes quoted through `echo`.
    let input = input.replace('\'', "'\\''");
    let script = format!("echo '{input}' | jq {flags}'{quoted}'");
    let out = TASK.with(|task| tools::run(task, 0, &script));
    assert!(out.output.len() <= tools::PIPE_LIMIT + 64, "{}", out.output.len());
}
