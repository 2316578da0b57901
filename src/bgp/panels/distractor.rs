//! The L4 distractor once the episode is over: what the second, unrelated incident was, how
//! many vantage points it reached and whether the verdict named it. It never counts toward the
//! score (a verdict naming it is simply incorrect), and the panel's title says so. While the
//! episode runs it is not shown at all: which of two incidents is the answer is the truth.

use std::collections::BTreeSet;

use super::{culprit_name, pair};
use crate::bgp::incident::Culprit;
use crate::bgp::task::Task;
use crate::bgp::tools::time;
use crate::bgp::verdict::Verdict;
use crate::view::{Panel, Table, Tone};

/// The distractor's panel, if the task has one.
pub(super) fn panel(task: &Task, verdict: Option<&Verdict>) -> Option<Panel> {
    let d = task.distractor.as_ref()?;
    let asn = |i: usize| task.world.topology.ases[i].asn;
    // The timeline lists the target's changes first, then the distractor's.
    let first = task.incident.changes.len();
    let own = first..first + d.changes.len();
    let vps: BTreeSet<usize> =
        task.timeline.updates().iter().filter(|u| own.contains(&u.change)).map(|u| u.vp).collect();
    let named = verdict.is_some_and(|v| match d.culprit {
        Culprit::Offender(x) => v.offender_asn == Some(asn(x)),
        Culprit::Victim(x) => v.victim_asn == Some(asn(x)),
        Culprit::Link(a, b) => v.link.is_some_and(|(p, q)| pair(p, q) == pair(asn(a), asn(b))),
        Culprit::Nobody => false,
    });
    let rows = vec![
        vec!["incident type".into(), d.family.incident_type().to_string()],
        vec!["culprit".into(), culprit_name(task, d.culprit)],
        vec!["prefix".into(), d.prefix.to_string()],
        vec!["start".into(), time::iso(d.start)],
        vec!["end".into(), d.end.map_or("ongoing".into(), time::iso)],
        vec!["vantage points reached".into(), vps.len().to_string()],
    ];
    let mut tones = vec![Tone::Neutral; rows.len()];
    if named {
        tones[1] = Tone::Bad;
    }
    let said = if named { "the verdict named its culprit instead" } else { "the verdict did not name it" };
    Some(Panel::Table {
        title: "Distractor (not scored)".into(),
        summary: format!("an unrelated {} in the same window, never the answer; {said}", d.family.code()),
        table: Table { headers: vec!["field".into(), "distractor".into()], rows, tones },
    })
}
