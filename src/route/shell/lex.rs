//! Splits a command line into words and operators the way bash does for the subset the lab
//! accepts: quotes, backslash escapes, comments, `;` `&&` `||` `|` and redirections. Anything
//! bash would expand or run in a subshell is refused here with a clear message.

use super::ShellError;

/// A redirection operator with its file descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `N>` or `N>>` (fd 1 or 2) to a file word that follows.
    To { fd: u8, append: bool },
    /// `&>` / `&>>`: both streams to a file.
    Both { append: bool },
    /// `N>&M`: duplicate.
    Dup { fd: u8, to: u8 },
}

/// Control operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Semi,
    And,
    Or,
    Pipe,
    Redir(RedirOp),
}

impl Op {
    /// The token text bash names in a syntax error.
    pub fn text(self) -> &'static str {
        match self {
            Op::Semi => ";",
            Op::And => "&&",
            Op::Or => "||",
            Op::Pipe => "|",
            Op::Redir(_) => ">",
        }
    }
}

/// A lexical token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// A word after quote removal; `quoted` when any part was quoted (so `for` is literal).
    Word {
        text: String,
        quoted: bool,
    },
    Op(Op),
}

/// Longest line the shell reads (route.md §7).
pub const MAX_LINE: usize = 4096;

/// Tokenizes one line.
pub fn lex(line: &str) -> Result<Vec<Token>, ShellError> {
    if line.len() > MAX_LINE {
        return Err(ShellError::TooLong);
    }
    // Every character the lexer acts on is ASCII, and a UTF-8 continuation byte never is, so
    // it walks bytes and copies runs of plain ones whole; words are cut only at ASCII.
    let bytes = line.as_bytes();
    let mut tokens = Vec::with_capacity(8);
    let mut i = 0;
    // One buffer that never grows again, each word copied out of it at its exact size.
    let mut word: Vec<u8> = Vec::with_capacity(line.len());
    let mut in_word = false;
    let mut quoted = false;
    macro_rules! end_word {
        () => {
            if in_word {
                tokens.push(Token::Word { text: text_of(&word), quoted });
                word.clear();
            }
            in_word = false;
            quoted = false;
        };
    }
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                end_word!();
                i += 1;
            }
            b'#' if !in_word => break,
            b'\'' => {
                let close =
                    bytes[i + 1..].iter().position(|&x| x == b'\'').ok_or(ShellError::Unterminated('\''))?;
                word.extend_from_slice(&bytes[i + 1..i + 1 + close]);
                in_word = true;
                quoted = true;
                i += close + 2;
            }
            b'"' => {
                i = double_quoted(bytes, i + 1, &mut word)?;
                in_word = true;
                quoted = true;
            }
            b'\\' => {
                if let Some(&next) = bytes.get(i + 1)
                    && next != b'\n'
                {
                    word.push(next);
                    in_word = true;
                }
                quoted = true;
                i += 2;
            }
            b'$' => return Err(ShellError::Unsupported("$")),
            b'`' => return Err(ShellError::Unsupported("`")),
            b'<' => return Err(ShellError::Unsupported("<")),
            b'(' | b')' => return Err(ShellError::Unsupported("( )")),
            b';' | b'|' | b'&' | b'>' => {
                let fd = if c == b'>' { fd_prefix(&word, in_word, quoted) } else { None };
                if fd.is_some() {
                    word.clear();
                    in_word = false;
                } else {
                    end_word!();
                }
                let (op, len) = operator(&bytes[i..], fd)?;
                tokens.push(Token::Op(op));
                i += len;
            }
            _ => {
                // This byte is plain or a `#` inside a word, which is plain there too.
                let run = 1 + bytes[i + 1..].iter().position(|&b| !plain(b)).unwrap_or(bytes.len() - i - 1);
                word.extend_from_slice(&bytes[i..i + run]);
                in_word = true;
                i += run;
            }
        }
    }
    if in_word {
        tokens.push(Token::Word { text: text_of(&word), quoted });
    }
    Ok(tokens)
}

/// Whether the lexer copies `b` into a word as it is: not a blank, quote, escape, comment or
/// operator character, nor one it refuses.
fn plain(b: u8) -> bool {
    !matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'#'
            | b'\''
            | b'"'
            | b'\\'
            | b'$'
            | b'`'
            | b'<'
            | b'('
            | b')'
            | b';'
            | b'|'
            | b'&'
            | b'>'
    )
}

/// A word's text: its bytes were cut from the line at ASCII characters only, so they are
/// whole UTF-8 (a backslash before a multi-byte character keeps the character's first byte,
/// and the rest follow as plain bytes).
fn text_of(word: &[u8]) -> String {
    String::from_utf8(word.to_vec()).expect("words are cut at ASCII characters")
}

fn fd_prefix(word: &[u8], in_word: bool, quoted: bool) -> Option<u8> {
    match (in_word, quoted, word) {
        (true, false, b"1") => Some(1),
        (true, false, b"2") => Some(2),
        _ => None,
    }
}

/// Reads a double-quoted string from `start` (after the opening quote) into `word`; returns
/// the index after the closing quote.
fn double_quoted(bytes: &[u8], start: usize, word: &mut Vec<u8>) -> Result<usize, ShellError> {
    let mut i = start;
    loop {
        match bytes.get(i) {
            None => return Err(ShellError::Unterminated('"')),
            Some(b'"') => return Ok(i + 1),
            Some(b'$') => return Err(ShellError::Unsupported("$")),
            Some(b'`') => return Err(ShellError::Unsupported("`")),
            Some(b'\\') if matches!(bytes.get(i + 1), Some(b'"' | b'\\' | b'$' | b'`' | b'\n')) => {
                if bytes[i + 1] != b'\n' {
                    word.push(bytes[i + 1]);
                }
                i += 2;
            }
            Some(&c) => {
                word.push(c);
                i += 1;
            }
        }
    }
}

/// Reads the operator at the start of `rest`; `fd` is an explicit descriptor before `>`.
fn operator(rest: &[u8], fd: Option<u8>) -> Result<(Op, usize), ShellError> {
    let at = |k: usize| rest.get(k).copied();
    Ok(match (rest[0], at(1), at(2)) {
        (b';', Some(b';'), _) => return Err(ShellError::Syntax(";;".into())),
        (b';', _, _) => (Op::Semi, 1),
        (b'|', Some(b'|'), _) => (Op::Or, 2),
        (b'|', Some(b'&'), _) => return Err(ShellError::Unsupported("|&")),
        (b'|', _, _) => (Op::Pipe, 1),
        (b'&', Some(b'&'), _) => (Op::And, 2),
        (b'&', Some(b'>'), Some(b'>')) => (Op::Redir(RedirOp::Both { append: true }), 3),
        (b'&', Some(b'>'), _) => (Op::Redir(RedirOp::Both { append: false }), 2),
        (b'&', _, _) => return Err(ShellError::Unsupported("&")),
        (b'>', Some(b'&'), Some(d @ (b'1' | b'2'))) => {
            (Op::Redir(RedirOp::Dup { fd: fd.unwrap_or(1), to: d - b'0' }), 3)
        }
        (b'>', Some(b'>'), _) => (Op::Redir(RedirOp::To { fd: fd.unwrap_or(1), append: true }), 2),
        (b'>', Some(b'|'), _) => (Op::Redir(RedirOp::To { fd: fd.unwrap_or(1), append: false }), 2),
        (b'>', _, _) => (Op::Redir(RedirOp::To { fd: fd.unwrap_or(1), append: false }), 1),
        _ => unreachable!("operator called on an operator character"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        lex(line)
            .unwrap()
            .into_iter()
            .map(|t| match t {
                Token::Word { text, .. } => text,
                Token::Op(op) => format!("<{op:?}>"),
            })
            .collect()
    }

    #[test]
    fn quotes_and_escapes() {
        assert_eq!(words(r#"echo 'a b' "c\"d" e\ f g#h # comment"#), ["echo", "a b", "c\"d", "e f", "g#h"]);
        assert_eq!(
            words("ip a|grep inet&&echo ok;true"),
            ["ip", "a", "<Pipe>", "grep", "inet", "<And>", "echo", "ok", "<Semi>", "true"]
        );
    }

    #[test]
    fn redirections() {
        assert_eq!(
            words("x 2>&1 >/dev/null 2> f &> g >> h"),
            [
                "x",
                "<Redir(Dup { fd: 2, to: 1 })>",
                "<Redir(To { fd: 1, append: false })>",
                "/dev/null",
                "<Redir(To { fd: 2, append: false })>",
                "f",
                "<Redir(Both { append: false })>",
                "g",
                "<Redir(To { fd: 1, append: true })>",
                "h"
            ]
        );
    }

    /// A `1` or `2` right before `;`, `|` or `&` is an argument, not a descriptor (it was
    /// dropped: `iptables -D INPUT 1; …` lost its rule number).
    #[test]
    fn digits_before_separators_stay_words() {
        assert_eq!(words("iptables -D INPUT 1; true"), ["iptables", "-D", "INPUT", "1", "<Semi>", "true"]);
        assert_eq!(words("ping -c 2|wc -l"), ["ping", "-c", "2", "<Pipe>", "wc", "-l"]);
        assert_eq!(words("echo 1&&echo 2||true"), ["echo", "1", "<And>", "echo", "2", "<Or>", "true"]);
        assert_eq!(words("echo 1&>/dev/null"), ["echo", "1", "<Redir(Both { append: false })>", "/dev/null"]);
        assert_eq!(words("echo 2>x"), ["echo", "<Redir(To { fd: 2, append: false })>", "x"]);
    }

    #[test]
    fn refusals() {
        assert_eq!(lex("echo $HOME"), Err(ShellError::Unsupported("$")));
        assert_eq!(lex("echo \"`id`\""), Err(ShellError::Unsupported("`")));
        assert_eq!(lex("sleep 1 &"), Err(ShellError::Unsupported("&")));
        assert_eq!(lex("(ls)"), Err(ShellError::Unsupported("( )")));
        assert_eq!(lex("cat < x"), Err(ShellError::Unsupported("<")));
        assert_eq!(lex("echo 'x"), Err(ShellError::Unterminated('\'')));
        assert_eq!(lex("echo \"x"), Err(ShellError::Unterminated('"')));
        assert_eq!(lex(&"a".repeat(5000)), Err(ShellError::TooLong));
        assert_eq!(words("echo \\$x"), ["echo", "$x"]);
    }
}
