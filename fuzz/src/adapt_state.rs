//! Any bytes as an adaptive-search state file: refused with a reason, or read into a search
//! whose table, mixture and curriculum come out; never a panic.

use netpress::adapt::{
    ExportFormat, RlLines, Search, State, curriculum, export, mixture_json, weakness_table,
};
use netpress::registry::Registry;

pub fn fuzz(data: &[u8]) {
    let Ok(state) = State::parse(&String::from_utf8_lossy(data)) else { return };
    let _ = state.check_resumable();
    let Ok(app) = Registry::standard().app(&state.app) else { return };
    let Ok(search) = Search::from_state(app, state) else { return };
    let _ = weakness_table(&search);
    let _ = mixture_json(&search);
    let _ = curriculum(&search, 4);
    let rl = RlLines { variant: Default::default(), command: "netpress adapt export" };
    let _ = export(&search, ExportFormat::Rl, 4, rl);
    let _ = export(&search, ExportFormat::Mixture, 0, rl);
}
