//! A generated Route task: the card (prompt, label, parameters, expected outcome, hash), the
//! injected network an episode starts from, and its picture.

use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};

use crate::app::{Episode, PromptVariant, Task, TaskCard};
use crate::hash::content_hash;
use crate::id::QueryId;
use crate::params::Params;
use crate::view::Picture;

use super::engine::matrix::{Machine, Matrix};
use super::episode::RouteEpisode;
use super::fault::Fault;
use super::generate::{Drawn, inject};
use super::net::Net;
use super::prompt;
use super::topology::{PerTopology, Topology};

/// One Route query.
pub struct RouteTask {
    pub card: TaskCard,
    pub topo: Topology,
    pub faults: Vec<Fault>,
    /// Every task of the topology holds the same ones.
    pub machines: Arc<[Machine]>,
    /// The intended and the injected network, built when the first episode starts (a task
    /// is mostly read, not played).
    nets: OnceLock<(Net, Net)>,
    /// The ping matrix right after injection (shown in the prompt).
    pub initial: Matrix,
    me: std::sync::Weak<RouteTask>,
}

impl RouteTask {
    /// Builds the task for `id` from a valid draw.
    pub fn new(id: &QueryId, drawn: Drawn, max_turns: u32) -> Arc<RouteTask> {
        let topo = drawn.topo;
        let shared = Shared::of(&topo);
        let machines = Arc::clone(&shared.machines);
        let initial = drawn.initial.clone();
        let matrix_text = initial.render(&machines);
        let label = drawn.faults.iter().map(|f| f.family.name()).collect::<Vec<_>>().join("+");
        let prompt = prompt::render(&machines, max_turns, &matrix_text, PromptVariant::ZeroshotBase);
        let expected = expected(&matrix_text, &drawn.faults, &drawn.fix_order);
        let card = TaskCard {
            id: id.to_string(),
            app: "route".into(),
            version: id.version,
            level: id.level,
            label,
            content_hash: content_hash(&prompt, &expected),
            prompt,
            params: params(shared, &drawn),
            expected,
            question: None,
            max_turns,
        };
        Arc::new_cyclic(|me| RouteTask {
            card,
            topo,
            faults: drawn.faults,
            machines,
            nets: OnceLock::new(),
            initial,
            me: me.clone(),
        })
    }
}

/// What every task of a topology shares: its machines, and the card's `topology` and
/// `healthy_config` parameters, which are most of a card. Built once per topology and process.
struct Shared {
    machines: Arc<[Machine]>,
    topology: Arc<Value>,
    /// Per node, its commands.
    healthy_config: Arc<Value>,
}

impl Shared {
    fn of(topo: &Topology) -> &'static Shared {
        static BUILT: PerTopology<Shared> = PerTopology::new();
        BUILT.get(topo, || {
            let machines = topo.machines();
            let topology = json!({
                "subnets": topo.n,
                "hosts_per_subnet": topo.m,
                "routers": topo.r,
                "shape": topo.shape,
                "machines": machines,
            });
            let config = topo.config().into_iter().map(|(node, cmds)| (node, Value::from(cmds)));
            Shared {
                machines: machines.into(),
                topology: Arc::new(topology),
                healthy_config: Arc::new(Value::Object(config.collect())),
            }
        })
    }
}

fn params(shared: &Shared, drawn: &Drawn) -> Params {
    Params::default()
        .shared("topology", Arc::clone(&shared.topology))
        .with("faults", json!(drawn.faults))
        .with("attempts", drawn.attempts)
        .shared("healthy_config", Arc::clone(&shared.healthy_config))
}

fn expected(matrix_text: &str, faults: &[Fault], order: &[usize]) -> Value {
    let fix: Vec<Value> = order
        .iter()
        .map(|&i| &faults[i])
        .flat_map(|f| f.fix.iter().map(move |c| json!({ "machine": f.router_name(), "command": c })))
        .collect();
    json!({
        "goal": "every ordered pair of machines answers one ping (0% dropped)",
        "initial_matrix": matrix_text,
        "fix": fix,
    })
}

impl RouteTask {
    /// The intended network (for hygiene notes).
    pub fn healthy(&self) -> &Net {
        &self.nets().0
    }

    /// The network right after injection; every episode starts from it once its first ping
    /// matrix has run.
    pub fn injected(&self) -> &Net {
        &self.nets().1
    }

    fn nets(&self) -> &(Net, Net) {
        self.nets.get_or_init(|| {
            let healthy = self.topo.build();
            let injected = inject(&healthy, &self.faults.iter().collect::<Vec<_>>());
            (healthy, injected)
        })
    }
}

impl Task for RouteTask {
    fn card(&self) -> &TaskCard {
        &self.card
    }

    fn prompt(&self, variant: PromptVariant) -> String {
        if variant == PromptVariant::ZeroshotBase {
            return self.card.prompt.clone();
        }
        prompt::render(&self.machines, self.card.max_turns, &self.initial.render(&self.machines), variant)
    }

    fn start(&self, max_turns: Option<u32>) -> Box<dyn Episode> {
        let me = self.me.upgrade().expect("tasks live in an Arc");
        Box::new(RouteEpisode::new(me, max_turns.unwrap_or(self.card.max_turns)))
    }

    fn picture(&self) -> Picture {
        super::picture::intended(&self.topo, &self.faults)
    }
}
