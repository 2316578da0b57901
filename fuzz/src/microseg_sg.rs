//! Any bytes as a security-group rendering: no panic; a valid one answers for a few
//! connections and prints back as JSON that validates again.

use std::net::Ipv4Addr;

use netpress::microseg::render::{Proto, Sg, SgDoc};

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(sg) = Sg::from_json(&text) else { return };
    let doc: SgDoc = serde_json::from_str(&text).expect("validated text parses");
    assert!(Sg::from_json(&serde_json::to_string(&doc).unwrap()).is_ok());
    let ips = [Ipv4Addr::new(10, 1, 0, 10), Ipv4Addr::new(10, 1, 0, 41), Ipv4Addr::new(198, 18, 0, 1)];
    for s in ips {
        for d in ips {
            let _ = sg.allows(s, d, Proto::Tcp, 443) || sg.allows(s, d, Proto::Udp, 53);
        }
    }
}
