//! `netpress serve`: the episode protocol over HTTP and WebSocket, OpenEnv's shapes.
//!
//! The protocol itself is [`crate::env`] (no I/O); this module moves its messages over
//! axum on a tokio runtime and keeps the sessions: HTTP sessions by `episode_id` in
//! `sessions`, one WebSocket session per connection, one count over both. Steps are short
//! (a fraction of a millisecond for Route and K8s); each runs on the blocking pool under a
//! deadline (`deadline`) and under `catch_unwind`: a panic or an overrun closes its session
//! and the server goes on.
//!
//! Security (`http::guard`): loopback by default; headers at most 16 KiB; the `Host` header
//! must name this server (no DNS rebinding); requests from a browser page (`Origin`) are refused unless allowed; an
//! optional bearer token. Nothing a request says is opened or connected to: the
//! emulators are pure functions of the task and the replies. The one exception, agent code
//! (MALT's Python answers), runs only in sandbox processes ([`crate::env::SandboxPool`]), never
//! here, because the sandbox's memory limit counts the whole process it runs in; those
//! processes keep no episode between steps, each step replays the session's turns
//! ([`crate::env::pooled`]). docs/env.md says more.

mod assessor;
mod deadline;
mod http;
pub mod load;
pub mod roundtrip;
mod sessions;
mod ws;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use tokio::sync::watch;

use crate::env::{Defaults, EnvError, Limits};
use crate::registry::Registry;

pub use crate::env::{Lost, SandboxConfig, SandboxPool};
pub use assessor::{AssessorConfig, MAX_QUERIES};
pub use deadline::STEP_DEADLINE;
pub use http::MAX_HEADER_BYTES;
pub use sessions::Sessions;

/// How a server runs.
#[derive(Debug, Clone)]
pub struct Config {
    pub bind: SocketAddr,
    pub defaults: Defaults,
    pub limits: Limits,
    /// A session unused this long is closed.
    pub idle_timeout: Duration,
    /// Every request must carry `Authorization: Bearer <token>`.
    pub token: Option<String>,
    /// Browser origins allowed to call (exact `Origin` values).
    pub allow_origins: Vec<String>,
    /// A step that takes longer is answered `TIMEOUT` and its session closed.
    pub step_deadline: Duration,
    /// More names the `Host` header may give (a container's service name).
    pub allow_hosts: Vec<String>,
    /// Serve as an A2A assessor too (`POST /` JSON-RPC, the agent card).
    pub assessor: Option<AssessorConfig>,
    /// Sandbox processes for sandboxed applications (MALT); without them their resets are
    /// refused.
    pub sandbox: Option<SandboxConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: SocketAddr::from(([127, 0, 0, 1], 8765)),
            defaults: Defaults::default(),
            limits: Limits::default(),
            idle_timeout: Duration::from_secs(300),
            token: None,
            allow_origins: Vec::new(),
            step_deadline: STEP_DEADLINE,
            allow_hosts: Vec::new(),
            assessor: None,
            sandbox: None,
        }
    }
}

/// What every handler shares.
pub(crate) struct State {
    registry: &'static Registry,
    config: Config,
    /// The address bound (the `Host` check accepts it).
    addr: SocketAddr,
    sessions: Sessions,
    /// Where sandboxed steps run (`None`: sandboxed applications are refused).
    pool: Option<SandboxPool>,
    /// The assessor's tasks (empty unless it is on).
    tasks: assessor::Tasks,
    shutdown: watch::Receiver<bool>,
}

impl State {
    /// Checks reset parameters: sandboxed applications only with sandbox processes.
    fn resolve(&self, params: &crate::env::ResetParams) -> Result<crate::env::Resolved, EnvError> {
        params.resolve_with(self.registry, &self.config.defaults, self.pool.is_some())
    }

    /// Steps `session` with `turn`, a sandboxed turn in a sandbox process (blocking).
    fn step(
        &self,
        session: &mut crate::env::Session,
        turn: Result<crate::conversation::AgentReply, crate::conversation::AgentError>,
    ) -> Result<crate::env::StepResult, EnvError> {
        crate::env::pooled::step(self.registry, self.pool.as_ref(), session, turn)
    }

    fn assessor(&self) -> AssessorConfig {
        self.config.assessor.clone().unwrap_or_default()
    }
}

type Shared = Arc<State>;

/// A running server (on its own runtime thread) until [`Server::shutdown`] or Ctrl-C.
pub struct Server {
    addr: SocketAddr,
    state: Shared,
    stop: Arc<watch::Sender<bool>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Server {
    /// Binds `config.bind` and serves `registry` on a multi-thread runtime (a worker per core).
    pub fn start(registry: &'static Registry, config: Config) -> std::io::Result<Server> {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind(config.bind))?;
        let addr = listener.local_addr()?;
        let (stop, shutdown) = watch::channel(false);
        let state = Arc::new(State {
            registry,
            sessions: Sessions::new(config.limits.max_sessions),
            pool: config.sandbox.clone().map(SandboxPool::new),
            config,
            addr,
            tasks: assessor::Tasks::default(),
            shutdown: shutdown.clone(),
        });
        let app = router(state.clone());
        let reaper = state.clone();
        let thread = std::thread::Builder::new().name("netpress-serve".into()).spawn(move || {
            runtime.block_on(async move {
                tokio::spawn(reap(reaper));
                axum::serve(listener, app).with_graceful_shutdown(stopped(shutdown)).await
            })
        })?;
        Ok(Server { addr, state, stop: Arc::new(stop), thread: Some(thread) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Sessions open over all transports.
    pub fn active_sessions(&self) -> usize {
        self.state.sessions.active()
    }

    /// The process ids of the idle sandbox processes (none without a sandbox pool).
    pub fn sandbox_idle_pids(&self) -> Vec<u32> {
        self.state.pool.as_ref().map_or_else(Vec::new, SandboxPool::idle_pids)
    }

    /// Sandboxed steps admitted now, running or waiting for a sandbox process.
    pub fn sandbox_queued(&self) -> usize {
        self.state.pool.as_ref().map_or(0, SandboxPool::queued)
    }

    /// A handle that stops the server from anywhere (the command line's Ctrl-C handler).
    pub fn stopper(&self) -> impl Fn() + Send + Sync + 'static {
        let stop = self.stop.clone();
        move || {
            let _ = stop.send(true);
        }
    }

    /// Serves until stopped.
    pub fn wait(mut self) -> std::io::Result<()> {
        self.join()
    }

    /// Stops accepting, tells WebSocket clients (close 1001), lets requests in flight finish.
    pub fn shutdown(mut self) -> std::io::Result<()> {
        let _ = self.stop.send(true);
        self.join()
    }

    fn join(&mut self) -> std::io::Result<()> {
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(std::io::Error::other("the server thread panicked")),
            None => Ok(()),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        let _ = self.join();
    }
}

/// Resolves when the server is told to stop.
async fn stopped(mut shutdown: watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

fn router(state: Shared) -> Router {
    let mut routes = Router::new();
    if state.config.assessor.is_some() {
        routes = routes
            .route("/", post(assessor::rpc))
            .route("/.well-known/agent-card.json", get(assessor::card))
            .route("/.well-known/agent.json", get(assessor::card));
    }
    routes
        .route("/reset", post(http::reset))
        .route("/step", post(http::step))
        .route("/state", get(http::state))
        .route("/close", post(http::close))
        .route("/health", get(http::health))
        .route("/schema", get(http::schema))
        .route("/metadata", get(http::metadata))
        .route("/capacity", get(http::capacity))
        .route("/ws", get(ws::upgrade))
        .layer(axum::middleware::from_fn_with_state(state.clone(), http::guard))
        .with_state(state)
}

/// Closes idle HTTP sessions, every 5 s (or every idle timeout when that is shorter).
async fn reap(state: Shared) {
    let every = state.config.idle_timeout.min(Duration::from_secs(5)).max(Duration::from_millis(100));
    let mut tick = tokio::time::interval(every);
    let stop = stopped(state.shutdown.clone());
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = tick.tick() => { state.sessions.reap(state.config.idle_timeout); }
            _ = &mut stop => return,
        }
    }
}
