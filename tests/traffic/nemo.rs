//! The `nemo` mode at levels 1 to 3 (docs/traffic.md, "NeMoEval-compatible modes"): NeMoEval's
//! 24 questions, verbatim, on the golden chain's state of the nemo mock; the reference answers
//! pass, the golden answers' own forms pass, the looser readings (any tied node, any valid top
//! ten, either cut, a new graph as `graph`, k-means within 5 % in any label form, any palette
//! or pair of colours, /8 or /16 rows, any of three medians) pass and wrong answers fail, and
//! what is not built, or what a graph cannot ask, is refused.

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
        ("traffic-v1-L4-s0-i0-mnemo", "not in this version"),
        ("traffic-v1-L1-s0-i0-mchain", "not in this version"),
        ("traffic-v1-L1-s0-i0-gflows-mnemo", "m=nemo and m=chain ask of NeMoEval's mock graph only"),
        ("traffic-v1-L1-s0-i0-p3-mnemo", "knob p"),
        ("traffic-v1-L1-s0-i0-n2001-mnemo", "knob n must be 10..2000"),
        ("traffic-v1-L1-s0-i0-e0-mnemo", "knob e must be 1..1000"),
        ("traffic-v1-L1-s0-i7-n10-e1000-mnemo", "same degree"),
        ("traffic-v1-L3-s0-i0-mchain", "not in this version"),
        ("traffic-v1-L2-s7-i7-n10-mnemo", "3 distinct total byte weights, fewer than 5"),
        ("traffic-v1-L3-s2-i7-n10-mnemo", "no edge touches a node with the label app:prod"),
    ]);
}

// Level 2: NeMoEval's medium eight (questions 9–15; 16 is with level 3 below).

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

// Question 16 (level 2, index 7) and level 3: NeMoEval's hard eight, questions 17–24.

fn l3(seed: u64, index: u64, knobs: &str) -> String {
    format!("traffic-v1-L3-s{seed}-i{index}{knobs}-mnemo")
}

#[test]
fn question_sixteen_and_the_hard_eight_are_verbatim_and_their_reference_answers_pass() {
    let texts = nemo::texts();
    for seed in 0..4 {
        let ids =
            std::iter::once((l2(seed, 7, ""), 16)).chain((0..8).map(|i| (l3(seed, i, ""), 17 + i as usize)));
        for (id, number) in ids {
            let g = generate(&id.parse().unwrap()).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(g.question, texts[number - 1], "{id}");
            assert_eq!(g.nemo, Some(number));
            let s = score(&id, &code(&g.query));
            assert!(s.correct && s.safe, "{id}: {}", s.explanation);
            let prompt = netpress::registry::generate(&id).unwrap().card().prompt.clone();
            assert!(prompt.contains(&format!("Question: {}", texts[number - 1])), "{id}");
        }
    }
}

/// Sets each node's labels and colour from its total byte weight's cluster, by Python
/// `body` lines that see `cl` (node → cluster 0..4 of an optimal 1-D k-means, by ascending
/// totals) and `tot`.
fn with_clusters(body: &str) -> String {
    let optimal = netpress::traffic::kmeans::OPTIMAL_CODE;
    reply(&format!("k = 5\n    {optimal}\n    {body}\n    return {{'type': 'graph', 'data': G}}"))
}

#[test]
fn question_sixteen_reads_any_added_label_as_the_cluster_and_wants_a_colour_per_cluster() {
    let id = l2(1, 7, "");
    let colours = "cs = ['#111111', '#222222', '#333333', '#444444', '#555555']";
    for (label, form) in
        [("'cluster_label: ' + str(c)", "the chain's"), ("str(c)", "bare"), ("'kmeans' + str(c)", "own")]
    {
        let body = format!(
            "{colours}\n    for n, c in cl.items():\n        G.add_label(n, {label})\n        G.set(n, 'color', cs[c])"
        );
        let s = score(&id, &with_clusters(&body));
        assert!(s.correct && s.safe, "{form}: {}", s.explanation);
    }
    // No colours (the nodes keep question 14's red and blue), two clusters merged, two
    // labels on a node, or one colour for two clusters: each fails.
    let fails = [
        "for n, c in cl.items():\n        G.add_label(n, str(c))".to_string(),
        format!(
            "{colours}\n    for n, c in cl.items():\n        G.add_label(n, str(min(c, 3)))\n        G.set(n, 'color', cs[min(c, 3)])"
        ),
        format!(
            "{colours}\n    for n, c in cl.items():\n        G.add_label(n, str(c))\n        G.add_label(n, 'x')\n        G.set(n, 'color', cs[c])"
        ),
        format!(
            "{colours}\n    for n, c in cl.items():\n        G.add_label(n, str(c))\n        G.set(n, 'color', cs[min(c, 3)])"
        ),
    ];
    for body in fails {
        let s = score(&id, &with_clusters(&body));
        assert!(!s.correct, "{body}: {}", s.explanation);
    }
    let card = netpress::registry::generate(&id).unwrap().card().expected.clone();
    assert!(card["property"].as_str().unwrap().contains("1.05 × the optimum"), "{card}");
}

#[test]
fn question_seventeen_counts_maximal_cliques() {
    let id = l3(0, 0, "");
    let n = generate(&id.parse().unwrap()).unwrap().truth.unwrap().data.as_i64().unwrap();
    let with = |x: i64| reply(&format!("return {{'type': 'text', 'data': '{x}'}}"));
    assert!(score(&id, &with(n)).correct);
    assert!(!score(&id, &with(n - 1)).correct);
}

/// Colours every node by the rank of its total byte weight among the distinct totals, spread
/// over `pal` (Python list literal).
fn heat(pal: &str) -> String {
    reply(&format!(
        "pal = {pal}\n    tot = dict(G.degree(weight='byte_weight'))\n    levels = sorted(set(tot.values()))\n    \
         for n, x in tot.items():\n        G.set(n, 'color', pal[levels.index(x) * (len(pal) - 1) // (len(levels) - 1)])\n    \
         return {{'type': 'graph', 'data': G}}"
    ))
}

#[test]
fn question_eighteen_takes_any_palette_in_order() {
    let id = l3(2, 1, "");
    for pal in [
        "['#0000ff', '#ff0000']",
        "['red', 'yellow', 'white']",
        "['#000000', '#444444', '#888888', '#cccccc']",
    ] {
        let s = score(&id, &heat(pal));
        assert!(s.correct && s.safe, "{pal}: {}", s.explanation);
    }
    // One colour; the state's own colours (question 16's clusters, in order) left as they
    // are; the hottest node given the coldest colour.
    assert!(!score(&id, &heat("['red', 'red']")).correct);
    assert!(!score(&id, &reply("return {'type': 'graph', 'data': G}")).correct);
    let broken = heat("['#000000', '#444444', '#888888']").replace(
        "    return",
        "    top = max(tot, key=lambda n: tot[n])\n    G.set(top, 'color', '#000000')\n    return",
    );
    let s = score(&id, &broken);
    assert!(!s.correct && s.explanation.contains("no order of the colours"), "{}", s.explanation);
}

/// Colours the first `half` nodes in address order `a` and the rest `b`.
fn halves(a: &str, b: &str, half: &str) -> String {
    reply(&format!(
        "order = sorted(G.nodes(), key=lambda n: [int(x) for x in n.split('.')])\n    half = {half}\n    \
         for i, n in enumerate(order):\n        G.set(n, 'color', '{a}' if i < half else '{b}')\n    \
         return {{'type': 'graph', 'data': G}}"
    ))
}

#[test]
fn question_nineteen_takes_any_two_colours_in_equal_halves() {
    let id = l3(1, 2, "");
    for (a, b) in [("red", "blue"), ("#00ff00", "yellow")] {
        let s = score(&id, &halves(a, b, "len(order) // 2"));
        assert!(s.correct && s.safe, "{a} {b}: {}", s.explanation);
    }
    assert!(!score(&id, &halves("red", "blue", "len(order) // 2 - 1")).correct);
    assert!(!score(&id, &halves("red", "red", "len(order) // 2")).correct);
    // Three colours: the halves, one node repainted.
    let three = halves("red", "blue", "len(order) // 2")
        .replace("    return", "    G.set(order[0], 'color', 'green')\n    return");
    assert!(!score(&id, &three).correct);
}

#[test]
fn question_twenty_reads_labels_of_a_common_stem_or_colours() {
    let id = l3(3, 3, "");
    // The family's labels, and labels of one's own stem in place of question 16's.
    let own = "for n, c in cl.items():\n        for l in G.labels(n):\n            if l.startswith('cluster_label: '):\n                \
               G.remove_label(n, l)\n        G.add_label(n, 'km' + str(c))";
    for body in ["for n, c in cl.items():\n        G.add_label(n, 'cluster=' + str(c))", own] {
        let s = score(&id, &with_clusters(body));
        assert!(s.correct && s.safe, "{body}: {}", s.explanation);
    }
    // Question 16's labels replaced by a partition that merges two clusters.
    let merged = own.replace("'km' + str(c)", "'km' + str(min(c, 3))");
    let s = score(&id, &with_clusters(&merged));
    assert!(!s.correct, "{}", s.explanation);
}

#[test]
fn question_twenty_one_counts_the_neighbours_of_app_prod() {
    let id = l3(0, 4, "");
    let n = generate(&id.parse().unwrap()).unwrap().truth.unwrap().data.as_i64().unwrap();
    let with = |x: i64| reply(&format!("return {{'type': 'text', 'data': {x}}}"));
    assert!(score(&id, &with(n)).correct);
    assert!(!score(&id, &with(n + 1)).correct);
}

/// Counts the nodes per prefix, each written by the Python expression `p` of the octets
/// `a`, `b`.
fn per_prefix(p: &str) -> String {
    reply(&format!(
        "counts = {{}}\n    for n in G.nodes():\n        a, b, c, d = n.split('.')\n        p = {p}\n        \
         counts[p] = counts.get(p, 0) + 1\n    return {{'type': 'table', 'data': [[p, c] for p, c in counts.items()]}}"
    ))
}

#[test]
fn question_twenty_two_takes_slash_eight_or_sixteen_in_three_spellings() {
    let id = l3(2, 5, "");
    for p in ["a", "a + '.' + b", "f'{a}.{b}.0.0/16'", "f'{a}.0.0.0/8'"] {
        let s = score(&id, &per_prefix(p));
        assert!(s.correct && s.safe, "{p}: {}", s.explanation);
    }
    // /24 rows, one prefix's count off by one, and a mix of /8 and /16 rows fail.
    for p in ["f'{a}.{b}.{c}.0/24'", "a if a != '10' else a + '.' + b"] {
        assert!(!score(&id, &per_prefix(p)).correct, "{p}");
    }
    let off = per_prefix("a").replace("return", "counts['10'] = counts.get('10', 0) + 1\n    return");
    assert!(!score(&id, &off).correct);
}

/// Deletes the edges whose byte weight is below the threshold `t` computes from the sorted
/// weights `ws` (`cmp` the comparison).
fn filter(t: &str, cmp: &str) -> String {
    reply(&format!(
        "es = G.edges(data=True)\n    ws = sorted([e[2]['byte_weight'] for e in es])\n    n = len(ws)\n    t = {t}\n    \
         for e in es:\n        if e[2]['byte_weight'] {cmp} t:\n            G.remove_edge(e[0], e[1])\n    \
         return {{'type': 'graph', 'data': G}}"
    ))
}

#[test]
fn question_twenty_three_takes_the_lower_upper_or_mean_median() {
    // An even count of edges, so the three medians differ.
    let id = (0..20)
        .map(|seed| l3(seed, 6, ""))
        .find(|id| generate(&id.parse().unwrap()).unwrap().graph.number_of_edges().is_multiple_of(2))
        .expect("a graph with an even count of edges");
    for t in ["ws[(n - 1) // 2]", "ws[n // 2]", "(ws[n // 2 - 1] + ws[n // 2]) / 2"] {
        let s = score(&id, &filter(t, "<"));
        assert!(s.correct && s.safe, "{id} {t}: {}", s.explanation);
    }
    // At most the median, or below the mean, fails.
    assert!(!score(&id, &filter("ws[n // 2]", "<=")).correct);
    assert!(!score(&id, &filter("sum(ws) / n", "<")).correct);
    let card = netpress::registry::generate(&id).unwrap().card().expected.clone();
    let removed = &card["any_of"]["edges_removed"];
    assert_eq!(removed["upper"], removed["mean"], "{card}");
    assert_eq!(removed["lower"].as_u64().unwrap() + 1, removed["upper"].as_u64().unwrap(), "{card}");
}

#[test]
fn question_twenty_four_averages_float_weights() {
    let id = l3(1, 7, "");
    let g = generate(&id.parse().unwrap()).unwrap();
    let row = g.truth.clone().unwrap().data[1].clone();
    let (b, c) = (row[0].as_f64().unwrap(), row[1].as_f64().unwrap());
    // Float weights: the averages are not whole numbers.
    assert!(b.fract() != 0.0 && c.fract() != 0.0, "{row}");
    let table = |b: f64, c: f64| {
        reply(&format!(
            "return {{'type': 'table', 'data': [['Average byte weight', 'Average connection weight'], [{b:?}, {c:?}]]}}"
        ))
    };
    assert!(score(&id, &table(b, c)).correct);
    assert!(!score(&id, &table(b * (1.0 + 1e-6), c)).correct);
}

#[test]
fn level_three_sees_the_golden_chain_through_question_twenty_three() {
    let g = |index| generate(&l3(5, index, "").parse().unwrap()).unwrap().graph.to_json();
    // Question 17 after 16's cluster labels and colours: one label and one colour per cluster.
    let mut per: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    for n in nodes(&g(0)) {
        let tags: Vec<&Value> = n["labels"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l.as_str().unwrap().starts_with("cluster_label: "))
            .collect();
        assert_eq!(tags.len(), 1, "{n}");
        per.entry(tags[0].to_string()).or_default().insert(n["color"].as_str().unwrap().to_string());
    }
    assert_eq!(per.len(), 5);
    assert!(per.values().all(|c| c.len() == 1));
    // Question 20 after 19's red and blue halves; 24 after 23 removed the edges below the
    // upper median.
    let mut count: std::collections::BTreeMap<String, usize> = Default::default();
    nodes(&g(3))
        .iter()
        .for_each(|n| *count.entry(n["color"].as_str().unwrap().to_string()).or_default() += 1);
    assert_eq!(count.keys().collect::<Vec<_>>(), ["blue", "red"]);
    let links = |d: &Value| d["links"].as_array().unwrap().len();
    assert_eq!(links(&g(7)), links(&g(6)) - links(&g(6)) / 2);
}
