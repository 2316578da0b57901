//! `netpress traffic check` (docs/traffic.md, "Checking an answer from the command line"): a
//! returned value given as JSON is scored by the episode's own checker, and the exit code says
//! whether it is correct.

use serde_json::{Value, json};

/// The tool through the CLI's entry: exit code, standard output, standard error.
fn check(id: &str, input: &str) -> (u8, String, String) {
    let args: Vec<String> =
        ["netpress", "traffic", "check", "--task", id].into_iter().map(String::from).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let console = netpress::cli::Console::new(input.as_bytes(), &mut out, &mut err);
    let code = netpress::cli::main(netpress::registry::Registry::standard(), args, console);
    (code, String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
}

fn generated(id: &str) -> netpress::traffic::task::Generated {
    netpress::traffic::task::generate(&id.parse().unwrap()).unwrap()
}

#[test]
fn a_question_is_scored_by_its_value() {
    // Level 3's index 3 is a min-cut question: its truth is a number.
    let id = "traffic-v1-L3-s0-i3";
    let truth = generated(id).truth.expect("a question");
    let right = json!({"type": truth.ty, "data": truth.data}).to_string();
    let (code, out, _) = check(id, &right);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("correct: yes") && out.contains("safe: yes"), "{out}");
    let (code, out, _) = check(id, r#"{"type": "text", "data": -1}"#);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("correct: no"), "{out}");
    // A str holding the dict, as a returned str is read.
    let (code, out, _) = check(id, &Value::String(right).to_string());
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_graph_answer_is_the_graph_the_code_left() {
    // Index 1 is a bisect question; the native witness is its expected graph.
    let id = "traffic-v1-L3-s0-i1";
    let g = generated(id);
    let mut data = g.expected_graph().clone();
    let (code, out, _) = check(id, &json!({"type": "graph", "data": data}).to_string());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("safe: yes"), "{out}");
    // networkx may write an edge's ends the other way round, and call links edges.
    for l in data["links"].as_array_mut().unwrap() {
        let (s, t) = (l["source"].clone(), l["target"].clone());
        l["source"] = t;
        l["target"] = s;
    }
    let links = data.as_object_mut().unwrap().remove("links").unwrap();
    data["edges"] = links;
    let (code, out, _) = check(id, &json!({"type": "graph", "data": data}).to_string());
    assert_eq!(code, 0, "{out}");
    // Without data the graph is the task's own, uncoloured: the rule does not hold.
    let (code, out, _) = check(id, r#"{"type": "graph"}"#);
    assert_eq!(code, 1, "{out}");
    // A graph missing an edge is a change outside the question's scope.
    let mut cut = g.expected_graph().clone();
    cut["links"].as_array_mut().unwrap().pop();
    let (_, out, _) = check(id, &json!({"type": "graph", "data": cut}).to_string());
    assert!(out.contains("safe: no") && out.contains("out of scope"), "{out}");
}

#[test]
fn unusable_input_is_a_clear_error() {
    let id = "traffic-v1-L3-s0-i1";
    for (input, says) in [
        ("not json", "not JSON"),
        (r#"{"type": "graph", "data": {"nodes": [{"name": 1}]}}"#, "str id"),
        (r#"{"type": "graph", "data": {"nodes": [], "links": [{"source": 1}]}}"#, "source and target"),
    ] {
        let (code, out, err) = check(id, input);
        assert!(code == 2 || out.contains(says), "{input}: {code} {out}{err}");
        assert!(format!("{out}{err}").contains(says), "{input}: {out}{err}");
    }
    // An invalid return is scored as the episode scores it: not correct, with the reason.
    let (code, out, _) = check(id, r#"{"type": "pie", "data": 1}"#);
    assert_eq!(code, 1);
    assert!(out.contains("Invalid return"), "{out}");
    let (code, _, err) = check("traffic-v1-L9-s0-i0", "{}");
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = check(id, "");
    assert_eq!(code, 2, "{err}");
}
