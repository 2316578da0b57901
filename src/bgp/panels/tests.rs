//! The panels through an episode: only the evidence until the end, then the vantage points,
//! the verdict against the truth and the timeline, marking the incident's routes.

use super::*;
use crate::app::Task as _;
use crate::bgp::app::Generated;
use crate::bgp::score;

fn generated(id: &str) -> Generated {
    Generated::new(Task::generate(&id.parse().unwrap()).unwrap())
}

fn grid(p: &Panel) -> &Grid {
    match p {
        Panel::Grid { grid, .. } => grid,
        other => panic!("not a grid: {}", other.title()),
    }
}

#[test]
fn the_truth_shows_only_once_the_episode_is_over() {
    let g = generated("bgp-v1-L1-s0-i0-fEH");
    let mut ep = g.start(None);
    ep.step("```bash\nls\n```");
    ep.step("```bash\nbgpdump -m nosuch\n```");
    let before = ep.panels();
    assert_eq!(before.iter().map(Panel::title).collect::<Vec<_>>(), ["Evidence"]);
    let Panel::Table { table, summary, .. } = &before[0] else { panic!() };
    assert_eq!(table.rows[0][..3], ["1".to_string(), "ls".into(), "0".into()]);
    assert_eq!((table.tones[0], table.tones[1]), (Tone::Neutral, Tone::Bad));
    assert!(summary.starts_with("2 tool calls"), "{summary}");
    let truth = score::truth(g.task());
    ep.step(&format!("submit {truth}"));
    let after = ep.panels();
    let titles: Vec<&str> = after.iter().map(Panel::title).collect();
    assert_eq!(titles, ["Evidence", "Vantage points", "Verdict vs truth", "Timeline"]);
    let Panel::Table { table, .. } = &after[2] else { panic!() };
    assert!(table.tones.iter().all(|&t| t == Tone::Good), "{:?}", table.rows);
}

#[test]
fn vantage_points_see_the_hijack_during_and_not_before() {
    let g = generated("bgp-v1-L1-s0-i0-fEH");
    let t = g.task();
    let vps = grid(&vantage_points(t)).clone();
    assert_eq!(vps.cols, ["before", "during", "after"]);
    assert!(vps.cells.iter().all(|r| r[0].tone != Tone::Bad), "nothing bad before the start");
    let hit: BTreeSet<u32> = vps
        .rows
        .iter()
        .zip(&vps.cells)
        .filter(|(_, r)| r[1].tone == Tone::Bad)
        .map(|(n, _)| n.trim_start_matches("AS").parse().unwrap())
        .collect();
    let affected: BTreeSet<u32> = t.affected.iter().copied().collect();
    assert!(!hit.is_empty() && hit.is_subset(&affected), "{hit:?} within {affected:?}");
    let Panel::Lines { lines, .. } = timeline(t) else { panic!() };
    assert!(lines.iter().any(|(tone, l)| *tone == Tone::Bad && l.contains(" A ")));
}

#[test]
fn a_wrong_verdict_reads_bad_and_an_outage_shows_routes_gone() {
    let g = generated("bgp-v1-L1-s1-i0-fOW");
    let mut ep = g.start(None);
    ep.step("submit {\"incident_type\": \"none\"}");
    let panels = ep.panels();
    let Panel::Table { table, .. } = &panels[2] else { panic!() };
    assert_eq!(table.tones[0], Tone::Bad);
    let vps = grid(&panels[1]);
    assert!(vps.cells.iter().any(|r| r[0].tone == Tone::Good && r[1].tone == Tone::None));
    assert!(vps.cells.iter().flatten().all(|c| c.tone != Tone::Bad), "an outage has no bad route");
}

/// At L4 the distractor appears once the episode is over, labelled as not scored, and is
/// marked when the verdict named its culprit; nothing about it shows while the episode runs.
#[test]
fn the_distractor_shows_only_after_the_end_labelled_as_such() {
    let g = generated("bgp-v2-L4-s0-i0-n600");
    let t = g.task();
    let d = t.distractor.as_ref().expect("an L4 task has a distractor");
    let Culprit::Offender(x) = d.culprit else { panic!("a distractor has an offender") };
    let offender = t.world.topology.ases[x].asn;
    let mut ep = g.start(None);
    ep.step("```bash\nls\n```");
    let running = format!("{:?}", ep.panels());
    assert!(!running.contains("istractor") && !running.contains(&d.prefix.to_string()), "{running}");
    ep.step(&format!(
        "submit {{\"incident_type\": \"{}\", \"offender_asn\": {offender}}}",
        d.family.incident_type()
    ));
    let after = ep.panels();
    let titles: Vec<&str> = after.iter().map(Panel::title).collect();
    assert_eq!(titles.last(), Some(&"Distractor (not scored)"), "{titles:?}");
    let Some(Panel::Table { table, summary, .. }) = after.last() else { panic!() };
    assert_eq!(table.rows[1][1], format!("AS{offender}"));
    assert_eq!(table.rows[2][1], d.prefix.to_string());
    assert_eq!(table.tones[1], Tone::Bad, "the verdict named the distractor");
    assert!(summary.contains("never the answer"), "{summary}");
    let reached: usize = table.rows[5][1].parse().unwrap();
    assert!(reached >= 1, "a distractor changes some vantage point's route");
    assert!(!ep.score().correct, "naming the distractor is incorrect");
    let l3 = generated("bgp-v2-L3-s0-i0-n200");
    let mut ep = l3.start(None);
    ep.step(&format!("submit {}", score::truth(l3.task())));
    assert!(ep.panels().iter().all(|p| !p.title().contains("Distractor")));
}
