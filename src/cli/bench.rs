//! `bench`: the fixed seeded workload of `netpress::bench`, timed natively.

use std::time::Instant;

use clap::Args;

use super::{CliResult, Context};
use crate::bench::{self, AppBench};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Only this application (default: all).
    #[arg(long)]
    pub app: Option<String>,
    /// Tasks per application.
    #[arg(long, default_value_t = 200)]
    pub tasks: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn bench(cx: &mut Context, args: BenchArgs) -> CliResult {
    let apps = match &args.app {
        Some(name) => vec![cx.registry.app(name)?],
        None => cx.registry.apps().to_vec(),
    };
    let origin = Instant::now();
    let clock = move || origin.elapsed().as_secs_f64() * 1000.0;
    let results: Vec<AppBench> =
        apps.into_iter().map(|app| bench::run_app(app, args.tasks, &clock)).collect::<Result<_, _>>()?;
    if args.json {
        let doc = bench::Report {
            netpress_version: crate::VERSION.to_string(),
            place: "native".to_string(),
            tasks_per_app: args.tasks,
            apps: results,
        };
        writeln!(cx.console.out(), "{}", serde_json::to_string_pretty(&doc)?)?;
    } else {
        write!(cx.console.out(), "{}", bench::render(&results))?;
    }
    Ok(())
}
