//! YAML and JSON input: the parser, kubectl's printers on whatever it yields, and the
//! API server's decoding and validation of a NetworkPolicy, an AdminNetworkPolicy and a
//! BaselineAdminNetworkPolicy must not panic.

use netpress::k8s::admin::decode_admin;
use netpress::k8s::decode::decode_policy;
use netpress::k8s::validate::validate_policy;
use netpress::k8s::yaml::{parse_documents, to_json_pretty, to_yaml};

pub fn fuzz(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(docs) = parse_documents(text) else { return };
    for d in docs {
        let again = parse_documents(&to_yaml(&d)).expect("our YAML reads back");
        assert_eq!(again.first(), Some(&d).filter(|d| !d.is_null()));
        let _ = to_json_pretty(&d);
        if let Ok(mut p) = decode_policy(&d) {
            p.policy.spec.apply_defaults();
            let _ = validate_policy(&p.policy, true);
        }
        let _ = decode_admin(&d);
    }
}
