//! Query ids: the short string that names one generated task everywhere (URL, CLI, results).
//!
//! Form: `{app}-v{version}-L{level}-s{seed}-i{index}` followed by zero or more knobs, each
//! `-{key}{value}` where `key` is one lowercase letter and `value` is one or more characters of
//! `[A-Za-z0-9+.]`. Examples: `route-v1-L2-s42-i7`, `route-v1-L3-s0-i1-n9-r2`,
//! `malt-v1-L1-s5-i0-k4x4x16x16`.
//!
//! This module checks only the shape. Which knobs an application accepts, in which order and
//! with which values, is the application's business ([`crate::app::AppInfo::check_id`]); keeping
//! the knobs as written (not as parsed numbers) is what makes `parse → format` the identity.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Longest id accepted; ids travel in URLs and file names.
pub const MAX_ID_LEN: usize = 200;

/// One knob of an id, as written: `-n8` is `Knob { key: 'n', value: "8" }`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Knob {
    pub key: char,
    pub value: String,
}

/// A parsed query id. Ordering and equality are by the written form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QueryId {
    pub app: String,
    pub version: u32,
    pub level: u8,
    pub seed: u64,
    pub index: u64,
    pub knobs: Vec<Knob>,
}

impl QueryId {
    /// An id without knobs.
    pub fn new(app: &str, version: u32, level: u8, seed: u64, index: u64) -> Self {
        QueryId { app: app.to_string(), version, level, seed, index, knobs: Vec::new() }
    }

    /// The value of knob `key`, if the id carries it.
    pub fn knob(&self, key: char) -> Option<&str> {
        self.knobs.iter().find(|k| k.key == key).map(|k| k.value.as_str())
    }

    /// Sets (or replaces) a knob, keeping the knobs in the given key order.
    pub fn with_knob(mut self, key: char, value: impl Into<String>, order: &str) -> Self {
        self.knobs.retain(|k| k.key != key);
        self.knobs.push(Knob { key, value: value.into() });
        self.knobs.sort_by_key(|k| order.find(k.key).unwrap_or(usize::MAX));
        self
    }

    /// The knob suffix as written in the id, e.g. `-n8-m4` (empty without knobs).
    pub fn knob_suffix(&self) -> String {
        self.knobs.iter().map(|k| format!("-{}{}", k.key, k.value)).collect()
    }

    /// The seed material of the per-query RNG: `netpress|{app}|v{N}|L{k}|s{seed}|i{index}`,
    /// then `|{knobs}` (the knob suffix without its leading dash) when `with_knobs` and the id
    /// has knobs. See [`crate::seed`] for how it becomes an RNG.
    pub fn seed_material(&self, with_knobs: bool) -> String {
        let mut s =
            format!("netpress|{}|v{}|L{}|s{}|i{}", self.app, self.version, self.level, self.seed, self.index);
        if with_knobs && !self.knobs.is_empty() {
            s.push('|');
            s.push_str(&self.knob_suffix()[1..]);
        }
        s
    }
}

impl fmt::Display for QueryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}-v{}-L{}-s{}-i{}{}",
            self.app,
            self.version,
            self.level,
            self.seed,
            self.index,
            self.knob_suffix()
        )
    }
}

impl FromStr for QueryId {
    type Err = Error;

    fn from_str(id: &str) -> Result<Self> {
        if id.len() > MAX_ID_LEN {
            return Err(Error::bad_id(&id[..40.min(id.len())], "longer than 200 characters"));
        }
        let mut parts = id.split('-');
        let app = parts.next().unwrap_or_default();
        if app.is_empty() || !app.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
            return Err(Error::bad_id(id, "it must start with an application name such as route"));
        }
        let version = field(id, parts.next(), 'v', "a generator version such as v1")?;
        let level = field(id, parts.next(), 'L', "a level such as L1")?;
        let seed = field(id, parts.next(), 's', "a seed such as s42")?;
        let index = field(id, parts.next(), 'i', "an index such as i0")?;
        let level = u8::try_from(level).map_err(|_| Error::bad_id(id, "level out of range"))?;
        let version = u32::try_from(version).map_err(|_| Error::bad_id(id, "version out of range"))?;
        let knobs = parts.map(|p| parse_knob(id, p)).collect::<Result<Vec<_>>>()?;
        Ok(QueryId { app: app.to_string(), version, level, seed, index, knobs })
    }
}

/// Parses one `{tag}{number}` field in its fixed position.
fn field(id: &str, part: Option<&str>, tag: char, what: &str) -> Result<u64> {
    let part = part.ok_or_else(|| Error::bad_id(id, format!("missing {what}")))?;
    let digits = part
        .strip_prefix(tag)
        .ok_or_else(|| Error::bad_id(id, format!("expected {what}, found {part:?}")))?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::bad_id(id, format!("expected {what}, found {part:?}")));
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return Err(Error::bad_id(id, format!("{part:?} has a leading zero")));
    }
    digits.parse::<u64>().map_err(|_| Error::bad_id(id, format!("{part:?} is too large")))
}

fn parse_knob(id: &str, part: &str) -> Result<Knob> {
    let mut chars = part.chars();
    let key = chars.next().filter(|c| c.is_ascii_lowercase());
    let value = chars.as_str();
    let valid_value =
        !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '.');
    match key {
        Some(key) if valid_value => Ok(Knob { key, value: value.to_string() }),
        _ => Err(Error::bad_id(
            id,
            format!("bad knob {part:?}: a knob is a lowercase letter followed by its value, e.g. -n8"),
        )),
    }
}

impl Serialize for QueryId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for QueryId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_plain_form() {
        let id: QueryId = "route-v1-L2-s42-i7".parse().unwrap();
        assert_eq!(id, QueryId::new("route", 1, 2, 42, 7));
    }

    #[test]
    fn parses_knobs_in_written_order() {
        let id: QueryId = "route-v1-L3-s0-i1-n9-r2-fDR+DI".parse().unwrap();
        assert_eq!(id.knob('n'), Some("9"));
        assert_eq!(id.knob('f'), Some("DR+DI"));
        assert_eq!(id.knob('z'), None);
        assert_eq!(id.to_string(), "route-v1-L3-s0-i1-n9-r2-fDR+DI");
    }

    #[test]
    fn round_trips_examples() {
        for s in
            ["k8s-v1-L1-s0-i0", "malt-v1-L4-s18446744073709551615-i3-k4x4x16x16-t2", "route-v2-L1-s1-i10-t10"]
        {
            assert_eq!(s.parse::<QueryId>().unwrap().to_string(), s);
        }
    }

    #[test]
    fn rejects_malformed_ids_with_a_reason() {
        let cases = [
            ("", "application name"),
            ("route", "missing a generator version"),
            ("route-1-L1-s0-i0", "expected a generator version"),
            ("route-v1-L1-s0", "missing an index"),
            ("route-v1-L1-sx-i0", "expected a seed"),
            ("route-v1-L1-s01-i0", "leading zero"),
            ("route-v1-L300-s0-i0", "level out of range"),
            ("route-v1-L1-s0-i0-N3", "bad knob"),
            ("route-v1-L1-s0-i0-n", "bad knob"),
            ("route-v1-L1-s0-i0-n3/", "bad knob"),
            ("Route-v1-L1-s0-i0", "application name"),
            ("route-v1-L1-s99999999999999999999-i0", "too large"),
        ];
        for (id, reason) in cases {
            let err = id.parse::<QueryId>().unwrap_err().to_string();
            assert!(err.contains(reason), "{id}: {err}");
        }
    }

    #[test]
    fn seed_material_is_documented_form() {
        let id: QueryId = "route-v1-L2-s42-i7-n8-m4".parse().unwrap();
        assert_eq!(id.seed_material(false), "netpress|route|v1|L2|s42|i7");
        assert_eq!(id.seed_material(true), "netpress|route|v1|L2|s42|i7|n8-m4");
    }

    #[test]
    fn with_knob_keeps_declared_order() {
        let id = QueryId::new("route", 1, 1, 0, 0).with_knob('t', "5", "nmrft").with_knob('n', "3", "nmrft");
        assert_eq!(id.to_string(), "route-v1-L1-s0-i0-n3-t5");
    }

    #[test]
    fn serde_uses_the_string_form() {
        let id: QueryId = "k8s-v1-L2-s3-i4".parse().unwrap();
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"k8s-v1-L2-s3-i4\"");
        assert_eq!(serde_json::from_str::<QueryId>(&json).unwrap(), id);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn parse_never_panics(s in ".{0,80}") {
            let _ = s.parse::<QueryId>();
        }

        #[test]
        fn format_parse_round_trip(
            app in "[a-z][a-z0-9]{0,7}", v in 0u32..1000, l in 0u8..=255, seed: u64, index: u64,
            knobs in proptest::collection::vec(("[a-z]", "[A-Za-z0-9+.]{1,6}"), 0..4),
        ) {
            let id = QueryId {
                app, version: v, level: l, seed, index,
                knobs: knobs.into_iter().map(|(k, value)| Knob { key: k.chars().next().unwrap(), value }).collect(),
            };
            let back: QueryId = id.to_string().parse().unwrap();
            prop_assert_eq!(back, id);
        }
    }
}
