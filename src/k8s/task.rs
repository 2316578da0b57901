//! A generated K8s task: the injected cluster, the post-injection report, the card with every
//! drawn value, and the known-good fix.

use std::sync::Arc;

use serde_json::{Value, json};

use super::admin::AdminObject;
use super::cluster::Cluster;
use super::episode::K8sEpisode;
use super::fault::{Fault, PolicySet};
use super::fix::fix_commands;
use super::generate::{Generated, expected, generate, label};
use super::intent::intended_spec;
use super::kubectl::VerbPolicy;
use super::kubectl::write::{LAST_APPLIED, modified_config};
use super::labels::Labels;
use super::meta::{EPISODE_AT, POLICIES_AT};
use super::policy::NetworkPolicy;
use super::probe::{Matrix, Verdict, mismatch_lines, report, report_text};
use super::tenancy::{self, AdminFault, AdminSet};
use super::{INFO, view};
use crate::app::{Episode, PromptVariant, Task, TaskCard};
use crate::error::{Error, Result};
use crate::hash::{content_hash, sha256_hex};
use crate::id::QueryId;
use crate::view::Picture;

/// Everything a task and its episodes share.
#[derive(Debug)]
pub struct TaskData {
    pub card: TaskCard,
    pub verbs: VerbPolicy,
    pub faults: Vec<Fault>,
    /// The cluster right after injection, clock at the episode start.
    pub cluster: Cluster,
    /// The matrix right after injection.
    pub initial: Matrix,
    /// The known-good fix.
    pub fix: Vec<String>,
}

/// The Task role over shared data.
#[derive(Debug, Clone)]
pub struct K8sTask(pub Arc<TaskData>);

/// The turn limit and verb policy an id's knobs set.
pub fn knobs(id: &QueryId) -> Result<(u32, VerbPolicy)> {
    let bad = |key: char, value: &str, reason: &str| Error::BadKnob {
        app: "k8s".into(),
        knob: format!("-{key}{value}"),
        reason: reason.into(),
    };
    let turns = match id.knob('t') {
        None => INFO.default_max_turns,
        Some(v) => match v.parse::<u32>() {
            Ok(n) if (1..=50).contains(&n) && !v.starts_with('0') => n,
            _ => return Err(bad('t', v, "the turn limit must be 1..50")),
        },
    };
    let verbs = match id.knob('v') {
        None => VerbPolicy::default(),
        Some(v) => VerbPolicy::parse(v).ok_or_else(|| {
            bad('v', v, "verb letters are a subset of `acd` in that order (apply, create, delete)")
        })?,
    };
    Ok((turns, verbs))
}

/// The cluster with the injected policies, as the API server stores them.
pub fn inject_cluster(set: &PolicySet) -> Cluster {
    inject_noting(set).0
}

/// [`inject_cluster`], also returning the manifests of the injected policies that differ from
/// the intent (or are extra), which the task's params list. A stored policy's manifest is its
/// set entry's (neither carries labels), so each changed policy is rendered once for both.
fn inject_noting(set: &PolicySet) -> (Cluster, Vec<Value>) {
    let mut c = super::generate::pristine().clone();
    c.now = POLICIES_AT;
    let intended = crate::k8s::fault::intended();
    let mut injected = Vec::new();
    for (key, p) in set {
        let (ns, name) = key;
        let mut meta = c.new_meta("NetworkPolicy", ns, name, POLICIES_AT, Labels::new());
        meta.generation = Some(1);
        let mut policy = NetworkPolicy { meta, spec: p.spec.clone() };
        let last_applied = match intended.get(key) {
            Some(i) if Arc::ptr_eq(i, p) => intended_last_applied(name),
            was => {
                let manifest = policy.manifest();
                let text = modified_config(&manifest);
                let differs = match was {
                    Some(i) => i.spec != p.spec,
                    None => ns != "default" || p.spec != intended_spec(name),
                };
                if differs {
                    injected.push(manifest);
                }
                text
            }
        };
        policy.meta.annotations.insert(LAST_APPLIED.into(), last_applied);
        c.put_policy(policy);
    }
    c.now = EPISODE_AT;
    (c, injected)
}

/// Stores the admin policies as `kubectl apply` left them; returns the manifests of those
/// that differ from the intended ones.
fn inject_admin(c: &mut Cluster, admin: &AdminSet) -> Vec<Value> {
    let now = c.now;
    c.now = POLICIES_AT;
    let mut injected = Vec::new();
    for (key, p) in admin {
        let mut meta = c.new_meta(p.kind.as_str(), "", &p.name, POLICIES_AT, Labels::new());
        meta.generation = Some(1);
        let manifest = tenancy::manifest(p);
        meta.annotations.insert(LAST_APPLIED.into(), modified_config(&manifest));
        if tenancy::intended_admin().get(key) != Some(p) {
            injected.push(manifest);
        }
        c.put_admin(AdminObject { meta, policy: p.clone() });
    }
    c.now = now;
    injected
}

/// The `last-applied-configuration` of an intended policy: the same in every task, so
/// rendered once.
fn intended_last_applied(name: &str) -> String {
    static TEXT: std::sync::OnceLock<std::collections::BTreeMap<String, String>> = std::sync::OnceLock::new();
    let texts = TEXT.get_or_init(|| {
        let intended = crate::k8s::fault::intended().values();
        intended.map(|p| (p.meta.name.clone(), modified_config(&p.manifest()))).collect()
    });
    texts[name].clone()
}

/// The hash of a matrix: SHA-256 of its verdicts as `T`/`F`/`P` characters.
pub fn matrix_hash(m: &Matrix) -> String {
    let s: String = m
        .iter()
        .map(|v| match v {
            Verdict::True => 'T',
            Verdict::False => 'F',
            Verdict::Partial => 'P',
        })
        .collect();
    sha256_hex(s.as_bytes())
}

/// The hash of the expected matrix (the same for every task).
fn expected_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| matrix_hash(expected()))
}

/// Builds the task an id names.
pub fn build(id: &QueryId) -> Result<K8sTask> {
    let (max_turns, verbs) = knobs(id)?;
    let Generated { types, faults, attempts, policies, matrix, admin_faults, admin } = generate(id)?;
    let (mut cluster, injected) = inject_noting(&policies);
    let injected_admin = inject_admin(&mut cluster, &admin);
    let exp = expected();
    let mismatch_lines = mismatch_lines(exp, &matrix);
    let report0 = report_text(&mismatch_lines);
    let mut fix = fix_commands(&faults, &policies, verbs);
    fix.extend(admin_faults.iter().map(AdminFault::fix));
    let layered = !admin.is_empty();
    let prompt = super::prompt::render_with(PromptVariant::ZeroshotBase, verbs, max_turns, &report0, layered);
    let expected_json = json!({
        "matrix_hash": expected_hash(),
        "post_injection_mismatches": mismatch_lines,
        "post_injection_matrix_hash": matrix_hash(&matrix),
        "fix": fix,
    });
    let mut params = json!({
        "types": types.iter().map(|t| t.id()).collect::<Vec<_>>(),
        "faults": faults.iter().map(Fault::to_json).collect::<Vec<_>>(),
        "attempts": attempts,
        "verbs": verbs.letters(),
        "max_turns": max_turns,
        "injected": injected,
    });
    if layered && let Value::Object(m) = &mut params {
        let ids = admin_faults.iter().map(|f| f.kind().id());
        m.insert("admin_types".into(), json!(ids.collect::<Vec<_>>()));
        m.insert(
            "admin_faults".into(),
            json!(admin_faults.iter().map(AdminFault::to_json).collect::<Vec<_>>()),
        );
        m.insert("injected_admin".into(), json!(injected_admin));
    }
    let card = TaskCard {
        id: id.to_string(),
        app: INFO.name.into(),
        version: INFO.version,
        level: id.level,
        label: match admin_faults.first() {
            Some(a) => tenancy::label(types[0], a.kind()),
            None => label(id.level, &types),
        },
        content_hash: content_hash(&prompt, &expected_json),
        prompt,
        params: params.into(),
        expected: expected_json,
        question: None,
        max_turns,
    };
    Ok(K8sTask(Arc::new(TaskData { card, verbs, faults, cluster, initial: matrix, fix })))
}

impl Task for K8sTask {
    fn card(&self) -> &TaskCard {
        &self.0.card
    }

    fn prompt(&self, variant: PromptVariant) -> String {
        let d = &self.0;
        let layered = d.card.level == 4;
        super::prompt::render_with(
            variant,
            d.verbs,
            d.card.max_turns,
            &report(expected(), &d.initial),
            layered,
        )
    }

    fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode> {
        Box::new(K8sEpisode::new(self.0.clone(), max_turns.unwrap_or(self.0.card.max_turns)))
    }

    fn picture(&self) -> Picture {
        view::call_graph(None, "Online Boutique call graph (intended)")
    }
}
