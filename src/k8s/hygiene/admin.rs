//! Hygiene notes on the admin policies (level 4; docs/k8s.md, "Scoring"): how the final
//! ANPs and BANP differ from the intended ones, and what a difference of that shape usually
//! says about the fix. Shown, not scored.
//!
//! Both kinds decide by order (priorities, then rules in order), so the spec is compared as
//! the server serves it (defaults filled in), rules matched by name (by position when
//! unnamed) and compared field by field. The comments come from [`COMMENTS`], a table keyed
//! by the kind of policy and the shape of the change: an over-broad repair of a new shape is
//! one more row, not more code.

use serde_json::Value;

use crate::k8s::admin::{AdminKind, AdminPolicy};
use crate::k8s::cluster::Cluster;
use crate::k8s::tenancy::AdminSet;
use crate::k8s::yaml::to_json_compact;

/// The shape of a change, as [`COMMENTS`] keys it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// A rule's action went from the first to the second.
    Action(&'static str, &'static str),
    /// The whole policy is gone.
    Deleted,
    /// One of its rules is gone.
    RuleRemoved,
    /// Its priority number dropped below that of ANPs it used to follow.
    Overtakes,
}

/// What each shape of change usually means; a change with no row gets the bare difference.
const COMMENTS: &[(AdminKind, Change, &str)] = &[
    (
        AdminKind::Admin,
        Change::Action("Pass", "Allow"),
        "an Allow decides before any NetworkPolicy for every peer and port of the rule; a NetworkPolicy rule for the one flow would have been narrower",
    ),
    (
        AdminKind::Admin,
        Change::Action("Deny", "Allow"),
        "every peer of the rule is now allowed; an Allow for the one flow at a lower priority number would have been narrower",
    ),
    (
        AdminKind::Admin,
        Change::Action("Deny", "Pass"),
        "peers the administrator denies are handed to the NetworkPolicies",
    ),
    (
        AdminKind::Baseline,
        Change::Action("Deny", "Allow"),
        "the baseline is relaxed for every namespace it covers; a NetworkPolicy admitting the flow in its namespace would have been narrower",
    ),
    (
        AdminKind::Baseline,
        Change::Deleted,
        "the cluster's default deny is gone; a NetworkPolicy admitting the flow in its namespace would have been narrower",
    ),
    (
        AdminKind::Baseline,
        Change::RuleRemoved,
        "the baseline no longer catches what no NetworkPolicy decides; a NetworkPolicy admitting the flow would have been narrower",
    ),
    (AdminKind::Admin, Change::Deleted, "every rule of the policy is gone, not only the one in the way"),
    (
        AdminKind::Admin,
        Change::RuleRemoved,
        "its peers now fall through to later ANPs and the NetworkPolicies",
    ),
    (AdminKind::Admin, Change::Overtakes, "its rules now shadow theirs"),
];

fn comment(kind: AdminKind, change: Change) -> Option<&'static str> {
    COMMENTS.iter().find(|(k, c, _)| *k == kind && *c == change).map(|(_, _, text)| *text)
}

/// `line`, followed by the comment on `change` when the table has one.
fn with_comment(line: String, kind: AdminKind, change: Change) -> String {
    match comment(kind, change) {
        Some(c) => format!("{line}: {c}"),
        None => line,
    }
}

/// A field as the note shows it: strings bare, anything else as compact JSON.
fn compact(v: Option<&Value>) -> String {
    match v {
        None => "<none>".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => to_json_compact(v),
    }
}

/// Every difference between the cluster's admin policies and `intended`, appended to `out`.
pub fn notes(c: &Cluster, intended: &AdminSet, out: &mut Vec<String>) {
    let have: Vec<&AdminPolicy> = c.admin.values().map(|o| &o.policy).collect();
    for p in &have {
        match intended.get(&(p.kind, p.name.clone())) {
            None => out.push(format!("extra {} {}", p.kind.as_str(), p.name)),
            Some(want) => policy_diffs(p, want, &have, intended, out),
        }
    }
    for ((kind, name), _) in intended.iter().filter(|(k, _)| !c.admin.contains_key(k)) {
        out.push(with_comment(format!("missing {} {name}", kind.as_str()), *kind, Change::Deleted));
    }
}

fn policy_diffs(
    have: &AdminPolicy,
    want: &AdminPolicy,
    all: &[&AdminPolicy],
    intended: &AdminSet,
    out: &mut Vec<String>,
) {
    let who = format!("{} {}", have.kind.as_str(), have.name);
    let (h, w) = (have.spec_json(), want.spec_json());
    for field in ["priority", "subject"] {
        if h.get(field) != w.get(field) {
            out.push(format!(
                "{who}: {field} {} (intended {})",
                compact(h.get(field)),
                compact(w.get(field))
            ));
        }
    }
    let overtaken = overtaken(have, want, all, intended);
    if !overtaken.is_empty() {
        let line = format!("{who}: now evaluated before {}", overtaken.join(", "));
        out.push(with_comment(line, have.kind, Change::Overtakes));
    }
    for (dir, peers) in [("ingress", "from"), ("egress", "to")] {
        let rules = |v: &Value| v.get(dir).and_then(Value::as_array).cloned().unwrap_or_default();
        rule_diffs(&who, have.kind, dir, peers, &rules(&h), &rules(&w), out);
    }
}

/// The ANPs that the intent evaluates before `have` and the final cluster after it.
fn overtaken(
    have: &AdminPolicy,
    want: &AdminPolicy,
    all: &[&AdminPolicy],
    intended: &AdminSet,
) -> Vec<String> {
    if have.kind != AdminKind::Admin || have.priority >= want.priority {
        return Vec::new();
    }
    all.iter()
        .filter(|q| q.kind == AdminKind::Admin && q.name != have.name && have.priority < q.priority)
        .filter(|q| intended.get(&(q.kind, q.name.clone())).is_some_and(|qw| qw.priority < want.priority))
        .map(|q| q.name.clone())
        .collect()
}

/// A rule's key for matching: its name, or its position when it has none.
fn rule_key(i: usize, r: &Value) -> String {
    r.get("name").and_then(Value::as_str).map_or_else(|| format!("#{i}"), str::to_string)
}

fn rule_diffs(
    who: &str,
    kind: AdminKind,
    dir: &str,
    peers: &str,
    have: &[Value],
    want: &[Value],
    out: &mut Vec<String>,
) {
    let keyed = |rules: &[Value]| -> Vec<(usize, String)> {
        rules.iter().enumerate().map(|(i, r)| (i, rule_key(i, r))).collect()
    };
    let (hk, wk) = (keyed(have), keyed(want));
    for (j, key) in &wk {
        let Some((i, _)) = hk.iter().find(|(_, k)| k == key) else {
            let line = format!("{who}: {dir} rule {key} removed");
            out.push(with_comment(line, kind, Change::RuleRemoved));
            continue;
        };
        let at = format!("{who}: {dir} rule {key}");
        if i != j {
            out.push(format!("{at}: moved from position {j} to {i}"));
        }
        for field in ["action", peers, "ports"] {
            let (h, w) = (have[*i].get(field), want[*j].get(field));
            if h == w {
                continue;
            }
            let line = format!("{at}: {field} {} (intended {})", compact(h), compact(w));
            match (field, h.and_then(Value::as_str), w.and_then(Value::as_str)) {
                ("action", Some(now), Some(was)) => out.push(action_comment(line, kind, was, now)),
                _ => out.push(line),
            }
        }
    }
    for (i, key) in hk.iter().filter(|(_, k)| !wk.iter().any(|(_, w)| w == k)) {
        out.push(format!("{who}: extra {dir} rule {key} at position {i}: {}", to_json_compact(&have[*i])));
    }
}

/// `line` with the comment on an action change from `was` to `now`, if the table has one.
fn action_comment(line: String, kind: AdminKind, was: &str, now: &str) -> String {
    let row = COMMENTS
        .iter()
        .find(|(k, c, _)| *k == kind && matches!(c, Change::Action(a, b) if *a == was && *b == now));
    match row {
        Some((_, _, text)) => format!("{line}: {text}"),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::admin::{Action, AdminObject};
    use crate::k8s::fault::intended_set;
    use crate::k8s::task::inject_cluster;
    use crate::k8s::tenancy::intended_admin;

    /// The intended cluster of level 4, with `edit` applied to its admin policies.
    fn level4(edit: impl FnOnce(&mut Cluster)) -> Vec<String> {
        let mut c = inject_cluster(&intended_set());
        for p in intended_admin().values() {
            let meta = c.new_meta(p.kind.as_str(), "", &p.name, c.now, Default::default());
            c.put_admin(AdminObject { meta, policy: p.clone() });
        }
        edit(&mut c);
        let mut out = Vec::new();
        notes(&c, intended_admin(), &mut out);
        out
    }

    fn policy<'c>(c: &'c mut Cluster, kind: AdminKind, name: &str) -> &'c mut AdminPolicy {
        &mut c.admin.get_mut(&(kind, name.to_string())).expect("intended policy").policy
    }

    #[test]
    fn the_intended_admin_set_is_clean() {
        assert_eq!(level4(|_| {}), Vec::<String>::new());
    }

    #[test]
    fn a_priority_lowered_past_other_anps_names_what_it_shadows() {
        let n = level4(|c| policy(c, AdminKind::Admin, "redis-deny-others").priority = 1);
        assert_eq!(
            n,
            [
                "AdminNetworkPolicy redis-deny-others: priority 1 (intended 8)",
                "AdminNetworkPolicy redis-deny-others: now evaluated before allow-dns, redis-allow-cart: its rules now shadow theirs",
            ]
        );
        // Raised, or lowered without passing anything: the bare difference only.
        let n = level4(|c| policy(c, AdminKind::Admin, "redis-deny-others").priority = 9);
        assert_eq!(n, ["AdminNetworkPolicy redis-deny-others: priority 9 (intended 8)"]);
    }

    #[test]
    fn a_pass_turned_into_allow_is_called_broader() {
        let n = level4(|c| policy(c, AdminKind::Admin, "tenant-isolation").ingress[0].action = Action::Allow);
        assert_eq!(n.len(), 1);
        assert!(n[0].starts_with(
            "AdminNetworkPolicy tenant-isolation: ingress rule same-tenant: action Allow (intended Pass): an Allow decides before any NetworkPolicy"
        ));
    }

    #[test]
    fn a_relaxed_or_deleted_baseline_points_to_a_namespace_policy() {
        let n = level4(|c| policy(c, AdminKind::Baseline, "default").egress[0].action = Action::Allow);
        assert_eq!(n.len(), 1);
        assert!(n[0].contains("egress rule default-deny: action Allow (intended Deny)"), "{n:?}");
        assert!(
            n[0].ends_with("a NetworkPolicy admitting the flow in its namespace would have been narrower")
        );
        let n = level4(|c| {
            c.admin.remove(&(AdminKind::Baseline, "default".to_string()));
        });
        assert_eq!(n.len(), 1);
        assert!(
            n[0].starts_with(
                "missing BaselineAdminNetworkPolicy default: the cluster's default deny is gone"
            )
        );
        let n = level4(|c| policy(c, AdminKind::Baseline, "default").ingress.clear());
        assert_eq!(n.len(), 1);
        assert!(n[0].starts_with("BaselineAdminNetworkPolicy default: ingress rule default-deny removed: "));
    }

    #[test]
    fn rules_are_matched_by_name_and_ports_compared() {
        let n = level4(|c| {
            let p = policy(c, AdminKind::Admin, "tenant-isolation");
            p.egress.swap(0, 1);
        });
        assert_eq!(
            n,
            [
                "AdminNetworkPolicy tenant-isolation: egress rule same-tenant: moved from position 0 to 1",
                "AdminNetworkPolicy tenant-isolation: egress rule cluster-dns: moved from position 1 to 0",
            ]
        );
        let n = level4(|c| {
            let p = policy(c, AdminKind::Admin, "redis-allow-cart");
            p.ingress[0].ports = None;
        });
        assert_eq!(
            n,
            [
                "AdminNetworkPolicy redis-allow-cart: ingress rule cart-to-redis: ports <none> (intended [{\"portRange\":{\"end\":6379,\"protocol\":\"TCP\",\"start\":6000}}])"
            ]
        );
    }

    #[test]
    fn every_comment_row_is_reachable_by_kind() {
        // No two rows for the same key: the first would hide the second.
        for (i, (k, c, _)) in COMMENTS.iter().enumerate() {
            assert!(!COMMENTS[i + 1..].iter().any(|(k2, c2, _)| k2 == k && c2 == c), "{k:?} {c:?}");
        }
    }

    #[test]
    fn an_admin_policy_outside_level_4_is_extra() {
        let mut c = inject_cluster(&intended_set());
        let p = intended_admin()[&(AdminKind::Admin, "allow-dns".to_string())].clone();
        let meta = c.new_meta("AdminNetworkPolicy", "", "allow-dns", c.now, Default::default());
        c.put_admin(AdminObject { meta, policy: p });
        let mut out = Vec::new();
        notes(&c, &AdminSet::new(), &mut out);
        assert_eq!(out, ["extra AdminNetworkPolicy allow-dns"]);
    }
}
