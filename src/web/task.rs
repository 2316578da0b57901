//! The task view: a generated task's id, content hash and prompt.

use yew::prelude::*;

use crate::app::PromptVariant;
use crate::link::{TaskLink, View};

#[derive(Properties, PartialEq)]
pub struct TaskProps {
    pub link: TaskLink,
}

#[function_component(TaskPage)]
pub fn task_page(props: &TaskProps) -> Html {
    let link = props.link.clone();
    let task = use_memo(link.id.clone(), |id| crate::registry::app(&id.app).and_then(|a| a.generate(id)));
    let task = match &*task {
        Ok(t) => t.clone(),
        Err(e) => return html! { <super::layout::NotFound reason={e.to_string()} /> },
    };
    let card = task.card();
    let on_variant = {
        let link = link.clone();
        Callback::from(move |e: Event| {
            let value = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            if let Ok(variant) = PromptVariant::parse(&value) {
                super::go(&View::Task(TaskLink { variant, ..link.clone() }));
            }
        })
    };
    let variants = PromptVariant::ALL.iter().map(|v| {
        html! { <option value={v.as_str()} selected={*v == link.variant}>{ v.as_str() }</option> }
    });
    html! {
        <section class="task">
            <div class="card ids">
                <div><span class="k">{ "query id" }</span><code id="query-id">{ &card.id }</code></div>
                <div><span class="k">{ "content hash" }</span><code id="content-hash" title={card.content_hash.clone()}>{ &card.content_hash }</code></div>
                <div><span class="k">{ "label" }</span><code>{ &card.label }</code></div>
            </div>
            <div class="card">
                <label for="variant">{ "Prompt variant " }</label>
                <select id="variant" onchange={on_variant}>{ for variants }</select>
                <pre id="prompt" class="prompt">{ task.prompt(link.variant) }</pre>
            </div>
        </section>
    }
}
