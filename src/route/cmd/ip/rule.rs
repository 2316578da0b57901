//! `ip rule`: list, add, del, flush.

use std::sync::Arc;

use super::{Args, bad_prefix, invarg, matches, rtnl};
use crate::route::cmd::{Ctx, Io, unsupported};
use crate::route::net::addr::parse_iproute_prefix;
use crate::route::net::rule::{self, RuleAction, RuleError, RuleSpec, TableId};

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let Some(cmd) = args.first() else { return list(ctx, io) };
    let rest = &args[1..];
    if matches(cmd, "list") || matches(cmd, "lst") || matches(cmd, "show") {
        if let Some(w) = rest.first() {
            return unsupported(io, &format!("ip rule show {w}"));
        }
        list(ctx, io)
    } else if matches(cmd, "add") || matches(cmd, "delete") {
        let spec = match parse(rest, io) {
            Ok(s) => s,
            Err(s) => return s,
        };
        let rules = Arc::make_mut(&mut ctx.node_mut().rules);
        let result = if matches(cmd, "add") { rule::add(rules, spec) } else { rule::delete(rules, spec) };
        match result {
            Ok(()) => 0,
            Err(RuleError::Exists) => rtnl(io, "File exists"),
            Err(RuleError::NotFound) => rtnl(io, "No such file or directory"),
            Err(RuleError::Full) => io.fail(2, "netpress: table full"),
        }
    } else if matches(cmd, "flush") {
        rule::flush(Arc::make_mut(&mut ctx.node_mut().rules));
        0
    } else if matches(cmd, "save") || matches(cmd, "restore") {
        unsupported(io, &format!("ip rule {cmd}"))
    } else {
        io.fail(255, &format!("Command \"{cmd}\" is unknown, try \"ip rule help\"."))
    }
}

fn list(ctx: &Ctx<'_>, io: &mut Io) -> i32 {
    let text: String = ctx.node().rules.iter().map(|r| format!("{}\n", r.show())).collect();
    io.out(&text);
    0
}

fn parse(args: &[String], io: &mut Io) -> Result<RuleSpec, i32> {
    let mut a = Args::new(args);
    let mut spec = RuleSpec::default();
    while let Some(w) = a.next() {
        match w {
            "from" | "to" => {
                let v = a.value(io)?;
                let p = parse_iproute_prefix(v).ok_or_else(|| bad_prefix(io, v))?;
                let p = (p.prefix_len() > 0).then_some(p);
                if w == "from" {
                    spec.from = p;
                } else {
                    spec.to = p;
                }
            }
            "pref" | "priority" | "order" | "preference" => {
                let v = a.value(io)?;
                spec.pref = Some(v.parse().map_err(|_| invarg(io, v, "preference value is invalid\n"))?);
            }
            "table" | "lookup" => {
                let v = a.value(io)?;
                let t = TableId::parse(v);
                if t.is_none() && !v.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(invarg(io, v, "invalid table ID\n"));
                }
                let t = t.ok_or_else(|| {
                    unsupported(io, &format!("ip rule ... lookup {v} (tables other than local/main/default)"))
                })?;
                spec.action = Some(RuleAction::Lookup(t));
            }
            "prohibit" => spec.action = Some(RuleAction::Prohibit),
            "blackhole" => spec.action = Some(RuleAction::Blackhole),
            "unreachable" => spec.action = Some(RuleAction::Unreachable),
            "type" => {
                let v = a.value(io)?;
                spec.action = Some(match v {
                    "prohibit" => RuleAction::Prohibit,
                    "blackhole" => RuleAction::Blackhole,
                    "unreachable" => RuleAction::Unreachable,
                    _ => return Err(unsupported(io, &format!("ip rule ... type {v}"))),
                });
            }
            _ => return Err(unsupported(io, &format!("ip rule ... {w}"))),
        }
    }
    Ok(spec)
}
