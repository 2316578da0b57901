//! What a command writes: standard output and standard error in the order written, cut at a
//! byte limit as it is written, so no command, pipe or transcript ever holds more than the
//! limit however much a command tries to print.

/// A command's output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Out = 0,
    Err = 1,
}

/// Both streams of one writer, in order, at most `limit` bytes in all.
#[derive(Debug)]
pub(crate) struct Io {
    chunks: Vec<(Stream, String)>,
    bytes: usize,
    limit: usize,
    /// Whether text bound for each stream was cut.
    cut: [bool; 2],
    /// What the application refused while this writer was live (each refusal's message), kept
    /// as data so scoring never has to find refusals in output text.
    refused: Vec<String>,
}

impl Io {
    pub(crate) fn new(limit: usize) -> Io {
        Io { chunks: Vec::new(), bytes: 0, limit, cut: [false; 2], refused: Vec::new() }
    }

    /// Appends `text` to `stream`, keeping what fits (cut at a character boundary).
    pub(crate) fn write(&mut self, stream: Stream, text: &str) {
        if text.is_empty() {
            return;
        }
        let room = self.limit.saturating_sub(self.bytes);
        let mut end = text.len().min(room);
        if end < text.len() {
            self.cut[stream as usize] = true;
        }
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end == 0 {
            return;
        }
        self.bytes += end;
        match self.chunks.last_mut() {
            Some((s, buf)) if *s == stream => buf.push_str(&text[..end]),
            _ => self.chunks.push((stream, text[..end].to_string())),
        }
    }

    /// Writes to standard output.
    pub(crate) fn out(&mut self, text: &str) {
        self.write(Stream::Out, text);
    }

    /// Writes a line to standard output.
    pub(crate) fn outln(&mut self, text: &str) {
        self.write(Stream::Out, text);
        self.write(Stream::Out, "\n");
    }

    /// Writes a line to standard error.
    pub(crate) fn errln(&mut self, text: &str) {
        self.write(Stream::Err, text);
        self.write(Stream::Err, "\n");
    }

    /// Writes a line to standard error and returns `status`, for early exits.
    pub(crate) fn fail(&mut self, status: i32, text: &str) -> i32 {
        self.errln(text);
        status
    }

    /// Refuses what the application does not model: prints `text` like [`Io::fail`] and
    /// records it, so the refusal counts even when standard error is redirected away.
    pub(crate) fn refuse(&mut self, status: i32, text: &str) -> i32 {
        self.refused.push(text.to_string());
        self.fail(status, text)
    }

    /// Records a refusal printed elsewhere (a redirection the application declined).
    pub(crate) fn note_refusal(&mut self, text: &str) {
        self.refused.push(text.to_string());
    }

    /// The refusals recorded so far, taken out.
    pub(crate) fn take_refused(&mut self) -> Vec<String> {
        std::mem::take(&mut self.refused)
    }

    /// The limit this writer holds to.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Whether anything was cut.
    pub(crate) fn truncated(&self) -> bool {
        self.cut.contains(&true)
    }

    /// Whether text bound for `stream` was cut.
    pub(crate) fn cut(&self, stream: Stream) -> bool {
        self.cut[stream as usize]
    }

    /// Records that output bound for this writer was cut elsewhere (a command's own writer, or
    /// a pipe feeding the next stage), so the transcript still says it is incomplete.
    pub(crate) fn mark_truncated(&mut self) {
        self.cut[Stream::Out as usize] = true;
    }

    /// Whether the limit is reached: a long-running writer may stop producing.
    pub(crate) fn full(&self) -> bool {
        self.bytes >= self.limit
    }

    /// What was kept so far, for a writer that reads its own output (K8s's `Output`).
    pub(crate) fn chunks(&self) -> &[(Stream, String)] {
        &self.chunks
    }

    pub(crate) fn into_chunks(self) -> Vec<(Stream, String)> {
        self.chunks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_the_limit_on_a_character_boundary() {
        let mut io = Io::new(5);
        io.out("ab");
        io.errln("cé");
        io.out("zz");
        assert!(io.truncated() && io.full());
        let chunks = io.into_chunks();
        assert_eq!(chunks, vec![(Stream::Out, "ab".to_string()), (Stream::Err, "cé".to_string())]);
    }

    #[test]
    fn merges_runs_and_keeps_order() {
        let mut io = Io::new(100);
        io.errln("w");
        io.out("a");
        io.out("b\n");
        assert_eq!(io.fail(3, "e"), 3);
        assert!(!io.truncated());
        assert_eq!(io.into_chunks().len(), 3);
    }
}
