//! The `nemo` mode at levels 1 and 2 (docs/traffic.md, "NeMoEval-compatible modes"): NeMoEval's
//! easy eight and medium questions 9–15, verbatim, on the golden chain's state of the nemo
//! mock; the reference answers pass, the golden answers' own forms pass, the looser readings
//! (any tied node, any valid top ten, either cut, a new graph as `graph`) pass and wrong
//! answers fail, and what is not built is refused.

use crate::checks::score;
use netpress::traffic::family::code;
use netpress::traffic::nemo;
use netpress::traffic::nemo_check::Loose;
use netpress::traffic::task::{Ties, generate};
use serde_json::{Value, json};

fn id(seed: u64, index: u64) -> String {
    format!("traffic-v1-L1-s{seed}-i{index}-mnemo")
}

/// The tied nodes of a colour-extreme question (questions 8 and 11).
fn ties_of(id: &str) -> Ties {
    match generate(&id.parse().unwrap()).unwrap().loose {
        Some(Loose::Ties(t)) => t,
        other => panic!("{id}: {other:?}"),
    }
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
            let t = ties_of(&id);
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
        ("traffic-v1-L2-s0-i7-mnemo", "question 16 is not in this version"),
        ("traffic-v1-L3-s0-i0-mnemo", "not in this version"),
        ("traffic-v1-L1-s0-i0-mchain", "not in this version"),
        ("traffic-v1-L1-s0-i0-gflows-mnemo", "m=nemo asks of NeMoEval's mock graph only"),
        ("traffic-v1-L1-s0-i0-p3-mnemo", "knob p"),
        ("traffic-v1-L1-s0-i0-n2001-mnemo", "knob n must be 10..2000"),
        ("traffic-v1-L1-s0-i0-e0-mnemo", "knob e must be 1..1000"),
        ("traffic-v1-L1-s0-i7-n10-e1000-mnemo", "same degree"),
    ]);
}

// Level 2: NeMoEval's medium eight (questions 9–15; 16 is refused).

fn l2(seed: u64, index: u64, knobs: &str) -> String {
    format!("traffic-v1-L2-s{seed}-i{index}{knobs}-mnemo")
}

fn reply(body: &str) -> String {
    format!("def process_graph(G):\n    {body}\n")
}

#[test]
fn the_medium_seven_are_verbatim_and_their_reference_answers_pass() {
    let texts = nemo::texts();
    for seed in 0..4 {
        for index in 0..7 {
            let id = l2(seed, index, "");
            let g = generate(&id.parse().unwrap()).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(g.question, texts[8 + index as usize], "{id}");
            assert_eq!(g.nemo, Some(9 + index as usize));
            let s = score(&id, &code(&g.query));
            assert!(s.correct && s.safe, "{id}: {}", s.explanation);
        }
    }
}

#[test]
fn the_medium_questions_see_the_golden_chain_before_them() {
    let g = |index| generate(&l2(2, index, "").parse().unwrap()).unwrap().graph.to_json();
    // Question 11 comes after question 10's colours: one per /16, distinct, not steelblue.
    let mut per: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    for n in nodes(&g(2)) {
        let ip = n["id"].as_str().unwrap();
        let p = ip.split('.').take(2).collect::<Vec<_>>().join(".");
        per.entry(p).or_default().insert(n["color"].as_str().unwrap().to_string());
    }
    assert!(per.values().all(|c| c.len() == 1 && !c.contains("steelblue")), "{per:?}");
    let distinct: std::collections::BTreeSet<_> = per.values().flatten().collect();
    assert_eq!(distinct.len(), per.len());
    // Question 12 after question 11's green node of size 8; question 15 after 14's red/blue.
    let big: Vec<Value> = nodes(&g(3)).into_iter().filter(|n| n["size"] == 8).collect();
    assert_eq!(big.len(), 1);
    assert_eq!(big[0]["color"], "green");
    assert!(nodes(&g(6)).iter().all(|n| n["color"] == "red" || n["color"] == "blue"));
    // The chain is the same for every question of the graph, and the same bytes each time.
    assert_eq!(g(6), g(6));
}

#[test]
fn question_nine_fails_a_wrong_count() {
    let id = l2(0, 0, "");
    let n = generate(&id.parse().unwrap()).unwrap().truth.unwrap().data.as_i64().unwrap();
    let with = |x: i64| reply(&format!("return {{'type': 'text', 'data': {x}}}"));
    assert!(score(&id, &with(n)).correct);
    assert!(!score(&id, &with(n + 1)).correct);
}

#[test]
fn question_ten_needs_distinct_colours_per_prefix() {
    let id = l2(1, 1, "");
    let paint = |c: [&str; 3]| {
        reply(&format!(
            "cs = {{'149.196': '{}', '15.76': '{}', '10.55': '{}'}}\n    for n in G.nodes():\n        \
             a, b, c, d = n.split('.')\n        G.set(n, 'color', cs[a + '.' + b])\n    return {{'type': 'graph', 'data': G}}",
            c[0], c[1], c[2]
        ))
    };
    let s = score(&id, &paint(["#a1b2c3", "#123456", "#fedcba"]));
    assert!(s.correct && s.safe, "{}", s.explanation);
    // Two prefixes sharing a colour (as random colours could) fail.
    let s = score(&id, &paint(["#a1b2c3", "#a1b2c3", "#fedcba"]));
    assert!(!s.correct, "{}", s.explanation);
}

#[test]
fn question_eleven_takes_any_node_of_the_maximum_degree_and_doubles_it() {
    let (id, ties) = ["", "-n12-e200", "-n16-e150"]
        .iter()
        .flat_map(|k| (0..40).map(move |seed| l2(seed, 2, k)))
        .find_map(|id| Some(ties_of(&id)).filter(|t| t.hi.len() >= 2).map(|t| (id, t)))
        .expect("a graph with two nodes of the maximum degree");
    assert!(ties.lo.is_empty());
    let grow = |n: &str, size: &str| {
        reply(&format!(
            "G.set('{n}', 'color', 'green')\n    G.set('{n}', 'size', {size})\n    return {{'type': 'graph', 'data': G}}"
        ))
    };
    let last = ties.hi.last().unwrap();
    let s = score(&id, &grow(last, "G.get('{last}', 'size') * 2".replace("{last}", last).as_str()));
    assert!(s.correct && s.safe, "{id}: {}", s.explanation);
    assert!(score(&id, &grow(last, "8")).correct);
    // The size left at 4, or a node of a lower degree, fails.
    assert!(!score(&id, &grow(last, "4")).correct);
    let g = generate(&id.parse().unwrap()).unwrap();
    let other = nodes(&g.graph.to_json())
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_string())
        .find(|n| !ties.hi.contains(n));
    let s = score(&id, &grow(&other.unwrap(), "8"));
    assert!(!s.correct, "{id}: a node of a lower degree passed");
    let card = netpress::registry::generate(&id).unwrap().card().expected.clone();
    assert_eq!(card["any_of"]["highest_degree"], json!(ties.hi));
}

/// The reference top ten with its last row swapped for another node of the same degree, when
/// the graph has one (a tie across the tenth place).
fn swapped_top_ten(id: &str) -> Option<Vec<Value>> {
    let g = generate(&id.parse().unwrap()).unwrap();
    let rows = g.truth.unwrap().data.as_array().unwrap().clone();
    let last = rows.last()?.clone();
    let listed: Vec<&Value> = rows.iter().map(|r| &r[0]).collect();
    let v = g.graph.to_json();
    let degree = |ip: &str| {
        v["links"].as_array().unwrap().iter().filter(|l| l["source"] == ip || l["target"] == ip).count()
    };
    let other = nodes(&v).into_iter().find(|n| {
        !listed.contains(&&n["id"]) && degree(n["id"].as_str().unwrap()) as i64 == last[2].as_i64().unwrap()
    })?;
    let mut out = rows.clone();
    *out.last_mut()? = json!([other["id"], other["labels"], last[2]]);
    Some(out)
}

#[test]
fn question_twelve_takes_any_valid_top_ten() {
    let (id, rows) = (0..40)
        .map(|seed| l2(seed, 3, ""))
        .find_map(|id| swapped_top_ten(&id).map(|r| (id, r)))
        .expect("a graph with a tie across the tenth place");
    let table = |rows: &[Value]| {
        reply(&format!("return {{'type': 'table', 'data': {}}}", Value::from(rows.to_vec())))
    };
    let s = score(&id, &table(&rows));
    assert!(s.correct && s.safe, "{id}: {}", s.explanation);
    // A wrong degree, or one row short, fails.
    let mut wrong = rows.clone();
    wrong[0][2] = json!(wrong[0][2].as_i64().unwrap() + 1);
    assert!(!score(&id, &table(&wrong)).correct);
    assert!(!score(&id, &table(&rows[1..])).correct);
}

#[test]
fn question_fourteen_passes_either_reading_and_records_it() {
    let id = l2(3, 5, "");
    let g = generate(&id.parse().unwrap()).unwrap();
    let cut = score(&id, &code(&g.query));
    assert!(cut.correct && cut.explanation.contains("read as cut-balanced"), "{}", cut.explanation);
    let halves = reply(
        "order = sorted(G.nodes(), key=lambda n: [int(x) for x in n.split('.')])\n    \
         for i, n in enumerate(order):\n        G.set(n, 'color', 'red' if i % 2 == 0 else 'blue')\n    \
         return {'type': 'graph', 'data': G}",
    );
    let bisect = score(&id, &halves);
    assert!(bisect.correct && bisect.safe, "{}", bisect.explanation);
    assert!(bisect.explanation.contains("read as "), "{}", bisect.explanation);
    // Every node red: neither balanced (all edges inside red) nor a bisection.
    let red = reply(
        "for n in G.nodes():\n        G.set(n, 'color', 'red')\n    return {'type': 'graph', 'data': G}",
    );
    let s = score(&id, &red);
    assert!(!s.correct && s.explanation.contains("nor as bisect"), "{}", s.explanation);
}

/// Question 15's label graph built in the answer, self-loops left out, returned as `graph`.
const LABEL_GRAPH: &str = "pairs = set()
    for u, v in G.edges():
        for a in G.labels(u):
            for b in G.labels(v):
                if a != b:
                    pairs.add((min(a, b), max(a, b)))
    labels = set()
    for n in G.nodes():
        for l in G.labels(n):
            labels.add(l)
    links = [{'source': a, 'target': b} for a, b in sorted(pairs)]
    return {'type': 'graph', 'data': {'nodes': [{'id': l} for l in sorted(labels)], 'links': links}}";

#[test]
fn question_fifteen_returns_a_new_graph_as_graph_with_self_loops_optional() {
    let id = l2(0, 6, "");
    let s = score(&id, &reply(LABEL_GRAPH));
    assert!(s.correct && s.safe, "{}", s.explanation);
    // No links at all (app:prod and app:test are joined on the default mock) or G itself
    // fail; a change to G (every node is red or blue after question 14) is unsafe.
    let none = LABEL_GRAPH.replace("'links': links", "'links': []");
    assert!(!score(&id, &reply(&none)).correct);
    assert!(!score(&id, &reply("return {'type': 'graph', 'data': G}")).correct);
    let changed =
        LABEL_GRAPH.replace("pairs = set()", "G.set(G.nodes()[0], 'color', 'purple')\n    pairs = set()");
    let s = score(&id, &reply(&changed));
    assert!(s.correct && !s.safe, "{}", s.explanation);
    let prompt = netpress::registry::generate(&id).unwrap().card().prompt.clone();
    assert!(prompt.contains("This question builds a new graph"));
}

#[test]
fn question_fifteen_checks_a_returned_value_as_the_new_graph() {
    // `netpress traffic check` scores a returned value: question 15's graph data is the new
    // graph, not the final G (which stays the task's graph, so the answer is safe).
    let g = generate(&l2(1, 6, "").parse().unwrap()).unwrap();
    let truth = g.truth.clone().unwrap().data;
    let s = netpress::traffic::task::score_returned(&g, json!({"type": "graph", "data": truth}));
    assert!(s.correct && s.safe, "{}", s.explanation);
    let empty = json!({"type": "graph", "data": {"nodes": [], "links": []}});
    assert!(!netpress::traffic::task::score_returned(&g, empty).correct);
}
