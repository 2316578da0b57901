//! From a reply to commands: the first fenced block, one command per non-blank line, stopping
//! at the first line that does not parse.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use super::ast::{Command, Endpoint, Filter, FlowsQuery, Port, Ports, RuleField, RuleProto, RuleSpec, Show};
use super::error::RepairError;
use crate::flows::table::COLUMNS;

/// Most command lines in one turn's block.
pub const MAX_LINES: usize = 32;
/// The names a policy may use in rules but not define (the external endpoints).
pub const RESERVED_GROUPS: [&str; 6] = ["internet", "admin", "lb", "storage", "telemetry", "any"];
const MAX_TOP: usize = 1000;
const MAX_PORT_ITEMS: usize = 64;

/// One turn's commands: those before the first bad line, and that line's error. A reply
/// without a block, or with too many lines, runs nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    pub commands: Vec<Command>,
    pub error: Option<RepairError>,
}

/// The commands of a reply's first fenced block; blank lines and `#` comments are skipped.
pub fn parse_reply(reply: &str) -> Batch {
    let Some(fence) = crate::reply::fenced_blocks(reply).into_iter().next() else {
        return Batch { commands: Vec::new(), error: Some(RepairError::NoBlock) };
    };
    let lines: Vec<&str> =
        fence.body.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    if lines.len() > MAX_LINES {
        return Batch { commands: Vec::new(), error: Some(RepairError::TooManyLines(lines.len())) };
    }
    let mut commands = Vec::new();
    for line in lines {
        match parse_command(line) {
            Ok(c) => commands.push(c),
            Err(e) => return Batch { commands, error: Some(e) },
        }
    }
    Batch { commands, error: None }
}

/// One command line.
pub fn parse_command(line: &str) -> Result<Command, RepairError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (&verb, args) = words.split_first().ok_or(RepairError::Usage("a command per line"))?;
    match verb {
        "show" => show(args),
        "check" => no_args(args, Command::Check, "check"),
        "done" => no_args(args, Command::Done, "done"),
        "flows" => flows(args).map(Command::Flows),
        "group" => group(args),
        "member" => member(args),
        "rule" => rule(args),
        "default" => match args {
            ["deny"] => Ok(Command::Default { deny: true }),
            ["allow"] => Ok(Command::Default { deny: false }),
            _ => Err(RepairError::Usage("default deny|allow")),
        },
        other => Err(RepairError::UnknownCommand(clip(other))),
    }
}

fn no_args(args: &[&str], c: Command, usage: &'static str) -> Result<Command, RepairError> {
    if args.is_empty() { Ok(c) } else { Err(RepairError::Usage(usage)) }
}

const SHOW_USAGE: &str = "show [rules|groups|group NAME]";

fn show(args: &[&str]) -> Result<Command, RepairError> {
    let what = match args {
        [] => Show::All,
        ["rules"] => Show::Rules,
        ["groups"] => Show::Groups,
        ["group", name] => Show::Group(group_ref(name)?),
        _ => return Err(RepairError::Usage(SHOW_USAGE)),
    };
    Ok(Command::Show(what))
}

fn flows(args: &[&str]) -> Result<FlowsQuery, RepairError> {
    let mut q = FlowsQuery::default();
    for &arg in args {
        let bad = || RepairError::BadFlowsArg(clip(arg));
        let at = arg.find(['=', '~']).ok_or_else(bad)?;
        let (key, op, value) = (&arg[..at], &arg[at..=at], &arg[at + 1..]);
        if value.is_empty() {
            return Err(bad());
        }
        match (key, op) {
            ("by", "=") if q.by.is_empty() => {
                q.by = value.split(',').map(column).collect::<Result<_, _>>()?;
            }
            ("top", "=") if q.top.is_none() => {
                let n = digits(value).filter(|n| (1..=MAX_TOP).contains(n));
                q.top = Some(n.ok_or_else(|| RepairError::BadTop(clip(value)))?);
            }
            ("by" | "top", _) => return Err(bad()),
            (_, "=") => q.filters.push(Filter::Equals { column: column(key)?, value: value.to_string() }),
            _ => q.filters.push(within(key, value)?),
        }
    }
    Ok(q)
}

fn column(name: &str) -> Result<String, RepairError> {
    if COLUMNS.contains(&name) { Ok(name.to_string()) } else { Err(RepairError::UnknownColumn(clip(name))) }
}

/// `col~CIDR`: only the address columns of the flows table have prefixes.
fn within(key: &str, value: &str) -> Result<Filter, RepairError> {
    let column = column(key)?;
    if !["vantage", "src", "dst"].contains(&key) {
        return Err(RepairError::NotAddressColumn(column));
    }
    let net = cidr(value).ok_or_else(|| RepairError::BadEndpoint(clip(value)))?;
    Ok(Filter::Within { column, net })
}

fn group(args: &[&str]) -> Result<Command, RepairError> {
    match args {
        ["new", name] => Ok(Command::GroupNew(new_group(name)?)),
        ["del", name] => Ok(Command::GroupDel(new_group(name)?)),
        _ => Err(RepairError::Usage("group new NAME | group del NAME")),
    }
}

fn member(args: &[&str]) -> Result<Command, RepairError> {
    let usage = RepairError::Usage("member add GROUP IP... | member del GROUP IP...");
    let [op, group, ips @ ..] = args else { return Err(usage) };
    if ips.is_empty() {
        return Err(usage);
    }
    let group = new_group(group)?;
    let ips = ips
        .iter()
        .map(|ip| ip.parse().map_err(|_| RepairError::BadAddress(clip(ip))))
        .collect::<Result<Vec<Ipv4Addr>, _>>()?;
    match *op {
        "add" => Ok(Command::MemberAdd { group, ips }),
        "del" => Ok(Command::MemberDel { group, ips }),
        _ => Err(usage),
    }
}

const RULE_USAGE: &str =
    "rule add SRC DST PROTO PORTS [at N] | rule del N | rule set N src|dst|proto|ports VALUE";

fn rule(args: &[&str]) -> Result<Command, RepairError> {
    match args {
        ["add", src, dst, proto, ports, rest @ ..] => {
            let at = match rest {
                [] => None,
                ["at", n] => Some(rule_number(n)?),
                _ => return Err(RepairError::Usage(RULE_USAGE)),
            };
            let rule = RuleSpec {
                src: endpoint(src)?,
                dst: endpoint(dst)?,
                proto: proto_of(proto)?,
                ports: ports_of(ports)?,
            };
            Ok(Command::RuleAdd { rule, at })
        }
        ["del", n] => Ok(Command::RuleDel(rule_number(n)?)),
        ["set", n, field, value] => {
            let index = rule_number(n)?;
            let field = match *field {
                "src" => RuleField::Src(endpoint(value)?),
                "dst" => RuleField::Dst(endpoint(value)?),
                "proto" => RuleField::Proto(proto_of(value)?),
                "ports" => RuleField::Ports(ports_of(value)?),
                _ => return Err(RepairError::Usage(RULE_USAGE)),
            };
            Ok(Command::RuleSet { index, field })
        }
        _ => Err(RepairError::Usage(RULE_USAGE)),
    }
}

/// A group the agent may create, delete or fill: well formed and not reserved.
fn new_group(name: &str) -> Result<String, RepairError> {
    let name = group_ref(name)?;
    if RESERVED_GROUPS.contains(&name.as_str()) { Err(RepairError::Reserved(name)) } else { Ok(name) }
}

/// A group name as rules and `show` may use it (reserved names included).
fn group_ref(name: &str) -> Result<String, RepairError> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-".contains(c));
    if first_ok && rest_ok && name.len() <= 63 {
        Ok(name.to_string())
    } else {
        Err(RepairError::BadGroupName(clip(name)))
    }
}

fn endpoint(word: &str) -> Result<Endpoint, RepairError> {
    if let Some(net) = cidr(word) {
        return Ok(Endpoint::Cidr(net));
    }
    group_ref(word).map(Endpoint::Group).map_err(|_| RepairError::BadEndpoint(clip(word)))
}

/// `a.b.c.d/len`, or a bare address as its /32.
fn cidr(word: &str) -> Option<Ipv4Net> {
    word.parse().ok().or_else(|| word.parse::<Ipv4Addr>().ok().map(Ipv4Net::from))
}

fn proto_of(word: &str) -> Result<RuleProto, RepairError> {
    match word {
        "tcp" => Ok(RuleProto::Tcp),
        "udp" => Ok(RuleProto::Udp),
        "any" => Ok(RuleProto::Any),
        _ => Err(RepairError::BadProto(clip(word))),
    }
}

/// `N`, `A-B` or `any`, comma-separated.
fn ports_of(word: &str) -> Result<Ports, RepairError> {
    let bad = || RepairError::BadPorts(clip(word));
    let port = |s: &str| digits(s).filter(|n| (1..=65535).contains(n)).map(|n| n as u16);
    let item = |s: &str| match s.split_once('-') {
        _ if s == "any" => Some(Port::Any),
        Some((a, b)) => port(a).zip(port(b)).filter(|(a, b)| a <= b).map(|(a, b)| Port::Range(a, b)),
        None => port(s).map(Port::One),
    };
    let items: Vec<Port> = word.split(',').map(item).collect::<Option<_>>().ok_or_else(bad)?;
    if items.len() > MAX_PORT_ITEMS { Err(bad()) } else { Ok(Ports(items)) }
}

fn rule_number(word: &str) -> Result<usize, RepairError> {
    digits(word).filter(|&n| n >= 1).ok_or_else(|| RepairError::BadRuleNumber(clip(word)))
}

/// A decimal of at most 9 digits (no sign, no spaces).
fn digits(s: &str) -> Option<usize> {
    (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// An offending word as quoted in an error: at most 40 characters.
fn clip(word: &str) -> String {
    match word.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &word[..i]),
        None => word.to_string(),
    }
}
