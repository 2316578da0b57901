//! The `straw` mode (docs/traffic.md, "`m=straw`"): the `nemo` mode's questions in NeMoEval's
//! strawman form. The prompt carries the question verbatim and the graph of the golden chain's
//! state S(k−1); the golden answer written as a strawman reply is correct and safe on every
//! built question; lenient forms are read, broken ones refused with a message; what the
//! `nemo` mode refuses, and graphs over 50 nodes, are refused.

use netpress::app::Score;
use netpress::traffic::nemo;
use netpress::traffic::nemo_check::Loose;
use netpress::traffic::straw::{self, reply_of};
use netpress::traffic::task::{Generated, generate};
use serde_json::{Value, json};

use crate::golden::refused;

/// The built questions: all 24, the eight of each level.
const BUILT: [(u8, u64); 3] = [(1, 8), (2, 8), (3, 8)];
/// The ids of the golden file, recorded before question 16 and level 3 were built (their
/// content is pinned by the `nemo` goldens; a straw id's only difference is its prompt).
const GOLDEN: [(u8, u64); 2] = [(1, 8), (2, 7)];

fn id(level: u8, seed: u64, index: u64, knobs: &str) -> String {
    format!("traffic-v1-L{level}-s{seed}-i{index}{knobs}-mstraw")
}

fn task_of(id: &str) -> Generated {
    generate(&id.parse().unwrap()).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// Scores one reply through the task's episode, as a run would; also the step's observation.
fn score(id: &str, reply: &str) -> (String, Score) {
    let task = netpress::registry::generate(id).unwrap();
    let mut ep = task.start(None);
    let step = ep.step(reply);
    (step.observation, ep.score())
}

/// The golden answer as a value: the truth, or the expected graph (for questions 10 and 14 one
/// valid colouring of many); question 15's new graph as type `graph`, NeMoEval's form.
fn golden(g: &Generated) -> Value {
    match &g.truth {
        Some(t) if g.loose == Some(Loose::NewGraph) => json!({"type": "graph", "data": t.data}),
        Some(t) => json!({"type": t.ty, "data": t.data}),
        None => json!({"type": "graph", "data": g.expected_graph()}),
    }
}

/// The graph JSON a strawman prompt pasted in, read back.
fn pasted_graph(prompt: &str) -> Value {
    let start = prompt.find("Here is the original graph data: ").unwrap() + 33;
    let end = prompt.rfind(". Please answer the following question: ").unwrap();
    serde_json::from_str(&prompt[start..end]).unwrap()
}

#[test]
fn the_prompt_pastes_s_k_minus_1_and_asks_the_question_verbatim() {
    let texts = nemo::texts();
    for (level, n) in BUILT {
        for seed in 0..3 {
            for index in 0..n {
                let id = id(level, seed, index, "");
                let g = task_of(&id);
                let twin = task_of(&id.replace("-mstraw", "-mnemo"));
                let k = g.nemo.unwrap();
                assert_eq!(k, usize::from(level - 1) * 8 + index as usize + 1);
                assert_eq!(g.question, texts[k - 1], "{id}");
                // The same task as the nemo id's: the graph (S(k−1)), the truth, the expectation.
                assert_eq!(g.graph.to_json(), twin.graph.to_json(), "{id}");
                assert_eq!(g.expected_graph(), twin.expected_graph(), "{id}");
                assert_eq!(g.id.to_string(), id);
                let task = netpress::registry::generate(&id).unwrap();
                let prompt = &task.card().prompt;
                assert!(prompt.starts_with("\nGenerate the answer of graph processing queries. \n"), "{id}");
                assert!(
                    prompt.ends_with(&format!(". Please answer the following question: {}\n", g.question))
                );
                assert_eq!(pasted_graph(prompt), g.graph.to_json(), "{id}");
                // Every variant is the strawman's one prompt.
                for v in netpress::app::PromptVariant::ALL {
                    assert_eq!(&task.prompt(v), prompt, "{id}");
                }
            }
        }
    }
    // Question 4's pasted graph already carries question 3's labels.
    let g = pasted_graph(&netpress::registry::generate(&id(1, 0, 3, "")).unwrap().card().prompt);
    assert!(g["nodes"].as_array().unwrap().iter().any(|n| n["labels"].to_string().contains("app:prod")));
}

#[test]
fn the_golden_answer_as_a_strawman_reply_is_correct_and_safe() {
    for (level, n) in BUILT {
        for seed in 0..4 {
            for index in 0..n {
                let id = id(level, seed, index, "");
                let (said, s) = score(&id, &reply_of(&golden(&task_of(&id))));
                assert!(s.correct && s.safe, "{id}: {said} {}", s.explanation);
            }
        }
    }
    // And at the largest graph the mode takes, sparser.
    for index in 0..8 {
        let id = id(1, 5, index, "-n50-e20");
        let s = score(&id, &reply_of(&golden(&task_of(&id)))).1;
        assert!(s.correct && s.safe, "{id}: {}", s.explanation);
    }
}

#[test]
fn wrong_answers_fail_as_in_the_nemo_mode() {
    let count = id(1, 1, 0, "");
    let n = task_of(&count).graph.number_of_nodes();
    // Question 1's golden answers the count as a str; a wrong count fails.
    assert!(score(&count, &format!("Answer:\n'''\n\"type\": \"text\", \"data\": \"{n}\"\n'''")).1.correct);
    let (said, s) = score(&count, &format!("Answer:\n'''\n\"type\": \"text\", \"data\": {}\n'''", n + 1));
    assert_eq!(said, "Returned an answer of type text.");
    assert!(!s.correct && s.safe);
    // A graph answer that drops an edge's weight changes the graph outside the question's scope.
    let colour = id(1, 1, 6, "");
    let mut answer = golden(&task_of(&colour));
    answer["data"]["links"][0].as_object_mut().unwrap().remove("byte_weight");
    let s = score(&colour, &reply_of(&answer)).1;
    assert!(!s.correct && !s.safe, "{}", s.explanation);
    // Question 15 leaves G as it is: the new graph with a link missing fails.
    let new = id(2, 1, 6, "");
    let mut answer = golden(&task_of(&new));
    answer["data"]["links"].as_array_mut().unwrap().retain(|l| l["source"] == l["target"]);
    assert!(!score(&new, &reply_of(&answer)).1.correct);
}

#[test]
fn lenient_replies_are_read_and_broken_ones_refused_with_a_message() {
    let id = id(1, 2, 1, "");
    let g = task_of(&id);
    let (nodes, edges) = (g.graph.number_of_nodes(), g.graph.number_of_edges());
    for reply in [
        format!("```\nAnswer:\n'''\n\"type\": \"list\", \"data\": [{nodes}, {edges}]\n'''\n```"),
        format!("Answer:\n'''\n```json\n{{'type': 'list', 'data': [{nodes}, {edges},]}}\n```\n'''"),
        format!("Answer:\n'''\n'type': 'list', 'data': [{nodes}, {edges}]\n'''\nThere are {nodes} nodes."),
    ] {
        let (said, s) = score(&id, &reply);
        assert!(s.correct && s.safe, "{reply}: {said} {}", s.explanation);
    }
    for (reply, says) in [
        (format!("There are {nodes} nodes and {edges} edges."), "Error: the reply has no Answer:"),
        (format!("Answer:\n'''\n\"type\": \"list\", \"data\": [{nodes}, {edges}]"), "is never closed"),
        ("Answer:\n'''\n\"type\": list, \"data\": [1]\n'''".into(), "list (line 1) is not quoted"),
        ("Answer:\n'''\n\"type\": \"list\" \"data\": [1]\n'''".into(), "not JSON once wrapped in {}"),
        ("Answer:\n'''\n\"type\": \"chart\", \"data\": [1]\n'''".into(), "type must be 'text', 'list'"),
        ("Answer:\n'''\n\"data\": [1]\n'''".into(), "the dict has no 'type'"),
    ] {
        let (said, s) = score(&id, &reply);
        assert!(said.contains(says), "{reply}: {said}");
        assert!(!s.correct && s.safe && s.explanation.contains(says.trim_start_matches("Error: ")));
    }
    // A graph answer whose data is not node-link data.
    let (said, _) = score(&self::id(1, 2, 4, ""), "Answer:\n'''\n\"type\": \"graph\", \"data\": [1]\n'''");
    assert!(said.contains("node-link data"), "{said}");
}

#[test]
fn the_baseline_answers_unsupported_in_the_strawmans_form() {
    use netpress::conversation::{Agent, Message};
    let id = id(1, 0, 0, "");
    let task = netpress::registry::generate(&id).unwrap();
    let app = netpress::registry::app("traffic").unwrap();
    let prompt = task.card().prompt.clone();
    let mut agent: Box<dyn Agent> = app.baseline();
    let reply = agent.reply(&[Message::user(prompt.clone())]);
    let text = reply.unwrap().text;
    assert!(straw::is_prompt(&prompt));
    assert_eq!(straw::parse_reply(&text), Ok(json!({"type": "text", "data": "unsupported"})));
    let (said, s) = score(&id, &text);
    assert_eq!(said, "Returned an answer of type text.");
    assert!(!s.correct && s.safe);
}

#[test]
fn what_nemo_refuses_and_large_graphs_are_refused() {
    refused(&[
        ("traffic-v1-L1-s0-i0-n51-mstraw", "at most 50 nodes"),
        ("traffic-v1-L1-s0-i0-n2000-mstraw", "knob n=2000"),
        ("traffic-v1-L4-s0-i0-mstraw", "not in this version"),
        ("traffic-v1-L4-s0-i0-mstraw", "m=straw asks m=nemo's questions"),
        ("traffic-v1-L1-s0-i0-gflows-mstraw", "knob g=flows"),
        ("traffic-v1-L1-s0-i0-p2-mstraw", "knob p"),
        ("traffic-v1-L1-s0-i0-n9-mstraw", "knob n"),
    ]);
    assert!(netpress::registry::generate("traffic-v1-L1-s0-i0-n50-mstraw").is_ok());
    assert!(netpress::registry::generate("traffic-v1-L1-s0-i0-n10-e1000-mstraw").is_ok());
}

/// Content hashes of a few straw ids, in a file of their own so the other goldens did not move.
#[test]
fn straw_golden_hashes_match() {
    let mut ids = Vec::new();
    for (seed, knobs) in [(0, ""), (1, "-n20-e100")] {
        for (level, n) in GOLDEN {
            ids.extend((0..n).map(|index| id(level, seed, index, knobs)));
        }
    }
    assert_eq!(ids.len(), 30);
    crate::bless::content_hashes("tests/data/traffic/golden_straw.tsv", &ids);
}
