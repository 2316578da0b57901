//! Our MRT files read by the real `bgpdump` (Debian's 1.6.2): `bgpdump -m` of each file must
//! print exactly the text our `bgpdump` tool prints, and so must `bgpdump -m -t change`, whose
//! RIB entry times that build does not read (0, or memory: [`unset_rib_times`]); our tool prints
//! 0 there ([`RibTime::Zero`]).
//!
//! The binary is `NETPRESS_BGPDUMP` (scripts/test.sh sets it after scripts/setup.sh --test
//! installed the package), else `bgpdump` on the PATH. Without one that reports version 1.6,
//! the test says why and skips.

use std::path::{Path, PathBuf};
use std::process::Command;

use netpress::QueryId;
use netpress::bgp::task::Task;
use netpress::bgp::tools::bgpdump::{File, RibTime, dump, lookup};
use netpress::bgp::tools::{mrt, time};

/// A usable bgpdump, or why there is none.
fn find() -> Result<PathBuf, String> {
    let bin = std::env::var_os("NETPRESS_BGPDUMP").map_or_else(|| PathBuf::from("bgpdump"), PathBuf::from);
    // bgpdump has no --version: an unknown option prints the version and the usage.
    let out =
        Command::new(&bin).arg("-!").output().map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let text = String::from_utf8_lossy(&out.stderr);
    match text.lines().find(|l| l.starts_with("bgpdump version ")) {
        Some(v) if v.starts_with("bgpdump version 1.6.") => Ok(bin),
        Some(v) => Err(format!("{}: {v}, not 1.6.x", bin.display())),
        None => Err(format!("{}: no version line", bin.display())),
    }
}

/// Real bgpdump's `-m` (and `-t change`) text of the file at `path`.
fn real(bin: &Path, path: &Path, change: bool) -> String {
    let mut cmd = Command::new(bin);
    cmd.arg("-m");
    if change {
        cmd.args(["-t", "change"]);
    }
    let out = cmd.arg(path).output().expect("bgpdump runs");
    assert!(out.status.success(), "bgpdump {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("bgpdump prints ASCII")
}

/// The first and last RIB dumps and three updates files of each collector: the first, the one
/// holding the incident's start, the last.
pub fn sample(task: &Task) -> Vec<(String, File)> {
    let c = task.world.clock;
    let start = task.incident.start;
    let mut names = vec![format!("bview.{}", time::stamp(c.w0)), format!("bview.{}", time::stamp(c.end()))];
    for t in [c.w0, start - (start - c.w0) % 900, c.end() - 900] {
        names.push(format!("updates.{}", time::stamp(t)));
    }
    let mut out = Vec::new();
    for k in 0..task.world.collectors.count {
        for name in &names {
            let path = format!("rc{k:02}/{name}");
            let file = lookup(task, &path).unwrap_or_else(|| panic!("{}: {path} exists", task.id));
            out.push((path, file));
        }
    }
    out
}

/// Sixty tasks over both generator versions and every level: IPv4 only at L1; IPv6 prefixes and
/// next hops from L2; 32-bit ASNs and exploration from L3; L4's multi-collector worlds (the
/// smallest sizes of L3 and L4, so the sample stays seconds in a debug build). The bgpkit-parser
/// and mrtparse tests read the same files.
pub fn ids() -> Vec<String> {
    let mut out = Vec::new();
    for v in [1, 2] {
        out.extend((0..10).map(|s| format!("bgp-v{v}-L1-s{s}-i0")));
        out.extend((0..10).map(|s| format!("bgp-v{v}-L2-s{s}-i0")));
        out.extend((0..6).map(|s| format!("bgp-v{v}-L3-s{s}-i0-n200")));
        out.extend((0..4).map(|s| format!("bgp-v{v}-L4-s{s}-i0-n600")));
    }
    out
}

#[test]
fn real_bgpdump_prints_our_text() {
    let bin = match find() {
        Ok(b) => b,
        Err(why) => {
            println!("SKIP bgp-mrt: {why}");
            return;
        }
    };
    let dir = std::env::temp_dir().join(format!("netpress-bgpdump-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (mut files, mut lines, mut garbage) = (0, 0, 0);
    for id in ids() {
        let task = Task::generate(&id.parse::<QueryId>().unwrap()).unwrap();
        for (name, file) in sample(&task) {
            let path = dir.join(format!("{files}.mrt"));
            std::fs::write(&path, mrt::bytes(&task, file)).expect("write MRT");
            for (change, rib_time) in [(false, RibTime::Dump), (true, RibTime::Zero)] {
                let ours = dump(&task, file, rib_time);
                let mut theirs = real(&bin, &path, change);
                if change {
                    let (text, n) = unset_rib_times(&theirs);
                    (theirs, garbage) = (text, garbage + n);
                }
                if theirs != ours {
                    let diff = ours.lines().zip(theirs.lines()).find(|(a, b)| a != b);
                    panic!("{id} {name} (-t change: {change}): first difference {diff:?}");
                }
                lines += ours.lines().count();
            }
            files += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(lines > 1000, "a meaningful sample: {lines} lines in {files} files");
    println!(
        "bgp-mrt: {files} files, {lines} lines of -m and -m -t change equal to real bgpdump's \
         ({garbage} RIB times under -t change were not times but memory, read as 0)"
    );
}

/// Real bgpdump 1.6.2's `-m -t change` text with each RIB entry's "time" that is no time at all
/// (more than an MRT time's 32 bits hold) set to 0, and how many there were. That build prints
/// no time it read for a RIB entry in this mode: most entries get 0, and some files get a value
/// that differs from run to run (an address, by its size and its change under address-space
/// randomisation), so a RIB entry's time there carries no information and our tool prints 0
/// (docs/bgp.md, "Against the real bgpdump"). A real time (32 bits, not 0) is left as printed,
/// so the test still fails if a bgpdump prints the originated times; every other field, and
/// every updates line, is compared byte for byte.
fn unset_rib_times(text: &str) -> (String, usize) {
    let mut n = 0;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let rib = line.strip_prefix("TABLE_DUMP2|").and_then(|rest| rest.split_once('|'));
        match rib {
            Some((t, rest)) if t.parse::<u64>().is_ok_and(|t| t > u64::from(u32::MAX)) => {
                n += 1;
                out.push_str("TABLE_DUMP2|0|");
                out.push_str(rest);
            }
            _ => out.push_str(line),
        }
    }
    (out, n)
}
