//! The Yew single-page app (feature `web`): a thin surface over the library.
//!
//! State lives in the URL fragment ([`crate::link`]): every view re-renders from the parsed
//! fragment, and every change of view is a change of fragment, so a copied link reopens the
//! same view. Components hold no benchmark logic; they call the library and draw its results.

pub mod endpoint;
mod home;
mod layout;
mod task;

use gloo::events::EventListener;
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

/// Navigates to a view by changing the fragment (the hashchange listener re-renders).
pub fn go(view: &View) {
    let _ = gloo::utils::window().location().set_hash(&link::format(view));
}

#[function_component(Root)]
fn root() -> Html {
    let view = use_state(|| link::parse(&current_fragment()));
    {
        let view = view.clone();
        use_effect_with((), move |_| {
            let listener = EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
                view.set(link::parse(&current_fragment()));
            });
            move || drop(listener)
        });
    }
    let page = match &*view {
        View::Home => html! { <home::Home /> },
        View::Task(t) => html! { <task::TaskPage link={t.clone()} /> },
        View::NotFound(reason) => html! { <layout::NotFound reason={reason.clone()} /> },
        other => {
            html! { <layout::NotFound reason={format!("the {} view is not available yet", view_name(other))} /> }
        }
    };
    html! {
        <>
            <layout::Header />
            <main id="main">{ page }</main>
        </>
    }
}

fn view_name(view: &View) -> &'static str {
    match view {
        View::Batch => "batch",
        View::Compare => "compare",
        View::History => "history",
        View::Bench => "benchmark",
        _ => "requested",
    }
}
