//! A move, whichever door it came through: who holds a seat (by the digest of its token) and
//! what a seat's move answers. `POST /api/games/{id}/actions` (`api.rs`) and the move socket
//! (`socket.rs`) both call `act`; neither imports the other.

use std::sync::Arc;

use sdk::{Action, Event, Seat, Viewer};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{AppError, AppResult};
use super::games::LiveGame;
use super::storage::DatabaseKind;

/// The seat whose current token has this digest.
pub(super) fn seat_with_token_hash(game: &LiveGame, hash: &str) -> Option<Seat> {
    game.seats()
        .iter()
        .find(|seat| seat.token_hash.as_deref() == Some(hash))
        .map(|seat| seat.seat)
}

/// The seat whose current token has this digest. With several server processes (PostgreSQL)
/// the database decides, not this process's copy of the seats: a token replaced through another
/// process stops working here at once, even if the notification of the change is late or lost
/// (and the copy is then brought up to date, which also ends streams opened with the old token).
pub(super) async fn seat_for_token_hash(
    state: &AppState,
    game: &Arc<LiveGame>,
    hash: &str,
) -> AppResult<Option<Seat>> {
    let remembered = seat_with_token_hash(game, hash);
    if state.hub.storage().kind() != DatabaseKind::Postgres {
        return Ok(remembered);
    }
    let stored = state
        .hub
        .storage()
        .seat_of_token_hash(game.id(), hash)
        .await?;
    if stored != remembered {
        state.hub.reload_seats(game).await?;
    }
    Ok(stored)
}

/// The seat whose current token has the digest `hash` ([`seat_for_token_hash`]); a token of
/// no seat of this game is refused.
pub(super) async fn seat_holding(
    state: &AppState,
    game: &Arc<LiveGame>,
    hash: &str,
) -> AppResult<Seat> {
    seat_for_token_hash(state, game, hash)
        .await?
        .ok_or_else(|| AppError::Forbidden("this token belongs to no seat of this game".to_owned()))
}

/// `POST /api/games/{id}/actions` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubmitAction {
    /// The version the player saw when choosing.
    pub version: u64,
    /// The answer to the seat's pending decision.
    pub action: Action,
}

/// The events `viewer` may see, as log text.
pub(super) fn visible_events(events: &[Event], viewer: Viewer) -> Vec<Value> {
    events
        .iter()
        .filter(|event| event.audience.includes(viewer))
        .map(|event| json!({ "text": event.text, "drops": event.drops, "summary": event.summary }))
        .collect()
}

/// A move of `seat` (whose token was checked) in `game`: the answer to `POST .../actions` and to
/// a move on the move socket, `{"version", "events"}`.
pub(super) async fn act(
    state: &AppState,
    game: &Arc<LiveGame>,
    seat: Seat,
    request: SubmitAction,
) -> AppResult<Value> {
    if game
        .seats()
        .iter()
        .any(|stored| stored.seat == seat && stored.bot.is_some())
    {
        return Err(AppError::Forbidden(
            "a bot plays this seat now; take it back first".to_owned(),
        ));
    }
    let submitted = state
        .hub
        .submit(game, seat, request.version, request.action)
        .await?;
    Ok(json!({
        "version": submitted.version,
        "events": visible_events(&submitted.events, Viewer::Seat(seat)),
    }))
}
