//! The same task and replies give the same result record through the protocol as through
//! `netpress run --agent replay:FILE` (the agent named aside: `env` against `replay`).

use netpress::record::{ResultRecord, parse_results};
use serde_json::json;

use crate::support::*;

/// Records of `netpress run` for `app`, level `level`, seeds 0..3, with `agent`.
fn run(app: &str, level: &str, agent: &str, out: &std::path::Path) -> Vec<ResultRecord> {
    let o = netpress(&[
        "run",
        "--app",
        app,
        "--levels",
        level,
        "--seeds",
        "0..3",
        "--agent",
        agent,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (records, errors) = parse_results(&std::fs::read_to_string(out).unwrap());
    assert!(errors.is_empty(), "{errors:?}");
    records
}

/// The stdio lines that replay `record`'s replies in session `session`.
fn lines_of(record: &ResultRecord, session: &str) -> String {
    let mut lines = vec![json!({"type": "reset", "session": session,
        "data": {"task_id": record.id, "record": true, "max_turns": record.max_turns}})];
    for t in &record.turns {
        lines.push(json!({"type": "step", "session": session, "data": {"reply": t.reply}}));
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn stdio_records_equal_run_records() {
    let dir = scratch("parity");
    for (app, level) in [("route", "2"), ("k8s", "1"), ("k8s", "3")] {
        let base = dir.join(format!("{app}-{level}-baseline.jsonl"));
        run(app, level, "baseline", &base);
        let replayed = run(
            app,
            level,
            &format!("replay:{}", base.display()),
            &dir.join(format!("{app}-{level}-replay.jsonl")),
        );
        let input: String = replayed.iter().enumerate().map(|(i, r)| lines_of(r, &format!("s{i}"))).collect();
        let (answers, out) = stdio(&[], input.as_bytes());
        assert!(out.status.success());
        for (i, want) in replayed.iter().enumerate() {
            let last = answers.iter().rfind(|a| a["session"] == format!("s{i}")).unwrap();
            assert_eq!(last["data"]["done"], true, "{}", want.id);
            let mut got: ResultRecord =
                serde_json::from_value(last["data"]["observation"]["record"].clone()).unwrap();
            assert_eq!((got.agent.kind.as_str(), got.agent.name.as_str()), ("env", "netpress.env.v1"));
            got.agent = want.agent.clone();
            assert_eq!(&got, want, "{}", want.id);
            let reward = if want.score.correct { 1.0 } else { 0.0 };
            assert_eq!(last["data"]["reward"], reward, "{}", want.id);
        }
    }
}
