//! `netpress env --stdio` as a process: responses in order with ids echoed, a bad line gets an
//! error and the loop goes on, stdout carries protocol lines only, end of input exits 0.

use serde_json::json;

use crate::support::*;

#[test]
fn a_transcript_with_bad_lines_in_it() {
    let input = [
        r#"{"type":"info","id":1}"#,
        "this is not json",
        r#"{"type":"reset","id":2,"data":{"seed":3,"index":1}}"#,
        r#"{"type":"step","id":3,"data":{"reply":"kubectl get pods -A"}}"#,
        r#"{"type":"reset","session":"x","id":4,"data":{"task_id":"k8s-v1-L1-s0-i0","app":"k8s"}}"#,
        r#"{"type":"state","id":5}"#,
        r#"{"type":"ping","id":6}"#,
        "",
        r#"{"type":"close","id":7}"#,
    ]
    .join("\n");
    let (answers, out) = stdio(&["--app", "k8s", "--level", "2"], input.as_bytes());
    assert!(out.status.success());
    let kinds: Vec<&str> = answers.iter().map(|a| a["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["info", "error", "observation", "observation", "error", "state", "pong", "closed"]);
    let ids: Vec<&serde_json::Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(ids[0], &json!(1));
    assert_eq!(ids[2..], [&json!(2), &json!(3), &json!(4), &json!(5), &json!(6), &json!(7)]);
    assert_eq!(answers[0]["data"]["protocol"], "netpress.env.v1");
    assert_eq!(answers[1]["data"]["code"], "INVALID_JSON");
    assert_eq!(answers[2]["data"]["observation"]["task_id"], "k8s-v1-L2-s3-i1");
    assert_eq!(answers[2]["data"]["observation"]["episode_id"].as_str().unwrap().len(), 32);
    assert_eq!(answers[4]["data"]["reason"], "TASK_AND_APP");
    assert_eq!(answers[5]["data"]["step_count"], 1);
    // The hidden expected outcome is in no message.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("\"expected\""));
}

#[test]
fn an_overlong_line_is_refused_and_the_next_served() {
    let mut input = format!(r#"{{"type":"ping","pad":"{}"}}"#, "x".repeat(3000)).into_bytes();
    input.extend_from_slice(b"\n{\"type\":\"ping\"}\n");
    let (answers, out) = stdio(&["--max-body", "1000"], &input);
    assert!(out.status.success());
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["data"]["reason"], "BODY_TOO_LARGE");
    assert_eq!(answers[1]["type"], "pong");
}
