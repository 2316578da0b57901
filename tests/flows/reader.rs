//! A round trip through a maintained third-party parser: AWS files we render, read by
//! flowlogs-reader (PyPI) field by field. The interpreter is `NETPRESS_FLOWLOGS_PYTHON` (CI's
//! venv from `scripts/setup.sh --test`), else `.venv-flows/bin/python`; without either, or
//! without the package, the test says why and skips (and fails where `CI` is set).

use std::path::PathBuf;
use std::process::Command;

use netpress::flows::format::{self, Options, Status};
use netpress::flows::tenant::dotted;
use netpress::flows::{Format, Knobs, NO_VM, Scenario};
use serde_json::Value;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/flows/read_aws.py");

fn python() -> Result<PathBuf, String> {
    let python = match std::env::var_os("NETPRESS_FLOWLOGS_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.venv-flows/bin/python")),
    };
    let out = Command::new(&python)
        .args(["-c", "import flowlogs_reader"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!("{}: no flowlogs_reader", python.display()));
    }
    Ok(python)
}

#[test]
fn flowlogs_reader_reads_our_aws_files() {
    let python = match python() {
        Ok(p) => p,
        Err(reason) => {
            // A skip in CI would hide a broken setup step; elsewhere the venv is optional.
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs .venv-flows (scripts/setup.sh --test): {reason}"
            );
            println!("SKIP flowlogs-reader: {reason}");
            return;
        }
    };
    let knobs = Knobs { d: 4, c: 30, ..Knobs::default() };
    let (t, tr) = crate::build("reader-s1", &knobs, &Scenario { churn: vec![], ..Scenario::default() });
    for f in [Format::Aws2, Format::Aws5] {
        let emitted = format::emit(f, &t, &tr, Options::default());
        let text = format::render(f, &t, &tr, &emitted);
        let path =
            std::env::temp_dir().join(format!("netpress-flows-{}-{}.log", f.name(), std::process::id()));
        std::fs::write(&path, &text).unwrap();
        let out = Command::new(&python).arg(SCRIPT).arg(&path).output().unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let theirs: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(theirs.len(), emitted.len(), "{f:?}");
        for (e, v) in emitted.iter().zip(&theirs) {
            let r = &e.record;
            let vm = &tr.vms[e.vm as usize];
            assert_eq!(v["interface_id"], vm.eni.as_str());
            assert_eq!(v["account_id"], t.account.as_str());
            assert_eq!(v["start"], r.t);
            assert_eq!(v["end"], r.t_end);
            assert_eq!(v["version"], if f == Format::Aws5 { 5 } else { 2 });
            if r.status == Status::NoData {
                assert_eq!(v["log_status"], "NODATA");
                assert!(v.get("srcaddr").is_none());
                continue;
            }
            assert_eq!(v["log_status"], "OK");
            assert_eq!(v["srcaddr"], dotted(r.src).as_str());
            assert_eq!(v["dstaddr"], dotted(r.dst).as_str());
            assert_eq!(v["srcport"], r.sport);
            assert_eq!(v["dstport"], r.dport);
            assert_eq!(v["protocol"], r.proto);
            assert_eq!(v["packets"], r.pkts);
            assert_eq!(v["bytes"], r.bytes);
            assert_eq!(v["action"], if r.allow { "ACCEPT" } else { "REJECT" });
            if f == Format::Aws5 {
                assert_ne!(r.instance, NO_VM);
                assert_eq!(v["instance_id"], vm.instance.as_str());
                assert_eq!(v["tcp_flags"], e.extra);
                assert_eq!(v["flow_direction"], if r.inbound { "ingress" } else { "egress" });
                assert_eq!(v["pkt_srcaddr"], dotted(r.src).as_str());
                assert_eq!(v["region"], "us-east-1");
            }
        }
        println!("flowlogs-reader {}: {} records agree", f.name(), theirs.len());
    }
}
