//! What a program writes: stdout and stderr chunks in emission order.
//!
//! The shell routes the two streams separately (pipes, `2>&1`, `/dev/null`) but the agent
//! sees them interleaved as they were written, so programs record both in one ordered list.

/// A file descriptor a program writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fd {
    Out,
    Err,
}

/// A program's output and exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    pub chunks: Vec<(Fd, String)>,
    pub status: i32,
}

impl Output {
    pub fn out(&mut self, s: impl Into<String>) {
        self.push(Fd::Out, s.into());
    }

    pub fn err(&mut self, s: impl Into<String>) {
        self.push(Fd::Err, s.into());
    }

    /// An error line on stderr (a newline is added when missing) and exit status 1.
    pub fn fail(&mut self, s: impl Into<String>) {
        let mut s = s.into();
        if !s.ends_with('\n') {
            s.push('\n');
        }
        self.err(s);
        self.status = 1;
    }

    fn push(&mut self, fd: Fd, s: String) {
        if s.is_empty() {
            return;
        }
        match self.chunks.last_mut() {
            Some((last, text)) if *last == fd => text.push_str(&s),
            _ => self.chunks.push((fd, s)),
        }
    }

    /// All of one stream.
    pub fn stream(&self, fd: Fd) -> String {
        self.chunks.iter().filter(|(f, _)| *f == fd).map(|(_, s)| s.as_str()).collect()
    }

    /// Both streams as written.
    pub fn text(&self) -> String {
        self.chunks.iter().map(|(_, s)| s.as_str()).collect()
    }

    /// A finished output with just this error.
    pub fn error(s: impl Into<String>) -> Output {
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
        assert_eq!(o.chunks.len(), 3);
        assert_eq!(o.text(), "w\nab\ne\n");
        assert_eq!(o.stream(Fd::Out), "ab\n");
        assert_eq!(o.status, 1);
    }
}
