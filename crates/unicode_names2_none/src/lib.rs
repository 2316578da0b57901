//! A stand-in for the `unicode_names2` crate that knows no character names.
//!
//! The published crate carries the whole Unicode character-name table, about 0.32 MB gzip of
//! MALT's worker bundle, for one rarely used feature of the Python sandbox: `"\N{NAME}"` string
//! escapes, `unicodedata.name`/`lookup` and the `namereplace` codec error handler. NetPress
//! patches it with this crate (natively too, so both builds behave the same): every look-up
//! finds nothing, and the vendored monty turns that into a clear error (docs/malt.md, "Python
//! subset"; docs/bundles.md, "Budgets").
//!
//! Only the two functions monty and the parser call exist, with the published signatures. The
//! behaviour is tested through the sandbox (`tests/data/malt/python_subset.rs`): this crate is
//! not a member of the project's workspace, so tests of its own would not run.

#![no_std]

use core::fmt;

/// A character's name; never made, since no character has one here.
#[derive(Clone)]
pub struct Name {
    never: core::convert::Infallible,
}

impl Iterator for Name {
    type Item = &'static str;

    fn next(&mut self) -> Option<&'static str> {
        match self.never {}
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.never {}
    }
}

impl fmt::Display for Name {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.never {}
    }
}

/// The name of `c`: always `None` (there is no table).
#[must_use]
pub fn name(_c: char) -> Option<Name> {
    None
}

/// The character named `name`: always `None` (there is no table).
#[must_use]
pub fn character(_name: &str) -> Option<char> {
    None
}
