//! `iptables` and `iptables-save` (1.8.9, nf_tables back end) on the filter table.

use ipnet::Ipv4Net;

use super::{Ctx, Io, unsupported};
use crate::route::net::addr::{mask_len, parse_aton, parse_iproute};
use crate::route::net::iptables::{self, Chain, ChainId, FilterRule, Neg, RejectWith, Target};

const PREFIX: &str = "iptables v1.8.9 (nf_tables)";
const TRY: &str = "Try `iptables -h' or 'iptables --help' for more information.";

/// The one command of an invocation.
#[derive(Debug, Clone, PartialEq)]
enum Command {
    Append(String),
    Insert(String, Option<String>),
    Delete(String, Option<String>),
    Policy(String, String),
    Flush(Option<String>),
    Zero(Option<String>),
    List(Option<String>),
    Save(Option<String>),
}

#[derive(Debug, Default)]
struct Parsed {
    command: Option<Command>,
    numeric: bool,
    verbose: bool,
    exact: bool,
    line_numbers: bool,
    /// `-L -Z`: list, then zero the counters.
    zero_after: bool,
    rule: RuleArgs,
}

#[derive(Debug, Default)]
struct RuleArgs {
    src: Option<Neg<Ipv4Net>>,
    dst: Option<Neg<Ipv4Net>>,
    proto: Option<Neg<u8>>,
    iif: Option<Neg<String>>,
    oif: Option<Neg<String>>,
    target: Option<String>,
    reject_with: Option<RejectWith>,
    any: bool,
}

/// A usage error: `PREFIX: msg` then the Try line (exit 2).
fn usage(io: &mut Io, msg: &str) -> i32 {
    io.fail(2, &format!("{PREFIX}: {msg}\n{TRY}"))
}

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let p = match parse(args, io) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let Some(command) = p.command.clone() else { return usage(io, "no command specified") };
    match command.clone() {
        Command::List(chain) => list(ctx, io, &p, chain.as_deref()),
        Command::Save(chain) => save_rules(ctx, io, chain.as_deref()),
        Command::Flush(chain) | Command::Zero(chain) => {
            let id = match chain.as_deref().map(|c| known_chain(io, c)).transpose() {
                Ok(id) => id,
                Err(s) => return s,
            };
            let filter = &mut ctx.node_mut().filter;
            if matches!(command, Command::Zero(_)) {
                if id.is_some_and(|c| !filter.chain(c).exists) {
                    return io.fail(1, "iptables: No chain/target/match by that name.");
                }
                filter.zero(id);
            } else {
                for c in ChainId::ALL.into_iter().filter(|c| id.is_none_or(|i| i == *c)) {
                    let chain = filter.chain_mut(c);
                    chain.rules.clear();
                    chain.exists = true;
                }
            }
            0
        }
        Command::Policy(chain, target) => {
            let Some(id) = ChainId::parse(&chain) else {
                return io.fail(1, "iptables: Bad built-in chain name.");
            };
            let policy = match target.as_str() {
                "ACCEPT" => Target::Accept,
                "DROP" => Target::Drop,
                _ => return io.fail(1, "iptables: Bad policy name. Run `dmesg' for more information."),
            };
            let chain = ctx.node_mut().filter.chain_mut(id);
            chain.policy = policy;
            chain.exists = true;
            0
        }
        Command::Append(chain) | Command::Insert(chain, _) | Command::Delete(chain, _) => {
            edit(ctx, io, &p, &command, &chain)
        }
    }
}

/// A chain named on the command line: a built-in one, or the nft back end's complaint.
fn known_chain(io: &mut Io, name: &str) -> Result<ChainId, i32> {
    ChainId::parse(name).ok_or_else(|| io.fail(1, "iptables: No chain/target/match by that name."))
}

fn edit(ctx: &mut Ctx<'_>, io: &mut Io, p: &Parsed, command: &Command, chain: &str) -> i32 {
    let Some(id) = ChainId::parse(chain) else {
        return io.fail(1, "iptables: No chain/target/match by that name.");
    };
    if id == ChainId::Output && p.rule.iif.is_some() {
        return io.fail(2, &format!("{PREFIX}: Can't use -i with OUTPUT\n\n{TRY}"));
    }
    if id == ChainId::Input && p.rule.oif.is_some() {
        return io.fail(2, &format!("{PREFIX}: Can't use -o with INPUT\n\n{TRY}"));
    }
    let index = match command {
        Command::Insert(_, n) | Command::Delete(_, n) => match n.as_deref().map(str::parse::<usize>) {
            None => None,
            Some(Ok(n)) if n > 0 => Some(n),
            Some(_) => return usage(io, &format!("Invalid rule number `{}'", n.as_deref().unwrap_or(""))),
        },
        _ => None,
    };
    if let (Command::Delete(..), Some(n)) = (command, index) {
        if p.rule.any {
            return usage(io, "Illegal option `-s' with this command");
        }
        let chain = ctx.node_mut().filter.chain_mut(id);
        if !chain.exists {
            return io.fail(1, "iptables: No chain/target/match by that name.");
        }
        if n > chain.rules.len() {
            return io.fail(1, "iptables: Index of deletion too big.");
        }
        chain.rules.remove(n - 1);
        return 0;
    }
    let rule = match build_rule(io, &p.rule) {
        Ok(r) => r,
        Err(s) => return s,
    };
    let chain = ctx.node_mut().filter.chain_mut(id);
    let rules = &mut chain.rules;
    match command {
        Command::Delete(..) => match rules.iter().position(|r| *r == rule) {
            Some(i) => {
                rules.remove(i);
            }
            None => return io.fail(1, "iptables: Bad rule (does a matching rule exist in that chain?)."),
        },
        _ if rules.len() >= iptables::MAX_RULES => return io.fail(2, "netpress: table full"),
        Command::Insert(..) => {
            let at = index.unwrap_or(1);
            if at > rules.len() + 1 {
                return io.fail(1, "iptables: Index of insertion too big.");
            }
            rules.insert(at - 1, rule);
        }
        _ => rules.push(rule),
    }
    chain.exists = true;
    0
}

fn build_rule(io: &mut Io, r: &RuleArgs) -> Result<FilterRule, i32> {
    let target = match r.target.as_deref() {
        Some("ACCEPT") => Target::Accept,
        Some("DROP") => Target::Drop,
        Some("REJECT") => Target::Reject(r.reject_with.unwrap_or(RejectWith::Port)),
        Some(
            t @ ("RETURN" | "LOG" | "MASQUERADE" | "SNAT" | "DNAT" | "MARK" | "QUEUE" | "NFQUEUE" | "TRACE"),
        ) => {
            return Err(unsupported(io, &format!("iptables -j {t}")));
        }
        Some(t) => return Err(usage(io, &format!("Chain '{t}' does not exist"))),
        None => return Err(unsupported(io, "iptables rules without -j")),
    };
    Ok(FilterRule {
        src: r.src.clone(),
        dst: r.dst.clone(),
        proto: r.proto.clone(),
        iif: r.iif.clone(),
        oif: r.oif.clone(),
        target,
        packets: 0,
        bytes: 0,
    })
}

/// `A[/P|/MASK]` with host bits masked; names are "not found" (no resolver in the lab).
fn parse_host(text: &str) -> Option<Ipv4Net> {
    let (a, m) = match text.split_once('/') {
        Some((a, m)) => (a, Some(m)),
        None => (text, None),
    };
    let addr = parse_aton(a).or_else(|| parse_iproute(a))?;
    let len = match m {
        None => 32,
        Some(m) if m.contains('.') => mask_len(parse_aton(m)?)?,
        Some(m) => m.parse::<u8>().ok().filter(|l| *l <= 32)?,
    };
    Some(Ipv4Net::new(addr, len).ok()?.trunc())
}

fn parse_proto(text: &str) -> Option<Option<u8>> {
    match text.to_ascii_lowercase().as_str() {
        "all" | "0" => Some(None),
        "icmp" => Some(Some(1)),
        "tcp" => Some(Some(6)),
        "udp" => Some(Some(17)),
        n => n.parse::<u8>().ok().map(Some),
    }
}

/// getopt-style parsing: grouped short flags, `!` before an option, the command's optional
/// chain and number operands.
fn parse(args: &[String], io: &mut Io) -> Result<Parsed, i32> {
    let mut p = Parsed::default();
    let mut i = 0;
    let mut negate = false;
    let value = |i: &mut usize, io: &mut Io, opt: &str| -> Result<String, i32> {
        *i += 1;
        args.get(*i - 1).cloned().ok_or_else(|| usage(io, &format!("option \"{opt}\" requires an argument")))
    };
    let operand = |i: &mut usize| -> Option<String> {
        let next = args.get(*i).filter(|a| !a.starts_with('-') && *a != "!")?;
        *i += 1;
        Some(next.clone())
    };
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if a == "!" {
            negate = true;
            continue;
        }
        let opts: Vec<String> = if a.starts_with("--") || !a.starts_with('-') || a.len() == 1 {
            vec![a.clone()]
        } else {
            a[1..].chars().map(|c| format!("-{c}")).collect()
        };
        for (k, opt) in opts.iter().enumerate() {
            let last = k + 1 == opts.len();
            let needs_value = |io: &mut Io| -> Result<(), i32> {
                if last { Ok(()) } else { Err(usage(io, &format!("option \"{opt}\" requires an argument"))) }
            };
            let neg = std::mem::take(&mut negate);
            match opt.as_str() {
                "-A" | "--append" => {
                    needs_value(io)?;
                    let chain = value(&mut i, io, opt)?;
                    set(&mut p, io, Command::Append(chain))?;
                }
                "-I" | "--insert" => {
                    needs_value(io)?;
                    let chain = value(&mut i, io, opt)?;
                    let n = args.get(i).filter(|x| x.bytes().all(|b| b.is_ascii_digit())).cloned();
                    if n.is_some() {
                        i += 1;
                    }
                    set(&mut p, io, Command::Insert(chain, n))?;
                }
                "-D" | "--delete" => {
                    needs_value(io)?;
                    let chain = value(&mut i, io, opt)?;
                    let n = args.get(i).filter(|x| x.bytes().all(|b| b.is_ascii_digit())).cloned();
                    if n.is_some() {
                        i += 1;
                    }
                    set(&mut p, io, Command::Delete(chain, n))?;
                }
                "-P" | "--policy" => {
                    needs_value(io)?;
                    let chain = value(&mut i, io, opt)?;
                    let target = value(&mut i, io, opt)?;
                    set(&mut p, io, Command::Policy(chain, target))?;
                }
                "-F" | "--flush" => {
                    let c = if last { operand(&mut i) } else { None };
                    set(&mut p, io, Command::Flush(c))?;
                }
                "-Z" | "--zero" => {
                    let c = if last { operand(&mut i) } else { None };
                    if matches!(p.command, Some(Command::List(_))) {
                        p.zero_after = true;
                    } else {
                        set(&mut p, io, Command::Zero(c))?;
                    }
                }
                "-L" | "--list" => {
                    let c = if last { operand(&mut i) } else { None };
                    if let Some(Command::Zero(z)) = p.command.clone() {
                        p.zero_after = true;
                        p.command = Some(Command::List(c.or(z)));
                    } else {
                        set(&mut p, io, Command::List(c))?;
                    }
                }
                "-S" | "--list-rules" => {
                    let c = if last { operand(&mut i) } else { None };
                    set(&mut p, io, Command::Save(c))?;
                }
                "-N" | "-X" | "-E" | "-R" | "--new-chain" | "--delete-chain" | "--rename-chain"
                | "--replace" => {
                    return Err(unsupported(io, &format!("iptables {opt}")));
                }
                "-t" | "--table" => {
                    needs_value(io)?;
                    let t = value(&mut i, io, opt)?;
                    if t != "filter" {
                        return Err(unsupported(io, &format!("iptables -t {t}")));
                    }
                }
                "-n" | "--numeric" => p.numeric = true,
                "-v" | "--verbose" => p.verbose = true,
                "-x" | "--exact" => p.exact = true,
                "--line-numbers" => p.line_numbers = true,
                "-w" | "--wait" => {}
                "-s" | "--source" | "--src" | "-d" | "--destination" | "--dst" => {
                    needs_value(io)?;
                    let v = value(&mut i, io, opt)?;
                    let net =
                        parse_host(&v).ok_or_else(|| usage(io, &format!("host/network `{v}' not found")))?;
                    let m = Some(Neg { value: net, negated: neg });
                    if opt.starts_with("-s") || opt == "--source" || opt == "--src" {
                        p.rule.src = m;
                    } else {
                        p.rule.dst = m;
                    }
                    p.rule.any = true;
                }
                "-p" | "--protocol" => {
                    needs_value(io)?;
                    let v = value(&mut i, io, opt)?;
                    let proto = parse_proto(&v)
                        .ok_or_else(|| usage(io, &format!("unknown protocol \"{v}\" specified")))?;
                    p.rule.proto = proto.map(|value| Neg { value, negated: neg });
                    p.rule.any = true;
                }
                "-i" | "--in-interface" | "-o" | "--out-interface" => {
                    needs_value(io)?;
                    let v = value(&mut i, io, opt)?;
                    let m = Some(Neg { value: v, negated: neg });
                    if opt == "-i" || opt == "--in-interface" {
                        p.rule.iif = m;
                    } else {
                        p.rule.oif = m;
                    }
                    p.rule.any = true;
                }
                "-j" | "--jump" => {
                    needs_value(io)?;
                    p.rule.target = Some(value(&mut i, io, opt)?);
                    p.rule.any = true;
                }
                "--reject-with" if p.rule.target.as_deref() == Some("REJECT") => {
                    let v = value(&mut i, io, opt)?;
                    let with = RejectWith::parse(&v)
                        .ok_or_else(|| usage(io, &format!("unknown reject type \"{v}\"")))?;
                    p.rule.reject_with = Some(with);
                }
                "-m" | "--match" | "-g" | "--goto" | "-f" | "--fragment" | "-c" | "--set-counters" | "-4"
                | "-6" => {
                    return Err(unsupported(io, &format!("iptables {opt}")));
                }
                "-h" | "--help" => return Err(unsupported(io, "iptables -h")),
                _ if !opt.starts_with('-') => return Err(usage(io, &format!("Bad argument `{opt}'"))),
                _ => return Err(usage(io, &format!("unknown option \"{opt}\""))),
            }
        }
    }
    Ok(p)
}

fn set(p: &mut Parsed, io: &mut Io, c: Command) -> Result<(), i32> {
    if p.command.is_some() {
        return Err(usage(io, "Cannot use two commands at once"));
    }
    p.command = Some(c);
    Ok(())
}

fn chains_for(io: &mut Io, name: Option<&str>) -> Result<Vec<ChainId>, i32> {
    match name {
        None => Ok(ChainId::ALL.to_vec()),
        Some(n) => ChainId::parse(n).map(|c| vec![c]).ok_or_else(|| {
            io.fail(1, &format!("{PREFIX}: chain `{n}' in table `filter' is incompatible, use 'nft' tool."))
        }),
    }
}

/// `xtables_print_num`: counters, in K/M/G unless exact.
fn num(n: u64, exact: bool, table: bool) -> String {
    if exact {
        return if table { format!("{n:>8} ") } else { format!("{n} ") };
    }
    if n <= 99_999 {
        return if table { format!("{n:>5} ") } else { format!("{n} ") };
    }
    let mut n = n;
    for unit in ["K", "M", "G"] {
        n = (n + 500) / 1000;
        if n <= 9999 {
            return if table { format!("{n:>4}{unit} ") } else { format!("{n}{unit} ") };
        }
    }
    n = (n + 500) / 1000;
    if table { format!("{n:>4}T ") } else { format!("{n}T ") }
}

fn list(ctx: &mut Ctx<'_>, io: &mut Io, p: &Parsed, chain: Option<&str>) -> i32 {
    let chains = match chains_for(io, chain) {
        Ok(c) => c,
        Err(s) => return s,
    };
    let filter = &ctx.node().filter;
    let mut blocks = Vec::new();
    for id in chains {
        blocks.push(chain_block(id, filter.chain(id), p));
    }
    io.out(&blocks.join("\n"));
    if p.zero_after {
        ctx.node_mut().filter.zero(None);
    }
    0
}

fn chain_block(id: ChainId, chain: &Chain, p: &Parsed) -> String {
    let mut s = format!("Chain {} (policy {}", id.name(), chain.policy.name());
    if p.verbose {
        s.push_str(&format!(
            " {}packets, {}bytes",
            num(chain.packets, p.exact, false),
            num(chain.bytes, p.exact, false)
        ));
    }
    s.push_str(")\n");
    if p.line_numbers {
        s.push_str("num  ");
    }
    if p.verbose {
        s.push_str(if p.exact { "    pkts      bytes " } else { " pkts bytes " });
    }
    s.push_str("target     prot opt");
    if p.verbose {
        s.push_str(" in     out    ");
    }
    s.push_str(" source               destination         \n");
    for (n, r) in chain.rules.iter().enumerate() {
        s.push_str(&row(n + 1, r, p));
    }
    s
}

fn neg<T>(m: &Option<Neg<T>>) -> char {
    if m.as_ref().is_some_and(|m| m.negated) { '!' } else { ' ' }
}

fn addr_text(m: &Option<Neg<Ipv4Net>>, numeric: bool) -> String {
    match m {
        None if !numeric => "anywhere".into(),
        None => "0.0.0.0/0".into(),
        Some(n) if n.value.prefix_len() == 32 => n.value.addr().to_string(),
        Some(n) => format!("{}/{}", n.value.addr(), n.value.prefix_len()),
    }
}

fn proto_text(m: &Option<Neg<u8>>, numeric: bool) -> String {
    let n = m.as_ref().map_or(0, |m| m.value);
    if numeric { n.to_string() } else { iptables::proto_name(n) }
}

fn row(n: usize, r: &FilterRule, p: &Parsed) -> String {
    let mut s = String::new();
    if p.line_numbers {
        s.push_str(&format!("{n:<4} "));
    }
    if p.verbose {
        s.push_str(&num(r.packets, p.exact, true));
        s.push_str(&num(r.bytes, p.exact, true));
    }
    s.push_str(&format!("{:<9} {}{:<5}-- ", r.target.name(), neg(&r.proto), proto_text(&r.proto, p.numeric)));
    if p.verbose {
        let any = if p.numeric { "*" } else { "any" };
        let iface = |m: &Option<Neg<String>>| match m {
            Some(m) => format!("{}{}", if m.negated { "!" } else { "" }, m.value),
            None => any.to_string(),
        };
        s.push_str(&format!(" {:<6} {:<6} ", iface(&r.iif), iface(&r.oif)));
    }
    s.push_str(&format!(
        "{}{:<19} {}{:<19} ",
        neg(&r.src),
        addr_text(&r.src, p.numeric),
        neg(&r.dst),
        addr_text(&r.dst, p.numeric)
    ));
    if let Target::Reject(with) = r.target {
        s.push_str(&format!(" reject-with {}", with.name()));
    }
    s.push('\n');
    s
}

fn save_rules(ctx: &Ctx<'_>, io: &mut Io, chain: Option<&str>) -> i32 {
    let chains = match chains_for(io, chain) {
        Ok(c) => c,
        Err(s) => return s,
    };
    let filter = &ctx.node().filter;
    let mut out = String::new();
    for &id in &chains {
        out.push_str(&format!("-P {} {}\n", id.name(), filter.chain(id).policy.name()));
    }
    for &id in &chains {
        for r in &filter.chain(id).rules {
            out.push_str(&r.save_line(id));
            out.push('\n');
        }
    }
    io.out(&out);
    0
}

/// `iptables-save`: nothing until the node's first successful change.
pub fn save(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    if let Some(a) = args.iter().find(|a| !matches!(a.as_str(), "-c" | "--counters" | "-t" | "filter")) {
        return unsupported(io, &format!("iptables-save {a}"));
    }
    let filter = &ctx.node().filter;
    if !filter.touched() {
        return 0;
    }
    let stamp = "Thu Jan  1 00:00:00 1970";
    let mut out = format!("# Generated by iptables-save v1.8.9 (nf_tables) on {stamp}\n*filter\n");
    for id in ChainId::ALL {
        out.push_str(&format!(":{} {} [0:0]\n", id.name(), filter.chain(id).policy.name()));
    }
    for id in ChainId::ALL {
        for r in &filter.chain(id).rules {
            out.push_str(&r.save_line(id));
            out.push('\n');
        }
    }
    out.push_str(&format!("COMMIT\n# Completed on {stamp}\n"));
    io.out(&out);
    0
}
