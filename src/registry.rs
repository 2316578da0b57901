//! The one place applications are listed. Surfaces iterate [`apps`] and look names up with
//! [`app`]; nothing else names an application.

use crate::app::App;
use crate::error::{Error, Result};

/// Every application, in display order.
pub fn apps() -> &'static [&'static dyn App] {
    static APPS: &[&dyn App] = &[&crate::malt::MALT, &crate::route::RouteApp, &crate::k8s::K8sApp];
    APPS
}

/// The application called `name`.
pub fn app(name: &str) -> Result<&'static dyn App> {
    apps().iter().copied().find(|a| a.info().name == name).ok_or_else(|| {
        let known: Vec<&str> = apps().iter().map(|a| a.info().name).collect();
        Error::UnknownApp(name.to_string(), known.join(", "))
    })
}

/// Generates the task an id string names, through its application.
pub fn generate(id: &str) -> Result<std::sync::Arc<dyn crate::app::Task>> {
    let id: crate::QueryId = id.parse()?;
    app(&id.app)?.generate(&id)
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
