//! The agent's shell on a K8s task: the crate's one shell (`src/shell`) with `kubectl`
//! registered as its one command.
//!
//! An action is a small script, so K8s accepts more of bash than a Route machine does:
//! newlines, here-documents (`kubectl apply -f - <<'EOF'`), `$'…'`, `$NAME` read as empty,
//! and the one substitution agents write for patches, `$(cat <<'EOF' … EOF)`. There is no file
//! system: only `/dev/null`, `2>&1` and `>&2` redirect, and file operands are missing. The
//! whole action is read before anything runs; a refused construct runs nothing and exits 2.
//! docs/shell.md gives the refusals' words and the limits.

use crate::k8s::kubectl::{self, Env};
use crate::k8s::output::Output;
use crate::shell::{self, Commands, Grammar, Io, MAX_COMMANDS, MAX_STAGES, Refused, Settings};

pub use crate::shell::Outcome as Run;

/// Largest script accepted.
pub const MAX_INPUT: usize = 64 * 1024;

/// Largest transcript an action may produce.
pub const MAX_OUTPUT: usize = 256 * 1024;

const SETTINGS: Settings = Settings {
    grammar: Grammar { expansions: true, files: false, max_input: MAX_INPUT },
    output: MAX_OUTPUT,
    refusal,
};

/// The emulator's words for what it refuses.
fn refusal(r: &Refused) -> String {
    match r {
        Refused::TooLong { len, limit } => {
            format!("netpress-sh: input too long ({len} bytes, limit {limit})")
        }
        Refused::TooManyCommands => format!("netpress-sh: too many commands (limit {MAX_COMMANDS})"),
        Refused::TooManyStages => format!("netpress-sh: pipeline too long (limit {MAX_STAGES} stages)"),
        other => format!("netpress-sh: unsupported shell syntax: {}", other.describe()),
    }
}

/// Runs one action against the cluster.
pub fn run(action: &str, env: &mut Env) -> Run {
    shell::run(action, &SETTINGS, &mut Cluster { env })
}

/// The cluster as the shell sees it: `kubectl` and nothing else.
struct Cluster<'a> {
    env: &'a mut Env,
}

impl Commands for Cluster<'_> {
    fn run(&mut self, name: &str, args: &[String], stdin: &str, io: &mut Io) -> Option<i32> {
        if name != "kubectl" {
            return None;
        }
        // kubectl writes into the shell's own writer (lent for the call), so its limit holds
        // while a listing is printed and a long one stops early.
        let mut out = Output::over(std::mem::replace(io, Io::new(0)));
        kubectl::run_into(args, stdin, self.env, &mut out);
        let (lent, status) = out.into_parts();
        *io = lent;
        Some(status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::cluster::Cluster;
    use crate::k8s::kubectl::VerbPolicy;
    use crate::shell::TRUNCATED;

    fn sh(action: &str) -> Run {
        let mut env = Env::new(Cluster::pristine(), VerbPolicy::default());
        run(action, &mut env)
    }

    #[test]
    fn pipes_lists_and_routing() {
        assert_eq!(sh("kubectl get ns --no-headers | wc -l").output, "2\n");
        assert_eq!(sh("false && echo no || echo yes").output, "yes\n");
        assert_eq!(sh("echo a; nosuch; echo b").output, "a\nbash: nosuch: command not found\nb\n");
        assert_eq!(sh("nosuch 2>/dev/null; echo $?x").output, "x\n");
        assert_eq!(sh("kubectl get pods nope 2>&1 | grep -c NotFound").output, "1\n");
        assert_eq!(
            sh("kubectl get pods nope 2>&1 >/dev/null").output,
            "Error from server (NotFound): pods \"nope\" not found\n"
        );
        assert_eq!(sh("echo x >&2 | wc -l").output, "x\n0\n");
        assert_eq!(sh("cat <<EOF | grep b\na\nb\nEOF").output, "b\n");
    }

    #[test]
    fn parse_errors_run_nothing() {
        let r = sh("echo a; echo b |");
        assert_eq!((r.output.as_str(), r.status), ("bash: syntax error: unexpected end of file\n", 2));
        let r = sh("echo a; X=1");
        assert_eq!(r.output, "netpress-sh: unsupported shell syntax: variable assignment\n");
        let r = sh("kubectl get pods > pods.txt");
        assert_eq!(r.output, "netpress-sh: unsupported shell syntax: redirection to a file (> pods.txt)\n");
        assert_eq!(sh(&"true;".repeat(40)).output, "netpress-sh: too many commands (limit 32)\n");
        assert_eq!(
            sh("for p in a; do echo; done").output,
            "netpress-sh: unsupported shell syntax: shell keyword `for'\n"
        );
    }

    #[test]
    fn output_is_capped() {
        let mut env = Env::new(Cluster::pristine(), VerbPolicy::default());
        let big = "kubectl get pods -A -o yaml; ".repeat(30);
        let r = run(&big, &mut env);
        assert!(r.output.len() <= MAX_OUTPUT + TRUNCATED.len() + 1);
        assert!(r.output.ends_with(TRUNCATED));
    }
}
