//! The grammar: a line (or a script of lines) read into pipelines joined by `;`, newline,
//! `&&` and `||`, each stage a simple command with its words, redirections and an optional
//! here-document, all of it read before anything runs.
//!
//! It is a small hand-written scanner rather than a parser generator because the subset is
//! small and its errors must be bash's own words: anything outside the subset is refused as a
//! [`Refused`] construct instead of being guessed at, and the application words the refusal.
//! Two switches in [`Grammar`] say how much an application accepts: expansions (`$NAME` read
//! as empty, `$'…'`, here-documents, `$(cat <<'EOF' … EOF)`) and redirections to files.
//! Every loop advances through the input, so no input can make it loop.

/// Simple commands one script may hold.
pub(crate) const MAX_COMMANDS: usize = 32;
/// Stages one pipeline may hold.
pub(crate) const MAX_STAGES: usize = 8;

/// What an application's shell accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Grammar {
    /// `$NAME` and `${NAME}` read as empty, `$'…'`, here-documents and the one command
    /// substitution `$(cat <<'EOF' … EOF)`; `NAME=value` words are refused. Without it every
    /// `$`, backquote and `<` is refused.
    pub expansions: bool,
    /// Redirections to any path, `>>`, `&>` and `N>&M`; without it only `/dev/null`,
    /// `2>&1` and `>&2`.
    pub files: bool,
    /// Longest input read, in bytes.
    pub max_input: usize,
}

/// Where a redirection points a descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A path (`/dev/null` included); `append` for `>>`.
    File { path: String, append: bool },
    /// Another descriptor (`N>&M`).
    Fd(u8),
}

/// One redirection: descriptor 1 or 2, or both for `&>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// 1, 2, or 3 for both (`&>`).
    pub fd: u8,
    pub to: Target,
}

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Command {
    pub argv: Vec<String>,
    /// A here-document feeding standard input.
    pub stdin: Option<String>,
    pub redirects: Vec<Redirect>,
}

/// Stages joined by `|`; `negated` by a leading `!`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pipeline {
    pub negated: bool,
    pub stages: Vec<Command>,
}

/// How a pipeline is joined to the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Join {
    /// `;`, newline, or the first pipeline: always runs.
    Seq,
    /// `&&`: runs after success.
    And,
    /// `||`: runs after failure.
    Or,
}

/// A script read whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    pub(crate) items: Vec<(Join, Pipeline)>,
    /// Warnings bash prints while reading (a here-document ended by end of input).
    pub(crate) warnings: Vec<String>,
}

/// A construct outside the subset, or a limit; the application words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    Dollar,
    Backquote,
    Input,
    HereString,
    Subshell,
    Arithmetic,
    Substitution,
    Background,
    PipeBoth,
    Assignment,
    /// A reserved word opening a compound command (`for`, `{`, …).
    Keyword(String),
    Append,
    BothRedirect,
    FileRedirect(String),
    FdRedirect,
    SelfRedirect,
    TooLong {
        len: usize,
        limit: usize,
    },
    TooManyCommands,
    TooManyStages,
}

impl Refused {
    /// Plain words for the construct, for an application without words of its own.
    pub(crate) fn describe(&self) -> String {
        match self {
            Refused::Dollar => "$ expansion".into(),
            Refused::Backquote => "`…` command substitution".into(),
            Refused::Input => "input redirection (<)".into(),
            Refused::HereString => "here-string (<<<)".into(),
            Refused::Subshell => "subshell ( … )".into(),
            Refused::Arithmetic => "$(( … )) arithmetic".into(),
            Refused::Substitution => {
                "$( … ) command substitution (only $(cat <<'EOF' … EOF) is supported)".into()
            }
            Refused::Background => "background job (&)".into(),
            Refused::PipeBoth => "|& pipe".into(),
            Refused::Assignment => "variable assignment".into(),
            Refused::Keyword(k) => format!("shell keyword `{k}'"),
            Refused::Append => "append redirection (>>)".into(),
            Refused::BothRedirect => "&> redirection".into(),
            Refused::FileRedirect(path) => format!("redirection to a file (> {path})"),
            Refused::FdRedirect => "file descriptor redirection".into(),
            Refused::SelfRedirect => "redirection of a stream to itself".into(),
            Refused::TooLong { len, limit } => format!("input too long ({len} bytes, limit {limit})"),
            Refused::TooManyCommands => format!("too many commands (limit {MAX_COMMANDS})"),
            Refused::TooManyStages => format!("pipeline too long (limit {MAX_STAGES} stages)"),
        }
    }
}

/// Why a script was rejected; nothing of it runs and the status is 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxError {
    /// `syntax error near unexpected token `T'`.
    Token(String),
    /// `syntax error: unexpected end of file`.
    EndOfFile,
    /// `unexpected EOF while looking for matching `C'`.
    Unterminated(char),
    Refused(Refused),
}

impl SyntaxError {
    /// bash's message for its own errors; `None` for refusals, which the application words.
    pub(crate) fn bash_message(&self) -> Option<String> {
        Some(match self {
            SyntaxError::Token(t) => format!("bash: syntax error near unexpected token `{t}'"),
            SyntaxError::EndOfFile => "bash: syntax error: unexpected end of file".into(),
            SyntaxError::Unterminated(c) => format!("bash: unexpected EOF while looking for matching `{c}'"),
            SyntaxError::Refused(_) => return None,
        })
    }
}

mod expand;

pub(crate) use expand::control_escape;

type Result<T> = std::result::Result<T, SyntaxError>;

fn refuse<T>(r: Refused) -> Result<T> {
    Err(SyntaxError::Refused(r))
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A word after quote removal; `quoted` when any part was quoted (so `for` is a plain
    /// word), `assign` when it reads `NAME=…` with the name unquoted.
    Word {
        text: String,
        quoted: bool,
        assign: bool,
    },
    Semi,
    Newline,
    And,
    Or,
    Pipe,
    Redir(Redirect),
    Heredoc(usize),
}

impl Tok {
    fn text(&self) -> &'static str {
        match self {
            Tok::And => "&&",
            Tok::Or => "||",
            Tok::Semi => ";",
            Tok::Pipe => "|",
            _ => "newline",
        }
    }
}

struct Pending {
    id: usize,
    delim: String,
    strip_tabs: bool,
    quoted: bool,
}

struct Lexer {
    g: Grammar,
    s: Vec<char>,
    i: usize,
    line: usize,
    pending: Vec<Pending>,
    bodies: Vec<String>,
    warnings: Vec<String>,
}

fn is_meta(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | ';' | '&' | '|' | '(' | ')' | '<' | '>')
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
    }

    fn tokens(&mut self) -> Result<Vec<Tok>> {
        let mut out = Vec::new();
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => self.i += 1,
                '\\' if self.peek(1) == Some('\n') => self.i += 2,
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\n' => {
                    self.i += 1;
                    self.line += 1;
                    out.push(Tok::Newline);
                    self.read_bodies();
                }
                ';' if self.peek(1) == Some(';') => return Err(SyntaxError::Token(";;".into())),
                ';' => {
                    self.i += 1;
                    out.push(Tok::Semi);
                }
                '&' if self.peek(1) == Some('&') => {
                    self.i += 2;
                    out.push(Tok::And);
                }
                '&' if self.peek(1) == Some('>') => out.push(self.redirect(3)?),
                '&' => return refuse(Refused::Background),
                '|' if self.peek(1) == Some('|') => {
                    self.i += 2;
                    out.push(Tok::Or);
                }
                '|' if self.peek(1) == Some('&') => return refuse(Refused::PipeBoth),
                '|' => {
                    self.i += 1;
                    out.push(Tok::Pipe);
                }
                '(' | ')' => return refuse(Refused::Subshell),
                '<' => out.push(self.heredoc()?),
                '>' => out.push(self.redirect(1)?),
                d @ ('1' | '2') if self.peek(1) == Some('>') => {
                    self.i += 1;
                    out.push(self.redirect(if d == '1' { 1 } else { 2 })?);
                }
                _ => out.push(self.word()?),
            }
        }
        if !self.pending.is_empty() {
            self.read_bodies();
        }
        Ok(out)
    }

    /// `>`, `>>`, `>|`, `N>`, `&>`, `N>&M` and the word they name; `fd` 3 stands for both.
    fn redirect(&mut self, fd: u8) -> Result<Tok> {
        self.i += if fd == 3 { 2 } else { 1 };
        if fd == 3 && !self.g.files {
            return refuse(Refused::BothRedirect);
        }
        let mut append = false;
        match self.peek(0) {
            Some('>') => {
                if !self.g.files {
                    return refuse(Refused::Append);
                }
                append = true;
                self.i += 1;
            }
            Some('|') if fd != 3 => self.i += 1,
            Some('&') if fd != 3 => return self.duplicate(fd),
            _ => {}
        }
        self.skip_blanks();
        if self.peek(0).is_none_or(is_meta) {
            let t = self.peek(0).filter(|&c| c != '\n').map_or("newline".to_string(), |c| c.to_string());
            return Err(SyntaxError::Token(t));
        }
        let Tok::Word { text, .. } = self.word()? else { return Err(SyntaxError::Token(">".into())) };
        if !self.g.files && text != "/dev/null" {
            return refuse(Refused::FileRedirect(text));
        }
        Ok(Tok::Redir(Redirect { fd, to: Target::File { path: text, append } }))
    }

    /// `N>&M` after the `&`.
    fn duplicate(&mut self, fd: u8) -> Result<Tok> {
        let to = match self.peek(1) {
            Some('1') => 1,
            Some('2') => 2,
            // `>&word` is not a duplication: bash reads it as `&>word`; the lab refuses it.
            _ if self.g.files => return refuse(Refused::Background),
            _ => return refuse(Refused::FdRedirect),
        };
        self.i += 2;
        if !self.g.files && fd == to {
            return refuse(Refused::SelfRedirect);
        }
        Ok(Tok::Redir(Redirect { fd, to: Target::Fd(to) }))
    }

    fn word(&mut self) -> Result<Tok> {
        let mut text = String::new();
        let mut quoted = false;
        let mut name_so_far = true;
        let mut assign = false;
        while let Some(c) = self.peek(0) {
            if is_meta(c) {
                break;
            }
            if matches!(c, '\'' | '"' | '\\' | '$') {
                name_so_far = false;
            }
            match c {
                '\'' => {
                    quoted = true;
                    self.i += 1;
                    self.single_quoted(&mut text)?;
                }
                '"' => {
                    quoted = true;
                    self.i += 1;
                    self.double_quoted(&mut text)?;
                }
                '\\' => {
                    quoted = true;
                    self.i += 1;
                    match self.peek(0) {
                        Some('\n') => {
                            self.i += 1;
                            self.line += 1;
                        }
                        Some(c) => {
                            text.push(c);
                            self.i += 1;
                        }
                        None => text.push('\\'),
                    }
                }
                '$' => self.dollar(&mut text, false)?,
                '`' => return refuse(Refused::Backquote),
                '=' if self.g.expansions && name_so_far && !text.is_empty() && !assign => {
                    assign = true;
                    text.push('=');
                    self.i += 1;
                }
                c => {
                    if !(c.is_ascii_alphanumeric() || c == '_') || (text.is_empty() && c.is_ascii_digit()) {
                        name_so_far = false;
                    }
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        Ok(Tok::Word { text, quoted, assign })
    }

    fn single_quoted(&mut self, text: &mut String) -> Result<()> {
        while let Some(c) = self.peek(0) {
            self.i += 1;
            if c == '\'' {
                return Ok(());
            }
            if c == '\n' {
                self.line += 1;
            }
            text.push(c);
        }
        Err(SyntaxError::Unterminated('\''))
    }

    fn double_quoted(&mut self, text: &mut String) -> Result<()> {
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.i += 1;
                    return Ok(());
                }
                '\\' => {
                    self.i += 1;
                    match self.peek(0) {
                        Some('\n') => {
                            self.i += 1;
                            self.line += 1;
                        }
                        Some(e @ ('"' | '\\' | '$' | '`')) => {
                            text.push(e);
                            self.i += 1;
                        }
                        _ => text.push('\\'),
                    }
                }
                '$' => self.dollar(text, true)?,
                '`' => return refuse(Refused::Backquote),
                c => {
                    if c == '\n' {
                        self.line += 1;
                    }
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        Err(SyntaxError::Unterminated('"'))
    }
}

/// Reserved words that open or continue compound commands bash would run.
const KEYWORDS: [&str; 17] = [
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function",
    "{", "}", "[[", "select",
];

/// Reads a whole script.
pub(crate) fn parse(input: &str, g: Grammar) -> Result<Script> {
    if input.len() > g.max_input {
        return refuse(Refused::TooLong { len: input.len(), limit: g.max_input });
    }
    let mut lx = Lexer {
        g,
        s: input.chars().collect(),
        i: 0,
        line: 1,
        pending: Vec::new(),
        bodies: Vec::new(),
        warnings: Vec::new(),
    };
    let toks = lx.tokens()?;
    let mut p = Parser { script: Script { items: Vec::new(), warnings: lx.warnings }, ..Parser::default() };
    for t in toks {
        p.token(t, &mut lx.bodies)?;
        if p.count > MAX_COMMANDS {
            return refuse(Refused::TooManyCommands);
        }
    }
    p.finish()
}

#[derive(Default)]
struct Parser {
    script: Script,
    join: Option<Join>,
    pipeline: Pipeline,
    cmd: Command,
    count: usize,
    /// After `|`, `&&` or `||`: a command must follow.
    expect_command: bool,
}

impl Parser {
    fn cmd_is_empty(&self) -> bool {
        self.cmd.argv.is_empty() && self.cmd.redirects.is_empty() && self.cmd.stdin.is_none()
    }

    fn token(&mut self, t: Tok, bodies: &mut [String]) -> Result<()> {
        match t {
            Tok::Word { text, quoted, assign } => self.word(text, quoted, assign)?,
            Tok::Redir(r) => self.cmd.redirects.push(r),
            Tok::Heredoc(id) => self.cmd.stdin = Some(std::mem::take(&mut bodies[id])),
            Tok::Pipe => {
                if self.cmd_is_empty() {
                    return Err(SyntaxError::Token("|".into()));
                }
                self.end_command();
                if self.pipeline.stages.len() >= MAX_STAGES {
                    return refuse(Refused::TooManyStages);
                }
                self.expect_command = true;
            }
            Tok::And | Tok::Or | Tok::Semi | Tok::Newline => {
                if self.cmd_is_empty() {
                    // A newline may end a blank line or continue after `|`, `&&`, `||`.
                    if t == Tok::Newline && !self.pipeline.negated {
                        return Ok(());
                    }
                    return Err(SyntaxError::Token(t.text().into()));
                }
                self.end_command();
                self.end_pipeline();
                self.join = Some(match t {
                    Tok::And => Join::And,
                    Tok::Or => Join::Or,
                    _ => Join::Seq,
                });
                self.expect_command = matches!(t, Tok::And | Tok::Or);
            }
        }
        Ok(())
    }

    fn word(&mut self, text: String, quoted: bool, assign: bool) -> Result<()> {
        if self.cmd.argv.is_empty() && !quoted {
            if assign {
                return refuse(Refused::Assignment);
            }
            if KEYWORDS.contains(&text.as_str()) {
                return refuse(Refused::Keyword(text));
            }
            if text == "!" && self.pipeline.stages.is_empty() && !self.pipeline.negated {
                self.pipeline.negated = true;
                self.expect_command = true;
                return Ok(());
            }
        }
        self.cmd.argv.push(text);
        self.expect_command = false;
        Ok(())
    }

    fn end_command(&mut self) {
        self.pipeline.stages.push(std::mem::take(&mut self.cmd));
        self.count += 1;
    }

    fn end_pipeline(&mut self) {
        let join = self.join.unwrap_or(Join::Seq);
        self.script.items.push((join, std::mem::take(&mut self.pipeline)));
    }

    fn finish(mut self) -> Result<Script> {
        if !self.cmd_is_empty() {
            self.end_command();
            self.end_pipeline();
        } else if !self.pipeline.stages.is_empty() || self.expect_command || self.pipeline.negated {
            return Err(SyntaxError::EndOfFile);
        }
        if self.count > MAX_COMMANDS {
            return refuse(Refused::TooManyCommands);
        }
        Ok(self.script)
    }
}

#[cfg(test)]
mod tests;
