//! The home page: the registered applications and a way to try a task.

use yew::prelude::*;

use crate::link::{TaskLink, View};
use crate::registry::apps;

/// A seed for "try a random task": the page's own randomness picks *which* task; the task
/// itself is still fully determined by its id.
fn random_seed() -> u64 {
    (js_sys::Math::random() * 1_000_000.0) as u64
}

#[function_component(Home)]
pub fn home() -> Html {
    let cards = apps().iter().map(|app| {
        let info = app.info();
        let level = info.levels[0].level;
        let open = Callback::from(move |_| {
            let id = app.default_id(level, random_seed(), 0);
            super::go(&View::Task(TaskLink::new(id)));
        });
        html! {
            <article class="card app-card" data-app={info.name}>
                <h2>{ info.title }</h2>
                <p>{ info.summary }</p>
                <p class="levels">{ format!("{} levels", info.levels.len()) }</p>
                <button onclick={open}>{ format!("Try a random {} task", info.title) }</button>
            </article>
        }
    });
    html! {
        <section class="home">
            <p class="lede">
                { "Every task is generated from a seed and checked by an emulator in this tab. \
                   Pick an application to read a task, answer it yourself or run an agent." }
            </p>
            <div class="app-grid">{ for cards }</div>
        </section>
    }
}
