//! The parser against the documented texts, and round trips of arbitrary commands.

use proptest::prelude::*;

use super::*;

fn err(line: &str) -> String {
    parse_command(line).unwrap_err().to_string()
}

#[test]
fn every_command_parses() {
    let lines = [
        "show",
        "show rules",
        "show groups",
        "show group shop.db",
        "check",
        "flows src~10.1.0.0/16 dport=5432 by=src,dst top=5",
        "group new shop-cache",
        "group del shop-cache",
        "member add shop.db 10.1.0.41 10.1.0.42",
        "member del shop.db 10.1.0.41",
        "rule add shop.api shop.db tcp 5432",
        "rule add internet 10.1.0.0/24 tcp 80,443,8000-8080 at 1",
        "rule del 3",
        "rule set 2 ports any",
        "rule set 2 src admin",
        "default deny",
        "default allow",
        "done",
    ];
    for line in lines {
        let c = parse_command(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(c.to_string(), line);
    }
    assert_eq!(parse_command("rule add a b tcp 22").unwrap().to_string(), "rule add a b tcp 22");
    // A bare address is its /32.
    assert_eq!(parse_command("rule set 1 dst 10.0.0.1").unwrap().to_string(), "rule set 1 dst 10.0.0.1/32");
}

#[test]
fn each_error_has_its_text() {
    let cases = [
        (
            "frobnicate",
            "error: unknown command 'frobnicate' (show, check, flows, group, member, rule, default, done)",
        ),
        ("check now", "error: usage: check"),
        ("show everything", "error: usage: show [rules|groups|group NAME]"),
        ("group new", "error: usage: group new NAME | group del NAME"),
        ("group new DB", "error: bad group name 'DB' (a lowercase letter, then up to 62 of a-z 0-9 _ . -)"),
        ("group new internet", "error: 'internet' is a reserved group"),
        ("member add db", "error: usage: member add GROUP IP... | member del GROUP IP..."),
        ("member add db 10.0.0.300", "error: bad address '10.0.0.300' (an IPv4 address such as 10.1.0.23)"),
        ("rule add a b icmp 1", "error: bad protocol 'icmp' (tcp, udp or any)"),
        ("rule add a b tcp 70000", "error: bad ports '70000' (N, A-B or any, 1..65535)"),
        ("rule add a b tcp 90-80", "error: bad ports '90-80' (N, A-B or any, 1..65535)"),
        ("rule add a b tcp 0", "error: bad ports '0' (N, A-B or any, 1..65535)"),
        (
            "rule add A b tcp 1",
            "error: bad endpoint 'A' (a group, a reserved group or a CIDR such as 10.1.0.0/24)",
        ),
        ("rule add a b tcp 1 at 0", "error: bad rule number '0' (1, 2, …)"),
        ("rule del x", "error: bad rule number 'x' (1, 2, …)"),
        (
            "rule set 1 color red",
            "error: usage: rule add SRC DST PROTO PORTS [at N] | rule del N | rule set N src|dst|proto|ports VALUE",
        ),
        ("default permit", "error: usage: default deny|allow"),
        ("flows src", "error: bad flows argument 'src' (col=VALUE, col~CIDR, by=col,… or top=N)"),
        ("flows top=0", "error: bad top '0' (1..1000)"),
        ("flows proto~10.0.0.0/8", "error: 'proto' is not an address column (vantage, src, dst)"),
        (
            "flows by=src by=dst",
            "error: bad flows argument 'by=dst' (col=VALUE, col~CIDR, by=col,… or top=N)",
        ),
    ];
    for (line, want) in cases {
        assert_eq!(err(line), want, "{line}");
    }
    assert!(err("flows color=red").starts_with("error: unknown column 'color' (columns: i, t, t_end,"));
}

#[test]
fn a_reply_runs_its_first_block_until_a_bad_line() {
    let reply = "Let me fix it.\n```\nshow rules\n\n# drop the broad one\nrule del 7\nrule del x\ncheck\n```\n```\ndone\n```";
    let b = parse_reply(reply);
    assert_eq!(b.commands, vec![Command::Show(Show::Rules), Command::RuleDel(7)]);
    assert_eq!(b.error.unwrap().to_string(), "error: bad rule number 'x' (1, 2, …)");
    assert_eq!(parse_reply("check").error, Some(RepairError::NoBlock));
    let long = format!("```\n{}```", "check\n".repeat(33));
    assert_eq!(parse_reply(&long), Batch { commands: vec![], error: Some(RepairError::TooManyLines(33)) });
    let full = format!("```\n{}```", "check\n".repeat(32));
    assert_eq!(parse_reply(&full).commands.len(), 32);
}

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_.-]{0,20}".prop_filter("not reserved", |n| !RESERVED_GROUPS.contains(&n.as_str()))
}

fn endpoint() -> impl Strategy<Value = Endpoint> {
    prop_oneof![
        "[a-z][a-z0-9_.-]{0,20}".prop_map(Endpoint::Group),
        (any::<u32>(), 0u8..=32).prop_map(|(a, l)| Endpoint::Cidr(ipnet::Ipv4Net::new(a.into(), l).unwrap())),
    ]
}

fn ports() -> impl Strategy<Value = Ports> {
    let port = prop_oneof![
        (1u16..).prop_map(Port::One),
        (1u16.., 1u16..).prop_map(|(a, b)| Port::Range(a.min(b), a.max(b))),
        Just(Port::Any),
    ];
    prop::collection::vec(port, 1..5).prop_map(Ports)
}

fn proto() -> impl Strategy<Value = RuleProto> {
    prop_oneof![Just(RuleProto::Tcp), Just(RuleProto::Udp), Just(RuleProto::Any)]
}

fn command() -> impl Strategy<Value = Command> {
    let rule = (endpoint(), endpoint(), proto(), ports()).prop_map(|(src, dst, proto, ports)| RuleSpec {
        src,
        dst,
        proto,
        ports,
    });
    let field = prop_oneof![
        endpoint().prop_map(RuleField::Src),
        endpoint().prop_map(RuleField::Dst),
        proto().prop_map(RuleField::Proto),
        ports().prop_map(RuleField::Ports),
    ];
    let ips = prop::collection::vec(any::<u32>().prop_map(std::net::Ipv4Addr::from), 1..4);
    let filter = prop_oneof![
        (prop::sample::select(&crate::flows::table::COLUMNS[..]), "[!-~]{1,8}")
            .prop_map(|(c, v)| Filter::Equals { column: c.into(), value: v }),
        (prop::sample::select(&["src", "dst", "vantage"][..]), any::<u32>(), 0u8..=32).prop_map(
            |(c, a, l)| Filter::Within { column: c.into(), net: ipnet::Ipv4Net::new(a.into(), l).unwrap() }
        ),
    ];
    let by = prop::collection::vec(
        prop::sample::select(&crate::flows::table::COLUMNS[..]).prop_map(String::from),
        0..3,
    );
    let flows = (prop::collection::vec(filter, 0..3), by, prop::option::of(1usize..=1000))
        .prop_map(|(filters, by, top)| Command::Flows(FlowsQuery { filters, by, top }));
    prop_oneof![
        prop_oneof![
            Just(Show::All),
            Just(Show::Rules),
            Just(Show::Groups),
            endpoint_name().prop_map(Show::Group)
        ]
        .prop_map(Command::Show),
        Just(Command::Check),
        Just(Command::Done),
        flows,
        name().prop_map(Command::GroupNew),
        name().prop_map(Command::GroupDel),
        (name(), ips.clone()).prop_map(|(group, ips)| Command::MemberAdd { group, ips }),
        (name(), ips).prop_map(|(group, ips)| Command::MemberDel { group, ips }),
        (rule, prop::option::of(1usize..1000)).prop_map(|(rule, at)| Command::RuleAdd { rule, at }),
        (1usize..1000).prop_map(Command::RuleDel),
        (1usize..1000, field).prop_map(|(index, field)| Command::RuleSet { index, field }),
        any::<bool>().prop_map(|deny| Command::Default { deny }),
    ]
}

fn endpoint_name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_.-]{0,20}"
}

proptest! {
    #[test]
    fn display_round_trips(c in command()) {
        let line = c.to_string();
        prop_assert_eq!(parse_command(&line), Ok(c), "{}", line);
    }

    #[test]
    fn any_text_is_a_command_or_one_error_line(text in "\\PC{0,80}") {
        match parse_command(&text) {
            Ok(c) => prop_assert_eq!(parse_command(&c.to_string()), Ok(c)),
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.starts_with("error: ") && !msg.contains('\n'), "{}", msg);
            }
        }
    }

    #[test]
    fn lines_near_the_grammar_never_panic(words in prop::collection::vec(prop_oneof![
        Just("rule"), Just("add"), Just("set"), Just("del"), Just("at"), Just("1"), Just("tcp"), Just("80-90,any"),
        Just("group"), Just("member"), Just("new"), Just("10.0.0.1"), Just("flows"), Just("top=3"), Just("src~1.2.3.4/8"),
    ], 0..8)) {
        let _ = parse_command(&words.join(" "));
    }
}
