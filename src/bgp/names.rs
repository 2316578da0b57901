//! Names of organisations and ASes, made up from syllables.
//!
//! Investigators read names (`whois`, holders in RIPEstat answers, the L4 trigger names only an
//! organisation), so they should look like operators' names while never being one: a word is
//! one syllable from a table of 26 (one per initial) and one from a table of 10, lengthened by
//! another syllable of the second table until it is unique (`Korvex`, `Alnor`, `Velio`,
//! `Korvexta`). The organisation's name adds its tier's word (`Korvex Transit`), its id is
//! `ORG-` + the word's two syllable initials + a counter + `-NP` (`ORG-KV1-NP`), and its ASes'
//! handles are `KORVEX-AS`, `KORVEX-AS2`.
//!
//! Still to come: a committed list of real operator names that no drawn word may equal (the
//! syllable tables make a collision unlikely, not impossible).

use super::topology::Tier;
use crate::seed::Stream;

const FIRST: [&str; 26] = [
    "Al", "Bran", "Cor", "Dal", "Es", "Fen", "Gar", "Hal", "Ir", "Jor", "Kor", "Lum", "Mar", "Nor", "Or",
    "Pel", "Quin", "Ros", "Sel", "Tor", "Ul", "Vel", "Wen", "Xan", "Yor", "Zen",
];
const NEXT: [&str; 10] = ["vex", "nor", "io", "tan", "ric", "mo", "da", "lis", "ren", "ta"];

/// An organisation's drawn names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgNames {
    /// `Korvex Transit`.
    pub name: String,
    /// `ORG-KV1-NP`.
    pub id: String,
    /// `KORVEX` (handles add `-AS`, `-AS2`).
    pub word: String,
}

/// Draws a unique word for each organisation (by the tier of its first AS), in order.
pub fn draw(s: &mut Stream, tiers: &[Tier]) -> Vec<OrgNames> {
    let mut taken = std::collections::BTreeSet::new();
    let mut counters = std::collections::BTreeMap::new();
    tiers
        .iter()
        .map(|tier| {
            let first = FIRST[s.index(FIRST.len())];
            let second = NEXT[s.index(NEXT.len())];
            let mut word = format!("{first}{second}");
            while taken.contains(&word) {
                word.push_str(NEXT[s.index(NEXT.len())]);
            }
            taken.insert(word.clone());
            let initials = format!("{}{}", &first[..1], second[..1].to_uppercase());
            let counter = counters.entry(initials.clone()).or_insert(0u32);
            *counter += 1;
            OrgNames {
                name: format!("{word} {}", tier.word()),
                id: format!("ORG-{initials}{counter}-NP"),
                word: word.to_uppercase(),
            }
        })
        .collect()
}

/// The handle of the `k`-th AS (0-based) of an organisation whose word is `word`.
pub fn handle(word: &str, k: usize) -> String {
    if k == 0 { format!("{word}-AS") } else { format!("{word}-AS{}", k + 1) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::Width;

    #[test]
    fn names_are_unique_even_past_the_two_syllable_space() {
        let mut s = Stream::new("names", Width::W32);
        let names = draw(&mut s, &vec![Tier::Stub; 3000]);
        let mut words: Vec<&str> = names.iter().map(|n| n.word.as_str()).collect();
        words.sort();
        words.dedup();
        assert_eq!(words.len(), 3000);
        let mut ids: Vec<&str> = names.iter().map(|n| n.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 3000);
    }

    #[test]
    fn shapes() {
        let mut s = Stream::new("shape", Width::W32);
        let n = &draw(&mut s, &[Tier::Transit])[0];
        assert!(n.name.ends_with(" Transit"));
        assert!(n.id.starts_with("ORG-") && n.id.ends_with("1-NP"), "{}", n.id);
        assert_eq!(handle("KORVEX", 0), "KORVEX-AS");
        assert_eq!(handle("KORVEX", 1), "KORVEX-AS2");
    }
}
