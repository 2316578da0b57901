//! The agent's shell (§7 of k8s.md): one action is a small script of `kubectl` and text
//! tools joined by `;`, `&&`, `||`, pipes, heredocs and a few redirections.
//!
//! The whole action is parsed before anything runs ([`parse::parse`]); a syntax error or an
//! unsupported construct runs nothing and exits 2. Execution is sequential and pure: each
//! stage's stdout feeds the next; stderr and the last stage's stdout go to the transcript
//! in the order they were written, capped at [`MAX_OUTPUT`] bytes.

pub mod parse;
pub mod tools;

use crate::k8s::kubectl::{self, Env};
use crate::k8s::output::{Fd, Output};
use parse::{Join, Redir, parse};

/// Largest transcript an action may produce.
pub const MAX_OUTPUT: usize = 256 * 1024;
const TRUNCATED: &str = "[output truncated]\n";

/// What an action printed and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Run {
    pub output: String,
    pub status: i32,
}

/// Where a stream ends up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    /// The stage's stdout destination (the pipe, or the transcript for the last stage).
    Out,
    /// The transcript (the terminal's stderr).
    Term,
    Null,
}

struct Transcript {
    text: String,
    truncated: bool,
}

impl Transcript {
    fn push(&mut self, s: &str) {
        if self.truncated {
            return;
        }
        if self.text.len() + s.len() > MAX_OUTPUT {
            let mut cut = MAX_OUTPUT.saturating_sub(self.text.len());
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            self.text.push_str(&s[..cut]);
            if !self.text.ends_with('\n') {
                self.text.push('\n');
            }
            self.text.push_str(TRUNCATED);
            self.truncated = true;
        } else {
            self.text.push_str(s);
        }
    }
}

/// Runs one action against the cluster.
pub fn run(action: &str, env: &mut Env) -> Run {
    let script = match parse(action) {
        Ok(s) => s,
        Err(e) => return Run { output: format!("{}\n", e.message()), status: 2 },
    };
    let mut t = Transcript { text: String::new(), truncated: false };
    for w in &script.warnings {
        t.push(&format!("{w}\n"));
    }
    let mut status = 0;
    for (join, pipeline) in &script.items {
        let skip = match join {
            Join::Seq => false,
            Join::And => status != 0,
            Join::Or => status == 0,
        };
        if skip {
            continue;
        }
        let mut input = String::new();
        for (i, cmd) in pipeline.iter().enumerate() {
            let last = i + 1 == pipeline.len();
            let stdin = cmd.stdin.clone().unwrap_or_else(|| std::mem::take(&mut input));
            let out = exec(&cmd.argv, &stdin, env);
            status = out.status;
            let (out_dest, err_dest) = route(&cmd.redirs);
            for (fd, text) in &out.chunks {
                let dest = if *fd == Fd::Out { out_dest } else { err_dest };
                match dest {
                    Dest::Null => {}
                    Dest::Term => t.push(text),
                    Dest::Out if last => t.push(text),
                    Dest::Out => {
                        if input.len() < MAX_OUTPUT * 4 {
                            input.push_str(text);
                        }
                    }
                }
            }
        }
    }
    Run { output: t.text, status }
}

/// Applies redirections left to right: `(stdout, stderr)` destinations.
fn route(redirs: &[Redir]) -> (Dest, Dest) {
    let (mut out, mut err) = (Dest::Out, Dest::Term);
    for r in redirs {
        match r {
            Redir::OutNull => out = Dest::Null,
            Redir::ErrNull => err = Dest::Null,
            Redir::ErrToOut => err = out,
            Redir::OutToErr => out = err,
        }
    }
    (out, err)
}

fn exec(argv: &[String], stdin: &str, env: &mut Env) -> Output {
    let Some(name) = argv.first() else { return Output::default() };
    if name == "kubectl" {
        return kubectl::run(&argv[1..], stdin, env);
    }
    tools::run(name, &argv[1..], stdin).unwrap_or_else(|| Output {
        chunks: vec![(Fd::Err, format!("bash: {name}: command not found\n"))],
        status: 127,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::cluster::Cluster;
    use crate::k8s::kubectl::VerbPolicy;

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
