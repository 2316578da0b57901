//! `serve`: the episode protocol over HTTP and WebSocket ([`crate::server`]) until Ctrl-C.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Args;

use super::env_cmd::SessionArgs;
use super::{CliResult, Context, Fail};
use crate::server::{AssessorConfig, Config, Server};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on; anything but loopback needs --allow-remote.
    #[arg(long, default_value = "127.0.0.1:8765")]
    pub bind: SocketAddr,
    /// Listen on a non-loopback address (anyone who reaches it can run episodes; use --token-file).
    #[arg(long)]
    pub allow_remote: bool,
    #[command(flatten)]
    pub sessions: SessionArgs,
    /// Seconds after which an unused session is closed.
    #[arg(long, default_value_t = 300)]
    pub idle_timeout: u64,
    /// A file holding the token every request must send as `Authorization: Bearer <token>`.
    #[arg(long)]
    pub token_file: Option<String>,
    /// A browser origin allowed to call (repeatable); requests from other pages get 403.
    #[arg(long = "allow-origin")]
    pub allow_origins: Vec<String>,
    /// A further name the Host header may give (repeatable), e.g. a container's service name.
    #[arg(long = "allow-host")]
    pub allow_hosts: Vec<String>,
    /// Also serve as an A2A assessor ("green agent"): `POST /` JSON-RPC takes an EvalRequest and
    /// scores the participant agent it names (docs/env.md, "A2A assessor").
    #[arg(long)]
    pub a2a_assessor: bool,
    /// [--a2a-assessor] The URL clients reach this server at, for the agent card.
    #[arg(long, requires = "a2a_assessor")]
    pub card_url: Option<String>,
}

pub fn serve(cx: &mut Context, args: ServeArgs) -> CliResult {
    let config = config(cx, &args)?;
    if !args.bind.ip().is_loopback() {
        writeln!(
            cx.console.err(),
            "netpress: warning: serving on {} (not loopback): anyone who reaches it can run episodes",
            args.bind
        )?;
    }
    let registry: &'static crate::registry::Registry = Box::leak(Box::new(cx.registry.clone()));
    let server =
        Server::start(registry, config).map_err(|e| format!("cannot listen on {}: {e}", args.bind))?;
    let stop = server.stopper();
    let _ = ctrlc::set_handler(stop);
    writeln!(
        cx.console.out(),
        "listening on http://{} (HTTP /reset /step /state /close, WebSocket /ws{})",
        server.addr(),
        if args.a2a_assessor { ", A2A assessor POST /" } else { "" }
    )?;
    cx.console.out().flush()?;
    server.wait()?;
    Ok(())
}

fn config(cx: &mut Context, args: &ServeArgs) -> CliResult<Config> {
    if !args.bind.ip().is_loopback() && !args.allow_remote {
        return Err(Fail {
            message: format!("{} is not a loopback address: add --allow-remote to serve it", args.bind),
            code: 2,
        });
    }
    let (defaults, limits) = args.sessions.resolve(cx)?;
    let token = match &args.token_file {
        None => None,
        Some(path) => {
            let text = cx.console.read_bytes(path)?;
            let token = String::from_utf8_lossy(&text).trim().to_string();
            if token.is_empty() {
                return Err(format!("{path}: the token file is empty").into());
            }
            Some(token)
        }
    };
    Ok(Config {
        bind: args.bind,
        defaults,
        limits,
        idle_timeout: Duration::from_secs(args.idle_timeout.max(1)),
        token,
        allow_origins: args.allow_origins.clone(),
        allow_hosts: args.allow_hosts.clone(),
        assessor: args.a2a_assessor.then(|| AssessorConfig { card_url: args.card_url.clone() }),
        sandbox: args.sessions.sandbox(),
        ..Config::default()
    })
}
