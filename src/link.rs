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

use crate::app::PromptVariant;
use crate::id::QueryId;

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
    Batch,
    Compare,
    History,
    Bench,
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
    /// A short pasted answer.
    pub answer: Option<String>,
}

impl TaskLink {
    pub fn new(id: QueryId) -> Self {
        TaskLink { id, variant: PromptVariant::default(), mode: None, answer: None }
    }
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
    match segments.as_slice() {
        [] => View::Home,
        ["task", id] => parse_task(id, &params),
        ["batch"] => View::Batch,
        ["compare"] => View::Compare,
        ["history"] => View::History,
        ["bench"] => View::Bench,
        _ => View::NotFound(format!("no page at {path:?}")),
    }
}

fn parse_task(id: &str, params: &BTreeMap<String, String>) -> View {
    let id = match percent_decode(id).parse::<QueryId>() {
        Ok(id) => id,
        Err(e) => return View::NotFound(e.to_string()),
    };
    let variant = match params.get("variant").map(|v| PromptVariant::parse(v)) {
        None => PromptVariant::default(),
        Some(Ok(v)) => v,
        Some(Err(e)) => return View::NotFound(e.to_string()),
    };
    let answer = match params.get("answer").map(|a| decode_answer(a)) {
        None => None,
        Some(Ok(a)) => Some(a),
        Some(Err(e)) => return View::NotFound(e),
    };
    View::Task(TaskLink { id, variant, mode: params.get("mode").cloned(), answer })
}

/// The fragment for a view, with the leading `#`.
pub fn format(view: &View) -> String {
    match view {
        View::Home | View::NotFound(_) => "#/".into(),
        View::Batch => "#/batch".into(),
        View::Compare => "#/compare".into(),
        View::History => "#/history".into(),
        View::Bench => "#/bench".into(),
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
            let mut s = format!("#/task/{}", t.id);
            if !query.is_empty() {
                s.push('?');
                s.push_str(&query.join("&"));
            }
            s
        }
    }
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

/// Percent-encodes everything but unreserved characters.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes and `+`; malformed escapes are kept as written.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |j: usize| bytes.get(j).and_then(|b| (*b as char).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str) -> TaskLink {
        TaskLink::new(id.parse().unwrap())
    }

    #[test]
    fn simple_views_round_trip() {
        for view in [View::Home, View::Batch, View::Compare, View::History, View::Bench] {
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
