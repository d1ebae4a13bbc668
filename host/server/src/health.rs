//! The operators' health figures: `GET /api/health` (JSON) and `GET /api/health/page` (the same
//! as a small page). Both read only counts and public game ids (which the lobby lists anyway),
//! so they need no operator token and a monitor can poll them; like every API request they are
//! rate-limited per client address.
//!
//! A table is **stalled** when the server, not a person, should have moved it on and has not:
//! - a timed game whose earliest clock deadline is more than [`LATE_CLOCK_MS`] past and not yet
//!   acted on (its timer should have handed the seat to a bot), or
//! - an unfinished game every seat of which a bot plays, with nothing stored for
//!   [`IDLE_BOTS_MS`] (bots move within seconds, and a game of bots alone finishes on its own).
//!
//! An untimed game waiting for a person is never stalled, however long it waits: its players
//! chose to have no clock. Those idle for [`IDLE_UNTIMED_MS`] are counted apart.

use std::fmt::Write as _;

use anyhow::Context as _;
use axum::Json;
use axum::extract::State;
use axum::response::Html;
use serde::Serialize;
use sqlx::Row as _;

use crate::AppState;
use crate::error::AppResult;
use crate::notices::store::mail_counts;
use crate::storage::{Storage, now_millis};

/// How long past its deadline a clock may go unfired before its table counts as stalled.
pub const LATE_CLOCK_MS: i64 = 60_000;

/// How long a game of bots alone may store nothing before it counts as stalled.
pub const IDLE_BOTS_MS: i64 = 10 * 60_000;

/// How long an untimed game may wait before it counts as idle.
pub const IDLE_UNTIMED_MS: i64 = 30 * 86_400_000;

/// The most stalled game ids listed.
const MAX_LISTED: i64 = 20;

/// The health figures.
#[derive(Clone, Debug, Serialize)]
pub struct Health {
    /// `ok`, or `attention` when some table is stalled.
    pub status: &'static str,
    /// When the figures were read (the table clocks' time).
    pub now: i64,
    /// Unfinished games.
    pub running: i64,
    /// Unfinished games by pace: `live`, `turn-based`, `untimed`.
    pub running_by_pace: Paces,
    /// Finished games with at least one person's seat, and how they finished.
    pub finished: Finished,
    /// Stalled tables (the goal is none).
    pub stalled: Stalled,
    /// Untimed games waiting for a person for [`IDLE_UNTIMED_MS`] or more (not stalled).
    pub idle_untimed: i64,
    /// Mails by state: `queued`, `sending`, `sent`, `failed`, `dropped`.
    pub mails: std::collections::BTreeMap<String, i64>,
}

/// Unfinished games by pace.
#[derive(Clone, Debug, Serialize)]
pub struct Paces {
    pub live: i64,
    #[serde(rename = "turn-based")]
    pub turn_based: i64,
    pub untimed: i64,
}

/// How the finished games with people finished.
#[derive(Clone, Debug, Serialize)]
pub struct Finished {
    /// Finished games with at least one person's seat.
    pub with_people: i64,
    /// Of those, every person's move made by the person (no seat ever handed to a bot).
    pub everyone_on_board: i64,
    /// Of those, some person's seat played by a bot at some point (left, or out of time).
    pub completed_by_a_bot: i64,
    /// `everyone_on_board / with_people`; none before any game finished.
    pub everyone_on_board_share: Option<f64>,
}

/// The stalled tables.
#[derive(Clone, Debug, Serialize)]
pub struct Stalled {
    /// All stalled tables.
    pub count: i64,
    /// Timed games whose deadline passed unfired.
    pub late_clocks: i64,
    /// Games of bots alone that stopped.
    pub idle_bots: i64,
    /// Up to 20 of their ids.
    pub games: Vec<String>,
}

/// The health queries are built from this module's own constants and numbers only.
fn trusted(sql: &str) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(sql.to_owned())
}

async fn count(storage: &Storage, sql: &str, binds: &[i64]) -> anyhow::Result<i64> {
    let mut query = sqlx::query(trusted(sql));
    for bind in binds {
        query = query.bind(*bind);
    }
    Ok(query
        .fetch_one(storage.pool())
        .await
        .with_context(|| format!("failed to count for the health page: {sql}"))?
        .try_get(0)?)
}

async fn ids(storage: &Storage, sql: &str, binds: &[i64]) -> anyhow::Result<Vec<String>> {
    let mut query = sqlx::query(trusted(sql));
    for bind in binds {
        query = query.bind(*bind);
    }
    let rows = query
        .fetch_all(storage.pool())
        .await
        .context("failed to list stalled games")?;
    rows.iter().map(|row| Ok(row.try_get(0)?)).collect()
}

/// Untimed games, as a condition on the game `g`.
const UNTIMED: &str = "NOT EXISTS (SELECT 1 FROM clocks c WHERE c.game_id = g.id)";

/// When the game `g` last changed.
const LAST_CHANGE: &str =
    "COALESCE((SELECT MAX(a.created_at) FROM actions a WHERE a.game_id = g.id), g.created_at)";

/// Reads the figures. `clock_now` is the table clocks' time (deadlines are on it); stored
/// actions carry the wall clock's.
pub async fn read(storage: &Storage, clock_now: i64) -> anyhow::Result<Health> {
    let wall_now = now_millis();
    let running = count(
        storage,
        "SELECT COUNT(*) FROM games WHERE finished_at IS NULL",
        &[],
    )
    .await?;
    let pace = |kind: &str| {
        format!(
            "SELECT COUNT(*) FROM clocks c JOIN games g ON g.id = c.game_id \
             WHERE g.finished_at IS NULL AND c.pace_json LIKE '%\"kind\":\"{kind}\"%'"
        )
    };
    let live = count(storage, &pace("live"), &[]).await?;
    let turn_based = count(storage, &pace("turn-based"), &[]).await?;
    let untimed = count(
        storage,
        &format!("SELECT COUNT(*) FROM games g WHERE g.finished_at IS NULL AND {UNTIMED}"),
        &[],
    )
    .await?;
    let with_people_sql = "g.finished_at IS NOT NULL AND EXISTS (SELECT 1 FROM seats s \
                           WHERE s.game_id = g.id AND s.kind = 'human')";
    let with_people = count(
        storage,
        &format!("SELECT COUNT(*) FROM games g WHERE {with_people_sql}"),
        &[],
    )
    .await?;
    let completed_by_a_bot = count(
        storage,
        &format!(
            "SELECT COUNT(*) FROM games g WHERE {with_people_sql} AND (EXISTS (SELECT 1 FROM \
             actions a JOIN seats s ON s.game_id = a.game_id AND s.seat = a.seat \
             WHERE a.game_id = g.id AND s.kind = 'human' AND a.bot IS NOT NULL) OR EXISTS \
             (SELECT 1 FROM seats s WHERE s.game_id = g.id AND s.kind = 'human' \
             AND s.bot IS NOT NULL))"
        ),
        &[],
    )
    .await?;
    let everyone_on_board = with_people - completed_by_a_bot;
    let late_sql = "FROM clocks c JOIN games g ON g.id = c.game_id WHERE g.finished_at IS NULL \
                    AND c.deadline IS NOT NULL AND c.deadline < $1";
    let late_before = clock_now - LATE_CLOCK_MS;
    let late_clocks = count(
        storage,
        &format!("SELECT COUNT(*) {late_sql}"),
        &[late_before],
    )
    .await?;
    let idle_sql = format!(
        "FROM games g WHERE g.finished_at IS NULL AND EXISTS (SELECT 1 FROM seats s WHERE \
         s.game_id = g.id) AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id AND \
         s.bot IS NULL) AND {LAST_CHANGE} < $1"
    );
    let idle_before = wall_now - IDLE_BOTS_MS;
    let idle_bots = count(
        storage,
        &format!("SELECT COUNT(*) {idle_sql}"),
        &[idle_before],
    )
    .await?;
    let mut games = ids(
        storage,
        &format!("SELECT g.id {late_sql} ORDER BY c.deadline LIMIT $2"),
        &[late_before, MAX_LISTED],
    )
    .await?;
    games.extend(
        ids(
            storage,
            &format!("SELECT g.id {idle_sql} ORDER BY g.id LIMIT $2"),
            &[idle_before, MAX_LISTED],
        )
        .await?,
    );
    games.truncate(MAX_LISTED as usize);
    let idle_untimed = count(
        storage,
        &format!(
            "SELECT COUNT(*) FROM games g WHERE g.finished_at IS NULL AND {UNTIMED} \
             AND {LAST_CHANGE} < $1"
        ),
        &[wall_now - IDLE_UNTIMED_MS],
    )
    .await?;
    let stalled = late_clocks + idle_bots;
    Ok(Health {
        status: if stalled == 0 { "ok" } else { "attention" },
        now: clock_now,
        running,
        running_by_pace: Paces {
            live,
            turn_based,
            untimed,
        },
        finished: Finished {
            with_people,
            everyone_on_board,
            completed_by_a_bot,
            everyone_on_board_share: (with_people > 0)
                .then(|| everyone_on_board as f64 / with_people as f64),
        },
        stalled: Stalled {
            count: stalled,
            late_clocks,
            idle_bots,
            games,
        },
        idle_untimed,
        mails: mail_counts(storage).await?,
    })
}

/// `GET /api/health`: the figures as JSON.
pub async fn health(State(state): State<AppState>) -> AppResult<Json<Health>> {
    Ok(Json(
        read(state.hub.storage(), state.hub.now_millis()).await?,
    ))
}

/// `GET /api/health/page`: the figures as a page for a person.
pub async fn page(State(state): State<AppState>) -> AppResult<Html<String>> {
    let health = read(state.hub.storage(), state.hub.now_millis()).await?;
    let share = health
        .finished
        .everyone_on_board_share
        .map_or("-".to_owned(), |share| format!("{:.1} %", share * 100.0));
    let mail = |state: &str| health.mails.get(state).copied().unwrap_or(0);
    let rows = [
        ("Status", health.status.to_owned()),
        ("Games running", health.running.to_string()),
        ("Live", health.running_by_pace.live.to_string()),
        ("Turn-based", health.running_by_pace.turn_based.to_string()),
        ("Untimed", health.running_by_pace.untimed.to_string()),
        (
            "Finished games with people",
            health.finished.with_people.to_string(),
        ),
        ("Finished with everyone on board", share),
        (
            "Completed by a bot",
            health.finished.completed_by_a_bot.to_string(),
        ),
        ("Stalled tables", health.stalled.count.to_string()),
        (
            "Untimed games idle 30 days",
            health.idle_untimed.to_string(),
        ),
        ("Mails queued", mail("queued").to_string()),
        ("Mails sent", mail("sent").to_string()),
        ("Mails failed", mail("failed").to_string()),
    ];
    let mut html = String::from(
        "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>Health - Tenka</title>\
         <main><h1>Server health</h1><table>",
    );
    for (name, value) in rows {
        let _ = write!(
            html,
            "<tr><th scope=\"row\">{name}</th><td>{value}</td></tr>"
        );
    }
    html.push_str("</table>");
    if !health.stalled.games.is_empty() {
        html.push_str("<h2>Stalled tables</h2><ul>");
        for game in &health.stalled.games {
            // Game ids are hex, made by the server.
            let _ = write!(html, "<li><a href=\"/#/game/{game}\">{game}</a></li>");
        }
        html.push_str("</ul>");
    }
    html.push_str("<p><a href=\"/api/health\">JSON</a></p></main></html>");
    Ok(Html(html))
}
