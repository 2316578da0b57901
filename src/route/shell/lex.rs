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
    let chars: Vec<char> = line.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    macro_rules! end_word {
        () => {
            if in_word {
                tokens.push(Token::Word { text: std::mem::take(&mut word), quoted });
            }
            in_word = false;
            quoted = false;
        };
    }
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                end_word!();
                i += 1;
            }
            '#' if !in_word => break,
            '\'' => {
                let close =
                    chars[i + 1..].iter().position(|&x| x == '\'').ok_or(ShellError::Unterminated('\''))?;
                word.extend(&chars[i + 1..i + 1 + close]);
                in_word = true;
                quoted = true;
                i += close + 2;
            }
            '"' => {
                i = double_quoted(&chars, i + 1, &mut word)?;
                in_word = true;
                quoted = true;
            }
            '\\' => {
                if let Some(&next) = chars.get(i + 1)
                    && next != '\n'
                {
                    word.push(next);
                    in_word = true;
                }
                quoted = true;
                i += 2;
            }
            '$' => return Err(ShellError::Unsupported("$")),
            '`' => return Err(ShellError::Unsupported("`")),
            '<' => return Err(ShellError::Unsupported("<")),
            '(' | ')' => return Err(ShellError::Unsupported("( )")),
            ';' | '|' | '&' | '>' => {
                let fd = if c == '>' { fd_prefix(&word, in_word, quoted) } else { None };
                if fd.is_some() {
                    word.clear();
                    in_word = false;
                } else {
                    end_word!();
                }
                let (op, len) = operator(&chars[i..], fd)?;
                tokens.push(Token::Op(op));
                i += len;
            }
            _ => {
                word.push(c);
                in_word = true;
                i += 1;
            }
        }
    }
    if in_word {
        tokens.push(Token::Word { text: word, quoted });
    }
    Ok(tokens)
}

/// A word that is just `1` or `2` directly before `>` names the redirected descriptor.
fn fd_prefix(word: &str, in_word: bool, quoted: bool) -> Option<u8> {
    match (in_word, quoted, word) {
        (true, false, "1") => Some(1),
        (true, false, "2") => Some(2),
        _ => None,
    }
}

/// The body of `"…"` from `start`; returns the index after the closing quote.
fn double_quoted(chars: &[char], start: usize, word: &mut String) -> Result<usize, ShellError> {
    let mut i = start;
    loop {
        match chars.get(i) {
            None => return Err(ShellError::Unterminated('"')),
            Some('"') => return Ok(i + 1),
            Some('$') => return Err(ShellError::Unsupported("$")),
            Some('`') => return Err(ShellError::Unsupported("`")),
            Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`' | '\n')) => {
                if chars[i + 1] != '\n' {
                    word.push(chars[i + 1]);
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
fn operator(rest: &[char], fd: Option<u8>) -> Result<(Op, usize), ShellError> {
    let at = |k: usize| rest.get(k).copied();
    Ok(match (rest[0], at(1), at(2)) {
        (';', Some(';'), _) => return Err(ShellError::Syntax(";;".into())),
        (';', _, _) => (Op::Semi, 1),
        ('|', Some('|'), _) => (Op::Or, 2),
        ('|', Some('&'), _) => return Err(ShellError::Unsupported("|&")),
        ('|', _, _) => (Op::Pipe, 1),
        ('&', Some('&'), _) => (Op::And, 2),
        ('&', Some('>'), Some('>')) => (Op::Redir(RedirOp::Both { append: true }), 3),
        ('&', Some('>'), _) => (Op::Redir(RedirOp::Both { append: false }), 2),
        ('&', _, _) => return Err(ShellError::Unsupported("&")),
        ('>', Some('&'), Some(d @ ('1' | '2'))) => {
            (Op::Redir(RedirOp::Dup { fd: fd.unwrap_or(1), to: d as u8 - b'0' }), 3)
        }
        ('>', Some('>'), _) => (Op::Redir(RedirOp::To { fd: fd.unwrap_or(1), append: true }), 2),
        ('>', Some('|'), _) => (Op::Redir(RedirOp::To { fd: fd.unwrap_or(1), append: false }), 2),
        ('>', _, _) => (Op::Redir(RedirOp::To { fd: fd.unwrap_or(1), append: false }), 1),
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
