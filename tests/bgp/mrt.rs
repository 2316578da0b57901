//! Our MRT files read back by an independent parser, bgpkit-parser: every record parses, and the
//! routes and updates it finds, printed as `bgpdump -m` lines, equal the text our `bgpdump` tool
//! prints for the same file (RIB entries with their originated times, `RibTime::Originated`,
//! since that is the time bgpkit-parser gives a RIB entry).

use netpress::QueryId;
use netpress::bgp::task::Task;
use netpress::bgp::tools::bgpdump::File;

#[path = "../support/mrt_readback.rs"]
mod mrt_readback;

fn check(task: &Task, file: File, name: &str) -> usize {
    mrt_readback::agree(task, file).unwrap_or_else(|(ours, theirs)| {
        panic!("{} {name}: bgpkit-parser reads\n{theirs}\nwhere our bgpdump prints\n{ours}", task.id)
    })
}

#[test]
fn bgpkit_parser_reads_our_files_as_bgpdump_prints_them() {
    let (mut lines, mut files) = (0, 0);
    for id in crate::bgpdump::ids() {
        let task = Task::generate(&id.parse::<QueryId>().unwrap()).unwrap();
        for (name, file) in crate::bgpdump::sample(&task) {
            lines += check(&task, file, &name);
            files += 1;
        }
    }
    assert!(lines > 1000, "a meaningful sample: {lines} lines in {files} files");
    println!("bgp-mrt: {files} files, {lines} routes and updates read back equal by bgpkit-parser");
}
