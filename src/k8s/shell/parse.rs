//! The shell grammar: lists (`;`, newline), `&&`/`||`, pipes, quoting, heredocs and the
//! three redirections agents use, parsed completely before anything runs.
//!
//! It is a small hand-written scanner because the subset is small and its error messages
//! must be bash's: anything outside it is reported as unsupported rather than guessed at.
//! Every loop advances through the input, so no input can make it loop.

/// Largest script accepted.
pub const MAX_INPUT: usize = 64 * 1024;
/// Most simple commands in one script.
pub const MAX_COMMANDS: usize = 32;
/// Most stages in one pipeline.
pub const MAX_STAGES: usize = 8;

/// Where a stream goes after redirections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redir {
    /// `>/dev/null`.
    OutNull,
    /// `2>/dev/null`.
    ErrNull,
    /// `2>&1`.
    ErrToOut,
    /// `>&2`.
    OutToErr,
}

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    pub argv: Vec<String>,
    /// A heredoc feeding standard input.
    pub stdin: Option<String>,
    pub redirs: Vec<Redir>,
}

/// `a | b | c`.
pub type Pipeline = Vec<Command>;

/// How a pipeline joins the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// `;` or newline: always run.
    Seq,
    And,
    Or,
}

/// A parsed script: pipelines with the operator before each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    pub items: Vec<(Join, Pipeline)>,
    /// Warnings bash prints while parsing (heredoc delimited by end of file).
    pub warnings: Vec<String>,
}

/// Why a script was rejected (nothing runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// bash's own syntax error text.
    Syntax(String),
    /// A construct outside the supported subset.
    Unsupported(String),
    /// A limit of the emulator.
    Limit(String),
}

impl ParseError {
    pub fn message(&self) -> String {
        match self {
            ParseError::Syntax(s) => format!("bash: {s}"),
            ParseError::Unsupported(s) => format!("netpress-sh: unsupported shell syntax: {s}"),
            ParseError::Limit(s) => format!("netpress-sh: {s}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A word; `assign` when it looks like `NAME=…` with the name unquoted.
    Word {
        text: String,
        assign: bool,
    },
    Semi,
    Newline,
    And,
    Or,
    Pipe,
    Redir(Redir),
    Heredoc(usize),
}

struct Pending {
    id: usize,
    delim: String,
    strip_tabs: bool,
    quoted: bool,
}

struct Lexer {
    s: Vec<char>,
    i: usize,
    line: usize,
    pending: Vec<Pending>,
    bodies: Vec<String>,
    warnings: Vec<String>,
}

fn syntax(tok: &str) -> ParseError {
    ParseError::Syntax(format!("syntax error near unexpected token `{tok}'"))
}

fn unsupported(what: &str) -> ParseError {
    ParseError::Unsupported(what.to_string())
}

fn is_meta(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>')
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn tokens(&mut self) -> Result<Vec<Tok>, ParseError> {
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
                ';' if self.peek(1) == Some(';') => return Err(syntax(";;")),
                ';' => {
                    self.i += 1;
                    out.push(Tok::Semi);
                }
                '&' if self.peek(1) == Some('&') => {
                    self.i += 2;
                    out.push(Tok::And);
                }
                '&' if self.peek(1) == Some('>') => return Err(unsupported("&> redirection")),
                '&' => return Err(unsupported("background job (&)")),
                '|' if self.peek(1) == Some('|') => {
                    self.i += 2;
                    out.push(Tok::Or);
                }
                '|' if self.peek(1) == Some('&') => return Err(unsupported("|& pipe")),
                '|' => {
                    self.i += 1;
                    out.push(Tok::Pipe);
                }
                '(' | ')' => return Err(unsupported("subshell ( … )")),
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

    /// `<<DELIM`, `<<-DELIM`, `<<'DELIM'`; everything else with `<` is unsupported.
    fn heredoc(&mut self) -> Result<Tok, ParseError> {
        if self.peek(1) != Some('<') {
            return Err(unsupported("input redirection (<)"));
        }
        if self.peek(2) == Some('<') {
            return Err(unsupported("here-string (<<<)"));
        }
        self.i += 2;
        let strip_tabs = self.peek(0) == Some('-');
        if strip_tabs {
            self.i += 1;
        }
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        let mut delim = String::new();
        let mut quoted = false;
        while let Some(c) = self.peek(0) {
            match c {
                '\'' | '"' => {
                    quoted = true;
                    self.i += 1;
                    while let Some(d) = self.peek(0) {
                        self.i += 1;
                        if d == c {
                            break;
                        }
                        delim.push(d);
                    }
                }
                '\\' => {
                    quoted = true;
                    self.i += 1;
                }
                c if is_meta(c) => break,
                c => {
                    delim.push(c);
                    self.i += 1;
                }
            }
        }
        if delim.is_empty() {
            return Err(syntax("newline"));
        }
        let id = self.bodies.len();
        self.bodies.push(String::new());
        self.pending.push(Pending { id, delim, strip_tabs, quoted });
        Ok(Tok::Heredoc(id))
    }

    /// Reads the bodies of pending heredocs, one per delimiter line.
    fn read_bodies(&mut self) {
        for p in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            let mut found = false;
            while self.i < self.s.len() {
                let start = self.i;
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let mut line: String = self.s[start..self.i].iter().collect();
                if self.peek(0) == Some('\n') {
                    self.i += 1;
                }
                self.line += 1;
                if p.strip_tabs {
                    line = line.trim_start_matches('\t').to_string();
                }
                if line == p.delim {
                    found = true;
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if !found {
                self.warnings.push(format!(
                    "bash: warning: here-document at line {} delimited by end-of-file (wanted `{}')",
                    self.line, p.delim
                ));
            }
            self.bodies[p.id] = if p.quoted { body } else { expand_heredoc(&body) };
        }
    }

    /// `>`, `1>`, `2>` followed by `/dev/null`, `&1` or `&2`.
    fn redirect(&mut self, fd: u8) -> Result<Tok, ParseError> {
        self.i += 1;
        if self.peek(0) == Some('>') {
            return Err(unsupported("append redirection (>>)"));
        }
        if self.peek(0) == Some('&') {
            self.i += 1;
            let target = self.peek(0);
            self.i += 1;
            return match (fd, target) {
                (2, Some('1')) => Ok(Tok::Redir(Redir::ErrToOut)),
                (1, Some('2')) => Ok(Tok::Redir(Redir::OutToErr)),
                (1, Some('1')) | (2, Some('2')) => Err(unsupported("redirection of a stream to itself")),
                _ => Err(unsupported("file descriptor redirection")),
            };
        }
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        if self.peek(0).is_none_or(|c| c == '\n' || is_meta(c)) {
            let t = self.peek(0).map_or("newline".to_string(), |c| c.to_string());
            return Err(syntax(if t == "\n" { "newline" } else { &t }));
        }
        let Tok::Word { text, .. } = self.word()? else { return Err(syntax(">")) };
        match (fd, text.as_str()) {
            (1, "/dev/null") => Ok(Tok::Redir(Redir::OutNull)),
            (2, "/dev/null") => Ok(Tok::Redir(Redir::ErrNull)),
            _ => Err(unsupported(&format!("redirection to a file (> {text})"))),
        }
    }

    fn word(&mut self) -> Result<Tok, ParseError> {
        let mut text = String::new();
        let mut name_so_far = true;
        let mut assign = false;
        while let Some(c) = self.peek(0) {
            if is_meta(c) {
                break;
            }
            match c {
                '\'' => {
                    name_so_far = false;
                    self.i += 1;
                    self.single_quoted(&mut text)?;
                }
                '"' => {
                    name_so_far = false;
                    self.i += 1;
                    self.double_quoted(&mut text)?;
                }
                '\\' => {
                    name_so_far = false;
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
                '$' => {
                    name_so_far = false;
                    self.dollar(&mut text, false)?;
                }
                '`' => return Err(unsupported("`…` command substitution")),
                '=' if name_so_far && !text.is_empty() && !assign => {
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
        Ok(Tok::Word { text, assign })
    }

    fn single_quoted(&mut self, text: &mut String) -> Result<(), ParseError> {
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
        Err(ParseError::Syntax("unexpected EOF while looking for matching `''".into()))
    }

    fn double_quoted(&mut self, text: &mut String) -> Result<(), ParseError> {
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
                '`' => return Err(unsupported("`…` command substitution")),
                c => {
                    if c == '\n' {
                        self.line += 1;
                    }
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        Err(ParseError::Syntax("unexpected EOF while looking for matching `\"'".into()))
    }

    /// `$NAME`, `${NAME}` (empty), `$'…'`, `$(cat <<'EOF' … EOF)`.
    fn dollar(&mut self, text: &mut String, in_dquote: bool) -> Result<(), ParseError> {
        self.i += 1;
        match self.peek(0) {
            Some('\'') if !in_dquote => {
                self.i += 1;
                self.ansi_c(text)
            }
            Some('(') if self.peek(1) == Some('(') => Err(unsupported("$(( … )) arithmetic")),
            Some('(') => {
                self.i += 1;
                let body = self.cat_heredoc_substitution()?;
                text.push_str(body.trim_end_matches('\n'));
                Ok(())
            }
            Some('{') => {
                while let Some(c) = self.peek(0) {
                    self.i += 1;
                    if c == '}' {
                        return Ok(());
                    }
                }
                Err(ParseError::Syntax("unexpected EOF while looking for matching `}'".into()))
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                while self.peek(0).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.i += 1;
                }
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || "?#@*$!-".contains(c) => {
                self.i += 1;
                Ok(())
            }
            _ => {
                text.push('$');
                Ok(())
            }
        }
    }

    /// The only command substitution supported: `$(cat <<'EOF'` … `EOF` `)`.
    fn cat_heredoc_substitution(&mut self) -> Result<String, ParseError> {
        let not_cat = || unsupported("$( … ) command substitution (only $(cat <<'EOF' … EOF) is supported)");
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        for expected in ['c', 'a', 't'] {
            if self.peek(0) != Some(expected) {
                return Err(not_cat());
            }
            self.i += 1;
        }
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        if self.peek(0) != Some('<') {
            return Err(not_cat());
        }
        let Tok::Heredoc(id) = self.heredoc()? else { return Err(not_cat()) };
        while matches!(self.peek(0), Some(' ' | '\t')) {
            self.i += 1;
        }
        if self.peek(0) != Some('\n') {
            return Err(not_cat());
        }
        self.i += 1;
        self.line += 1;
        self.read_bodies();
        while matches!(self.peek(0), Some(' ' | '\t' | '\n')) {
            self.i += 1;
        }
        if self.peek(0) != Some(')') {
            return Err(ParseError::Syntax("unexpected EOF while looking for matching `)'".into()));
        }
        self.i += 1;
        Ok(std::mem::take(&mut self.bodies[id]))
    }

    fn ansi_c(&mut self, text: &mut String) -> Result<(), ParseError> {
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '\'' => return Ok(()),
                '\\' => {
                    let Some(e) = self.peek(0) else { break };
                    self.i += 1;
                    match e {
                        'n' => text.push('\n'),
                        't' => text.push('\t'),
                        'r' => text.push('\r'),
                        'a' => text.push('\u{7}'),
                        'b' => text.push('\u{8}'),
                        'e' | 'E' => text.push('\u{1b}'),
                        'f' => text.push('\u{c}'),
                        'v' => text.push('\u{b}'),
                        '\\' | '\'' | '"' | '?' => text.push(e),
                        'x' => self.hex_escape(text, 2),
                        'u' => self.hex_escape(text, 4),
                        'U' => self.hex_escape(text, 8),
                        '0'..='7' => {
                            let mut v = e.to_digit(8).unwrap_or(0);
                            for _ in 0..2 {
                                match self.peek(0).and_then(|d| d.to_digit(8)) {
                                    Some(d) => {
                                        v = v * 8 + d;
                                        self.i += 1;
                                    }
                                    None => break,
                                }
                            }
                            text.push(char::from_u32(v & 0xff).unwrap_or('\u{fffd}'));
                        }
                        other => {
                            text.push('\\');
                            text.push(other);
                        }
                    }
                }
                c => text.push(c),
            }
        }
        Err(ParseError::Syntax("unexpected EOF while looking for matching `''".into()))
    }

    fn hex_escape(&mut self, text: &mut String, max: usize) {
        let mut v: u32 = 0;
        let mut n = 0;
        while n < max {
            match self.peek(0).and_then(|d| d.to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    self.i += 1;
                    n += 1;
                }
                None => break,
            }
        }
        if n == 0 {
            text.push('\\');
            text.push(if max == 2 { 'x' } else { 'u' });
        } else {
            text.push(char::from_u32(v).unwrap_or('\u{fffd}'));
        }
    }
}

/// An unquoted heredoc: `$NAME` expands to nothing, `\$`, `\\` and `\newline` are escapes.
fn expand_heredoc(body: &str) -> String {
    let chars: Vec<char> = body.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if matches!(chars.get(i + 1), Some('$' | '\\' | '`')) => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '$' if chars.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic() || *c == '_') => {
                i += 1;
                while chars.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_') {
                    i += 1;
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

const KEYWORDS: [&str; 17] = [
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function",
    "{", "}", "[[", "select",
];

/// Parses a whole script.
pub fn parse(input: &str) -> Result<Script, ParseError> {
    if input.len() > MAX_INPUT {
        return Err(ParseError::Limit(format!("input too long ({} bytes, limit {MAX_INPUT})", input.len())));
    }
    let mut lx = Lexer {
        s: input.chars().collect(),
        i: 0,
        line: 1,
        pending: Vec::new(),
        bodies: Vec::new(),
        warnings: Vec::new(),
    };
    let toks = lx.tokens()?;
    let mut script = Script { items: Vec::new(), warnings: lx.warnings };
    let mut join = Join::Seq;
    let mut pipeline: Pipeline = Vec::new();
    let mut cmd = Command::default();
    let mut count = 0;
    let mut expect_command = false;
    for t in toks {
        match t {
            Tok::Word { text, assign } => {
                if cmd.argv.is_empty() {
                    if assign {
                        return Err(unsupported("variable assignment"));
                    }
                    if KEYWORDS.contains(&text.as_str()) {
                        return Err(unsupported(&format!("shell keyword `{text}'")));
                    }
                }
                cmd.argv.push(text);
                expect_command = false;
            }
            Tok::Redir(r) => cmd.redirs.push(r),
            Tok::Heredoc(id) => cmd.stdin = Some(std::mem::take(&mut lx.bodies[id])),
            Tok::Pipe => {
                if cmd.argv.is_empty() {
                    return Err(syntax("|"));
                }
                pipeline.push(std::mem::take(&mut cmd));
                if pipeline.len() >= MAX_STAGES {
                    return Err(ParseError::Limit(format!("pipeline too long (limit {MAX_STAGES} stages)")));
                }
                count += 1;
                expect_command = true;
            }
            Tok::And | Tok::Or | Tok::Semi | Tok::Newline => {
                let op_text = match t {
                    Tok::And => "&&",
                    Tok::Or => "||",
                    Tok::Semi => ";",
                    _ => "newline",
                };
                if cmd.argv.is_empty() {
                    // A newline may end a blank line or continue after `|`, `&&`, `||`.
                    if t == Tok::Newline && cmd.redirs.is_empty() && cmd.stdin.is_none() {
                        continue;
                    }
                    return Err(syntax(op_text));
                }
                pipeline.push(std::mem::take(&mut cmd));
                count += 1;
                script.items.push((join, std::mem::take(&mut pipeline)));
                join = match t {
                    Tok::And => Join::And,
                    Tok::Or => Join::Or,
                    _ => Join::Seq,
                };
                expect_command = matches!(t, Tok::And | Tok::Or);
            }
        }
        if count > MAX_COMMANDS {
            return Err(ParseError::Limit(format!("too many commands (limit {MAX_COMMANDS})")));
        }
    }
    if !cmd.argv.is_empty() {
        pipeline.push(cmd);
        count += 1;
        script.items.push((join, pipeline));
    } else if !pipeline.is_empty() || expect_command || !cmd.redirs.is_empty() {
        return Err(ParseError::Syntax("syntax error: unexpected end of file".into()));
    }
    if count > MAX_COMMANDS {
        return Err(ParseError::Limit(format!("too many commands (limit {MAX_COMMANDS})")));
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<Vec<Vec<String>>> {
        parse(s).unwrap().items.into_iter().map(|(_, p)| p.into_iter().map(|c| c.argv).collect()).collect()
    }

    #[test]
    fn quoting() {
        assert_eq!(
            argv(r#"echo 'a b' "c \"d\" \$e" f\ g $HOME x${Y}z"#),
            vec![vec![vec![
                "echo".to_string(),
                "a b".into(),
                "c \"d\" $e".into(),
                "f g".into(),
                "".into(),
                "xz".into()
            ]]]
        );
        assert_eq!(
            argv(r"echo $'a\tb\x41\u00e9\101'"),
            vec![vec![vec!["echo".to_string(), "a\tbAéA".into()]]]
        );
        assert_eq!(argv("echo a\\\nb # comment"), vec![vec![vec!["echo".to_string(), "ab".into()]]]);
    }

    #[test]
    fn lists_pipes_and_redirections() {
        let s =
            parse("kubectl get pods | grep x && echo ok || echo no; true\nfalse 2>&1 >/dev/null").unwrap();
        let joins: Vec<Join> = s.items.iter().map(|(j, _)| *j).collect();
        assert_eq!(joins, vec![Join::Seq, Join::And, Join::Or, Join::Seq, Join::Seq]);
        assert_eq!(s.items[0].1.len(), 2);
        assert_eq!(s.items[4].1[0].redirs, vec![Redir::ErrToOut, Redir::OutNull]);
        assert!(parse("kubectl get pods &&\n echo x").is_ok(), "continuation after &&");
    }

    #[test]
    fn heredocs() {
        let s = parse("kubectl apply -f - <<EOF\nkind: $X\n\\$y\nEOF\necho done").unwrap();
        assert_eq!(s.items[0].1[0].stdin.as_deref(), Some("kind: \n$y\n"));
        assert_eq!(s.items.len(), 2);
        let s = parse("cat <<-'E'\n\tx $Y\n\tE\n").unwrap();
        assert_eq!(s.items[0].1[0].stdin.as_deref(), Some("x $Y\n"));
        let s = parse("kubectl patch x -p \"$(cat <<'EOF'\n{\"a\": 1}\nEOF\n)\" --type merge").unwrap();
        assert_eq!(s.items[0].1[0].argv[4], "{\"a\": 1}");
        let s = parse("cat <<EOF\nno end").unwrap();
        assert!(s.warnings[0].contains("delimited by end-of-file"));
    }

    #[test]
    fn errors() {
        assert_eq!(parse("| x").unwrap_err().message(), "bash: syntax error near unexpected token `|'");
        assert_eq!(
            parse("a && && b").unwrap_err().message(),
            "bash: syntax error near unexpected token `&&'"
        );
        assert_eq!(parse("a ;; b").unwrap_err().message(), "bash: syntax error near unexpected token `;;'");
        assert!(matches!(parse("a |").unwrap_err(), ParseError::Syntax(_)));
        assert!(matches!(parse("echo 'x").unwrap_err(), ParseError::Syntax(_)));
        for bad in [
            "X=1 kubectl",
            "echo $(date)",
            "echo `date`",
            "sleep 1 &",
            "(a)",
            "a > f",
            "a < f",
            "if true; then x; fi",
            "a >> /dev/null",
        ] {
            assert!(matches!(parse(bad).unwrap_err(), ParseError::Unsupported(_)), "{bad}");
        }
        assert!(matches!(parse(&"true;".repeat(40)).unwrap_err(), ParseError::Limit(_)));
        assert!(matches!(parse(&format!("{}a", "a|".repeat(9))).unwrap_err(), ParseError::Limit(_)));
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,300}") {
            let _ = parse(&s);
        }

        #[test]
        fn shell_like_input_never_panics(parts in prop::collection::vec(prop::sample::select(vec![
            "kubectl", "get", "pods", " ", "|", "||", "&&", ";", "\n", "'", "\"", "$'", "\\", "$(", ")", "(", "cat",
            "<<", "<<-", "'EOF'", "EOF", ">", "2>&1", ">/dev/null", "2>", "&", "#", "$X", "${", "}", "`", "=", "x=1",
        ]), 0..40)) {
            let _ = parse(&parts.concat());
        }
    }
}
