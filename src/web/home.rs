//! The home page: what NetPress is, the applications with a paragraph each, a button that opens
//! a random task, and the most recent runs from the history.

use yew::prelude::*;

use super::go;
use super::settings::use_settings;
use super::store::{self, RunMeta};
use super::task::{random_seed, random_task};
use super::util::{date_time, pct};
use crate::link::{TaskLink, View};
use crate::registry::catalog;

/// Runs listed under "recent runs".
const RECENT: usize = 5;

#[function_component(Home)]
pub fn home() -> Html {
    let recent = use_state(|| None::<Result<Vec<RunMeta>, String>>);
    {
        let recent = recent.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move { recent.set(Some(store::list().await)) });
        });
    }
    let variant = use_settings().variant;
    let random = Callback::from(move |_| {
        if let Some(link) = random_task(variant) {
            go(&View::Task(link));
        }
    });
    let cards = catalog().iter().map(|info| {
        let open = Callback::from(move |_| {
            let mut link = TaskLink::new(info.default_id(info.levels[0].level, random_seed(), 0));
            link.variant = variant;
            go(&View::Task(link));
        });
        html! {
            <article class="card app-card" data-app={info.name} data-sandboxed={info.sandboxed.to_string()}>
                <h2>{ info.title }</h2>
                <p>{ info.summary }</p>
                <ul class="levels">
                { for info.levels.iter().map(|l| html! { <li><b>{ format!("L{}", l.level) }</b>{ " " }{ l.summary }</li> }) }
                </ul>
                <div class="row">
                    <button type="button" onclick={open}>{ format!("Open a {} task", info.title) }</button>
                    <a href={crate::link::format(&View::Batch(crate::link::BatchLink { app: Some(info.name.into()), ..Default::default() }))}>{ "batch" }</a>
                </div>
            </article>
        }
    });
    html! {
        <section class="home">
            <div class="hero">
                <p class="lede">
                    { "NetPress generates seeded network-operations tasks and checks answers with emulators that run \
                       in this tab. Read a task, answer it in a terminal, paste an agent's answer, or run an agent \
                       on hundreds of tasks and compare the results with confidence intervals. Nothing leaves your \
                       browser except the calls you make to an agent endpoint." }
                </p>
                <button type="button" id="random-task" class="big" onclick={random}>{ "Try a random task" }</button>
            </div>
            <div class="app-grid">{ for cards }</div>
            <section class="card recent">
                <h2>{ "Recent runs" }</h2>
                { match &*recent {
                    None => html! { <p class="muted">{ "Loading…" }</p> },
                    Some(Err(e)) => html! { <p class="error">{ e }</p> },
                    Some(Ok(runs)) if runs.is_empty() => html! { <p class="muted">{ "None yet: your runs will be listed here and kept in this browser." }</p> },
                    Some(Ok(runs)) => html! {
                        <>
                            <ul class="recent-list">
                            { for runs.iter().take(RECENT).map(|m| html! {
                                <li>
                                    <a href="#/history">{ &m.name }</a>
                                    <span class="muted">{ format!(" · {} · {} · {} correct", date_time(m.created), crate::view::count(m.n, "task", "tasks"),
                                        if m.n == 0 { "—".to_string() } else { pct(m.correct as f64 / m.n as f64) }) }</span>
                                </li>
                            }) }
                            </ul>
                            <a href="#/history">{ if runs.len() == 1 { "The whole history".to_string() } else { format!("All {} runs", runs.len()) } }</a>
                        </>
                    },
                } }
            </section>
        </section>
    }
}
