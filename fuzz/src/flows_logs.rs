//! Fuzzes the five flow-log parsers: every input parses or gives a `ParseError`, never a panic.
//!
//! The parsers resolve interfaces (AWS) and MAC addresses (Azure) through the tenant's
//! inventory before they read a record's fields, so text parsed against an empty inventory
//! stops at the first lookup and leaves the field and tuple parsing unreached. Each input is
//! therefore parsed against a small real tenant's inventory twice: as it is, and spliced into
//! the head of that tenant's own log in the chosen format (real records whose fields the
//! input then breaks), so the fuzzer starts from lines that get through the lookups.

use std::sync::OnceLock;

use netpress::flows::format::{self, Inventory, Options};
use netpress::flows::{Format, Knobs, Scenario, Tenant, TenantKey, generate};

/// Bytes of each format's log kept as the splice's base: a few dozen records.
const HEAD: usize = 4096;

/// The tenant's inventory and the head of its log in each format (`Format::ALL`'s order).
fn fixture() -> &'static (Inventory, Vec<String>) {
    static F: OnceLock<(Inventory, Vec<String>)> = OnceLock::new();
    F.get_or_init(|| {
        let knobs = Knobs { d: 3, ..Knobs::default() };
        let t = Tenant::new(&TenantKey { app: "fuzz".into(), level: 1, seed: 0, knobs }).expect("tenant");
        let tr = generate(&t, &Scenario::default()).expect("trace");
        let heads = Format::ALL
            .iter()
            .map(|&f| {
                let text = format::render(f, &t, &tr, &format::emit(f, &t, &tr, Options::default()));
                let mut end = HEAD.min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text[..end].to_string()
            })
            .collect();
        (Inventory::new(&tr.vms), heads)
    })
}

pub fn fuzz(data: &[u8]) {
    let [pick, at_hi, at_lo, cut, rest @ ..] = data else { return };
    let (inventory, heads) = fixture();
    let i = usize::from(*pick) % Format::ALL.len();
    let text = String::from_utf8_lossy(rest);
    let _ = format::parse(Format::ALL[i], &text, inventory);
    // The input written over part of a real log: from `at`, `cut` bytes replaced by the input.
    let head = &heads[i];
    let mut at = (usize::from(*at_hi) << 8 | usize::from(*at_lo)) % (head.len() + 1);
    while !head.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + usize::from(*cut)).min(head.len());
    while !head.is_char_boundary(end) {
        end += 1;
    }
    let spliced = format!("{}{text}{}", &head[..at], &head[end..]);
    let _ = format::parse(Format::ALL[i], &spliced, inventory);
}
