//! One error type for every handler, so every failure has the same JSON shape:
//! `{ "error": "<machine-code>", "message": "<plain English>" }`.

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};

/// What went wrong while answering a request.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The request is malformed (bad JSON, a missing field, an impossible value).
    #[error("{0}")]
    BadRequest(String),
    /// No such game, ruleset, map or seat.
    #[error("{0}")]
    NotFound(String),
    /// The caller's token does not allow this.
    #[error("{0}")]
    Forbidden(String),
    /// The action was made against an older version of the game.
    #[error("the game has moved on to version {version}; fetch the view and try again")]
    Stale {
        /// The game's current version.
        version: u64,
    },
    /// The ruleset refused the action; nothing changed.
    #[error("{message}")]
    Rejected {
        /// The refusal in plain English.
        message: String,
        /// The ruleset's refusal, as the contract shapes it.
        rejection: Value,
    },
    /// The request is well formed but the game's state forbids it now (a claimed seat's invite,
    /// say).
    #[error("{0}")]
    Conflict(String),
    /// The game could not be created with this setup (bad map, options or seat count).
    #[error("{0}")]
    Setup(String),
    /// A map text the ruleset's `validate-map` finds errors in; nothing was stored.
    #[error("{message}")]
    InvalidMap {
        /// The refusal in plain English.
        message: String,
        /// Every finding, as the map editor shows them.
        diagnostics: Value,
    },
    /// The game was started on a ruleset version this server has neither loaded nor kept.
    #[error("{0}")]
    Unavailable(String),
    /// The body is larger than the server accepts.
    #[error("the request body is too large (the limit is 64 KiB)")]
    PayloadTooLarge,
    /// The body did not arrive within the given number of seconds.
    #[error("the request body did not arrive within {0} s")]
    SlowBody(u64),
    /// The body is not JSON.
    #[error("expected a body with `Content-Type: application/json`")]
    UnsupportedMediaType,
    /// The ruleset's code failed (ran out of fuel or time, hit its memory limit, panicked, or
    /// returned too much); the game is as it was. The message names the call and the limit, in
    /// the host's words; the details stay in the log.
    #[error("{0}")]
    RulesetFailed(String),
    /// The server is at its capacity for live games or ruleset instances, or took too long to
    /// answer; try again later.
    #[error("{0}")]
    Busy(String),
    /// The client sent more requests than its rate allows; nothing was done.
    #[error("too many requests; try again in {retry_after} s")]
    RateLimited {
        /// Seconds to wait before the next request.
        retry_after: u64,
    },
    /// The client's address holds as many event streams and move sockets open as it may.
    #[error(
        "this address has too many event streams and move sockets open; close one and try again"
    )]
    TooManyStreams,
    /// The client's address already runs as many variant-lab jobs as it may; nothing was done.
    #[error("{0}")]
    TooManyJobs(String),
    /// A fault of the server; the details are logged, never shown.
    #[error("internal error: {0:#}")]
    Internal(anyhow::Error),
}

impl AppError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad-request"),
            AppError::NotFound(_) => (StatusCode::NOT_FOUND, "not-found"),
            AppError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            AppError::Stale { .. } => (StatusCode::CONFLICT, "stale"),
            AppError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            AppError::Rejected { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "rejected"),
            AppError::Setup(_) => (StatusCode::UNPROCESSABLE_ENTITY, "bad-setup"),
            AppError::InvalidMap { .. } => (StatusCode::UNPROCESSABLE_ENTITY, "invalid-map"),
            AppError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "ruleset-unavailable"),
            AppError::PayloadTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "payload-too-large"),
            AppError::SlowBody(_) => (StatusCode::REQUEST_TIMEOUT, "request-timeout"),
            AppError::UnsupportedMediaType => {
                (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type")
            }
            AppError::RulesetFailed(_) => (StatusCode::INTERNAL_SERVER_ERROR, "ruleset-failed"),
            AppError::Busy(_) => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
            AppError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "rate-limited"),
            AppError::TooManyStreams => (StatusCode::TOO_MANY_REQUESTS, "too-many-streams"),
            AppError::TooManyJobs(_) => (StatusCode::TOO_MANY_REQUESTS, "too-many-jobs"),
            AppError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }
}

impl AppError {
    /// A failed ruleset call as the client sees it: the host's account of which call failed
    /// and which limit stopped it (never a backtrace, and never the ruleset's own words: a
    /// panic's message stays in the log), or "busy" when the host had no room for an instance.
    pub fn ruleset_failed(error: &anyhow::Error) -> AppError {
        use tenka_runtime::failure::{capacity_exhausted, failure_of};
        tracing::warn!("{error:#}");
        if let Some(full) = capacity_exhausted(error) {
            return AppError::Busy(full.to_string());
        }
        let Some(failure) = failure_of(error) else {
            let account = error.to_string();
            let first_line = account.lines().next().unwrap_or("the ruleset failed");
            return AppError::RulesetFailed(first_line.chars().take(300).collect());
        };
        AppError::failure(failure)
    }

    /// A failed ruleset call, typed: "busy" when the host was full, else the failure.
    pub fn call_failed(error: &tenka_runtime::CallError) -> AppError {
        match error {
            tenka_runtime::CallError::Capacity(full) => {
                tracing::warn!("{full}");
                AppError::Busy(full.to_string())
            }
            tenka_runtime::CallError::Failed(failure) => {
                tracing::warn!("{failure}");
                AppError::failure(failure)
            }
        }
    }

    /// A ruleset's failure as the client sees it (a panic's message stays in the log).
    fn failure(failure: &tenka_runtime::RulesetFailure) -> AppError {
        use tenka_runtime::failure::FailureCause;
        let cause = match &failure.cause {
            FailureCause::Panic { .. } => "it panicked".to_owned(),
            other => other.to_string(),
        };
        let mut message = format!(
            "ruleset `{}` failed in `{}`: {cause}",
            failure.ruleset, failure.call
        );
        if failure.game_failed {
            message.push_str("; the game could not be rebuilt and is marked failed");
        }
        AppError::RulesetFailed(message.chars().take(300).collect())
    }
}

impl From<anyhow::Error> for AppError {
    /// A failure on the way (loading a game, catching up) that carries a ruleset's typed failure
    /// is answered as that failure; anything else is internal.
    fn from(error: anyhow::Error) -> Self {
        use tenka_runtime::failure::{capacity_exhausted, failure_of};
        if failure_of(&error).is_some() || capacity_exhausted(&error).is_some() {
            AppError::ruleset_failed(&error)
        } else {
            AppError::Internal(error)
        }
    }
}

impl From<crate::games::GameError> for AppError {
    /// The live games' failures as the API answers them: the one place they meet HTTP.
    fn from(error: crate::games::GameError) -> Self {
        use crate::games::GameError;
        match error {
            GameError::NotFound(message) => AppError::NotFound(message),
            GameError::Invalid(message) => AppError::BadRequest(message),
            GameError::NotYet(message) => AppError::Forbidden(message),
            GameError::Stale { version } => AppError::Stale { version },
            GameError::Rejected(rejection) => AppError::Rejected {
                message: rejection.to_string(),
                rejection: serde_json::to_value(&rejection).unwrap_or(Value::Null),
            },
            GameError::Conflict(message) => AppError::Conflict(message),
            GameError::Setup(message) => AppError::Setup(message),
            GameError::Unavailable(message) => AppError::Unavailable(message),
            GameError::Busy(message) => AppError::Busy(message),
            GameError::Ruleset(error) => AppError::call_failed(&error),
            GameError::Internal(error) => AppError::from(error),
        }
    }
}

impl From<sqlx::Error> for AppError {
    fn from(error: sqlx::Error) -> Self {
        AppError::Internal(anyhow::Error::new(error).context("database error"))
    }
}

impl AppError {
    /// The status and JSON body that tell a client about this error.
    pub fn status_and_body(&self) -> (StatusCode, Value) {
        let (status, code) = self.status_and_code();
        let body = match self {
            AppError::Internal(error) => {
                // Internal details may name files or ruleset internals: log them, show nothing.
                tracing::error!("internal error: {error:#}");
                json!({ "error": code, "message": "internal server error" })
            }
            AppError::Stale { version } => {
                json!({ "error": code, "message": self.to_string(), "version": version })
            }
            AppError::Rejected { rejection, .. } => {
                json!({ "error": code, "message": self.to_string(), "rejection": rejection })
            }
            AppError::InvalidMap { diagnostics, .. } => json!({
                "error": code,
                "message": self.to_string(),
                "diagnostics": diagnostics,
            }),
            AppError::RateLimited { retry_after } => json!({
                "error": code,
                "message": self.to_string(),
                "retry_after": retry_after,
            }),
            _ => json!({ "error": code, "message": self.to_string() }),
        };
        (status, body)
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, body) = self.status_and_body();
        if let AppError::TooManyStreams = self {
            return (
                status,
                [(axum::http::header::RETRY_AFTER, "5".to_owned())],
                Json(body),
            )
                .into_response();
        }
        if let AppError::RateLimited { retry_after } = self {
            return (
                status,
                [(axum::http::header::RETRY_AFTER, retry_after.to_string())],
                Json(body),
            )
                .into_response();
        }
        (status, Json(body)).into_response()
    }
}

impl From<JsonRejection> for AppError {
    fn from(rejection: JsonRejection) -> Self {
        match rejection.status() {
            StatusCode::PAYLOAD_TOO_LARGE => AppError::PayloadTooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => AppError::UnsupportedMediaType,
            _ => AppError::BadRequest(rejection.body_text()),
        }
    }
}

/// `Json` whose rejections become [`AppError`]s, so a malformed body gets the same error shape
/// as every other failure.
#[derive(Debug, Clone, Copy, Default, FromRequest)]
#[from_request(via(axum::Json), rejection(AppError))]
pub struct AppJson<T>(pub T);

impl<T: Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        Json(self.0).into_response()
    }
}

impl From<QueryRejection> for AppError {
    fn from(rejection: QueryRejection) -> Self {
        AppError::BadRequest(rejection.body_text())
    }
}

impl From<PathRejection> for AppError {
    fn from(rejection: PathRejection) -> Self {
        AppError::BadRequest(rejection.body_text())
    }
}

/// `Query` whose rejections become [`AppError`]s (`?since=abc` gets the JSON error shape).
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(AppError))]
pub struct AppQuery<T>(pub T);

/// `Path` whose rejections become [`AppError`]s (`/seats/abc/bot` gets the JSON error shape).
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(AppError))]
pub struct AppPath<T>(pub T);

/// The result type of handlers.
pub type AppResult<T> = Result<T, AppError>;
