//! The 300 golden ids: for each of three knob sets, 100 ids cycling through the 18 families;
//! [`ids`] in generator version v1, [`ids_v2`] the same in v2.
//! Shared by the native and the wasm golden tests (not a test of its own).

use netpress::malt::Family;

pub fn ids() -> Vec<String> {
    let mut ids = Vec::new();
    for (k, knob) in ["", "-k2x2x4x4", "-k8x8x32x32-t5"].into_iter().enumerate() {
        for i in 0..100u64 {
            let family = Family::ALL[i as usize % Family::ALL.len()];
            let pos = Family::of_level(family.level()).iter().position(|f| *f == family).unwrap_or(0) as u64;
            let seed = 1000 * k as u64 + i / Family::ALL.len() as u64;
            let index = pos + Family::of_level(family.level()).len() as u64 * (i % 3);
            ids.push(format!("malt-v1-L{}-s{seed}-i{index}{knob}", family.level()));
        }
    }
    ids
}

/// The golden ids in generator version v2 (level 4's wordings changed; seeds differ with the id).
pub fn ids_v2() -> Vec<String> {
    ids().into_iter().map(|id| id.replacen("malt-v1-", "malt-v2-", 1)).collect()
}
