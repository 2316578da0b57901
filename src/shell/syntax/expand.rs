//! Expansions and here-documents, read only when the grammar allows them: `$NAME` and
//! `${NAME}` (empty), `$'…'` ANSI-C strings, `<<EOF` bodies and the one substitution
//! `$(cat <<'EOF' … EOF)`. Without expansions every `$` and `<` is refused before any of this.

use super::{Lexer, Pending, Refused, Result, SyntaxError, Tok, is_meta, refuse};

impl Lexer {
    /// `<<DELIM`, `<<-DELIM`, `<<'DELIM'`; every other use of `<` is refused.
    pub(super) fn heredoc(&mut self) -> Result<Tok> {
        if !self.g.expansions || self.peek(1) != Some('<') {
            return refuse(Refused::Input);
        }
        if self.peek(2) == Some('<') {
            return refuse(Refused::HereString);
        }
        self.i += 2;
        let strip_tabs = self.peek(0) == Some('-');
        if strip_tabs {
            self.i += 1;
        }
        self.skip_blanks();
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
            return Err(SyntaxError::Token("newline".into()));
        }
        let id = self.bodies.len();
        self.bodies.push(String::new());
        self.pending.push(Pending { id, delim, strip_tabs, quoted });
        Ok(Tok::Heredoc(id))
    }

    /// Reads the bodies of pending here-documents, each up to its delimiter line.
    pub(super) fn read_bodies(&mut self) {
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

    /// `$NAME`, `${NAME}` (both empty: there are no variables), `$'…'`, `$(cat <<'EOF' … EOF)`.
    pub(super) fn dollar(&mut self, text: &mut String, in_dquote: bool) -> Result<()> {
        if !self.g.expansions {
            return refuse(Refused::Dollar);
        }
        self.i += 1;
        match self.peek(0) {
            Some('\'') if !in_dquote => {
                self.i += 1;
                self.ansi_c(text)
            }
            Some('(') if self.peek(1) == Some('(') => refuse(Refused::Arithmetic),
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
                Err(SyntaxError::Unterminated('}'))
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
    fn cat_heredoc_substitution(&mut self) -> Result<String> {
        let not_cat = || refuse(Refused::Substitution);
        self.skip_blanks();
        for expected in ['c', 'a', 't'] {
            if self.peek(0) != Some(expected) {
                return not_cat();
            }
            self.i += 1;
        }
        self.skip_blanks();
        if self.peek(0) != Some('<') {
            return not_cat();
        }
        let Tok::Heredoc(id) = self.heredoc()? else { return not_cat() };
        self.skip_blanks();
        if self.peek(0) != Some('\n') {
            return not_cat();
        }
        self.i += 1;
        self.line += 1;
        self.read_bodies();
        while matches!(self.peek(0), Some(' ' | '\t' | '\n')) {
            self.i += 1;
        }
        if self.peek(0) != Some(')') {
            return Err(SyntaxError::Unterminated(')'));
        }
        self.i += 1;
        Ok(std::mem::take(&mut self.bodies[id]))
    }

    fn ansi_c(&mut self, text: &mut String) -> Result<()> {
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '\'' => return Ok(()),
                '\\' => {
                    let Some(e) = self.peek(0) else { break };
                    self.i += 1;
                    self.ansi_escape(e, text);
                }
                c => text.push(c),
            }
        }
        Err(SyntaxError::Unterminated('\''))
    }

    fn ansi_escape(&mut self, e: char, text: &mut String) {
        if let Some(c) = control_escape(e) {
            text.push(c);
            return;
        }
        match e {
            'E' => text.push('\u{1b}'),
            '\'' | '"' | '?' => text.push(e),
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

/// The one-letter escapes `$'…'` and `echo -e` share: `\n` `\t` `\r` `\a` `\b` `\e` `\f`
/// `\v` `\\`.
pub(crate) fn control_escape(e: char) -> Option<char> {
    Some(match e {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'a' => '\u{7}',
        'b' => '\u{8}',
        'e' => '\u{1b}',
        'f' => '\u{c}',
        'v' => '\u{b}',
        '\\' => '\\',
        _ => return None,
    })
}

/// An unquoted here-document: `$NAME` expands to nothing, `\$`, `\\` and `\newline` are escapes.
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
