//! Object metadata and the virtual clock.
//!
//! Everything time-like is derived from a virtual clock (seconds since the Unix epoch) that
//! is part of the emulator state, so outputs with ages and timestamps are reproducible. The
//! calendar conversion and kubectl's duration rules are written out here because they are a
//! few lines each and pulling a date crate into the wasm bundle for them is not worth it.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::labels::Labels;

/// 2025-01-01T00:00:00Z: the cluster's creation.
pub const CLUSTER_EPOCH: i64 = 1_735_689_600;
/// Workloads are created five minutes later.
pub const WORKLOADS_AT: i64 = CLUSTER_EPOCH + 5 * 60;
/// Policies (with the faults) are applied an hour after the cluster.
pub const POLICIES_AT: i64 = CLUSTER_EPOCH + 60 * 60;
/// The episode starts two minutes after injection.
pub const EPISODE_AT: i64 = CLUSTER_EPOCH + 62 * 60;
/// Each turn advances the clock by this many seconds.
pub const TURN_SECONDS: i64 = 20;
/// The first resourceVersion handed out.
pub const FIRST_RESOURCE_VERSION: u64 = 1000;

/// An owner reference (pods to replica sets, replica sets to deployments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRef {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub name: String,
    pub uid: String,
}

/// `metav1.ObjectMeta`, the parts this cluster uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Meta {
    pub name: String,
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    pub uid: String,
    pub resource_version: u64,
    /// Set for kinds with a spec generation (deployments, replica sets, policies).
    pub generation: Option<u64>,
    pub created: i64,
    pub labels: Labels,
    pub annotations: BTreeMap<String, String>,
    pub generate_name: Option<String>,
    pub owner: Option<OwnerRef>,
}

impl Meta {
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if !self.annotations.is_empty() {
            m.insert("annotations".into(), json!(self.annotations));
        }
        m.insert("creationTimestamp".into(), json!(rfc3339(self.created)));
        if let Some(g) = &self.generate_name {
            m.insert("generateName".into(), json!(g));
        }
        if let Some(g) = self.generation {
            m.insert("generation".into(), json!(g));
        }
        if !self.labels.is_empty() {
            m.insert("labels".into(), json!(self.labels));
        }
        m.insert("name".into(), json!(self.name));
        if !self.namespace.is_empty() {
            m.insert("namespace".into(), json!(self.namespace));
        }
        if let Some(o) = &self.owner {
            m.insert(
                "ownerReferences".into(),
                json!([{
                    "apiVersion": o.api_version,
                    "blockOwnerDeletion": true,
                    "controller": true,
                    "kind": o.kind,
                    "name": o.name,
                    "uid": o.uid,
                }]),
            );
        }
        m.insert("resourceVersion".into(), json!(self.resource_version.to_string()));
        m.insert("uid".into(), json!(self.uid));
        Value::Object(m)
    }
}

/// A stable UUID-shaped uid: SHA-256 of `kind/namespace/name/creation-count`, with the
/// version-4 and variant bits set so it looks like what the API server hands out.
pub fn uid(kind: &str, namespace: &str, name: &str, count: u32) -> String {
    let mut h = Sha256::new();
    for part in [kind, "/", namespace, "/", name, "/", &count.to_string()] {
        h.update(part.as_bytes());
    }
    let digest = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex = crate::hash::hex(&b);
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// Civil date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`, the
/// inverse of `civil`); the BGP tools and the flow-log parsers read timestamps with it.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

struct Parts {
    year: i64,
    month: u32,
    day: u32,
    hour: i64,
    minute: i64,
    second: i64,
    weekday: usize,
}

fn parts(t: i64) -> Parts {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (year, month, day) = civil(days);
    // 1970-01-01 was a Thursday.
    let weekday = (days + 4).rem_euclid(7) as usize;
    Parts { year, month, day, hour: secs / 3600, minute: secs / 60 % 60, second: secs % 60, weekday }
}

/// `2025-01-01T01:00:00Z`, as in `creationTimestamp`.
pub fn rfc3339(t: i64) -> String {
    let p = parts(t);
    format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", p.year, p.month, p.day, p.hour, p.minute, p.second)
}

/// Go's `time.Time.String()` in UTC: `2025-01-01 01:00:00 +0000 UTC`.
pub fn go_time(t: i64) -> String {
    let p = parts(t);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02} +0000 UTC",
        p.year, p.month, p.day, p.hour, p.minute, p.second
    )
}

/// RFC 1123 with numeric zone, as kubectl describe prints times: `Wed, 01 Jan 2025 00:05:00 +0000`.
pub fn rfc1123z(t: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let p = parts(t);
    format!(
        "{}, {:02} {} {:04} {:02}:{:02}:{:02} +0000",
        DAYS[p.weekday],
        p.day,
        MONTHS[p.month as usize - 1],
        p.year,
        p.hour,
        p.minute,
        p.second
    )
}

/// apimachinery's `duration.HumanDuration`, the AGE column.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_string();
    }
    if seconds < 0 {
        return "0s".to_string();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 { format!("{minutes}m") } else { format!("{minutes}m{s}s") };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 { format!("{hours}h") } else { format!("{hours}h{m}m") };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 { format!("{}d", hours / 24) } else { format!("{}d{h}h", hours / 24) };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        let y = hours / 24 / 365;
        return if dy == 0 { format!("{y}y") } else { format!("{y}y{dy}d") };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(CLUSTER_EPOCH), "2025-01-01T00:00:00Z");
        assert_eq!(rfc3339(POLICIES_AT), "2025-01-01T01:00:00Z");
        assert_eq!(go_time(POLICIES_AT), "2025-01-01 01:00:00 +0000 UTC");
        assert_eq!(rfc1123z(WORKLOADS_AT), "Wed, 01 Jan 2025 00:05:00 +0000");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn human_durations_follow_kubectl() {
        let cases = [
            (-5, "<invalid>"),
            (-1, "0s"),
            (119, "119s"),
            (120, "2m"),
            (150, "2m30s"),
            (600, "10m"),
            (3720, "62m"),
            (3 * 3600 + 600, "3h10m"),
            (8 * 3600, "8h"),
            (50 * 3600, "2d2h"),
            (10 * 86400, "10d"),
            (800 * 86400, "2y70d"),
            (3000 * 86400, "8y"),
        ];
        for (s, want) in cases {
            assert_eq!(human_duration(s), want, "{s}");
        }
    }

    #[test]
    fn uids_are_stable_and_uuid_shaped() {
        let a = uid("NetworkPolicy", "default", "adservice", 1);
        assert_eq!(a, uid("NetworkPolicy", "default", "adservice", 1));
        assert_ne!(a, uid("NetworkPolicy", "default", "adservice", 2));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
    }
}
