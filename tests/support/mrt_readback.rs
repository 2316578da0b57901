//! Our MRT files read back by an independent parser, bgpkit-parser, and compared with the text
//! our `bgpdump` tool prints for the same file. Shared, by `#[path]`, between the BGP test
//! binary (a fixed sample of tasks) and the `bgp_mrt` fuzz target (any id and knobs), since
//! neither can import the other.
//!
//! RIB entries are compared with their originated times (`RibTime::Originated`), the time
//! bgpkit-parser gives a RIB entry; the record type and entry kind are blanked on our side,
//! since bgpkit-parser's elements do not carry them.

use bgpkit_parser::BgpkitParser;
use bgpkit_parser::models::ElemType;
use netpress::bgp::task::Task;
use netpress::bgp::tools::bgpdump::{File, RibTime, dump};
use netpress::bgp::tools::mrt;

/// The `bgpdump -m` lines bgpkit-parser's reading of `bytes` amounts to.
fn read_back(bytes: &[u8]) -> String {
    let mut out = String::new();
    for e in BgpkitParser::from_reader(bytes).into_elem_iter() {
        let ts = e.timestamp as u64;
        let kind = if e.timestamp.fract() == 0.0 { "" } else { "fractional time!" };
        match e.elem_type {
            ElemType::WITHDRAW => out
                .push_str(&format!("BGP4MP|{ts}{kind}|W|{}|{}|{}\n", e.peer_ip, e.peer_asn, e.prefix.prefix)),
            ElemType::ANNOUNCE => {
                let comm: Vec<String> = e.communities.iter().flatten().map(|c| c.to_string()).collect();
                let path = e.as_path.as_ref().map(|p| p.to_string()).unwrap_or_default();
                let nh = e.next_hop.map(|n| n.to_string()).unwrap_or_default();
                out.push_str(&format!(
                    "|{ts}{kind}|X|{}|{}|{}|{path}|IGP|{nh}|0|0|{}|NAG||\n",
                    e.peer_ip,
                    e.peer_asn,
                    e.prefix.prefix,
                    comm.join(" ")
                ));
            }
        }
    }
    out
}

/// Our text with the record type and entry kind blanked, as [`read_back`] cannot tell them.
fn normalised(text: &str) -> String {
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.splitn(4, '|').collect();
            match f.as_slice() {
                [_, t, "W", rest] => format!("BGP4MP|{t}|W|{rest}\n"),
                [_, t, _, rest] => format!("|{t}|X|{rest}\n"),
                _ => format!("{l}\n"),
            }
        })
        .collect()
}

/// Whether bgpkit-parser reads `file`'s MRT bytes as our tool prints the file: the number of
/// lines compared, or both readings when they differ.
pub fn agree(task: &Task, file: File) -> Result<usize, (String, String)> {
    let bytes = mrt::bytes(task, file);
    let ours = normalised(&dump(task, file, RibTime::Originated));
    let theirs = read_back(&bytes);
    if theirs == ours { Ok(ours.lines().count()) } else { Err((ours, theirs)) }
}
