//! The machine's own utilities next to the shell's text tools: `hostname` and `ls` of the
//! only directories the lab has, under /proc/sys/net.

use super::{Ctx, Io};
use crate::route::net::sysctl;

pub fn handler(name: &str) -> Option<super::Handler> {
    Some(match name {
        "hostname" => hostname,
        "ls" => ls,
        _ => return None,
    })
}

fn hostname(ctx: &mut Ctx<'_>, _: &[String], io: &mut Io) -> i32 {
    let name = ctx.node().name.clone();
    io.outln(&name);
    0
}

/// `ls` of the lab's only directories, under /proc/sys/net.
fn ls(ctx: &mut Ctx<'_>, args: &[String], io: &mut Io) -> i32 {
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let mut status = 0;
    for path in paths {
        let Some(key) = sysctl::path_key(path).filter(|k| k == "net" || k.starts_with("net.")) else {
            status = io.fail(2, &format!("ls: cannot access '{path}': No such file or directory"));
            continue;
        };
        let entries = sysctl::matching(ctx.node(), &key);
        if entries.len() == 1 && entries[0].0 == key {
            io.outln(path);
            continue;
        }
        let mut names: Vec<String> = entries
            .iter()
            .filter_map(|(k, _)| {
                k.strip_prefix(&format!("{key}.")).map(|r| r.split('.').next().unwrap_or(r).to_string())
            })
            .collect();
        names.dedup();
        if names.is_empty() {
            status = io.fail(2, &format!("ls: cannot access '{path}': No such file or directory"));
        }
        for n in names {
            io.outln(&n);
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use crate::route::net::Net;
    use crate::route::shell;
    use crate::route::topology::{Shape, Topology};

    fn sh(line: &str) -> (String, i32) {
        let mut net: Net = Topology { n: 2, m: 1, r: 1, shape: Shape::Single }.build();
        let o = shell::run(&mut net, 0, line);
        (o.output, o.status)
    }

    #[test]
    fn machine_utilities() {
        assert_eq!(sh("hostname"), ("r0\n".into(), 0));
        assert_eq!(sh("ls /proc/sys/net"), ("ipv4\nipv6\n".into(), 0));
        assert_eq!(sh("ls /proc/sys/net/ipv4/conf").0, "all\ndefault\nlo\nr0-eth1\nr0-eth2\n");
        assert_eq!(sh("ls /etc"), ("ls: cannot access '/etc': No such file or directory\n".into(), 2));
    }

    /// The shell's tools read the machine's `/proc/sys` files through the shell.
    #[test]
    fn tools_read_proc_sys() {
        assert_eq!(sh("sysctl -a | grep -c forwarding").0, "25\n");
        assert_eq!(sh("cat /etc/passwd"), ("cat: /etc/passwd: No such file or directory\n".into(), 1));
        assert_eq!(sh("cat /proc/sys/net/ipv4/ip_forward"), ("1\n".into(), 0));
        assert_eq!(sh("cat /proc/sys/net/ipv4"), ("cat: /proc/sys/net/ipv4: Is a directory\n".into(), 1));
        assert_eq!(sh("grep 1 /proc/sys/net/ipv4/ip_forward"), ("1\n".into(), 0));
        assert_eq!(sh("sleep 5; true"), (String::new(), 0));
    }
}
