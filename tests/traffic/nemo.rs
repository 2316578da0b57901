//! The `nemo` mode at level 1 (docs/traffic.md, "NeMoEval-compatible modes"): NeMoEval's easy
//! eight, verbatim, on the golden chain's state of the nemo mock; the reference answers pass,
//! the golden answers' own forms pass, question 8 takes any node of the extreme degree, and
//! what is not built is refused.

use crate::checks::score;
use netpress::traffic::family::code;
use netpress::traffic::nemo;
use netpress::traffic::task::generate;
use serde_json::{Value, json};

fn id(seed: u64, index: u64) -> String {
    format!("traffic-v1-L1-s{seed}-i{index}-mnemo")
}

fn nodes(g: &Value) -> Vec<Value> {
    g["nodes"].as_array().unwrap().clone()
}

fn has(n: &Value, label: &str) -> bool {
    n["labels"].as_array().unwrap().iter().any(|l| l == label)
}

#[test]
fn the_easy_eight_are_verbatim_and_their_reference_answers_pass() {
    let texts = nemo::texts();
    for seed in 0..3 {
        for index in 0..8 {
            let id = id(seed, index);
            let g = generate(&id.parse().unwrap()).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(g.question, texts[index as usize], "{id}");
            assert_eq!(g.nemo, Some(index as usize + 1));
            let task = netpress::registry::generate(&id).unwrap();
            assert!(task.card().prompt.contains(&format!("Question: {}", texts[index as usize])), "{id}");
            assert!(task.card().prompt.contains("'Return the networkx graph object' means"), "{id}");
            let s = score(&id, &code(&g.query));
            assert!(s.correct && s.safe, "{id}: {}", s.explanation);
        }
    }
}

#[test]
fn each_question_sees_the_golden_chain_before_it() {
    let g = |index| generate(&id(4, index).parse().unwrap()).unwrap();
    let base = g(0).graph.to_json();
    assert!(nodes(&base).iter().all(|n| n["labels"] == json!(["type=VM"])));
    let prod = nodes(&base).iter().filter(|n| n["id"].as_str().unwrap().starts_with("15.76.")).count() as i64;
    let test =
        nodes(&base).iter().filter(|n| n["id"].as_str().unwrap().starts_with("149.196.")).count() as i64;
    // Question 4 counts question 3's labels.
    let table = g(3).truth.unwrap().data;
    let mut rows: Vec<String> = table.as_array().unwrap()[1..].iter().map(Value::to_string).collect();
    rows.sort();
    let mut want = vec![json!(["app:prod", prod]), json!(["app:test", test]), json!(["type=VM", 50])];
    want.retain(|r| r[1] != 0);
    let mut want: Vec<String> = want.iter().map(Value::to_string).collect();
    want.sort();
    assert_eq!(rows, want);
    // Question 7 comes after question 5 removed type=VM; question 8 after 7's purple.
    assert!(nodes(&g(6).graph.to_json()).iter().all(|n| !has(n, "type=VM")));
    for n in nodes(&g(7).graph.to_json()) {
        let purple = n["color"] == "purple";
        assert_eq!(purple, has(&n, "app:prod"), "{n}");
        assert_eq!(has(&n, "app:prod"), n["id"].as_str().unwrap().starts_with("15.76."), "{n}");
    }
}

#[test]
fn the_golden_answers_forms_pass() {
    // Question 1's golden returns the count as a str; question 5's removes type=VM in place.
    let g = generate(&id(1, 0).parse().unwrap()).unwrap();
    let n = g.graph.number_of_nodes();
    let s = score(&id(1, 0), &format!("def process_graph(G):\n    return {{'type': 'text', 'data': '{n}'}}"));
    assert!(s.correct, "{}", s.explanation);
    let wrong = score(
        &id(1, 0),
        &format!("def process_graph(G):\n    return {{'type': 'text', 'data': '{}'}}", n + 1),
    );
    assert!(!wrong.correct);
    let remove = "def process_graph(G):\n    for n in G.nodes():\n        G.remove_label(n, 'type=VM')\n    \
                  return {'type': 'graph', 'data': G}";
    assert!(score(&id(1, 4), remove).correct);
    // Removing it from one node too few is wrong.
    let short = remove.replace("for n in G.nodes():", "for n in G.nodes()[1:]:");
    assert!(!score(&id(1, 4), &short).correct);
}

#[test]
fn question_eight_takes_any_node_of_the_extreme_degree() {
    let (id, ties) = (0..40)
        .map(|seed| id(seed, 7))
        .find_map(|id| {
            let t = generate(&id.parse().unwrap()).unwrap().ties.unwrap();
            (t.lo.len() >= 2).then_some((id, t))
        })
        .expect("a seed with two nodes of the lowest degree");
    let paint = |hi: &str, lo: &str| {
        format!(
            "def process_graph(G):\n    G.set('{hi}', 'color', 'red')\n    G.set('{lo}', 'color', '#008000')\n    \
             return {{'type': 'graph', 'data': G}}"
        )
    };
    let (hi, lo) = (ties.hi.last().unwrap(), ties.lo.last().unwrap());
    let s = score(&id, &paint(hi, lo));
    assert!(s.correct && s.safe, "{id}: {}", s.explanation);
    let g = generate(&id.parse().unwrap()).unwrap();
    let other = nodes(&g.graph.to_json())
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .find(|n| !ties.lo.contains(n) && !ties.hi.contains(n))
        .unwrap();
    let s = score(&id, &paint(hi, &other));
    assert!(!s.correct, "{id}: a node of another degree coloured green passed");
    // Two lowest-degree nodes green: one too many.
    let both = paint(hi, lo)
        .replace("    return", &format!("    G.set('{}', 'color', 'green')\n    return", ties.lo[0]));
    assert!(!score(&id, &both).correct);
    assert_eq!(g.truth, None);
    let card = netpress::registry::generate(&id).unwrap().card().expected.clone();
    assert_eq!(card["any_of"]["lowest_degree"], json!(ties.lo));
}

#[test]
fn what_is_not_built_is_refused() {
    crate::golden::refused(&[
        ("traffic-v1-L2-s0-i0-mnemo", "not in this version"),
        ("traffic-v1-L3-s0-i0-mnemo", "not in this version"),
        ("traffic-v1-L1-s0-i0-mstraw", "not in this version"),
        ("traffic-v1-L1-s0-i0-gflows-mnemo", "m=nemo asks of NeMoEval's mock graph only"),
        ("traffic-v1-L1-s0-i0-p3-mnemo", "knob p"),
        ("traffic-v1-L1-s0-i0-n2001-mnemo", "knob n must be 10..2000"),
        ("traffic-v1-L1-s0-i0-e0-mnemo", "knob e must be 1..1000"),
        ("traffic-v1-L1-s0-i7-n10-e1000-mnemo", "same degree"),
    ]);
}
