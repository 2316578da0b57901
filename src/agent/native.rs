//! The CLI's transport: blocking HTTP with `ureq` (rustls TLS), driving the pure exchanges of
//! [`super::openai`] and [`super::a2a`].
//!
//! Nothing hangs: every request has a timeout (`ureq`'s global timeout, and a second deadline
//! one second later on our side), backoff sleeps are sliced, and the response is awaited on a
//! helper thread in 50 ms slices so a cancel takes effect at once (the abandoned request ends
//! at its own timeout in the background).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::client::{Client, EndpointConfig};
use super::http::{CallError, Exchange, HttpRequest, HttpResponse, Method, Step, TransportError, scrub};
use super::{Agent, AgentError, AgentInfo, AgentReply, Message};
use crate::run::Cancel;

/// Largest response body read; larger answers are an error, not a memory hazard.
const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;
/// How often waits look at the cancel flag.
const SLICE: Duration = Duration::from_millis(50);

/// A blocking HTTP transport bound to a run's cancel flag. Cheap to clone.
#[derive(Clone)]
pub struct Transport {
    http: ureq::Agent,
    cancel: Cancel,
}

impl Transport {
    pub fn new(cancel: Cancel) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(format!("netpress/{}", crate::VERSION))
            .build();
        Transport { http: config.into(), cancel }
    }

    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// Runs an exchange to its end. Also returns the wall time in milliseconds since the
    /// start of its last fresh attempt (polls count, failed attempts and backoff do not).
    pub fn drive<T>(&self, exchange: &mut dyn Exchange<Output = T>) -> (Result<T, CallError>, f64) {
        let mut step = Step::Send { request: exchange.start(), delay_ms: 0, retry: true };
        let mut started = Instant::now();
        loop {
            match step {
                Step::Done(result) => return (result, started.elapsed().as_secs_f64() * 1000.0),
                Step::Send { request, delay_ms, retry } => {
                    let outcome = self.sleep(delay_ms).and_then(|()| {
                        if retry {
                            started = Instant::now();
                        }
                        self.send(&request)
                    });
                    step = match outcome {
                        Ok(response) => exchange.on_response(response),
                        Err(error) => exchange.on_failure(error),
                    };
                }
            }
        }
    }

    /// Waits `ms`, unless the run is cancelled first.
    fn sleep(&self, ms: u64) -> Result<(), TransportError> {
        let end = Instant::now() + Duration::from_millis(ms);
        loop {
            if self.cancel.is_cancelled() {
                return Err(TransportError::Cancelled);
            }
            let now = Instant::now();
            if now >= end {
                return Ok(());
            }
            std::thread::sleep(SLICE.min(end - now));
        }
    }

    /// Sends one request on a helper thread and waits for it, watching the cancel flag.
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let (tx, rx) = mpsc::channel();
        let (http, req) = (self.http.clone(), request.clone());
        std::thread::Builder::new()
            .name("netpress-http".into())
            .spawn(move || {
                let _ = tx.send(perform(&http, &req));
            })
            .map_err(|e| TransportError::Network(format!("cannot start a request thread: {e}")))?;
        let deadline = Instant::now() + Duration::from_millis(request.timeout_ms) + Duration::from_secs(1);
        loop {
            match rx.recv_timeout(SLICE) {
                Ok(result) => return result,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(TransportError::Network("the request thread stopped".into()));
                }
                Err(RecvTimeoutError::Timeout) if self.cancel.is_cancelled() => {
                    return Err(TransportError::Cancelled);
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() >= deadline => {
                    return Err(TransportError::Timeout);
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }
}

/// One blocking request with `ureq`.
fn perform(http: &ureq::Agent, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
    let result = match request.method {
        // GETs (agent cards) may follow redirects; a POST's redirect is reported, not followed.
        Method::Get => configure(http.get(&request.url), request, 5).call(),
        Method::Post => {
            configure(http.post(&request.url), request, 0).send(request.body.as_deref().unwrap_or_default())
        }
    };
    let mut response = result.map_err(transport_error)?;
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let (retry_after, location) = (header("retry-after"), header("location"));
    let status = response.status().as_u16();
    let bytes =
        response.body_mut().with_config().limit(MAX_BODY_BYTES).read_to_vec().map_err(transport_error)?;
    Ok(HttpResponse { status, retry_after, location, body: String::from_utf8_lossy(&bytes).into_owned() })
}

/// Adds the request's headers, timeout and redirect limit to a `ureq` request.
fn configure<B>(
    mut builder: ureq::RequestBuilder<B>,
    request: &HttpRequest,
    redirects: u32,
) -> ureq::RequestBuilder<B> {
    for (k, v) in &request.headers {
        builder = builder.header(k, v);
    }
    let timeout = Some(Duration::from_millis(request.timeout_ms));
    builder.config().timeout_global(timeout).max_redirects(redirects).max_redirects_will_error(false).build()
}

fn transport_error(e: ureq::Error) -> TransportError {
    use std::io::ErrorKind;
    match e {
        ureq::Error::Timeout(_) => TransportError::Timeout,
        ureq::Error::Io(io) if io.kind() == ErrorKind::TimedOut => TransportError::Timeout,
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                ErrorKind::ConnectionRefused
                    | ErrorKind::AddrNotAvailable
                    | ErrorKind::HostUnreachable
                    | ErrorKind::NetworkUnreachable
            ) =>
        {
            TransportError::Unreachable(io.to_string())
        }
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
            TransportError::Unreachable(e.to_string())
        }
        ureq::Error::BodyExceedsLimit(n) => {
            TransportError::Network(format!("response larger than {n} bytes"))
        }
        other => TransportError::Network(other.to_string()),
    }
}

/// Connects to a configured endpoint: A2A agents have their card fetched.
pub fn connect(config: &EndpointConfig, transport: &Transport) -> Result<Client, CallError> {
    match config {
        EndpointConfig::Openai(c) => Ok(Client::OpenAi(c.clone())),
        EndpointConfig::A2a(c) => {
            let (result, _) = transport.drive(&mut c.card_exchange());
            result
                .map(Client::A2a)
                .map_err(|e| CallError { message: scrub(&e.message, c.bearer.as_deref()), ..e })
        }
    }
}

/// A unique prefix for A2A message ids, so that repeated runs never reuse one.
fn session_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    format!("np-{nanos:x}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// An agent that calls a connected endpoint, one HTTP exchange per turn.
pub struct EndpointAgent {
    client: Arc<Client>,
    transport: Transport,
    session: String,
    calls: u64,
}

impl EndpointAgent {
    pub fn new(client: Arc<Client>, transport: Transport) -> Self {
        EndpointAgent { client, transport, session: session_id(), calls: 0 }
    }
}

impl Agent for EndpointAgent {
    fn info(&self) -> AgentInfo {
        self.client.info()
    }

    fn reply(&mut self, messages: &[Message]) -> Result<AgentReply, AgentError> {
        self.calls += 1;
        let mut exchange = self.client.exchange(messages, &format!("{}-{}", self.session, self.calls));
        let (result, latency_ms) = self.transport.drive(exchange.as_mut());
        match result {
            Ok(reply) => Ok(AgentReply { latency_ms: Some(latency_ms), ..reply }),
            Err(e) => Err(self.client.failure(e, &self.transport.cancel)),
        }
    }
}
