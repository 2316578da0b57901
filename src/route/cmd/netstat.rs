//! `netstat -r` (net-tools): the routing table in netstat's columns.

use super::nettools::{TITLE, rows};
use super::{Ctx, Io, unsupported};

pub fn run(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let mut route = false;
    let mut numeric = false;
    for a in args {
        match a.as_str() {
            "--route" => route = true,
            "--numeric" => numeric = true,
            s if s.starts_with('-') && !s.starts_with("--") && s.len() > 1 => {
                for f in s[1..].chars() {
                    match f {
                        'r' => route = true,
                        'n' => numeric = true,
                        'e' | 'v' => {}
                        _ => return unsupported(io, &format!("netstat -{f}")),
                    }
                }
            }
            _ => return unsupported(io, &format!("netstat {a}")),
        }
    }
    if !route {
        return unsupported(io, "netstat without -r");
    }
    let mut out =
        format!("{TITLE}\nDestination     Gateway         Genmask         Flags   MSS Window  irtt Iface\n");
    for r in rows(ctx.node(), numeric) {
        if r.reject {
            out.push_str(&format!(
                "{:<15} {:<15} {:<15} {:<5} {:>5} {:<6} {:>5} -\n",
                r.dst, r.gw, r.mask, r.flags, "-", "-", "-"
            ));
        } else {
            out.push_str(&format!(
                "{:<15} {:<15} {:<15} {:<5} {:>5} {:<6} {:>5} {}\n",
                r.dst, r.gw, r.mask, r.flags, 0, 0, 0, r.iface
            ));
        }
    }
    io.out(&out);
    0
}
