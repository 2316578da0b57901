//! Adaptive mode: a Genet-style curriculum that finds where an agent trails a reference.
//!
//! Random task sampling spends most episodes where an agent is fine. Adaptive mode searches an
//! application's task space (its levels, size knobs, fault families and turn limits, declared
//! by [`crate::App::space`]) for the configurations where the agent scores lowest against
//! the application's baseline (or a perfect oracle), promotes them into a task mixture as
//! Genet does (SIGCOMM '22), confirms them on fresh seeds so a reported weakness is not the
//! winner's curse of the search, and exports the mixture for trainers. docs/adapt.md has the
//! design and its reasons.
//!
//! One concept per module:
//! - `space`: task spaces, cells, features, and how a cell becomes an id.
//! - `gp`: the Gaussian-process surrogate (hand-written; the module says why).
//! - `state`: settings and the resumable JSON state.
//! - `search`: the round logic (random points, GP-UCB batch, promotion, confirmation).
//! - `map`: the weakness map (posterior mean over two dimensions) and table.
//! - `cost`: the fixture the search's own cost is measured on (criterion and the page).
//! - `curriculum`: the mixture file and the task stream trainers read.
//! - `fake`: the `fake:PRED` agent whose weak region is known, for tests and demos.
//! - `remote`: the same search in the web page, whose engines are in workers.
//! - `drive` (native): runs the episodes through [`crate::run::run_threads`].
//!
//! Everything but `drive` is pure and builds for wasm32.

mod cost;
mod curriculum;
#[cfg(not(target_arch = "wasm32"))]
mod drive;
mod fake;
mod gp;
mod map;
mod remote;
mod search;
mod space;
mod state;

pub use cost::{EVALUATIONS, round_work, route_search_with_history};
pub use curriculum::{
    ExportFormat, MIXTURE_SCHEMA, RlLines, STREAM_SEEDS, StreamTask, curriculum, export, mixture_json,
    mixture_stream,
};
#[cfg(not(target_arch = "wasm32"))]
pub use drive::{Observer, Quiet, drive};
pub use fake::{Fake, Noop, noop_reply};
pub use gp::{Candidate, Gp, LENGTHSCALES, Obs, matern52};
pub use map::{MapCell, WeakRow, WeaknessMap, default_dims, weakness_map, weakness_table};
pub use remote::{
    DimSpec, Host, Linked, Remote, SpaceSpec, drive as drive_remote, drive_linked, export_linked,
    export_remote, realise_all,
};
pub use search::{CONFIRM_SEEDS, MAX_CANDIDATES, Next, Point, SEARCH_SEEDS, Search, XL, normal_quantile};
pub use space::{
    Cell, Dim, Enc, Encoder, Reference, Space, SpaceOf, Via, feasible_cells, first_appearance, realise_knobs,
    scan, scan_generating,
};
pub use state::{
    Component, Confirmation, Evaluation, MAX_TOKEN, Mode, Phase, Pin, Promotion, RateCi, RoundNote, SCHEMA,
    SCHEMA_V1, ScoreKind, Select, Settings, State, Verdict, promote,
};
