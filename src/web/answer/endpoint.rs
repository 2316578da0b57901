//! Endpoint mode: call a network agent (OpenAI-compatible or A2A) turn by turn, watching each
//! reply and observation arrive, with a Stop button that aborts the call in flight.

use std::rc::Rc;

use yew::prelude::*;

use super::ModeProps;
use super::session::{EpisodeView, SessionCtl, use_session};

use super::super::agents::form::EndpointForm;
use super::super::agents::{Pace, PageAgent, drive, remote};
use super::super::settings::use_settings;

async fn run(ctl: SessionCtl, client: Rc<dyn remote::RemoteClient>) {
    let mut agent = PageAgent::Remote(client);
    let info = agent.info();
    let Some((handle, snapshot, cancel)) = ctl.start(&info, true).await else { return };
    let shown = ctl.clone();
    match drive(&handle, snapshot, &mut agent, &cancel, Pace::Watch(0), move |s| shown.show(s)).await {
        Ok(last) => {
            ctl.show(&last);
            ctl.finish().await;
        }
        Err(e) => ctl.fail(e),
    }
}

#[function_component(Endpoint)]
pub fn endpoint(props: &ModeProps) -> Html {
    let ctl = use_session(&props.task, props.link.variant, &props.on_picture);
    let problem = use_state(|| None::<String>);
    // The client of the run in flight, so Stop can abort its call.
    let client = use_mut_ref(|| None::<Rc<dyn remote::RemoteClient>>);
    let settings = use_settings();
    let onclick = {
        let (ctl, problem, client) = (ctl.clone(), problem.clone(), client.clone());
        Callback::from(move |_| {
            let (ctl, problem, client) = (ctl.clone(), problem.clone(), client.clone());
            let endpoint = settings.endpoint.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match remote::connect(&endpoint).await {
                    Err(e) => problem.set(Some(e)),
                    Ok(c) => {
                        problem.set(None);
                        *client.borrow_mut() = Some(c.clone());
                        run(ctl, c).await;
                    }
                }
            });
        })
    };
    let stop = {
        let (ctl, client) = (ctl.clone(), client.clone());
        Callback::from(move |_| {
            ctl.get().cancel.set(true);
            if let Some(c) = client.borrow().as_ref() {
                c.abort();
            }
        })
    };
    let running = ctl.get().running;
    html! {
        <div class="endpoint-mode">
            <EndpointForm />
            <div class="row">
                <button type="button" id="endpoint-run" data-autofocus="" {onclick} disabled={running}>{ "Call the agent" }</button>
                <button type="button" class="secondary" onclick={stop} disabled={!running}>{ "Stop" }</button>
            </div>
            if let Some(p) = &*problem { <p class="error" role="alert">{ p }</p> }
            <EpisodeView ctl={ctl.clone()} />
        </div>
    }
}
