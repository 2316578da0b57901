//! The query parser: URLs, percent-decoding and resources, by example and by property, and
//! any call with any parameters answering in the envelope without a panic.

use std::sync::OnceLock;

use proptest::prelude::*;

use super::*;

fn task() -> &'static Task {
    static TASK: OnceLock<Task> = OnceLock::new();
    TASK.get_or_init(|| Task::generate(&"bgp-v1-L1-s1-i0".parse().unwrap()).unwrap())
}

/// Percent-encodes every byte but the unreserved ones, hex case chosen by `upper`.
fn encode(s: &str, upper: bool) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ if upper => format!("%{b:02X}"),
            _ => format!("%{b:02x}"),
        })
        .collect()
}

#[test]
fn urls_come_apart_as_curl_sends_them() {
    let u =
        Url::parse("https://stat.ripe.net/data/bgp-updates/data.json?resource=198.18.4.0%2F22&rrcs=0,1&x");
    assert_eq!(u.host, "stat.ripe.net");
    assert_eq!(u.call, "bgp-updates");
    let p = |k: &str, v: &str| (k.to_string(), v.to_string());
    assert_eq!(u.params, vec![p("resource", "198.18.4.0/22"), p("rrcs", "0,1"), p("x", "")]);
    for url in [
        "stat.ripe.net/data/whois",
        "http://stat.ripe.net/data/whois/",
        "https://stat.ripe.net/data/whois/data.json",
    ] {
        assert_eq!(Url::parse(url).call, "whois", "{url}");
    }
    assert_eq!(Url::parse("https://example.com").host, "example.com");
    assert_eq!(Url::parse("https://stat.ripe.net/other/x?").call, "other/x");
}

#[test]
fn a_percent_without_two_hex_digits_stays() {
    assert_eq!(decode("a%2Fb+c"), "a/b c");
    for lit in ["%", "%4", "%+1", "%-1", "%zz", "100%"] {
        assert_eq!(decode(lit), lit.replace('+', " "), "{lit}");
    }
    assert_eq!(decode("%ff"), "\u{fffd}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn decoding_undoes_encoding(s in any::<String>(), upper in any::<bool>()) {
        prop_assert_eq!(decode(&encode(&s, upper)), s);
    }

    #[test]
    fn a_built_url_parses_back(
        call in "[a-z][a-z-]{0,19}",
        params in proptest::collection::vec((".{1,12}", ".{0,16}"), 0..5),
        https in any::<bool>(),
        suffix in prop_oneof![Just(""), Just("/"), Just("/data.json")],
    ) {
        let query: Vec<String> = params.iter().map(|(k, v)| format!("{}={}", encode(k, true), encode(v, false))).collect();
        let scheme = if https { "https://" } else { "http://" };
        let url = format!("{scheme}stat.ripe.net/data/{call}{suffix}?{}", query.join("&"));
        let u = Url::parse(&url);
        prop_assert_eq!(u.host.as_str(), "stat.ripe.net");
        prop_assert_eq!(u.call, call);
        prop_assert_eq!(u.params, params);
    }

    #[test]
    fn resources_print_back(asn in 0u32..u32::MAX, v4 in any::<u32>(), len in 0u8..=32) {
        prop_assert_eq!(Resource::parse(&format!("AS{asn}")), Some(Resource::Asn(asn)));
        prop_assert_eq!(Resource::parse(&asn.to_string()), Some(Resource::Asn(asn)));
        let net = ipnet::Ipv4Net::new(v4.into(), len).unwrap().trunc();
        prop_assert_eq!(Resource::parse(&net.to_string()), Some(Resource::Prefix(net.into())));
        if net.prefix_len() < 32 {
            let host = format!("{}/{}", std::net::Ipv4Addr::from(u32::from(net.network()) | 1), len);
            prop_assert_eq!(Resource::parse(&host), None, "host bits are refused");
        }
    }

    #[test]
    fn any_call_answers_in_the_envelope(
        call in prop_oneof![
            proptest::sample::select(CALLS.iter().map(|c| c.0.to_string()).collect::<Vec<_>>()),
            ".{0,12}",
        ],
        params in proptest::collection::vec((
            prop_oneof![
                proptest::sample::select(vec!["resource", "prefix", "starttime", "endtime", "rrcs", "timestamp", "query_time", "include", "unix_timestamps"]),
                Just("x"),
            ],
            prop_oneof![".{0,24}", "AS6[0-9]{4}", "198\\.18\\.[0-9]{1,3}\\.0/2[0-4]", "[0-9]{1,11}", "2025-0[1-9]-1[0-9]T0[0-9]:00:00"],
        ), 0..4),
    ) {
        let params: Vec<(String, String)> = params.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let (body, ok) = respond(task(), 1, &call, &params, "q");
        let v: Value = serde_json::from_str(&body).expect("JSON");
        prop_assert!(body.starts_with("{\n    \"messages\": "), "{}", body);
        prop_assert_eq!(&v["status"], if ok { "ok" } else { "error" });
        prop_assert_eq!(&v["status_code"], &json!(if ok { 200 } else { 400 }));
        if !ok {
            prop_assert_eq!(&v["data"], &json!({}));
            prop_assert_eq!(&v["messages"][0][0], "error");
        }
    }
}
