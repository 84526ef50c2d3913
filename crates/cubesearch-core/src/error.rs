//! One error type for the whole library. Every variant prints as one line that says what went wrong
//! and, where there is one, how to fix it; the CLI turns any of them into exit status 2.

/// What can go wrong in cubesearch.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Text that should have been a position, a move or an option could not be read.
    #[error("{0}")]
    Parse(String),
    /// A move that is well-formed but not legal in the position.
    #[error("illegal move {mv}: {why}")]
    IllegalMove {
        /// The move as typed.
        mv: String,
        /// Why it is not legal.
        why: String,
    },
    /// A backend was asked for but cannot start.
    #[error("backend {backend} is unavailable: {why}")]
    BackendUnavailable {
        /// `cpu`, `wgpu` or `cuda`.
        backend: &'static str,
        /// What the probe found.
        why: String,
    },
    /// The device accepted the work but failed while doing it.
    #[error("device error on {backend}: {why}")]
    Device {
        /// `wgpu` or `cuda`.
        backend: &'static str,
        /// The device's message.
        why: String,
    },
    /// A request the library does not offer (yet) for this game or backend.
    #[error("{0}")]
    Unsupported(String),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A data file (such as a weights file) was read but is corrupt, truncated, or made for
    /// something else (another game, other tuple shapes).
    #[error("{path}: {why}")]
    Data {
        /// The file.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// Work stopped on request (a signal, a stop command) after keeping what it had done; the
    /// message says where that is.
    #[error("{0}")]
    Interrupted(String),
}

/// `Result` with the cubesearch [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A parse error with the given message.
    pub fn parse(msg: impl Into<String>) -> Self {
        Error::Parse(msg.into())
    }
}
