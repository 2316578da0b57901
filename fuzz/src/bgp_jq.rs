//! The shell's `jq` on any filter over any input: the first line is the filter (quoted, so the
//! bytes reach jq whole), the rest its standard input. No panic, no hang, no stack overflow,
//! output within the shell's limit: the walk that refuses unbounded filters and the depth
//! checks on filters and input are what this target leans on.

use netpress::k8s::cluster::Cluster;
use netpress::k8s::kubectl::{Env, VerbPolicy};
use netpress::k8s::shell as k8s;

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (filter, input) = text.split_once('\n').unwrap_or((&text, ""));
    let (flags, filter) = match filter.split_once('\u{1}') {
        Some((f, rest)) => (f.chars().filter(|c| "rcnsjS".contains(*c)).take(6).collect::<String>(), rest),
        None => (String::new(), filter),
    };
    let flags = if flags.is_empty() { String::new() } else { format!("-{flags} ") };
    let quoted = filter.replace('\'', "'\\''");
    let mut env = Env::new(Cluster::pristine(), VerbPolicy::default());
    let script = format!("cat <<'NETPRESS_END' | jq {flags}'{quoted}'\n{input}\nNETPRESS_END");
    let out = k8s::run(&script, &mut env);
    assert!(out.output.len() <= k8s::MAX_OUTPUT + 64, "{}", out.output.len());
}
