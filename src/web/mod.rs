//! The Yew single-page app (feature `web`): a thin surface over the library.
//!
//! State lives in the URL fragment ([`crate::link`]): every view re-renders from the parsed
//! fragment, and every change of view is a change of fragment, so a copied link reopens the
//! same view. Components hold no benchmark logic; they call the library and draw its results.
//!
//! One concern per module: [`task`] and [`answer`] (the task view and its answer modes),
//! [`batch`], [`adaptive`], [`compare`], [`history`], [`bench`] (the other views), [`show`] (generic
//! renderers of pictures, panels, turns and scores), [`sandbox`]
//! (episodes, local or in the sandbox worker), [`agents`] (agents and the loop driving them),
//! [`store`] (the IndexedDB history), [`settings`] (page settings in context, kept in local
//! storage) and [`util`].

mod adapt_cost;
mod adaptive;
mod agents;
mod answer;
mod batch;
mod bench;
mod compare;
pub mod endpoint;
mod history;
mod home;
mod latest;
mod layout;
mod sandbox;
mod settings;
mod show;
mod store;
mod task;
mod util;

/// The page's own drivers, public for the browser tests (tests/wasm_agent.rs), so that they
/// run episodes and batches through exactly what the views call.
pub use agents::remote::{RemoteClient, adapt};
pub use agents::{Cancel as StopFlag, Pace, PageAgent, drive};
pub use batch::job::{Crew, Plan, run_batch};
pub use sandbox::{EpisodeHandle, Opened, Snapshot, Workers};

use gloo::events::EventListener;
use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::link::{self, View};

/// Mounts the app on the page body.
pub fn start() {
    yew::Renderer::<Root>::new().render();
}

/// The current fragment of the page's URL.
fn current_fragment() -> String {
    gloo::utils::window().location().hash().unwrap_or_default()
}

/// The view the page's URL names now, which can be ahead of the one rendered: [`go`] sets the
/// fragment at once and the view follows on the next hashchange.
pub fn current_view() -> View {
    link::parse(&current_fragment())
}

/// Navigates to a view by changing the fragment (the hashchange listener re-renders).
pub fn go(view: &View) {
    let _ = gloo::utils::window().location().set_hash(&link::format(view));
}

/// Rewrites the URL to name `view` without re-rendering or adding a history entry: for
/// state the current view already shows (an answer typed so far, a selection).
pub fn replace(view: &View) {
    if let Ok(history) = gloo::utils::window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&link::format(view)));
    }
}

#[function_component(Root)]
fn root() -> Html {
    let view = use_state(|| link::parse(&current_fragment()));
    {
        let view = view.clone();
        use_effect_with((), move |_| {
            let listener = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
                view.set(link::parse(&current_fragment()));
                gloo::utils::window().scroll_to_with_x_and_y(0.0, 0.0);
            });
            move || drop(listener)
        });
    }
    let page = match &*view {
        View::Home => html! { <home::Home /> },
        View::Task(t) => html! { <task::TaskPage link={t.clone()} /> },
        View::Batch(b) => html! { <batch::BatchPage link={b.clone()} /> },
        View::Compare(runs) => html! { <compare::ComparePage runs={runs.clone()} /> },
        View::History => html! { <history::HistoryPage /> },
        View::Bench => html! { <bench::BenchPage /> },
        View::Adapt(token) => html! { <adaptive::AdaptPage token={token.clone()} /> },
        View::NotFound(reason) => html! { <layout::NotFound reason={reason.clone()} /> },
    };
    html! {
        <>
            <a class="skip" href="#main" onclick={Callback::from(|e: MouseEvent| {
                e.prevent_default();
                if let Some(main) = gloo::utils::document().get_element_by_id("main") {
                    use wasm_bindgen::JsCast;
                    let _ = main.unchecked_into::<web_sys::HtmlElement>().focus();
                }
            })}>{ "Skip to content" }</a>
            <settings::SettingsProvider>
            <sandbox::WorkersProvider>
            <batch::job::JobProvider>
                <layout::Header view={(*view).clone()} />
                <main id="main" tabindex="-1">{ page }</main>
            </batch::job::JobProvider>
            </sandbox::WorkersProvider>
            </settings::SettingsProvider>
        </>
    }
}
