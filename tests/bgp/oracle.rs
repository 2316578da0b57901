//! Running BGPy: which Python, whether it has the right package, and one batch of cases.
//!
//! The interpreter is `NETPRESS_BGPY_PYTHON` (a venv's python, so CI decides), else the
//! repository's `.venv-bgpy/bin/python` when it exists. Without either, or without Python
//! 3.10+ and bgpy-pkg 13.0.x in it, [`find`] says why and the test skips.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::case::{Case, Ribs};

const ORACLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bgpy/oracle.py");

const PROBE: &str = "import sys, importlib.metadata as m
assert sys.version_info >= (3, 10), 'python ' + sys.version.split()[0] + ' is older than 3.10'
v = m.version('bgpy-pkg')
assert v.startswith('13.0.'), 'bgpy-pkg ' + v + ' is not 13.0.x'
import bgpy.simulation_engine
print(v)";

/// A usable interpreter and its bgpy-pkg version, or why there is none.
pub fn find() -> Result<(PathBuf, String), String> {
    let python = match std::env::var_os("NETPRESS_BGPY_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => {
            let venv = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.venv-bgpy/bin/python"));
            if !venv.exists() {
                return Err("NETPRESS_BGPY_PYTHON is not set and .venv-bgpy does not exist".into());
            }
            venv
        }
    };
    let out = Command::new(&python)
        .args(["-c", PROBE])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("no output").trim().to_string();
        return Err(format!("{}: {last}", python.display()));
    }
    Ok((python, String::from_utf8_lossy(&out.stdout).trim().to_string()))
}

/// [`find`] for a test: the interpreter and version, or `None` after printing `SKIP <test>:
/// <reason>` (a machine without the venv passes the BGPy tests by skipping them, and says so).
pub fn or_skip(test: &str) -> Option<(PathBuf, String)> {
    find().map_err(|reason| println!("SKIP {test}: {reason}")).ok()
}

/// BGPy's RIBs for each case, in order.
pub fn run(python: &PathBuf, cases: &[Case]) -> Vec<Ribs> {
    let doc = json!({"cases": cases.iter().map(Case::to_json).collect::<Vec<_>>()});
    let mut child = Command::new(python)
        .arg(ORACLE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", python.display()));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let body = doc.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(body.as_bytes()));
    let out = child.wait_with_output().expect("oracle runs");
    writer.join().expect("writer thread").expect("oracle reads its input");
    assert!(out.status.success(), "oracle failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("oracle prints UTF-8");
    let ribs: Vec<Ribs> = text.lines().map(parse_line).collect();
    assert_eq!(ribs.len(), cases.len(), "oracle answered {} of {} cases", ribs.len(), cases.len());
    ribs
}

fn parse_line(line: &str) -> Ribs {
    let v: Value = serde_json::from_str(line).expect("oracle prints JSON lines");
    parse_ribs(&v["ribs"])
}

/// `{"<asn>": {"<prefix>": [path]}}`, as the oracle and tests/bgpy/systest.py print local RIBs.
pub fn parse_ribs(ribs: &Value) -> Ribs {
    let mut out = Ribs::new();
    for (asn, rib) in ribs.as_object().expect("ribs object") {
        let asn: u32 = asn.parse().expect("ASN key");
        for (prefix, path) in rib.as_object().expect("rib object") {
            let path = path.as_array().expect("path array").iter().map(|x| x.as_u64().expect("ASN") as u32);
            out.insert((asn, prefix.clone()), path.collect());
        }
    }
    out
}
