//! The `chain` mode (docs/traffic.md, "`m=chain`"): NeMoEval's 24 questions in one episode
//! on a graph that keeps each answer's changes. The reference answers pass all 24; a wrong
//! answer drifts the graph and later answers are checked on the drifted graph, with the drift
//! and the verdict on the golden state recorded; question 15 leaves the graph; the baseline
//! reads each turn's question; what the mode cannot be is refused.

use std::sync::Arc;

use netpress::app::{App, Episode, Score};
use netpress::malt::sandbox::Limits;
use netpress::traffic::TRAFFIC;
use netpress::traffic::chain::QUESTIONS;
use netpress::traffic::family::code;
use netpress::traffic::nemo;
use netpress::traffic::task::{Generated, generate};

fn id(seed: u64) -> String {
    format!("traffic-v1-L4-s{seed}-i0-mchain")
}

fn reply(code: &str) -> String {
    format!("```python\n{code}\n```")
}

/// The golden chain of a chain id: question k's task on S(k−1) at index k − 1.
fn golden(id: &str) -> Arc<Generated> {
    let g = generate(&id.parse().unwrap()).unwrap_or_else(|e| panic!("{id}: {e}"));
    assert!(g.chain.is_some(), "{id}");
    Arc::new(g)
}

/// The episode of `id` (generous wall time: these tests check verdicts, not speed).
fn episode(id: &str) -> Box<dyn Episode> {
    let limits = Limits { time: std::time::Duration::from_secs(120), ..Limits::default() };
    TRAFFIC.generate_limited(&id.parse().unwrap(), &limits).unwrap().start(None)
}

/// Plays a chain, question k answered by `answer(k, golden task k)`; the score and the
/// observations.
fn play(id: &str, answer: impl Fn(usize, &Generated) -> String) -> (Score, Vec<String>, Box<dyn Episode>) {
    let g = golden(id);
    let chain = g.chain.as_ref().unwrap();
    let mut ep = episode(id);
    let mut seen = Vec::new();
    for k in 1..=QUESTIONS {
        assert!(ep.finished().is_none(), "{id}: over before question {k}");
        seen.push(ep.step(&answer(k, &chain.golden[k - 1])).observation);
    }
    (ep.score(), seen, ep)
}

fn reference(_: usize, g: &Generated) -> String {
    reply(&code(&g.query))
}

#[test]
fn the_reference_answers_pass_all_twenty_four_and_each_turn_asks_the_next() {
    let texts = nemo::texts();
    for seed in 0..3 {
        let id = id(seed);
        let (score, seen, mut ep) = play(&id, reference);
        assert!(score.correct && score.safe, "{id}: {}\n{:#?}", score.explanation, score.details.correctness);
        assert_eq!((score.progress, score.turns), (1.0, QUESTIONS as u32));
        for k in 1..QUESTIONS {
            let next = format!("\nQuestion: {}\n", texts[k]);
            assert!(seen[k - 1].starts_with(&format!("Question {k}: returned ")), "{}", seen[k - 1]);
            assert!(seen[k - 1].contains(&next), "{id} turn {k}: {}", seen[k - 1]);
        }
        assert!(seen[14 - 1].contains("This question builds a new graph"), "{}", seen[13]);
        assert!(seen[QUESTIONS - 1].ends_with("The chain is over: 24 answers given."));
        assert!(ep.finished().is_some());
        assert!(
            ep.step(&reference(1, &golden(&id).chain.as_ref().unwrap().golden[0]))
                .observation
                .contains("over")
        );
        let titles: Vec<String> = ep.panels().iter().map(|p| p.title().to_string()).collect();
        assert_eq!(titles, ["Questions", "Answer", "Changes"]);
        assert!(ep.picture().is_some());
    }
}

/// Question 3 left undone (no label added), question 4 answered with the table of the graph
/// as it then is, written out: right on the agent's graph (which is how NeMoEval scores it),
/// wrong on the golden state, which has the prefix labels. Question 24 averages over edges at
/// `app:prod` nodes, which the drifted graph has none of: it fails there and would pass on the
/// golden state.
#[test]
fn a_wrong_answer_drifts_the_graph_and_later_ones_are_checked_on_it() {
    let id = id(5);
    let n = golden(&id).graph.number_of_nodes();
    let (score, _, ep) = play(&id, |k, g| match k {
        3 => reply("def process_graph(G):\n    return {'type': 'graph', 'data': G}"),
        4 => reply(&format!(
            "def process_graph(G):\n    return {{'type': 'table', 'data': [['Label', 'Number of Nodes'], ['type=VM', {n}]]}}"
        )),
        _ => reference(k, g),
    });
    assert!(
        !score.correct && score.safe,
        "{}\n{:#?}\n{:#?}",
        score.explanation,
        score.details.correctness,
        score.details.safety
    );
    assert!((score.progress - 22.0 / 24.0).abs() < 1e-12, "{}", score.progress);
    assert!(score.explanation.contains("22 of 24 questions pass (failed: 3, 24)"), "{}", score.explanation);
    let line = |k: usize| score.details.correctness[k - 1].clone();
    assert!(line(3).starts_with("Q3 fail: "), "{}", line(3));
    assert!(line(4).starts_with("Q4 pass: "), "{}", line(4));
    assert!(line(4).contains("where the same code would fail"), "{}", line(4));
    // Question 5 removes type=VM on both graphs; the prefix labels are still missing, so the
    // drift stays and the same code passes on the golden state too.
    assert!(line(5).contains("changes from the golden state, where the same code would pass"), "{}", line(5));
    assert!(!line(2).contains("golden state"), "{}", line(2));
    assert!(
        line(24).starts_with("Q24 fail: the graph the earlier answers left cannot ask it: "),
        "{}",
        line(24)
    );
    assert!(line(24).ends_with("where the same code would pass"), "{}", line(24));
    assert!(score.details.diff.iter().all(|l| l.starts_with("Q3: ")), "{:?}", score.details.diff);
    let panels = ep.panels();
    let netpress::view::Panel::Lines { summary, .. } = &panels[0] else { panic!("{panels:?}") };
    assert_eq!(summary, "22 of 24 pass");
}

/// Question 15 builds a new graph; whatever its code does to G, the chain's graph stays: the
/// questions after it go exactly as in the reference run.
#[test]
fn question_fifteen_leaves_the_graph_as_it_was() {
    let id = id(7);
    let (plain, _, _) = play(&id, reference);
    let (score, _, _) = play(&id, |k, g| match k {
        15 => reply(
            "def process_graph(G):\n    for u, v in G.edges():\n        G.remove_edge(u, v)\n    \
             return {'type': 'new', 'data': {'nodes': [], 'links': []}}",
        ),
        _ => reference(k, g),
    });
    let line = &score.details.correctness[14];
    assert!(line.starts_with("Q15 fail: "), "{line}");
    assert!(
        !score.safe && score.details.safety.iter().all(|l| l.starts_with("Q15: ")),
        "{:?}",
        score.details.safety
    );
    assert_eq!(score.details.correctness[15..], plain.details.correctness[15..]);
}

#[test]
fn an_episode_stopped_early_counts_the_rest_as_not_answered() {
    let id = id(1);
    let g = golden(&id);
    let mut ep = episode(&id);
    for k in 1..=3 {
        ep.step(&reference(k, &g.chain.as_ref().unwrap().golden[k - 1]));
    }
    ep.stop();
    let s = ep.score();
    assert!(!s.correct && s.turns == 3 && (s.progress - 3.0 / 24.0).abs() < 1e-12, "{}", s.explanation);
    assert!(s.explanation.contains("21 not answered"), "{}", s.explanation);
    assert_eq!(s.details.correctness[23], "Q24 fail: not answered");
    // A reply that is not code is a failed question, and the chain goes on.
    let mut ep = episode(&id);
    let o = ep.step("I would count the nodes.");
    assert!(
        o.observation.starts_with("Question 1: error: ") && o.observation.contains("Question: "),
        "{}",
        o.observation
    );
    assert!(ep.finished().is_none());
}

/// The baseline reads each turn's question, not the first prompt's again: it answers
/// question 1 (a count it knows) and 24 turns are played.
#[test]
fn the_baseline_plays_the_chain_question_by_question() {
    let id = id(2);
    let task = netpress::registry::generate(&id).unwrap();
    let mut agent = TRAFFIC.baseline();
    let record = netpress::run::run_episode(task, agent.as_mut(), netpress::run::RunSettings::default());
    assert_eq!(record.turns.len(), QUESTIONS, "{}", record.score.explanation);
    assert!(
        record.score.details.correctness[0].starts_with("Q1 pass: "),
        "{:?}",
        record.score.details.correctness
    );
    let replies: std::collections::BTreeSet<&str> = record.turns.iter().map(|t| t.reply.as_str()).collect();
    assert!(replies.len() > 1, "the baseline answered every turn alike");
}

#[test]
fn generation_is_stable_and_refuses_what_the_mode_is_not() {
    let a = netpress::registry::generate(&id(3)).unwrap();
    let b = netpress::registry::generate(&id(3)).unwrap();
    assert_eq!(a.card().content_hash, b.card().content_hash);
    assert_eq!((a.card().label.as_str(), a.card().max_turns), ("chain", 24));
    // Each index is its own chain.
    let other = netpress::registry::generate("traffic-v1-L4-s3-i1-mchain").unwrap();
    assert_ne!(a.card().content_hash, other.card().content_hash);
    // Pinned: the chain's prompt and expectations (the content hash covers both) as they landed.
    for (id, hash) in [
        ("traffic-v1-L4-s0-i0-mchain", "4df67d4a6d4e562c23af5edd22d0812fd7e03082c4df2dd450ed39cb2b63dbbc"),
        ("traffic-v1-L4-s5-i0-mchain", "8a19ac6bac728ccee317ef5dc77075342edc0e871cdf3d4183f414ae0f5c6383"),
    ] {
        assert_eq!(netpress::registry::generate(id).unwrap().card().content_hash, hash, "{id}");
    }
    let refused = |id: &str, says: &str| {
        let e = netpress::registry::generate(id)
            .err()
            .unwrap_or_else(|| panic!("{id} was generated"))
            .to_string();
        assert!(e.contains(says), "{id}: {e}");
    };
    refused("traffic-v1-L2-s0-i0-mchain", "m=chain, all 24 in one episode, at level 4");
    refused("traffic-v1-L4-s0-i0-mnemo", "m=nemo and m=straw are at levels 1 to 3");
    refused("traffic-v1-L4-s0-i0-mchain-t5", "t must be 24, got 5");
    refused("traffic-v1-L4-s0-i0-gflows-mchain", "m=nemo and m=chain ask of NeMoEval's mock graph only");
    refused("traffic-v1-L4-s0-i0-p3-mchain", "knob p");
}
