//! Judging one answer (docs/microseg.md, "Scoring"): the return envelope, the role families'
//! partition scores, and the policy families' rates with their thresholds.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::flows::tenant::dotted;

use super::allow::Compiled;
use super::family::Family;
use super::forms::{self, Form};
use super::policy;
use super::world::World;

/// The verdict on one answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub correct: bool,
    pub safe: bool,
    pub progress: f64,
    /// The headline reason, then the details.
    pub why: String,
    pub lines: Vec<String>,
}

impl Verdict {
    fn invalid(why: String, safe: bool) -> Verdict {
        Verdict { correct: false, safe, progress: 0.0, why, lines: Vec::new() }
    }
}

/// The answer's `type` and `data`, or why the return value is not one.
pub fn envelope(v: &Value, want: &str) -> Result<Value, String> {
    let Value::Object(map) = v else {
        return Err(format!("process_flows must return a dict {{'type': '{want}', 'data': ...}}"));
    };
    match map.get("type").and_then(Value::as_str) {
        Some(t) if t == want => {}
        Some(t) => return Err(format!("type must be '{want}' for this request, got '{t}'")),
        None => return Err("the dict has no 'type'".into()),
    }
    map.get("data").cloned().ok_or_else(|| "the dict has no 'data'".into())
}

/// Judges a returned value (already JSON) for a family whose policy answers are in `form`.
pub fn judge(w: &World, f: Family, form: Form, answer: Result<Value, String>) -> Verdict {
    let data = match answer.and_then(|v| envelope(&v, f.answer_type(form))) {
        Ok(d) => d,
        Err(e) => return Verdict::invalid(e, f.roles()),
    };
    if f.roles() { roles(w, f, &data) } else { policy(w, f, form, &data) }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn roles(w: &World, f: Family, data: &Value) -> Verdict {
    let Some(map) = data.as_object().filter(|m| m.values().all(Value::is_string)) else {
        return Verdict::invalid("the roles must be a dict of address → name (all str)".into(), false);
    };
    let vms: Vec<u32> = w.visible.clone();
    let ips: Vec<String> = vms.iter().map(|&v| dotted(w.trace.vms[v as usize].ip)).collect();
    let extra: Vec<&String> = map.keys().filter(|k| !ips.contains(k)).collect();
    let names: Vec<Option<&str>> = ips.iter().map(|ip| map.get(ip).and_then(Value::as_str)).collect();
    let truth: Vec<u32> = vms.iter().map(|&v| w.trace.vms[v as usize].role as u32).collect();
    let mut ids: BTreeMap<&str, u32> = BTreeMap::new();
    let pred: Vec<u32> = names
        .iter()
        .enumerate()
        .map(|(i, n)| match n {
            Some(n) => {
                let next = ids.len() as u32;
                *ids.entry(n).or_insert(next)
            }
            None => 1_000_000 + i as u32,
        })
        .collect();
    // Both vectors have one entry per VM, so their lengths always agree.
    let s = crate::stats::compare_partitions(&truth, &pred).expect("one label per VM on both sides");
    let (a, m, p, r, f1) = (s.ari, s.ami, s.precision, s.recall, s.f1);
    let mut lines = vec![format!(
        "ARI {a:.3}, AMI {m:.3}, pairwise precision {p:.3} recall {r:.3} F1 {f1:.3} over {} VMs",
        vms.len()
    )];
    let missing = names.iter().filter(|n| n.is_none()).count();
    if missing > 0 {
        lines.push(format!("{missing} VMs missing from the answer (each counted as its own cluster)"));
    }
    if !extra.is_empty() {
        let shown: Vec<&str> = extra.iter().take(10).map(|s| s.as_str()).collect();
        lines.push(format!(
            "{} addresses that are not VMs of the visible windows ignored: {}",
            extra.len(),
            shown.join(", ")
        ));
    }
    let mut cells: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (i, &v) in vms.iter().enumerate() {
        *cells.entry((w.role_name(v), names[i].unwrap_or("(missing)"))).or_default() += 1;
    }
    let mut cells: Vec<((&str, &str), usize)> = cells.into_iter().collect();
    cells.sort_by_key(|&(k, n)| (std::cmp::Reverse(n), k));
    lines.extend(cells.iter().take(10).map(|((t, a), n)| format!("{n} × true {t} → answer {a}")));
    if f == Family::RoleCluster {
        let ok = a >= 0.95 && f1 >= 0.95;
        let why = format!("ARI {a:.3} and pairwise F1 {f1:.3} (both must be ≥ 0.95)");
        return Verdict { correct: ok, safe: true, progress: a.clamp(0.0, 1.0), why, lines };
    }
    let tagged = |v: u32| w.trace.vms[v as usize].known;
    let (mut right, mut untagged, mut lost, mut wrong) = (0usize, 0usize, 0usize, Vec::new());
    for (i, &v) in vms.iter().enumerate() {
        let ok = names[i] == Some(w.role_name(v));
        if tagged(v) {
            lost += usize::from(names[i].is_some() && !ok);
        } else {
            untagged += 1;
            right += usize::from(ok);
            if !ok {
                wrong.push(format!(
                    "{} is {}, answered {}",
                    ips[i],
                    w.role_name(v),
                    names[i].unwrap_or("nothing")
                ));
            }
        }
    }
    let acc = if untagged == 0 { 1.0 } else { right as f64 / untagged as f64 };
    lines.extend(wrong.iter().take(10).cloned());
    let why = format!(
        "accuracy {} ({right} of {untagged} untagged VMs; must be ≥ 95%), {lost} tags changed",
        pct(acc)
    );
    Verdict { correct: acc >= 0.95 && lost == 0, safe: true, progress: acc, why, lines }
}

fn policy(w: &World, f: Family, form: Form, data: &Value) -> Verdict {
    let m = match forms::score(w, form, data) {
        Ok(m) => m,
        Err(e) if form == Form::Np => return Verdict::invalid(format!("invalid policy: {e}"), false),
        Err(e) => return Verdict::invalid(format!("invalid {}: {e}", form.phrase()), false),
    };
    let mut correct = m.correct();
    let mut lines = m.lines.clone();
    if let (Family::Incremental, Ok(p)) = (f, policy::parse(data)) {
        let misplaced = added_misplaced(w, &p);
        correct &= misplaced.is_empty();
        lines.extend(misplaced.into_iter().take(10));
    }
    let why = format!(
        "{}; {}",
        if m.correct() { "FDR ≤ 1% and GDR ≤ 2%" } else { "FDR must be ≤ 1% and GDR ≤ 2%" },
        if m.safe() { "FAR = 0, OP ≤ 1%, CDR = 0" } else { "safety needs FAR = 0, OP ≤ 1% and CDR = 0" }
    );
    Verdict { correct, safe: m.safe(), progress: 1.0 - m.fdr.value(), why, lines }
}

/// The VMs added at w2's start that are not in exactly the groups their role's other members
/// share (the most common group set among them).
fn added_misplaced(w: &World, p: &policy::Policy) -> Vec<String> {
    let c = Compiled::new(p, w);
    let w2 = u64::from(w.windows[1].start_min) * 60_000;
    let mut out = Vec::new();
    for &v in &w.test_vms {
        let vm = &w.trace.vms[v as usize];
        if vm.start_ms < w2 || vm.start_ms >= w.vis_end {
            continue;
        }
        let mut sets: BTreeMap<Vec<&str>, usize> = BTreeMap::new();
        for &o in w.test_vms.iter().filter(|&&o| {
            let x = &w.trace.vms[o as usize];
            x.role == vm.role && x.start_ms < w2
        }) {
            *sets.entry(c.groups_of(o)).or_default() += 1;
        }
        let want =
            sets.iter().max_by_key(|(k, n)| (**n, std::cmp::Reverse((*k).clone()))).map(|(k, _)| k.clone());
        let have = c.groups_of(v);
        if want.as_ref().is_some_and(|g| *g != have) {
            out.push(format!(
                "added VM {} ({}) is in [{}], its role's members in [{}]",
                dotted(vm.ip),
                w.role_name(v),
                have.join(", "),
                want.unwrap_or_default().join(", ")
            ));
        }
    }
    out
}
