//! The library's error type. Every message is one clear line meant for a person: the CLI prints
//! it as is, the web app shows it beside the field that caused it.

/// Errors that cross the boundary between the library and its surfaces.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A query id that does not follow `app-vN-Lk-sSEED-iINDEX[-knobs]`.
    #[error("bad query id {id:?}: {reason}")]
    BadId { id: String, reason: String },
    #[error("unknown application {0:?} (known: {1})")]
    UnknownApp(String, String),
    #[error("unknown generator version v{version} for {app} (this build has v{current})")]
    UnknownVersion { app: String, version: u32, current: u32 },
    #[error("{app} has no level {level} (levels: {levels})")]
    BadLevel { app: String, level: u8, levels: String },
    #[error("bad knob {knob:?} for {app}: {reason}")]
    BadKnob { app: String, knob: String, reason: String },
    /// A generator failed to find a valid task within its attempt budget.
    #[error("generation exhausted for {0}: no valid task within the attempt budget")]
    GenerationExhausted(String),
    /// Malformed input: a results line, an imported file, a pasted answer's envelope.
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    pub fn bad_id(id: &str, reason: impl Into<String>) -> Self {
        Error::BadId { id: id.to_string(), reason: reason.into() }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
