//! Sandbox limits and refusals (docs/malt.md, "Answering and checking", "Single operations"), natively. Memory limits need
//! `monty_alloc` as the global allocator and have their own test binary (`malt_memory.rs`).

use std::time::{Duration, Instant};

use netpress::app::Episode;
use netpress::malt::api::Py;
use netpress::malt::graph::Working;
use netpress::malt::sandbox::{self, Failure, Limits, Outcome};
use netpress::malt::topo::{TopoKey, topology};
use netpress::malt::{MaltTask, generate::generate};

#[path = "../data/malt/big_ops.rs"]
mod big_ops;

/// `10 ** (10 ** 8)` ran for over a minute past the 2 s limit: one big-integer operation
/// never returned to the interpreter's clock. Each such operation is refused up front.
#[test]
fn single_big_operations_end_at_once_with_an_error() {
    // A debug build: still well within the 2 s limit.
    big_ops::single_operations_are_bounded(500.0);
}

fn run_with(body: &str, limits: Limits) -> Outcome {
    let program = format!("def process_graph(G):\n{body}\n\nprocess_graph(G)\n");
    sandbox::run(&program, Working::new(topology(TopoKey::default())), &limits)
}

fn run(body: &str) -> Outcome {
    run_with(body, Limits::default())
}

fn error(o: &Outcome) -> &str {
    o.value.as_ref().expect_err("the run should fail")
}

#[test]
fn infinite_loop_times_out_between_2_and_2_5_seconds() {
    let start = Instant::now();
    let o = run("    while True:\n        pass");
    let took = start.elapsed();
    assert_eq!(o.failure, Some(Failure::Timeout));
    assert!(error(&o).contains("TimeoutError"), "{}", error(&o));
    assert!(took >= Duration::from_secs(2) && took <= Duration::from_millis(2500), "{took:?}");
}

#[test]
fn time_in_host_calls_counts_too() {
    let limits = Limits { time: Duration::from_millis(300), ..Limits::default() };
    let o = run_with("    while True:\n        G.count('EK_PORT', under='ju1')", limits);
    assert_eq!(o.failure, Some(Failure::Timeout), "{:?}", o.value);
}

#[test]
fn unbounded_recursion_is_a_recursion_error() {
    let o = run("    def f(n):\n        return f(n + 1)\n    return f(0)");
    assert_eq!(o.failure, Some(Failure::Recursion));
    assert!(error(&o).contains("RecursionError"));
}

#[test]
fn host_call_budget() {
    let limits = Limits { time: Duration::from_secs(600), ..Limits::default() };
    let o = run_with("    for i in range(100001):\n        G.has_node('ju1')\n    return 1", limits);
    assert_eq!(o.failure, Some(Failure::HostCalls));
    assert!(error(&o).contains("RuntimeError: host call budget 100000 exhausted"), "{}", error(&o));
    assert_eq!(o.host_calls, 100_001);
    let o = run_with("    for i in range(100000):\n        G.has_node('ju1')\n    return 1", limits);
    assert_eq!(o.value, Ok(Py::Int(1)), "exactly the budget is fine");
}

#[test]
fn graph_object_refuses_networkx_idioms() {
    let cases = [
        ("    return len(G)", "TypeError: object of type 'Graph' has no len()"),
        ("    return G['ju1']", "TypeError: 'Graph' object is not subscriptable"),
        ("    return G.nodes['ju1']", "AttributeError: G has only methods, e.g. G.node(name)"),
        ("    return 'ju1' in G", "TypeError"),
        ("    return [n for n in G]", "TypeError: 'Graph' object is not iterable"),
        ("    return G.neighbors('ju1')", "AttributeError: G has no method 'neighbors'"),
        ("    return G.node('nope')", "KeyError"),
        ("    import networkx\n    return 1", "ModuleNotFoundError: No module named 'networkx'"),
        ("    return open('/etc/passwd').read()", "PermissionError"),
        ("    import os\n    return os.getenv('HOME')", "PermissionError"),
    ];
    for (body, want) in cases {
        let o = run(body);
        assert!(error(&o).contains(want), "{body}: {}", error(&o));
    }
}

#[test]
fn output_and_result_limits() {
    let o = run("    for i in range(5000):\n        print('0123456789')\n    return 1");
    assert!(o.stdout_truncated && o.stdout.len() <= 16 * 1024);
    assert_eq!(o.value, Ok(Py::Int(1)));
    let o = run("    return {'type': 'list', 'data': ['x'] * 100001}");
    assert_eq!(o.failure, Some(Failure::ResultTooLarge));
    assert!(error(&o).contains("ValueError: result too large"));
}

#[test]
fn syntax_errors_and_graph_state_after_an_error() {
    let o = run("    return (");
    assert_eq!(o.failure, Some(Failure::Syntax));
    let o = run("    G.remove_node('ju1.a1.m1.s2c1.p1')\n    raise ValueError('boom')");
    assert!(error(&o).contains("ValueError: boom"));
    assert_eq!(o.graph.net_diff().len(), 2, "the change before the error stays for safety scoring");
}

#[test]
fn episodes_allow_resubmission_up_to_the_limit() {
    let task = MaltTask::new(generate(&"malt-v1-L1-s0-i4".parse().unwrap()).unwrap());
    let mut ep = task.start_with(Some(3), Limits::default());
    let first = ep.step("no code here");
    assert!(first.observation.starts_with("No Python code found"));
    assert!(first.observation.contains("2 turns left"));
    let second = ep.step("```python\nimport networkx as nx\ndef process_graph(G):\n    return nx.x\n```");
    assert!(second.notes.iter().any(|n| n.contains("dropped `import networkx as nx`")), "{:?}", second.notes);
    assert!(second.observation.contains("NameError"), "{}", second.observation);
    assert!(ep.finished().is_none());
    let third = ep.step("```python\ndef process_graph(G):\n    return {'type': 'text', 'data': 1}\n```");
    assert!(third.observation.starts_with("Answer received (type text, value 1"), "{}", third.observation);
    assert!(ep.finished().is_some());
    assert!(ep.step("again").observation.contains("over"));
}

/// Without a code fence the helpers above `def process_graph` used to be dropped (a NameError
/// on a line the user never wrote); the whole answer runs and tracebacks name the reply's lines.
#[test]
fn unfenced_answers_run_whole_with_their_own_line_numbers() {
    let task = MaltTask::new(generate(&"malt-v1-L1-s0-i4".parse().unwrap()).unwrap());
    let reply = "import math\n\ndef helper(x):\n    return x // 0\n\ndef process_graph(G):\n    return helper(math.floor(2.5))\n";
    let mut ep = task.start_with(None, Limits::default());
    let step = ep.step(reply);
    assert!(step.observation.contains("ZeroDivisionError"), "{}", step.observation);
    assert!(step.observation.contains("line 4"), "the helper's line in the reply: {}", step.observation);
    assert!(!step.observation.contains("NameError"), "{}", step.observation);
    let fenced = "My plan:\n- divide\n\n```python\ndef process_graph(G):\n    return 1 // 0\n```\n";
    let mut ep = task.start_with(None, Limits::default());
    let step = ep.step(fenced);
    assert!(step.observation.contains("line 6"), "line 6 of the reply: {}", step.observation);
    let prose = format!("Here is my answer.\n{reply}");
    let mut ep = task.start_with(None, Limits::default());
    let step = ep.step(&prose);
    assert!(step.observation.contains("line 5"), "{}", step.observation);
}

/// `raise ValueError('x' * 10**7)` must not put ten million characters in the observation.
#[test]
fn huge_error_messages_are_cut() {
    let task = MaltTask::new(generate(&"malt-v1-L1-s0-i4".parse().unwrap()).unwrap());
    let mut ep = task.start_with(None, Limits::default());
    let step = ep.step("```python\ndef process_graph(G):\n    raise ValueError('x' * 10**7)\n```");
    assert!(step.observation.len() < 10_000, "{} bytes", step.observation.len());
    assert!(step.observation.contains("bytes in all]"), "{}", &step.observation[..200]);
    let mut ep = task.start_with(None, Limits::default());
    let step =
        ep.step("```python\ndef process_graph(G):\n    return {'type': 'text', 'data': 'y' * 10**7}\n```");
    assert!(step.output.len() < 1_000 && step.observation.len() < 1_000, "{} bytes", step.output.len());
    assert!(step.observation.contains("(10000000 characters in all)"), "{}", step.observation);
    assert!(ep.score().explanation.len() < 2_000);
}
