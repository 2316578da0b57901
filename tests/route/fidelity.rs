//! Differential test of the Route emulator against real Linux (docs/route.md, "Fidelity against real Linux").
//!
//! Needs root, iproute2, iptables (nft), iputils-ping, traceroute and net-tools; otherwise it
//! prints `SKIP route-fidelity: <reason>` and passes. It builds each network twice — in the
//! emulator and in network namespaces — runs the same steps on both and, after every step,
//! compares the ping matrices and, normalised, the step's output and every router's state.
//!
//! More sequences: `ROUTE_FIDELITY_SEQUENCES=K ROUTE_FIDELITY_SEED=S cargo test --release
//! --test route fidelity:: -- --nocapture`.
//! Replaying a file of `machine: command` lines on N=2, M=1: `ROUTE_FIDELITY_LINES=FILE`.

mod generated;
mod lab;
mod normalize;
mod sequences;

use netpress::route::matrix;
use netpress::route::net::Net;
use netpress::route::shell;
use netpress::route::topology::{Shape, Topology};

use lab::Lab;
use normalize::{Normalizer, diff};
use sequences::Step;

/// Commands whose normalised output must match on every router after every step.
const STATE: [&str; 10] = [
    "ip route",
    "ip route show table local",
    "ip rule",
    "iptables -S",
    "iptables -Z; iptables -L -n -v",
    "ip addr",
    "ip -br addr",
    "ip -br link",
    "sysctl -a | grep forward",
    "tc qdisc show",
];

/// Host state compared too (host defaults are among the edits).
const HOST_STATE: [&str; 2] = ["ip route", "ip -br addr"];

/// The emulator and the real lab side by side.
struct Pair {
    topo: Topology,
    net: Net,
    lab: Lab,
    norm: Normalizer,
    /// Compare the routers' neighbour tables right after each matrix.
    neigh: bool,
    compared: usize,
}

impl Pair {
    fn new(topo: Topology, neigh: bool) -> Pair {
        Pair { topo, net: topo.build(), lab: Lab::build(&topo), norm: Normalizer::new(), neigh, compared: 0 }
    }

    fn routers(&self) -> Vec<String> {
        (0..self.topo.r).map(|x| format!("r{x}")).collect()
    }

    /// The routers' neighbour tables, real and emulated, as the matrices left them. Only
    /// when the matrices agreed at once: re-measuring a pair flushes every table.
    fn check_neighbours(&mut self) -> Result<(), String> {
        for node in self.routers() {
            let (real, _) = self.lab.exec(&node, "ip neigh");
            let (emu, _) = self.emulate(&node, "ip neigh");
            let (r, e) = (self.norm.neighbours(&real), self.norm.neighbours(&emu));
            if r != e {
                return Err(format!("neighbours after the matrix on {node}:\n{}", diff(&r, &e)));
            }
        }
        Ok(())
    }

    fn emulate(&mut self, node: &str, line: &str) -> (String, i32) {
        let id = self.net.node(node).unwrap_or_else(|| panic!("no machine {node}"));
        let o = shell::run(&mut self.net, id, line);
        (o.output, o.status)
    }

    /// Runs one step on both sides and compares everything; `Err` holds the difference.
    fn step(&mut self, step: &Step) -> Result<(), String> {
        self.lab.cool();
        let (real, real_status) = self.lab.exec(&step.node, &step.line);
        let (emu, emu_status) = self.emulate(&step.node, &step.line);
        self.compared += 1;
        let (r, e) = (self.norm.apply(&real), self.norm.apply(&emu));
        if r != e || real_status != emu_status {
            return Err(format!(
                "output of `{}` on {} (status real {real_status}, emulator {emu_status}):\n{}",
                step.line,
                step.node,
                diff(&r, &e)
            ));
        }
        if step.check_state {
            self.check_state()?;
        }
        Ok(())
    }

    fn check_state(&mut self) -> Result<(), String> {
        let machines = self.topo.machines();
        let mut real = self.lab.matrix();
        let emu = matrix::compute(&mut self.net, &machines);
        if self.neigh && real == emu.ok {
            self.check_neighbours()?;
        }
        let n = emu.n;
        for (s, d) in emu.pairs().collect::<Vec<_>>() {
            if real[s * n + d] != emu.ok[s * n + d] {
                real[s * n + d] = self.lab.cold_ping(s, d);
            }
        }
        if real != emu.ok {
            let real_m = matrix::Matrix { n: emu.n, ok: real };
            return Err(format!("ping matrix:\n{}", diff(&real_m.render(&machines), &emu.render(&machines))));
        }
        let routers = self.routers();
        let hosts: Vec<String> =
            machines.iter().filter(|m| m.name.starts_with('h')).map(|m| m.name.clone()).collect();
        for node in routers.iter().chain(&hosts) {
            let cmds: &[&str] = if node.starts_with('r') { &STATE } else { &HOST_STATE };
            let real = self.lab.exec_many(node, cmds);
            for (cmd, real) in cmds.iter().zip(real) {
                let (emu, _) = self.emulate(node, cmd);
                let (r, e) = (self.norm.apply(&real), self.norm.apply(&emu));
                if r != e {
                    return Err(format!("state `{cmd}` on {node}:\n{}", diff(&r, &e)));
                }
            }
        }
        Ok(())
    }
}

/// Runs steps on a fresh pair; the first failure with its step index.
fn run_steps(topo: Topology, neigh: bool, steps: &[Step]) -> Result<usize, (usize, String)> {
    let mut pair = Pair::new(topo, neigh);
    for (i, s) in steps.iter().enumerate() {
        pair.step(s).map_err(|e| (i, e))?;
    }
    Ok(pair.compared)
}

/// Shrinks a failing sequence: drops steps while it still fails (at most 40 reruns).
fn shrink(topo: Topology, neigh: bool, steps: Vec<Step>, keep: usize) -> (Vec<Step>, String) {
    let mut best = steps;
    let mut reason = String::new();
    let mut reruns = 0;
    let mut i = keep;
    while i < best.len() && reruns < 40 {
        let mut candidate = best.clone();
        candidate.remove(i);
        reruns += 1;
        match run_steps(topo, neigh, &candidate) {
            Err((at, why)) => {
                candidate.truncate(at + 1);
                best = candidate;
                reason = why;
            }
            Ok(_) => i += 1,
        }
    }
    if reason.is_empty() {
        reason = run_steps(topo, neigh, &best).err().map(|(_, w)| w).unwrap_or_default();
    }
    (best, reason)
}

fn skip_reason() -> Option<String> {
    let reason = lab::unavailable();
    if let Some(r) = &reason {
        println!("SKIP route-fidelity: {r}");
    }
    reason
}

/// Checks one sequence; panics with the id, the injection and the shortest failing steps.
fn check(case: sequences::Case) -> usize {
    let sequences::Case { label, topo, steps, keep, neigh } = case;
    match run_steps(topo, neigh, &steps) {
        Ok(n) => n,
        Err((at, first)) => {
            let mut prefix = steps;
            prefix.truncate(at + 1);
            let (short, why) = shrink(topo, neigh, prefix, keep);
            let why = if why.is_empty() { format!("{first}(did not reproduce on a rerun)") } else { why };
            let listing: Vec<String> = short.iter().map(|s| format!("  {}: {}", s.node, s.line)).collect();
            panic!(
                "route-fidelity mismatch in {label} ({topo:?})\nshortest failing sequence:\n{}\n{why}",
                listing.join("\n")
            );
        }
    }
}

#[test]
fn route_fidelity() {
    if skip_reason().is_some() {
        return;
    }
    let _limits = lab::RedirectLimits::lift();
    let netem = lab::has_netem();
    if !netem {
        println!("SKIP netem: kernel lacks sch_netem");
    }
    if let Ok(path) = std::env::var("ROUTE_FIDELITY_LINES") {
        let text = std::fs::read_to_string(&path).expect("readable lines file");
        let steps = sequences::parse_lines(&text);
        let topo = Topology { n: 2, m: 1, r: 1, shape: Shape::Single };
        let n = check(sequences::Case { label: path, topo, steps, keep: 0, neigh: false });
        println!("route-fidelity: {n} steps compared");
        return;
    }
    let count: usize =
        std::env::var("ROUTE_FIDELITY_SEQUENCES").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    let seed: u64 = std::env::var("ROUTE_FIDELITY_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut cases = sequences::behaviours(netem);
    cases.extend(sequences::variants_with_fixes(netem));
    cases.extend(sequences::random(count, seed, netem));
    let (total, compared) = check_all(cases);
    println!("route-fidelity: {total} sequences, {compared} steps compared");
}

/// Checks cases on parallel jobs; how many there were and the steps compared.
fn check_all(cases: Vec<sequences::Case>) -> (usize, usize) {
    // The lab mostly waits on ping timeouts, so more jobs than cores pay off.
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get() * 3).clamp(4, 8);
    let total = cases.len();
    let queue = std::sync::Mutex::new(cases.into_iter());
    let compared = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let Some(case) = queue.lock().expect("queue").next() else { break };
                    let n = check(case);
                    compared.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    (total, compared.into_inner())
}

/// Generated tasks (`generated::SAMPLE`, or the ids the environment asks for): the task's
/// network and faults, its diagnostics, fixes and random steps, neighbour tables included.
#[test]
fn route_fidelity_generated() {
    if skip_reason().is_some() || std::env::var("ROUTE_FIDELITY_LINES").is_ok() {
        return;
    }
    let _limits = lab::RedirectLimits::lift();
    let netem = lab::has_netem();
    let mut cases = Vec::new();
    for id in generated::ids() {
        match generated::case(&id, netem) {
            Ok(Some(case)) => cases.push(case),
            Ok(None) => println!("SKIP {id}: kernel lacks sch_netem"),
            Err(e) => panic!("{e}"),
        }
    }
    let (total, compared) = check_all(cases);
    println!("route-fidelity-generated: {total} tasks, {compared} steps compared");
}
