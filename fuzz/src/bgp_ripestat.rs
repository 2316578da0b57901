//! RIPEstat's query parser on its own: any text as a data API URL (`Url::parse`: host, call
//! name, percent-decoded parameters), as the tail of a `stat.ripe.net/data/` URL, as `ripestat
//! CALL k=v…` words, and every parameter value as a resource, each answered over a generated
//! task, and once through the shell's `curl`. No panic, no hang; every answer is JSON in the
//! envelope, its `status` and `status_code` agreeing with success.

use netpress::bgp::task::Task;
use netpress::bgp::tools::{self, ripestat};
use serde_json::Value;

pub fn fuzz(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    thread_local! {
        static TASK: Task = Task::generate(&"bgp-v1-L1-s1-i0".parse().expect("valid id")).expect("generates");
    }
    let url = ripestat::Url::parse(text);
    let tail = ripestat::Url::parse(&format!("https://stat.ripe.net/data/{text}"));
    assert_eq!(tail.host, "stat.ripe.net", "the path cannot move the host");
    for (_, v) in url.params.iter().chain(&tail.params) {
        let _ = ripestat::Resource::parse(v);
    }
    let mut words = text.split_whitespace();
    let call = words.next().unwrap_or("");
    let args: Vec<(String, String)> = words
        .map(|w| w.split_once('=').map_or((w.to_string(), String::new()), |(k, v)| (k.into(), v.into())))
        .collect();
    TASK.with(|task| {
        check(ripestat::respond(task, 0, &url.call, &url.params, text));
        check(ripestat::respond(task, 0, &tail.call, &tail.params, text));
        check(ripestat::respond(task, 0, call, &args, text));
        let quoted = text.replace('\'', "'\\''");
        let _ = tools::run(task, 0, &format!("curl -s 'https://stat.ripe.net/data/{quoted}'"));
    });
}

fn check((body, ok): (String, bool)) {
    let v: Value = serde_json::from_str(&body).expect("the answer is JSON");
    assert_eq!(v["status"], if ok { "ok" } else { "error" }, "{body}");
    assert_eq!(v["status_code"], if ok { 200 } else { 400 }, "{body}");
    assert!(ok || v["messages"][0][0] == "error", "{body}");
}
