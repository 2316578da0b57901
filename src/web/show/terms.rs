//! The abbreviations a text uses, spelled out beside it: a task's label and level summary on
//! the id card, the safety rules a score explanation names. The glossary is the
//! application's (`App::glossary`); this component only lays it out.

use yew::prelude::*;

use crate::app::terms_in;

#[derive(Properties, PartialEq)]
pub struct TermsProps {
    /// The application whose glossary applies.
    pub app: AttrValue,
    /// The texts whose abbreviations are explained, in reading order.
    pub texts: Vec<AttrValue>,
}

/// A definition list of the terms the texts use; nothing when they use none.
#[function_component(Terms)]
pub fn terms(props: &TermsProps) -> Html {
    let Ok(app) = crate::registry::info(&props.app) else { return Html::default() };
    let mut seen = Vec::new();
    for text in &props.texts {
        for term in terms_in(app.glossary, text) {
            if !seen.iter().any(|t: &&crate::app::Term| t.abbr == term.abbr) {
                seen.push(term);
            }
        }
    }
    if seen.is_empty() {
        return Html::default();
    }
    html! {
        <dl class="terms" aria-label="Abbreviations">
            { for seen.iter().map(|t| html! {
                <div><dt><abbr title={t.meaning}>{ t.abbr }</abbr></dt><dd>{ t.meaning }</dd></div>
            }) }
        </dl>
    }
}
