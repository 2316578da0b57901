//! Endpoint answers never panic the clients: chat-completion bodies, A2A JSON-RPC answers and
//! agent cards, from arbitrary bytes.

use netpress::agent::a2a::{A2aConfig, interpret};
use netpress::agent::http::{Exchange, HttpResponse};
use netpress::agent::openai::parse_response;

pub fn fuzz(data: &[u8]) {
    let body = String::from_utf8_lossy(data).into_owned();
    let _ = parse_response(&body);
    let _ = interpret(&body);
    let _ = A2aConfig::new("http://h").card_exchange().on_response(HttpResponse {
        status: 200,
        body,
        ..Default::default()
    });
}
