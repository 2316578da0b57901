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
use crate::k8s::yaml::{to_json_pretty, to_yaml};

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

/// Prints objects in a machine format (yaml, json, name, jsonpath) into `o`.
pub fn print_machine(fmt: &Format, objs: &[Obj<'_>], c: &Cluster, single: bool, o: &mut Output) {
    match fmt {
        Format::Name => {
            for obj in objs {
                o.out(format!("{}/{}\n", obj.kind().prefix(), obj.name()));
            }
        }
        Format::Yaml => o.out(to_yaml(&as_json(objs, c, single))),
        Format::Json => o.out(format!("{}\n", to_json_pretty(&as_json(objs, c, single)))),
        Format::JsonPath(t) => match jsonpath::render(t, &as_json(objs, c, single)) {
            Ok(s) => o.out(s),
            Err(e) => o.fail(format!("error: {e}")),
        },
        Format::Table { .. } => {}
    }
}

pub fn get(a: &Args, env: &mut Env) -> Output {
    let mut o = Output::default();
    let targets = match resolve(&a.positional) {
        Ok(t) if t.is_empty() => {
            return Output::error(
                "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\nerror: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples",
            );
        }
        Ok(t) => t,
        Err(e) => return Output::error(e),
    };
    let fmt = match parse_format(a.value("output")) {
        Ok(f) => f,
        Err(e) => return Output::error(e),
    };
    let sel = match selector(a) {
        Ok(s) => s,
        Err(e) => return Output::error(e),
    };
    if a.value("selector").is_some() && targets.iter().any(|t| !t.names.is_empty()) {
        return Output::error("error: name cannot be provided when a selector is specified");
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
                print_machine(machine, &objs, c, single, &mut o);
            }
        }
    }
    for e in errors {
        o.fail(e);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::super::{Env, VerbPolicy, run};
    use crate::k8s::cluster::Cluster;
    use crate::k8s::meta::EPISODE_AT;

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
