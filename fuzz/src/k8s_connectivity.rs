//! `netpress k8s connectivity` on arbitrary input (manifests with lists, owners, IP blocks,
//! NetworkPolicies, AdminNetworkPolicies and a BaselineAdminNetworkPolicy): reading,
//! validation, the layered evaluation and every output format must not panic, and the
//! formats must agree on the number of connections.

use netpress::app::App;
use netpress::k8s::K8sApp;

fn run(args: &[&str], input: &[u8]) -> (i32, String) {
    let tool = K8sApp.tools().iter().find(|t| t.name == "connectivity").expect("the analyzer is registered");
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = (tool.run)(&args, &mut &input[..], &mut out, &mut err);
    (code, String::from_utf8(out).expect("the report is UTF-8"))
}

pub fn fuzz(data: &[u8]) {
    let (code, txt) = run(&["-f", "-"], data);
    if code != 0 {
        return;
    }
    let (_, csv) = run(&["-f", "-", "-o", "csv"], data);
    let (_, md) = run(&["-f", "-", "-o", "md"], data);
    assert_eq!(md.lines().count(), txt.lines().count() + 2, "one table row per line");
    assert!(csv.lines().count() > txt.lines().count(), "a header and at least one row per line");
    let (code, _) = run(&["-f", "-", "-o", "json", "--strict"], data);
    assert!(code == 0 || code == 1);
}
