//! Shareable links: the web app's whole view state in a URL fragment.
//!
//! The app is static files, so a link is the only way to share a view. The fragment is
//! `#/<view>[/<query id>][?key=value&…]`, e.g. `#/task/route-v1-L2-s42-i7?variant=fewshot_cot`.
//! Short answers travel in the link too: raw DEFLATE, then unpadded base64url, under `answer=`.
//! Parsing never fails: anything unrecognised becomes [`View::NotFound`] with the reason, which
//! the app shows with a way home.
//!
//! This lives in the library (not the web module) so its round trips are tested natively.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::app::{AppInfo, PromptVariant};
use crate::id::QueryId;
use crate::run::{TaskSelection, parse_seeds};

/// Longest answer (in bytes, before compression) put into a link.
pub const MAX_LINK_ANSWER: usize = 4096;

/// Longest fragment parsed; longer ones are refused rather than decoded.
pub const MAX_FRAGMENT: usize = 16 * 1024;

/// The page a link opens.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Home,
    Task(TaskLink),
    Batch(BatchLink),
    /// The runs picked for comparison, by their history ids.
    Compare(Vec<String>),
    History,
    Bench,
    /// The adaptive search; with a state token (`#/adapt/<token>`, see
    /// [`crate::adapt::State::token`]) it reopens that search.
    Adapt(Option<String>),
    /// An unknown or malformed link, with the reason shown to the user.
    NotFound(String),
}

/// The state of the task view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLink {
    pub id: QueryId,
    pub variant: PromptVariant,
    /// The answer mode tab: `terminal`, `paste`, `baseline`, `endpoint`.
    pub mode: Option<String>,
    /// A short answer: the pasted text, or the commands typed into the terminal.
    pub answer: Option<String>,
}

impl TaskLink {
    pub fn new(id: QueryId) -> Self {
        TaskLink { id, variant: PromptVariant::default(), mode: None, answer: None }
    }
}

/// What a task link can carry of an answer, so "Copy link" can say what it copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkHolds {
    /// No answer was given: the link names the task, variant and mode, which is all there is.
    Task,
    /// The whole answer travels in the link.
    Answer,
    /// The answer (`bytes` long) is too long for a link; the link names the task only.
    TooLong { bytes: usize },
}

impl LinkHolds {
    /// What a link made for `answer` (the whole answer of the mode in view) holds.
    pub fn of(answer: Option<&str>) -> LinkHolds {
        match answer.filter(|a| !a.is_empty()) {
            None => LinkHolds::Task,
            Some(a) if a.len() <= MAX_LINK_ANSWER => LinkHolds::Answer,
            Some(a) => LinkHolds::TooLong { bytes: a.len() },
        }
    }

    /// The words a copy button shows after copying such a link.
    pub fn describe(&self) -> String {
        match self {
            LinkHolds::Task => "copied: the link opens this task (no answer yet)".into(),
            LinkHolds::Answer => "copied: the link opens this task and replays your answer".into(),
            LinkHolds::TooLong { bytes } => format!(
                "copied the task only: your answer ({bytes} bytes) is longer than a link can hold \
                 ({MAX_LINK_ANSWER} bytes), so the link does not replay it; it stays saved in this browser"
            ),
        }
    }
}

/// The settings of the batch view: which tasks, which agent, how.
///
/// The tasks are the CLI's `run --interleave` selection ([`BatchLink::selection`]): for each
/// seed of `seeds.0..=seeds.1`, each level, indexes `0..per_seed`, with the knob suffix applied
/// to every id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchLink {
    /// The application; `None` picks the first registered one.
    pub app: Option<String>,
    /// Levels to run; empty means every level of the application.
    pub levels: Vec<u8>,
    /// First and last seed, inclusive.
    pub seeds: (u64, u64),
    pub per_seed: u64,
    /// Knobs as written in an id, e.g. `-n3-m2` (empty for the application's defaults).
    pub knobs: String,
    /// `baseline` or `endpoint`.
    pub agent: String,
    pub variant: PromptVariant,
    /// Overrides every task's turn limit.
    pub max_turns: Option<u32>,
    /// Episodes run at once (agent calls in flight, or sandbox workers busy).
    pub jobs: u32,
}

/// Most episodes a batch runs at once.
pub const MAX_BATCH_JOBS: u32 = 16;

impl Default for BatchLink {
    fn default() -> Self {
        BatchLink {
            app: None,
            levels: Vec::new(),
            seeds: (0, 19),
            per_seed: 1,
            knobs: String::new(),
            agent: "baseline".into(),
            variant: PromptVariant::default(),
            max_turns: None,
            jobs: 1,
        }
    }
}

/// Most tasks one batch link may ask for; larger batches belong to the CLI.
pub const MAX_BATCH_TASKS: u64 = 100_000;

impl BatchLink {
    /// The tasks the link names: the CLI's `run --interleave` selection.
    pub fn selection(&self) -> Result<TaskSelection, String> {
        Ok(TaskSelection {
            levels: self.levels.clone(),
            seeds: self.seeds,
            per_seed: self.per_seed,
            knobs: parse_knobs(&self.knobs)?,
            interleave: true,
            ..TaskSelection::default()
        })
    }

    /// Number of tasks the batch covers for an application with `app_levels` levels.
    pub fn task_count(&self, app_levels: usize) -> u64 {
        TaskSelection {
            levels: self.levels.clone(),
            seeds: self.seeds,
            per_seed: self.per_seed,
            ..Default::default()
        }
        .count(app_levels)
    }

    /// The ids of the batch in run order, for an application. Knob values are the
    /// application's to check.
    pub fn ids(&self, app: &AppInfo) -> Result<Vec<QueryId>, String> {
        if self.task_count(app.levels.len()) > MAX_BATCH_TASKS {
            return Err(format!("a batch is limited to {MAX_BATCH_TASKS} tasks here; use the CLI for more"));
        }
        Ok(self.selection()?.ids(app))
    }
}

/// Parses a knob suffix such as `-n3-m2` through the id parser, so both agree on the syntax.
fn parse_knobs(suffix: &str) -> Result<Vec<crate::id::Knob>, String> {
    let suffix = suffix.trim();
    if suffix.is_empty() {
        return Ok(Vec::new());
    }
    let suffix = if suffix.starts_with('-') { suffix.to_string() } else { format!("-{suffix}") };
    format!("x-v0-L0-s0-i0{suffix}")
        .parse::<QueryId>()
        .map(|id| id.knobs)
        .map_err(|_| format!("bad knobs {suffix:?}: write them as in an id, e.g. -n3-m2"))
}

/// Parses a fragment (with or without the leading `#`).
pub fn parse(fragment: &str) -> View {
    if fragment.len() > MAX_FRAGMENT {
        return View::NotFound("the link is too long".into());
    }
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let (path, query) = fragment.split_once('?').unwrap_or((fragment, ""));
    let params = parse_query(query);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let view = match segments.as_slice() {
        [] => Ok(View::Home),
        ["task", id] => parse_task(id, &params),
        ["batch"] => parse_batch(&params).map(View::Batch),
        ["compare"] => Ok(View::Compare(parse_list(params.get("runs")))),
        ["history"] => Ok(View::History),
        ["bench"] => Ok(View::Bench),
        ["adapt"] => Ok(View::Adapt(None)),
        ["adapt", token] => Ok(View::Adapt(Some(percent_decode(token)))),
        _ => Err(format!("no page at {path:?}")),
    };
    view.unwrap_or_else(View::NotFound)
}

fn parse_task(id: &str, params: &BTreeMap<String, String>) -> Result<View, String> {
    let id = percent_decode(id).parse::<QueryId>().map_err(|e| e.to_string())?;
    let variant = parse_variant(params)?;
    let answer = params.get("answer").map(|a| decode_answer(a)).transpose()?;
    Ok(View::Task(TaskLink { id, variant, mode: params.get("mode").cloned(), answer }))
}

fn parse_variant(params: &BTreeMap<String, String>) -> Result<PromptVariant, String> {
    params
        .get("variant")
        .map_or(Ok(PromptVariant::default()), |v| PromptVariant::parse(v).map_err(|e| e.to_string()))
}

fn parse_batch(params: &BTreeMap<String, String>) -> Result<BatchLink, String> {
    let mut b = BatchLink {
        app: params.get("app").cloned(),
        variant: parse_variant(params)?,
        ..BatchLink::default()
    };
    for level in parse_list(params.get("levels")) {
        b.levels.push(level.parse().map_err(|_| format!("bad level {level:?} in the batch link"))?);
    }
    if let Some(seeds) = params.get("seeds") {
        b.seeds = parse_seeds(seeds)?;
    }
    if let Some(k) = params.get("per_seed") {
        b.per_seed =
            k.parse().ok().filter(|k| *k > 0).ok_or(format!("bad per_seed {k:?} in the batch link"))?;
    }
    if let Some(knobs) = params.get("knobs") {
        parse_knobs(knobs)?;
        b.knobs = knobs.clone();
    }
    if let Some(agent) = params.get("agent") {
        b.agent = agent.clone();
    }
    if let Some(t) = params.get("turns") {
        b.max_turns =
            Some(t.parse().ok().filter(|t| *t > 0).ok_or(format!("bad turns {t:?} in the batch link"))?);
    }
    if let Some(j) = params.get("jobs") {
        let bad = || format!("bad jobs {j:?} in the batch link (1..={MAX_BATCH_JOBS})");
        b.jobs = j.parse().ok().filter(|j| (1..=MAX_BATCH_JOBS).contains(j)).ok_or_else(bad)?;
    }
    Ok(b)
}

fn parse_list(value: Option<&String>) -> Vec<String> {
    value.map_or_else(Vec::new, |v| v.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect())
}

/// The fragment for a view, with the leading `#`.
pub fn format(view: &View) -> String {
    match view {
        View::Home | View::NotFound(_) => "#/".into(),
        View::Batch(b) => with_query("#/batch".into(), batch_query(b)),
        View::Compare(runs) if runs.is_empty() => "#/compare".into(),
        View::Compare(runs) => {
            let runs: Vec<String> = runs.iter().map(|r| percent_encode(r)).collect();
            format!("#/compare?runs={}", runs.join(","))
        }
        View::History => "#/history".into(),
        View::Bench => "#/bench".into(),
        View::Adapt(None) => "#/adapt".into(),
        View::Adapt(Some(token)) => format!("#/adapt/{}", percent_encode(token)),
        View::Task(t) => {
            let mut query = Vec::new();
            if t.variant != PromptVariant::default() {
                query.push(format!("variant={}", t.variant.as_str()));
            }
            if let Some(mode) = &t.mode {
                query.push(format!("mode={}", percent_encode(mode)));
            }
            if let Some(answer) = t.answer.as_ref().filter(|a| a.len() <= MAX_LINK_ANSWER) {
                query.push(format!("answer={}", encode_answer(answer)));
            }
            with_query(format!("#/task/{}", t.id), query)
        }
    }
}

fn batch_query(b: &BatchLink) -> Vec<String> {
    let d = BatchLink::default();
    let mut q = Vec::new();
    if let Some(app) = &b.app {
        q.push(format!("app={}", percent_encode(app)));
    }
    if !b.levels.is_empty() {
        let levels: Vec<String> = b.levels.iter().map(u8::to_string).collect();
        q.push(format!("levels={}", levels.join(",")));
    }
    if b.seeds != d.seeds {
        q.push(format!("seeds={}..{}", b.seeds.0, b.seeds.1));
    }
    if b.per_seed != d.per_seed {
        q.push(format!("per_seed={}", b.per_seed));
    }
    if !b.knobs.is_empty() {
        q.push(format!("knobs={}", percent_encode(&b.knobs)));
    }
    if b.agent != d.agent {
        q.push(format!("agent={}", percent_encode(&b.agent)));
    }
    if b.variant != d.variant {
        q.push(format!("variant={}", b.variant.as_str()));
    }
    if let Some(t) = b.max_turns {
        q.push(format!("turns={t}"));
    }
    if b.jobs != d.jobs {
        q.push(format!("jobs={}", b.jobs));
    }
    q
}

fn with_query(mut s: String, query: Vec<String>) -> String {
    if !query.is_empty() {
        s.push('?');
        s.push_str(&query.join("&"));
    }
    s
}

fn parse_query(query: &str) -> BTreeMap<String, String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (percent_decode(k), percent_decode(v)))
        .collect()
}

/// Deflate + base64url of an answer.
pub fn encode_answer(answer: &str) -> String {
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(answer.as_bytes(), 9))
}

/// The inverse of [`encode_answer`], refusing anything that would inflate past the limit.
pub fn decode_answer(encoded: &str) -> Result<String, String> {
    let bad = || "the answer in this link is damaged".to_string();
    let bytes = URL_SAFE_NO_PAD.decode(encoded.as_bytes()).map_err(|_| bad())?;
    let raw =
        miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_LINK_ANSWER).map_err(|_| bad())?;
    String::from_utf8(raw).map_err(|_| bad())
}

/// Everything but the unreserved characters of RFC 3986 is escaped, so a value is safe in any
/// part of a fragment.
const ESCAPED: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// Percent-encodes everything but unreserved characters.
pub fn percent_encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, ESCAPED).to_string()
}

/// Decodes `%XX` escapes and `+` (a space, as forms write it); malformed escapes are kept as
/// written and invalid UTF-8 becomes U+FFFD, so decoding never fails.
pub fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " ")).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str) -> TaskLink {
        TaskLink::new(id.parse().unwrap())
    }

    #[test]
    fn simple_views_round_trip() {
        for view in [
            View::Home,
            View::Batch(BatchLink::default()),
            View::Compare(vec![]),
            View::History,
            View::Bench,
            View::Adapt(None),
            View::Adapt(Some("eJzL-_1".into())),
        ] {
            assert_eq!(parse(&format(&view)), view);
        }
        assert_eq!(parse(""), View::Home);
        assert_eq!(parse("#"), View::Home);
    }

    #[test]
    fn task_links_round_trip_with_settings_and_answer() {
        let mut t = task("route-v1-L2-s42-i7-n3");
        t.variant = PromptVariant::FewshotCot;
        t.mode = Some("paste".into());
        t.answer = Some("r0: ip link set r0-eth1 up\nr0: ip route\n".into());
        let link = format(&View::Task(t.clone()));
        assert!(link.starts_with("#/task/route-v1-L2-s42-i7-n3?variant=fewshot_cot&mode=paste&answer="));
        assert_eq!(parse(&link), View::Task(t));
    }

    #[test]
    fn defaults_are_omitted() {
        assert_eq!(format(&View::Task(task("k8s-v1-L1-s0-i0"))), "#/task/k8s-v1-L1-s0-i0");
    }

    #[test]
    fn long_answers_stay_out_of_links() {
        let mut t = task("malt-v1-L1-s0-i0");
        t.answer = Some("x".repeat(MAX_LINK_ANSWER + 1));
        assert_eq!(format(&View::Task(t)), "#/task/malt-v1-L1-s0-i0");
    }

    #[test]
    fn links_say_what_they_hold() {
        assert_eq!(LinkHolds::of(None), LinkHolds::Task);
        assert_eq!(LinkHolds::of(Some("")), LinkHolds::Task);
        assert_eq!(LinkHolds::of(Some("r0: ip route")), LinkHolds::Answer);
        let long = "x".repeat(10_000);
        assert_eq!(LinkHolds::of(Some(&long)), LinkHolds::TooLong { bytes: 10_000 });
        let words = LinkHolds::of(Some(&long)).describe();
        assert!(words.starts_with("copied the task only") && words.contains("10000 bytes"), "{words}");
        // What is described is what `format` does.
        let mut t = task("route-v1-L1-s0-i0");
        t.answer = Some(long);
        assert_eq!(format(&View::Task(t)), "#/task/route-v1-L1-s0-i0");
    }

    #[test]
    fn bad_links_explain_themselves() {
        let reason = |s| match parse(s) {
            View::NotFound(r) => r,
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(reason("#/nowhere"), "no page at \"/nowhere\"");
        assert!(reason("#/task/route-v1-Lx-s0-i0").starts_with("bad query id"));
        assert!(reason("#/task/route-v1-L1-s0-i0?variant=odd").contains("unknown prompt variant"));
        assert_eq!(reason("#/task/route-v1-L1-s0-i0?answer=%%%"), "the answer in this link is damaged");
        assert_eq!(reason(&"#/x".repeat(10_000)), "the link is too long");
    }

    #[test]
    fn batch_links_round_trip() {
        let b = BatchLink {
            app: Some("route".into()),
            levels: vec![1, 3],
            seeds: (5, 24),
            per_seed: 2,
            knobs: "-n3-fDR+DI".into(),
            agent: "endpoint".into(),
            variant: PromptVariant::ZeroshotCot,
            max_turns: Some(7),
            jobs: 4,
        };
        let link = format(&View::Batch(b.clone()));
        assert_eq!(
            link,
            "#/batch?app=route&levels=1,3&seeds=5..24&per_seed=2&knobs=-n3-fDR%2BDI&agent=endpoint\
             &variant=zeroshot_cot&turns=7&jobs=4"
        );
        assert_eq!(parse(&link), View::Batch(b));
        assert_eq!(format(&View::Batch(BatchLink::default())), "#/batch");
    }

    #[test]
    fn batch_ids_follow_the_cli_interleaved_order() {
        let b = BatchLink {
            levels: vec![2, 1],
            seeds: (7, 8),
            per_seed: 2,
            knobs: "n3".into(),
            ..Default::default()
        };
        let route = crate::registry::app("route").unwrap().info();
        assert_eq!(route.levels.len(), 3);
        let ids: Vec<String> = b.ids(route).unwrap().iter().map(|i| i.to_string()).collect();
        // Seed by seed, every level of a seed together: a batch stopped early mixes levels.
        assert_eq!(ids[0], "route-v1-L2-s7-i0-n3");
        assert_eq!(ids[1], "route-v1-L2-s7-i1-n3");
        assert_eq!(ids[2], "route-v1-L1-s7-i0-n3");
        assert_eq!(ids[4], "route-v1-L2-s8-i0-n3");
        assert_eq!(ids.len(), 8);
        assert_eq!(BatchLink::default().task_count(3), 60);
        let huge = BatchLink { seeds: (0, u64::MAX), ..Default::default() };
        assert!(huge.ids(route).unwrap_err().contains("limited"));
    }

    #[test]
    fn bad_batch_links_explain_themselves() {
        let reason = |s| match parse(s) {
            View::NotFound(r) => r,
            other => panic!("{s}: {other:?}"),
        };
        assert!(reason("#/batch?seeds=9..2").contains("first seed is after the last"));
        assert!(reason("#/batch?seeds=x").contains("bad seeds"));
        assert!(reason("#/batch?levels=1,x").contains("bad level"));
        assert!(reason("#/batch?per_seed=0").contains("bad per_seed"));
        assert!(reason("#/batch?knobs=N3").contains("bad knobs"));
        assert!(reason("#/batch?turns=-1").contains("bad turns"));
        assert!(reason("#/batch?jobs=17").contains("bad jobs"));
    }

    #[test]
    fn compare_links_carry_run_ids() {
        let view = View::Compare(vec!["r1".into(), "run b".into()]);
        assert_eq!(format(&view), "#/compare?runs=r1,run%20b");
        assert_eq!(parse(&format(&view)), view);
    }

    #[test]
    fn percent_coding_round_trips() {
        let s = "a b&c=d/é%";
        assert_eq!(percent_decode(&percent_encode(s)), s);
        assert_eq!(percent_decode("%zz+%41"), "%zz A");
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn parse_never_panics(s in ".{0,200}") {
            let _ = parse(&s);
        }

        #[test]
        fn answers_round_trip(answer in ".{0,300}") {
            prop_assert_eq!(decode_answer(&encode_answer(&answer)).unwrap(), answer);
        }
    }
}
