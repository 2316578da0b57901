//! Retries with exponential backoff, and how HTTP statuses and transport failures are
//! classified. Shared by every protocol so OpenAI and A2A endpoints fail the same way.
//!
//! Rule: 408, 425, 429 and 5xx responses and network errors are retried after
//! `base·2^k` ms (or the server's `Retry-After`, capped at `max_ms`), up to `retries`
//! times, then the call fails as a [`Scope::Turn`] failure. Timeouts are not retried (the
//! wait was already long); they fail the turn at once. An endpoint that cannot be reached at
//! all (connection refused, unknown host; a browser's network failure) is retried once, then
//! stops the run ([`Scope::Run`]): every later call would wait out the same backoff to fail
//! the same way, which made an unreachable endpoint take about 21 s to give up. 401, 403, 404 and redirects mean the
//! endpoint or key is wrong ([`Scope::Run`]); other 4xx reject this request
//! ([`Scope::Episode`]).

use serde::{Deserialize, Serialize};

use super::http::{
    CallError, HttpRequest, HttpResponse, Scope, Step, TransportError, reason_phrase, redact_url,
    server_message,
};

/// Longest wait before the one retry of an unreachable endpoint.
const UNREACHABLE_RETRY_MS: u64 = 500;

/// How often and how patiently to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub retries: u32,
    /// First backoff delay.
    pub base_ms: u64,
    /// Longest delay, also the cap on a server's `Retry-After`.
    pub max_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { retries: 3, base_ms: 1000, max_ms: 30_000 }
    }
}

impl RetryPolicy {
    /// The delay before retry number `k` (0-based).
    pub fn delay_ms(&self, k: u32, retry_after_ms: Option<u64>) -> u64 {
        let backoff = self.base_ms.saturating_mul(1u64 << k.min(30));
        retry_after_ms.unwrap_or(backoff).min(self.max_ms)
    }
}

/// `Retry-After` in milliseconds: delay-seconds only (HTTP dates are treated as absent).
pub fn parse_retry_after(value: &str) -> Option<u64> {
    let secs: f64 = value.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some((secs * 1000.0) as u64)
}

/// The retry budget of one call.
#[derive(Debug, Clone)]
pub struct Retries {
    policy: RetryPolicy,
    used: u32,
}

impl Retries {
    pub fn new(policy: RetryPolicy) -> Self {
        Retries { policy, used: 0 }
    }

    /// Retries `request` if budget is left, else fails the turn with `message`.
    fn retry_or_fail<T>(
        &mut self,
        request: &HttpRequest,
        retry_after: Option<u64>,
        message: String,
    ) -> Step<T> {
        if self.used < self.policy.retries {
            let delay_ms = self.policy.delay_ms(self.used, retry_after);
            self.used += 1;
            return Step::Send { request: request.clone(), delay_ms, retry: true };
        }
        let message = match self.used {
            0 => message,
            n => format!("{message} (gave up after {n} {})", if n == 1 { "retry" } else { "retries" }),
        };
        Step::Done(Err(CallError::new(Scope::Turn, message)))
    }

    /// Handles a response whose status is not 2xx.
    pub fn on_error_status<T>(&mut self, request: &HttpRequest, response: &HttpResponse) -> Step<T> {
        let status = response.status;
        let url = redact_url(&request.url);
        let what = format!("HTTP {status} {}", reason_phrase(status)).trim_end().to_string();
        if (300..400).contains(&status) {
            let to = response.location.as_deref().map(redact_url).unwrap_or_else(|| "elsewhere".into());
            let message = format!("{what} from {url}: the endpoint moved to {to}; use that URL");
            return Step::Done(Err(CallError::new(Scope::Run, message)));
        }
        let message = format!("{what} from {url}: {}", server_message(&response.body));
        match status {
            408 | 425 | 429 | 500..=599 => {
                let retry_after = response.retry_after.as_deref().and_then(parse_retry_after);
                self.retry_or_fail(request, retry_after, message)
            }
            401 | 403 => {
                Step::Done(Err(CallError::new(Scope::Run, format!("{message} (check the API key)"))))
            }
            404 => Step::Done(Err(CallError::new(
                Scope::Run,
                format!("{message} (check the URL, e.g. …/v1 for chat completions, and the model name)"),
            ))),
            _ => Step::Done(Err(CallError::new(Scope::Episode, message))),
        }
    }

    /// Handles a request that got no response.
    pub fn on_failure<T>(&mut self, request: &HttpRequest, error: TransportError) -> Step<T> {
        let url = redact_url(&request.url);
        match error {
            TransportError::Cancelled => Step::Done(Err(CallError::cancelled(None))),
            TransportError::Timeout => Step::Done(Err(CallError::new(
                Scope::Turn,
                format!("no answer from {url} within {} (timeout)", seconds(request.timeout_ms)),
            ))),
            TransportError::Network(detail) => {
                self.retry_or_fail(request, None, format!("cannot reach {url}: {detail}"))
            }
            TransportError::Unreachable(detail) => {
                self.unreachable(request, format!("cannot reach {url}: {detail}"))
            }
        }
    }

    /// An endpoint with nothing listening: one quick retry (a server just restarting), then the
    /// run stops, since every call would fail the same way.
    fn unreachable<T>(&mut self, request: &HttpRequest, message: String) -> Step<T> {
        if self.used == 0 && self.policy.retries > 0 {
            self.used = 1;
            let delay_ms = self.policy.delay_ms(0, None).min(UNREACHABLE_RETRY_MS);
            return Step::Send { request: request.clone(), delay_ms, retry: true };
        }
        let message = format!("{message} (is the server running at that address? gave up after one retry)");
        Step::Done(Err(CallError::new(Scope::Run, message)))
    }
}

/// `30 s`, `0.5 s`.
pub fn seconds(ms: u64) -> String {
    format!("{} s", ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::http::Method;

    fn request() -> HttpRequest {
        HttpRequest {
            method: Method::Post,
            url: "http://h/v1/chat/completions".into(),
            headers: vec![],
            body: None,
            timeout_ms: 1500,
        }
    }

    fn status(code: u16, body: &str) -> HttpResponse {
        HttpResponse { status: code, body: body.into(), ..Default::default() }
    }

    fn done<T: std::fmt::Debug>(step: Step<T>) -> CallError {
        match step {
            Step::Done(Err(e)) => e,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = RetryPolicy { retries: 9, base_ms: 500, max_ms: 3000 };
        let delays: Vec<u64> = (0..5).map(|k| p.delay_ms(k, None)).collect();
        assert_eq!(delays, vec![500, 1000, 2000, 3000, 3000]);
        assert_eq!(p.delay_ms(0, Some(60_000)), 3000);
        assert_eq!(p.delay_ms(3, Some(0)), 0);
        assert_eq!(p.delay_ms(200, None), 3000);
    }

    #[test]
    fn retry_after_seconds() {
        assert_eq!(parse_retry_after(" 2 "), Some(2000));
        assert_eq!(parse_retry_after("0.25"), Some(250));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }

    #[test]
    fn server_errors_retry_then_fail_the_turn() {
        let mut r = Retries::new(RetryPolicy { retries: 2, base_ms: 10, max_ms: 100 });
        let mut resp = status(503, r#"{"error":{"message":"overloaded"}}"#);
        resp.retry_after = Some("0".into());
        match r.on_error_status::<()>(&request(), &resp) {
            Step::Send { delay_ms, retry, .. } => assert_eq!((delay_ms, retry), (0, true)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            r.on_error_status::<()>(&request(), &status(429, "")),
            Step::Send { delay_ms: 20, .. }
        ));
        let e = done(r.on_error_status::<()>(&request(), &status(500, "boom")));
        assert_eq!(e.scope, Scope::Turn);
        assert_eq!(
            e.message,
            "HTTP 500 Internal Server Error from http://h/v1/chat/completions: boom (gave up after 2 retries)"
        );
    }

    #[test]
    fn client_errors_are_classified() {
        let mut r = Retries::new(RetryPolicy::default());
        let e = done(r.on_error_status::<()>(&request(), &status(401, r#"{"error":"bad key"}"#)));
        assert_eq!(e.scope, Scope::Run);
        assert!(e.message.ends_with("bad key (check the API key)"), "{}", e.message);
        assert_eq!(done(r.on_error_status::<()>(&request(), &status(404, ""))).scope, Scope::Run);
        let e = done(r.on_error_status::<()>(&request(), &status(400, r#"{"message":"context too long"}"#)));
        assert_eq!((e.scope, e.message.ends_with("context too long")), (Scope::Episode, true));
        let mut moved = status(301, "");
        moved.location = Some("https://new.example/v1?k=1".into());
        let e = done(r.on_error_status::<()>(&request(), &moved));
        assert_eq!(e.scope, Scope::Run);
        assert!(e.message.contains("moved to https://new.example/v1; use that URL"), "{}", e.message);
    }

    #[test]
    fn transport_failures() {
        let mut r = Retries::new(RetryPolicy { retries: 1, base_ms: 5, max_ms: 5 });
        let e = done(r.on_failure::<()>(&request(), TransportError::Timeout));
        assert_eq!(e.message, "no answer from http://h/v1/chat/completions within 1.5 s (timeout)");
        assert_eq!(e.scope, Scope::Turn);
        let net = || TransportError::Network("connection refused".into());
        assert!(matches!(r.on_failure::<()>(&request(), net()), Step::Send { delay_ms: 5, .. }));
        let e = done(r.on_failure::<()>(&request(), net()));
        assert!(e.message.ends_with("connection refused (gave up after 1 retry)"), "{}", e.message);
        assert_eq!(done(r.on_failure::<()>(&request(), TransportError::Cancelled)).scope, Scope::Cancelled);
    }

    #[test]
    fn unreachable_endpoints_are_retried_once_then_stop_the_run() {
        let mut r = Retries::new(RetryPolicy::default());
        let refused = || TransportError::Unreachable("connection refused".into());
        assert!(matches!(r.on_failure::<()>(&request(), refused()), Step::Send { delay_ms: 500, .. }));
        let e = done(r.on_failure::<()>(&request(), refused()));
        assert_eq!(e.scope, Scope::Run);
        assert!(
            e.message.starts_with("cannot reach http://h/v1/chat/completions: connection refused"),
            "{}",
            e.message
        );
        // With no retries allowed, the first failure already stops the run.
        let mut none = Retries::new(RetryPolicy { retries: 0, ..RetryPolicy::default() });
        assert_eq!(done(none.on_failure::<()>(&request(), refused())).scope, Scope::Run);
    }
}
