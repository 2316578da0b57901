//! Baseline mode: the application's built-in scripted agent plays the task while you watch
//! its turns (at a pace you choose), ending with its score.

use yew::prelude::*;

use super::ModeProps;
use super::session::{EpisodeView, SessionCtl, use_session};

use super::super::agents::{Pace, PageAgent, drive};
use super::super::settings::use_settings;
use super::super::util::{Slicer, event_value};

async fn run(ctl: SessionCtl, mut agent: PageAgent, pace_ms: u32) {
    let info = agent.info();
    let Some((handle, snapshot, cancel)) = ctl.start(&info, true).await else { return };
    let shown = ctl.clone();
    let mut slicer = Slicer::new(12.0);
    let pace = if pace_ms > 0 { Pace::Watch(pace_ms) } else { Pace::Slices(&mut slicer) };
    match drive(&handle, snapshot, &mut agent, &cancel, pace, move |s| shown.show(s)).await {
        Ok(last) => {
            ctl.show(&last);
            ctl.finish().await;
        }
        Err(e) => ctl.fail(e),
    }
}

const PACES: [(u32, &str); 4] =
    [(0, "instant"), (300, "0.3 s per turn"), (1000, "1 s per turn"), (2500, "2.5 s per turn")];

#[function_component(Baseline)]
pub fn baseline(props: &ModeProps) -> Html {
    let ctl = use_session(&props.task, props.link.variant, &props.on_picture);
    let settings = use_settings();
    let pace = settings.pace_ms;
    let builtin = props.task.view.baseline.clone();
    let name = builtin.name.clone();
    let onclick = {
        let ctl = ctl.clone();
        Callback::from(move |_| {
            wasm_bindgen_futures::spawn_local(run(ctl.clone(), PageAgent::Builtin(builtin.clone()), pace));
        })
    };
    let stop = {
        let ctl = ctl.clone();
        Callback::from(move |_| ctl.get().cancel.set(true))
    };
    let on_pace = Callback::from(move |e: Event| {
        let ms = event_value(&e).parse().unwrap_or(0);
        settings.update(move |s| s.pace_ms = ms);
    });
    let running = ctl.get().running;
    html! {
        <div class="baseline-mode">
            <p class="muted">{ format!("The built-in agent {name} is a deterministic script, no language model: \
                                        it shows how much of a score needs none.") }</p>
            <div class="row">
                <button type="button" id="baseline-run" data-autofocus="" {onclick} disabled={running}>{ "Run the baseline" }</button>
                <button type="button" class="secondary" onclick={stop} disabled={!running}>{ "Stop" }</button>
                <label for="pace">{ "Pace" }</label>
                <select id="pace" onchange={on_pace}>
                { for PACES.iter().map(|(ms, label)| html! { <option value={ms.to_string()} selected={*ms == pace}>{ *label }</option> }) }
                </select>
            </div>
            <EpisodeView ctl={ctl.clone()} />
        </div>
    }
}
