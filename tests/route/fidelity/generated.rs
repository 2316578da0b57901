//! Cases from generated tasks: the task's own network and faults, then what an agent would
//! look at and do. Each case injects every fault (its matrix, router state and neighbour
//! tables compared), runs diagnostics whose output is compared (`ifconfig -a` on each faulty
//! router, `ifconfig` on a host, `ping -c2` over a pair the faults break), each
//! fault's known-good fix in the task's fix order, and a few seeded random steps.
//!
//! The CI sample is [`SAMPLE`]: small knobs over levels 1–3, chosen so that each kind of
//! output the emulator once got wrong on generated tasks shows up (a lost `ping -c2`, a
//! host's `ifconfig`, a transit peer with MTU 68, a neighbour learned from an ARP request).
//! `ROUTE_FIDELITY_TASKS=K` adds K ids drawn from `ROUTE_FIDELITY_TASK_SEED` (default 0);
//! `ROUTE_FIDELITY_TASK_KNOBS=drawn` lets those draw their own sizes (up to 16 subnets of
//! 4 hosts) instead of small ones; `ROUTE_FIDELITY_IDS=a,b,…` runs exactly those ids.

use netpress::id::QueryId;
use netpress::route::generate;
use netpress::seed::{Stream, Width};

use super::sequences::{Case, Step, random_step};

/// The CI sample (see the module's documentation for what each one covers).
pub const SAMPLE: [&str; 11] = [
    // WR1 out of r0-eth1: r0 learns h2 from its ARP request on r0-eth2.
    "route-v1-L1-s9002-i0-n2-m1",
    "route-v1-L1-s1-i0-n3-m2",
    // DI3 on a LAN port.
    "route-v1-L1-s7-i0-n2-m1-fDI",
    // DR1 + WR2 on 8 subnets: `ping -c2` with every probe lost.
    "route-v1-L2-s9027-i0",
    "route-v1-L2-s3-i0-n2-m1",
    "route-v1-L2-s11-i0-n3-m1",
    "route-v1-L2-s5-i0-n2-m2-fRI+DT",
    "route-v1-L3-s2-i0-n2-m1-r2",
    "route-v1-L3-s4-i0-n3-m1-r2",
    "route-v1-L3-s6-i0-n3-m1-r3",
    // DI3 on r1's end of the transit link: r0's frames into it are dropped.
    "route-v1-L3-s1-i0-n2-m1-r2-fDI+DI+RI",
];

/// Seeded random steps after the fixes.
const RANDOM_STEPS: u64 = 2;

/// The ids this run compares: the sample, or the ones the environment names.
pub fn ids() -> Vec<String> {
    if let Ok(list) = std::env::var("ROUTE_FIDELITY_IDS") {
        return list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
    }
    let mut ids: Vec<String> = SAMPLE.iter().map(|s| s.to_string()).collect();
    let extra: usize = std::env::var("ROUTE_FIDELITY_TASKS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let seed: u64 = std::env::var("ROUTE_FIDELITY_TASK_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let drawn = std::env::var("ROUTE_FIDELITY_TASK_KNOBS").is_ok_and(|v| v == "drawn");
    ids.extend((0..extra).map(|i| drawn_id(seed, i, drawn)));
    ids
}

/// The `i`th extra id of a run: levels in turn, any seed, small knobs unless `drawn`.
fn drawn_id(seed: u64, i: usize, drawn: bool) -> String {
    let mut s = Stream::new(&format!("route-fidelity-tasks|{seed}|{i}"), Width::W32);
    let level = 1 + (i % 3) as u8;
    let task_seed = s.below(1 << 32);
    let knobs = match (drawn, level) {
        (true, _) => String::new(),
        (false, 3) => {
            let r = s.range(2, 3);
            format!("-n{}-m{}-r{r}", s.range(r, 4), s.range(1, 2))
        }
        (false, _) => format!("-n{}-m{}", s.range(2, 4), s.range(1, 2)),
    };
    format!("route-v1-L{level}-s{task_seed}-i0{knobs}")
}

/// The case of one generated id, or why there is none (`None` skips a netem task where the
/// kernel has no netem).
pub fn case(id: &str, netem: bool) -> Result<Option<Case>, String> {
    let q: QueryId = id.parse().map_err(|e| format!("{id}: {e}"))?;
    let drawn = generate::draw(&q).map_err(|e| format!("{id}: {e}"))?;
    if !netem && drawn.faults.iter().any(|f| f.id == "DT4") {
        return Ok(None);
    }
    let topo = drawn.topo;
    let quiet = |node: &str, line: &str| Step { check_state: false, ..Step::on(node, line) };
    let mut steps: Vec<Step> = Vec::new();
    for f in &drawn.faults {
        steps.extend(f.commands.iter().map(|c| quiet(&f.router_name(), c)));
    }
    if let Some(last) = steps.last_mut() {
        last.check_state = true;
    }
    let keep = steps.len();
    let mut routers: Vec<String> = drawn.faults.iter().map(|f| f.router_name()).collect();
    routers.dedup();
    steps.extend(routers.iter().map(|r| quiet(r, "ifconfig -a")));
    let (first_host, _) = topo.host(1, 0);
    steps.push(quiet(&first_host, "ifconfig"));
    let machines = topo.machines();
    // From a host: a router's own ping into a transit peer with MTU 68 fails at sendmsg with
    // ENOBUFS, retried on iputils' timers, which the emulator does not model.
    let broken =
        drawn.initial.pairs().find(|&(s, d)| !drawn.initial.get(s, d) && machines[s].name.starts_with('h'));
    if let Some((s, d)) = broken {
        steps.push(quiet(&machines[s].name, &format!("ping -c2 -W1 {}", machines[d].target)));
    }
    for &k in &drawn.fix_order {
        let f = &drawn.faults[k];
        let r = f.router_name();
        let n = steps.len();
        steps.extend(f.fix.iter().map(|c| quiet(&r, c)));
        if steps.len() > n {
            steps.last_mut().expect("a fix step").check_state = true;
        }
    }
    let mut stream = Stream::new(&format!("route-fidelity-generated|{id}"), Width::W32);
    for _ in 0..RANDOM_STEPS {
        let f = &drawn.faults[stream.index(drawn.faults.len())];
        steps.push(random_step(&mut stream, &topo, f, netem));
    }
    Ok(Some(Case { label: id.to_string(), topo, steps, keep, neigh: true }))
}
