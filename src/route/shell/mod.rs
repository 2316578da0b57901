//! The small shell each machine runs (route.md §7): one line of simple commands joined by
//! `;`, `&&`, `||` and `|`, with quotes and a few redirections, over the lab's commands.
//!
//! Stages run one after another; a stage's standard output feeds the next stage, standard
//! error goes to the terminal in the order written, and the status is the last stage's.

pub mod lex;
pub mod parse;

use self::lex::RedirOp;
pub use self::parse::Script;
use self::parse::{Join, Pipeline, Redirect, Simple};
use super::cmd::{self, Ctx, Io};
use super::net::{Net, NodeId, sysctl};

/// How the lab ends the message of a form it does not model.
const UNSUPPORTED: &str = "not supported in this lab";

/// A line the shell refuses before running anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellError {
    Syntax(String),
    EndOfFile,
    Unterminated(char),
    Unsupported(&'static str),
    TooLong,
    TooMany,
}

impl ShellError {
    /// The message and exit status bash (or the lab) gives.
    pub fn report(&self) -> (String, i32) {
        match self {
            ShellError::Syntax(t) => (format!("bash: syntax error near unexpected token `{t}'"), 2),
            ShellError::EndOfFile => ("bash: syntax error: unexpected end of file".into(), 2),
            ShellError::Unterminated(q) => {
                (format!("bash: unexpected EOF while looking for matching `{q}'"), 2)
            }
            ShellError::Unsupported(what) => (format!("bash: {what}: {UNSUPPORTED}"), 2),
            ShellError::TooLong => ("netpress: command line longer than 4096 bytes".into(), 2),
            ShellError::TooMany => ("netpress: more than 32 commands on one line".into(), 2),
        }
    }
}

/// What a line printed (stdout and stderr interleaved), its exit status, and what the lab
/// refused on the way (each refusal's message, also printed, unless redirected away).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub output: String,
    pub status: i32,
    pub refused: Vec<String>,
}

/// Runs one command line on `node`.
pub fn run(net: &mut Net, node: NodeId, line: &str) -> Outcome {
    match read(line) {
        Ok(script) => execute(net, node, &script),
        Err(e) => {
            let (msg, status) = e.report();
            let refused =
                if matches!(e, ShellError::Unsupported(_)) { vec![msg.clone()] } else { Vec::new() };
            Outcome { output: format!("{msg}\n"), status, refused }
        }
    }
}

/// Reads a line into the script [`execute`] runs, for lines run many times.
pub fn read(line: &str) -> Result<Script, ShellError> {
    lex::lex(line).and_then(parse::parse)
}

/// Runs a line read by [`read`] on `node`.
pub fn execute(net: &mut Net, node: NodeId, script: &Script) -> Outcome {
    let mut term = Term::default();
    let mut status = 0;
    for (join, pipeline) in script {
        let go = match join {
            Join::Always => true,
            Join::IfOk => status == 0,
            Join::IfFailed => status != 0,
        };
        if go {
            status = run_pipeline(net, node, pipeline, &mut term);
            net.sync_carrier();
        }
    }
    Outcome { output: term.text, status, refused: term.refused }
}

/// The terminal a line writes to, and the refusals it saw.
#[derive(Default)]
struct Term {
    text: String,
    refused: Vec<String>,
}

fn run_pipeline(net: &mut Net, node: NodeId, pipeline: &Pipeline, term: &mut Term) -> i32 {
    let mut input = String::new();
    let mut status = 0;
    for (k, stage) in pipeline.stages.iter().enumerate() {
        let piped = k + 1 < pipeline.stages.len();
        let mut next = String::new();
        status = run_stage(net, node, stage, &input, piped, term, &mut next);
        input = next;
    }
    if pipeline.negated { i32::from(status == 0) } else { status }
}

/// Where a descriptor points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Term,
    Pipe,
    Null,
    /// A `/proc/sys` file: index into the stage's file list.
    File(usize),
}

fn run_stage(
    net: &mut Net,
    node: NodeId,
    stage: &Simple,
    stdin: &str,
    piped: bool,
    term: &mut Term,
    pipe: &mut String,
) -> i32 {
    let mut dests = [if piped { Dest::Pipe } else { Dest::Term }, Dest::Term];
    let mut files: Vec<(String, String)> = Vec::new();
    for r in &stage.redirects {
        if let Err((msg, status, refused)) = redirect(net, node, r, &mut dests, &mut files) {
            if refused {
                term.refused.push(msg.clone());
            }
            term.text.push_str(&msg);
            term.text.push('\n');
            return status;
        }
    }
    let words = strip_sudo(&stage.words);
    let mut io = Io::default();
    let status = match words.first() {
        None => 0,
        Some(_) => {
            let mut ctx = Ctx { net, node, stdin };
            cmd::run(&mut ctx, words, &mut io)
        }
    };
    term.refused.extend(io.take_refused());
    for (stream, text) in io.into_chunks() {
        match dests[stream as usize] {
            Dest::Term => term.text.push_str(&text),
            Dest::Pipe => pipe.push_str(&text),
            Dest::Null => {}
            Dest::File(i) => files[i].1.push_str(&text),
        }
    }
    let mut status = status;
    for (key, content) in files {
        if !content.is_empty() && sysctl::write(net.node_mut(node), &key, &content).is_err() {
            let who = words.first().map_or("bash", String::as_str);
            let prefix = if who == "echo" { "bash: echo" } else { who };
            term.text.push_str(&format!("{prefix}: write error: Invalid argument\n"));
            status = 1;
        }
    }
    status
}

/// Why a redirection fails: the message, the exit status, and whether it is the lab's refusal
/// (a real file the lab does not model) rather than an error bash gives too.
type RedirError = (String, i32, bool);

/// Applies one redirection to the descriptor table, or refuses it with a message.
fn redirect(
    net: &Net,
    node: NodeId,
    r: &Redirect,
    dests: &mut [Dest; 2],
    files: &mut Vec<(String, String)>,
) -> Result<(), RedirError> {
    let (fds, to): (&[usize], Dest) = match r.op {
        RedirOp::Dup { fd, to } => {
            let d = dests[usize::from(to) - 1];
            dests[usize::from(fd) - 1] = d;
            return Ok(());
        }
        RedirOp::To { fd: 1, .. } => (&[0], open(net, node, &r.target, files)?),
        RedirOp::To { .. } => (&[1], open(net, node, &r.target, files)?),
        RedirOp::Both { .. } => (&[0, 1], open(net, node, &r.target, files)?),
    };
    for &fd in fds {
        dests[fd] = to;
    }
    Ok(())
}

/// Opens a redirection target for writing: `/dev/null`, a writable `/proc/sys` key, or an
/// error as bash (or the lab) reports it.
fn open(net: &Net, node: NodeId, path: &str, files: &mut Vec<(String, String)>) -> Result<Dest, RedirError> {
    if path == "/dev/null" {
        return Ok(Dest::Null);
    }
    let Some(key) = sysctl::path_key(path) else {
        return Err((format!("bash: {path}: Read-only file system"), 1, false));
    };
    let n = &net.nodes[node];
    let found = sysctl::matching(n, &key);
    if found.len() != 1 || found[0].0 != key {
        return Err((format!("bash: {path}: No such file or directory"), 1, false));
    }
    if !sysctl::writable(n, &key) {
        return Err((format!("netpress: writing {path}: {UNSUPPORTED}"), 2, true));
    }
    files.push((key, String::new()));
    Ok(Dest::File(files.len() - 1))
}

/// `sudo [-E|-n|-H] CMD…` runs CMD: everyone is root here.
fn strip_sudo(words: &[String]) -> &[String] {
    let mut rest = words;
    while rest.first().is_some_and(|w| w == "sudo") {
        rest = &rest[1..];
        while rest.first().is_some_and(|w| matches!(w.as_str(), "-E" | "-n" | "-H")) {
            rest = &rest[1..];
        }
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::topology::{Shape, Topology};

    fn lab() -> Net {
        Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build()
    }

    fn sh(net: &mut Net, line: &str) -> (String, i32) {
        let o = run(net, 0, line);
        (o.output, o.status)
    }

    #[test]
    fn joins_follow_status() {
        let mut net = lab();
        assert_eq!(sh(&mut net, "false && echo a || echo b; echo c"), ("b\nc\n".into(), 0));
        assert_eq!(sh(&mut net, "! true"), (String::new(), 1));
        assert_eq!(sh(&mut net, "sudo -E echo hi | wc -l"), ("1\n".into(), 0));
    }

    #[test]
    fn refusals_are_recorded_even_when_hidden() {
        let mut net = lab();
        let o = run(&mut net, 0, "vim x 2>/dev/null; echo not supported in this lab; ip -6 addr");
        assert_eq!(
            o.refused,
            ["bash: vim: not available in this lab", "netpress: ip -6 (IPv6): not supported in this lab"]
        );
        assert_eq!(run(&mut net, 0, "echo $PATH").refused, ["bash: $: not supported in this lab"]);
        assert!(run(&mut net, 0, "nosuch; echo x > /tmp/f").refused.is_empty());
    }

    #[test]
    fn redirections_route_streams() {
        let mut net = lab();
        assert_eq!(sh(&mut net, "echo x > /dev/null"), (String::new(), 0));
        assert_eq!(sh(&mut net, "echo x > /tmp/f"), ("bash: /tmp/f: Read-only file system\n".into(), 1));
        assert_eq!(sh(&mut net, "nosuch 2>/dev/null"), (String::new(), 127));
        assert_eq!(sh(&mut net, "nosuch 2>&1 | wc -l"), ("1\n".into(), 0));
        assert_eq!(
            sh(&mut net, "echo 0 > /proc/sys/net/ipv4/ip_forward; cat /proc/sys/net/ipv4/ip_forward").0,
            "0\n"
        );
        assert_eq!(net.nodes[0].ifaces[1].forwarding, 0);
        assert_eq!(
            sh(&mut net, "echo 1 > /proc/sys/net/ipv4/ip_forwar"),
            ("bash: /proc/sys/net/ipv4/ip_forwar: No such file or directory\n".into(), 1)
        );
        assert_eq!(
            sh(&mut net, "echo abc > /proc/sys/net/ipv4/ip_forward"),
            ("bash: echo: write error: Invalid argument\n".into(), 1)
        );
    }

    #[test]
    fn errors_are_one_line() {
        let mut net = lab();
        assert_eq!(sh(&mut net, "echo $PATH").0, "bash: $: not supported in this lab\n");
        assert_eq!(sh(&mut net, "; ls").0, "bash: syntax error near unexpected token `;'\n");
        assert_eq!(sh(&mut net, "vim x"), ("bash: vim: not available in this lab\n".into(), 126));
        assert_eq!(sh(&mut net, "foo"), ("bash: foo: command not found\n".into(), 127));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use crate::route::topology::{Shape, Topology};
    use proptest::prelude::*;

    /// Words the lab knows, so random lines reach deep into the commands.
    const WORDS: &[&str] = &[
        "ip",
        "addr",
        "a",
        "add",
        "del",
        "flush",
        "dev",
        "r0-eth1",
        "r0-eth2",
        "route",
        "r",
        "rule",
        "link",
        "set",
        "up",
        "down",
        "mtu",
        "68",
        "neigh",
        "show",
        "get",
        "via",
        "metric",
        "table",
        "local",
        "all",
        "pref",
        "0",
        "prohibit",
        "192.168.1.0/24",
        "192.168.2.1",
        "10.0.0.0/8",
        "default",
        "ifconfig",
        "netmask",
        "255.255.0.0",
        "iptables",
        "-A",
        "-I",
        "-D",
        "-P",
        "-L",
        "-S",
        "-F",
        "-Z",
        "-nvx",
        "INPUT",
        "FORWARD",
        "OUTPUT",
        "-s",
        "-d",
        "-p",
        "icmp",
        "-j",
        "DROP",
        "REJECT",
        "ACCEPT",
        "!",
        "sysctl",
        "-w",
        "net.ipv4.ip_forward=0",
        "-a",
        "tc",
        "qdisc",
        "root",
        "netem",
        "delay",
        "100ms",
        "loss",
        "60%",
        "ping",
        "-c",
        "2",
        "-W",
        "1",
        "-I",
        "192.168.2.100",
        "traceroute",
        "-n",
        "-m",
        "3",
        "route",
        "-net",
        "gw",
        "netstat",
        "-rn",
        "arp",
        "grep",
        "-v",
        "head",
        "wc",
        "-l",
        "echo",
        "cat",
        "/proc/sys/net/ipv4/ip_forward",
        "|",
        ";",
        "&&",
        "||",
        ">",
        "2>&1",
        "/dev/null",
        "'",
        "\"",
        "sudo",
    ];

    fn line() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(WORDS), 0..24).prop_map(|w| w.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

        #[test]
        fn word_salad_never_panics(lines in prop::collection::vec(line(), 1..4)) {
            let mut net = Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build();
            for l in &lines {
                let out = run(&mut net, 0, l);
                prop_assert!(out.output.len() <= 33 * cmd::MAX_OUTPUT);
            }
            let m = crate::route::engine::matrix::compute(&mut net, &Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.machines());
            prop_assert_eq!(m.n, 3);
        }

        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
            let mut net = Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build();
            let _ = run(&mut net, 1, &text);
        }

        #[test]
        fn lexer_and_parser_total(text in "[ -~]{0,200}") {
            if let Ok(tokens) = lex::lex(&text) {
                let _ = parse::parse(tokens);
            }
        }
    }
}
