//! Moving the server's clock on, for tests only: `tenka serve --test-clock` reads the time of its
//! table clocks and mails through a [`ShiftedClock`] and takes `POST /api/test/clock` with the
//! operator token, so a browser test plays a turn-based table across days in seconds. Without
//! the flag (the default) the route answers 404 as if it did not exist, and the clock is the
//! system's; the flag needs an operator token, so nobody else may move a test server's clock.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::asking::Operator;
use crate::clocks::ShiftedClock;
use crate::error::{AppError, AppJson, AppResult};

/// The most one request moves the clock on: thirty days.
pub const MAX_ADVANCE_SECONDS: u64 = 30 * 86_400;

/// The server's movable clock, when `--test-clock` gave it one; else the request is refused as
/// a route that does not exist.
pub struct TestClock(Arc<ShiftedClock>);

impl FromRequestParts<AppState> for TestClock {
    type Rejection = AppError;

    async fn from_request_parts(_parts: &mut Parts, state: &AppState) -> AppResult<Self> {
        state
            .config
            .test_clock
            .clone()
            .map(TestClock)
            .ok_or_else(|| AppError::NotFound("no such route".to_owned()))
    }
}

/// `POST /api/test/clock` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Advance {
    /// How far to move the clock on, in seconds (1 to [`MAX_ADVANCE_SECONDS`]).
    pub seconds: u64,
}

/// `POST /api/test/clock`: moves the clock on; every table clock due fires and every mail due is
/// sent. Answers the time the clock shows now (ms since the Unix epoch).
pub async fn advance(
    TestClock(clock): TestClock,
    _operator: Operator,
    AppJson(request): AppJson<Advance>,
) -> AppResult<Json<Value>> {
    if !(1..=MAX_ADVANCE_SECONDS).contains(&request.seconds) {
        return Err(AppError::BadRequest(format!(
            "`seconds` must be from 1 to {MAX_ADVANCE_SECONDS}, not {}",
            request.seconds
        )));
    }
    let now = clock.advance(Duration::from_secs(request.seconds));
    tracing::info!("the test clock moved on by {} s", request.seconds);
    Ok(Json(json!({ "now": now })))
}
