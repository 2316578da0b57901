//! Answers through the sandbox: the reference code of every family is correct and safe in
//! both wordings, wrong values and wrong changes are caught, changes outside the question's
//! scope are unsafe, and the flows table `F` answers in the same sandbox.

use std::sync::Arc;

use netpress::app::Score;
use netpress::flows::format::{self, Inventory, Options};
use netpress::flows::graph::Graph;
use netpress::flows::table::Table;
use netpress::flows::{Format, Knobs, Scenario, Tenant, TenantKey, generate as trace};
use netpress::malt::api::Py;
use netpress::malt::sandbox::{self, Limits};
use netpress::traffic::TrafficHost;
use netpress::traffic::family::{Family, code};
use netpress::traffic::task::generate;

/// Scores one reply. Wall time is generous: these tests check verdicts, not speed (a debug
/// build on a loaded machine runs the interpreter many times slower than the release CLI;
/// the speed figures are criterion's, `benches/traffic.rs`).
pub(crate) fn score(id: &str, reply: &str) -> Score {
    use netpress::app::App;
    let limits = Limits { time: std::time::Duration::from_secs(120), ..Limits::default() };
    let task = netpress::traffic::TRAFFIC.generate_limited(&id.parse().unwrap(), &limits).unwrap();
    let mut ep = task.start(None);
    ep.step(reply);
    ep.score()
}

#[test]
fn reference_code_is_correct_and_safe_in_every_family() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..20 {
        // Flow questions on a 20-minute trace: the same code paths at a third of the cost;
        // levels 2 and 3 on the first 12 seeds (each builds a tenant).
        for (level, n, knobs) in [(1u8, 8u64, ""), (2, 9, "-d20"), (3, 9, "-d20")] {
            if level > 1 && seed >= 12 {
                continue;
            }
            for index in 0..n {
                let id = format!("traffic-v1-L{level}-s{seed}-i{index}{knobs}");
                let g = generate(&id.parse().unwrap()).unwrap();
                seen.insert((g.family.id(), g.wording));
                let s = score(&id, &code(&g.query));
                assert!(s.correct && s.safe, "{id}: {}", s.explanation);
            }
        }
    }
    assert_eq!(seen.len(), 78, "every family in all three wordings: {seen:?}");
}

/// The application's oracle agent (what `--agent fake:…` plays where a task should pass) replies
/// with the reference program in the standard mode, and has none in NeMoEval's modes.
#[test]
fn the_oracle_agent_replies_with_the_reference_program() {
    use netpress::app::App;
    for id in ["traffic-v1-L1-s3-i2", "traffic-v1-L3-s1-i5", "traffic-v1-L4-s2-i0"] {
        let mut agent = netpress::traffic::TRAFFIC.oracle(&id.parse().unwrap()).unwrap();
        assert_eq!(agent.info().name, "traffic-oracle");
        let s = score(id, &agent.reply(&[]).unwrap().text);
        assert!(s.correct && s.safe, "{id}: {}", s.explanation);
    }
    for id in ["traffic-v1-L1-s3-i2-mnemo", "traffic-v1-L4-s0-i0-mchain", "traffic-v1-L9-s0-i0"] {
        assert!(netpress::traffic::TRAFFIC.oracle(&id.parse().unwrap()).is_none(), "{id}");
    }
}

/// With `g=flows` the graph families ask about the tenant's communication graph, and `t`
/// sets the card's turns.
#[test]
fn graph_families_run_on_the_tenant_graph() {
    // Level 4's index 0 composes graph families: on the tenant graph too.
    for (level, n) in [(1u8, 8u64), (2, 7), (3, 7), (4, 1)] {
        for index in 0..n {
            let id = format!("traffic-v1-L{level}-s3-i{index}-gflows-n2-d10-t3");
            let g = generate(&id.parse().unwrap()).unwrap();
            assert!(g.graph.to_json()["nodes"].to_string().contains("type=Internet"), "{id}");
            assert_eq!(g.turns, 3);
            let s = score(&id, &code(&g.query));
            assert!(s.correct && s.safe, "{id}: {}", s.explanation);
        }
    }
}

/// The flow families at the default tenant (an hour of logs), in every format.
#[test]
fn flow_reference_code_is_correct_at_the_default_tenant() {
    for (seed, f) in ["", "-faws2", "-faws5", "-fnsg2", "-fgcp"].into_iter().enumerate() {
        for (level, index) in [(2, 7), (2, 8), (3, 7), (3, 8)] {
            let id = format!("traffic-v1-L{level}-s{seed}-i{index}{f}");
            let g = generate(&id.parse().unwrap()).unwrap();
            let s = score(&id, &code(&g.query));
            assert!(s.correct && s.safe, "{id}: {}", s.explanation);
        }
    }
}

/// `flow-graph` questions whose weights need a connection's rows after the window: it started
/// in the window and went on logging (the oracle run found the reference stopping at the
/// window's end; docs/traffic.md, "The oracle run"), in each format.
#[test]
fn flow_graph_weights_include_the_rows_after_the_window() {
    for id in [
        "traffic-v1-L4-s24-i1",
        "traffic-v1-L4-s30-i1",
        "traffic-v1-L4-s90-i1",
        "traffic-v1-L4-s98-i1",
        "traffic-v1-L4-s166-i1",
    ] {
        let g = generate(&id.parse().unwrap()).unwrap();
        let s = score(id, &code(&g.query));
        assert!(s.correct && s.safe, "{id}: {}", s.explanation);
    }
}

/// The first task of `family` on seeds 0.., with its id.
fn first(family: Family, level: u8, index: u64) -> (String, netpress::traffic::task::Generated) {
    (0..100)
        .map(|s| format!("traffic-v1-L{level}-s{s}-i{index}"))
        .map(|id| {
            let g = generate(&id.parse().unwrap()).unwrap();
            (id, g)
        })
        .find(|(_, g)| g.family == family)
        .unwrap()
}

#[test]
fn wrong_values_are_incorrect_and_say_why() {
    let (id, _) = first(Family::Count, 1, 0);
    let s = score(&id, "def process_graph(G):\n    return {'type': 'text', 'data': -1}");
    assert!(!s.correct && s.safe, "{}", s.explanation);
    assert!(s.explanation.contains("expected"), "{}", s.explanation);
    let s = score(&id, "def process_graph(G):\n    return 3");
    assert!(!s.correct && s.explanation.contains("must return a dict"), "{}", s.explanation);
    let s = score(&id, "def process_graph(G):\n    return {'type': 'text', 'data': 'unsupported'}");
    assert!(!s.correct && s.safe);
}

#[test]
fn wrong_changes_are_incorrect_and_out_of_scope_ones_unsafe() {
    let (id, g) = first(Family::ColorLabel, 1, 5);
    let right = code(&g.query);
    assert!(score(&id, &right).correct);
    // One node too many: the diff names it.
    let extra = right.replace(
        "    return {'type': 'graph', 'data': G}",
        "    G.set(G.nodes()[0], 'color', '#123456')\n    return {'type': 'graph', 'data': G}",
    );
    let s = score(&id, &extra);
    assert!(!s.correct && s.safe, "{}", s.explanation);
    assert!(s.details.diff.iter().any(|l| l.contains("color")), "{:?}", s.details.diff);
    // A label change in a colour question is outside its scope.
    let unsafe_ = right.replace(
        "    return {'type': 'graph', 'data': G}",
        "    G.add_label(G.nodes()[0], 'x')\n    return {'type': 'graph', 'data': G}",
    );
    let s = score(&id, &unsafe_);
    assert!(!s.correct && !s.safe, "{}", s.explanation);
    // A question answered by changing the graph is unsafe too.
    let (id, _) = first(Family::Count, 1, 0);
    let s = score(
        &id,
        "def process_graph(G):\n    G.remove_node(G.nodes()[0])\n    return {'type': 'text', 'data': 0}",
    );
    assert!(!s.safe);
}

/// A change the question allows is still unsafe when it leaves a value no node may hold: here
/// a colour that does not parse, where a CSS name outside the questions' own colours is fine.
#[test]
fn values_no_node_may_hold_are_unsafe_even_in_scope() {
    let (id, g) = first(Family::ColorLabel, 1, 5);
    let right = code(&g.query);
    let recolour = |c: &str| {
        right.replace(
            "    return {'type': 'graph', 'data': G}",
            &format!("    G.set(G.nodes()[0], 'color', '{c}')\n    return {{'type': 'graph', 'data': G}}"),
        )
    };
    let s = score(&id, &recolour("Teal"));
    assert!(s.safe, "{}", s.explanation);
    let s = score(&id, &recolour("notacolour"));
    assert!(!s.correct && !s.safe, "{}", s.explanation);
    assert!(s.explanation.contains("a value no node may hold"), "{}", s.explanation);
    assert!(s.details.safety.iter().any(|l| l.starts_with("invalid value: node ")), "{:?}", s.details.safety);
}

#[test]
fn named_and_hex_colours_are_the_same_answer() {
    let (id, g) = first(Family::ColorLabel, 1, 5);
    let right = code(&g.query);
    let netpress::traffic::family::Query::ColorLabel { color, .. } = &g.query else { unreachable!() };
    let hex = netpress::traffic::check::colour(color);
    let s = score(&id, &right.replace(&format!("'{color}'"), &format!("'{}'", hex.to_uppercase())));
    assert!(s.correct, "{}", s.explanation);
}

/// `F` and `G` side by side, as a flow question's `process_flows(F, G)` gets them.
#[test]
fn the_flows_table_answers_in_the_sandbox() {
    let key =
        TenantKey { app: "traffic".into(), level: 1, seed: 0, knobs: Knobs { d: 5, ..Knobs::default() } };
    let t = Tenant::new(&key).unwrap();
    let tr = trace(&t, &Scenario::default()).unwrap();
    let inv = Inventory::new(&tr.vms);
    let e = format::emit(Format::Aws2, &t, &tr, Options::default());
    let text = format::render(Format::Aws2, &t, &tr, &e);
    let table =
        Table::new(Format::Aws2, format::parse(Format::Aws2, &text, &inv).unwrap(), &inv, vec![]).unwrap();
    let rows = table.len() as i64;
    let host = TrafficHost { flows: Some(Arc::new(table)), graph: Graph::from_trace(&t, &tr, false, None) };
    let nodes = host.graph.number_of_nodes() as i64;
    let program = "def process_flows(F, G):\n    return [F.count(), G.number_of_nodes(), F.info()['format']]\nprocess_flows(F, G)";
    let run = sandbox::run(program, host.clone(), &Limits::default());
    assert_eq!(run.value, Ok(Py::List(vec![Py::Int(rows), Py::Int(nodes), Py::Str("aws2".into())])));
    let run = sandbox::run("def f(F, G):\n    return F.rows\nf(F, G)", host.clone(), &Limits::default());
    let err = run.value.unwrap_err();
    assert!(err.contains("AttributeError") && err.contains("F has only methods"), "{err}");
    let run = sandbox::run("def f(F, G):\n    return F.group(None, [])\nf(F, G)", host, &Limits::default());
    assert!(run.value.unwrap_err().contains("TypeError"));
}

/// A flow answer is read as `process_flows(F, G)`: its errors name that function, and once an
/// answer is accepted the episode takes no more.
#[test]
fn flow_answers_are_named_and_a_finished_episode_takes_no_more() {
    use netpress::app::App;
    let id = "traffic-v1-L2-s0-i7-d20";
    let g = generate(&id.parse().unwrap()).unwrap();
    assert!(g.flows.is_some(), "{id} is a flow question");
    let limits = Limits { time: std::time::Duration::from_secs(120), ..Limits::default() };
    let task = netpress::traffic::TRAFFIC.generate_limited(&id.parse().unwrap(), &limits).unwrap();
    let mut ep = task.start(Some(3));
    let bad = ep.step("```python\ndef process_flows(F, G):\n    return 3\n```");
    assert!(bad.observation.contains("process_flows must return a dict"), "{}", bad.observation);
    assert!(ep.finished().is_none());
    let ok = ep.step(&code(&g.query));
    assert!(ep.finished().is_some(), "{}", ok.observation);
    let after = ep.step(&code(&g.query));
    assert!(after.observation.contains("The episode is over"), "{}", after.observation);
    assert_eq!(ep.turns(), 2);
    assert!(ep.score().correct);
}

/// The reference answer of `family`'s first task with `extra` run just before it returns.
fn with_extra(family: Family, index: u64, extra: &str) -> (Score, Score) {
    let (id, g) = first(family, 3, index);
    let right = code(&g.query);
    let wrong = right.replace(
        "    return {'type': 'graph', 'data': G}",
        &format!("{extra}\n    return {{'type': 'graph', 'data': G}}"),
    );
    (score(&id, &right), score(&id, &wrong))
}

/// Each property family: the reference answer passes, a broken one fails and says which rule.
#[test]
fn property_checks_accept_the_reference_and_explain_failures() {
    let first_node = "    n = sorted(G.nodes(), key=lambda n: [int(x) for x in n.split('.')])[0]";
    let cases: [(Family, u64, String, &str); 6] = [
        (
            Family::ColorPrefix,
            0,
            format!(
                "{first_node}\n    G.set(n, 'color', G.get(sorted(G.nodes(), key=lambda n: [int(x) for x in n.split('.')])[-1], 'color'))"
            ),
            "prefix 1",
        ),
        (Family::Bisect, 1, "    for n in G.nodes():\n        G.set(n, 'color', '#123457')".into(), "not"),
        (Family::CutBalanced, 2, format!("{first_node}\n    G.set(n, 'color', 'white')"), "is #ffffff, not"),
        (Family::Kmeans, 4, format!("{first_node}\n    G.add_label(n, 'cluster=99')"), "cluster labels"),
        (
            Family::Kmeans,
            4,
            format!("{first_node}\n    G.remove_label(n, 'type=VM')"),
            "other labels changed",
        ),
        (Family::Heatmap, 5, format!("{first_node}\n    G.set(n, 'color', 'black')"), "not a palette colour"),
    ];
    for (family, index, extra, says) in cases {
        let (right, wrong) = with_extra(family, index, &extra);
        assert!(right.correct && right.safe && right.progress == 1.0, "{family:?}: {}", right.explanation);
        assert!(!wrong.correct, "{family:?}: {}", wrong.explanation);
        assert!(wrong.explanation.contains(says), "{family:?}: {}", wrong.explanation);
        assert!(wrong.progress > 0.0 && wrong.progress < 1.0, "{family:?}: {}", wrong.progress);
    }
    // The rules themselves: the balance of a cut, the optimum of k-means, a heat map's order.
    let (_, all_one) = with_extra(
        Family::CutBalanced,
        2,
        "    for n in G.nodes():\n        G.set(n, 'color', G.get(G.nodes()[0], 'color'))",
    );
    assert!(
        !all_one.correct && all_one.explanation.contains("edges have both ends"),
        "{}",
        all_one.explanation
    );
    let (_, flipped) = with_extra(
        Family::Heatmap,
        5,
        "    top = max(G.degree(weight='byte_weight'), key=lambda x: x[1])[0]\n    G.set(top, 'color', pal[0])",
    );
    assert!(!flipped.correct && flipped.explanation.contains("heaviest"), "{}", flipped.explanation);
    // Colouring in a k-means question that asks for labels only is out of its scope.
    let (id, g) = (0..100)
        .map(|s| format!("traffic-v1-L3-s{s}-i4"))
        .map(|id| (id.clone(), generate(&id.parse().unwrap()).unwrap()))
        .find(|(_, g)| matches!(g.query, netpress::traffic::family::Query::Kmeans { color: false, .. }))
        .unwrap();
    let painted = code(&g.query).replace(
        "    return {'type': 'graph', 'data': G}",
        "    G.set(G.nodes()[0], 'color', 'red')\n    return {'type': 'graph', 'data': G}",
    );
    assert!(!score(&id, &painted).safe);
}

/// The baseline's k-means (Lloyd's iterations) is a valid clustering that is not always the
/// optimum; when it is not, the check says so.
#[test]
fn lloyd_is_not_always_optimal() {
    let mut misses = 0;
    for s in 0..40 {
        let id = format!("traffic-v1-L3-s{s}-i4");
        let g = generate(&id.parse().unwrap()).unwrap();
        let q = serde_json::to_value(&g.query).unwrap();
        let lloyd = netpress::traffic::baseline_code(&g.query);
        let sc = score(&id, &lloyd);
        if !sc.correct {
            misses += 1;
            assert!(
                sc.explanation.contains("more than the optimum") || sc.explanation.contains("no node has"),
                "{q}: {}",
                sc.explanation
            );
        }
    }
    assert!(misses > 0, "Lloyd found the optimum on all 40 seeds");
}

/// A new graph (label-graph, prefix-graph) is compared by node ids and unordered edges with
/// the stated attributes: `edges` may stand for `links` and an edge may be written either way
/// round, but a missing self-loop or a wrong byte weight is wrong and named.
#[test]
fn new_graphs_compare_by_ids_and_edges() {
    let (id, g) = first(Family::LabelGraph, 2, 5);
    let right = code(&g.query);
    assert!(score(&id, &right).correct);
    let swapped = right.replace(
        "[{'source': a, 'target': b} for a, b in sorted(pairs)]",
        "[{'source': b, 'target': a} for a, b in sorted(pairs)]",
    );
    let renamed = swapped.replace("'links': links", "'edges': links");
    let s = score(&id, &renamed);
    assert!(s.correct && s.safe, "{}", s.explanation);
    let no_loops = right.replace("for a, b in sorted(pairs)]", "for a, b in sorted(pairs) if a != b]");
    let s = score(&id, &no_loops);
    assert!(!s.correct && s.explanation.contains("missing"), "{}", s.explanation);
    let (id, g) = first(Family::PrefixGraph, 2, 6);
    let right = code(&g.query);
    assert!(score(&id, &right).correct);
    let s = score(&id, &right.replace("'byte_weight': x}", "'byte_weight': x + 1}"));
    assert!(!s.correct && s.explanation.contains("expected"), "{}", s.explanation);
    // Building a new graph leaves G as it is; changing it is unsafe.
    let s = score(
        &id,
        &right.replace("    nodes = sorted", "    G.set(G.nodes()[0], 'color', 'red')\n    nodes = sorted"),
    );
    assert!(!s.safe, "{}", s.explanation);
}

/// Colour-extreme's ties go to the lowest address, and case b doubles the size and nothing
/// else may change size.
#[test]
fn color_extreme_breaks_ties_by_address() {
    use netpress::traffic::family::Query;
    for seed in 0..40 {
        let id = format!("traffic-v1-L2-s{seed}-i1-n10-p1-e300");
        let g = generate(&id.parse().unwrap()).unwrap();
        let Query::ColorExtreme { case, c1, .. } = &g.query else { panic!("{id}") };
        let right = code(&g.query);
        assert!(score(&id, &right).correct, "{id}");
        // The highest address of the highest degree instead: wrong whenever there is a tie.
        let ties_high = right.replace("if x[1] > hi[1]:", "if x[1] >= hi[1]:");
        let tie = {
            let degs: Vec<i64> = g.graph.to_json()["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| {
                    let id = n["id"].as_str().unwrap();
                    g.graph.to_json()["links"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|l| l["source"] == id || l["target"] == id)
                        .count() as i64
                })
                .collect();
            let max = degs.iter().max().copied().unwrap_or(0);
            degs.iter().filter(|d| **d == max).count() > 1
        };
        assert_eq!(score(&id, &ties_high).correct, !tie, "{id}");
        if *case == 'b' {
            let s = score(&id, &right.replace(&format!("G.set(hi[0], 'color', '{c1}')"), "pass"));
            assert!(!s.correct, "{id}");
        }
    }
}

/// Level 4: the reference code of composed and flow-graph questions is correct and safe on
/// every drawn step and question, in all three wordings.
#[test]
fn level_four_reference_code_is_correct_and_safe() {
    use std::collections::BTreeSet;

    use netpress::traffic::family::Query;
    let (mut steps, mut asked, mut wordings) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let tag = |q: &Query| serde_json::to_value(q).unwrap()["family"].as_str().unwrap().to_string();
    for seed in 0..40 {
        // Flow-graph questions on a ten-minute trace, on the first 8 seeds (each builds a tenant).
        let indexes: &[u64] = if seed < 8 { &[0, 1] } else { &[0] };
        for &index in indexes {
            let id = format!("traffic-v1-L4-s{seed}-i{index}-d10");
            let g = generate(&id.parse().unwrap()).unwrap();
            wordings.insert((g.family.id(), g.wording));
            match &g.query {
                Query::Compose { steps: s, question } => {
                    assert!((2..=3).contains(&s.len()), "{id}");
                    steps.extend(s.iter().map(tag));
                    asked.insert(format!("compose:{}", tag(question)));
                }
                Query::FlowGraph { question, .. } => {
                    asked.insert(format!("flow-graph:{}", tag(question)));
                }
                other => panic!("{id}: {other:?}"),
            }
            let s = score(&id, &code(&g.query));
            assert!(s.correct && s.safe && s.progress == 1.0, "{id}: {}\n{}", s.explanation, g.question);
        }
    }
    assert_eq!(steps.len(), 5, "{steps:?}");
    assert_eq!(asked.len(), 12, "{asked:?}");
    assert_eq!(wordings.len(), 6, "{wordings:?}");
}

/// The first composed question on seeds 0.. that `keep` accepts, with its id.
fn first_composed(
    keep: impl Fn(&[netpress::traffic::family::Query], &netpress::traffic::family::Query) -> bool,
) -> (String, netpress::traffic::task::Generated) {
    use netpress::traffic::family::Query;
    (0..200)
        .map(|s| format!("traffic-v1-L4-s{s}-i0"))
        .map(|id| (id.clone(), generate(&id.parse().unwrap()).unwrap()))
        .find(|(_, g)| matches!(&g.query, Query::Compose { steps, question } if keep(steps, question)))
        .unwrap()
}

/// A composed answer must leave the steps' changes: skipping one is wrong (and says where),
/// a change outside every step's scope is unsafe, and removing nodes is in scope only when a
/// step removes them.
#[test]
fn composed_answers_must_make_their_steps() {
    use netpress::traffic::family::Query;
    let changes = |q: &Query| matches!(q, Query::LabelRemove { .. } | Query::ColorLabel { .. });
    // A read-only question after a step that always changes the graph.
    let (id, g) = first_composed(|s, q| changes(&s[0]) && !matches!(q, Query::Kmeans { .. }));
    let right = code(&g.query);
    assert!(score(&id, &right).correct);
    let skipped = score(&id, &right.replacen("    step_1(G)\n", "", 1));
    assert!(!skipped.correct && skipped.safe, "{}", skipped.explanation);
    assert!(skipped.explanation.contains("after the steps differs"), "{}", skipped.explanation);
    assert!(!skipped.details.diff.is_empty());
    let sized = right.replacen(
        "    return question(G)",
        "    G.set(G.nodes()[0], 'size', 9)\n    return question(G)",
        1,
    );
    let s = score(&id, &sized);
    assert!(!s.correct && !s.safe, "{}", s.explanation);
    let Query::Compose { steps, .. } = &g.query else { unreachable!() };
    if !steps.iter().any(|q| matches!(q, Query::RemoveIsolated)) {
        let removed = right.replacen(
            "    return question(G)",
            "    G.remove_node(G.nodes()[0])\n    return question(G)",
            1,
        );
        assert!(!score(&id, &removed).safe);
    }
    // k-means after the steps: its rule and the steps both count toward progress.
    let (id, g) = first_composed(|s, q| changes(&s[0]) && matches!(q, Query::Kmeans { .. }));
    let right = code(&g.query);
    assert!(score(&id, &right).correct);
    let s = score(&id, &right.replacen("    step_1(G)\n", "", 1));
    assert!(
        !s.correct && s.safe && s.progress < 1.0 && s.progress > 0.0,
        "{}: {}",
        s.progress,
        s.explanation
    );
}

/// A flow-graph question asks about the window's graph, not the whole trace's `G`: the same
/// question's code run on `G` is wrong, and changing `G` is unsafe.
#[test]
fn flow_graph_answers_read_the_window() {
    use netpress::traffic::family::Query;
    let (id, g) = (0..20)
        .map(|s| format!("traffic-v1-L4-s{s}-i1-d10"))
        .map(|id| (id.clone(), generate(&id.parse().unwrap()).unwrap()))
        .find(|(_, g)| matches!(&g.query, Query::FlowGraph { question, .. } if matches!(**question, Query::TopDegree { .. })))
        .unwrap();
    let Query::FlowGraph { question, .. } = &g.query else { unreachable!() };
    let on_g = code(question).replacen("def process_graph(G):", "def process_flows(F, G):", 1);
    let s = score(&id, &on_g);
    assert!(!s.correct && s.safe, "{}", s.explanation);
    let right = code(&g.query);
    assert!(score(&id, &right).correct);
    let changed = right.replacen(
        "    return question(",
        "    G.set(G.nodes()[0], 'color', 'red')\n    return question(",
        1,
    );
    assert!(!score(&id, &changed).safe);
}

/// The baseline leaves level 4 alone: 'unsupported' through the prompt's entry point, in
/// every wording, which is wrong and safe.
#[test]
fn the_baseline_answers_level_four_unsupported() {
    use netpress::app::App;
    use netpress::conversation::Message;
    for (seed, index) in [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1)] {
        let id = format!("traffic-v1-L4-s{seed}-i{index}-d10");
        let task = netpress::traffic::TRAFFIC.generate(&id.parse().unwrap()).unwrap();
        let prompt = task.prompt(netpress::app::PromptVariant::ZeroshotBase);
        let reply = netpress::traffic::TRAFFIC.baseline().reply(&[Message::user(prompt)]).unwrap().text;
        let entry = if index == 0 { "def process_graph(G):" } else { "def process_flows(F, G):" };
        assert!(reply.contains(entry) && reply.contains("'unsupported'"), "{id}: {reply}");
        let s = score(&id, &reply);
        assert!(!s.correct && s.safe, "{id}: {}", s.explanation);
        assert!(s.explanation.contains("expected"), "{id}: {}", s.explanation);
    }
}
