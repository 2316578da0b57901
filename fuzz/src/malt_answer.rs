//! Fuzzes the parsers of pasted MALT answers: code extraction from a reply, the return
//! contract (a JSON string of the answer dict) and the text-number parser. None may panic.

use netpress::malt::api::Py;
use netpress::malt::{answer, check, extract};

pub fn fuzz(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(source) = extract::extract(text) {
        let _ = source.program();
    }
    let _ = answer::parse(Py::Str(text.to_string()));
    let _ = check::parse_number(text);
}
