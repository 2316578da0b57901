//! Organisations: who holds which ASNs.
//!
//! Every AS belongs to exactly one organisation. From L2 on, about one organisation in ten holds
//! two ASNs; such siblings matter to an investigator because a sibling starting to originate a
//! prefix (anycast, a migration) is benign where a stranger doing the same is a hijack. Siblings
//! keep the links the hierarchy drew for them: being siblings is an ownership fact, not a
//! routing relationship.
//!
//! Draw, over the ASes in creation order: an AS not yet in an organisation opens one and, with
//! probability 1/10 (L2+), draws its sibling uniformly among the ASes still without one.

use super::level::Level;
use super::topology::AsIx;
use crate::seed::Stream;

/// For each AS, its organisation's index; organisations are numbered in order of their first AS.
pub fn draw(s: &mut Stream, level: Level, n: usize) -> Vec<usize> {
    let mut org: Vec<Option<usize>> = vec![None; n];
    let mut next = 0;
    for a in 0..n {
        if org[a].is_some() {
            continue;
        }
        org[a] = Some(next);
        if level.has_siblings() && s.chance(1, 10) {
            let free: Vec<AsIx> = (0..n).filter(|&b| org[b].is_none()).collect();
            if !free.is_empty() {
                org[free[s.index(free.len())]] = Some(next);
            }
        }
        next += 1;
    }
    org.into_iter().map(|o| o.unwrap_or(0)).collect()
}

/// The ASes of each organisation, in index order.
pub fn members(org_of: &[usize]) -> Vec<Vec<AsIx>> {
    let count = org_of.iter().max().map_or(0, |m| m + 1);
    let mut out = vec![Vec::new(); count];
    for (a, &o) in org_of.iter().enumerate() {
        out[o].push(a);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::Width;

    #[test]
    fn at_most_two_per_org_and_none_at_l1() {
        let mut s = Stream::new("orgs", Width::W32);
        let orgs = members(&draw(&mut s, Level::L3, 400));
        assert!(orgs.iter().all(|m| (1..=2).contains(&m.len())));
        let pairs = orgs.iter().filter(|m| m.len() == 2).count();
        assert!(pairs > 10 && pairs < 80, "{pairs} sibling pairs");
        let l1 = members(&draw(&mut s, Level::L1, 40));
        assert_eq!(l1.len(), 40);
    }
}
