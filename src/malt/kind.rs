//! The MALT schema: entity kinds, relationship kinds, attribute values and the allowed edges
//! with their parent cardinalities (docs/malt.md, "The topology").
//!
//! Everything that decides whether a graph is well formed lives here, as data, so the
//! generator, the G API and the safety rules read one table.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An entity kind. The order is the order of [`Kind::ALL`], used for per-kind indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kind {
    #[serde(rename = "EK_JUPITER")]
    Jupiter,
    #[serde(rename = "EK_SUPERBLOCK")]
    Superblock,
    #[serde(rename = "EK_SPINEBLOCK")]
    Spineblock,
    #[serde(rename = "EK_AGG_BLOCK")]
    AggBlock,
    #[serde(rename = "EK_PACKET_SWITCH")]
    PacketSwitch,
    #[serde(rename = "EK_PORT")]
    Port,
    #[serde(rename = "EK_RACK")]
    Rack,
    #[serde(rename = "EK_CHASSIS")]
    Chassis,
    #[serde(rename = "EK_CONTROL_DOMAIN")]
    ControlDomain,
    #[serde(rename = "EK_CONTROL_POINT")]
    ControlPoint,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::Jupiter,
        Kind::Superblock,
        Kind::Spineblock,
        Kind::AggBlock,
        Kind::PacketSwitch,
        Kind::Port,
        Kind::Rack,
        Kind::Chassis,
        Kind::ControlDomain,
        Kind::ControlPoint,
    ];

    /// Kinds that contain something in the base topology (the containers a question may name).
    pub const CONTAINERS: [Kind; 8] = [
        Kind::Jupiter,
        Kind::Superblock,
        Kind::Spineblock,
        Kind::AggBlock,
        Kind::PacketSwitch,
        Kind::Rack,
        Kind::Chassis,
        Kind::ControlDomain,
    ];

    /// Kinds whose children a ranking question may ask about (the first six containers).
    pub const RANK: [Kind; 6] =
        [Kind::Jupiter, Kind::Superblock, Kind::Spineblock, Kind::AggBlock, Kind::PacketSwitch, Kind::Rack];

    /// Roots have no RK_CONTAINS parent.
    pub const ROOTS: [Kind; 3] = [Kind::Jupiter, Kind::Rack, Kind::ControlDomain];

    /// The schema name, e.g. `EK_PORT`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Jupiter => "EK_JUPITER",
            Kind::Superblock => "EK_SUPERBLOCK",
            Kind::Spineblock => "EK_SPINEBLOCK",
            Kind::AggBlock => "EK_AGG_BLOCK",
            Kind::PacketSwitch => "EK_PACKET_SWITCH",
            Kind::Port => "EK_PORT",
            Kind::Rack => "EK_RACK",
            Kind::Chassis => "EK_CHASSIS",
            Kind::ControlDomain => "EK_CONTROL_DOMAIN",
            Kind::ControlPoint => "EK_CONTROL_POINT",
        }
    }

    /// The noun used by the second and third wordings.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Jupiter => "Jupiter fabric",
            Kind::Superblock => "superblock",
            Kind::Spineblock => "spine block",
            Kind::AggBlock => "aggregation block",
            Kind::PacketSwitch => "packet switch",
            Kind::Port => "port",
            Kind::Rack => "rack",
            Kind::Chassis => "chassis",
            Kind::ControlDomain => "control domain",
            Kind::ControlPoint => "control point",
        }
    }

    /// The plural noun (`How many ports …`).
    pub fn plural(self) -> &'static str {
        match self {
            Kind::Jupiter => "Jupiter fabrics",
            Kind::Superblock => "superblocks",
            Kind::Spineblock => "spine blocks",
            Kind::AggBlock => "aggregation blocks",
            Kind::PacketSwitch => "packet switches",
            Kind::Port => "ports",
            Kind::Rack => "racks",
            Kind::Chassis => "chassis",
            Kind::ControlDomain => "control domains",
            Kind::ControlPoint => "control points",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Position in [`Kind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn is_root(self) -> bool {
        Kind::ROOTS.contains(&self)
    }

    /// The valid kinds as one line, for error messages.
    pub fn valid_list() -> String {
        Kind::ALL.map(Kind::as_str).join(", ")
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A relationship kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Rel {
    #[serde(rename = "RK_CONTAINS")]
    Contains,
    #[serde(rename = "RK_CONTROLS")]
    Controls,
}

impl Rel {
    pub const ALL: [Rel; 2] = [Rel::Contains, Rel::Controls];

    pub fn as_str(self) -> &'static str {
        match self {
            Rel::Contains => "RK_CONTAINS",
            Rel::Controls => "RK_CONTROLS",
        }
    }

    pub fn parse(s: &str) -> Option<Rel> {
        Rel::ALL.into_iter().find(|r| r.as_str() == s)
    }

    pub fn valid_list() -> String {
        Rel::ALL.map(Rel::as_str).join(", ")
    }
}

impl fmt::Display for Rel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many parents over one kind of allowed edge a destination node may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parents {
    /// Exactly one (its only container in this tree).
    One,
    /// At most one (a companion container such as a chassis).
    AtMostOne,
}

/// One allowed (rel, source kind, destination kind) edge and its parent cardinality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeRule {
    pub rel: Rel,
    pub src: Kind,
    pub dst: Kind,
    pub parents: Parents,
    /// Rules sharing a group count together: a switch has exactly one block, agg or spine.
    pub group: u8,
}

const fn rule(rel: Rel, src: Kind, dst: Kind, parents: Parents, group: u8) -> EdgeRule {
    EdgeRule { rel, src, dst, parents, group }
}

/// Every allowed edge (docs/malt.md, "The topology"). Nothing else is allowed.
pub const EDGE_RULES: [EdgeRule; 11] = [
    rule(Rel::Contains, Kind::Jupiter, Kind::Superblock, Parents::One, 0),
    rule(Rel::Contains, Kind::Jupiter, Kind::Spineblock, Parents::One, 1),
    rule(Rel::Contains, Kind::Superblock, Kind::AggBlock, Parents::One, 2),
    rule(Rel::Contains, Kind::PacketSwitch, Kind::Port, Parents::One, 3),
    rule(Rel::Contains, Kind::Rack, Kind::Chassis, Parents::One, 4),
    rule(Rel::Contains, Kind::ControlDomain, Kind::ControlPoint, Parents::One, 5),
    rule(Rel::Contains, Kind::AggBlock, Kind::PacketSwitch, Parents::One, 6),
    rule(Rel::Contains, Kind::Spineblock, Kind::PacketSwitch, Parents::One, 6),
    rule(Rel::Contains, Kind::Chassis, Kind::PacketSwitch, Parents::AtMostOne, 7),
    rule(Rel::Contains, Kind::Chassis, Kind::ControlPoint, Parents::AtMostOne, 8),
    rule(Rel::Controls, Kind::ControlPoint, Kind::PacketSwitch, Parents::AtMostOne, 9),
];

/// The rule allowing `src -rel-> dst`, if any.
pub fn edge_rule(rel: Rel, src: Kind, dst: Kind) -> Option<&'static EdgeRule> {
    EDGE_RULES.iter().find(|r| r.rel == rel && r.src == src && r.dst == dst)
}

/// An attribute value: Python `int`, `float`, `str` or `bool`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AttrValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

impl AttrValue {
    /// The value as a number (not for bools, which Python's `True == 1` would blur).
    pub fn as_number(&self) -> Option<f64> {
        match self {
            AttrValue::Int(i) => Some(*i as f64),
            AttrValue::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Equality with the checker's numeric tolerance (docs/malt.md, "Answering and checking"); other values exactly.
    pub fn same(&self, other: &AttrValue) -> bool {
        match (self.as_number(), other.as_number()) {
            (Some(a), Some(b)) => numbers_equal(a, b),
            _ => self == other,
        }
    }

    /// The Python repr, as shown in diffs and tracebacks.
    pub fn py_repr(&self) -> String {
        match self {
            AttrValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            AttrValue::Int(i) => i.to_string(),
            AttrValue::Float(f) => py_float(*f),
            AttrValue::Str(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        }
    }
}

/// Python's `repr` of a float for the values we show (`2.5`, `10.0`, `1e+20`, `inf`, `nan`).
pub fn py_float(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf".into() } else { "-inf".into() }
    } else if f == f.trunc() && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

/// a = b iff |a − b| ≤ 10⁻⁹·max(1, |a|, |b|) (docs/malt.md, "Answering and checking").
pub fn numbers_equal(a: f64, b: f64) -> bool {
    // The relative tolerance of an infinite value is infinite, so a non-finite number would
    // otherwise match every finite one: it equals only itself (and NaN nothing).
    a == b || (a.is_finite() && b.is_finite() && (a - b).abs() <= 1e-9 * 1f64.max(a.abs()).max(b.abs()))
}

/// Whether a name is valid: `[A-Za-z0-9_.-]{1,128}`.
pub fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{}\"", k.as_str()));
            assert_eq!(Kind::ALL[k.index()], k);
        }
        for r in Rel::ALL {
            assert_eq!(Rel::parse(r.as_str()), Some(r));
        }
        assert_eq!(Kind::parse("EK_FOO"), None);
    }

    #[test]
    fn rules_cover_the_table() {
        assert!(edge_rule(Rel::Contains, Kind::Chassis, Kind::ControlPoint).is_some());
        assert!(edge_rule(Rel::Contains, Kind::AggBlock, Kind::Port).is_none());
        assert!(edge_rule(Rel::Controls, Kind::PacketSwitch, Kind::ControlPoint).is_none());
    }

    #[test]
    fn tolerance_and_names() {
        assert!(numbers_equal(15.0, 15.000_000_000_001));
        assert!(!numbers_equal(15.0, 15.1));
        for odd in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            assert!(!numbers_equal(15.0, odd) && !numbers_equal(odd, 15.0), "{odd}");
            assert!(!numbers_equal(1e300, odd), "{odd}");
        }
        assert!(numbers_equal(f64::INFINITY, f64::INFINITY), "an unchanged value is not a change");
        assert!(!numbers_equal(f64::NAN, f64::NAN));
        assert!(AttrValue::Int(15).same(&AttrValue::Float(15.0)));
        assert!(!AttrValue::Bool(true).same(&AttrValue::Int(1)));
        assert!(valid_name("ju1.a1.m1.s2c1-cp"));
        assert!(!valid_name("a b") && !valid_name("") && !valid_name(&"x".repeat(129)));
        assert_eq!(AttrValue::Float(2.5e9).py_repr(), "2500000000.0");
        assert_eq!(AttrValue::Str("it's".into()).py_repr(), "'it\\'s'");
    }
}
