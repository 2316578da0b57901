//! The Yew single-page app: a thin surface over the library (feature `web`).

use yew::prelude::*;

/// Mounts the app on the page body.
pub fn start() {
    yew::Renderer::<Root>::new().render();
}

#[function_component(Root)]
fn root() -> Html {
    let apps = crate::registry::apps().iter().map(|a| {
        let info = a.info();
        html! { <li><strong>{ info.title }</strong>{ " — " }{ info.summary }</li> }
    });
    html! {
        <main>
            <h1>{ "NetPress" }</h1>
            <ul>{ for apps }</ul>
        </main>
    }
}
