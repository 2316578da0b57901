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
    /// Measure the environment server instead: in-process on an ephemeral loopback port, K8s
    /// steps over `ws` or `http` (keep-alive) from one client thread per session.
    #[cfg(feature = "server")]
    #[arg(long, value_name = "ws|http", value_parser = ["ws", "http"])]
    pub serve: Option<String>,
    /// [--serve] Concurrent sessions, one load run each (comma-separated).
    #[cfg(feature = "server")]
    #[arg(long, default_value = "1,100,1000", value_delimiter = ',')]
    pub sessions: Vec<usize>,
    /// [--serve] Steps a load run stops after, over all sessions.
    #[cfg(feature = "server")]
    #[arg(long, default_value_t = 20_000)]
    pub steps: usize,
    /// [--serve] Seconds a load run stops after, whatever the steps.
    #[cfg(feature = "server")]
    #[arg(long, default_value_t = 20)]
    pub seconds: u64,
}

pub fn bench(cx: &mut Context, args: BenchArgs) -> CliResult {
    #[cfg(feature = "server")]
    if let Some(transport) = &args.serve {
        return serve(cx, &args, transport == "http");
    }
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

/// `bench --serve`: the server under a bounded loopback load (`server::load`).
#[cfg(feature = "server")]
fn serve(cx: &mut Context, args: &BenchArgs, http: bool) -> CliResult {
    use crate::server::load::{self, Transport};
    use crate::server::{Config, Server};
    let transport = if http { Transport::Http } else { Transport::Ws };
    let registry: &'static crate::registry::Registry = Box::leak(Box::new(cx.registry.clone()));
    let mut reports = Vec::new();
    for &sessions in &args.sessions {
        let mut config = Config { bind: "127.0.0.1:0".parse().expect("an address"), ..Config::default() };
        config.limits.max_sessions = sessions.max(config.limits.max_sessions);
        let server = Server::start(registry, config).map_err(|e| format!("cannot start the server: {e}"))?;
        let limit = std::time::Duration::from_secs(args.seconds.max(1));
        let report = load::run(server.addr(), transport, sessions, args.steps, limit);
        server.shutdown()?;
        let report = report.map_err(|e| format!("the load run with {sessions} sessions failed: {e}"))?;
        if !args.json {
            writeln!(cx.console.out(), "{report}")?;
        }
        reports.push(report);
    }
    if args.json {
        writeln!(cx.console.out(), "{}", serde_json::to_string_pretty(&reports)?)?;
    }
    Ok(())
}
