//! Ratings: a Glicko-2 rating per player, ruleset and player count, from the final ranks of rated
//! tables, with the bots `tenka arena` rates on the same ladder.
//!
//! A player is an account (`account:<id>`) or a bot level (`bot:<level>`). A rated table is
//! timed (a table that can wait for ever could be held hostage by its loser) and counts only if
//! every seat made for a person is attached to an account, each to a different one, when it
//! ends; bots' seats count as their level. A person's seat that a bot plays when the game ends
//! (its clock ran out, or its player left it to a bot) ranks last, below every other seat.
//!
//! Several players at a table are rated as one Glicko-2 rating period per game: each player is
//! compared with every other one (a win against each seat ranked below, a loss against each
//! ranked above, a draw with a shared place), against the ratings everyone had before the game.
//! The same comparison with many seats is what the ratings of larger tables rest on elsewhere
//! (Board Game Arena rates by final rank against every opponent); it needs no model of teams,
//! and a two-player game is plain Glicko-2. The arithmetic is the `skillratings` crate's
//! `glicko2_rating_period` (Glickman's paper, tau 0.5).
//!
//! A game's result is applied once: the transaction that applies it first sets its
//! `rated_games.rated_at`, with an update conditional on it being unset, so a second server
//! process, a restart or the periodic sweep that catches games a crash left unrated changes
//! nothing.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Json;
use axum::extract::State;
use sdk::{GameResult, Viewer};
use serde::Deserialize;
use serde_json::{Value, json};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};
use sqlx::Row as _;

use crate::AppState;
use crate::error::{AppError, AppQuery, AppResult};
use crate::games::{Hub, LiveGame};
use crate::storage::{DatabaseKind, Storage, StoredSeat, now_millis};

/// The key a bot level's rating is kept under.
pub fn bot_player(level: &str) -> String {
    format!("bot:{level}")
}

/// The key an account's rating is kept under.
pub fn account_player(account_id: &str) -> String {
    format!("account:{account_id}")
}

/// One player's place in a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finisher {
    /// `account:<id>` or `bot:<level>`.
    pub player: String,
    /// 1 for the winner; shared places share a rank.
    pub rank: u32,
}

/// A rating as stored and shown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The Glicko-2 rating (1500 to start).
    pub glicko: Glicko2Rating,
    /// Rated games played.
    pub games: i64,
}

impl Default for Rating {
    fn default() -> Self {
        Rating {
            glicko: Glicko2Rating::new(),
            games: 0,
        }
    }
}

/// The ratings after one game: every finisher compared with every other (see the module's
/// comment), against the ratings before it. A player who sat in several seats (two bots of one
/// level) gets one rating period with all its seats' comparisons, and is never compared with
/// itself. `before` holds each player's rating; a player missing from it starts at 1500.
pub fn after_game(
    before: &HashMap<String, Rating>,
    finishers: &[Finisher],
) -> BTreeMap<String, Rating> {
    let config = Glicko2Config::new();
    let rating_of = |player: &str| before.get(player).copied().unwrap_or_default();
    let mut results: BTreeMap<&str, Vec<(Glicko2Rating, Outcomes)>> = BTreeMap::new();
    for mine in finishers {
        let mut compared = Vec::new();
        for theirs in finishers.iter().filter(|other| other.player != mine.player) {
            let outcome = match mine.rank.cmp(&theirs.rank) {
                std::cmp::Ordering::Less => Outcomes::WIN,
                std::cmp::Ordering::Greater => Outcomes::LOSS,
                std::cmp::Ordering::Equal => Outcomes::DRAW,
            };
            compared.push((rating_of(&theirs.player).glicko, outcome));
        }
        results.entry(&mine.player).or_default().extend(compared);
    }
    results
        .into_iter()
        .map(|(player, compared)| {
            let old = rating_of(player);
            let glicko = if compared.is_empty() {
                old.glicko
            } else {
                glicko2_rating_period(&old.glicko, &compared, &config)
            };
            (
                player.to_owned(),
                Rating {
                    glicko,
                    games: old.games + 1,
                },
            )
        })
        .collect()
}

/// The ranks a rated game counts: the ruleset's placings, with every seat in `replaced` (a
/// person's seat a bot played at the end) below all the others, sharing last place.
pub fn counted_ranks(result: &GameResult, replaced: &[u32]) -> Vec<(u32, u32)> {
    let last = result
        .placings
        .iter()
        .filter(|placing| !replaced.contains(&placing.seat))
        .map(|placing| placing.rank)
        .max()
        .unwrap_or(0)
        + 1;
    result
        .placings
        .iter()
        .map(|placing| {
            let rank = if replaced.contains(&placing.seat) {
                last
            } else {
                placing.rank
            };
            (placing.seat, rank)
        })
        .collect()
}

/// Who each seat counts as at the end of a rated game, or why the game cannot count.
/// `accounts` are the seats attached to accounts (seat, account id).
pub fn seat_players(
    seats: &[StoredSeat],
    accounts: &[(u32, String)],
) -> Result<Vec<(u32, String, bool)>, String> {
    let mut players = Vec::with_capacity(seats.len());
    for seat in seats {
        if seat.kind == "bot" {
            let level = seat.bot.as_deref().unwrap_or("normal");
            players.push((seat.seat, bot_player(level), false));
            continue;
        }
        let Some((_, account)) = accounts.iter().find(|(number, _)| *number == seat.seat) else {
            return Err(format!("unrated: seat {} has no account", seat.seat + 1));
        };
        let player = account_player(account);
        if players.iter().any(|(_, other, _)| other == &player) {
            return Err("unrated: one account played two seats".to_owned());
        }
        players.push((seat.seat, player, seat.bot.is_some()));
    }
    Ok(players)
}

/// Records that a new table is rated (in the table's creation request, after the game is
/// stored).
pub async fn register(
    storage: &Storage,
    game_id: &str,
    ruleset: &str,
    players: u32,
) -> anyhow::Result<()> {
    sqlx::query(
        "INSERT INTO rated_games (game_id, ruleset_id, players) VALUES ($1, $2, $3) \
         ON CONFLICT (game_id) DO NOTHING",
    )
    .bind(game_id)
    .bind(ruleset)
    .bind(i64::from(players))
    .execute(storage.pool())
    .await
    .context("failed to store a rated table")?;
    Ok(())
}

/// Whether a game is a rated table.
pub async fn is_rated(storage: &Storage, game_id: &str) -> anyhow::Result<bool> {
    let row = sqlx::query("SELECT 1 FROM rated_games WHERE game_id = $1")
        .bind(game_id)
        .fetch_optional(storage.pool())
        .await
        .context("failed to read a rated table")?;
    Ok(row.is_some())
}

/// A rated game's outcome (`rated` or why not), once applied.
pub async fn outcome(storage: &Storage, game_id: &str) -> anyhow::Result<Option<String>> {
    let row = sqlx::query("SELECT outcome FROM rated_games WHERE game_id = $1")
        .bind(game_id)
        .fetch_optional(storage.pool())
        .await
        .context("failed to read a rated table")?;
    Ok(row.and_then(|row| row.try_get::<Option<String>, _>(0).ok().flatten()))
}

/// Applies one game's finishers to the ladder of `ruleset` and `players` in one transaction.
/// With `game_id`, only if that rated game was not applied yet (then `false` and nothing
/// changes); `outcome` is what its row records. Without (the arena's games), always.
pub async fn apply(
    storage: &Storage,
    ruleset: &str,
    players: u32,
    finishers: &[Finisher],
    game_id: Option<(&str, &str)>,
) -> anyhow::Result<bool> {
    let now = now_millis();
    let mut tx = storage.pool().begin().await?;
    // The claim first: it is the write that orders this transaction after any other one
    // rating the same game (SQLite takes its write lock here; PostgreSQL locks the row, and the
    // second claimer finds it set once the first commits).
    if let Some((id, outcome)) = game_id {
        let claimed = sqlx::query(
            "UPDATE rated_games SET rated_at = $1, outcome = $2 \
             WHERE game_id = $3 AND rated_at IS NULL",
        )
        .bind(now)
        .bind(outcome)
        .bind(id)
        .execute(&mut *tx)
        .await
        .context("failed to claim a rated game")?
        .rows_affected();
        if claimed != 1 {
            return Ok(false);
        }
    }
    let ladder_players = i64::from(players);
    let mut keys: Vec<&str> = finishers.iter().map(|f| f.player.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    // Every player's row exists before it is read, and is read locked in one order on
    // PostgreSQL, so two games ending at once with a player in common never lose an update.
    let read = match storage.kind() {
        DatabaseKind::Postgres => {
            "SELECT rating, deviation, volatility, games FROM ratings \
             WHERE ruleset_id = $1 AND players = $2 AND player = $3 FOR UPDATE"
        }
        // SQLite has one writer at a time: the first write of this transaction (the claim,
        // or the insert just above) already holds the write lock.
        DatabaseKind::Sqlite => {
            "SELECT rating, deviation, volatility, games FROM ratings \
             WHERE ruleset_id = $1 AND players = $2 AND player = $3"
        }
    };
    let fresh = Glicko2Rating::new();
    let mut before = HashMap::new();
    for key in &keys {
        sqlx::query(
            "INSERT INTO ratings (ruleset_id, players, player, rating, deviation, volatility, \
             games, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 0, $7) \
             ON CONFLICT (ruleset_id, players, player) DO NOTHING",
        )
        .bind(ruleset)
        .bind(ladder_players)
        .bind(*key)
        .bind(fresh.rating)
        .bind(fresh.deviation)
        .bind(fresh.volatility)
        .bind(now)
        .execute(&mut *tx)
        .await
        .context("failed to start a rating")?;
        let row = sqlx::query(read)
            .bind(ruleset)
            .bind(ladder_players)
            .bind(*key)
            .fetch_one(&mut *tx)
            .await
            .context("failed to read a rating")?;
        before.insert(
            (*key).to_owned(),
            Rating {
                glicko: Glicko2Rating {
                    rating: row.try_get(0)?,
                    deviation: row.try_get(1)?,
                    volatility: row.try_get(2)?,
                },
                games: row.try_get(3)?,
            },
        );
    }
    for (player, rating) in after_game(&before, finishers) {
        sqlx::query(
            "UPDATE ratings SET rating = $1, deviation = $2, volatility = $3, games = $4, \
             updated_at = $5 WHERE ruleset_id = $6 AND players = $7 AND player = $8",
        )
        .bind(rating.glicko.rating)
        .bind(rating.glicko.deviation)
        .bind(rating.glicko.volatility)
        .bind(rating.games)
        .bind(now)
        .bind(ruleset)
        .bind(ladder_players)
        .bind(&player)
        .execute(&mut *tx)
        .await
        .context("failed to store a rating")?;
    }
    tx.commit().await.context("failed to commit ratings")?;
    Ok(true)
}

/// Marks a rated game as not counted (`why`), once; `false` if it was applied already.
async fn mark_unrated(storage: &Storage, game_id: &str, why: &str) -> anyhow::Result<bool> {
    let marked = sqlx::query(
        "UPDATE rated_games SET rated_at = $1, outcome = $2 WHERE game_id = $3 AND rated_at IS NULL",
    )
    .bind(now_millis())
    .bind(why)
    .bind(game_id)
    .execute(storage.pool())
    .await
    .context("failed to mark a game unrated")?
    .rows_affected();
    Ok(marked == 1)
}

/// The seats of a game attached to accounts.
async fn attached_accounts(storage: &Storage, game_id: &str) -> anyhow::Result<Vec<(u32, String)>> {
    let rows = sqlx::query("SELECT seat, account_id FROM account_seats WHERE game_id = $1")
        .bind(game_id)
        .fetch_all(storage.pool())
        .await
        .context("failed to read a game's accounts")?;
    rows.iter()
        .map(|row| {
            let seat: i64 = row.try_get(0)?;
            Ok((u32::try_from(seat).unwrap_or(u32::MAX), row.try_get(1)?))
        })
        .collect()
}

/// Rates a finished game if it is a rated table not rated yet; true if this call rated it (or
/// marked it as not counting).
pub async fn rate_finished(hub: &Arc<Hub>, game: &Arc<LiveGame>) -> anyhow::Result<bool> {
    let storage = hub.storage();
    let row =
        sqlx::query("SELECT ruleset_id, players, rated_at FROM rated_games WHERE game_id = $1")
            .bind(game.id())
            .fetch_optional(storage.pool())
            .await
            .context("failed to read a rated table")?;
    let Some(row) = row else { return Ok(false) };
    if row.try_get::<Option<i64>, _>(2)?.is_some() || !game.standing().finished {
        return Ok(false);
    }
    let ruleset: String = row.try_get(0)?;
    let players = u32::try_from(row.try_get::<i64, _>(1)?).unwrap_or(0);
    // The seats as stored now: the bots that hold people's seats at the end are in them.
    let seats = storage.seats(game.id()).await?;
    let accounts = attached_accounts(storage, game.id()).await?;
    let seat_players = match seat_players(&seats, &accounts) {
        Ok(found) => found,
        Err(why) => {
            tracing::info!("game {}: {why}", game.id());
            return mark_unrated(storage, game.id(), &why).await;
        }
    };
    let view = hub
        .view(game, Viewer::Spectator)
        .await
        .map_err(|error| anyhow::anyhow!("{error}"))?;
    let Some(result) = &view.result else {
        return mark_unrated(storage, game.id(), "unrated: the game has no result").await;
    };
    let replaced: Vec<u32> = (seat_players.iter())
        .filter(|(_, _, replaced)| *replaced)
        .map(|(seat, _, _)| *seat)
        .collect();
    let finishers: Vec<Finisher> = counted_ranks(result, &replaced)
        .into_iter()
        .filter_map(|(seat, rank)| {
            let (_, player, _) = seat_players.iter().find(|(number, _, _)| *number == seat)?;
            Some(Finisher {
                player: player.clone(),
                rank,
            })
        })
        .collect();
    apply(
        storage,
        &ruleset,
        players,
        &finishers,
        Some((game.id(), "rated")),
    )
    .await
}

/// Rates `game` in a task of its own (called once, where a move finishes a game).
pub fn game_finished(hub: Arc<Hub>, game: Arc<LiveGame>) {
    tokio::spawn(async move {
        if let Err(error) = rate_finished(&hub, &game).await {
            tracing::warn!(
                "game {}: rating failed (the sweep tries again): {error:#}",
                game.id()
            );
        }
    });
}

/// Rates every finished rated game not rated yet: those a crash or another process left.
pub async fn sweep(hub: &Arc<Hub>) -> anyhow::Result<usize> {
    let rows = sqlx::query(
        "SELECT rated_games.game_id FROM rated_games JOIN games ON games.id = rated_games.game_id \
         WHERE rated_games.rated_at IS NULL AND games.finished_at IS NOT NULL LIMIT 500",
    )
    .fetch_all(hub.storage().pool())
    .await
    .context("failed to list unrated games")?;
    let mut rated = 0;
    for row in rows {
        let id: String = row.try_get(0)?;
        match hub.game(&id).await {
            Ok(game) => match rate_finished(hub, &game).await {
                Ok(true) => rated += 1,
                Ok(false) => {}
                Err(error) => tracing::warn!("game {id}: rating failed: {error:#}"),
            },
            Err(error) => tracing::warn!("game {id}: rating: {error}"),
        }
    }
    Ok(rated)
}

/// Sweeps at start and then every minute.
pub fn spawn_sweeper(hub: Arc<Hub>) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(Duration::from_secs(60));
        loop {
            ticks.tick().await;
            if let Err(error) = sweep(&hub).await {
                tracing::warn!("rating sweep: {error:#}");
            }
        }
    });
}

/// The most rows a leaderboard lists.
pub const LEADERBOARD_ROWS: i64 = 200;

/// `GET /api/ratings` query: one ladder, or (without both) the list of ladders.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderQuery {
    /// The ruleset's id.
    #[serde(default)]
    pub ruleset: Option<String>,
    /// The player count.
    #[serde(default)]
    pub players: Option<u32>,
}

/// `GET /api/ratings`: without a query, the ladders there are (ruleset, player count, how many
/// are rated); with `ruleset` and `players`, that ladder best first, accounts by name and bots
/// by level. A rating is shown with its deviation: a new player's rating says little yet.
pub async fn leaderboard(
    State(state): State<AppState>,
    AppQuery(query): AppQuery<LadderQuery>,
) -> AppResult<Json<Value>> {
    let storage = state.hub.storage();
    let (ruleset, players) = match (query.ruleset, query.players) {
        (Some(ruleset), Some(players)) => (ruleset, players),
        (None, None) => {
            let rows = sqlx::query(
                "SELECT ruleset_id, players, COUNT(*) FROM ratings WHERE games > 0 \
                 GROUP BY ruleset_id, players ORDER BY ruleset_id, players",
            )
            .fetch_all(storage.pool())
            .await
            .context("failed to list ladders")?;
            let ladders = rows
                .iter()
                .map(|row| {
                    Ok(json!({
                        "ruleset": row.try_get::<String, _>(0)?,
                        "players": row.try_get::<i64, _>(1)?,
                        "rated": row.try_get::<i64, _>(2)?,
                    }))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            return Ok(Json(json!({ "ladders": ladders })));
        }
        _ => {
            return Err(AppError::BadRequest(
                "give both `ruleset` and `players`, or neither for the list of ladders".to_owned(),
            ));
        }
    };
    if ruleset.is_empty() || ruleset.len() > 64 || !(1..=64).contains(&players) {
        return Err(AppError::BadRequest(
            "`ruleset` has 1 to 64 characters and `players` is 1 to 64".to_owned(),
        ));
    }
    let rows = sqlx::query(
        "SELECT ratings.player, accounts.name, ratings.rating, ratings.deviation, ratings.games \
         FROM ratings LEFT JOIN accounts ON ratings.player = 'account:' || accounts.id \
         WHERE ratings.ruleset_id = $1 AND ratings.players = $2 AND ratings.games > 0 \
         ORDER BY ratings.rating DESC, ratings.player LIMIT $3",
    )
    .bind(&ruleset)
    .bind(i64::from(players))
    .bind(LEADERBOARD_ROWS)
    .fetch_all(storage.pool())
    .await
    .context("failed to read a ladder")?;
    let entries = rows
        .iter()
        .map(|row| {
            let player: String = row.try_get(0)?;
            let (kind, name) = match player.strip_prefix("bot:") {
                Some(level) => ("bot", level.to_owned()),
                None => (
                    "account",
                    row.try_get::<Option<String>, _>(1)?.unwrap_or_default(),
                ),
            };
            let rating: f64 = row.try_get(2)?;
            let deviation: f64 = row.try_get(3)?;
            Ok(json!({
                "kind": kind,
                "name": name,
                "rating": rating.round(),
                "deviation": deviation.round(),
                "games": row.try_get::<i64, _>(4)?,
            }))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Json(json!({
        "ruleset": ruleset,
        "players": players,
        "entries": entries,
    })))
}

/// Describes the ratings and recap routes in the OpenAPI document.
pub fn add_to_openapi(document: &mut Value) {
    let error = |description: &str| json!({ "description": description, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } });
    let answer = |description: &str, schema: Value| json!({ "description": description, "content": { "application/json": { "schema": schema } } });
    let game_id = json!({ "name": "id", "in": "path", "required": true, "description": "The game's id.", "schema": { "type": "string" } });
    let seat_token = json!([{ "seatToken": [] }]);
    let paths = &mut document["paths"];
    paths["/api/ratings"] = json!({ "get": {
        "summary": "Without a query, the ladders there are (ruleset, player count, how many are rated); with `ruleset` and `players`, that ladder best first (at most 200), accounts by name and bot levels by level.",
        "parameters": [
            { "name": "ruleset", "in": "query", "required": false, "schema": { "type": "string", "minLength": 1, "maxLength": 64 } },
            { "name": "players", "in": "query", "required": false, "schema": { "type": "integer", "minimum": 1, "maximum": 64 } }
        ],
        "responses": {
            "200": answer("The ladders, or one ladder.", json!({ "type": "object", "properties": {
                "ladders": { "type": "array", "items": { "type": "object", "properties": { "ruleset": { "type": "string" }, "players": { "type": "integer" }, "rated": { "type": "integer" } } } },
                "entries": { "type": "array", "items": { "type": "object", "required": ["kind", "name", "rating", "deviation", "games"], "properties": {
                    "kind": { "enum": ["account", "bot"] }, "name": { "type": "string" },
                    "rating": { "type": "number", "description": "Glicko-2, 1500 to start." },
                    "deviation": { "type": "number", "description": "The rating's deviation: 350 for a new player." },
                    "games": { "type": "integer" }
                }}}
            }})),
            "400": error("Only one of `ruleset` and `players`, or a value out of bounds.")
        }
    }});
    paths["/api/games/{id}/recap"] = json!({ "get": {
        "summary": "Since the seat's last own action (a bot's move for it does not count): the log entries as the seat's live log showed them.",
        "parameters": [game_id.clone()],
        "security": seat_token.clone(),
        "responses": {
            "200": answer("The recap.", json!({ "type": "object", "required": ["seat", "since", "version", "entries"], "properties": {
                "seat": { "type": "integer" }, "since": { "type": "integer", "description": "The version of the seat's last own action (0: none yet)." },
                "version": { "type": "integer" },
                "entries": { "type": "array", "items": { "$ref": "#/components/schemas/LogEntry" } }
            }})),
            "403": error("No seat token, or a wrong one."),
            "404": error("No such game.")
        }
    }});
    paths["/api/games/{id}/recap/board"] = json!({ "get": {
        "summary": "The seat's own view and board after the first `at` actions, for `at` from its last own action to the current version.",
        "parameters": [game_id, { "name": "at", "in": "query", "required": true, "schema": { "type": "integer", "minimum": 0 } }],
        "security": seat_token,
        "responses": {
            "200": answer("The board then.", json!({ "type": "object", "required": ["version", "seat", "state", "parts"], "properties": {
                "version": { "type": "integer" }, "seat": { "type": "integer" },
                "state": { "description": "The ruleset's view for the seat then." },
                "parts": { "type": "array", "items": { "type": "object" } }
            }})),
            "400": error("`at` before the seat's last own action or past the current version."),
            "403": error("No seat token, or a wrong one."),
            "404": error("No such game.")
        }
    }});
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finisher(player: &str, rank: u32) -> Finisher {
        Finisher {
            player: player.to_owned(),
            rank,
        }
    }

    /// Glickman's worked example (glicko2.pdf, section "Example calculation"): a player of
    /// 1500 (RD 200) beats 1400 (RD 30) and loses to 1550 (RD 100) and 1700 (RD 300), and ends
    /// at 1464.06 (RD 151.52, volatility 0.05999).
    #[test]
    fn glickmans_worked_example() {
        let player = Glicko2Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = glicko2_rating_period(
            &player,
            &[
                (opponent(1400.0, 30.0), Outcomes::WIN),
                (opponent(1550.0, 100.0), Outcomes::LOSS),
                (opponent(1700.0, 300.0), Outcomes::LOSS),
            ],
            &Glicko2Config::new(),
        );
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn a_winner_gains_and_the_last_loses_most() {
        let after = after_game(
            &HashMap::new(),
            &[finisher("a", 1), finisher("b", 2), finisher("c", 3)],
        );
        let rating = |player: &str| after[player].glicko.rating;
        assert!(rating("a") > 1500.0);
        assert!(
            (rating("b") - 1500.0).abs() < 1e-6,
            "the middle of equals stays"
        );
        assert!(rating("c") < 1500.0);
        assert!(after.values().all(|rating| rating.games == 1));
    }

    #[test]
    fn a_shared_place_is_a_draw() {
        let after = after_game(&HashMap::new(), &[finisher("a", 1), finisher("b", 1)]);
        assert!((after["a"].glicko.rating - 1500.0).abs() < 1e-6);
        assert!(after["a"].glicko.deviation < 350.0);
    }

    #[test]
    fn two_seats_of_one_bot_are_one_rating_period_never_against_itself() {
        let after = after_game(
            &HashMap::new(),
            &[
                finisher("bot:hard", 1),
                finisher("bot:hard", 2),
                finisher("a", 3),
            ],
        );
        assert_eq!(after.len(), 2);
        assert!(after["bot:hard"].glicko.rating > 1500.0);
        assert_eq!(after["bot:hard"].games, 1);
    }

    #[test]
    fn a_replaced_seat_ranks_last_below_every_other() {
        let result = GameResult {
            placings: [(0, 1), (1, 2), (2, 3)]
                .into_iter()
                .map(|(seat, rank)| sdk::Placing {
                    seat,
                    rank,
                    score: 0,
                    tie_breaks: Vec::new(),
                })
                .collect(),
            breakdown: Vec::new(),
            summary: sdk::Message::new(""),
        };
        assert_eq!(counted_ranks(&result, &[0]), vec![(0, 4), (1, 2), (2, 3)]);
        assert_eq!(counted_ranks(&result, &[]), vec![(0, 1), (1, 2), (2, 3)]);
    }

    fn seat(number: u32, kind: &str, bot: Option<&str>) -> StoredSeat {
        StoredSeat {
            seat: number,
            kind: kind.to_owned(),
            name: String::new(),
            token_hash: None,
            bot: bot.map(str::to_owned),
            claimed: true,
        }
    }

    #[test]
    fn every_person_needs_an_account_of_their_own() {
        let seats = [
            seat(0, "human", None),
            seat(1, "human", Some("hard")),
            seat(2, "bot", Some("easy")),
        ];
        let players = seat_players(&seats, &[(0, "x".into()), (1, "y".into())]).unwrap();
        assert_eq!(
            players,
            vec![
                (0, "account:x".to_owned(), false),
                (1, "account:y".to_owned(), true),
                (2, "bot:easy".to_owned(), false)
            ]
        );
        assert!(seat_players(&seats, &[(0, "x".into())]).is_err());
        assert!(seat_players(&seats, &[(0, "x".into()), (1, "x".into())]).is_err());
    }
}
