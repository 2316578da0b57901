//! The protocol's errors: an OpenEnv `WSErrorCode` refined by a `reason`, with a message for a
//! person. Every transport sends the same three fields; HTTP also picks its status from them.

use serde::Serialize;

/// The error class, spelled as OpenEnv's `WSErrorCode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    InvalidJson,
    UnknownType,
    ValidationError,
    SessionError,
    CapacityReached,
    ExecutionError,
}

/// What exactly went wrong, within a [`Code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Reason {
    /// `INVALID_JSON`: the message is not JSON (or not a JSON object).
    NotJson,
    /// `INVALID_JSON`: the message is not UTF-8.
    NotUtf8,
    /// `UNKNOWN_TYPE`.
    UnknownType,
    BadId,
    UnknownApp,
    BadLevel,
    BadKnob,
    UnknownField,
    MissingField,
    TaskAndApp,
    /// A field of the right name with a value out of range or of the wrong type
    /// (`max_turns`, `variant`, `reward`, `episode_id`, …).
    BadValue,
    /// The application runs agent code in a sandbox, which this process does not host.
    SandboxedApp,
    ReplyTooLarge,
    BodyTooLarge,
    UnknownSession,
    NoEpisodeId,
    Sessions,
    SandboxBusy,
    Panic,
    Timeout,
}

impl Reason {
    /// The code a reason belongs to.
    pub fn code(self) -> Code {
        use Reason::*;
        match self {
            NotJson | NotUtf8 => Code::InvalidJson,
            UnknownType => Code::UnknownType,
            BadId | UnknownApp | BadLevel | BadKnob | UnknownField | MissingField | TaskAndApp | BadValue
            | SandboxedApp | ReplyTooLarge | BodyTooLarge => Code::ValidationError,
            UnknownSession | NoEpisodeId => Code::SessionError,
            Sessions | SandboxBusy => Code::CapacityReached,
            Panic | Timeout => Code::ExecutionError,
        }
    }
}

/// One error of the protocol: `{"code", "reason", "message"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct EnvError {
    pub code: Code,
    pub reason: Reason,
    pub message: String,
}

impl EnvError {
    pub fn new(reason: Reason, message: impl Into<String>) -> Self {
        EnvError { code: reason.code(), reason, message: message.into() }
    }

    /// The HTTP status of this error.
    pub fn http_status(&self) -> u16 {
        match self.reason {
            Reason::ReplyTooLarge | Reason::BodyTooLarge => 413,
            Reason::Timeout => 504,
            _ => match self.code {
                Code::InvalidJson | Code::UnknownType => 400,
                Code::ValidationError => 422,
                Code::SessionError => 404,
                Code::CapacityReached => 503,
                Code::ExecutionError => 500,
            },
        }
    }

    /// A serde error of a typed message, sorted into the reason it means.
    pub fn from_serde(what: &str, e: &serde_json::Error) -> Self {
        let text = e.to_string();
        let reason = if text.starts_with("unknown field") {
            Reason::UnknownField
        } else if text.starts_with("missing field") {
            Reason::MissingField
        } else {
            Reason::BadValue
        };
        EnvError::new(reason, format!("{what}: {text}"))
    }

    /// A library error from resolving a task, sorted into its reason.
    pub fn from_library(e: &crate::Error) -> Self {
        use crate::Error as E;
        let reason = match e {
            E::UnknownApp(..) => Reason::UnknownApp,
            E::BadLevel { .. } => Reason::BadLevel,
            E::BadKnob { .. } => Reason::BadKnob,
            E::BadId { .. } | E::UnknownVersion { .. } | E::GenerationExhausted(_) | E::Invalid(_) => {
                Reason::BadId
            }
        };
        EnvError::new(reason, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_codes() {
        let cases = [
            (Reason::NotUtf8, 400),
            (Reason::UnknownType, 400),
            (Reason::UnknownField, 422),
            (Reason::BodyTooLarge, 413),
            (Reason::ReplyTooLarge, 413),
            (Reason::NoEpisodeId, 404),
            (Reason::Sessions, 503),
            (Reason::Panic, 500),
            (Reason::Timeout, 504),
        ];
        for (reason, status) in cases {
            assert_eq!(EnvError::new(reason, "x").http_status(), status, "{reason:?}");
        }
        let v = serde_json::to_value(EnvError::new(Reason::BadKnob, "m")).unwrap();
        assert_eq!(v, serde_json::json!({"code": "VALIDATION_ERROR", "reason": "BAD_KNOB", "message": "m"}));
    }
}
