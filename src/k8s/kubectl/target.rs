//! Resource arguments: `pods`, `pod/x`, `pods a b`, `pods,svc`, `all`.

use crate::k8s::objects::Kind;

/// One requested resource type with its names (empty: every object of the type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kind: Kind,
    pub names: Vec<String>,
    /// Exactly one object was named (`kubectl get pod x`): print it bare, not as a List.
    pub single: bool,
}

const ALL: [Kind; 4] = [Kind::Pod, Kind::Service, Kind::Deployment, Kind::ReplicaSet];

fn kinds(word: &str) -> Result<Vec<Kind>, String> {
    let mut out = Vec::new();
    for t in word.split(',') {
        if t == "all" {
            out.extend(ALL);
            continue;
        }
        match Kind::parse(t) {
            Some(k) => out.push(k),
            None => return Err(format!("error: the server doesn't have a resource type \"{t}\"")),
        }
    }
    Ok(out)
}

/// Resolves positional resource arguments. `Ok(vec![])` when there are none.
pub fn resolve(args: &[String]) -> Result<Vec<Target>, String> {
    let Some(first) = args.first() else { return Ok(Vec::new()) };
    if first.contains('/') {
        let mut out: Vec<Target> = Vec::new();
        for a in args {
            let Some((t, name)) = a.split_once('/') else {
                return Err("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>')".into());
            };
            if name.is_empty() {
                return Err(
                    "error: arguments in resource/name form must have a single resource and name".to_string()
                );
            }
            let kind = *kinds(t)?
                .first()
                .ok_or_else(|| format!("error: the server doesn't have a resource type \"{t}\""))?;
            match out.iter_mut().find(|x| x.kind == kind) {
                Some(x) => x.names.push(name.to_string()),
                None => out.push(Target { kind, names: vec![name.to_string()], single: false }),
            }
        }
        let single = args.len() == 1;
        out.iter_mut().for_each(|t| t.single = single);
        return Ok(out);
    }
    if let Some(bad) = args[1..].iter().find(|a| a.contains('/')) {
        let _ = bad;
        return Err("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>')".into());
    }
    let names: Vec<String> = args[1..].to_vec();
    let kinds = kinds(first)?;
    let single = kinds.len() == 1 && names.len() == 1;
    let mut out: Vec<Target> = Vec::new();
    for kind in kinds {
        if !out.iter().any(|t| t.kind == kind) {
            out.push(Target { kind, names: names.clone(), single });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn forms() {
        let t = resolve(&v("pods,svc a")).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[1].kind, Kind::Service);
        assert!(!t[0].single);
        let t = resolve(&v("netpol/adservice")).unwrap();
        assert!(t[0].single);
        assert_eq!(resolve(&v("all")).unwrap().len(), 4);
        assert!(resolve(&v("secrets")).unwrap_err().contains("\"secrets\""));
        assert!(resolve(&v("pods pod/a")).unwrap_err().contains("no need to specify"));
        assert!(resolve(&v("pod/a pods")).unwrap_err().contains("no need to specify"));
    }
}
