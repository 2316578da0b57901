//! The method tables of the sandbox's host objects (MALT's `G`, the flows table `F` and the
//! communication graph `G`): one place that finds a method by name and binds Python's
//! positional and keyword arguments to its parameters, with Python's own error messages.
//!
//! Why one table type: every host object is "methods only", so each needs the same lookup
//! (an `AttributeError` naming the valid methods) and the same binding rules (too many
//! positionals, unknown or repeated keywords, missing required arguments). Each object lists
//! its methods as data ([`Methods`]) and matches on the bound method's name.

use super::api::{ApiError, ApiResult, Exc, Py};
use super::graph::quote;

/// One method: its name, parameters (required first) and whether it takes `**attrs`.
#[derive(Debug, Clone, Copy)]
pub struct Method {
    pub name: &'static str,
    pub params: &'static [&'static str],
    pub required: usize,
    pub var_kw: bool,
}

/// A method without `**attrs`.
pub const fn method(name: &'static str, params: &'static [&'static str], required: usize) -> Method {
    Method { name, params, required, var_kw: false }
}

/// A method that takes `**attrs` after its parameters.
pub const fn method_kw(name: &'static str, params: &'static [&'static str], required: usize) -> Method {
    Method { name, params, required, var_kw: true }
}

/// A host object's method table.
#[derive(Debug, Clone, Copy)]
pub struct Methods {
    /// The object's name in the sandbox (`G`, `F`).
    pub object: &'static str,
    /// What argument errors start with before `name()`: MALT's `G` says `add_edge()`, the
    /// flows objects `F.group()`.
    pub prefix: &'static str,
    /// Every method, in the order the prompt lists them.
    pub list: &'static [Method],
}

/// Arguments bound to a method: one slot per parameter (`None` = not given), then the extra
/// keyword arguments of a `**attrs` method.
#[derive(Debug)]
pub struct Bound {
    pub method: &'static str,
    pub slots: Vec<Option<Py>>,
    pub extra: Vec<(String, Py)>,
}

impl Bound {
    /// Parameter `i`, an explicit `None` counting as not given.
    pub fn take(&mut self, i: usize) -> Option<Py> {
        self.slots[i].take().filter(|v| *v != Py::None)
    }

    /// Every slot, an explicit `None` counting as not given.
    pub fn given(self) -> Vec<Option<Py>> {
        self.slots.into_iter().map(|s| s.filter(|v| *v != Py::None)).collect()
    }
}

/// A required parameter's value from [`Bound::given`]'s slots: an explicit `None` passed the
/// binding (Python would accept it) but is no value the method can use.
pub fn required<'a>(slot: &'a Option<Py>, param: &str) -> ApiResult<&'a Py> {
    slot.as_ref().ok_or_else(|| type_error(format!("{param} must not be None")))
}

fn type_error(message: String) -> ApiError {
    ApiError { exc: Exc::TypeError, message }
}

impl Methods {
    /// The method names, in table order.
    pub fn names(&self) -> Vec<&'static str> {
        self.list.iter().map(|m| m.name).collect()
    }

    /// The method called `name`, or the `AttributeError` naming the valid ones.
    pub fn find(&self, name: &str) -> ApiResult<&'static Method> {
        self.list.iter().find(|m| m.name == name).ok_or_else(|| ApiError {
            exc: Exc::AttributeError,
            message: format!(
                "{} has no method {}; methods: {}",
                self.object,
                quote(name),
                self.names().join(", ")
            ),
        })
    }

    /// Finds `name` and binds the call's arguments to it.
    pub fn bind(&self, name: &str, args: Vec<Py>, kwargs: Vec<(String, Py)>) -> ApiResult<Bound> {
        let m = self.find(name)?;
        let call = format!("{}{}()", self.prefix, m.name);
        let n = m.params.len();
        if args.len() > n {
            let range = if m.required == n { format!("{n}") } else { format!("from {} to {n}", m.required) };
            return Err(type_error(format!(
                "{call} takes {range} positional arguments but {} were given",
                args.len()
            )));
        }
        let mut slots: Vec<Option<Py>> = args.into_iter().map(Some).collect();
        slots.resize(n, None);
        let mut extra = Vec::new();
        for (key, value) in kwargs {
            match m.params.iter().position(|p| *p == key) {
                Some(i) if slots[i].is_some() => {
                    return Err(type_error(format!("{call} got multiple values for argument '{key}'")));
                }
                Some(i) => slots[i] = Some(value),
                None if m.var_kw => extra.push((key, value)),
                None => return Err(type_error(format!("{call} got an unexpected keyword argument '{key}'"))),
            }
        }
        if let Some(i) = (0..m.required).find(|&i| slots[i].is_none()) {
            return Err(type_error(format!("{call} missing required argument '{}'", m.params[i])));
        }
        Ok(Bound { method: m.name, slots, extra })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Methods = Methods {
        object: "T",
        prefix: "T.",
        list: &[method("one", &["a", "b"], 1), method_kw("add", &["n"], 1)],
    };

    fn s(x: &str) -> Py {
        Py::Str(x.into())
    }

    #[test]
    fn binds_positionals_keywords_and_extras() {
        let b = T.bind("one", vec![s("x")], vec![("b".into(), Py::None)]).unwrap();
        assert_eq!(b.given(), vec![Some(s("x")), None]);
        let b = T.bind("add", vec![], vec![("n".into(), s("v")), ("w".into(), Py::Int(2))]).unwrap();
        assert_eq!(b.extra, vec![("w".to_string(), Py::Int(2))]);
    }

    #[test]
    fn errors_read_like_python() {
        let e = |r: ApiResult<Bound>| r.unwrap_err().message;
        assert_eq!(e(T.bind("two", vec![], vec![])), "T has no method 'two'; methods: one, add");
        assert_eq!(e(T.bind("one", vec![], vec![])), "T.one() missing required argument 'a'");
        assert!(e(T.bind("one", vec![s("a"), s("b"), s("c")], vec![])).contains("from 1 to 2 positional"));
        assert!(e(T.bind("one", vec![s("a")], vec![("a".into(), s("b"))])).contains("multiple values"));
        assert!(
            e(T.bind("one", vec![], vec![("z".into(), s("b"))])).contains("unexpected keyword argument 'z'")
        );
    }
}
