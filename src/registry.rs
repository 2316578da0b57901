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
