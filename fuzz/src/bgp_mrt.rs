//! The collectors' MRT files of any task: an id drawn from the input (either generator
//! version, any level, seed and index, any of the size knobs, in range or not) is generated or
//! refused with a message, and one of its listed files, written as MRT, must be read back by
//! bgpkit-parser exactly as our `bgpdump` prints it. The input's tail is also looked up as a
//! file path. No panic, no hang, no disagreement.
//!
//! Sizes are bounded where the cost is, not where the checks are: an explicit `-n` above 200
//! ASes, a level-3 or level-4 task without one (up to 600 and 3,000 ASes), and more than 40
//! vantage points are skipped, so one input stays within the fuzz targets' 10 ms and a campaign
//! explores ids rather than waits on generation. Every level, both versions, and the collector,
//! vantage-point and window knobs stay in reach; families are left to the seed's draw, since
//! forcing one (`-f`) can cost a generation tens of milliseconds of redraws (docs/bgp.md).

use netpress::QueryId;
use netpress::bgp::collectors;
use netpress::bgp::task::Task;
use netpress::bgp::tools::bgpdump::{file_names, lookup};

#[path = "../../tests/support/mrt_readback.rs"]
mod mrt_readback;

/// The most ASes one input may ask for.
const MAX_ASES: u64 = 200;

pub fn fuzz(data: &[u8]) {
    let Some((head, tail)) = data.split_first_chunk::<12>() else { return };
    let Some(id) = id(head) else { return };
    let Ok(id) = id.parse::<QueryId>() else { return };
    let Ok(task) = Task::generate(&id) else { return };
    let _ = std::str::from_utf8(tail).map(|path| lookup(&task, path));
    let k = usize::from(head[10]) % task.world.collectors.count;
    let names = file_names(&task);
    let name = &names[usize::from(head[11]) % names.len()];
    let path = format!("{}/{name}", collectors::name(k));
    let file = lookup(&task, &path).unwrap_or_else(|| panic!("{id}: the listed {path} is not found"));
    if let Err((ours, theirs)) = mrt_readback::agree(&task, file) {
        panic!("{id} {path}: bgpkit-parser reads\n{theirs}\nwhere our bgpdump prints\n{ours}");
    }
}

/// The id the first ten bytes spell (byte 6 is unused): version, level, seed, index, then each knob when its bit
/// in byte 0 is set, with a value from its own byte (out of range on purpose sometimes).
fn id(b: &[u8; 12]) -> Option<String> {
    let level = 1 + b[0] % 4;
    let version = 1 + (b[0] >> 2) % 2;
    let seed = u32::from_le_bytes([b[1], b[2], b[3], 0]);
    let index = b[4] % 8;
    let mut id = format!("bgp-v{version}-L{level}-s{seed}-i{index}");
    let ases = u64::from(b[5]);
    if b[0] & 0x08 != 0 {
        if ases > MAX_ASES {
            return None;
        }
        id.push_str(&format!("-n{ases}"));
    } else if level >= 3 {
        return None;
    }
    for (bit, key, value) in [(0x10, 'c', b[7] % 10), (0x20, 'v', b[8] % 41), (0x40, 'w', b[9] % 50)] {
        if b[0] & bit != 0 {
            id.push_str(&format!("-{key}{value}"));
        }
    }
    Some(id)
}
