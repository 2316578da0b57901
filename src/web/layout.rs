//! Page furniture: the header and the not-found message.

use yew::prelude::*;

#[function_component(Header)]
pub fn header() -> Html {
    html! {
        <header class="top">
            <a class="brand" href="#/">{ "NetPress" }</a>
            <span class="tagline">{ "seeded network-operations tasks for AI agents, checked in your browser" }</span>
        </header>
    }
}

#[derive(Properties, PartialEq)]
pub struct NotFoundProps {
    pub reason: String,
}

#[function_component(NotFound)]
pub fn not_found(props: &NotFoundProps) -> Html {
    html! {
        <section class="card notice" role="alert">
            <h2>{ "This link does not open a page" }</h2>
            <p>{ &props.reason }</p>
            <p><a href="#/">{ "Go to the home page" }</a></p>
        </section>
    }
}
