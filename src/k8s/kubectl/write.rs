//! The writing verbs: `patch`, `label` and, when the task enables them, `apply`, `create`
//! and `delete`.
//!
//! Writes are limited as by the agent's RBAC role (patch, apply, create and delete only
//! NetworkPolicies and the admin policies; label pods, namespaces, services, deployments,
//! NetworkPolicies and the admin policies: `kubectl label` is a patch, so the role that may
//! patch a kind may label it).
//! Every policy write goes through `admit`, the API server's path: decode (unknown
//! fields warned and dropped, or rejected when strict), default, validate, and persist only
//! on change with a new resourceVersion (and generation when the spec changed).

use serde_json::{Map, Value, json};

use super::Env;
use super::args::Args;
use super::get::{Format, namespace, not_found, parse_format, print_machine, selector};
use super::patch::{PatchType, apply as apply_patch, three_way};
use super::stored::{Stored, cannot_handle};
use super::target::resolve;
use crate::k8s::admin::AdminObject;
use crate::k8s::cluster::Cluster;
use crate::k8s::labels::{Labels, validate_key, validate_value};
use crate::k8s::meta::Meta;
use crate::k8s::objects::{Kind, get as get_obj, list};
use crate::k8s::output::Output;
use crate::k8s::policy::NetworkPolicy;
use crate::k8s::yaml::{parse_documents, to_json_compact};

pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// `--dry-run` as parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DryRun {
    None,
    Client,
    Server,
}

impl DryRun {
    fn parse(a: &Args) -> Result<DryRun, String> {
        match a.value("dry-run") {
            None | Some("none") => Ok(DryRun::None),
            Some("client") => Ok(DryRun::Client),
            Some("server") => Ok(DryRun::Server),
            Some(v) => Err(format!(
                "error: Invalid dry-run value ({v}). Must be \"none\", \"server\", or \"client\"."
            )),
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }

    fn active(self) -> bool {
        self != DryRun::None
    }
}

/// RBAC's refusal of a write.
fn forbidden(verb: &str, kind: Kind, name: &str, ns: &str) -> String {
    let scope = if kind.namespaced() {
        format!("in the namespace \"{ns}\"")
    } else {
        "at the cluster scope".to_string()
    };
    format!(
        "{} \"{name}\" is forbidden: User \"netpress-agent\" cannot {verb} resource \"{}\" in API group \"{}\" {scope}",
        kind.plural(),
        kind.plural(),
        kind.group()
    )
}

/// What [`admit`] did.
enum Admitted<T> {
    Changed(T),
    Unchanged(T),
}

impl<T> Admitted<T> {
    fn into_inner(self) -> T {
        match self {
            Admitted::Changed(p) | Admitted::Unchanged(p) => p,
        }
    }
}

/// The API server's handling of a written object of `kind` (`current` = the stored one).
/// Returns the warnings to print and the outcome, or the error text.
fn admit<T: Stored>(
    env: &mut Env,
    kind: Kind,
    doc: &Value,
    current: Option<&T>,
    strict: bool,
    dry_run: bool,
) -> Result<(Vec<String>, Admitted<T>), String> {
    let strict_error = |unknown: &[String]| {
        let list: Vec<String> = unknown.iter().map(|u| format!("unknown field \"{u}\"")).collect();
        format!("{}strict decoding error: {}", cannot_handle(kind), list.join(", "))
    };
    let (mut new, unknown) = match T::decode(doc, kind) {
        Ok(x) => x,
        Err(r) if strict && !r.unknown.is_empty() => return Err(strict_error(&r.unknown)),
        Err(r) => return Err(r.message),
    };
    if strict && !unknown.is_empty() {
        return Err(strict_error(&unknown));
    }
    let warnings: Vec<String> = unknown.iter().map(|u| format!("Warning: unknown field \"{u}\"")).collect();
    if let Some(cur) = current {
        let (m, c) = (new.meta(), cur.meta());
        if m.name != c.name {
            return Err(format!(
                "Error from server (BadRequest): the name of the object ({}) does not match the name on the URL ({})",
                m.name, c.name
            ));
        }
        if m.namespace != c.namespace {
            return Err(format!(
                "Error from server (BadRequest): the namespace of the object ({}) does not match the namespace on the URL ({})",
                m.namespace, c.namespace
            ));
        }
        let rv = doc.pointer("/metadata/resourceVersion").and_then(Value::as_str);
        if rv.is_some_and(|rv| rv != c.resource_version.to_string()) {
            return Err(format!(
                "Error from server (Conflict): Operation cannot be fulfilled on {} \"{}\": the object has been modified; please apply your changes to the latest version and try again",
                kind.resource(),
                c.name
            ));
        }
    }
    new.validate(doc)?;
    let c = &mut env.cluster;
    let outcome = match current {
        Some(cur)
            if cur.same_spec(&new)
                && cur.meta().labels == new.meta().labels
                && cur.meta().annotations == new.meta().annotations =>
        {
            Admitted::Unchanged(cur.clone())
        }
        Some(cur) => {
            let mut meta = cur.meta().clone();
            meta.labels = std::mem::take(&mut new.meta_mut().labels);
            meta.annotations = std::mem::take(&mut new.meta_mut().annotations);
            if !dry_run {
                meta.resource_version = c.next_rv();
                if !cur.same_spec(&new) {
                    meta.generation = Some(meta.generation.unwrap_or(1) + 1);
                }
            }
            *new.meta_mut() = meta;
            Admitted::Changed(new)
        }
        None => {
            let (ns, name) = (new.meta().namespace.clone(), new.meta().name.clone());
            let mut meta = if dry_run {
                Meta { name: name.clone(), namespace: ns.clone(), created: c.now, ..Meta::default() }
            } else {
                c.new_meta(kind.name(), &ns, &name, c.now, Labels::new())
            };
            meta.labels = std::mem::take(&mut new.meta_mut().labels);
            meta.annotations = std::mem::take(&mut new.meta_mut().annotations);
            meta.generation = Some(1);
            *new.meta_mut() = meta;
            Admitted::Changed(new)
        }
    };
    if !dry_run && let Admitted::Changed(p) = &outcome {
        p.clone().store(c);
    }
    Ok((warnings, outcome))
}

/// The payload of `-p` as JSON, or kubectl's error.
fn payload(a: &Args) -> Result<Value, String> {
    const MISSING: &str = "error: must specify --patch or --patch-file containing the contents of the patch";
    if let Some(file) = a.value("patch-file") {
        return Err(format!("error: unable to read patch file: open {file}: no such file or directory"));
    }
    let Some(text) = a.value("patch") else { return Err(MISSING.into()) };
    if text.trim().is_empty() {
        return Err(MISSING.into());
    }
    match parse_documents(text) {
        Ok(docs) => docs.into_iter().next().ok_or_else(|| MISSING.to_string()),
        Err(e) => Err(format!("error: unable to parse \"{text}\": {e}")),
    }
}

pub fn patch(a: &Args, env: &mut Env) -> Output {
    let targets = match resolve(&a.positional) {
        Ok(t) => t,
        Err(e) => return Output::error(e),
    };
    let (kind, name) = match targets.as_slice() {
        [] => {
            return Output::error(
                "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
            );
        }
        [t] if t.names.len() == 1 => (t.kind, t.names[0].clone()),
        [t] if t.names.is_empty() => {
            return Output::error("error: resource(s) were provided, but no name was specified");
        }
        _ => return Output::error("error: only one resource may be patched at a time"),
    };
    let t = a.value("type").unwrap_or("strategic");
    let Some(ty) = PatchType::parse(t) else {
        return Output::error(format!("error: --type must be one of [json merge strategic], not \"{t}\""));
    };
    let body = match payload(a) {
        Ok(v) => v,
        Err(e) => return Output::error(e),
    };
    let dry = match DryRun::parse(a) {
        Ok(d) => d,
        Err(e) => return Output::error(e),
    };
    let fmt = match parse_format(a.value("output")) {
        Ok(f) => f,
        Err(e) => return Output::error(e),
    };
    let ns = namespace(a);
    let request = PatchRequest { kind, name: &name, ns: &ns, body: &body, ty, dry, fmt: &fmt };
    match kind {
        Kind::NetworkPolicy => patch_stored::<NetworkPolicy>(env, &request),
        k if k.admin().is_some() => patch_stored::<AdminObject>(env, &request),
        _ => {
            Output::error(format!("Error from server (Forbidden): {}", forbidden("patch", kind, &name, &ns)))
        }
    }
}

/// One `kubectl patch` of a writable object.
struct PatchRequest<'a> {
    kind: Kind,
    name: &'a str,
    ns: &'a str,
    body: &'a Value,
    ty: PatchType,
    dry: DryRun,
    fmt: &'a Format,
}

fn patch_stored<T: Stored>(env: &mut Env, r: &PatchRequest<'_>) -> Output {
    let Some(current) = T::stored(&env.cluster, r.kind, r.ns, r.name) else {
        return Output::error(not_found(r.kind, r.name));
    };
    let patched = match apply_patch(&current.to_json(), r.body, r.ty) {
        Ok(v) => v,
        Err(e) => return Output::error(e.message()),
    };
    let mut o = Output::default();
    match admit(env, r.kind, &patched, Some(&current), false, r.dry.active()) {
        Err(e) => o.fail(e),
        Ok((warnings, outcome)) => {
            for w in warnings {
                o.err(format!("{w}\n"));
            }
            let (policy, verb) = match outcome {
                Admitted::Changed(p) => (p, "patched"),
                Admitted::Unchanged(p) => (p, "patched (no change)"),
            };
            print_result(&mut o, env, r.fmt, &policy, &format!("{verb}{}", r.dry.suffix()));
        }
    }
    o
}

/// Prints a written object: the `kind/name verb` line, or the object in `-o` format.
fn print_result<T: Stored>(o: &mut Output, env: &Env, fmt: &Format, p: &T, verb: &str) {
    match fmt {
        Format::Table { .. } => o.out(format!("{}/{} {verb}\n", p.kind().prefix(), p.meta().name)),
        machine => print_machine(machine, &[p.obj()], &env.cluster, true, o),
    }
}

/// One label change of `kubectl label`.
enum LabelOp {
    Set(String, String),
    Remove(String),
}

fn parse_label_args(args: &[String]) -> Result<(Vec<String>, Vec<LabelOp>), String> {
    let mut resources = Vec::new();
    let mut ops = Vec::new();
    for a in args {
        if let Some((k, v)) = a.split_once('=') {
            if v.contains('=') {
                return Err(format!("error: invalid label spec: {a}"));
            }
            validate_value(v).map_err(|e| format!("error: invalid label value: \"{a}\": {e}"))?;
            ops.push(LabelOp::Set(k.to_string(), v.to_string()));
        } else if a.len() > 1 && a.ends_with('-') && !resources.is_empty() {
            ops.push(LabelOp::Remove(a[..a.len() - 1].to_string()));
        } else {
            resources.push(a.clone());
        }
    }
    for op in &ops {
        if let LabelOp::Remove(k) = op
            && ops.iter().any(|o| matches!(o, LabelOp::Set(s, _) if s == k))
        {
            return Err("error: can not both modify and remove a label in the same command".into());
        }
    }
    Ok((resources, ops))
}

const LABELABLE: [Kind; 7] = [
    Kind::Pod,
    Kind::Namespace,
    Kind::Service,
    Kind::Deployment,
    Kind::NetworkPolicy,
    Kind::AdminNetworkPolicy,
    Kind::BaselineAdminNetworkPolicy,
];

pub fn label(a: &Args, env: &mut Env) -> Output {
    let (resources, ops) = match parse_label_args(&a.positional) {
        Ok(x) => x,
        Err(e) => return Output::error(e),
    };
    if resources.is_empty() {
        return Output::error(
            "error: one or more resources must be specified as <resource> <name> or <resource>/<name>",
        );
    }
    if ops.is_empty() {
        return Output::error("error: at least one label update is required");
    }
    let targets = match resolve(&resources) {
        Ok(t) => t,
        Err(e) => return Output::error(e),
    };
    let (sel, dry) = match (selector(a), DryRun::parse(a)) {
        (Ok(s), Ok(d)) => (s, d),
        (Err(e), _) | (_, Err(e)) => return Output::error(e),
    };
    let ns = namespace(a);
    let everything = a.is_set("all") || a.value("selector").is_some();
    let mut o = Output::default();
    for t in &targets {
        if t.names.is_empty() && !everything {
            return Output::error("error: resource(s) were provided, but no name was specified");
        }
        let names: Vec<String> = if t.names.is_empty() {
            list(&env.cluster, t.kind, Some(&ns))
                .into_iter()
                .filter(|x| sel.matches(&x.meta().labels))
                .map(|x| x.name().to_string())
                .collect()
        } else {
            t.names.clone()
        };
        for name in names {
            if !LABELABLE.contains(&t.kind) {
                o.fail(format!("Error from server (Forbidden): {}", forbidden("patch", t.kind, &name, &ns)));
                continue;
            }
            match label_one(env, t.kind, &ns, &name, &ops, a.is_set("overwrite"), dry) {
                Ok((notes, line)) => {
                    for n in notes {
                        o.err(n);
                    }
                    o.out(line);
                }
                Err(e) => {
                    o.fail(e);
                    return o;
                }
            }
        }
    }
    o
}

fn label_one(
    env: &mut Env,
    kind: Kind,
    ns: &str,
    name: &str,
    ops: &[LabelOp],
    overwrite: bool,
    dry: DryRun,
) -> Result<(Vec<String>, String), String> {
    let c = &mut env.cluster;
    let Some(old) = get_obj(c, kind, ns, name).map(|o| o.meta().labels.clone()) else {
        return Err(not_found(kind, name));
    };
    let mut labels = old.clone();
    let mut notes = Vec::new();
    for op in ops {
        match op {
            LabelOp::Set(k, _) if validate_key(k).is_err() => {
                let e = validate_key(k).err().unwrap_or_default();
                return Err(format!(
                    "The {} \"{name}\" is invalid: metadata.labels: Invalid value: \"{k}\": {e}",
                    kind.name()
                ));
            }
            LabelOp::Set(k, v) => {
                if let (Some(cur), false) = (old.get(k), overwrite) {
                    return Err(format!(
                        "error: '{k}' already has a value ({cur}), and --overwrite is false"
                    ));
                }
                labels.insert(k.clone(), v.clone());
            }
            LabelOp::Remove(k) => {
                if labels.remove(k).is_none() {
                    notes.push(format!("label \"{k}\" not found.\n"));
                }
            }
        }
    }
    let verb = if labels == old {
        "not labeled"
    } else if ops.iter().all(|op| matches!(op, LabelOp::Remove(_))) {
        "unlabeled"
    } else {
        "labeled"
    };
    if labels != old && !dry.active() {
        let rv = c.next_rv();
        if let Some(meta) = meta_mut(c, kind, ns, name) {
            meta.labels = labels;
            meta.resource_version = rv;
        }
        c.impose_namespace_labels();
    }
    Ok((notes, format!("{}/{name} {verb}{}\n", kind.prefix(), dry.suffix())))
}

fn meta_mut<'a>(
    c: &'a mut crate::k8s::cluster::Cluster,
    kind: Kind,
    ns: &str,
    name: &str,
) -> Option<&'a mut Meta> {
    let hit = |m: &Meta| m.name == name && (!kind.namespaced() || m.namespace == ns);
    match kind {
        Kind::Pod => std::sync::Arc::make_mut(&mut c.pods).iter_mut().map(|p| &mut p.meta).find(|m| hit(m)),
        Kind::Service => {
            std::sync::Arc::make_mut(&mut c.services).iter_mut().map(|p| &mut p.meta).find(|m| hit(m))
        }
        Kind::Deployment => {
            std::sync::Arc::make_mut(&mut c.deployments).iter_mut().map(|p| &mut p.meta).find(|m| hit(m))
        }
        Kind::Namespace => {
            std::sync::Arc::make_mut(&mut c.namespaces).iter_mut().map(|p| &mut p.meta).find(|m| hit(m))
        }
        Kind::NetworkPolicy => c.policies.values_mut().map(|p| &mut p.meta).find(|m| hit(m)),
        Kind::AdminNetworkPolicy | Kind::BaselineAdminNetworkPolicy => c
            .admin
            .values_mut()
            .filter(|o| Some(o.policy.kind) == kind.admin())
            .map(|o| &mut o.meta)
            .find(|m| hit(m)),
        Kind::ReplicaSet | Kind::Endpoints | Kind::Node => None,
    }
}

/// The manifests of `-f -`: documents, with `List`s expanded.
fn manifests(a: &Args, stdin: &str) -> Result<Vec<Value>, String> {
    let files = a.values("filename");
    match files.as_slice() {
        [] => return Err("error: must specify one of -f and -k".into()),
        ["-"] => {}
        [f, ..] if *f != "-" => return Err(format!("error: the path \"{f}\" does not exist")),
        _ => return Err("error: only one of -f - may be given".into()),
    }
    let docs = parse_documents(stdin)
        .map_err(|e| format!("error: error parsing STDIN: error converting YAML to JSON: {e}"))?;
    if docs.is_empty() {
        return Err("error: no objects passed to apply".into());
    }
    let mut out = Vec::new();
    for d in docs {
        match (d.get("kind").and_then(Value::as_str), d.get("items").and_then(Value::as_array)) {
            (Some("List"), Some(items)) => out.extend(items.iter().cloned()),
            _ => out.push(d),
        }
    }
    Ok(out)
}

/// The kind, name and namespace of a manifest, or kubectl's error.
fn identify(doc: &Value, default_ns: &str, ns_flag: Option<&str>) -> Result<(Kind, String, String), String> {
    let kind_s = doc.get("kind").and_then(Value::as_str).unwrap_or("");
    let api = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if kind_s.is_empty() {
        return Err("error: error validating \"STDIN\": error validating data: kind not set; if you choose to ignore these errors, turn validation off with --validate=false".into());
    }
    let kind = Kind::ALL.into_iter().find(|k| k.name() == kind_s && k.api_version() == api).ok_or_else(|| {
        let name = doc.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
        format!("error: resource mapping not found for name: \"{name}\" namespace: \"\" from \"STDIN\": no matches for kind \"{kind_s}\" in version \"{api}\"\nensure CRDs are installed first")
    })?;
    let name = doc.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    // A cluster-scoped object has no namespace: kubectl ignores one written on it.
    let obj_ns = doc.pointer("/metadata/namespace").and_then(Value::as_str).filter(|_| kind.namespaced());
    if !kind.namespaced() {
        return if name.is_empty() { Err(empty_name(kind, "")) } else { Ok((kind, name, String::new())) };
    }
    if let (Some(o), Some(f)) = (obj_ns, ns_flag)
        && o != f
    {
        return Err(format!(
            "error: the namespace from the provided object \"{o}\" does not match the namespace \"{f}\". You must pass '--namespace={o}' to perform this operation."
        ));
    }
    let ns = obj_ns.unwrap_or(default_ns).to_string();
    if name.is_empty() {
        return Err(empty_name(kind, &ns));
    }
    Ok((kind, name, ns))
}

fn empty_name(kind: Kind, ns: &str) -> String {
    format!(
        "error: error when retrieving current configuration of:\nResource: \"{}\", GroupVersionKind: \"{}, Kind={}\"\nName: \"\", Namespace: \"{ns}\"\nfrom server for: \"STDIN\": resource name may not be empty",
        kind.resource(),
        kind.api_version(),
        kind.name()
    )
}

/// `kubectl apply -f -` (`create` when `create_only`).
pub fn apply(a: &Args, stdin: &str, env: &mut Env, create_only: bool) -> Output {
    let docs = match manifests(a, stdin) {
        Ok(d) => d,
        Err(e) => return Output::error(e),
    };
    let dry = match DryRun::parse(a) {
        Ok(d) => d,
        Err(e) => return Output::error(e),
    };
    let fmt = match parse_format(a.value("output")) {
        Ok(f) => f,
        Err(e) => return Output::error(e),
    };
    let ns = namespace(a);
    let mut o = Output::default();
    for doc in docs {
        let (kind, name, obj_ns) = match identify(&doc, &ns, a.value("namespace")) {
            Ok(x) => x,
            Err(e) => {
                o.fail(e);
                continue;
            }
        };
        let exists = get_obj(&env.cluster, kind, &obj_ns, &name).is_some();
        let mut doc = doc;
        if kind.namespaced() {
            set_namespace(&mut doc, &obj_ns);
        }
        let write = Write { kind, ns: &obj_ns, name: &name, exists, dry, fmt: &fmt, create_only };
        match kind {
            Kind::NetworkPolicy => write_stored::<NetworkPolicy>(env, &doc, &write, &mut o),
            k if k.admin().is_some() => write_stored::<AdminObject>(env, &doc, &write, &mut o),
            _ => {
                let (verb, when) =
                    if exists && !create_only { ("patch", "patching") } else { ("create", "creating") };
                o.fail(format!(
                    "Error from server (Forbidden): error when {when} \"STDIN\": {}",
                    forbidden(verb, kind, &name, &obj_ns)
                ));
            }
        }
    }
    o
}

/// One document of `kubectl apply` or `kubectl create`.
struct Write<'a> {
    kind: Kind,
    ns: &'a str,
    name: &'a str,
    exists: bool,
    dry: DryRun,
    fmt: &'a Format,
    create_only: bool,
}

fn write_stored<T: Stored>(env: &mut Env, doc: &Value, w: &Write<'_>, o: &mut Output) {
    let result = if w.create_only {
        create_policy::<T>(env, doc, w.kind, w.name, w.exists, w.dry)
    } else {
        apply_policy::<T>(env, doc, w.kind, w.ns, w.name, w.dry)
    };
    match result {
        Ok((warnings, policy, verb)) => {
            for line in warnings {
                o.err(format!("{line}\n"));
            }
            print_result(o, env, w.fmt, &policy, &format!("{verb}{}", w.dry.suffix()));
        }
        Err(e) => o.fail(e),
    }
}

fn set_namespace(doc: &mut Value, ns: &str) {
    if let Some(Value::Object(meta)) = doc.get_mut("metadata") {
        meta.insert("namespace".into(), json!(ns));
    }
}

type WriteResult<T> = Result<(Vec<String>, T, &'static str), String>;

fn creating_error(e: String) -> String {
    e.replacen(
        "Error from server (BadRequest): ",
        "Error from server (BadRequest): error when creating \"STDIN\": ",
        1,
    )
}

fn create_policy<T: Stored>(
    env: &mut Env,
    doc: &Value,
    kind: Kind,
    name: &str,
    exists: bool,
    dry: DryRun,
) -> WriteResult<T> {
    if exists {
        return Err(format!(
            "Error from server (AlreadyExists): error when creating \"STDIN\": {} \"{name}\" already exists",
            kind.resource()
        ));
    }
    let (w, outcome) = admit::<T>(env, kind, doc, None, true, dry.active()).map_err(creating_error)?;
    Ok((w, outcome.into_inner(), "created"))
}

/// The modified configuration kubectl records: the manifest without its own annotation,
/// `metadata.annotations` set (possibly empty), as compact sorted JSON and a newline.
pub fn modified_config(doc: &Value) -> String {
    let mut d = doc.clone();
    if let Some(Value::Object(meta)) = d.get_mut("metadata") {
        let mut annotations = match meta.remove("annotations") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        annotations.remove(LAST_APPLIED);
        meta.insert("annotations".into(), Value::Object(annotations));
    }
    format!("{}\n", to_json_compact(&d))
}

fn with_annotation(doc: &Value, config: &str) -> Value {
    let mut d = doc.clone();
    if let Some(Value::Object(meta)) = d.get_mut("metadata") {
        let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
        if let Value::Object(a) = annotations {
            a.insert(LAST_APPLIED.into(), json!(config));
        }
    }
    d
}

fn apply_policy<T: Stored>(
    env: &mut Env,
    doc: &Value,
    kind: Kind,
    ns: &str,
    name: &str,
    dry: DryRun,
) -> WriteResult<T> {
    let config = modified_config(doc);
    let Some(current) = T::stored(&env.cluster, kind, ns, name) else {
        let annotated = with_annotation(doc, &config);
        let (w, outcome) =
            admit::<T>(env, kind, &annotated, None, true, dry.active()).map_err(creating_error)?;
        return Ok((w, outcome.into_inner(), "created"));
    };
    let original: Value = current
        .meta()
        .annotations
        .get(LAST_APPLIED)
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_else(|| json!({}));
    let modified: Value = serde_json::from_str(&config).unwrap_or_else(|_| json!({}));
    let mut live = current.to_json();
    if let Some(Value::Object(a)) = live.pointer_mut("/metadata/annotations") {
        a.remove(LAST_APPLIED);
    }
    let mut patch = three_way(&original, &modified, &live);
    strip_empty_annotations(&mut patch);
    if patch.is_empty() {
        return Ok((Vec::new(), current, "unchanged"));
    }
    let patch = with_annotation(&Value::Object(patch), &config);
    let patched =
        apply_patch(&current.to_json(), &patch, PatchType::Strategic).map_err(|e| e.message().to_string())?;
    let (w, outcome) = admit(env, kind, &patched, Some(&current), false, dry.active()).map_err(|e| {
        e.replacen(
            "Error from server (BadRequest): ",
            "Error from server (BadRequest): error when applying patch to \"STDIN\": ",
            1,
        )
    })?;
    match outcome {
        Admitted::Changed(p) => Ok((w, p, "configured")),
        Admitted::Unchanged(p) => Ok((w, p, "unchanged")),
    }
}

/// `metadata.annotations: {}` in the modified configuration is kubectl's bookkeeping, not a
/// change to the live object.
fn strip_empty_annotations(patch: &mut Map<String, Value>) {
    if let Some(Value::Object(meta)) = patch.get_mut("metadata") {
        if meta.get("annotations").is_some_and(|a| a.as_object().is_some_and(Map::is_empty)) {
            meta.remove("annotations");
        }
        if meta.is_empty() {
            patch.remove("metadata");
        }
    }
}

pub fn delete(a: &Args, stdin: &str, env: &mut Env) -> Output {
    let dry = match DryRun::parse(a) {
        Ok(d) => d,
        Err(e) => return Output::error(e),
    };
    let ns = namespace(a);
    let mut wanted: Vec<(Kind, String, String)> = Vec::new();
    if !a.values("filename").is_empty() {
        match manifests(a, stdin) {
            Ok(docs) => {
                for d in docs {
                    match identify(&d, &ns, a.value("namespace")) {
                        Ok(x) => wanted.push(x),
                        Err(e) => return Output::error(e),
                    }
                }
            }
            Err(e) => return Output::error(e),
        }
    } else {
        let targets = match resolve(&a.positional) {
            Ok(t) if t.is_empty() => {
                return Output::error(
                    "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'",
                );
            }
            Ok(t) => t,
            Err(e) => return Output::error(e),
        };
        let sel = match selector(a) {
            Ok(s) => s,
            Err(e) => return Output::error(e),
        };
        for t in targets {
            if !t.names.is_empty() {
                wanted.extend(t.names.iter().map(|n| (t.kind, n.clone(), ns.clone())));
            } else if a.is_set("all") || a.value("selector").is_some() {
                let objs = list(&env.cluster, t.kind, Some(&ns));
                wanted.extend(
                    objs.into_iter()
                        .filter(|x| sel.matches(&x.meta().labels))
                        .map(|x| (t.kind, x.name().to_string(), ns.clone())),
                );
            } else {
                return Output::error("error: resource(s) were provided, but no name was specified");
            }
        }
    }
    let mut o = Output::default();
    if wanted.is_empty() {
        o.err(format!("No resources found in {ns} namespace.\n"));
    }
    for (kind, name, ns) in wanted {
        let remove: fn(&mut Cluster, Kind, &str, &str) -> bool = match kind {
            Kind::NetworkPolicy => <NetworkPolicy as Stored>::remove,
            k if k.admin().is_some() => <AdminObject as Stored>::remove,
            _ => {
                o.fail(format!("Error from server (Forbidden): {}", forbidden("delete", kind, &name, &ns)));
                continue;
            }
        };
        if get_obj(&env.cluster, kind, &ns, &name).is_none() {
            if !a.is_set("ignore-not-found") {
                o.fail(not_found(kind, &name));
            }
            continue;
        }
        if !dry.active() {
            remove(&mut env.cluster, kind, &ns, &name);
            env.cluster.next_rv();
        }
        let from = if kind.namespaced() { format!(" from {ns} namespace") } else { String::new() };
        o.out(format!("{} \"{name}\" deleted{from}{}\n", kind.prefix(), dry.suffix()));
    }
    o
}
