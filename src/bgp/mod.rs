//! BGP: investigating Internet incidents in a seeded, emulated AS-level Internet
//! (docs/bgp.md).
//!
//! This is the foundation of the application, not yet an application: nothing registers it.
//! What exists:
//! - [`level`], [`region`], [`numbering`]: the size table per level, the six regions, the
//!   private ASN pools.
//! - [`topology`]: the [`Topology`] value (ASes, relationships, exchange points, organisations,
//!   prefixes, ROAs, ROV deployment) and its queries.
//! - [`graph`], [`ixp`], [`orgs`], [`names`], [`prefixes`], [`rpki`]: the draws that build it,
//!   in draw order ([`generate`] runs them), and origin validation.
//! - [`routing`]: the stable routing state per prefix (Gao–Rexford preference, valley-free
//!   export, ROV, prepending, forged-origin and leak seeds), checked against BGPy by
//!   `tests/bgp`.
//!
//! To come, each extending [`Topology`] and drawing after it from the same stream: collectors
//! and vantage points, probes, the timeline and its updates, incidents and benign controls, the
//! tools (bgpdump over MRT, RIPEstat, as-rel, VRPs, Atlas, the shell), the verdict, scoring,
//! the baseline investigator, prompts, pictures and panels.

pub mod generate;
pub mod graph;
pub mod ixp;
pub mod level;
pub mod names;
pub mod numbering;
pub mod orgs;
pub mod prefixes;
pub mod region;
pub mod routing;
pub mod rpki;
pub mod topology;

pub use level::Level;
pub use routing::{Graph, Leak, Origination, PrefixState, Seeds, stable_state, stable_states};
pub use rpki::{Roa, Validity, Vrps};
pub use topology::{AsIx, Rel, Tier, Topology};
