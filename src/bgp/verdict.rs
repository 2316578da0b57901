//! The investigator's verdict: one JSON object, read leniently (docs/bgp.md, "The verdict").
//!
//! Only `incident_type` is required. Types are matched case-insensitively with `-` and spaces
//! read as `_`, and common aliases map to ours (`prefix_hijack` is an exact-prefix hijack,
//! `type6_leak` a more-specific leak); a bare `route_leak` or `hijack` is accepted but names no
//! type. ASNs may be `64533`, `"64533"` or `"AS64533"`; times Unix seconds or ISO 8601; unknown
//! keys are ignored. Anything malformed is an error naming the field.

use std::collections::BTreeSet;

use ipnet::IpNet;
use serde_json::{Map, Value};

use super::tools::time;

/// The incident types a verdict may name (`none` for no incident).
pub const TYPES: &[&str] = &[
    "exact_prefix_hijack",
    "subprefix_hijack",
    "forged_origin_hijack",
    "route_leak_type1",
    "route_leak_type2",
    "route_leak_type3",
    "route_leak_type4",
    "reorigination",
    "more_specific_leak",
    "outage",
    "link_failure",
    "roa_misconfiguration",
    "none",
];

/// Mitigation actions.
pub const ACTIONS: &[&str] =
    &["none", "contact", "filter", "depeer", "roa", "announce_more_specific", "withdraw"];

const ALIASES: &[(&str, &str)] = &[
    ("prefix_hijack", "exact_prefix_hijack"),
    ("origin_hijack", "exact_prefix_hijack"),
    ("exact_hijack", "exact_prefix_hijack"),
    ("sub_prefix_hijack", "subprefix_hijack"),
    ("path_hijack", "forged_origin_hijack"),
    ("hairpin_leak", "route_leak_type1"),
    ("leak_type_1", "route_leak_type1"),
    ("leak_type_2", "route_leak_type2"),
    ("leak_type_3", "route_leak_type3"),
    ("leak_type_4", "route_leak_type4"),
    ("type5_leak", "reorigination"),
    ("type6_leak", "more_specific_leak"),
    ("benign", "none"),
    ("no_incident", "none"),
];

/// Types accepted with no type credit.
const VAGUE: &[&str] = &["route_leak", "hijack"];

/// A mitigation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mitigation {
    pub action: String,
    pub target_asn: Option<u32>,
    pub prefix: Option<IpNet>,
    pub origin: Option<u32>,
    pub max_length: Option<u8>,
}

/// A time field: absent, `null` or a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Absent,
    Null,
    At(u64),
}

/// A read verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// One of [`TYPES`], or `None` for a vague type.
    pub incident_type: Option<&'static str>,
    pub offender_asn: Option<u32>,
    pub link: Option<(u32, u32)>,
    pub victim_prefix: Option<IpNet>,
    pub victim_asn: Option<u32>,
    pub start: When,
    pub end: When,
    pub affected: Option<BTreeSet<u32>>,
    pub mitigation: Option<Mitigation>,
}

/// The schema an error message repeats.
pub const EXPECTED: &str = "expected {\"incident_type\": \"<one of exact_prefix_hijack, subprefix_hijack, forged_origin_hijack, route_leak_type1..4, reorigination, more_specific_leak, outage, link_failure, roa_misconfiguration, none>\", \"offender_asn\": N, \"link\": [A, B], \"victim_prefix\": \"P\", \"victim_asn\": N, \"start_ts\": T, \"end_ts\": T|null, \"affected\": [N, ...], \"mitigation\": {\"action\": \"contact\", \"target_asn\": N}}";

type Field<T> = Result<T, (String, String)>;

fn bad<T>(field: &str, why: impl Into<String>) -> Field<T> {
    Err((field.to_string(), why.into()))
}

/// Reads the verdict object; an error is `<field>: <reason>`.
pub fn parse(obj: &Map<String, Value>) -> Result<Verdict, String> {
    read(obj).map_err(|(f, why)| format!("{f}: {why}"))
}

/// The full rejection line an agent sees.
pub fn rejection(err: &str) -> String {
    format!("Error: verdict rejected: {err}; {EXPECTED}")
}

fn read(o: &Map<String, Value>) -> Field<Verdict> {
    let Some(t) = o.get("incident_type") else { return bad("incident_type", "missing") };
    let Some(t) = t.as_str() else { return bad("incident_type", "must be a string") };
    Ok(Verdict {
        incident_type: incident_type(t)?,
        offender_asn: opt(o, "offender_asn", asn)?,
        link: opt(o, "link", link)?,
        victim_prefix: opt(o, "victim_prefix", prefix)?,
        victim_asn: opt(o, "victim_asn", asn)?,
        start: when(o, "start_ts")?,
        end: when(o, "end_ts")?,
        affected: opt(o, "affected", affected)?,
        mitigation: opt(o, "mitigation", mitigation)?,
    })
}

/// The canonical type of `text`, `None` for a vague one.
pub fn incident_type(text: &str) -> Field<Option<&'static str>> {
    let norm: String =
        text.trim().to_lowercase().chars().map(|c| if c == '-' || c == ' ' { '_' } else { c }).collect();
    if let Some(t) = TYPES.iter().find(|t| **t == norm) {
        return Ok(Some(t));
    }
    if let Some((_, t)) = ALIASES.iter().find(|(a, _)| *a == norm) {
        return Ok(Some(t));
    }
    if VAGUE.contains(&norm.as_str()) {
        return Ok(None);
    }
    bad("incident_type", format!("unknown type {text:?}"))
}

/// A field that may be absent or null.
fn opt<T>(o: &Map<String, Value>, key: &str, f: fn(&str, &Value) -> Field<T>) -> Field<Option<T>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => f(key, v).map(Some),
    }
}

/// `64533`, `"64533"` or `"AS64533"`.
pub fn asn(key: &str, v: &Value) -> Field<u32> {
    let parsed = match v {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => {
            let d = s.trim();
            let d = d.strip_prefix("AS").or_else(|| d.strip_prefix("as")).unwrap_or(d);
            if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) { None } else { d.parse().ok() }
        }
        _ => None,
    };
    parsed.map_or_else(|| bad(key, format!("not an AS number: {}", short(v))), Ok)
}

fn link(key: &str, v: &Value) -> Field<(u32, u32)> {
    match v.as_array().map(Vec::as_slice) {
        Some([a, b]) => Ok((asn(key, a)?, asn(key, b)?)),
        _ => bad(key, "must be a pair of AS numbers [A, B]"),
    }
}

fn prefix(key: &str, v: &Value) -> Field<IpNet> {
    let Some(s) = v.as_str() else { return bad(key, "must be a prefix string") };
    match s.trim().parse::<IpNet>() {
        Ok(p) if p.trunc() == p => Ok(p),
        Ok(_) => bad(key, format!("{s} has host bits set")),
        Err(_) => bad(key, format!("not a prefix: {s}")),
    }
}

fn when(o: &Map<String, Value>, key: &str) -> Field<When> {
    match o.get(key) {
        None => Ok(When::Absent),
        Some(Value::Null) => Ok(When::Null),
        Some(Value::Number(n)) => {
            n.as_u64().map(When::At).map_or_else(|| bad(key, "must be Unix seconds"), Ok)
        }
        Some(Value::String(s)) => {
            time::parse(s.trim()).map(When::At).map_or_else(|| bad(key, format!("not a time: {s}")), Ok)
        }
        Some(other) => bad(key, format!("not a time: {}", short(other))),
    }
}

fn affected(key: &str, v: &Value) -> Field<BTreeSet<u32>> {
    let Some(items) = v.as_array() else { return bad(key, "must be an array of AS numbers") };
    items.iter().map(|x| asn(key, x)).collect()
}

fn mitigation(key: &str, v: &Value) -> Field<Mitigation> {
    let Some(m) = v.as_object() else { return bad(key, "must be an object {\"action\": ...}") };
    let action = match m.get("action").and_then(Value::as_str) {
        Some(a) => a.trim().to_lowercase(),
        None => return bad("mitigation.action", "missing"),
    };
    if !ACTIONS.contains(&action.as_str()) {
        return bad(
            "mitigation.action",
            format!("unknown action {action:?} (one of {})", ACTIONS.join(", ")),
        );
    }
    let max_length = match m.get("max_length") {
        None | Some(Value::Null) => None,
        Some(x) => match x.as_u64().and_then(|n| u8::try_from(n).ok()).filter(|&n| n <= 128) {
            Some(n) => Some(n),
            None => return bad("mitigation.max_length", "must be a prefix length"),
        },
    };
    Ok(Mitigation {
        action,
        target_asn: opt(m, "target_asn", asn)?,
        prefix: opt(m, "prefix", prefix)?,
        origin: opt(m, "origin", asn)?,
        max_length,
    })
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s,
    }
}

/// The verdict object a reply gives, if it gives one: a JSON object with `incident_type`
/// (alone, after `submit`, or under `final_answer`).
pub fn find(reply: &str) -> Option<Map<String, Value>> {
    let (text, _) = crate::reply::bounded(reply);
    for mut o in crate::reply::json_objects(text) {
        if o.contains_key("incident_type") {
            return Some(o);
        }
        if let Some(Value::Object(inner)) = o.remove("final_answer")
            && inner.contains_key("incident_type")
        {
            return Some(inner);
        }
    }
    None
}

#[cfg(test)]
mod tests;
