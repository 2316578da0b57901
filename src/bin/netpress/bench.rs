//! `bench`: the fixed seeded workload of `netpress::bench`, timed natively.

use std::time::Instant;

use clap::Args;
use netpress::bench::{self, AppBench};
use netpress::registry;

use crate::CliResult;

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

pub fn bench(args: BenchArgs) -> CliResult {
    let apps = match &args.app {
        Some(name) => vec![registry::app(name)?],
        None => registry::apps().to_vec(),
    };
    let origin = Instant::now();
    let clock = move || origin.elapsed().as_secs_f64() * 1000.0;
    let results: Vec<AppBench> =
        apps.into_iter().map(|app| bench::run_app(app, args.tasks, &clock)).collect::<Result<_, _>>()?;
    if args.json {
        let doc = bench::Report {
            netpress_version: netpress::VERSION.to_string(),
            place: "native".to_string(),
            tasks_per_app: args.tasks,
            apps: results,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", bench::render(&results));
    }
    Ok(())
}
