//! `kubectl get`: tables, `-o wide|name|yaml|json|jsonpath=…`, selectors, `-A`.

use serde_json::{Value, json};

use super::args::Args;
use super::printers::{TableOpts, table_lines};
use super::tabwriter;
use super::target::{Target, resolve};
use super::{Env, jsonpath};
use crate::k8s::cluster::Cluster;
use crate::k8s::labels::{Selector, parse_query};
use crate::k8s::objects::{Kind, Obj, get as get_obj, list};
use crate::k8s::output::Output;
use crate::k8s::yaml::{to_json_pretty, to_yaml, to_yaml_item};

/// How objects are printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    Table { wide: bool },
    Name,
    Yaml,
    Json,
    JsonPath(String),
}

/// Parses `-o`; the error is kubectl's message.
pub fn parse_format(o: Option<&str>) -> Result<Format, String> {
    Ok(match o {
        None | Some("") => Format::Table { wide: false },
        Some("wide") => Format::Table { wide: true },
        Some("name") => Format::Name,
        Some("yaml") => Format::Yaml,
        Some("json") => Format::Json,
        Some(s) if s.starts_with("jsonpath=") => Format::JsonPath(s["jsonpath=".len()..].to_string()),
        Some(s) => {
            return Err(format!(
                "error: unable to match a printer suitable for the output format \"{s}\", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml"
            ));
        }
    })
}

/// The namespace a command acts in (`-n`, else `default`).
pub fn namespace(a: &Args) -> String {
    a.value("namespace").unwrap_or("default").to_string()
}

/// Parses `-l`, with kubectl's error text.
pub fn selector(a: &Args) -> Result<Selector, String> {
    match a.value("selector") {
        Some(s) => parse_query(s).map_err(|e| format!("error: {e}")),
        None => Ok(Selector::default()),
    }
}

/// `Error from server (NotFound): pods "x" not found`.
pub fn not_found(kind: Kind, name: &str) -> String {
    format!("Error from server (NotFound): {} \"{name}\" not found", kind.resource())
}

/// The objects a target names (or lists), with a NotFound error per missing name.
pub fn collect<'a>(
    c: &'a Cluster,
    t: &Target,
    ns: Option<&str>,
    sel: &Selector,
    errors: &mut Vec<String>,
) -> Vec<Obj<'a>> {
    if t.names.is_empty() {
        return list(c, t.kind, ns).into_iter().filter(|o| sel.matches(&o.meta().labels)).collect();
    }
    let ns = ns.unwrap_or("default");
    let mut out = Vec::new();
    for name in &t.names {
        match get_obj(c, t.kind, ns, name) {
            Some(o) => out.push(o),
            None => errors.push(not_found(t.kind, name)),
        }
    }
    out
}

/// The `No resources found` line for an empty listing.
pub fn no_resources(all_ns: bool, ns: &str, kinds: &[Kind]) -> String {
    if all_ns || kinds.iter().all(|k| !k.namespaced()) {
        "No resources found\n".to_string()
    } else {
        format!("No resources found in {ns} namespace.\n")
    }
}

/// Objects as one JSON value: a bare object when one was named, else a `List`.
pub fn as_json(objs: &[Obj<'_>], c: &Cluster, single: bool) -> Value {
    if single && objs.len() == 1 {
        return objs[0].to_json(c);
    }
    let items: Vec<Value> = objs.iter().map(|o| o.to_json(c)).collect();
    json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}})
}

/// Prints objects in a machine format (yaml, json, name, jsonpath) into `o`; a list in YAML,
/// JSON or names stops once `o` is full.
pub fn print_machine(fmt: &Format, objs: &[Obj<'_>], c: &Cluster, single: bool, o: &mut Output) {
    let list = !(single && objs.len() == 1);
    match fmt {
        Format::Name => {
            for obj in objs {
                if o.full() {
                    return;
                }
                o.out(format!("{}/{}\n", obj.kind().prefix(), obj.name()));
            }
        }
        Format::Yaml | Format::Json if list => print_list(fmt == &Format::Yaml, objs, c, o),
        Format::Yaml => o.out(to_yaml(&as_json(objs, c, single))),
        Format::Json => o.out(format!("{}\n", to_json_pretty(&as_json(objs, c, single)))),
        Format::JsonPath(t) => match jsonpath::render(t, &as_json(objs, c, single)) {
            Ok(s) => o.out(s),
            Err(e) => o.fail(format!("error: {e}")),
        },
        Format::Table { .. } => {}
    }
}

/// A `List` in YAML or JSON written item by item: the bytes [`as_json`] rendered whole would
/// give, without building the list's value or text, and stopping once `o` is full. The frame
/// around the items is the rendering of the empty list, cut where its `items` are.
fn print_list(yaml: bool, objs: &[Obj<'_>], c: &Cluster, o: &mut Output) {
    let empty = as_json(&[], c, false);
    let (frame, items) = if yaml {
        (to_yaml(&empty), "items: []\n")
    } else {
        (format!("{}\n", to_json_pretty(&empty)), "\"items\": []")
    };
    let Some((head, tail)) = frame.split_once(items).filter(|_| !objs.is_empty()) else {
        return o.out(frame);
    };
    o.out(head);
    o.out(if yaml { "items:\n" } else { "\"items\": [" });
    for (i, obj) in objs.iter().enumerate() {
        if o.full() {
            return;
        }
        let item = obj.to_json(c);
        if yaml {
            o.out(to_yaml_item(&item));
        } else {
            // Go indents an item of the top-level list's `items` by two levels of four spaces.
            o.out(if i == 0 { "\n" } else { ",\n" });
            let text = to_json_pretty(&item);
            for (k, line) in text.split('\n').enumerate() {
                o.out(if k == 0 { "        " } else { "\n        " });
                o.out(line);
            }
        }
    }
    if !yaml {
        o.out("\n    ]");
    }
    o.out(tail);
}

pub fn get(a: &Args, env: &mut Env, o: &mut Output) {
    let targets = match resolve(&a.positional) {
        Ok(t) if t.is_empty() => {
            return o.fail(
                "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples",
            );
        }
        Ok(t) => t,
        Err(e) => return o.fail(e),
    };
    let fmt = match parse_format(a.value("output")) {
        Ok(f) => f,
        Err(e) => return o.fail(e),
    };
    let sel = match selector(a) {
        Ok(s) => s,
        Err(e) => return o.fail(e),
    };
    if a.value("selector").is_some() && targets.iter().any(|t| !t.names.is_empty()) {
        return o.fail("error: name cannot be provided when a selector is specified");
    }
    let ns = namespace(a);
    let all_ns = a.is_set("all-namespaces");
    let scope = if all_ns { None } else { Some(ns.as_str()) };
    let c = &env.cluster;
    let mut errors = Vec::new();
    let groups: Vec<Vec<Obj<'_>>> = targets.iter().map(|t| collect(c, t, scope, &sel, &mut errors)).collect();
    let single = targets.len() == 1 && targets[0].single;
    match &fmt {
        Format::Table { wide } => {
            let nonempty: Vec<&Vec<Obj<'_>>> = groups.iter().filter(|g| !g.is_empty()).collect();
            let opts = TableOpts {
                wide: *wide,
                with_kind: nonempty.len() > 1,
                namespaces: all_ns,
                labels: a.is_set("show-labels"),
                headers: !a.is_set("no-headers"),
            };
            if nonempty.iter().any(|g| g[0].kind() == Kind::Endpoints) {
                o.err(
                    "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n",
                );
            }
            let tables: Vec<String> =
                nonempty.iter().map(|g| tabwriter::table(&table_lines(g, c, &opts))).collect();
            o.out(tables.join("\n"));
            if nonempty.is_empty() && errors.is_empty() {
                let kinds: Vec<Kind> = targets.iter().map(|t| t.kind).collect();
                o.err(no_resources(all_ns, &ns, &kinds));
            }
        }
        machine => {
            let objs: Vec<Obj<'_>> = groups.into_iter().flatten().collect();
            if !(single && objs.is_empty()) {
                print_machine(machine, &objs, c, single, o);
            }
        }
    }
    for e in errors {
        o.fail(e);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Env, VerbPolicy, run};
    use crate::k8s::cluster::Cluster;
    use crate::k8s::meta::EPISODE_AT;
    use crate::k8s::objects::Kind;
    use crate::k8s::output::Output;
    use crate::k8s::yaml::{to_json_pretty, to_yaml};
    use crate::shell::Io;

    fn kubectl(line: &str) -> (String, i32) {
        let mut env = Env::new(Cluster::pristine(), VerbPolicy::default());
        env.cluster.now = EPISODE_AT;
        let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let o = run(&argv, "", &mut env);
        (o.text(), o.status)
    }

    #[test]
    fn tables() {
        let (t, _) = kubectl("get ns");
        assert_eq!(t, "NAME          STATUS   AGE\ndefault       Active   62m\nkube-system   Active   62m\n");
        let (t, _) = kubectl("get svc -n kube-system");
        assert_eq!(
            t,
            "NAME       TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)                  AGE\nkube-dns   ClusterIP   10.96.0.10   <none>        53/UDP,53/TCP,9153/TCP   62m\n"
        );
        let (t, _) = kubectl("get netpol");
        assert_eq!(t, "No resources found in default namespace.\n");
        let (t, _) = kubectl("get netpol -A");
        assert_eq!(t, "No resources found\n");
    }

    /// What the objects of `kinds` render to whole, as the list printer's reference.
    fn whole(env: &Env, yaml: bool) -> String {
        let c = &env.cluster;
        let objs: Vec<_> = [Kind::Pod, Kind::Service, Kind::NetworkPolicy]
            .into_iter()
            .flat_map(|k| crate::k8s::objects::list(c, k, None))
            .collect();
        let value = super::as_json(&objs, c, false);
        if yaml { to_yaml(&value) } else { format!("{}\n", to_json_pretty(&value)) }
    }

    #[test]
    fn lists_written_item_by_item_are_the_whole_rendering() {
        let mut env = Env::new(Cluster::pristine(), VerbPolicy::default());
        env.cluster.now = EPISODE_AT;
        for (yaml, format) in [(true, "yaml"), (false, "json")] {
            let line = format!("get pods,svc,netpol -A -o {format}");
            let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
            let o = run(&argv, "", &mut env);
            assert_eq!(o.text(), whole(&env, yaml), "{format}");
            let empty: Vec<String> = ["get", "netpol", "-o", format].map(str::to_string).to_vec();
            let frame = super::as_json(&[], &env.cluster, false);
            let expect = if yaml { to_yaml(&frame) } else { format!("{}\n", to_json_pretty(&frame)) };
            assert_eq!(run(&empty, "", &mut env).text(), expect, "{format}");
        }
    }

    #[test]
    fn a_full_writer_stops_the_listing() {
        let mut env = Env::new(Cluster::pristine(), VerbPolicy::default());
        let argv: Vec<String> = ["get", "pods", "-A", "-o", "yaml"].map(str::to_string).to_vec();
        let mut small = Output::over(Io::new(1000));
        super::super::run_into(&argv, "", &mut env, &mut small);
        let all = run(&argv, "", &mut env).text();
        let kept = small.text();
        assert!(all.len() > 10_000 && kept.len() == 1000 && all.starts_with(&kept));
    }

    #[test]
    fn kinds_and_errors() {
        let (t, s) = kubectl("get pods nope");
        assert_eq!((t.as_str(), s), ("Error from server (NotFound): pods \"nope\" not found\n", 1));
        let (t, _) = kubectl("get svc/adservice deploy/adservice");
        assert!(t.contains("service/adservice") && t.contains("deployment.apps/adservice"), "{t}");
        assert!(t.contains("\n\nNAME"), "blank line between tables: {t}");
        let (t, _) = kubectl("get pods -o custom");
        assert!(t.starts_with("error: unable to match a printer suitable for the output format \"custom\""));
        let (t, _) = kubectl("get svc adservice -o jsonpath={.spec.ports[0].targetPort}");
        assert_eq!(t, "9555");
        let (t, _) = kubectl("get svc -l app=frontend -o name");
        assert_eq!(t, "service/frontend\nservice/frontend-external\n");
    }
}
