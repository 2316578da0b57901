//! The one place applications are listed.
//!
//! A [`Registry`] is a list of applications that surfaces work over: the CLI's entry, the
//! sandbox worker and the task selection of a run take one, so a test can add a toy
//! application to [`Registry::standard`] with one line and drive it through every surface.
//! The free functions [`apps`], [`app`] and [`generate`] are the standard registry's, for the
//! surfaces that only ever show the shipped applications (the web page).
//!
//! The page needs what describes an application (its [`AppInfo`]: levels, knobs, answer kind,
//! glossary) long before it needs an engine, and must not link the engines at all (each runs
//! in a worker bundle of its own, docs/bundles.md). So the descriptions are listed a second
//! time, as data, in [`catalog`]: the same `AppInfo` values the applications return, in the
//! same order (a test holds the two lists together), with no `&dyn App` that would pull an
//! engine into the page.
//!
//! Nothing else names an application: a new one is its module plus its line in
//! [`Registry::standard`] and in [`catalog`].

use std::sync::{Arc, OnceLock};

use crate::app::{App, AppInfo, Task};
use crate::error::{Error, Result};

/// A list of applications, in display order, with unique names.
#[derive(Clone)]
pub struct Registry {
    apps: Vec<&'static dyn App>,
}

impl Registry {
    /// The applications NetPress ships, in display order.
    pub fn standard() -> &'static Registry {
        static STANDARD: OnceLock<Registry> = OnceLock::new();
        STANDARD.get_or_init(|| Registry {
            apps: vec![
                &crate::malt::MALT,
                &crate::route::RouteApp,
                &crate::k8s::K8sApp,
                &crate::bgp::BgpApp,
                &crate::traffic::TRAFFIC,
                &crate::microseg::MICROSEG,
            ],
        })
    }

    /// A registry of no application, to add some to with [`Registry::with`] (a worker
    /// bundle's one engine).
    pub fn empty() -> Registry {
        Registry { apps: Vec::new() }
    }

    /// This registry with `app` added last, or in place of the application of the same name.
    pub fn with(mut self, app: &'static dyn App) -> Registry {
        let name = app.info().name;
        match self.apps.iter().position(|a| a.info().name == name) {
            Some(i) => self.apps[i] = app,
            None => self.apps.push(app),
        }
        self
    }

    /// Every application, in display order.
    pub fn apps(&self) -> &[&'static dyn App] {
        &self.apps
    }

    /// The application called `name`.
    pub fn app(&self, name: &str) -> Result<&'static dyn App> {
        self.apps.iter().copied().find(|a| a.info().name == name).ok_or_else(|| {
            let known: Vec<&str> = self.apps.iter().map(|a| a.info().name).collect();
            Error::UnknownApp(name.to_string(), known.join(", "))
        })
    }

    /// Generates the task an id string names, through its application.
    pub fn generate(&self, id: &str) -> Result<Arc<dyn Task>> {
        let id: crate::QueryId = id.parse()?;
        self.app(&id.app)?.generate(&id)
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.apps.iter().map(|a| a.info().name)).finish()
    }
}

/// The description of every shipped application, in display order: what the page shows and
/// checks without an engine. The same values as `Registry::standard()`'s `info()`s.
pub fn catalog() -> &'static [&'static AppInfo] {
    static CATALOG: [&AppInfo; 6] = [
        &crate::malt::MALT_INFO,
        &crate::route::INFO,
        &crate::k8s::INFO,
        &crate::bgp::INFO,
        &crate::traffic::INFO,
        &crate::microseg::INFO,
    ];
    &CATALOG
}

/// The description of the shipped application called `name`.
pub fn info(name: &str) -> Result<&'static AppInfo> {
    catalog().iter().copied().find(|i| i.name == name).ok_or_else(|| {
        let known: Vec<&str> = catalog().iter().map(|i| i.name).collect();
        Error::UnknownApp(name.to_string(), known.join(", "))
    })
}

/// Every shipped application, in display order.
pub fn apps() -> &'static [&'static dyn App] {
    Registry::standard().apps()
}

/// The shipped application called `name`.
pub fn app(name: &str) -> Result<&'static dyn App> {
    Registry::standard().app(name)
}

/// Generates the task an id string names, through its (shipped) application.
pub fn generate(id: &str) -> Result<Arc<dyn Task>> {
    Registry::standard().generate(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::terms_in;

    /// The words of `text` that read as abbreviations: two or more capitals, then optional
    /// digits (`DI3`, `CPR`), never the level prefix `L2`.
    fn abbreviations(text: &str) -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| {
                let caps = w.chars().take_while(char::is_ascii_uppercase).count();
                caps >= 2 && w[caps..].chars().all(|c| c.is_ascii_digit())
            })
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn with_adds_last_or_replaces_by_name() {
        let twice = Registry::standard().clone().with(&crate::route::RouteApp);
        let names: Vec<&str> = twice.apps().iter().map(|a| a.info().name).collect();
        assert_eq!(names, ["malt", "route", "k8s", "bgp", "traffic", "microseg"]);
        let err = twice.app("toy").err().expect("unknown").to_string();
        assert!(err.contains("malt, route, k8s, bgp, traffic, microseg"), "{err}");
    }

    /// The catalog is the standard registry's descriptions, in its order, field for field.
    #[test]
    fn catalog_describes_the_standard_registry() {
        let engines: Vec<String> = apps().iter().map(|a| format!("{:?}", a.info())).collect();
        let catalog: Vec<String> = catalog().iter().map(|i| format!("{i:?}")).collect();
        assert_eq!(engines, catalog);
        assert_eq!(info("route").expect("route").name, "route");
        let err = info("toy").expect_err("unknown").to_string();
        assert!(err.contains("malt, route, k8s, bgp, traffic, microseg"), "{err}");
    }

    /// Every abbreviation a task label or level summary shows is one the application's
    /// glossary spells out, so no surface shows a bare `CPR` or `DT` with no meaning at hand.
    #[test]
    fn every_label_abbreviation_is_in_the_glossary() {
        for app in apps() {
            let info = app.info();
            for level in info.levels {
                let texts = app.labels(level.level).into_iter().chain([level.summary.to_string()]);
                for text in texts {
                    let explained: Vec<&str> =
                        terms_in(app.glossary(), &text).iter().map(|t| t.abbr).collect();
                    for word in abbreviations(&text) {
                        let stem = word.trim_end_matches(|c: char| c.is_ascii_digit());
                        assert!(
                            explained.iter().any(|a| *a == stem || *a == word),
                            "{}: `{word}` in `{text}` has no glossary entry",
                            info.name
                        );
                    }
                }
            }
        }
    }
}
