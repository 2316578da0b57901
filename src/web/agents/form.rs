//! The endpoint settings form, shared by the task view's Endpoint mode and the batch view.
//! Every change goes to the page's settings and is stored at once (the key only if
//! "remember" is ticked).

use yew::prelude::*;

use super::super::settings::{EndpointSettings, SettingsHandle, use_settings};
use super::super::util::{event_checked, event_value};
use super::remote;

/// A field's change handler: `set` writes the field's new text into the endpoint settings.
fn field(settings: &SettingsHandle, set: fn(&mut EndpointSettings, String)) -> Callback<Event> {
    let settings = settings.clone();
    Callback::from(move |e: Event| {
        let value = event_value(&e);
        settings.update(move |s| set(&mut s.endpoint, value));
    })
}

#[function_component(EndpointForm)]
pub fn endpoint_form() -> Html {
    let settings = use_settings();
    let s = settings.endpoint.clone();
    let on_remember = {
        let settings = settings.clone();
        Callback::from(move |e: Event| {
            let remember = event_checked(&e);
            settings.update(move |s| s.endpoint.remember_key = remember);
        })
    };
    let problems = remote::check(&s);
    let number = |v: Option<String>| v.unwrap_or_default();
    html! {
        <fieldset class="endpoint-form">
            <legend>{ "Agent endpoint" }</legend>
            <div class="field">
                <label for="ep-kind">{ "Protocol" }</label>
                <select id="ep-kind" onchange={field(&settings, |s, v| s.kind = v)}>
                    <option value="openai" selected={s.kind == "openai"}>{ "OpenAI-compatible chat completions" }</option>
                    <option value="a2a" selected={s.kind == "a2a"}>{ "A2A (JSON-RPC message/send)" }</option>
                </select>
            </div>
            <div class="field wide">
                <label for="ep-url">{ "URL" }</label>
                <input id="ep-url" type="url" value={s.url.clone()} placeholder="http://localhost:11434/v1"
                       onchange={field(&settings, |s, v| s.url = v.trim().to_string())} />
            </div>
            <div class="field">
                <label for="ep-model">{ "Model" }</label>
                <input id="ep-model" value={s.model.clone()} placeholder="e.g. qwen2.5:7b"
                       onchange={field(&settings, |s, v| s.model = v.trim().to_string())} />
            </div>
            <div class="field">
                <label for="ep-key">{ "API key" }</label>
                <input id="ep-key" type="password" autocomplete="off" value={s.api_key.clone()}
                       onchange={field(&settings, |s, v| s.api_key = v.trim().to_string())} />
                <label class="check">
                    <input type="checkbox" checked={s.remember_key} onchange={on_remember} />
                    { " remember on this device" }
                </label>
            </div>
            <div class="field">
                <label for="ep-temp">{ "Temperature" }</label>
                <input id="ep-temp" type="number" step="0.1" min="0" max="2" value={number(s.temperature.map(|t| t.to_string()))}
                       onchange={field(&settings, |s, v| s.temperature = v.parse().ok())} />
            </div>
            <div class="field">
                <label for="ep-max">{ "Max tokens" }</label>
                <input id="ep-max" type="number" min="1" value={number(s.max_tokens.map(|t| t.to_string()))}
                       onchange={field(&settings, |s, v| s.max_tokens = v.parse().ok())} />
            </div>
            <div class="field">
                <label for="ep-timeout">{ "Timeout (s)" }</label>
                <input id="ep-timeout" type="number" min="1" value={s.timeout_s.to_string()}
                       onchange={field(&settings, |s, v| s.timeout_s = v.parse().unwrap_or(120))} />
            </div>
            <p class="muted hint">{ "The key stays in this browser and is sent only to this URL; it is stored only if you tick remember." }</p>
            if !problems.is_empty() {
                <ul class="problems">{ for problems.iter().map(|p| html! { <li>{ p }</li> }) }</ul>
            }
        </fieldset>
    }
}
