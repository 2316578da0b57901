//! `bench`: the fixed seeded workload of `netpress::bench`, timed natively.

use std::time::Instant;

use clap::Args;

use super::{CliResult, Context};
use crate::bench::{self, AppBench};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Only this application (default: all). With `--serve` or `--env`: the registered
    /// application whose tasks the steps are of (default k8s).
    #[arg(long)]
    pub app: Option<String>,
    /// Tasks per application.
    #[arg(long, default_value_t = 200)]
    pub tasks: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Measure the environment server instead: in-process on an ephemeral loopback port, steps
    /// over `ws` or `http` (keep-alive) from one client thread per active session.
    #[cfg(feature = "server")]
    #[arg(long, value_name = "ws|http", value_parser = ["ws", "http"], conflicts_with = "env")]
    pub serve: Option<String>,
    /// Measure a transport against the native step instead: `stdio` drives this program's `env
    /// --stdio` in a child process, one line at a time, and times the same steps in-process.
    #[cfg(feature = "server")]
    #[arg(long, value_name = "stdio", value_parser = ["stdio"])]
    pub env: Option<String>,
    /// [--serve] Active (stepping) sessions, one load run each (comma-separated); `--active`
    /// is the same flag.
    #[cfg(feature = "server")]
    #[arg(long, visible_alias = "active", default_value = "1,100,1000", value_delimiter = ',')]
    pub sessions: Vec<usize>,
    /// [--serve] Sessions opened (a reset each) before the clock starts and left idle, open,
    /// during each load run.
    #[cfg(feature = "server")]
    #[arg(long, default_value_t = 0, requires = "serve")]
    pub idle: usize,
    /// [--serve, --env] Steps a run stops after (over all sessions).
    #[cfg(feature = "server")]
    #[arg(long, default_value_t = 20_000)]
    pub steps: usize,
    /// [--serve, --env] Seconds a run stops after, whatever the steps.
    #[cfg(feature = "server")]
    #[arg(long, default_value_t = 20)]
    pub seconds: u64,
}

pub fn bench(cx: &mut Context, args: BenchArgs) -> CliResult {
    #[cfg(feature = "server")]
    if let Some(transport) = &args.serve {
        return serve(cx, &args, transport == "http");
    }
    #[cfg(feature = "server")]
    if args.env.is_some() {
        return stdio(cx, &args);
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

/// A usage mistake: exit code 2.
#[cfg(feature = "server")]
fn usage(message: impl Into<String>) -> super::Fail {
    super::Fail { message: message.into(), code: 2 }
}

/// The application of `--app` for `--serve` and `--env` (k8s when none is given), one of
/// `registry`'s: a usage error naming the registered ones for any other.
#[cfg(feature = "server")]
fn family(registry: &crate::registry::Registry, args: &BenchArgs) -> CliResult<crate::server::load::Family> {
    crate::server::load::Family::of(registry, args.app.as_deref().unwrap_or("k8s"))
        .map_err(|e| usage(format!("--app: {e}")))
}

/// `bench --serve`: the server under a bounded loopback load (`server::load`); for a sandboxed
/// application, whose steps run in the server's sandbox processes, the same steps timed
/// natively beside it.
#[cfg(feature = "server")]
fn serve(cx: &mut Context, args: &BenchArgs, http: bool) -> CliResult {
    use crate::server::load::{self, Load, Transport};
    use crate::server::{Config, Server, roundtrip};
    let family = family(cx.registry, args)?;
    if args.sessions.contains(&0) {
        return Err(usage("--sessions: every count must be at least 1"));
    }
    let transport = if http { Transport::Http } else { Transport::Ws };
    let registry: &'static crate::registry::Registry = Box::leak(Box::new(cx.registry.clone()));
    let limit = std::time::Duration::from_secs(args.seconds.max(1));
    let mut reports = Vec::new();
    for &active in &args.sessions {
        let load = Load { transport, family, active, idle: args.idle, steps: args.steps, limit };
        let mut config = Config { bind: "127.0.0.1:0".parse().expect("an address"), ..Config::default() };
        config.limits.max_sessions = load.sessions().max(config.limits.max_sessions);
        if family.sandboxed() {
            let program = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
            let cores = std::thread::available_parallelism().map_or(1, usize::from);
            config.sandbox = Some(crate::server::SandboxConfig::new(program, cores));
        }
        let server = Server::start(registry, config).map_err(|e| format!("cannot start the server: {e}"))?;
        let report = load::run(server.addr(), &load);
        server.shutdown()?;
        let mut report =
            report.map_err(|e| format!("the load run with {active} active sessions failed: {e}"))?;
        if family.sandboxed() {
            report.native = Some(roundtrip::native(registry, family, args.steps, limit)?);
        }
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

/// `bench --env stdio`: this program's `env --stdio` in a child process against the native
/// step (`server::roundtrip`).
#[cfg(feature = "server")]
fn stdio(cx: &mut Context, args: &BenchArgs) -> CliResult {
    let family = family(cx.registry, args)?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let limit = std::time::Duration::from_secs(args.seconds.max(1));
    let report = crate::server::roundtrip::run(cx.registry, &exe, family, args.steps.max(1), limit)?;
    if args.json {
        writeln!(cx.console.out(), "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(cx.console.out(), "{report}")?;
    }
    Ok(())
}
