//! kubectl's command line: finding the verb and parsing flags as cobra/pflag do.
//!
//! The verb is the first word that is neither a flag nor a flag's value, wherever it stands
//! (`kubectl -n default delete …` has the verb `delete`), which is what the verb policy and
//! the refusal record rely on.

/// A flag a verb accepts.
#[derive(Debug, Clone, Copy)]
pub struct FlagSpec {
    pub long: &'static str,
    pub short: Option<char>,
    pub takes_value: bool,
}

const fn flag(long: &'static str, short: Option<char>, takes_value: bool) -> FlagSpec {
    FlagSpec { long, short, takes_value }
}

/// Flags every verb accepts (kubectl's persistent flags).
pub const GLOBAL: &[FlagSpec] = &[
    flag("namespace", Some('n'), true),
    flag("context", None, true),
    flag("kubeconfig", None, true),
    flag("cluster", None, true),
    flag("user", None, true),
    flag("request-timeout", None, true),
    flag("v", Some('v'), true),
    flag("help", Some('h'), false),
];

const GET: &[FlagSpec] = &[
    flag("all-namespaces", Some('A'), false),
    flag("output", Some('o'), true),
    flag("selector", Some('l'), true),
    flag("show-labels", None, false),
    flag("no-headers", None, false),
];
const DESCRIBE: &[FlagSpec] = &[
    flag("all-namespaces", Some('A'), false),
    flag("selector", Some('l'), true),
    flag("show-events", None, false),
];
const EXPLAIN: &[FlagSpec] =
    &[flag("recursive", None, false), flag("api-version", None, true), flag("output", Some('o'), true)];
const PATCH: &[FlagSpec] = &[
    flag("patch", Some('p'), true),
    flag("patch-file", None, true),
    flag("type", None, true),
    flag("dry-run", None, true),
    flag("output", Some('o'), true),
];
const LABEL: &[FlagSpec] = &[
    flag("overwrite", None, false),
    flag("selector", Some('l'), true),
    flag("all", None, false),
    flag("dry-run", None, true),
    flag("output", Some('o'), true),
];
const APPLY: &[FlagSpec] =
    &[flag("filename", Some('f'), true), flag("dry-run", None, true), flag("output", Some('o'), true)];
const DELETE: &[FlagSpec] = &[
    flag("filename", Some('f'), true),
    flag("selector", Some('l'), true),
    flag("all", None, false),
    flag("dry-run", None, true),
    flag("ignore-not-found", None, false),
    flag("wait", None, false),
    flag("now", None, false),
];
const VERSION: &[FlagSpec] = &[flag("client", None, false), flag("output", Some('o'), true)];

/// The flags of each verb (beyond [`GLOBAL`]).
pub fn verb_flags(verb: &str) -> &'static [FlagSpec] {
    match verb {
        "get" => GET,
        "describe" => DESCRIBE,
        "explain" => EXPLAIN,
        "patch" => PATCH,
        "label" => LABEL,
        "apply" | "create" => APPLY,
        "delete" => DELETE,
        "version" => VERSION,
        _ => &[],
    }
}

/// Parsed arguments of one kubectl invocation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    pub verb: String,
    pub positional: Vec<String>,
    /// `(long name, value)`; boolean flags have the value `true`/`false`.
    pub flags: Vec<(String, String)>,
}

impl Args {
    /// The last value given for a flag.
    pub fn value(&self, long: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(k, _)| k == long).map(|(_, v)| v.as_str())
    }

    /// Every value given for a repeatable flag.
    pub fn values(&self, long: &str) -> Vec<&str> {
        self.flags.iter().filter(|(k, _)| k == long).map(|(_, v)| v.as_str()).collect()
    }

    pub fn is_set(&self, long: &str) -> bool {
        self.value(long).is_some_and(|v| v != "false")
    }
}

fn all_value_flags() -> impl Iterator<Item = FlagSpec> {
    let verbs = ["get", "describe", "explain", "patch", "label", "apply", "delete", "version"];
    GLOBAL
        .iter()
        .copied()
        .chain(verbs.into_iter().flat_map(|v| verb_flags(v).iter().copied()))
        .filter(|f| f.takes_value)
}

/// The verb: the first word that is not a flag or a flag's value.
pub fn find_verb(argv: &[String]) -> Option<&str> {
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "--" {
            return argv.get(i + 1).map(String::as_str);
        }
        if let Some(long) = a.strip_prefix("--") {
            if !long.contains('=') && all_value_flags().any(|f| f.long == long) {
                i += 1;
            }
        } else if a.len() == 2 && a.starts_with('-') {
            let c = a.chars().nth(1);
            if all_value_flags().any(|f| f.short == c) {
                i += 1;
            }
        } else if !(a.starts_with('-') && a.len() > 1) {
            return Some(a);
        }
        i += 1;
    }
    None
}

/// Parses the arguments of `verb` (the verb itself is dropped from the positionals).
/// Errors are kubectl's, without the `See … --help` line (the caller adds it).
pub fn parse(argv: &[String], verb: &str) -> Result<Args, String> {
    let specs: Vec<FlagSpec> = GLOBAL.iter().chain(verb_flags(verb)).copied().collect();
    let mut args = Args { verb: verb.to_string(), ..Args::default() };
    let mut seen_verb = false;
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if a == "--" {
            args.positional.extend(argv[i..].iter().cloned());
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let spec =
                specs.iter().find(|s| s.long == name).ok_or_else(|| format!("unknown flag: --{name}"))?;
            let value = take_value(spec, inline, argv, &mut i, || format!("--{name}"))?;
            args.flags.push((spec.long.to_string(), value));
        } else if a.len() > 1 && a.starts_with('-') {
            parse_shorts(&a[1..], &specs, argv, &mut i, &mut args)?;
        } else if !seen_verb && a == verb {
            seen_verb = true;
        } else {
            args.positional.push(a.clone());
        }
    }
    Ok(args)
}

fn take_value(
    spec: &FlagSpec,
    inline: Option<String>,
    argv: &[String],
    i: &mut usize,
    name: impl Fn() -> String,
) -> Result<String, String> {
    if !spec.takes_value {
        return match inline.as_deref() {
            None => Ok("true".into()),
            Some("true" | "1" | "t" | "T" | "TRUE" | "True") => Ok("true".into()),
            Some("false" | "0" | "f" | "F" | "FALSE" | "False") => Ok("false".into()),
            Some(v) => Err(format!(
                "invalid argument {v:?} for {:?} flag: strconv.ParseBool: parsing {v:?}: invalid syntax",
                name()
            )),
        };
    }
    if let Some(v) = inline {
        return Ok(v);
    }
    match argv.get(*i) {
        Some(v) => {
            *i += 1;
            Ok(v.clone())
        }
        None => Err(format!("flag needs an argument: {}", name())),
    }
}

/// `-n default`, `-ndefault`, `-n=default`, and clusters of boolean shorthands (`-A`).
fn parse_shorts(
    body: &str,
    specs: &[FlagSpec],
    argv: &[String],
    i: &mut usize,
    args: &mut Args,
) -> Result<(), String> {
    let chars: Vec<char> = body.chars().collect();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        let spec = specs
            .iter()
            .find(|s| s.short == Some(c))
            .ok_or_else(|| format!("unknown shorthand flag: '{c}' in -{body}"))?;
        if spec.takes_value {
            let rest: String = chars[k + 1..].iter().collect();
            let inline = if rest.is_empty() {
                None
            } else {
                Some(rest.strip_prefix('=').unwrap_or(&rest).to_string())
            };
            let value = take_value(spec, inline, argv, i, || format!("'{c}' in -{c}"))?;
            args.flags.push((spec.long.to_string(), value));
            return Ok(());
        }
        args.flags.push((spec.long.to_string(), "true".into()));
        k += 1;
    }
    Ok(())
}

/// Levenshtein distance, for cobra's "Did you mean this?" suggestions.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn finds_the_verb_after_flags() {
        assert_eq!(find_verb(&argv("-n default delete netpol x")), Some("delete"));
        assert_eq!(find_verb(&argv("--namespace=x get pods")), Some("get"));
        assert_eq!(find_verb(&argv("-o yaml get pods")), Some("get"));
        assert_eq!(find_verb(&argv("-A")), None);
    }

    #[test]
    fn parses_flags_like_pflag() {
        let a =
            parse(&argv("get netpol -n kube-system -oyaml --show-labels -l=app=x adservice"), "get").unwrap();
        assert_eq!(a.positional, vec!["netpol", "adservice"]);
        assert_eq!(a.value("namespace"), Some("kube-system"));
        assert_eq!(a.value("output"), Some("yaml"));
        assert_eq!(a.value("selector"), Some("app=x"));
        assert!(a.is_set("show-labels"));
        assert_eq!(parse(&argv("get pods --foo"), "get").unwrap_err(), "unknown flag: --foo");
        assert_eq!(parse(&argv("get pods -x"), "get").unwrap_err(), "unknown shorthand flag: 'x' in -x");
        assert_eq!(parse(&argv("get pods -n"), "get").unwrap_err(), "flag needs an argument: 'n' in -n");
        assert_eq!(
            parse(&argv("get pods --namespace"), "get").unwrap_err(),
            "flag needs an argument: --namespace"
        );
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("gett", "get"), 1);
        assert_eq!(edit_distance("desribe", "describe"), 1);
        assert_eq!(edit_distance("logs", "get"), 4);
    }
}
