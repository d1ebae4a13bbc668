//! "Since your last move": what a seat missed while away, as its own log and board showed it.
//!
//! `GET /api/games/{id}/recap` gives the log entries after the seat's last own action (one a bot
//! chose for it does not count: the person did not see it), each filtered for the seat as the
//! live log is; `GET /api/games/{id}/recap/board?at=N` gives the seat's own view and board after
//! the first N actions, for each step from that last action to now. Both take the seat's token,
//! as every game route does, and both come from the seat's own view: the events through the
//! same filter as `/log`, the boards from a replay asked for this seat alone, never from the
//! full record. A past view of the seat is what its live view showed at that version, so it
//! tells the seat nothing it was not shown then.

use anyhow::Context as _;
use axum::Json;
use axum::extract::State;
use sdk::{Seat, Viewer};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::asking::Acting;
use crate::error::{AppError, AppQuery, AppResult};
use crate::ruleset_calls as calls;
use crate::storage::StoredAction;

/// The version of `seat`'s last own action among `actions` (0 if it has none yet).
pub fn last_own_action(actions: &[StoredAction], seat: Seat) -> u64 {
    actions
        .iter()
        .filter(|action| action.seat == seat && action.bot.is_none())
        .map(|action| action.seq)
        .max()
        .unwrap_or(0)
}

/// `GET /api/games/{id}/recap`: the seat's log since its last own action.
pub async fn recap(
    State(state): State<AppState>,
    Acting { game, seat }: Acting,
) -> AppResult<Json<Value>> {
    // The current view first: it loads the game and says which version is current.
    let current = state.hub.view(&game, Viewer::Seat(seat)).await?.version;
    let actions = state.hub.storage().actions_since(game.id(), 0).await?;
    let since = last_own_action(&actions, seat).min(current);
    let entries = actions
        .iter()
        .filter(|action| action.seq > since && action.seq <= current)
        .map(|action| crate::api::log_entry(action, Viewer::Seat(seat)))
        .collect::<AppResult<Vec<_>>>()?;
    Ok(Json(json!({
        "seat": seat,
        "since": since,
        "version": current,
        "entries": entries,
    })))
}

/// `GET /api/games/{id}/recap/board` query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardQuery {
    /// The board after this many actions: from the seat's last own action to now.
    pub at: u64,
}

/// `GET /api/games/{id}/recap/board?at=N`: the seat's view and board after the first `at`
/// actions, for `at` from its last own action to the current version.
pub async fn board(
    State(state): State<AppState>,
    AppQuery(query): AppQuery<BoardQuery>,
    Acting { game, seat }: Acting,
) -> AppResult<Json<Value>> {
    let current = state.hub.view(&game, Viewer::Seat(seat)).await?.version;
    let mut actions = state.hub.storage().actions_since(game.id(), 0).await?;
    let since = last_own_action(&actions, seat).min(current);
    if !(since..=current).contains(&query.at) {
        return Err(AppError::BadRequest(format!(
            "the recap shows the boards from version {since} to {current}, not {}",
            query.at
        )));
    }
    actions.truncate(actions.partition_point(|action| action.seq <= query.at));
    let ruleset = game.ruleset.clone();
    let stored = game.stored.clone();
    let seats = game.seats().len() as u32;
    let viewer = Viewer::Seat(seat);
    // On a session of its own, in a call slot: the live game is not held meanwhile.
    let computed = state
        .hub
        .call_slots()
        .run(move || {
            let mut past =
                calls::start_session(&ruleset, &stored, seats).map_err(calls::into_anyhow)?;
            for action in &actions {
                calls::replay_action(&mut past, action)?;
            }
            let view = past.view(viewer).map_err(calls::into_anyhow)?;
            let parts = past.render(viewer).map_err(calls::into_anyhow)?;
            anyhow::Ok((view, parts))
        })
        .await?
        .context("replaying the game for a recap failed")?;
    let (view, parts) = computed;
    Ok(Json(json!({
        "version": query.at,
        "seat": seat,
        "state": calls::view_json(view),
        "parts": parts,
    })))
}
