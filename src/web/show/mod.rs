//! Generic renderers of the library's view data and results: topology pictures, state
//! panels, turn logs and the score card. They know nothing of any application.

pub mod chart;
pub mod panels;
pub mod picture;
pub mod score;
pub mod terms;
pub mod turns;

use yew::prelude::*;

use crate::view::Tone;

/// The CSS class of a tone; the symbol ([`Tone::symbol`]) is always shown beside the colour.
pub fn tone_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Good => "tone-good",
        Tone::Bad => "tone-bad",
        Tone::Broken => "tone-broken",
        Tone::Fixed => "tone-fixed",
        Tone::None => "tone-none",
        Tone::Neutral => "tone-neutral",
    }
}

/// Words for a tone, for legends and screen readers.
pub fn tone_words(tone: Tone) -> &'static str {
    match tone {
        Tone::Good => "works",
        Tone::Bad => "fails",
        Tone::Broken => "broken by the agent",
        Tone::Fixed => "repaired",
        Tone::None => "not applicable",
        Tone::Neutral => "",
    }
}

#[derive(Properties, PartialEq)]
pub struct WideProps {
    /// What the table holds, for the scrolling region's name.
    pub label: AttrValue,
    pub children: Html,
}

/// Columns of the table in `wrap` wholly in view, and all of them; `None` when none is cut off.
fn columns_in_view(wrap: &web_sys::HtmlElement) -> Option<(u32, u32)> {
    use wasm_bindgen::JsCast;
    if wrap.scroll_width() <= wrap.client_width() {
        return None;
    }
    let heads = wrap.query_selector_all("table > thead > tr:first-child > th").ok()?;
    let (left, right) = (wrap.scroll_left(), wrap.scroll_left() + wrap.client_width());
    let cells: Vec<web_sys::HtmlElement> =
        (0..heads.length()).filter_map(|i| heads.item(i)?.dyn_into().ok()).collect();
    let seen = cells
        .iter()
        .filter(|c| c.offset_left() >= left - 1 && c.offset_left() + c.offset_width() <= right + 1);
    Some((seen.count() as u32, cells.len() as u32))
}

/// A wide table in a box that scrolls sideways, which says so while columns are out of view
/// (on a phone, say): how many fit and that the rest are a scroll away. The box takes focus,
/// so the keyboard can scroll it too.
#[function_component(Wide)]
pub fn wide(props: &WideProps) -> Html {
    let node = use_node_ref();
    let cut = use_state_eq(|| None::<(u32, u32)>);
    let measure = {
        let (node, cut) = (node.clone(), cut.clone());
        Callback::from(move |_: ()| {
            if let Some(wrap) = node.cast::<web_sys::HtmlElement>() {
                cut.set(columns_in_view(&wrap));
            }
        })
    };
    {
        let measure = measure.clone();
        // After every render (rows arrive, a run expands) and whenever the window resizes.
        use_effect(move || {
            measure.emit(());
            let listener =
                gloo::events::EventListener::new(&gloo::utils::window(), "resize", move |_| measure.emit(()));
            move || drop(listener)
        });
    }
    let onscroll = Callback::from(move |_: Event| measure.emit(()));
    html! {
        <>
            if let Some((seen, all)) = *cut {
                <p class="scroll-hint" role="note">
                    { format!("{seen} of {all} columns in view: scroll the table sideways for the others.") }
                </p>
            }
            <div class={classes!("table-wrap", cut.is_some().then_some("cut"))} ref={node} {onscroll}
                 tabindex="0" role="region" aria-label={props.label.clone()}>
                { props.children.clone() }
            </div>
        </>
    }
}
