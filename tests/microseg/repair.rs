//! The repair family: the known-good fix solves every sampled task, each fault type shows in
//! the report as designed, commands fail with their one-line errors, and the episode runs the
//! scripted baseline to an end.

use std::sync::Arc;

use netpress::App;
use netpress::microseg::fault::{Fault, inject};
use netpress::microseg::mend::report;
use netpress::microseg::policy::{Peer, Reserved};
use netpress::microseg::repair::parse_command;
use netpress::microseg::repairing::solve;
use netpress::microseg::score::star_policy;
use netpress::microseg::world::{Shape, World, build, setup};
use netpress::microseg::{MICROSEG, generate};

fn world(id: &str) -> World {
    build(&setup(&id.parse().unwrap()).unwrap(), Shape::Split).unwrap()
}

/// The oracle's fix, and the scripted baseline, which must also stay safe on these: a widened
/// port (L2 s0), a moved VM (L2 s2), a moved VM with a swapped and a dropped rule (L3 s0), a
/// moved VM that left its own group's ssh rule looking unobserved, with a dropped rule (L3 s14:
/// scripted used to move it into the wrong group and delete the rule).
#[test]
fn the_known_good_fix_solves_and_scripted_repairs_safely() {
    for (level, seed) in [(2, 0), (2, 2), (2, 7), (3, 0), (3, 7), (3, 14)] {
        let id = format!("microseg-v1-L{level}-s{seed}-i4");
        let g = Arc::new(generate(&id.parse().unwrap()).unwrap());
        assert!(!g.faults.is_empty() && g.given.contains("Report:\n"), "{id}");
        let v = solve(g.clone(), "oracle").unwrap();
        assert!(v.correct && v.safe && v.progress == 1.0, "{id}: {:?} {} {:?}", g.faults, v.why, v.lines);
        let v = solve(g.clone(), "scripted").unwrap();
        assert!(v.correct && v.safe, "{id} scripted: {:?} {} {:?}", g.faults, v.why, v.lines);
    }
}

#[test]
fn each_fault_shows_as_designed() {
    let w = world("microseg-v1-L2-s0-i4");
    let star = star_policy(&w);
    assert_eq!(report(&inject(&star, &[]), &w), ["No findings."]);
    let (from, members) = star.groups.iter().find(|(g, m)| g.starts_with("shop.") && m.len() > 1).unwrap();
    let to = star.groups.keys().find(|g| g.starts_with("shop.") && *g != from).unwrap();
    let web = star.rules.iter().position(|r| r.src == Peer::Reserved(Reserved::Internet)).unwrap();
    for (fault, want) in [
        (Fault::DropRule(web), &["Denied observed"][..]),
        (Fault::WrongPort(web, 22), &["Denied observed", "Unobserved allow: rule"]),
        (Fault::AnyPort(web), &["Unobserved allow: rule"]),
        (Fault::Swap(web), &["Denied observed", "Unobserved allow: rule"]),
        (Fault::MemberMoved { ip: members[0], from: from.clone(), to: to.clone() }, &["Denied observed"]),
        (Fault::BroadCidr(0), &["Unobserved allow: rule 1 (10.0.0.0/8 → "]),
        (Fault::AnyAny, &["Unobserved allow: rule"]),
        (Fault::DefaultAllow, &["Default allow: every unmatched key is admitted"]),
    ] {
        let lines = report(&inject(&star, std::slice::from_ref(&fault)), &w);
        for prefix in want {
            assert!(lines.iter().any(|l| l.starts_with(prefix)), "{fault:?}: {lines:?}");
        }
    }
}

#[test]
fn commands_fail_with_their_one_line_errors() {
    let w = world("microseg-v1-L2-s0-i4");
    let mut s = inject(&star_policy(&w), &[]);
    let n = s.policy.rules.len();
    for (line, want) in [
        ("rule del 999".to_string(), format!("error: no rule 999 (rules: 1..{n})")),
        ("member add dbs 10.1.0.1".into(), "error: unknown group 'dbs'".into()),
        ("group new shop.db".into(), "error: group 'shop.db' exists".into()),
        ("rule add shop.web dbs tcp 80".into(), "error: unknown group 'dbs'".into()),
        ("show group nope".into(), "error: unknown group 'nope'".into()),
    ] {
        let e = s.apply(&parse_command(&line).unwrap(), &w).unwrap_err();
        assert_eq!(e.to_string(), want, "{line}");
    }
    assert!(s.apply(&parse_command("show rules").unwrap(), &w).unwrap().starts_with("rule 1: "));
    assert!(s.apply(&parse_command("flows top=3").unwrap(), &w).unwrap().lines().count() == 3);
}

#[test]
fn the_episode_ends_on_no_findings_and_the_prompt_lists_the_commands() {
    let q = "microseg-v1-L2-s1-i4".parse().unwrap();
    let task = MICROSEG.generate(&q).unwrap();
    assert!(
        task.card().prompt.contains("rule add SRC DST PROTO PORTS") && task.card().prompt.contains("Report:")
    );
    let mut oracle = MICROSEG.oracle(&q).unwrap();
    let mut e = task.start(None);
    let reply = oracle.reply(&[netpress::conversation::Message::user(&task.card().prompt)]).unwrap().text;
    let out = e.step(&reply);
    assert!(out.observation.ends_with("Report:\nNo findings."), "{}", out.observation);
    assert!(e.finished().is_some());
    let s = e.score();
    assert!(s.correct && s.safe, "{}", s.explanation);
}

/// Level-3 repair tasks whose first fault types can never all show (a default allow hides a
/// dropped rule) draw their types again rather than failing to generate, and the known-good
/// fix solves one.
#[test]
fn a_masked_pair_of_fault_types_is_drawn_again() {
    for id in ["microseg-v1-L3-s169-i4", "microseg-v1-L3-s185-i4", "microseg-v1-L3-s290-i4"] {
        let g = generate(&id.parse().unwrap()).unwrap_or_else(|e| panic!("{id}: {e}"));
        let codes: Vec<&str> = g.faults.iter().map(Fault::code).collect();
        assert!(!(codes.contains(&"DR") && codes.contains(&"DF")), "{id}: {codes:?}");
        if id.ends_with("s169-i4") {
            // One solve: an oracle episode of a level-3 world is slow in a debug build.
            let v = solve(Arc::new(g), "oracle").unwrap();
            assert!(v.correct && v.safe, "{id}: {codes:?} {}", v.why);
        }
    }
}
