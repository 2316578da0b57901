//! Sandbox limits and refusals (malt.md §5, acceptance 7), natively. Memory limits need
//! `monty_alloc` as the global allocator and have their own test binary (`malt_memory.rs`).

use std::time::{Duration, Instant};

use netpress::app::Episode;
use netpress::malt::api::Py;
use netpress::malt::graph::Working;
use netpress::malt::sandbox::{self, Failure, Limits, Outcome};
use netpress::malt::topo::{TopoKey, topology};
use netpress::malt::{MaltTask, generate::generate};

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
