//! The golden ids: 300 ids across levels, families and knobs, each with its task's content
//! hash, kept in `tests/data/route/golden.txt` and checked, natively and in the browser
//! (wasm-bindgen-test), by [`crate::selfcheck::task_hash_lines`], as every application's are.

use crate::app::App;

use super::RouteApp;

/// The 300 ids, in file order.
pub fn ids() -> Vec<String> {
    let mut ids = Vec::new();
    let labels = |level| RouteApp.labels(level);
    for seed in 0..49 {
        ids.push(format!("route-v1-L1-s{seed}-i0"));
    }
    for (k, f) in labels(1).iter().enumerate() {
        for i in 0..6 {
            ids.push(format!("route-v1-L1-s{}-i{i}-f{f}", 100 + k));
        }
    }
    for n in 2..=8 {
        for m in [1, 4, 2] {
            ids.push(format!("route-v1-L1-s7-i{n}-n{n}-m{m}"));
        }
    }
    for seed in 0..40 {
        ids.push(format!("route-v1-L2-s{seed}-i1"));
    }
    for (k, f) in labels(2).iter().enumerate() {
        for i in 0..2 {
            ids.push(format!("route-v1-L2-s{}-i{i}-n5-f{f}", 200 + k));
        }
    }
    for n in 2..=8 {
        for t in [3, 10, 25] {
            ids.push(format!("route-v1-L2-s9-i{n}-n{n}-m3-t{t}"));
        }
    }
    ids.push("route-v1-L2-s10-i0-m1".into());
    ids.push("route-v1-L2-s10-i1-m4".into());
    ids.push("route-v1-L2-s10-i2-n8-m4".into());
    ids.push("route-v1-L2-s10-i3-t50".into());
    ids.push("route-v1-L2-s10-i4-n2-m1".into());
    ids.push("route-v1-L2-s10-i5-t1".into());
    ids.push("route-v1-L2-s10-i6-n3".into());
    ids.push("route-v1-L2-s10-i7-m2-t7".into());
    ids.push("route-v1-L2-s10-i8-n6".into());
    for seed in 0..40 {
        ids.push(format!("route-v1-L3-s{seed}-i2"));
    }
    for r in 1..=4 {
        for i in 0..5 {
            ids.push(format!("route-v1-L3-s11-i{i}-r{r}"));
        }
    }
    for (k, f) in labels(3).iter().enumerate().step_by(2).take(18) {
        ids.push(format!("route-v1-L3-s{}-i0-f{f}", 300 + k));
    }
    for (n, m, r) in
        [(9, 1, 1), (16, 4, 1), (12, 2, 2), (4, 3, 4), (12, 1, 4), (8, 2, 3), (10, 4, 3), (2, 2, 2)]
    {
        for i in 0..2 {
            ids.push(format!("route-v1-L3-s12-i{i}-n{n}-m{m}-r{r}"));
        }
    }
    ids.push("route-v1-L3-s13-i0-n11".into());
    ids.push("route-v1-L3-s13-i1-m1-t20".into());
    ids.push("route-v1-L3-s13-i2-n5-r2-fDI+RI+WR".into());
    ids.push("route-v1-L3-s13-i3-r3-fDR+DT+WR-t15".into());
    ids.push("route-v1-L3-s13-i4-n9-m2-r1".into());
    ids.push("route-v1-L3-s13-i5-r2-t30".into());
    ids
}

/// `id hash` lines for every golden id (errors in place of hashes where generation fails).
pub fn render() -> String {
    ids().iter().map(|id| format!("{id} {}\n", hash_of(id))).collect()
}

fn hash_of(id: &str) -> String {
    match id.parse().and_then(|q| RouteApp.generate(&q)) {
        Ok(task) => task.card().content_hash.clone(),
        Err(e) => format!("error:{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_hundred_distinct_ids() {
        let ids = ids();
        assert_eq!(ids.len(), 300);
        let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), 300);
    }
}
