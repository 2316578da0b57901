//! The commands as values, each printing as the line that parses back to it.

use std::fmt;
use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

/// One command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `show`, `show rules`, `show groups`, `show group NAME`.
    Show(Show),
    /// `check`: the report.
    Check,
    /// `flows [col=VALUE|col~CIDR ...] [by=col,...] [top=N]`.
    Flows(FlowsQuery),
    /// `group new NAME`.
    GroupNew(String),
    /// `group del NAME`.
    GroupDel(String),
    /// `member add GROUP IP...`.
    MemberAdd { group: String, ips: Vec<Ipv4Addr> },
    /// `member del GROUP IP...`.
    MemberDel { group: String, ips: Vec<Ipv4Addr> },
    /// `rule add SRC DST PROTO PORTS [at N]`: N is 1-based; none appends.
    RuleAdd { rule: RuleSpec, at: Option<usize> },
    /// `rule del N` (1-based).
    RuleDel(usize),
    /// `rule set N src|dst|proto|ports VALUE` (1-based).
    RuleSet { index: usize, field: RuleField },
    /// `default deny` (true) or `default allow` (false).
    Default { deny: bool },
    /// `done`: end the episode.
    Done,
}

/// What `show` prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Show {
    All,
    Rules,
    Groups,
    Group(String),
}

/// The filters, grouping and length of a `flows` listing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FlowsQuery {
    pub filters: Vec<Filter>,
    /// Columns to aggregate by; empty: per connection key.
    pub by: Vec<String>,
    /// Lines to print; none: the default (20).
    pub top: Option<usize>,
}

/// One `flows` filter over a column of the flows table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// `col=VALUE`: the column's value as written.
    Equals { column: String, value: String },
    /// `col~CIDR`: an address column within the prefix.
    Within { column: String, net: Ipv4Net },
}

/// An allow rule as written in `rule add`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSpec {
    pub src: Endpoint,
    pub dst: Endpoint,
    pub proto: RuleProto,
    pub ports: Ports,
}

/// A rule's source or destination: a group (the policy's or a reserved one) or a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Group(String),
    Cidr(Ipv4Net),
}

/// A rule's protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleProto {
    Tcp,
    Udp,
    Any,
}

/// A rule's destination ports: one or more items, written comma-separated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ports(pub Vec<Port>);

/// One port item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Port {
    One(u16),
    /// `A-B`, A ≤ B.
    Range(u16, u16),
    Any,
}

/// The field `rule set` changes, with its new value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleField {
    Src(Endpoint),
    Dst(Endpoint),
    Proto(RuleProto),
    Ports(Ports),
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Show(Show::All) => write!(f, "show"),
            Command::Show(Show::Rules) => write!(f, "show rules"),
            Command::Show(Show::Groups) => write!(f, "show groups"),
            Command::Show(Show::Group(name)) => write!(f, "show group {name}"),
            Command::Check => write!(f, "check"),
            Command::Flows(q) => write!(f, "flows{q}"),
            Command::GroupNew(name) => write!(f, "group new {name}"),
            Command::GroupDel(name) => write!(f, "group del {name}"),
            Command::MemberAdd { group, ips } => write!(f, "member add {group}{}", Spaced(ips)),
            Command::MemberDel { group, ips } => write!(f, "member del {group}{}", Spaced(ips)),
            Command::RuleAdd { rule, at: None } => write!(f, "rule add {rule}"),
            Command::RuleAdd { rule, at: Some(n) } => write!(f, "rule add {rule} at {n}"),
            Command::RuleDel(n) => write!(f, "rule del {n}"),
            Command::RuleSet { index, field } => write!(f, "rule set {index} {field}"),
            Command::Default { deny } => write!(f, "default {}", if *deny { "deny" } else { "allow" }),
            Command::Done => write!(f, "done"),
        }
    }
}

/// Each item preceded by a space.
struct Spaced<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for Spaced<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|x| write!(f, " {x}"))
    }
}

impl fmt::Display for FlowsQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Spaced(&self.filters))?;
        if !self.by.is_empty() {
            write!(f, " by={}", self.by.join(","))?;
        }
        match self.top {
            Some(n) => write!(f, " top={n}"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Filter::Equals { column, value } => write!(f, "{column}={value}"),
            Filter::Within { column, net } => write!(f, "{column}~{net}"),
        }
    }
}

impl fmt::Display for RuleSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {} {}", self.src, self.dst, self.proto, self.ports)
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Group(name) => write!(f, "{name}"),
            Endpoint::Cidr(net) => write!(f, "{net}"),
        }
    }
}

impl fmt::Display for RuleProto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleProto::Tcp => "tcp",
            RuleProto::Udp => "udp",
            RuleProto::Any => "any",
        })
    }
}

impl fmt::Display for Ports {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            match p {
                Port::One(n) => write!(f, "{sep}{n}")?,
                Port::Range(a, b) => write!(f, "{sep}{a}-{b}")?,
                Port::Any => write!(f, "{sep}any")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for RuleField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleField::Src(e) => write!(f, "src {e}"),
            RuleField::Dst(e) => write!(f, "dst {e}"),
            RuleField::Proto(p) => write!(f, "proto {p}"),
            RuleField::Ports(p) => write!(f, "ports {p}"),
        }
    }
}
