//! Page furniture: the header with the views' navigation, and the not-found message.

use yew::prelude::*;

use super::batch::job;
use crate::link::View;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub view: View,
}

/// The navigation entries: fragment, label, and whether a view is theirs.
const NAV: [(&str, &str); 5] = [
    ("#/batch", "Batch"),
    ("#/adapt", "Adapt"),
    ("#/compare", "Compare"),
    ("#/history", "History"),
    ("#/bench", "Benchmark"),
];

fn section(view: &View) -> &'static str {
    match view {
        View::Batch(_) => "#/batch",
        View::Compare(_) => "#/compare",
        View::History => "#/history",
        View::Bench => "#/bench",
        View::Adapt(_) => "#/adapt",
        _ => "",
    }
}

#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    let progress = job::use_job();
    let here = section(&props.view);
    html! {
        <header class="top">
            <a class="brand" href="#/">{ "NetPress" }</a>
            <nav aria-label="Views">
                { for NAV.iter().map(|(href, label)| html! {
                    <a href={*href} aria-current={(*href == here).then_some("page")}>{ *label }</a>
                }) }
            </nav>
            if let Some(job) = progress.filter(|j| j.borrow().running()) {
                <a class="job-pill" href="#/batch" title="A batch is running">
                    { format!("batch {}/{}", job.borrow().done(), job.borrow().total) }
                </a>
            }
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
