//! Golden files, and the one way to re-record them: `NETPRESS_BLESS=1 cargo test`.
//!
//! A golden file pins what a build produces (content hashes, command outputs, prompt
//! digests) so that any change to it is seen in review. Every golden test reads its file
//! through [`golden`]; with `NETPRESS_BLESS=1` in the environment the test first writes what
//! this build produces, so after an intended change one command rewrites every file the
//! filtered tests cover, and `git diff` shows what moved. Without it the file is only read,
//! and a missing or unwritable file fails the test rather than being created silently.
//!
//! Each test binary includes this file as a module (`#[path]`), since test binaries cannot
//! share a crate of their own without one more build for the whole library.
#![allow(dead_code)] // not every binary has golden files of every shape

use std::path::Path;

/// Whether this run re-records golden files: `NETPRESS_BLESS` is set to `1`.
pub fn blessing() -> bool {
    std::env::var_os("NETPRESS_BLESS").is_some_and(|v| v == "1")
}

/// The committed text of the golden file at `path` (relative to the package root, or
/// absolute). When [`blessing`], `actual` is rendered and written there first, so the caller's
/// comparison then holds by construction and the diff is left for review.
pub fn golden(path: &str, actual: impl FnOnce() -> String) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if blessing() {
        std::fs::write(&path, actual()).unwrap_or_else(|e| panic!("bless {}: {e}", path.display()));
    }
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("golden file {}: {e}", path.display()))
}

/// Checks `ids` against the golden file of their content hashes at `path` (`id<TAB>hash` lines,
/// [`netpress::selfcheck::hash_lines`]): the ids are distinct, the file lists exactly them in
/// order, and every hash is what this build generates. Blessing writes the file first.
pub fn content_hashes(path: &str, ids: &[String]) {
    use netpress::selfcheck::{hash_lines, task_hash_lines};
    let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "ids are distinct");
    let data = golden(path, || hash_lines(ids).unwrap_or_else(|e| panic!("{e}")));
    let listed: Vec<&str> = data.lines().map(|l| l.split('\t').next().unwrap_or_default()).collect();
    assert_eq!(listed, ids, "the file lists the golden ids in order");
    assert_eq!(task_hash_lines(&data), Ok(ids.len()));
}
