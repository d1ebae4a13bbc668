//! What the live-games layer answers when something fails. It knows nothing of HTTP: the API's
//! `error.rs` is the one place that turns a [`GameError`] into a status code and a body.

use sdk::Rejection;
use tenka_game::session::SessionError;
use tenka_runtime::CallError;

/// Why a live game could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// No such game or ruleset.
    #[error("{0}")]
    NotFound(String),
    /// The question cannot name anything (a language tag that is none, a version the game never
    /// had).
    #[error("{0}")]
    Invalid(String),
    /// The answer would reveal secrets of a game still running.
    #[error("{0}")]
    NotYet(String),
    /// The action was made against an older version of the game.
    #[error("the game has moved on to version {version}; fetch the view and try again")]
    Stale {
        /// The game's current version.
        version: u64,
    },
    /// The ruleset refused the action; nothing changed.
    #[error("{0}")]
    Rejected(Rejection),
    /// The request would go past a limit on what one caller may run (games of bots alone).
    #[error("{0}")]
    Conflict(String),
    /// The game could not be started with this setup.
    #[error("{0}")]
    Setup(String),
    /// The game was started on a ruleset version this server has neither loaded nor kept.
    #[error("{0}")]
    Unavailable(String),
    /// The server holds as many games as it may.
    #[error("{0}")]
    Busy(String),
    /// The ruleset's code failed, or the host had no room to run it.
    #[error("{0}")]
    Ruleset(CallError),
    /// A fault of the server (storage, a task lost); it may carry a ruleset's typed failure met
    /// on the way (loading a game), which the HTTP layer still answers as that failure.
    #[error("{0:#}")]
    Internal(#[from] anyhow::Error),
}

/// The result of the live-games layer.
pub type LiveResult<T> = Result<T, GameError>;

impl GameError {
    /// A session error as the live-games layer answers it, and whether the session is still good.
    pub fn from_session(error: SessionError) -> (GameError, bool) {
        match error {
            SessionError::Rejected(rejection) => (GameError::Rejected(rejection), true),
            SessionError::Setup(error) => (GameError::Setup(error.to_string()), true),
            // The runtime recovers a session after a failed call, but a game that just failed is
            // rebuilt from storage to be sure it matches what is stored; except when the host was
            // only full (the game is fine) or the game is failed for good (it answers its failure
            // at once, and rebuilding it again and again would only replay the ruleset in a
            // storm).
            SessionError::Capacity(full) => (GameError::Ruleset(CallError::Capacity(full)), true),
            SessionError::Failed(failure) => {
                let keep = failure.game_failed;
                (GameError::Ruleset(CallError::Failed(failure)), keep)
            }
            // The caller's own data did not fit the game (stored options, a snapshot of another
            // version): nothing a client did; rebuild from storage.
            SessionError::Mismatch(what) => (GameError::Internal(anyhow::anyhow!(what)), false),
        }
    }
}

impl From<SessionError> for GameError {
    fn from(error: SessionError) -> Self {
        GameError::from_session(error).0
    }
}
