//! Any bytes as an NSG rendering: no panic; a valid one answers for a few connections and
//! prints back as JSON that validates again.

use std::net::Ipv4Addr;

use netpress::microseg::render::{Nsg, NsgDoc, Proto};

pub fn fuzz(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(nsg) = Nsg::from_json(&text) else { return };
    let doc: NsgDoc = serde_json::from_str(&text).expect("validated text parses");
    assert!(Nsg::from_json(&serde_json::to_string(&doc).unwrap()).is_ok());
    let ips = [Ipv4Addr::new(10, 1, 0, 10), Ipv4Addr::new(10, 1, 0, 41), Ipv4Addr::new(198, 18, 0, 1)];
    for s in ips {
        for d in ips {
            let _ = nsg.allows(s, d, Proto::Tcp, 443) || nsg.allows(s, d, Proto::Udp, 53);
        }
    }
}
