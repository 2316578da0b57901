//! The mixture file read back (docs/adapt.md, "Export"): a trainer holding only the file gets
//! the same curriculum stream as `adapt export --format ids` computes from the search state,
//! and a file of another space or schema is refused by name.

use netpress::adapt::{Search, curriculum, mixture_json, mixture_stream};
use netpress::registry::Registry;

use super::fake::run;
use super::search::route_settings;

#[test]
fn a_mixture_file_gives_the_searchs_curriculum() {
    let app = Registry::standard().app("route").unwrap();
    let settings = route_settings(7);
    let state = run(app, settings.clone(), "subnets>=6", 2);
    let search = Search::resume(app, state, &settings).unwrap();
    let file = mixture_json(&search);
    assert!(file["components"].as_array().unwrap().len() >= 2, "{file}");
    let ids = |tasks: Vec<netpress::adapt::StreamTask>| tasks.into_iter().map(|t| t.id).collect::<Vec<_>>();
    let want = ids(curriculum(&search, 60).unwrap());
    let text = file.to_string();
    assert_eq!(ids(mixture_stream(&text, 0, 60).unwrap()), want);
    assert_eq!(ids(mixture_stream(&text, 25, 35).unwrap()), want[25..]);

    let mut other = file.clone();
    other["space"] = "route-space-v0".into();
    let e = mixture_stream(&other.to_string(), 0, 1).unwrap_err().to_string();
    assert!(e.contains("route-space-v0"), "{e}");
    other["schema"] = "netpress.mixture.v0".into();
    assert!(mixture_stream(&other.to_string(), 0, 1).unwrap_err().to_string().contains("schema"));
    assert!(mixture_stream("{}", 0, 1).unwrap_err().to_string().contains("mixture file"));
}
