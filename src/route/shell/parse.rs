//! Tokens to a command list: pipelines joined by `;`, `&&`, `||`, each stage a simple
//! command with its redirections. Reserved words that start compound commands are refused.

use super::ShellError;
use super::lex::{Op, RedirOp, Token};

/// Where a redirection sends a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub op: RedirOp,
    /// The file word (empty for `N>&M`).
    pub target: String,
}

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Simple {
    pub words: Vec<String>,
    pub redirects: Vec<Redirect>,
}

/// Stages joined by `|`; `negated` by a leading `!`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pipeline {
    pub negated: bool,
    pub stages: Vec<Simple>,
}

/// How a pipeline is joined to the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    Always,
    IfOk,
    IfFailed,
}

/// A parsed line.
pub type Script = Vec<(Join, Pipeline)>;

/// Simple commands one line may hold (route.md §7).
pub const MAX_COMMANDS: usize = 32;

/// Words that open compound commands bash would run; the lab refuses them.
const COMPOUND: [&str; 9] = ["for", "while", "until", "if", "case", "select", "function", "{", "}"];

pub fn parse(tokens: Vec<Token>) -> Result<Script, ShellError> {
    let mut script: Script = Vec::new();
    let mut join = Join::Always;
    let mut pipeline = Pipeline::default();
    let mut simple = Simple::default();
    let mut iter = tokens.into_iter().peekable();
    let mut commands = 0;
    while let Some(token) = iter.next() {
        match token {
            Token::Word { text, quoted } => {
                let starts = simple.words.is_empty();
                if starts && !quoted && COMPOUND.contains(&text.as_str()) {
                    let what = if text == "{" || text == "}" { "{ }" } else { "loops and conditionals" };
                    return Err(ShellError::Unsupported(what));
                }
                if starts && !quoted && text == "!" && pipeline.stages.is_empty() && !pipeline.negated {
                    pipeline.negated = true;
                } else {
                    simple.words.push(text);
                }
            }
            Token::Op(Op::Redir(op)) => {
                let target = match op {
                    RedirOp::Dup { .. } => String::new(),
                    _ => match iter.next() {
                        Some(Token::Word { text, .. }) => text,
                        Some(Token::Op(o)) => return Err(ShellError::Syntax(o.text().into())),
                        None => return Err(ShellError::Syntax("newline".into())),
                    },
                };
                simple.redirects.push(Redirect { op, target });
            }
            Token::Op(op) => {
                if simple.words.is_empty() && simple.redirects.is_empty() {
                    return Err(ShellError::Syntax(op.text().into()));
                }
                commands += 1;
                pipeline.stages.push(std::mem::take(&mut simple));
                if op == Op::Pipe {
                    if iter.peek().is_none() {
                        return Err(ShellError::EndOfFile);
                    }
                    continue;
                }
                script.push((join, std::mem::take(&mut pipeline)));
                join = match op {
                    Op::And => Join::IfOk,
                    Op::Or => Join::IfFailed,
                    _ => Join::Always,
                };
                if op != Op::Semi && iter.peek().is_none() {
                    return Err(ShellError::EndOfFile);
                }
            }
        }
        if commands > MAX_COMMANDS {
            return Err(ShellError::TooMany);
        }
    }
    if !simple.words.is_empty() || !simple.redirects.is_empty() {
        pipeline.stages.push(simple);
        if commands + 1 > MAX_COMMANDS {
            return Err(ShellError::TooMany);
        }
    }
    if !pipeline.stages.is_empty() {
        script.push((join, pipeline));
    } else if pipeline.negated {
        return Err(ShellError::EndOfFile);
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::super::lex::lex;
    use super::*;

    fn script(line: &str) -> Result<Script, ShellError> {
        parse(lex(line)?)
    }

    #[test]
    fn joins_and_pipes() {
        let s = script("ip a | grep inet && echo ok || echo no; true").unwrap();
        let shape: Vec<(Join, usize)> = s.iter().map(|(j, p)| (*j, p.stages.len())).collect();
        assert_eq!(shape, [(Join::Always, 2), (Join::IfOk, 1), (Join::IfFailed, 1), (Join::Always, 1)]);
        assert_eq!(script("true;").unwrap().len(), 1);
        assert!(script("! false").unwrap()[0].1.negated);
    }

    #[test]
    fn syntax_errors_name_the_token() {
        assert_eq!(script("; ls"), Err(ShellError::Syntax(";".into())));
        assert_eq!(script("ls | | wc"), Err(ShellError::Syntax("|".into())));
        assert_eq!(script("ls && && x"), Err(ShellError::Syntax("&&".into())));
        assert_eq!(script("ls >"), Err(ShellError::Syntax("newline".into())));
        assert_eq!(script("ls > ;"), Err(ShellError::Syntax(";".into())));
        assert_eq!(script("ls &&"), Err(ShellError::EndOfFile));
        assert_eq!(script("ls |"), Err(ShellError::EndOfFile));
    }

    #[test]
    fn compound_commands_and_limits() {
        assert_eq!(script("for i in 1; do ls; done"), Err(ShellError::Unsupported("loops and conditionals")));
        assert_eq!(script("{ ls; }"), Err(ShellError::Unsupported("{ }")));
        assert!(script("echo for").is_ok());
        assert!(script("'for' x").is_ok());
        assert_eq!(script(&"true;".repeat(33)), Err(ShellError::TooMany));
        assert_eq!(script(&format!("{}true", "true;".repeat(32))), Err(ShellError::TooMany));
        assert!(script(&"true;".repeat(32)).is_ok());
    }
}
