//! The task picker: application, level, knobs, seed and index, each change opening the task
//! its id names (so the URL always names what is shown).

use yew::prelude::*;

use super::super::{go, util};
use crate::QueryId;
use crate::app::{AppInfo, PromptVariant};
use crate::link::{TaskLink, View};
use crate::registry::catalog;

#[derive(Properties, PartialEq)]
pub struct PickerProps {
    pub link: TaskLink,
}

/// Opens `id` keeping the link's variant and mode (an answer belongs to the old task).
fn open(link: &TaskLink, id: QueryId) {
    go(&View::Task(TaskLink { id, answer: None, ..link.clone() }));
}

/// The id of another application's task at the same seed, with its default knobs.
fn switch_app(app: &AppInfo, seed: u64) -> QueryId {
    app.default_id(app.levels[0].level, seed, 0)
}

/// A random seed for "random" buttons: below 2^32 so ids stay short.
pub fn random_seed() -> u64 {
    util::random_below(1 << 32)
}

/// A random task of a random application, opening in `variant` (the user's preferred one).
pub fn random_task(variant: PromptVariant) -> Option<TaskLink> {
    let all = catalog();
    let app = *all.get(util::random_below(all.len() as u64) as usize)?;
    let levels = app.levels;
    let level = levels[util::random_below(levels.len() as u64) as usize].level;
    let mut link = TaskLink::new(app.default_id(level, random_seed(), 0));
    link.variant = variant;
    Some(link)
}

#[function_component(Picker)]
pub fn picker(props: &PickerProps) -> Html {
    let link = &props.link;
    let id = &link.id;
    let app = crate::registry::info(&id.app).ok();
    let numeric = |field: &'static str| {
        let link = link.clone();
        Callback::from(move |e: Event| {
            let Ok(value) = util::event_value(&e).trim().parse::<u64>() else { return };
            let id = match field {
                "seed" => QueryId { seed: value, ..link.id.clone() },
                _ => QueryId { index: value, ..link.id.clone() },
            };
            open(&link, id);
        })
    };
    let step = |f: fn(&QueryId) -> QueryId| {
        let link = link.clone();
        Callback::from(move |_| open(&link, f(&link.id)))
    };
    let on_app = {
        let link = link.clone();
        Callback::from(move |e: Event| {
            if let Ok(app) = crate::registry::info(&util::event_value(&e)) {
                open(&link, switch_app(app, link.id.seed));
            }
        })
    };
    let on_level = {
        let link = link.clone();
        Callback::from(move |e: Event| {
            if let Ok(level) = util::event_value(&e).parse() {
                open(&link, QueryId { level, ..link.id.clone() });
            }
        })
    };
    let knobs = app.map(|info| {
        let order = info.knob_order();
        info.knobs.iter().map(move |k| {
            let link = link.clone();
            let order = order.clone();
            let key = k.key;
            let onchange = Callback::from(move |e: Event| {
                let value = util::event_value(&e).trim().to_string();
                let mut id = link.id.clone();
                if value.is_empty() {
                    id.knobs.retain(|kn| kn.key != key);
                } else {
                    id = id.with_knob(key, value, &order);
                }
                open(&link, id);
            });
            let input_id = format!("knob-{key}");
            html! {
                <div class="field knob">
                    <label for={input_id.clone()} title={k.help}>{ k.name }</label>
                    <input id={input_id} size="7" value={id.knob(key).unwrap_or_default().to_string()}
                           placeholder={k.values} title={format!("{} ({}); empty: drawn or default", k.help, k.values)}
                           {onchange} />
                </div>
            }
        })
    });
    html! {
        <form class="card picker" aria-label="Choose a task" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <div class="field">
                <label for="pick-app">{ "Application" }</label>
                <select id="pick-app" onchange={on_app}>
                { for catalog().iter().map(|a| html! {
                    <option value={a.name} selected={a.name == id.app}>{ a.title }</option>
                }) }
                </select>
            </div>
            <div class="field">
                <label for="pick-level">{ "Level" }</label>
                <select id="pick-level" onchange={on_level}>
                { for app.into_iter().flat_map(|a| a.levels).map(|l| html! {
                    <option value={l.level.to_string()} selected={l.level == id.level} title={l.summary}>
                        { format!("L{} — {}", l.level, l.summary) }
                    </option>
                }) }
                </select>
            </div>
            <div class="field num">
                <label for="pick-seed">{ "Seed" }</label>
                <input id="pick-seed" class="u64" type="number" min="0" value={id.seed.to_string()} onchange={numeric("seed")} />
                // Visible words stay short; the accessible names say which number each changes.
                <button type="button" class="secondary" aria-label="next seed" title="next seed (s)" onclick={step(|id| QueryId { seed: id.seed.saturating_add(1), index: 0, ..id.clone() })}>{ "next" }</button>
                <button type="button" class="secondary" aria-label="random seed" title="random seed (r)" onclick={step(|id| QueryId { seed: random_seed(), index: 0, ..id.clone() })}>{ "random" }</button>
            </div>
            <div class="field num">
                <label for="pick-index">{ "Index" }</label>
                <input id="pick-index" class="u64" type="number" min="0" value={id.index.to_string()} onchange={numeric("index")} />
                <button type="button" class="secondary" aria-label="next index" title="next index (n)" onclick={step(|id| QueryId { index: id.index.saturating_add(1), ..id.clone() })}>{ "next" }</button>
                <button type="button" class="secondary" aria-label="random index" title="random index" onclick={step(|id| QueryId { index: util::random_below(1000), ..id.clone() })}>{ "random" }</button>
            </div>
            { for knobs.into_iter().flatten() }
        </form>
    }
}
