//! BGP: investigating Internet incidents in a seeded, emulated AS-level Internet
//! (docs/bgp.md).
//!
//! The application (registered as `bgp`): the agent investigates with tools over the task's
//! data and submits one verdict. What exists:
//! - [`level`], [`region`], [`numbering`]: the size table per level, the six regions, the
//!   private ASN pools.
//! - [`topology`]: the [`Topology`] value (ASes, relationships, exchange points, organisations,
//!   prefixes, ROAs, ROV deployment) and its queries.
//! - [`graph`], [`ixp`], [`orgs`], [`names`], [`prefixes`], [`rpki`]: the draws that build it,
//!   in draw order ([`generate`] runs them), and origin validation.
//! - [`routing`]: the stable routing state per prefix (Gao–Rexford preference, valley-free
//!   export, ROV, prepending, forged-origin and leak seeds), checked against BGPy by
//!   `tests/bgp`.
//! - [`collectors`], [`probes`], [`clock`]: who observes the Internet (collectors, vantage
//!   points and their feeds, Atlas-style probes) and when (the window, the history); [`world`]
//!   draws them after the topology.
//! - [`timeline`]: the updates every vantage point sends after each routing change, with
//!   per-hop delays and path exploration, and the RIBs they add up to.
//! - [`family`], [`incident`], [`validity`], [`task`]: the incident families and benign
//!   controls, their injection as timeline changes, the rules a task must pass, and the task an
//!   id names (world, incident, timeline, truth, trigger).
//! - [`tools`]: the agent's commands (bgpdump over the collectors' files, which also exist as
//!   real MRT, RIPEstat-shaped calls, as-rel, VRPs, Atlas probes) in the crate's shell;
//!   [`verdict`] and [`score`]: the answer and its scoring; `prompt`, `baseline` and `app`: the
//!   prompts, the rule-based investigator and the application's roles; `cli`: `netpress bgp mrt`
//!   and `netpress bgp topo`; `check`: `netpress bgp check`, the generator's promises over a
//!   range of seeds; [`picture`]: the AS neighbourhood of the incident the surfaces draw.
//!
//! - [`space`]: the task space adaptive mode searches (docs/adapt.md).
//! - [`churn`], [`distractor`], [`asrel_noise`]: what hides the incident: background routing
//!   changes, a second unrelated incident at L4, and inference errors in the as-rel file.
//!
//! - [`irr`]: the routing registry's route objects (one per prefix, a benign newcomer's, stale
//!   ones from L3), which `whois` and `routing-status` show.
//! - [`dataplane`]: where a packet goes AS by AS at a given time, which `atlas traceroute`
//!   reports.
//!
//! - [`panels`]: the episode's panels (evidence; after the end, vantage points before, during and
//!   after, the verdict against the truth, the timeline of the incident's updates).

mod app;
pub mod asrel_noise;
mod baseline;
mod check;
pub mod churn;
mod cli;
pub mod clock;
pub mod collectors;
pub mod dataplane;
pub mod distractor;
pub mod family;
pub mod generate;
pub mod graph;
pub mod incident;
pub mod irr;
pub mod ixp;
pub mod level;
pub mod names;
pub mod numbering;
pub mod orgs;
pub mod panels;
pub mod picture;
pub mod prefixes;
pub mod probes;
mod prompt;
pub mod region;
pub mod routing;
pub mod rpki;
pub mod score;
pub mod space;
pub mod task;
pub mod timeline;
pub mod tools;
pub mod topology;
pub mod validity;
pub mod verdict;
pub mod world;

pub use app::{BgpApp, Generated, INFO, action};
pub use level::Level;
pub use routing::{Graph, Leak, Origination, PrefixState, Seeds, stable_state, stable_states};
pub use rpki::{Roa, Validity, Vrps};
pub use topology::{AsIx, Rel, Tier, Topology};
pub use world::{Knobs, World};
