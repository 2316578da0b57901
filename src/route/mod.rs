//! Route: router fault repair on an emulated Linux network (route.md).

pub mod cmd;
pub mod engine;
pub mod fault;
pub mod generate;
pub mod net;
pub mod shell;
pub mod text;
pub mod topology;
