//! The `scripted` baseline on hand-written observations: what it probes, and the fixes the
//! probes justify (a widened rule replaced in the batch that deletes it, a moved VM moved
//! back, a dropped rule added, a default allow turned off only once nothing depends on it).

use super::scripted;

const GROUPS: &str = "group shop.api: 10.1.0.20
group shop.db: 10.1.0.30 10.1.0.31
group shop.web: 10.1.0.10 10.1.0.11";

/// A listing with these rules and a default.
fn listing(groups: &str, rules: &[&str], default: &str) -> String {
    let rules: Vec<String> = rules.iter().enumerate().map(|(i, r)| format!("rule {}: {r}", i + 1)).collect();
    format!("{groups}\n{}\ndefault {default}", rules.join("\n"))
}

fn batch(lines: &[&str]) -> String {
    format!("```\n{}\n```", lines.join("\n"))
}

const FLOWS_20: &str = "> flows src=10.1.0.20 top=1000
10.1.0.20 → 10.1.0.30 tcp/5432: 40 connections, 9000 bytes
10.1.0.20 → 10.1.0.31 tcp/5432: 7 connections, 900 bytes
> flows dst=10.1.0.20 top=1000
10.1.0.10 → 10.1.0.20 tcp/3000: 50 connections, 7000 bytes";

const FLOWS_30: &str = "> flows src=10.1.0.30 top=1000
no connections
> flows dst=10.1.0.30 top=1000
10.1.0.20 → 10.1.0.30 tcp/5432: 40 connections, 9000 bytes";

#[test]
fn a_widened_rule_is_probed_then_replaced_in_the_batch_that_deletes_it() {
    let rules = ["internet → shop.web tcp/443", "shop.web → shop.api tcp/3000", "shop.api → shop.db tcp/any"];
    let unobserved =
        "Unobserved allow: rule 3 (shop.api → shop.db tcp/any) admits 40 class keys never observed";
    let request = format!("Commands: …\n{}\nReport:\n{unobserved}", listing(GROUPS, &rules, "deny"));
    let probe = ["rule del 3", "check", "rule add shop.api shop.db tcp any at 3"];
    assert_eq!(scripted(&request), batch(&[&probe[..], &["show"]].concat()));
    // The probe shows what rule 3 carries; the ends need profiles before a rule is written.
    let denied = "Denied observed: shop.api 10.1.0.20 → shop.db 10.1.0.30 tcp/5432 (40 connections)";
    let shown = format!("> show\n{}", listing(GROUPS, &rules, "deny"));
    let turn1 = format!(
        "> rule del 3\n> check\n{denied}\n> rule add shop.api shop.db tcp any at 3\n{shown}\nReport:\n{unobserved}"
    );
    let flows = [
        "flows src=10.1.0.20 top=1000",
        "flows dst=10.1.0.20 top=1000",
        "flows src=10.1.0.30 top=1000",
        "flows dst=10.1.0.30 top=1000",
    ];
    assert_eq!(scripted(&turn1), batch(&[&flows[..], &probe[..], &["show"]].concat()));
    let turn2 = format!(
        "{FLOWS_20}\n{FLOWS_30}\n> rule del 3\n> check\n{denied}\n> rule add shop.api shop.db tcp any at 3\n{shown}\n\
         Report:\n{unobserved}"
    );
    assert_eq!(scripted(&turn2), batch(&["rule add shop.api shop.db tcp 5432", "rule del 3", "show"]));
}

#[test]
fn a_vm_in_the_wrong_group_is_moved_back_and_a_dropped_rule_is_added() {
    // 10.1.0.31 (a database) was moved into shop.web; shop.web → shop.api tcp/3000 was dropped.
    let groups =
        "group shop.api: 10.1.0.20\ngroup shop.db: 10.1.0.30\ngroup shop.web: 10.1.0.10 10.1.0.11 10.1.0.31";
    let rules = ["internet → shop.web tcp/443", "shop.api → shop.db tcp/5432"];
    let report = "Report:
Denied observed: shop.web 10.1.0.10 → shop.api 10.1.0.20 tcp/3000 (50 connections)
Denied observed: shop.api 10.1.0.20 → shop.web 10.1.0.31 tcp/5432 (7 connections)";
    let request = format!("{}\n{report}", listing(groups, &rules, "deny"));
    let b = scripted(&request);
    for ip in ["10.1.0.10", "10.1.0.20", "10.1.0.31"] {
        assert!(b.contains(&format!("flows src={ip} top=1000\nflows dst={ip} top=1000")), "{b}");
    }
    let flows = "> flows src=10.1.0.10 top=1000
10.1.0.10 → 10.1.0.20 tcp/3000: 50 connections, 7000 bytes
> flows dst=10.1.0.10 top=1000
198.18.0.9 → 10.1.0.10 tcp/443: 80 connections, 90000 bytes
> flows src=10.1.0.31 top=1000
no connections
> flows dst=10.1.0.31 top=1000
10.1.0.20 → 10.1.0.31 tcp/5432: 7 connections, 900 bytes";
    let turn1 = format!("{flows}\n{FLOWS_20}\n> show\n{}\n{report}", listing(groups, &rules, "deny"));
    assert_eq!(
        scripted(&turn1),
        batch(&[
            "member add shop.db 10.1.0.31",
            "rule add shop.web shop.api tcp 3000",
            "member del shop.web 10.1.0.31",
            "show"
        ])
    );
}

#[test]
fn a_default_allow_goes_only_with_what_it_alone_admitted() {
    let rules = ["internet → shop.web tcp/443"];
    let request = format!(
        "{}\nReport:\nDefault allow: every unmatched key is admitted",
        listing(GROUPS, &rules, "allow")
    );
    assert_eq!(scripted(&request), batch(&["default deny", "check", "default allow", "show"]));
    let denied = "Denied observed: shop.api 10.1.0.20 → shop.db 10.1.0.30 tcp/5432 (40 connections)";
    let turn = |flows: &str| {
        format!(
            "> default deny\n> check\n{denied}\n{flows}> default allow\n> show\n{}\nReport:\nDefault allow: every \
             unmatched key is admitted",
            listing(GROUPS, &rules, "allow")
        )
    };
    // Without profiles it keeps the default and asks for them inside the probe.
    let b = scripted(&turn(""));
    assert!(
        b.starts_with("```\ndefault deny\ncheck\nflows src=10.1.0.20")
            && b.ends_with("default allow\nshow\n```"),
        "{b}"
    );
    let b = scripted(&turn(&format!("{FLOWS_20}\n{FLOWS_30}\n")));
    assert_eq!(b, batch(&["rule add shop.api shop.db tcp 5432", "default deny", "show"]));
}

#[test]
fn a_clean_report_ends_the_episode() {
    assert_eq!(scripted("> show\ndefault deny\nReport:\nNo findings."), batch(&["done"]));
}

#[test]
fn a_moved_vm_is_moved_back_when_its_own_groups_rule_looks_unobserved() {
    // 10.1.0.21 (an api VM) was moved into shop.db. The bastion reached only it of the api VMs,
    // so rule 1 looks unobserved; only rule 1, which names shop.api, keeps that ssh after the
    // move back. Deleting rule 1 instead would deny the bastion's ssh to the other api VMs.
    let groups = "group hub.bastion: 10.0.0.5\ngroup shop.api: 10.1.0.20\n\
                  group shop.db: 10.1.0.30 10.1.0.21\ngroup shop.web: 10.1.0.10";
    let rules = [
        "hub.bastion → shop.api tcp/22",
        "hub.bastion → shop.db tcp/22",
        "shop.web → shop.api tcp/3000",
        "shop.api → shop.db tcp/5432",
    ];
    let denied = "Denied observed: shop.web 10.1.0.10 → shop.db 10.1.0.21 tcp/3000 (50 connections)
Denied observed: shop.db 10.1.0.21 → shop.db 10.1.0.30 tcp/5432 (9 connections)";
    let unobserved =
        "Unobserved allow: rule 1 (hub.bastion → shop.api tcp/22) admits 1 class keys never observed";
    let flows = "> flows src=10.1.0.10 top=1000
10.1.0.10 → 10.1.0.20 tcp/3000: 50 connections, 7000 bytes
10.1.0.10 → 10.1.0.21 tcp/3000: 50 connections, 7000 bytes
> flows dst=10.1.0.10 top=1000
no connections
> flows src=10.1.0.21 top=1000
10.1.0.21 → 10.1.0.30 tcp/5432: 9 connections, 900 bytes
> flows dst=10.1.0.21 top=1000
10.1.0.10 → 10.1.0.21 tcp/3000: 50 connections, 7000 bytes
10.0.0.5 → 10.1.0.21 tcp/22: 1 connections, 300 bytes
> flows src=10.1.0.30 top=1000
no connections
> flows dst=10.1.0.30 top=1000
10.1.0.20 → 10.1.0.30 tcp/5432: 40 connections, 9000 bytes
10.1.0.21 → 10.1.0.30 tcp/5432: 9 connections, 900 bytes";
    let probe = ["rule del 1", "check", "rule add hub.bastion shop.api tcp 22 at 1"];
    let turn = format!(
        "{flows}\n> rule del 1\n> check\n{denied}\n> {}\n> show\n{}\nReport:\n{denied}\n{unobserved}",
        probe[2],
        listing(groups, &rules, "deny")
    );
    let want =
        [&["member add shop.api 10.1.0.21", "member del shop.db 10.1.0.21"][..], &probe[..], &["show"]];
    assert_eq!(scripted(&turn), batch(&want.concat()));
    // Without the profiles nothing is deleted yet: a waiting line may be a moved VM.
    let turn = format!(
        "> rule del 1\n> check\n{denied}\n> {}\n> show\n{}\nReport:\n{denied}\n{unobserved}",
        probe[2],
        listing(groups, &rules, "deny")
    );
    let b = scripted(&turn);
    assert!(
        b.starts_with("```\nflows src=") && b.matches("rule del 1\n").count() == b.matches(probe[2]).count(),
        "{b}"
    );
}
