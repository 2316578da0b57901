//! The verdict reader on its own: any reply text through `verdict::find` (the JSON objects a
//! reply holds, `submit`, `final_answer`), every object it finds and the text itself as a JSON
//! value through `verdict::parse`, every string through `verdict::incident_type`, and a parsed
//! verdict through scoring against a generated task. None may panic or take long; a
//! rejection's message must name a field.

use netpress::bgp::{score, task::Task, verdict};
use serde_json::{Map, Value};

pub fn fuzz(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = verdict::incident_type(text);
    let mut objects: Vec<Map<String, Value>> = verdict::find(text).into_iter().collect();
    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(text) {
        objects.push(o);
    }
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        let mut o = Map::new();
        o.insert("incident_type".into(), Value::from("route_leak_type1"));
        for key in [
            "offender_asn",
            "link",
            "victim_prefix",
            "victim_asn",
            "start_ts",
            "end_ts",
            "affected",
            "mitigation",
        ] {
            let mut with = o.clone();
            with.insert(key.into(), v.clone());
            objects.push(with);
        }
    }
    thread_local! {
        static TASK: Task = Task::generate(&"bgp-v1-L2-s3-i0".parse().expect("valid id")).expect("generates");
    }
    for o in &objects {
        match verdict::parse(o) {
            Ok(v) => TASK.with(|task| {
                let _ = score::score(task, Some(&v), 1);
            }),
            Err(e) => {
                assert!(e.contains(": "), "a rejection names its field: {e}");
                let _ = verdict::rejection(&e);
            }
        }
    }
}
