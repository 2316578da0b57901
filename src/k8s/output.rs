//! What kubectl writes: standard output and standard error in the order written, and its exit
//! status.
//!
//! The text goes straight into the shell's writer (`Io`), so the shell's output limit holds
//! while kubectl prints rather than after: in the agent's shell, `Output::over` wraps the
//! writer the shell hands the command, and what does not fit is never kept. Listings that can
//! be long (`get -o yaml|json|name`, `describe` of many objects) check [`Output::full`] and stop
//! producing, so a whole cluster's YAML is not built only to be cut. Outside the shell (tests,
//! fuzzing) [`Output::default`] has no limit.
//!
//! The shell routes the two streams separately (pipes, `2>&1`, `/dev/null`) but the agent sees
//! them interleaved as they were written, so both go into one ordered writer.

use crate::shell::{Io, Stream};

/// A program's output (both streams, in order) and exit status.
#[derive(Debug)]
pub struct Output {
    io: Io,
    pub status: i32,
}

impl Default for Output {
    /// An output without a limit.
    fn default() -> Self {
        Output::over(Io::new(usize::MAX))
    }
}

impl Output {
    /// Writes into `io` (and holds to its limit).
    pub(crate) fn over(io: Io) -> Output {
        Output { io, status: 0 }
    }

    /// The writer back, and the exit status.
    pub(crate) fn into_parts(self) -> (Io, i32) {
        (self.io, self.status)
    }

    pub fn out(&mut self, s: impl AsRef<str>) {
        self.io.write(Stream::Out, s.as_ref());
    }

    pub fn err(&mut self, s: impl AsRef<str>) {
        self.io.write(Stream::Err, s.as_ref());
    }

    /// An error line on stderr (a newline is added when missing) and exit status 1.
    pub fn fail(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        self.err(s);
        if !s.ends_with('\n') {
            self.err("\n");
        }
        self.status = 1;
    }

    /// Whether nothing more would be kept: a long listing stops here.
    pub fn full(&self) -> bool {
        self.io.full()
    }

    /// Copies a finished output (text and status) after what this one holds.
    pub fn append(&mut self, other: Output) {
        let (io, status) = other.into_parts();
        for (stream, text) in io.into_chunks() {
            self.io.write(stream, &text);
        }
        self.status = status;
    }

    /// All of standard output.
    pub fn stdout(&self) -> String {
        self.io.chunks().iter().filter(|(s, _)| *s == Stream::Out).map(|(_, t)| t.as_str()).collect()
    }

    /// Both streams as written.
    pub fn text(&self) -> String {
        self.io.chunks().iter().map(|(_, t)| t.as_str()).collect()
    }

    /// A finished output with just this error.
    pub fn error(s: impl AsRef<str>) -> Output {
        let mut o = Output::default();
        o.fail(s);
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_merges_runs() {
        let mut o = Output::default();
        o.err("w\n");
        o.out("a");
        o.out("b\n");
        o.fail("e");
        assert_eq!(o.io.chunks().len(), 3);
        assert_eq!(o.text(), "w\nab\ne\n");
        assert_eq!(o.stdout(), "ab\n");
        assert_eq!(o.status, 1);
    }

    #[test]
    fn holds_to_the_writer_limit() {
        let mut o = Output::over(Io::new(4));
        o.out("abc");
        assert!(!o.full());
        o.out("def");
        assert!(o.full());
        let mut all = Output::default();
        all.append(o);
        assert_eq!(all.text(), "abcd");
    }
}
