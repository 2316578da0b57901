//! Argument parsing for the tools applications add to the command line (`App::tools`).
//!
//! A tool gets its arguments as plain strings and parses them itself, so adding one changes
//! nothing in the CLI. The parsing is lexopt's, not hand-written: it knows the forms people
//! type (`-f FILE`, `-fFILE`, `--filename FILE`, `--filename=FILE`, `--` ending the options)
//! and stays a few kilobytes with no dependencies, so it costs nothing in the wasm32 builds
//! that compile the applications (clap is native-only there). What lexopt leaves to us is the
//! wording: these helpers keep every tool's errors one line naming the argument as typed.

/// A parser over a tool's arguments (the ones after the tool's name).
pub(crate) fn parser(args: &[String]) -> lexopt::Parser {
    lexopt::Parser::from_args(args.iter().cloned())
}

/// `arg` as the user typed it: `-f`, `--output`, or the bare value.
pub(crate) fn shown(arg: &lexopt::Arg<'_>) -> String {
    match arg {
        lexopt::Arg::Short(c) => format!("-{c}"),
        lexopt::Arg::Long(name) => format!("--{name}"),
        lexopt::Arg::Value(v) => v.to_string_lossy().into_owned(),
    }
}

/// The value of option `flag` (as [`shown`]), or "`flag` needs a value".
pub(crate) fn value(parser: &mut lexopt::Parser, flag: &str) -> Result<String, String> {
    let v = parser.value().map_err(|_| format!("{flag} needs a value"))?;
    // Arguments arrive as `String`s, so the value is always UTF-8.
    Ok(v.to_string_lossy().into_owned())
}

/// The next argument; lexopt's only error here is a value given to a flag that takes none
/// (`--sha256=x`).
pub(crate) fn next(parser: &mut lexopt::Parser) -> Result<Option<lexopt::Arg<'_>>, String> {
    parser.next().map_err(|e| e.to_string())
}

/// The text of `file`, or of standard input for `-`, with the one-line errors every tool
/// prints.
pub(crate) fn read_input(file: &str, stdin: &mut dyn std::io::Read) -> Result<String, String> {
    if file == "-" {
        let mut text = String::new();
        stdin.read_to_string(&mut text).map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(text)
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))
    }
}

/// A write to standard output with the one-line error every tool prints, where a reader that
/// closed the pipe early (`| head`) is not an error: it had what it wanted.
pub(crate) fn written(result: std::io::Result<()>) -> Result<(), String> {
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("cannot write: {e}")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_spelling_of_an_option_value() {
        for form in [&["-f", "x"][..], &["-fx"], &["--filename", "x"], &["--filename=x"]] {
            let mut p = parser(&args(form));
            let arg = next(&mut p).unwrap().unwrap();
            let flag = shown(&arg);
            assert!(flag == "-f" || flag == "--filename", "{form:?}");
            assert_eq!(value(&mut p, &flag).unwrap(), "x", "{form:?}");
            assert!(next(&mut p).unwrap().is_none());
        }
    }

    #[test]
    fn missing_values_and_stray_values_are_errors() {
        let mut p = parser(&args(&["-f"]));
        let arg = next(&mut p).unwrap().unwrap();
        let flag = shown(&arg);
        assert_eq!(value(&mut p, &flag), Err("-f needs a value".into()));
        let mut p = parser(&args(&["--sha256=x"]));
        assert!(matches!(next(&mut p), Ok(Some(lexopt::Arg::Long("sha256")))));
        assert!(next(&mut p).is_err());
        let mut p = parser(&args(&["--", "-f"]));
        assert_eq!(shown(&next(&mut p).unwrap().unwrap()), "-f");
        assert!(matches!(parser(&args(&["--", "-f"])).next(), Ok(Some(lexopt::Arg::Value(_)))));
    }

    #[test]
    fn a_closed_pipe_is_quiet_and_other_write_errors_are_one_line() {
        use std::io::{Error, ErrorKind};
        assert_eq!(written(Err(Error::from(ErrorKind::BrokenPipe))), Ok(()));
        let full = written(Err(Error::new(ErrorKind::StorageFull, "disk full"))).unwrap_err();
        assert_eq!(full, "cannot write: disk full");
    }
}
