//! The task view: pick a task, read it exactly as an agent receives it, see its topology, and
//! answer it in one of the answer modes. Everything shown is named by the URL.

mod card;
mod picker;

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::answer::{self, AnswerPanel, Drafts};
use super::go;
use super::sandbox::{Opened, use_workers};
use super::show::picture::PictureView;
use crate::QueryId;
use crate::link::{TaskLink, View};
use crate::view::Picture;

pub use picker::{random_seed, random_task};

#[derive(Properties, PartialEq)]
pub struct TaskProps {
    pub link: TaskLink,
}

/// Single-key shortcuts of the task view, ignored while typing in a field.
fn shortcut(link: &TaskLink, e: &web_sys::KeyboardEvent) -> bool {
    let typing = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).is_some_and(|el| {
        matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
            || el.has_attribute("contenteditable")
    });
    if typing || e.ctrl_key() || e.meta_key() || e.alt_key() {
        return false;
    }
    let id = &link.id;
    let next = match e.key().as_str() {
        "n" => QueryId { index: id.index.saturating_add(1), ..id.clone() },
        "s" => QueryId { seed: id.seed.saturating_add(1), index: 0, ..id.clone() },
        "r" => QueryId { seed: random_seed(), index: 0, ..id.clone() },
        // Handled (and its default, typing the `/`, prevented) only when there is a field.
        "/" => return answer::focus_answer(),
        _ => return false,
    };
    go(&View::Task(TaskLink { id: next, answer: None, ..link.clone() }));
    true
}

#[function_component(TaskPage)]
pub fn task_page(props: &TaskProps) -> Html {
    let link = props.link.clone();
    // The task opens in its application's worker (loaded with the first task of the app):
    // `None` until it answers.
    let workers = use_workers();
    let task = use_state(|| None::<(QueryId, Result<Opened, String>)>);
    // The id asked for last: an opening that ends after a later one was asked for is dropped.
    let latest = use_mut_ref(|| None::<QueryId>);
    {
        let task = task.clone();
        use_effect_with(link.id.clone(), move |id| {
            let id = id.clone();
            *latest.borrow_mut() = Some(id.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let opened = Opened::open(&workers, &id.to_string()).await;
                if latest.borrow().as_ref() == Some(&id) {
                    task.set(Some((id, opened)));
                }
            });
        });
    }
    // The episode's own picture (K8s: the call graph under the current policies), if any.
    let live_picture = use_state(|| None::<Picture>);
    {
        let live_picture = live_picture.clone();
        // A new task or variant starts from the task's own picture (the answer tabs report
        // theirs as they are shown).
        use_effect_with((link.id.clone(), link.variant), move |_| live_picture.set(None));
    }
    {
        let link = link.clone();
        use_effect_with(link.clone(), move |link| {
            let link = link.clone();
            // Not passive: a handled shortcut must be able to cancel its key's default.
            let options = EventListenerOptions::enable_prevent_default();
            let document = gloo::utils::document();
            let listener = EventListener::new_with_options(&document, "keydown", options, move |e| {
                if let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>()
                    && shortcut(&link, e)
                {
                    e.prevent_default();
                }
            });
            move || drop(listener)
        });
    }
    let drafts = use_memo(link.id.clone(), |id| Drafts::load(&id.to_string(), answer::default_mode(&id.app)));
    let body = match &*task {
        Some((id, Ok(task))) if *id == link.id => body(task.clone(), &link, &live_picture, &drafts),
        Some((id, Err(e))) if *id == link.id => html! {
            <section class="card notice" role="alert">
                <h2>{ "This task cannot be generated" }</h2>
                <p>{ e.clone() }</p>
                <p>{ "Change the fields above, or " }<a href="#/">{ "go to the home page" }</a>{ "." }</p>
            </section>
        },
        _ => html! { <section class="card muted" aria-busy="true"><p>{ "Opening the task…" }</p></section> },
    };
    html! {
        <section class="task">
            <picker::Picker link={link.clone()} />
            { body }
            <p class="keys muted">{ "Keys: n next index · s next seed · r random seed · / focus the answer" }</p>
        </section>
    }
}

fn body(task: Opened, link: &TaskLink, live: &UseStateHandle<Option<Picture>>, drafts: &Drafts) -> Html {
    let picture = (**live).clone().unwrap_or_else(|| task.view.picture.clone());
    let on_picture = {
        let live = live.clone();
        Callback::from(move |p: Option<Picture>| live.set(p))
    };
    let wrapper = task;
    html! {
        <>
            <card::IdCard task={wrapper.clone()} link={link.clone()} drafts={drafts.clone()} />
            <div class="task-cols">
                <div class="col">
                    <card::PromptCard task={wrapper.clone()} link={link.clone()} />
                    <section class="card">
                        <h3>{ "Topology" }</h3>
                        <PictureView {picture} />
                    </section>
                </div>
                <div class="col">
                    <AnswerPanel key={format!("{}|{}", link.id, link.variant.as_str())} task={wrapper}
                                 link={link.clone()} {on_picture} drafts={drafts.clone()} />
                </div>
            </div>
        </>
    }
}

/// A task as a component property: equal when it is the same opening.
pub type TaskRef = Opened;
