//! What the sandbox's Python leaves out to keep MALT's browser bundle small (docs/malt.md,
//! "Python subset"), and what it keeps: each refusal ends in a clear error, and the Unicode
//! regex classes Python's `re` has still match non-ASCII text. Shared by the native sandbox
//! tests and the headless-Chrome ones (`malt_wasm_browser.rs`), so both builds answer alike:
//! the native one may link regex tables the browser one lacks.

use netpress::malt::graph::Working;
use netpress::malt::sandbox::{self, Limits};
use netpress::malt::topo::{TopoKey, topology};

/// A function body and the error it must end in (a part of the message).
pub const REFUSED: &[(&str, &str)] = &[
    (
        "    return '\\N{BULLET}'",
        "SyntaxError: \\N{...} escapes are not supported: this interpreter has no Unicode character-name table",
    ),
    ("    return f'x\\N{LATIN SMALL LETTER E WITH ACUTE}'", "\\N{...} escapes are not supported"),
    (
        "    import unicodedata\n    return unicodedata.lookup('BULLET')",
        "KeyError: undefined character name 'BULLET' (this interpreter has no Unicode character-name table)",
    ),
    (
        "    import unicodedata\n    return unicodedata.name('a')",
        "ValueError: no such name (this interpreter has no Unicode character-name table)",
    ),
    (
        "    import re\n    return re.compile(r'\\p{L}')",
        "Invalid escape: \\p (Unicode property classes are not supported",
    ),
    ("    import re\n    return re.findall(r'[\\PL]', 'a')", "Invalid escape: \\P"),
];

/// A function body and the `repr`-like text of what it returns.
pub const KEPT: &[(&str, &str)] = &[
    // `\w`, `\d`, `\s` and `\b` are Unicode-aware, as in CPython.
    ("    import re\n    return '|'.join(re.findall(r'\\w+', 'héllo wörld'))", "Str(\"héllo|wörld\")"),
    ("    import re\n    return re.sub(r'\\d', '#', 'a1\u{663}')", "Str(\"a##\")"),
    ("    import re\n    return len(re.findall(r'\\s', 'a\u{a0}b\u{2003}c'))", "Int(2)"),
    ("    import re\n    return len(re.findall(r'\\bwörld\\b', 'héllo wörld'))", "Int(1)"),
    // IGNORECASE folds non-ASCII letters.
    ("    import re\n    return bool(re.match('ÉTÉ', 'été', re.IGNORECASE))", "Bool(true)"),
    // A literal backslash before `p` is not a property class.
    ("    import re\n    return re.sub(r'\\\\p', 'q', 'a\\\\pb')", "Str(\"aqb\")"),
    // `namereplace` falls back to a backslash escape, as CPython does for a nameless character.
    ("    return 'caf\u{e9}'.encode('ascii', 'namereplace').decode()", "Str(\"caf\\\\xe9\")"),
    ("    import unicodedata\n    return unicodedata.name('a', 'none')", "Str(\"none\")"),
];

fn run(body: &str) -> Result<String, String> {
    let program = format!("def process_graph(G):\n{body}\n\nprocess_graph(G)\n");
    let o = sandbox::run(&program, Working::new(topology(TopoKey::default())), &Limits::default());
    o.value.map(|v| format!("{v:?}"))
}

/// Every refused body ends in its error, and every kept one returns its value (all
/// mismatches are reported together).
pub fn refusals_are_clear_and_unicode_classes_kept() {
    let mut wrong = Vec::new();
    for (body, want) in REFUSED {
        match run(body) {
            Err(err) if err.contains(want) => {}
            got => wrong.push(format!("{body}\n  want error {want}\n  got {got:?}")),
        }
    }
    for (body, want) in KEPT {
        match run(body) {
            Ok(got) if got == *want => {}
            got => wrong.push(format!("{body}\n  want {want}\n  got {got:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
