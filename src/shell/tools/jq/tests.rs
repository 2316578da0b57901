//! `jq`'s output, options, messages and statuses (checked against jq 1.7), and the bounds.

/// `jq` with its arguments as a list (filters hold spaces).
fn jq(args: &[&str], stdin: &str) -> (String, i32) {
    let mut io = crate::shell::Io::new(1 << 16);
    let argv: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let files = |p: &str| match p {
        "/j" => Ok("{\"k\": 2}\n".to_string()),
        _ => Err(crate::shell::FileError::NotFound),
    };
    let status = super::run(&argv, stdin, &files, &mut io);
    (io.into_chunks().into_iter().map(|(_, t)| t).collect(), status)
}

const RIPE: &str = r#"{"status": "ok", "data": {"updates": [
  {"type": "A", "attrs": {"path": [64530, 64512], "target_prefix": "198.18.4.0/22"}},
  {"type": "W", "attrs": {"target_prefix": "198.18.4.0/22"}}
], "resource": "AS64512"}}
"#;

#[test]
fn the_subset_the_bgp_prompt_names() {
    assert_eq!(jq(&[".data.resource"], RIPE), ("\"AS64512\"\n".into(), 0));
    assert_eq!(jq(&["-r", ".data.resource"], RIPE), ("AS64512\n".into(), 0));
    assert_eq!(jq(&["-c", ".data.updates[0].attrs.path"], RIPE), ("[64530,64512]\n".into(), 0));
    assert_eq!(jq(&[".data.updates[0].attrs.path"], RIPE), ("[\n  64530,\n  64512\n]\n".into(), 0));
    assert_eq!(jq(&["-r", ".data.updates[] | .type"], RIPE), ("A\nW\n".into(), 0));
    assert_eq!(
        jq(&["-c", ".data.updates[] | select(.type == \"W\") | .attrs"], RIPE),
        ("{\"target_prefix\":\"198.18.4.0/22\"}\n".into(), 0)
    );
    assert_eq!(jq(&[".data.updates | length"], RIPE), ("2\n".into(), 0));
    assert_eq!(jq(&["-c", ".data | keys"], RIPE), ("[\"resource\",\"updates\"]\n".into(), 0));
    assert_eq!(jq(&["-r", ".status, .data.resource"], RIPE), ("ok\nAS64512\n".into(), 0));
}

#[test]
fn more_of_the_language_that_terminates() {
    let f = "-r";
    let prog = ".data.updates[] | select(.type == \"A\") | [.attrs.target_prefix, (.attrs.path | map(tostring) | join(\" \"))] | join(\"\\t\")";
    assert_eq!(jq(&[f, prog], RIPE), ("198.18.4.0/22\t64530 64512\n".into(), 0));
    assert_eq!(
        jq(&["-c", "{s: .status, n: (.data.updates | length)}"], RIPE),
        ("{\"s\":\"ok\",\"n\":2}\n".into(), 0)
    );
    assert_eq!(jq(&["-c", "[.data.updates[].type] | unique"], RIPE), ("[\"A\",\"W\"]\n".into(), 0));
    assert_eq!(jq(&[".missing // \"none\""], RIPE), ("\"none\"\n".into(), 0));
    assert_eq!(
        jq(&["--arg", "t", "W", "-c", "[.data.updates[] | select(.type == $t)] | length"], RIPE),
        ("1\n".into(), 0)
    );
    assert_eq!(jq(&["-n", "1 + 2"], ""), ("3\n".into(), 0));
    assert_eq!(jq(&["-r", "@sh"], "\"it's\""), ("'it'\\''s'\n".into(), 0));
    assert_eq!(jq(&["-c", "@json"], "[1]"), ("\"[1]\"\n".into(), 0));
    assert_eq!(jq(&["-s", "-c", "."], "1 2\n"), ("[1,2]\n".into(), 0));
    assert_eq!(jq(&["-j", ".a"], "{\"a\":\"x\"}"), ("x".into(), 0));
    assert_eq!(jq(&["-cS", "."], "{\"b\":1,\"a\":2}"), ("{\"a\":2,\"b\":1}\n".into(), 0));
    assert_eq!(jq(&["-c", "."], "{\"b\":1,\"a\":2}"), ("{\"b\":1,\"a\":2}\n".into(), 0), "input order kept");
    assert_eq!(jq(&["."], "{}\n[]\n"), ("{}\n[]\n".into(), 0));
    assert_eq!(jq(&[".k", "/j"], ""), ("2\n".into(), 0));
    assert_eq!(jq(&[], "{\"a\": 1}"), ("{\n  \"a\": 1\n}\n".into(), 0), "no filter is `.`");
}

#[test]
fn jq_messages_and_statuses() {
    assert_eq!(
        jq(&[".a.b"], "{\"a\": 1}\n"),
        ("jq: error (at <stdin>:1): cannot index 1 with \"b\"\n".into(), 5)
    );
    assert_eq!(jq(&["error(\"boom\")"], "1\n"), ("jq: error (at <stdin>:1): boom\n".into(), 5));
    let (out, status) = jq(&[".a |||"], "{}");
    assert_eq!(status, 3);
    assert!(
        out.starts_with("jq: error: syntax error, unexpected") && out.ends_with("jq: 1 compile error\n"),
        "{out}"
    );
    let (out, status) = jq(&["nosuch"], "{}");
    assert_eq!(
        (out.lines().next(), status),
        (Some("jq: error: nosuch/0 is not defined at <top-level>, line 1:"), 3)
    );
    let (out, status) = jq(&["."], "{\"a\": }");
    assert_eq!(status, 2);
    assert!(out.starts_with("jq: parse error: ") && out.contains("at line 1, column"), "{out}");
    let (out, status) = jq(&["-x", "."], "{}");
    assert_eq!((out.lines().next(), status), (Some("jq: Unknown option: -x"), 2));
    assert_eq!(
        jq(&[".", "/nope"], ""),
        ("jq: error: Could not open /nope: No such file or directory\n".into(), 2)
    );
}

#[test]
fn what_could_run_forever_is_refused_before_it_runs() {
    for (prog, what) in [
        ("def f: f; f", "def"),
        ("reduce .[] as $x (0; . + $x)", "reduce"),
        ("[range(1000000000)] | length", "range/1"),
        ("until(false; .)", "until/2"),
        ("repeat(.)", "repeat/1"),
        ("recurse(.[])", "recurse/1"),
        ("\"x\" * 1000000000000", "*"),
        (".a = 1", "assignment"),
        ("test(\"a\")", "test/1"),
        ("now", "now/0"),
        ("env", "env/0"),
        ("@base64", "@base64"),
        ("@csv", "@csv"),
        ("label $out | 1", "label"),
    ] {
        assert_eq!(
            jq(&[prog], "[1]"),
            (format!("jq: error: unsupported filter in this lab: {what}\n"), 3),
            "{prog}"
        );
    }
    let doubling = ["[.[],.[]]"; 9].join(" | ");
    assert_eq!(
        jq(&[&doubling], "[1]"),
        ("jq: error: unsupported filter in this lab: more than 8 commas\n".into(), 3)
    );
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    assert_eq!(jq(&[&deep], "1").1, 3);
    assert_eq!(jq(&["."], &deep), ("jq: error (at <stdin>:1): Exceeds depth limit for parsing\n".into(), 2));
}

/// `jq` is not among every shell's tools: an application registers it (BGP does; its shell
/// test is in `src/bgp/tools`), so the other bundles leave the interpreter out.
#[test]
fn jq_is_registered_by_applications_not_by_every_shell() {
    let mut io = crate::shell::Io::new(1 << 16);
    let none = |_: &str| Err(crate::shell::FileError::NotFound);
    assert_eq!(crate::shell::tools::run("jq", &[".".into()], "1", &none, &mut io), None);
    assert_eq!(jq(&["-c", ".a"], "{\"a\":[1]}"), ("[1]\n".into(), 0));
}
