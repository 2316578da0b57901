//! The runner's tests over a toy application: joins, redirections, dispatch order, file
//! hooks and the output limit, which must hold while commands write.

use super::*;

/// A toy application: `big N` prints N bytes one at a time, stopping once its writer is full,
/// `blob N` prints N bytes in one write, `say` echoes its arguments to stderr, and
/// `/f` is a file that opens for writing and reads back.
#[derive(Default)]
struct Toy {
    written: Vec<(String, String)>,
    pipelines: usize,
}

impl Commands for Toy {
    fn run(&mut self, name: &str, args: &[String], _stdin: &str, io: &mut Io) -> Option<i32> {
        match name {
            "big" => {
                let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(0);
                for _ in 0..n {
                    io.out("x");
                    if io.full() {
                        break;
                    }
                }
                Some(0)
            }
            "blob" => {
                let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(0);
                io.out(&"x".repeat(n));
                Some(0)
            }
            "say" => Some(io.fail(3, &args.join(" "))),
            "nope" => Some(io.refuse(2, "toy: nope: not modelled")),
            _ => None,
        }
    }

    fn read(&self, path: &str) -> Result<String, FileError> {
        if path == "/f" { Ok("one\ntwo\n".into()) } else { Err(FileError::NotFound) }
    }

    fn open(&mut self, path: &str) -> Result<(), OpenError> {
        match path {
            "/f" => Ok(()),
            "/ro" => Err(OpenError::refusal(format!("toy: {path}: not modelled"), 2)),
            _ => Err(OpenError::bash(format!("toy: {path}: no"), 1)),
        }
    }

    fn write(&mut self, path: &str, text: &str, who: &str) -> Result<(), String> {
        self.written.push((path.into(), format!("{who}:{text}")));
        Ok(())
    }

    fn after_pipeline(&mut self) {
        self.pipelines += 1;
    }
}

fn settings(output: usize) -> Settings {
    Settings {
        grammar: Grammar { expansions: false, files: true, max_input: 4096 },
        output,
        refusal: |r| r.describe(),
    }
}

fn sh(line: &str) -> (String, i32) {
    let o = run(line, &settings(1024), &mut Toy::default());
    (o.output, o.status)
}

/// Refusals are data: recorded when the application refuses (even with stderr discarded or
/// piped), never inferred from what was printed.
#[test]
fn refusals_are_recorded_as_data() {
    let refused = |line: &str| run(line, &settings(1024), &mut Toy::default()).refused;
    assert_eq!(refused("nope 2>/dev/null | wc -l; echo not modelled"), ["toy: nope: not modelled"]);
    assert_eq!(refused("echo x > /ro; echo x > /nosuch"), ["toy: /ro: not modelled"]);
    assert_eq!(refused("echo $HOME"), ["$ expansion"], "a refused syntax is a refusal too");
    assert!(refused("say not modelled; nosuch").is_empty());
}

#[test]
fn joins_pipes_and_status() {
    assert_eq!(sh("false && echo a || echo b; echo c"), ("b\nc\n".into(), 0));
    assert_eq!(sh("! true"), (String::new(), 1));
    assert_eq!(sh("say oops | wc -l"), ("oops\n0\n".into(), 0), "stderr bypasses the pipe");
    assert_eq!(sh("say oops 2>&1 | wc -l"), ("1\n".into(), 0));
    assert_eq!(sh("say oops 2>/dev/null"), (String::new(), 3));
    assert_eq!(sh("echo x >&2 | wc -l"), ("x\n0\n".into(), 0));
    assert_eq!(sh("nosuch a"), ("bash: nosuch: command not found\n".into(), 127));
    assert_eq!(sh("/bin/echo hi"), ("hi\n".into(), 0), "a command is found by its base name");
}

#[test]
fn files_go_through_the_application() {
    let mut toy = Toy::default();
    let o = run("echo hi > /f; echo no > /g; cat /f - /nope", &settings(1024), &mut toy);
    assert_eq!(o.output, "toy: /g: no\none\ntwo\ncat: /nope: No such file or directory\n");
    assert_eq!(o.status, 1);
    assert_eq!(toy.written, [("/f".to_string(), "echo:hi\n".to_string())]);
    assert_eq!(toy.pipelines, 3);
}

#[test]
fn rejected_scripts_run_nothing() {
    let mut toy = Toy::default();
    let o = run("echo hi > /f; echo $X", &settings(1024), &mut toy);
    assert_eq!((o.output.as_str(), o.status), ("$ expansion\n", 2));
    assert!(toy.written.is_empty() && toy.pipelines == 0);
    let o = run("echo a |", &settings(1024), &mut toy);
    assert_eq!(o.output, "bash: syntax error: unexpected end of file\n");
}

/// A command printing far more than the limit is cut while it writes: the transcript ends
/// with the marker, and the command saw the writer full.
#[test]
fn output_limit_holds_while_writing() {
    let o = run("big 100000000; big 5", &settings(100), &mut Toy::default());
    assert_eq!(o.output, format!("{}\n{TRUNCATED}", "x".repeat(100)));
    let o = run("big 100000000 | wc -c", &settings(100), &mut Toy::default());
    assert_eq!(o.output, "100\n", "a pipe holds at most the limit too");
    assert_eq!(run("big 100", &settings(100), &mut Toy::default()).output, "x".repeat(100));
}

/// A command cut by its own writer says so, even when what it kept fits the terminal exactly
/// and nothing later overflows; output thrown away is not reported.
#[test]
fn a_command_cut_alone_is_marked() {
    let marked = format!("{}\n{TRUNCATED}", "x".repeat(100));
    assert_eq!(run("blob 150", &settings(100), &mut Toy::default()).output, marked);
    assert_eq!(run("blob 150 | cat", &settings(100), &mut Toy::default()).output, marked);
    assert_eq!(run("blob 150 > /dev/null", &settings(100), &mut Toy::default()).output, "");
    assert_eq!(run("blob 100", &settings(100), &mut Toy::default()).output, "x".repeat(100));
}
