//! Fuzzes the five flow-log parsers with arbitrary text: every input parses or gives a
//! `ParseError`, never a panic.

use netpress::flows::Format;
use netpress::flows::format::{self, Inventory};

pub fn fuzz(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let format = Format::ALL[usize::from(pick) % Format::ALL.len()];
    let _ = format::parse(format, &text, &Inventory::default());
}
