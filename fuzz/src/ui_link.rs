//! Fuzzes the web app's URL state: parsing any fragment never panics, and every view a
//! fragment parses to formats to a fragment that parses back to the same view.

use netpress::link::{View, format, parse};

pub fn fuzz(data: &[u8]) {
    let Ok(fragment) = std::str::from_utf8(data) else { return };
    let view = parse(fragment);
    if !matches!(view, View::NotFound(_)) {
        let again = parse(&format(&view));
        assert_eq!(again, view, "{fragment:?}");
    }
}
