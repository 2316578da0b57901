//! Generic renderers of the library's view data and results: topology pictures, state
//! panels, turn logs and the score card. They know nothing of any application.

pub mod chart;
pub mod panels;
pub mod picture;
pub mod score;
pub mod terms;
pub mod turns;

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
