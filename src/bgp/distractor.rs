//! The L4 distractor: a second, unrelated incident in the same window.
//!
//! At L4 the trigger names only an organisation, and the feeds carry another real incident
//! elsewhere: a hijack, leak, re-origination, more-specific leak or outage that involves none of
//! the target's ASes and none of its prefixes (no prefix of one covers or lies inside a prefix of
//! the other). A rule that reports the first suspicious thing it sees is caught by it; a verdict
//! naming the distractor is simply incorrect (distractors never count).
//!
//! Families that change the routing graph or the ROA set (link failure, ROA misconfiguration)
//! are not used as distractors, because a task holds one graph and one VRP set at a time and
//! the target may change them. The distractor is drawn right after the target's parameters, up
//! to [`TRIES`] times; it must be visible at one vantage point at least (checked with the
//! timeline, see [`super::validity::distractor_visible`]).

use super::family::Family;
use super::incident::{self, Ctx, Incident};
use crate::seed::Stream;

/// The families a distractor is drawn from, uniformly.
pub const FAMILIES: [Family; 10] = [
    Family::Eh,
    Family::Sh,
    Family::Fo,
    Family::Rl1,
    Family::Rl2,
    Family::Rl3,
    Family::Rl4,
    Family::Ro,
    Family::Ms,
    Family::Ow,
];

/// Draws before giving up on this target.
pub const TRIES: usize = 8;

/// Whether `a` and `b` share no AS and no overlapping prefix.
pub fn disjoint(a: &Incident, b: &Incident) -> bool {
    let nets = |i: &Incident| i.prefixes.iter().copied().chain([i.prefix]).collect::<Vec<_>>();
    let (pa, pb) = (nets(a), nets(b));
    a.ases.iter().all(|x| !b.ases.contains(x))
        && pa.iter().all(|p| pb.iter().all(|q| !p.contains(q) && !q.contains(p)))
}

/// A distractor for `target` in `ctx`'s world (`ctx.name` should be `distractor`).
pub fn draw(s: &mut Stream, ctx: &Ctx<'_>, target: &Incident) -> Option<Incident> {
    for _ in 0..TRIES {
        let fam = *s.choose(&FAMILIES);
        if let Some(d) = incident::draw(s, ctx, fam).filter(|d| disjoint(target, d)) {
            return Some(d);
        }
    }
    None
}
