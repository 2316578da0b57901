//! The grammar's tests: quoting, lists and pipes, redirections, here-documents, the refusals
//! of both grammars, the limits, and properties over arbitrary input.

use super::*;

/// Route's grammar: no expansions, files allowed.
const NARROW: Grammar = Grammar { expansions: false, files: true, max_input: 4096 };
/// K8s's grammar: expansions, no files.
const WIDE: Grammar = Grammar { expansions: true, files: false, max_input: 64 * 1024 };

fn argv(s: &str, g: Grammar) -> Vec<Vec<Vec<String>>> {
    parse(s, g)
        .unwrap()
        .items
        .into_iter()
        .map(|(_, p)| p.stages.into_iter().map(|c| c.argv).collect())
        .collect()
}

fn words(s: &str, g: Grammar) -> Vec<String> {
    argv(s, g).concat().concat()
}

fn refused(s: &str, g: Grammar) -> Refused {
    match parse(s, g) {
        Err(SyntaxError::Refused(r)) => r,
        other => panic!("{s}: {other:?}"),
    }
}

#[test]
fn quotes_and_escapes() {
    assert_eq!(
        words(r#"echo 'a b' "c\"d" e\ f g#h # comment"#, NARROW),
        ["echo", "a b", "c\"d", "e f", "g#h"]
    );
    assert_eq!(
        words(r#"echo 'a b' "c \"d\" \$e" f\ g $HOME x${Y}z"#, WIDE),
        ["echo", "a b", "c \"d\" $e", "f g", "", "xz"]
    );
    assert_eq!(words(r"echo $'a\tb\x41\u00e9\101'", WIDE), ["echo", "a\tbAéA"]);
    assert_eq!(words("echo a\\\nb # comment", WIDE), ["echo", "ab"]);
    assert_eq!(words("echo \\$x", NARROW), ["echo", "$x"]);
}

#[test]
fn lists_pipes_and_negation() {
    let s = parse("ip a | grep inet && echo ok || echo no; true\nfalse", NARROW).unwrap();
    let shape: Vec<(Join, usize)> = s.items.iter().map(|(j, p)| (*j, p.stages.len())).collect();
    assert_eq!(shape, [(Join::Seq, 2), (Join::And, 1), (Join::Or, 1), (Join::Seq, 1), (Join::Seq, 1)]);
    assert_eq!(parse("true;", NARROW).unwrap().items.len(), 1);
    assert!(parse("! false", NARROW).unwrap().items[0].1.negated);
    assert!(!parse("'!' false", NARROW).unwrap().items[0].1.negated);
    assert!(parse("kubectl get pods &&\n echo x", WIDE).is_ok(), "continuation after &&");
    assert_eq!(words("iptables -D INPUT 1; true", NARROW), ["iptables", "-D", "INPUT", "1", "true"]);
    assert_eq!(words("echo 1&&echo 2||true", NARROW), ["echo", "1", "echo", "2", "true"]);
}

#[test]
fn redirections() {
    let s = parse("x 2>&1 >/dev/null 2> f &> g >> h >&2", NARROW).unwrap();
    let file = |p: &str, append| Target::File { path: p.into(), append };
    let r: Vec<(u8, Target)> =
        s.items[0].1.stages[0].redirects.iter().map(|r| (r.fd, r.to.clone())).collect();
    assert_eq!(
        r,
        [
            (2, Target::Fd(1)),
            (1, file("/dev/null", false)),
            (2, file("f", false)),
            (3, file("g", false)),
            (1, file("h", true)),
            (1, Target::Fd(2)),
        ]
    );
    assert_eq!(words("echo 1&>/dev/null", NARROW), ["echo", "1"]);
    assert!(parse("> /dev/null", NARROW).is_ok(), "a command may be only redirections");
    assert_eq!(refused("a > f", WIDE), Refused::FileRedirect("f".into()));
    assert_eq!(refused("a >> /dev/null", WIDE), Refused::Append);
    assert_eq!(refused("a &> /dev/null", WIDE), Refused::BothRedirect);
    assert_eq!(refused("a 2>&2", WIDE), Refused::SelfRedirect);
    assert_eq!(refused("a >&x", WIDE), Refused::FdRedirect);
    assert!(parse("a 2>/dev/null >&2", WIDE).is_ok());
}

#[test]
fn heredocs() {
    let s = parse("kubectl apply -f - <<EOF\nkind: $X\n\\$y\nEOF\necho done", WIDE).unwrap();
    assert_eq!(s.items[0].1.stages[0].stdin.as_deref(), Some("kind: \n$y\n"));
    assert_eq!(s.items.len(), 2);
    let s = parse("cat <<-'E'\n\tx $Y\n\tE\n", WIDE).unwrap();
    assert_eq!(s.items[0].1.stages[0].stdin.as_deref(), Some("x $Y\n"));
    let s = parse("kubectl patch x -p \"$(cat <<'EOF'\n{\"a\": 1}\nEOF\n)\" --type merge", WIDE).unwrap();
    assert_eq!(s.items[0].1.stages[0].argv[4], "{\"a\": 1}");
    assert!(parse("cat <<EOF\nno end", WIDE).unwrap().warnings[0].contains("delimited by end-of-file"));
    assert_eq!(refused("cat <<EOF\nx\nEOF", NARROW), Refused::Input);
}

#[test]
fn syntax_errors_name_the_token() {
    for g in [NARROW, WIDE] {
        assert_eq!(parse("; ls", g), Err(SyntaxError::Token(";".into())));
        assert_eq!(parse("ls | | wc", g), Err(SyntaxError::Token("|".into())));
        assert_eq!(parse("ls && && x", g), Err(SyntaxError::Token("&&".into())));
        assert_eq!(parse("a ;; b", g), Err(SyntaxError::Token(";;".into())));
        assert_eq!(parse("ls >", g), Err(SyntaxError::Token("newline".into())));
        assert_eq!(parse("ls > ;", g), Err(SyntaxError::Token(";".into())));
        assert_eq!(parse("ls &&", g), Err(SyntaxError::EndOfFile));
        assert_eq!(parse("ls |", g), Err(SyntaxError::EndOfFile));
        assert_eq!(parse("!", g), Err(SyntaxError::EndOfFile));
        assert_eq!(parse("echo 'x", g), Err(SyntaxError::Unterminated('\'')));
        assert_eq!(parse("echo \"x", g), Err(SyntaxError::Unterminated('"')));
    }
}

#[test]
fn refusals() {
    assert_eq!(refused("echo $HOME", NARROW), Refused::Dollar);
    assert_eq!(refused("echo \"quoted $ ok\"", NARROW), Refused::Dollar);
    assert_eq!(refused("echo \"`id`\"", NARROW), Refused::Backquote);
    assert_eq!(refused("sleep 1 &", NARROW), Refused::Background);
    assert_eq!(refused("(ls)", NARROW), Refused::Subshell);
    assert_eq!(refused("cat < x", NARROW), Refused::Input);
    assert_eq!(refused("ls |& wc", NARROW), Refused::PipeBoth);
    assert_eq!(refused("for i in 1; do ls; done", NARROW), Refused::Keyword("for".into()));
    assert_eq!(refused("{ ls; }", NARROW), Refused::Keyword("{".into()));
    assert!(parse("echo for", NARROW).is_ok());
    assert!(parse("'for' x", NARROW).is_ok());
    assert_eq!(refused("X=1 kubectl", WIDE), Refused::Assignment);
    assert!(parse("X=1 kubectl", NARROW).is_ok(), "without expansions `X=1` is a word");
    assert_eq!(refused("echo $(date)", WIDE), Refused::Substitution);
    assert_eq!(refused("echo $((1+1))", WIDE), Refused::Arithmetic);
    assert_eq!(refused("cat <<< x", WIDE), Refused::HereString);
}

#[test]
fn limits() {
    for g in [NARROW, WIDE] {
        assert_eq!(refused(&"true;".repeat(33), g), Refused::TooManyCommands);
        assert_eq!(refused(&format!("{}true", "true;".repeat(32)), g), Refused::TooManyCommands);
        assert!(parse(&"true;".repeat(32), g).is_ok());
        assert_eq!(refused(&format!("{}a", "a|".repeat(8)), g), Refused::TooManyStages);
        assert!(parse(&format!("{}a", "a|".repeat(7)), g).is_ok());
    }
    assert_eq!(refused(&"a".repeat(5000), NARROW), Refused::TooLong { len: 5000, limit: 4096 });
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A word the grammar reads back as itself when written in single quotes.
    fn quote(w: &str) -> String {
        format!("'{}'", w.replace('\'', r"'\''"))
    }

    fn pieces() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "kubectl",
                "get",
                "pods",
                " ",
                "|",
                "||",
                "&&",
                ";",
                "\n",
                "'",
                "\"",
                "$'",
                "\\",
                "$(",
                ")",
                "(",
                "cat",
                "<<",
                "<<-",
                "'EOF'",
                "EOF",
                ">",
                ">>",
                "&>",
                "2>&1",
                ">/dev/null",
                "2>",
                "&",
                "#",
                "$X",
                "${",
                "}",
                "`",
                "=",
                "x=1",
                "!",
                "for",
                "{",
                "1",
                "2",
                ">&",
            ]),
            0..40,
        )
        .prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC{0,300}") {
            let _ = parse(&s, NARROW);
            let _ = parse(&s, WIDE);
        }

        #[test]
        fn shell_like_input_never_panics(s in pieces()) {
            for g in [NARROW, WIDE] {
                if let Ok(script) = parse(&s, g) {
                    prop_assert!(script.items.iter().map(|(_, p)| p.stages.len()).sum::<usize>() <= MAX_COMMANDS);
                }
            }
        }

        /// Any words, each single-quoted, read back as exactly those words, one command.
        #[test]
        fn single_quoting_round_trips(ws in prop::collection::vec("\\PC{0,12}", 1..6)) {
            let line = ws.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
            for g in [NARROW, WIDE] {
                prop_assert_eq!(&argv(&line, g), &vec![vec![ws.clone()]]);
            }
        }

        /// Plain words joined by operators keep their words, whatever the spacing.
        #[test]
        fn operators_split_words(ws in prop::collection::vec("[a-z0-9.-]{1,8}", 1..8), ops in prop::collection::vec(prop::sample::select(vec![";", "&&", "||", "|"]), 8), tight in any::<bool>()) {
            prop_assume!(ws.iter().all(|w| !KEYWORDS.contains(&w.as_str())));
            let sep = |op: &str| if tight { op.to_string() } else { format!(" {op} ") };
            let mut line = ws[0].clone();
            for (w, op) in ws[1..].iter().zip(&ops) {
                line.push_str(&sep(op));
                line.push_str(w);
            }
            let got = parse(&line, NARROW).map(|s| s.items.iter().flat_map(|(_, p)| p.stages.iter().flat_map(|c| c.argv.clone())).collect::<Vec<_>>());
            prop_assert_eq!(got, Ok(ws.clone()));
        }
    }
}
