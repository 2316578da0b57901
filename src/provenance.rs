//! Where a published number came from. Every file NetPress writes from results (stats, reports,
//! exports) carries a [`Provenance`]: the NetPress version that wrote it, the generator versions
//! and query set behind it, the agents (never their secrets) and the command or settings that
//! produced it. Nothing here reads a clock, so the same inputs and command give the same bytes.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::conversation::AgentInfo;
use crate::record::ResultRecord;

/// One input file, identified by its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    pub path: String,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
    pub records: usize,
}

impl InputFile {
    pub fn new(path: &str, bytes: &[u8], records: usize) -> Self {
        InputFile { path: path.to_string(), sha256: crate::hash::sha256_hex(bytes), records }
    }
}

/// One query as results name it: its id and the content hash that pins its text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct QueryRef {
    pub id: String,
    pub content_hash: String,
}

/// The provenance block of a stats, report or export file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The NetPress build that wrote the file.
    pub netpress_version: String,
    /// The command line (CLI) or the settings (web app) that produced the file.
    pub command: String,
    pub inputs: Vec<InputFile>,
    /// NetPress versions that ran the episodes, as recorded in the results.
    pub recorded_with: Vec<String>,
    /// Generator versions of the queries, e.g. `route-v1`.
    pub generators: Vec<String>,
    /// The agents, with anything that looks like a secret removed.
    pub agents: Vec<AgentInfo>,
    pub episodes: usize,
    /// Distinct queries (id and content hash).
    pub queries: usize,
    /// SHA-256 over the sorted lines `id content_hash`: equal digests, same query set.
    pub query_digest: String,
}

impl Provenance {
    pub fn of_records(records: &[ResultRecord], command: &str, inputs: Vec<InputFile>) -> Self {
        let queries = query_set(records);
        let mut agents: Vec<AgentInfo> = Vec::new();
        for r in records {
            let agent = scrub(&r.agent);
            if !agents.contains(&agent) {
                agents.push(agent);
            }
        }
        Provenance {
            netpress_version: crate::VERSION.to_string(),
            command: command.to_string(),
            inputs,
            recorded_with: distinct(records.iter().map(|r| r.netpress_version.clone())),
            generators: distinct(records.iter().map(|r| generator_of(&r.id, &r.app))),
            agents,
            episodes: records.len(),
            queries: queries.len(),
            query_digest: query_digest(&queries),
        }
    }
}

fn distinct(items: impl Iterator<Item = String>) -> Vec<String> {
    items.collect::<BTreeSet<_>>().into_iter().collect()
}

/// The distinct queries of some results, sorted.
pub fn query_set(records: &[ResultRecord]) -> Vec<QueryRef> {
    let set: BTreeSet<QueryRef> =
        records.iter().map(|r| QueryRef { id: r.id.clone(), content_hash: r.content_hash.clone() }).collect();
    set.into_iter().collect()
}

/// SHA-256 of `id content_hash\n` for each query, in the given (sorted) order.
pub fn query_digest(queries: &[QueryRef]) -> String {
    let mut h = Sha256::new();
    for q in queries {
        h.update(q.id.as_bytes());
        h.update(b" ");
        h.update(q.content_hash.as_bytes());
        h.update(b"\n");
    }
    crate::hash::hex(&h.finalize())
}

/// `app-vN` of a query id (the app alone when the id does not parse).
pub fn generator_of(id: &str, app: &str) -> String {
    id.parse::<crate::QueryId>()
        .map(|q| format!("{}-v{}", q.app, q.version))
        .unwrap_or_else(|_| app.to_string())
}

/// Setting names that hold secrets; such settings are dropped from published agent descriptions.
const SECRET_WORDS: [&str; 6] = ["key", "token", "secret", "password", "authorization", "credential"];

/// An agent description safe to publish. Result records should never hold secrets, but a file
/// someone else wrote may: an endpoint's user-info and query string (`?key=…`) are removed, and
/// settings whose name mentions a key, token, secret, password, authorization or credential.
pub fn scrub(agent: &AgentInfo) -> AgentInfo {
    let mut clean = agent.clone();
    clean.endpoint = agent.endpoint.as_deref().map(scrub_url);
    if let serde_json::Value::Object(map) = &mut clean.settings {
        map.retain(|name, _| {
            let lower = name.to_ascii_lowercase();
            !SECRET_WORDS.iter().any(|w| lower.contains(w))
        });
    }
    clean
}

/// A URL without user-info, query string or fragment.
pub fn scrub_url(url: &str) -> String {
    let cut = url.find(['?', '#']).unwrap_or(url.len());
    let url = &url[..cut];
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}{path}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::tests::sample;

    #[test]
    fn secrets_never_reach_provenance() {
        let mut agent = AgentInfo::new("openai", "m");
        agent.endpoint = Some("https://user:pw@api.example/v1/chat?key=abc#x".into());
        agent.settings = serde_json::json!({"temperature": 0.2, "api_key": "sk-1", "X-Auth-Token": "t"});
        let clean = scrub(&agent);
        assert_eq!(clean.endpoint.as_deref(), Some("https://api.example/v1/chat"));
        assert_eq!(clean.settings, serde_json::json!({"temperature": 0.2}));
        assert_eq!(scrub_url("http://localhost:8080"), "http://localhost:8080");
    }

    #[test]
    fn provenance_of_records() {
        let mut records = vec![
            sample("route-v1-L1-s0-i0", "a", "DI", true, true),
            sample("route-v1-L1-s0-i0", "b", "DI", true, true),
            sample("k8s-v2-L1-s0-i0", "a", "RI", true, true),
        ];
        records[2].netpress_version = "0.0.9".into();
        let p =
            Provenance::of_records(&records, "netpress stats x.jsonl", vec![InputFile::new("x", b"abc", 3)]);
        assert_eq!(p.generators, ["k8s-v2", "route-v1"]);
        assert_eq!(p.recorded_with, ["0.0.9", crate::VERSION]);
        assert_eq!((p.episodes, p.queries, p.agents.len()), (3, 2, 2));
        assert_eq!(p.inputs[0].sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let expected = crate::hash::sha256_hex(
            format!("k8s-v2-L1-s0-i0 {h}\nroute-v1-L1-s0-i0 {h}\n", h = "ab".repeat(32)).as_bytes(),
        );
        assert_eq!(p.query_digest, expected);
        assert_eq!(generator_of("not an id", "x"), "x");
    }
}
