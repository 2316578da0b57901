//! The episode's panels, which the surfaces render without knowing the application: the tool
//! calls so far (always), and once the episode is over, what each vantage point saw before,
//! during and after the incident, the verdict against the truth, and the timeline of the
//! incident prefixes' updates, and at L4 the distractor, labelled as such (the `distractor` module).
//! Until the end nothing in them gives the truth away.

use std::collections::{BTreeMap, BTreeSet};

use ipnet::IpNet;

use super::family::Family;
use super::incident::Culprit;
use super::task::Task;
use super::timeline::VpRoute;
use super::tools::time;
use super::verdict::{Verdict, When};
use crate::view::{Cell, Grid, Panel, Table, Tone};

/// Lines the timeline shows before it summarises the rest.
const TIMELINE_LINES: usize = 60;

/// One tool call of the episode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub turn: u32,
    pub line: String,
    pub status: i32,
    /// The output's size before the observation was cut.
    pub bytes: usize,
}

/// The panels of an episode; `over` once it is finished.
pub fn panels(task: &Task, calls: &[Call], verdict: Option<&Verdict>, over: bool) -> Vec<Panel> {
    let mut out = vec![evidence(calls)];
    if over {
        out.extend([vantage_points(task), verdict_panel(task, verdict), timeline(task)]);
        out.extend(distractor::panel(task, verdict));
    }
    out
}

fn evidence(calls: &[Call]) -> Panel {
    let rows = calls
        .iter()
        .map(|c| vec![c.turn.to_string(), c.line.clone(), c.status.to_string(), c.bytes.to_string()])
        .collect();
    let tones = calls.iter().map(|c| if c.status == 0 { Tone::Neutral } else { Tone::Bad }).collect();
    let bytes: usize = calls.iter().map(|c| c.bytes).sum();
    Panel::Table {
        title: "Evidence".into(),
        summary: format!("{} tool calls, {bytes} bytes of output", calls.len()),
        table: Table {
            headers: vec!["turn".into(), "command".into(), "exit".into(), "bytes".into()],
            rows,
            tones,
        },
    }
}

/// The prefixes the incident concerns (P and any more-specific it announces).
fn subject(task: &Task) -> BTreeSet<IpNet> {
    task.incident.prefixes.iter().copied().chain([task.incident.prefix]).collect()
}

/// Whether a route carries the incident's signature: the offender's origin, the forged
/// adjacency, the leak's valley, a leaked more-specific. Losses (outage, link failure, ROA
/// mistake) have none: they show as routes gone.
fn bad(task: &Task, prefix: IpNet, path: &[u32]) -> bool {
    let inc = &task.incident;
    super::validity::path_signature(&task.world, inc, path)
        .unwrap_or(inc.family == Family::Ms && prefix != inc.prefix)
}

/// Each VP's routes to the subject prefixes at second `t`.
fn routes_at<'t>(
    task: &'t Task,
    prefixes: &BTreeSet<IpNet>,
    t: u64,
) -> BTreeMap<(usize, IpNet), &'t VpRoute> {
    let tl = &task.timeline;
    let mut held = BTreeMap::new();
    for vp in 0..task.world.collectors.vps.len() {
        for &p in prefixes {
            if let Some((r, _)) = tl.baseline_route(vp, p) {
                held.insert((vp, p), r);
            }
        }
    }
    for u in tl.updates().iter().take_while(|u| u.secs() <= t).filter(|u| prefixes.contains(&u.prefix)) {
        match &u.route {
            Some(r) => held.insert((u.vp, u.prefix), r),
            None => held.remove(&(u.vp, u.prefix)),
        };
    }
    held
}

/// Before the start, ten minutes in (or just before the end), and ten minutes after the end
/// (the window's end if it is still going).
fn moments(task: &Task) -> [(&'static str, u64); 3] {
    let inc = &task.incident;
    let last = task.world.clock.end();
    let during = match inc.end {
        Some(e) => (inc.start + 600).min(e.saturating_sub(1)),
        None => (inc.start + 600).min(last),
    };
    let after = inc.end.map_or(last, |e| (e + 600).min(last));
    [("before", inc.start.saturating_sub(1)), ("during", during), ("after", after)]
}

fn vantage_points(task: &Task) -> Panel {
    let prefixes = subject(task);
    let t = &task.world.topology;
    let moments = moments(task);
    let states: Vec<_> = moments.iter().map(|&(_, at)| routes_at(task, &prefixes, at)).collect();
    let mut rows = Vec::new();
    let mut cells = Vec::new();
    let mut hit = 0;
    for (vp, info) in task.world.collectors.vps.iter().enumerate() {
        let name = format!("AS{}", t.ases[info.asx].asn);
        let row: Vec<Cell> = states
            .iter()
            .zip(&moments)
            .map(|(held, (when, _))| {
                let mine: Vec<(IpNet, &VpRoute)> =
                    held.iter().filter(|(k, _)| k.0 == vp).map(|(k, r)| (k.1, *r)).collect();
                cell(task, &name, when, &mine)
            })
            .collect();
        hit += usize::from(row.iter().any(|c| c.tone == Tone::Bad));
        rows.push(name);
        cells.push(row);
    }
    let cols = moments.iter().map(|(w, _)| (*w).to_string()).collect();
    Panel::Grid {
        title: "Vantage points".into(),
        summary: format!(
            "routes to {} per vantage point: ✓ legitimate, ✗ the incident's, · none; {hit} of {} saw the incident",
            task.incident.prefix,
            rows.len()
        ),
        grid: Grid { rows, cols, cells },
    }
}

fn cell(task: &Task, vp: &str, when: &str, routes: &[(IpNet, &VpRoute)]) -> Cell {
    let path = |r: &VpRoute| r.path.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
    if let Some((p, r)) = routes.iter().find(|(p, r)| bad(task, *p, &r.path)) {
        return Cell { tone: Tone::Bad, title: format!("{vp} {when}: {p} via {}", path(r)) };
    }
    match routes.iter().find(|(p, _)| *p == task.incident.prefix) {
        Some((p, r)) => Cell { tone: Tone::Good, title: format!("{vp} {when}: {p} via {}", path(r)) },
        None => Cell { tone: Tone::None, title: format!("{vp} {when}: no route") },
    }
}

fn timeline(task: &Task) -> Panel {
    let prefixes = subject(task);
    let t = &task.world.topology;
    let ups: Vec<_> = task.timeline.updates().iter().filter(|u| prefixes.contains(&u.prefix)).collect();
    let mut lines: Vec<(Tone, String)> = ups
        .iter()
        .take(TIMELINE_LINES)
        .map(|u| {
            let vp = t.ases[task.world.collectors.vps[u.vp].asx].asn;
            match &u.route {
                Some(r) => {
                    let path: Vec<String> = r.path.iter().map(u32::to_string).collect();
                    let tone = if bad(task, u.prefix, &r.path) { Tone::Bad } else { Tone::Good };
                    (tone, format!("{} AS{vp} A {} {}", time::iso(u.secs()), u.prefix, path.join(" ")))
                }
                None => (Tone::None, format!("{} AS{vp} W {}", time::iso(u.secs()), u.prefix)),
            }
        })
        .collect();
    if ups.len() > TIMELINE_LINES {
        lines.push((Tone::Neutral, format!("… and {} more", ups.len() - TIMELINE_LINES)));
    }
    Panel::Lines {
        title: "Timeline".into(),
        summary: format!("{} updates for {} (and its more-specifics)", ups.len(), task.incident.prefix),
        lines,
    }
}

fn verdict_panel(task: &Task, verdict: Option<&Verdict>) -> Panel {
    let inc = &task.incident;
    let culprit = culprit_name(task, inc.culprit);
    let harmful = !inc.family.is_benign();
    let truth = [
        inc.family.incident_type().to_string(),
        culprit,
        if harmful { inc.prefix.to_string() } else { "—".into() },
        if harmful { time::iso(inc.start) } else { "—".into() },
        if harmful { inc.end.map_or("ongoing".into(), time::iso) } else { "—".into() },
        if harmful { list(&task.affected) } else { "—".into() },
    ];
    let said = verdict.map(|v| said(v, inc.culprit));
    let fields = ["incident type", "culprit", "victim prefix", "start", "end", "affected"];
    let mut rows = Vec::new();
    let mut tones = Vec::new();
    for (k, field) in fields.iter().enumerate() {
        let given = said.as_ref().map_or("no verdict".into(), |s| s[k].clone());
        tones.push(if !harmful && k > 1 { Tone::Neutral } else { agree(k, &truth[k], &given, inc, verdict) });
        rows.push(vec![(*field).to_string(), truth[k].clone(), given]);
    }
    Panel::Table {
        title: "Verdict vs truth".into(),
        summary: format!("truth: {}", task.label),
        table: Table { headers: vec!["field".into(), "truth".into(), "verdict".into()], rows, tones },
    }
}

/// How the panels name a culprit.
fn culprit_name(task: &Task, c: Culprit) -> String {
    let asn = |i: usize| task.world.topology.ases[i].asn;
    match c {
        Culprit::Offender(x) => format!("AS{}", asn(x)),
        Culprit::Link(a, b) => pair(asn(a), asn(b)),
        Culprit::Victim(v) => format!("AS{} (victim)", asn(v)),
        Culprit::Nobody => "—".into(),
    }
}

fn pair(a: u32, b: u32) -> String {
    format!("AS{}–AS{}", a.min(b), a.max(b))
}

fn list(asns: &[u32]) -> String {
    asns.iter().map(|a| format!("AS{a}")).collect::<Vec<_>>().join(" ")
}

fn when(w: When) -> String {
    match w {
        When::Absent => "—".into(),
        When::Null => "ongoing".into(),
        When::At(t) => time::iso(t),
    }
}

/// The verdict's fields in the panel's order; the culprit field is the one the truth asks for.
fn said(v: &Verdict, culprit: Culprit) -> [String; 6] {
    let asn = |a: Option<u32>| a.map_or("—".into(), |a| format!("AS{a}"));
    let named = match culprit {
        Culprit::Link(..) => v.link.map_or("—".into(), |(a, b)| pair(a, b)),
        Culprit::Victim(_) => v.victim_asn.map_or("—".into(), |a| format!("AS{a} (victim)")),
        _ => asn(v.offender_asn),
    };
    [
        v.incident_type.unwrap_or("(vague)").to_string(),
        named,
        v.victim_prefix.map_or("—".into(), |p| p.to_string()),
        when(v.start),
        when(v.end),
        v.affected.as_ref().map_or("—".into(), |a| list(&a.iter().copied().collect::<Vec<_>>())),
    ]
}

/// Times agree within five minutes (full window credit); everything else exactly.
fn agree(k: usize, truth: &str, given: &str, inc: &super::incident::Incident, v: Option<&Verdict>) -> Tone {
    let near = |t: Option<u64>, w: When| match (t, w) {
        (Some(t), When::At(g)) => t.abs_diff(g) <= 300,
        (None, When::Null) => true,
        _ => false,
    };
    let ok = match (k, v) {
        (3, Some(v)) => near(Some(inc.start), v.start),
        (4, Some(v)) => near(inc.end, v.end),
        (1, _) if truth == "—" => true,
        _ => truth == given,
    };
    if ok { Tone::Good } else { Tone::Bad }
}

mod distractor;
#[cfg(test)]
mod tests;
