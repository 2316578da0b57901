//! The one shell every application's agent types into: a bash subset read whole before it
//! runs ([`syntax`]), pipelines run one stage after another over an application's
//! registered commands ([`Commands`]), and the text tools agents pipe output into
//! ([`tools`]: grep, head, tail, wc, cat, echo, true, false, sleep).
//!
//! An application supplies what differs: its commands (Route's `ip`, `iptables`, …; K8s's
//! `kubectl`), the files a redirection or a tool may touch, the words for the constructs it
//! refuses, and a [`Settings`] value. Everything else — quoting, `;` `&&` `||` `|` `!`,
//! redirections, exit statuses, the output limit — is this module's, so a new application
//! gets the same shell by implementing one trait. docs/shell.md gives the grammar, the tools'
//! flags, the limits and where the shell departs from bash and coreutils.
//!
//! Execution is sequential and pure: a stage's standard output feeds the next stage,
//! standard error and the last stage's standard output go to the transcript in the order they
//! were written, and the status is the last stage's. The output limit holds while commands
//! write ([`Io`]), not after.

mod io;
mod syntax;
pub(crate) mod tools;

pub(crate) use io::{Io, Stream};
use syntax::{Command, Join, Pipeline};
pub(crate) use syntax::{Grammar, MAX_COMMANDS, MAX_STAGES, Target};
pub use syntax::{Refused, Script, SyntaxError};

/// Marks a transcript cut at the output limit.
pub(crate) const TRUNCATED: &str = "[output truncated]\n";

/// What an application's shell accepts and how it words refusals.
#[derive(Clone, Copy)]
pub(crate) struct Settings {
    pub grammar: Grammar,
    /// Bytes one command line may print (each command, each pipe and the transcript).
    pub output: usize,
    /// The message of a refused construct or limit (the status is 2).
    pub refusal: fn(&Refused) -> String,
}

/// Why a file could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileError {
    NotFound,
    IsDirectory,
}

impl FileError {
    pub(crate) fn text(self) -> &'static str {
        match self {
            FileError::NotFound => "No such file or directory",
            FileError::IsDirectory => "Is a directory",
        }
    }
}

/// An application's side of the shell: the commands it registers and the files it has.
pub(crate) trait Commands {
    /// Runs the command `name` (argv[0] without its directory) if the application has it;
    /// `None` hands it to the shell's tools, then to "command not found".
    fn run(&mut self, name: &str, args: &[String], stdin: &str, io: &mut Io) -> Option<i32>;

    /// The words that run after prefixes the application treats as transparent (`sudo`).
    fn command_words<'a>(&self, argv: &'a [String]) -> &'a [String] {
        argv
    }

    /// A readable file's contents, for the tools' file operands.
    fn read(&self, _path: &str) -> Result<String, FileError> {
        Err(FileError::NotFound)
    }

    /// Checks that `path` (not `/dev/null`) may be opened for writing.
    fn open(&mut self, path: &str) -> Result<(), OpenError> {
        Err(OpenError::bash(format!("bash: {path}: Read-only file system"), 1))
    }

    /// Writes what a command redirected to `path`, opened by [`Commands::open`]; `who` is the
    /// command's name for the error line.
    fn write(&mut self, _path: &str, _text: &str, _who: &str) -> Result<(), String> {
        Ok(())
    }

    /// Runs after every pipeline (Route settles link state here).
    fn after_pipeline(&mut self) {}
}

/// Why a file does not open for writing: the line printed, the stage's status, and whether
/// it is the application's refusal of a real file it does not model (which scoring records)
/// rather than an error bash itself would give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpenError {
    pub message: String,
    pub status: i32,
    pub refused: bool,
}

impl OpenError {
    /// An error real bash gives too.
    pub(crate) fn bash(message: String, status: i32) -> OpenError {
        OpenError { message, status, refused: false }
    }

    /// The application's refusal.
    pub(crate) fn refusal(message: String, status: i32) -> OpenError {
        OpenError { message, status, refused: true }
    }
}

/// What a line printed (both streams as written), its exit status, and what the application
/// refused on the way (each refusal's message, also printed unless redirected away).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub output: String,
    pub status: i32,
    pub refused: Vec<String>,
}

/// Reads `input` with the application's settings.
pub(crate) fn read(input: &str, settings: &Settings) -> Result<Script, SyntaxError> {
    syntax::parse(input, settings.grammar)
}

/// The message and status a rejected script prints.
fn reject(e: &SyntaxError, settings: &Settings) -> Outcome {
    let text = match e {
        SyntaxError::Refused(r) => (settings.refusal)(r),
        other => other.bash_message().unwrap_or_default(),
    };
    let refused = if matches!(e, SyntaxError::Refused(_)) { vec![text.clone()] } else { Vec::new() };
    Outcome { output: format!("{text}\n"), status: 2, refused }
}

/// Reads and runs `input`.
pub(crate) fn run(input: &str, settings: &Settings, cmds: &mut dyn Commands) -> Outcome {
    match read(input, settings) {
        Ok(script) => execute(&script, settings, cmds),
        Err(e) => reject(&e, settings),
    }
}

/// Runs a script read by [`read`].
pub(crate) fn execute(script: &Script, settings: &Settings, cmds: &mut dyn Commands) -> Outcome {
    let limit = settings.output;
    let mut term = Io::new(limit);
    for w in &script.warnings {
        term.errln(w);
    }
    let mut status = 0;
    for (join, pipeline) in &script.items {
        let go = match join {
            Join::Seq => true,
            Join::And => status == 0,
            Join::Or => status != 0,
        };
        if go {
            status = run_pipeline(pipeline, cmds, &mut term, limit);
            cmds.after_pipeline();
        }
    }
    let truncated = term.truncated();
    let refused = term.take_refused();
    let mut output: String = term.into_chunks().into_iter().map(|(_, t)| t).collect();
    if truncated {
        if !output.ends_with('\n') {
            output.push('\n');
        }
        output.push_str(TRUNCATED);
    }
    Outcome { output, status, refused }
}

fn run_pipeline(pipeline: &Pipeline, cmds: &mut dyn Commands, term: &mut Io, limit: usize) -> i32 {
    let mut input = String::new();
    let mut status = 0;
    for (k, stage) in pipeline.stages.iter().enumerate() {
        let piped = k + 1 < pipeline.stages.len();
        let mut next = Io::new(limit);
        let stdin = stage.stdin.as_deref().unwrap_or(&input);
        status = run_stage(stage, stdin, cmds, term, piped.then_some(&mut next));
        input = next.into_chunks().into_iter().map(|(_, t)| t).collect();
    }
    if pipeline.negated { i32::from(status == 0) } else { status }
}

/// Where a descriptor points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Term,
    Pipe,
    Null,
    /// A file opened for writing: index into the stage's file list.
    File(usize),
}

fn run_stage(
    stage: &Command,
    stdin: &str,
    cmds: &mut dyn Commands,
    term: &mut Io,
    mut pipe: Option<&mut Io>,
) -> i32 {
    let mut dests = [if pipe.is_some() { Dest::Pipe } else { Dest::Term }, Dest::Term];
    let mut files: Vec<(String, String)> = Vec::new();
    for r in &stage.redirects {
        if let Err(e) = redirect(r, cmds, &mut dests, &mut files) {
            if e.refused {
                term.note_refusal(&e.message);
            }
            term.errln(&e.message);
            return e.status;
        }
    }
    let words = cmds.command_words(&stage.argv);
    let mut io = Io::new(term.limit());
    let status = match words.split_first() {
        None => 0,
        Some((name, args)) => dispatch(name, args, stdin, cmds, &mut io),
    };
    for refusal in io.take_refused() {
        term.note_refusal(&refusal);
    }
    // What a command printed past the limit is gone; unless it went to /dev/null or a file, the
    // transcript must say so even when nothing later overflows the terminal itself.
    let shown = |s: Stream| io.cut(s) && matches!(dests[s as usize], Dest::Term | Dest::Pipe);
    if shown(Stream::Out) || shown(Stream::Err) {
        term.mark_truncated();
    }
    for (stream, text) in io.into_chunks() {
        match dests[stream as usize] {
            Dest::Term => term.write(stream, &text),
            Dest::Pipe => pipe.as_deref_mut().map_or((), |p| p.write(Stream::Out, &text)),
            Dest::Null => {}
            Dest::File(i) => files[i].1.push_str(&text),
        }
    }
    let who = words.first().map_or("bash", String::as_str);
    let mut status = status;
    for (path, text) in files {
        if !text.is_empty()
            && let Err(msg) = cmds.write(&path, &text, who)
        {
            term.errln(&msg);
            status = 1;
        }
    }
    status
}

/// Runs one command: the application's, else a tool, else "command not found" (127).
fn dispatch(word: &str, args: &[String], stdin: &str, cmds: &mut dyn Commands, io: &mut Io) -> i32 {
    let name = word.rsplit('/').next().unwrap_or(word);
    if let Some(status) = cmds.run(name, args, stdin, io) {
        return status;
    }
    let files = |path: &str| cmds.read(path);
    if let Some(status) = tools::run(name, args, stdin, &files, io) {
        return status;
    }
    io.fail(127, &format!("bash: {word}: command not found"))
}

/// Applies one redirection to the descriptor table, or refuses it with a message.
fn redirect(
    r: &syntax::Redirect,
    cmds: &mut dyn Commands,
    dests: &mut [Dest; 2],
    files: &mut Vec<(String, String)>,
) -> Result<(), OpenError> {
    let to = match &r.to {
        Target::Fd(to) => dests[usize::from(*to) - 1],
        Target::File { path, .. } if path == "/dev/null" => Dest::Null,
        Target::File { path, .. } => {
            cmds.open(path)?;
            files.push((path.clone(), String::new()));
            Dest::File(files.len() - 1)
        }
    };
    match r.fd {
        1 => dests[0] = to,
        2 => dests[1] = to,
        _ => *dests = [to, to],
    }
    Ok(())
}

#[cfg(test)]
mod tests;
