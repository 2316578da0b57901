//! The tools' options, messages and exit statuses, checked against what GNU coreutils and
//! GNU grep print.

use super::*;

/// Runs `name` with whitespace-split `args` over `stdin`, with one file `/f`.
pub(super) fn t(name: &str, args: &str, stdin: &str) -> (String, i32) {
    let argv: Vec<String> = args.split_whitespace().map(str::to_string).collect();
    let files = |p: &str| match p {
        "/f" => Ok("f1\nf2\n".to_string()),
        "/d" => Err(FileError::IsDirectory),
        _ => Err(FileError::NotFound),
    };
    let mut io = Io::new(1 << 16);
    let status = run(name, &argv, stdin, &files, &mut io).expect("a tool");
    (io.into_chunks().into_iter().map(|(_, t)| t).collect(), status)
}

#[test]
fn grep_flags() {
    let input = "alpha\nBeta\ngamma\ndelta beta\n";
    assert_eq!(t("grep", "-i beta", input), ("Beta\ndelta beta\n".into(), 0));
    assert_eq!(t("grep", "-y beta", input), ("Beta\ndelta beta\n".into(), 0));
    assert_eq!(t("grep", "-c a", input), ("4\n".into(), 0));
    assert_eq!(t("grep", "-v a", input), ("".into(), 1));
    assert_eq!(t("grep", "-vn o", "one\ntwo\nthree\n"), ("3:three\n".into(), 0));
    assert_eq!(t("grep", "-n gamma", input), ("3:gamma\n".into(), 0));
    assert_eq!(t("grep", "-o -E [ab]et?a", input), ("beta\n".into(), 0));
    assert_eq!(t("grep", "-o ab", "ab ab\n"), ("ab\nab\n".into(), 0));
    assert_eq!(t("grep", "-ov x", "x\ny\n"), ("".into(), 0), "-o -v prints nothing");
    assert_eq!(t("grep", "-w -i beta", "betas\nx beta y\n"), ("x beta y\n".into(), 0));
    assert_eq!(t("grep", "-ow eth1", "eth10 eth1\n"), ("eth1\n".into(), 0));
    assert_eq!(t("grep", "-x ab", "ab\nabc\n"), ("ab\n".into(), 0));
    assert_eq!(t("grep", "a|b", "a|b\na\n"), ("a|b\n".into(), 0), "BRE | is literal");
    assert_eq!(t("grep", "a\\|B", input).1, 0, "BRE \\| is alternation");
    assert_eq!(t("grep", "-E a|b", "c\na\n"), ("a\n".into(), 0));
    assert_eq!(t("egrep", "a|b", "c\na\n"), ("a\n".into(), 0));
    assert_eq!(t("grep", "-F a.b", "a.b\naxb\n"), ("a.b\n".into(), 0));
    assert_eq!(t("fgrep", ".", "ab\na.b\n"), ("a.b\n".into(), 0));
    assert_eq!(t("grep", "x(y", "x(y\n"), ("x(y\n".into(), 0), "BRE parentheses are literal");
    assert_eq!(t("grep", "-q x", "x\n"), (String::new(), 0));
    assert_eq!(t("grep", "-q y", "x\n"), (String::new(), 1));
    assert_eq!(t("grep", "--count --ignore-case A", "a\nA\n"), ("2\n".into(), 0));
    assert_eq!(t("grep", "-e a -e g", input), ("alpha\nBeta\ngamma\ndelta beta\n".into(), 0));
}

#[test]
fn grep_context() {
    let six = "1\n2\n3\n4\n5\n6\n";
    assert_eq!(t("grep", "-A1 -B1 -e 2 -e 6", six), ("1\n2\n3\n--\n5\n6\n".into(), 0));
    assert_eq!(t("grep", "-1 4", six), ("3\n4\n5\n".into(), 0));
    let input = "alpha\nBeta\ngamma\ndelta beta\n";
    assert_eq!(t("grep", "-C1 -n gamma", input), ("2-Beta\n3:gamma\n4-delta beta\n".into(), 0));
    assert_eq!(t("grep", "-A1 a", "a\nx\nx\nx\na\n").0, "a\nx\n--\na\n");
}

#[test]
fn grep_files_and_errors() {
    assert_eq!(t("grep", "f2 /f", ""), ("f2\n".into(), 0));
    assert_eq!(t("grep", "f /f -", "f0\n"), ("/f:f1\n/f:f2\n(standard input):f0\n".into(), 0));
    assert_eq!(t("grep", "-c f /f /f", ""), ("/f:2\n/f:2\n".into(), 0));
    assert_eq!(t("grep", "-h f /f /f", "").0, "f1\nf2\nf1\nf2\n");
    assert_eq!(t("grep", "x file", ""), ("grep: file: No such file or directory\n".into(), 2));
    assert_eq!(t("grep", "-q f /nope /f", ""), ("grep: /nope: No such file or directory\n".into(), 0));
    assert_eq!(t("grep", "x /d", ""), ("grep: /d: Is a directory\n".into(), 2));
    assert_eq!(t("grep", "-E (", "x\n"), ("grep: Invalid regular expression\n".into(), 2));
    let usage = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";
    assert_eq!(t("grep", "-Z x", "x\n"), (format!("grep: invalid option -- 'Z'\n{usage}"), 2));
    assert_eq!(t("grep", "", ""), (usage.to_string(), 2));
    assert_eq!(t("grep", "-A", ""), (format!("grep: option requires an argument -- 'A'\n{usage}"), 2));
    assert_eq!(t("grep", "-A x y", ""), ("grep: x: invalid context length argument\n".into(), 2));
    assert_eq!(t("grep", "--nope x", "").0, format!("grep: unrecognized option '--nope'\n{usage}"));
}

#[test]
fn head_and_tail() {
    let input = "1\n2\n3\n4\n";
    assert_eq!(t("head", "-n 2", input).0, "1\n2\n");
    assert_eq!(t("head", "-3", input).0, "1\n2\n3\n");
    assert_eq!(t("head", "--lines=1", input).0, "1\n");
    assert_eq!(t("head", "-n -1", input).0, "1\n2\n3\n");
    assert_eq!(t("tail", "-n1", input).0, "4\n");
    assert_eq!(t("tail", "-1", input).0, "4\n");
    assert_eq!(t("tail", "-n +3", input).0, "3\n4\n");
    assert_eq!(t("head", "/f", "").0, "f1\nf2\n");
    assert_eq!(t("tail", "-n1 /f -", "s\n").0, "==> /f <==\nf2\n\n==> standard input <==\ns\n");
    assert_eq!(
        t("head", "/x", ""),
        ("head: cannot open '/x' for reading: No such file or directory\n".into(), 1)
    );
    assert_eq!(t("head", "-n x", ""), ("head: invalid number of lines: ‘x’\n".into(), 1));
    assert_eq!(
        t("tail", "-n", ""),
        ("tail: option requires an argument -- 'n'\nTry 'tail --help' for more information.\n".into(), 1)
    );
    assert_eq!(
        t("head", "-q", ""),
        ("head: invalid option -- 'q'\nTry 'head --help' for more information.\n".into(), 1)
    );
}

#[test]
fn wc_cat_echo() {
    assert_eq!(t("wc", "", "a b\nc\n"), ("      2       3       6\n".into(), 0));
    assert_eq!(t("wc", "-l", "a b\nc\n"), ("2\n".into(), 0));
    assert_eq!(t("wc", "-m", "é\n"), ("2\n".into(), 0));
    assert_eq!(t("wc", "-c", "é\n"), ("3\n".into(), 0));
    assert_eq!(t("wc", "--lines /f /f", ""), ("2 /f\n2 /f\n4 total\n".into(), 0));
    assert_eq!(t("wc", "-l /x", ""), ("wc: /x: No such file or directory\n".into(), 1));
    assert_eq!(
        t("wc", "-z", ""),
        ("wc: invalid option -- 'z'\nTry 'wc --help' for more information.\n".into(), 1)
    );
    assert_eq!(t("cat", "", "in\n"), ("in\n".into(), 0));
    assert_eq!(t("cat", "/f - /x", "in\n"), ("f1\nf2\nin\ncat: /x: No such file or directory\n".into(), 1));
    assert_eq!(t("cat", "-n", "a\nb\n"), ("     1\ta\n     2\tb\n".into(), 0));
    assert_eq!(t("cat", "/d", ""), ("cat: /d: Is a directory\n".into(), 1));
    assert_eq!(t("echo", "-n a b", ""), ("a b".into(), 0));
    assert_eq!(t("echo", "-e a\\tb\\x41\\0101", ""), ("a\tbAA\n".into(), 0));
    assert_eq!(t("echo", "-e a\\cb", ""), ("a".into(), 0));
    assert_eq!(t("echo", "a\\nb", ""), ("a\\nb\n".into(), 0));
    assert_eq!(t("false", "", ""), ("".into(), 1));
    assert_eq!(t("sleep", "5", ""), ("".into(), 0));
    assert!(run("ls", &[], "", &|_| Err(FileError::NotFound), &mut Io::new(10)).is_none());
}

/// The tools stop producing once the writer is full, so huge inputs cost no more than the limit.
#[test]
fn tools_stop_at_the_limit() {
    let big = "line\n".repeat(10_000);
    let mut io = Io::new(64);
    assert_eq!(run("cat", &["-n".to_string()], &big, &|_| Err(FileError::NotFound), &mut io), Some(0));
    assert!(io.truncated());
    assert_eq!(io.into_chunks().iter().map(|(_, t)| t.len()).sum::<usize>(), 64);
}
