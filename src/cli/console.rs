//! The streams a command line talks through, and whether they are the process's own.
//!
//! Every byte a subcommand prints goes through a [`Console`], never `println!`, so a test can
//! run the whole command line in its own process and read what it said, and so a second
//! surface (a test harness, a future environment server) can host it. The binary hands over
//! the process's standard streams with [`Console::process`]; a test hands over buffers with
//! [`Console::new`].
//!
//! A few things belong to a process and not to its streams, and only a process console
//! does them: installing the Ctrl-C handler of `run`, drawing the progress bar on a terminal,
//! and letting clap colour its help and errors as it would for the terminal. A console of
//! buffers gets the same words without colour and no handler, so a test process keeps its
//! own signal handling.

use std::io::{Read, Write};

use super::{CliResult, Fail};

/// Standard input, output and error of one run of the command line.
pub struct Console<'a> {
    pub(super) stdin: Box<dyn Read + 'a>,
    pub(super) stdout: Box<dyn Write + 'a>,
    pub(super) stderr: Box<dyn Write + 'a>,
    /// These are the process's own streams (see the module doc).
    pub(super) process: bool,
}

impl<'a> Console<'a> {
    /// A console over the given streams, e.g. `&b""[..]` and two `&mut Vec<u8>` in a test.
    pub fn new(stdin: impl Read + 'a, stdout: impl Write + 'a, stderr: impl Write + 'a) -> Self {
        Console { stdin: Box::new(stdin), stdout: Box::new(stdout), stderr: Box::new(stderr), process: false }
    }
}

impl Console<'static> {
    /// The process's standard streams.
    pub fn process() -> Self {
        Console { process: true, ..Console::new(std::io::stdin(), std::io::stdout(), std::io::stderr()) }
    }
}

impl Console<'_> {
    /// Standard output.
    pub(crate) fn out(&mut self) -> &mut dyn Write {
        &mut *self.stdout
    }

    /// Standard error.
    pub(crate) fn err(&mut self) -> &mut dyn Write {
        &mut *self.stderr
    }

    /// Standard input.
    pub(crate) fn input(&mut self) -> &mut dyn Read {
        &mut *self.stdin
    }

    /// Whether this console is the process's own (see the module doc).
    pub(crate) fn is_process(&self) -> bool {
        self.process
    }

    /// A message of clap's (help, version or a usage error): on stdout when it is what was
    /// asked for, else on stderr. Returns the exit code it calls for (0, or 2 for an error).
    pub(crate) fn clap_message(&mut self, e: &clap::Error) -> u8 {
        if self.process {
            // clap decides colour for the terminal it writes to.
            let _ = e.print();
        } else {
            let text = e.render().to_string();
            let to = if e.use_stderr() { self.err() } else { self.out() };
            let _ = to.write_all(text.as_bytes()).and_then(|()| to.flush());
        }
        if e.use_stderr() { 2 } else { 0 }
    }

    /// Runs `body` on a buffered `path` (created) or standard output; a closed pipe
    /// (`| head`) ends quietly.
    pub(crate) fn write_out(
        &mut self,
        path: Option<&str>,
        body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> CliResult {
        let result = match path {
            Some(p) => {
                let file =
                    std::fs::File::create(p).map_err(|e| Fail::from(format!("cannot write {p}: {e}")))?;
                let mut w = std::io::BufWriter::new(file);
                body(&mut w).and_then(|_| w.flush())
            }
            None => {
                let mut w = std::io::BufWriter::new(self.out());
                body(&mut w).and_then(|_| w.flush())
            }
        };
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.map_err(Fail::from),
        }
    }

    /// The bytes of a file, or of standard input for `-`.
    pub(crate) fn read_bytes(&mut self, path: &str) -> CliResult<Vec<u8>> {
        let mut bytes = Vec::new();
        let read = if path == "-" {
            self.input().read_to_end(&mut bytes).map(|_| ())
        } else {
            std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)).map(|_| ())
        };
        read.map_err(|e| format!("cannot read {path}: {e}"))?;
        Ok(bytes)
    }
}
