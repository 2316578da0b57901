//! The browser's transport for endpoint agents: `fetch` with an `AbortController` per request
//! (for its timeout and for the user's Stop), driving the same pure exchanges as the CLI
//! ([`crate::agent::openai`], [`crate::agent::a2a`]), so requests, retries and error messages
//! are identical natively and in the browser. No UI here and no loop over turns: the page's
//! agent adapter (`web::agents::remote`) makes one [`call`] per turn, and the one episode loop
//! (`web::agents::drive`) and batch driver (`web::batch::job::run_batch`) use it.
//!
//! Cross-origin calls need the endpoint's CORS consent (`Access-Control-Allow-Origin`, and
//! for keys `Access-Control-Allow-Headers: authorization, content-type`); without it the
//! browser hides the response and the error says so. Works in a window and in a worker.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, RequestInit, RequestMode, Response};

use crate::agent::client::{Client, EndpointConfig};
use crate::agent::http::{CallError, Exchange, HttpRequest, HttpResponse, Step, TransportError, scrub};
use crate::agent::{AgentError, AgentReply, Message};
use crate::run;

/// A run's cancel handle in the browser: the shared flag plus the requests in flight, which
/// [`Cancel::cancel`] aborts at once. Cheap to clone; every clone is the same handle.
#[derive(Clone, Default)]
pub struct Cancel {
    flag: run::Cancel,
    in_flight: Rc<RefCell<Vec<(u64, AbortController)>>>,
    next_id: Rc<Cell<u64>>,
}

impl Cancel {
    pub fn new() -> Self {
        Cancel::default()
    }

    /// Stops the run: aborts every request in flight; the first reason is kept.
    pub fn cancel(&self, reason: impl Into<String>) {
        self.flag.cancel(reason);
        for (_, controller) in self.in_flight.borrow_mut().drain(..) {
            controller.abort();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.is_cancelled()
    }

    pub fn reason(&self) -> Option<String> {
        self.flag.reason()
    }

    /// The plain flag, for the shared failure rules.
    pub fn flag(&self) -> &run::Cancel {
        &self.flag
    }

    fn register(&self, controller: AbortController) -> InFlight {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.in_flight.borrow_mut().push((id, controller));
        InFlight { id, list: self.in_flight.clone() }
    }
}

/// Removes a finished request from the cancel list.
struct InFlight {
    id: u64,
    list: Rc<RefCell<Vec<(u64, AbortController)>>>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.list.borrow_mut().retain(|(id, _)| *id != self.id);
    }
}

/// Milliseconds from a monotonic clock where there is one.
fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or_else(js_sys::Date::now, |p| p.now())
}

/// Waits `ms` in short slices, unless the run is cancelled first.
async fn sleep(ms: u64, cancel: &Cancel) -> Result<(), TransportError> {
    let end = now_ms() + ms as f64;
    loop {
        if cancel.is_cancelled() {
            return Err(TransportError::Cancelled);
        }
        let left = end - now_ms();
        if left <= 0.0 {
            return Ok(());
        }
        gloo::timers::future::TimeoutFuture::new(left.min(50.0).ceil() as u32).await;
    }
}

/// `fetch` of the window or of the worker this runs in.
fn fetch(request: &web_sys::Request) -> Result<js_sys::Promise, TransportError> {
    let global = js_sys::global();
    if let Some(window) = global.dyn_ref::<web_sys::Window>() {
        return Ok(window.fetch_with_request(request));
    }
    if let Some(worker) = global.dyn_ref::<web_sys::WorkerGlobalScope>() {
        return Ok(worker.fetch_with_request(request));
    }
    Err(TransportError::Network("this page cannot make requests (no fetch)".into()))
}

fn js_text(value: &wasm_bindgen::JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| format!("{}: {}", e.name(), e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// Builds the `fetch` request of an [`HttpRequest`].
fn build(request: &HttpRequest, controller: &AbortController) -> Result<web_sys::Request, TransportError> {
    let bad = |e: wasm_bindgen::JsValue| TransportError::Network(format!("bad request: {}", js_text(&e)));
    let headers = Headers::new().map_err(bad)?;
    for (name, value) in &request.headers {
        headers.set(name, value).map_err(bad)?;
    }
    let init = RequestInit::new();
    init.set_method(request.method.as_str());
    init.set_mode(RequestMode::Cors);
    init.set_headers(&headers);
    init.set_signal(Some(&controller.signal()));
    if let Some(body) = &request.body {
        init.set_body(&wasm_bindgen::JsValue::from_str(body));
    }
    web_sys::Request::new_with_str_and_init(&request.url, &init).map_err(bad)
}

/// Sends one request; times out after the request's timeout; aborts on cancel.
pub async fn send(request: &HttpRequest, cancel: &Cancel) -> Result<HttpResponse, TransportError> {
    if cancel.is_cancelled() {
        return Err(TransportError::Cancelled);
    }
    let controller = AbortController::new().map_err(|e| TransportError::Network(js_text(&e)))?;
    let fetch_request = build(request, &controller)?;
    let _in_flight = cancel.register(controller.clone());
    let timed_out = Rc::new(Cell::new(false));
    let _timer = {
        let (controller, timed_out) = (controller.clone(), timed_out.clone());
        let ms = u32::try_from(request.timeout_ms).unwrap_or(u32::MAX);
        gloo::timers::callback::Timeout::new(ms, move || {
            timed_out.set(true);
            controller.abort();
        })
    };
    let result = async {
        let response: Response =
            JsFuture::from(fetch(&fetch_request)?).await.map_err(not_sent)?.unchecked_into();
        let header = |name: &str| response.headers().get(name).ok().flatten();
        let (retry_after, location) = (header("retry-after"), header("location"));
        let text = response.text().map_err(failed)?;
        let body = JsFuture::from(text).await.map_err(failed)?.as_string().unwrap_or_default();
        Ok(HttpResponse { status: response.status(), retry_after, location, body })
    }
    .await;
    result.map_err(|e| match e {
        _ if cancel.is_cancelled() => TransportError::Cancelled,
        _ if timed_out.get() => TransportError::Timeout,
        other => other,
    })
}

/// A rejected `fetch`. Its `TypeError` is the browser's network failure: nothing answered
/// (or CORS or mixed content hid the answer), which retrying will not change, so it counts as
/// unreachable; an abort (Stop, the timeout) is sorted out by the caller.
fn not_sent(e: wasm_bindgen::JsValue) -> TransportError {
    match failed(e.clone()) {
        TransportError::Network(message) if e.is_instance_of::<js_sys::TypeError>() => {
            TransportError::Unreachable(message)
        }
        other => other,
    }
}

/// A failed request or body read: the browser does not say whether the server was down,
/// refused this origin (CORS) or was blocked as mixed content, so the message names all three.
fn failed(e: wasm_bindgen::JsValue) -> TransportError {
    TransportError::Network(format!(
        "the browser could not complete the request ({}): the server is down, or it does not allow \
         this page's origin (CORS: Access-Control-Allow-Origin), or this page is https and the \
         endpoint plain http on another machine (mixed content)",
        js_text(&e)
    ))
}

/// Runs an exchange to its end; also returns the wall time of its last fresh attempt in ms.
pub async fn drive<T>(
    exchange: &mut dyn Exchange<Output = T>,
    cancel: &Cancel,
) -> (Result<T, CallError>, f64) {
    let mut step = Step::Send { request: exchange.start(), delay_ms: 0, retry: true };
    let mut started = now_ms();
    loop {
        match step {
            Step::Done(result) => return (result, now_ms() - started),
            Step::Send { request, delay_ms, retry } => {
                let outcome = match sleep(delay_ms, cancel).await {
                    Ok(()) => {
                        if retry {
                            started = now_ms();
                        }
                        send(&request, cancel).await
                    }
                    Err(e) => Err(e),
                };
                step = match outcome {
                    Ok(response) => exchange.on_response(response),
                    Err(error) => exchange.on_failure(error),
                };
            }
        }
    }
}

/// Connects to a configured endpoint (A2A: reads the agent card).
pub async fn connect(config: &EndpointConfig, cancel: &Cancel) -> Result<Client, CallError> {
    match config {
        EndpointConfig::Openai(c) => Ok(Client::OpenAi(c.clone())),
        EndpointConfig::A2a(c) => {
            let (result, _) = drive(&mut c.card_exchange(), cancel).await;
            result
                .map(Client::A2a)
                .map_err(|e| CallError { message: scrub(&e.message, c.bearer.as_deref()), ..e })
        }
    }
}

/// One agent call with the conversation so far.
pub async fn call(
    client: &Client,
    messages: &[Message],
    message_id: &str,
    cancel: &Cancel,
) -> Result<AgentReply, AgentError> {
    let mut exchange = client.exchange(messages, message_id);
    match drive(exchange.as_mut(), cancel).await {
        (Ok(reply), latency_ms) => Ok(AgentReply { latency_ms: Some(latency_ms), ..reply }),
        (Err(e), _) => Err(client.failure(e, cancel.flag())),
    }
}
