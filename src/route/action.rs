//! Reading an action out of an agent's reply (docs/route.md, "Tasks"): the first JSON object with
//! `machine` and `command` anywhere in the reply (fenced or not), else `machine: X` and
//! `command: Y` lines, else a `X: command` line naming a machine.

use serde_json::Value;

use crate::reply::{bounded, json_objects};

/// One command line on one machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    pub machine: String,
    pub command: String,
    /// The reply held more than one action; only this one runs.
    pub extra: bool,
}

/// What a reply asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    Action(Action),
    /// A message for the agent (the reply still used its turn).
    Error(String),
}

pub const PARSE_ERROR: &str = "Error: could not parse an action; reply with JSON {\"machine\": \"<name>\", \"command\": \"<one command line>\"}.";
pub const NOT_A_STRING: &str = "Error: command must be one string.";
pub const EXTRA_NOTE: &str = "Note: only the first action was executed.";

/// Parses a reply; `machines` are the names the episode knows, `summary` their short form.
pub fn parse(reply: &str, machines: &[String], summary: &str) -> Parsed {
    let (reply, _) = bounded(reply);
    let parsed =
        from_json(reply).or_else(|| from_key_lines(reply)).or_else(|| from_machine_lines(reply, machines));
    match parsed {
        None => Parsed::Error(PARSE_ERROR.into()),
        Some(Err(e)) => Parsed::Error(e),
        Some(Ok(a)) if !machines.contains(&a.machine) => {
            Parsed::Error(format!("Error: unknown machine \"{}\"; machines: {summary}.", a.machine))
        }
        Some(Ok(a)) => Parsed::Action(a),
    }
}

fn from_json(reply: &str) -> Option<Result<Action, String>> {
    let objects = json_objects(reply);
    let actions: Vec<_> =
        objects.iter().filter(|o| o.contains_key("machine") && o.contains_key("command")).collect();
    let first = actions.first()?;
    let machine = match &first["machine"] {
        Value::String(m) => m.trim().to_string(),
        other => other.to_string(),
    };
    let Value::String(command) = &first["command"] else { return Some(Err(NOT_A_STRING.into())) };
    Some(Ok(Action { machine, command: command.clone(), extra: actions.len() > 1 }))
}

/// A line's content without list markers, quotes or backticks around it.
fn clean(line: &str) -> &str {
    line.trim().trim_start_matches(['-', '*', '>']).trim().trim_matches('`').trim()
}

fn key_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let (k, v) = clean(line).split_once(':')?;
    let k = k.trim().trim_matches(['*', '"', '\'']).trim();
    k.eq_ignore_ascii_case(key).then(|| v.trim().trim_matches('`').trim())
}

fn from_key_lines(reply: &str) -> Option<Result<Action, String>> {
    let machines: Vec<&str> = reply.lines().filter_map(|l| key_value(l, "machine")).collect();
    let commands: Vec<&str> = reply.lines().filter_map(|l| key_value(l, "command")).collect();
    let (machine, command) = (machines.first()?, commands.first()?);
    let machine = machine.trim_matches(['"', '\'']).to_string();
    let command = command.trim_matches('"').to_string();
    Some(Ok(Action { machine, command, extra: machines.len() > 1 || commands.len() > 1 }))
}

fn from_machine_lines(reply: &str, machines: &[String]) -> Option<Result<Action, String>> {
    let hits: Vec<(String, String)> = reply
        .lines()
        .filter_map(|l| {
            let (m, c) = clean(l).split_once(':')?;
            let m = m.trim();
            machines.iter().any(|x| x == m).then(|| (m.to_string(), c.trim().to_string()))
        })
        .filter(|(_, c)| !c.is_empty())
        .collect();
    let (machine, command) = hits.first()?.clone();
    Some(Ok(Action { machine, command, extra: hits.len() > 1 }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["h1", "h2", "r0"].iter().map(|s| s.to_string()).collect()
    }

    fn p(reply: &str) -> Parsed {
        parse(reply, &names(), "h1..h2, r0")
    }

    fn action(machine: &str, command: &str, extra: bool) -> Parsed {
        Parsed::Action(Action { machine: machine.into(), command: command.into(), extra })
    }

    #[test]
    fn json_anywhere() {
        assert_eq!(p(r#"{"machine": "r0", "command": "ip route"}"#), action("r0", "ip route", false));
        assert_eq!(
            p("I will look.\n```json\n{\"machine\": \"h1\", \"command\": \"ping -c1 192.168.2.100\"}\n```"),
            action("h1", "ping -c1 192.168.2.100", false)
        );
        assert_eq!(
            p(r#"{"machine": "r0", "command": "ip a"} then {"machine": "h1", "command": "ip r"}"#),
            action("r0", "ip a", true)
        );
        assert_eq!(p(r#"{"machine": "r0", "command": ["ip", "a"]}"#), Parsed::Error(NOT_A_STRING.into()));
    }

    #[test]
    fn line_forms() {
        assert_eq!(p("machine: r0\ncommand: ip route show"), action("r0", "ip route show", false));
        assert_eq!(p("**Machine**: `h2`\n**Command**: `ip addr`"), action("h2", "ip addr", false));
        assert_eq!(p("r0: ip link set r0-eth1 up"), action("r0", "ip link set r0-eth1 up", false));
        assert_eq!(p("- r0: ip a\n- h1: ip r"), action("r0", "ip a", true));
    }

    #[test]
    fn errors() {
        assert_eq!(p("I think the router is broken."), Parsed::Error(PARSE_ERROR.into()));
        assert_eq!(
            p(r#"{"machine": "s1", "command": "ip a"}"#),
            Parsed::Error("Error: unknown machine \"s1\"; machines: h1..h2, r0.".into())
        );
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_reply_parses_or_explains(reply in "\\PC{0,400}") {
            let names: Vec<String> = ["h1", "r0"].iter().map(|s| s.to_string()).collect();
            match parse(&reply, &names, "h1, r0") {
                Parsed::Action(a) => prop_assert!(names.contains(&a.machine)),
                Parsed::Error(e) => prop_assert!(e.starts_with("Error: ")),
            }
        }

        #[test]
        fn json_actions_round_trip(machine in prop::sample::select(vec!["h1", "r0"]), command in "[ -~]{1,80}") {
            let reply = serde_json::json!({ "machine": machine, "command": command }).to_string();
            let names: Vec<String> = ["h1", "r0"].iter().map(|s| s.to_string()).collect();
            prop_assert_eq!(parse(&reply, &names, ""), Parsed::Action(Action { machine: machine.into(), command, extra: false }));
        }
    }
}
