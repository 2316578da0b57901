//! Our MRT files read by Python's `mrtparse` 2.2.0, a reader written independently of ours and
//! of bgpkit-parser: every record must parse, and the routes and updates it finds, printed as
//! `bgpdump -m` lines by `mrtparse_print.py`, must equal our tool's text with the RIB entries'
//! originated times ([`RibTime::Originated`]).
//!
//! The interpreter is `NETPRESS_MRTPARSE_PYTHON` (scripts/test.sh sets it to the `.venv-mrt`
//! that scripts/setup.sh --test makes); without one that imports mrtparse 2.2, the test says
//! why and skips.

use std::process::Command;

use netpress::QueryId;
use netpress::bgp::task::Task;
use netpress::bgp::tools::bgpdump::{RibTime, dump};
use netpress::bgp::tools::mrt;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bgp/mrtparse_print.py");

/// A Python with mrtparse 2.2, or why there is none.
fn python() -> Result<String, String> {
    let python =
        std::env::var("NETPRESS_MRTPARSE_PYTHON").map_err(|_| "NETPRESS_MRTPARSE_PYTHON is not set")?;
    let probe = "import importlib.metadata as m; print(m.version('mrtparse'))";
    let out = Command::new(&python)
        .args(["-c", probe])
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() && version.starts_with("2.2.") {
        Ok(python)
    } else {
        Err(format!("{python}: mrtparse {version:?}, not 2.2.x"))
    }
}

#[test]
fn mrtparse_reads_our_files_as_bgpdump_prints_them() {
    let python = match python() {
        Ok(p) => p,
        Err(why) => {
            println!("SKIP bgp-mrtparse: {why}");
            return;
        }
    };
    let dir = std::env::temp_dir().join(format!("netpress-mrtparse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut expected = String::new();
    let mut paths = Vec::new();
    // The bgpdump test's sixty tasks and files.
    for id in crate::bgpdump::ids() {
        let task = Task::generate(&id.parse::<QueryId>().unwrap()).unwrap();
        for (_, file) in crate::bgpdump::sample(&task) {
            let path = dir.join(format!("{}.mrt", paths.len()));
            std::fs::write(&path, mrt::bytes(&task, file)).expect("write MRT");
            expected.push_str(&format!("== {}\n{}", path.display(), dump(&task, file, RibTime::Originated)));
            paths.push(path);
        }
    }
    let out = Command::new(&python).arg(SCRIPT).args(&paths).output().expect("python runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "mrtparse: {}", String::from_utf8_lossy(&out.stderr));
    let theirs = String::from_utf8(out.stdout).expect("text");
    if theirs != expected {
        let diff = expected.lines().zip(theirs.lines()).find(|(a, b)| a != b);
        panic!(
            "first difference (ours, mrtparse's): {diff:?}; lines {} and {}",
            expected.lines().count(),
            theirs.lines().count()
        );
    }
    let lines = expected.lines().filter(|l| !l.starts_with("== ")).count();
    assert!(lines > 1000, "a meaningful sample: {lines} lines in {} files", paths.len());
    println!("bgp-mrtparse: {} files, {lines} routes and updates read back equal by mrtparse", paths.len());
}
