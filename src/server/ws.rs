//! WebSocket sessions: one per connection, messages `{type, data}` answered in order.

use std::sync::{Arc, Mutex};

use axum::extract::State as Axum;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use serde_json::{Map, Value};

use super::Shared;
use super::deadline;
use super::sessions::lock;
use crate::env::{self, Code, EnvError, Reason, Request, Session, guarded};

/// Close codes: going away (idle, shutdown), try again later (capacity).
const GOING_AWAY: u16 = 1001;
const TRY_AGAIN_LATER: u16 = 1013;

pub(super) async fn upgrade(Axum(state): Axum<Shared>, ws: WebSocketUpgrade) -> Response {
    // Twice the limit, so that a message a little too large is answered `BODY_TOO_LARGE`;
    // past that the socket layer closes the connection (1009).
    let max = state.config.limits.max_body.saturating_mul(2);
    ws.max_message_size(max).max_frame_size(max).on_upgrade(move |socket| connection(socket, state))
}

/// The connection's one session, counted while it lives. Shared with the blocking thread of
/// a step in flight, which may outlive its deadline (the slot is then cleared).
struct Slot<'a> {
    state: &'a Shared,
    session: Option<Arc<Mutex<Session>>>,
}

impl Slot<'_> {
    fn clear(&mut self) {
        if self.session.take().is_some() {
            self.state.sessions.release();
        }
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.clear();
    }
}

async fn connection(mut socket: WebSocket, state: Shared) {
    let mut slot = Slot { state: &state, session: None };
    let mut shutdown = state.shutdown.clone();
    loop {
        let received = tokio::select! {
            r = tokio::time::timeout(state.config.idle_timeout, socket.recv()) => r,
            _ = stopping(&mut shutdown) => {
                close(&mut socket, GOING_AWAY, "server shutting down").await;
                return;
            }
        };
        let bytes = match received {
            Err(_) => {
                close(&mut socket, GOING_AWAY, "idle timeout").await;
                return;
            }
            Ok(None | Some(Err(_))) => return,
            Ok(Some(Ok(message))) => match message {
                Message::Text(t) => t.as_str().as_bytes().to_vec(),
                Message::Binary(b) => b.to_vec(),
                Message::Close(_) => return,
                _ => continue,
            },
        };
        let (reply, then_close) = handle(&mut slot, &bytes).await;
        if socket.send(Message::Text(Value::Object(reply).to_string().into())).await.is_err() {
            return;
        }
        if let Some((code, reason)) = then_close {
            close(&mut socket, code, reason).await;
            return;
        }
    }
}

/// Resolves once the server is stopping (the guard `wait_for` returns is dropped here, so the
/// connection's future stays `Send`).
async fn stopping(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

async fn close(socket: &mut WebSocket, code: u16, reason: &'static str) {
    let _ = socket.send(Message::Close(Some(CloseFrame { code, reason: reason.into() }))).await;
}

type Closing = Option<(u16, &'static str)>;

/// One message: the reply, and the close to send after it (capacity, `close`).
async fn handle(slot: &mut Slot<'_>, bytes: &[u8]) -> (Map<String, Value>, Closing) {
    let parsed = env::parse(bytes, slot.state.config.limits.max_body, false);
    let served = match parsed.request {
        Ok(Request::Step(action)) => step(slot, action).await,
        Ok(request) => serve(slot, request),
        Err(e) => Err(e),
    };
    match served {
        Ok(reply) => reply,
        Err(e) if e.reason == Reason::Sessions => {
            (env::error_message(&e), Some((TRY_AGAIN_LATER, "capacity reached")))
        }
        Err(e) => (env::error_message(&e), None),
    }
}

fn serve(slot: &mut Slot, request: Request) -> Result<(Map<String, Value>, Closing), EnvError> {
    let state = slot.state;
    match request {
        Request::Reset(params) => {
            let resolved = guarded(|| state.resolve(&params))??;
            if slot.session.is_none() {
                state.sessions.reserve()?;
            }
            match guarded(|| Session::start(resolved, crate::cli::random_id)) {
                Ok((session, result)) => {
                    slot.session = Some(Arc::new(Mutex::new(session)));
                    Ok((env::observation(&result), None))
                }
                Err(e) => {
                    if slot.session.is_none() {
                        state.sessions.release();
                    }
                    Err(e)
                }
            }
        }
        Request::Step(_) => Err(EnvError::new(Reason::UnknownType, "steps are served by `step`")),
        Request::State => {
            Ok((env::state(&lock(slot.session.as_ref().ok_or_else(no_session)?).state()), None))
        }
        Request::Close => {
            let id = lock(slot.session.as_ref().ok_or_else(no_session)?).episode_id().to_string();
            slot.clear();
            Ok((env::closed(&id), Some((1000, "closed"))))
        }
        // Refused when parsing (stdio only); answered the same way should one get here.
        Request::Info | Request::Ping => {
            Err(EnvError::new(Reason::UnknownType, "info and ping are stdio only"))
        }
    }
}

/// One step on the blocking pool, within the step deadline; a panic or an overrun closes the
/// session, a refusal (`SANDBOX_BUSY`) leaves it as it was.
async fn step(slot: &mut Slot<'_>, action: env::Action) -> Result<(Map<String, Value>, Closing), EnvError> {
    let turn = action.into_turn()?;
    let session = slot.session.clone().ok_or_else(no_session)?;
    let state = slot.state.clone();
    let result = deadline::within(slot.state.config.step_deadline, move || {
        guarded(|| state.step(&mut lock(&session), turn)).and_then(|r| r)
    })
    .await
    .and_then(|r| r);
    match result {
        Ok(result) => Ok((env::observation(&result), None)),
        Err(e) => {
            // As over HTTP: only a panic or an overrun (unknown state) ends the session.
            if e.code == Code::ExecutionError {
                slot.clear();
            }
            Err(e)
        }
    }
}

fn no_session() -> EnvError {
    EnvError::new(Reason::UnknownSession, "this connection has no session: send reset first")
}
