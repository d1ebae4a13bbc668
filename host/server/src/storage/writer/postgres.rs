//! PostgreSQL's writer: a task on the server's pool. A batch is a handful of statements, each
//! one round trip: the new games, then all the actions in one statement, the snapshots in one
//! and the ends of games in one, in one transaction when there is more than one statement.

use std::collections::HashSet;

use anyhow::Context as _;
use sqlx::{AnyPool, Row};
use tokio::sync::mpsc;

use super::{ActionWrite, Batch, CommitCounters, Done, GameWrite, MAX_BATCH, SnapshotWrite, Write};

/// One statement stores a whole batch of actions, given as one JSON array of rows: one round
/// trip. A row whose `(game, sequence)` is taken already is left out and not returned, so a
/// conflict answers its own action and no other.
macro_rules! batch_insert {
    () => {
        "INSERT INTO actions (game_id, seq, seat, action_json, events_json, tower_json, \
         created_at, bot) \
         SELECT value->>0, (value->>1)::bigint, (value->>2)::bigint, value->>3, value->>4, \
         value->>5, (value->>6)::bigint, value->>7 \
         FROM json_array_elements($1::json) \
         ON CONFLICT (game_id, seq) DO NOTHING RETURNING game_id, seq"
    };
}

/// Stores what `queue` brings, batch by batch, until every sender is gone.
pub(in crate::storage) async fn write_batches(
    pool: AnyPool,
    mut queue: mpsc::UnboundedReceiver<Write>,
    counters: std::sync::Arc<CommitCounters>,
) {
    let mut writes = Vec::with_capacity(MAX_BATCH);
    while queue.recv_many(&mut writes, MAX_BATCH).await > 0 {
        let batch = Batch::sort(writes.drain(..));
        let outcome = commit_batch(&pool, &batch).await;
        batch.answer(outcome, &counters);
    }
}

/// Runs a batch's statements, in one transaction when there is more than one, and commits: what
/// each part came to, or the error that failed them all (no connection, a failed commit).
async fn commit_batch(pool: &AnyPool, batch: &Batch) -> anyhow::Result<Done> {
    // Actions that carry a clock are two statements (the actions, then their clocks), which
    // must be stored together.
    let timed = batch.actions.iter().any(|write| write.clock.is_some());
    let statements = usize::from(!batch.games.is_empty()) * 2
        + usize::from(!batch.actions.is_empty()) * (1 + usize::from(timed))
        + usize::from(!batch.snapshots.is_empty());
    let transaction = statements > 1;
    let mut connection = pool.acquire().await.context("no database connection")?;
    if transaction {
        sqlx::query("BEGIN").execute(&mut *connection).await?;
    }
    let games_done = if batch.games.is_empty() {
        Ok(())
    } else {
        store_games(&mut connection, &batch.games)
            .await
            .map_err(Into::into)
    };
    let actions_done = if batch.actions.is_empty() {
        Ok(HashSet::new())
    } else {
        store_actions(&mut connection, &batch.actions)
            .await
            .map_err(Into::into)
    };
    let snapshots_done = if batch.snapshots.is_empty() {
        Ok(())
    } else {
        store_snapshots(&mut connection, &batch.snapshots)
            .await
            .map_err(Into::into)
    };
    if transaction {
        // A failed statement aborts a PostgreSQL transaction, and its COMMIT then rolls back
        // without an error: whatever ran before it is not stored either.
        let failed = [
            games_done.as_ref().err(),
            actions_done.as_ref().err(),
            snapshots_done.as_ref().err(),
        ]
        .into_iter()
        .flatten()
        .next()
        .cloned();
        if let Some(error) = failed {
            let _ = sqlx::query("ROLLBACK").execute(&mut *connection).await;
            return Err(anyhow::anyhow!("a batch was rolled back: {error:#}"));
        }
        if let Err(error) = sqlx::query("COMMIT").execute(&mut *connection).await {
            // Nothing of the batch is stored; the connection may be left mid-transaction.
            let _ = sqlx::query("ROLLBACK").execute(&mut *connection).await;
            connection.close_on_drop();
            return Err(anyhow::Error::new(error).context("failed to commit a batch"));
        }
    }
    Ok((games_done, actions_done, snapshots_done))
}

/// Stores new games with their seats and credentials (the caller's transaction makes them
/// appear together).
async fn store_games(tx: &mut sqlx::AnyConnection, games: &[GameWrite]) -> anyhow::Result<()> {
    for write in games {
        let (game, credentials) = (&write.game, &write.credentials);
        sqlx::query(
            "INSERT INTO games (id, ruleset_id, ruleset_hash, map_id, map_hash, map_toml, variant, \
             options_json, seed_hex, created_at, finished_at, host_token_hash) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $11)",
        )
        .bind(&game.id)
        .bind(&game.ruleset_id)
        .bind(&game.ruleset_hash)
        .bind(&game.map_id)
        .bind(&game.map_hash)
        .bind(&game.map_toml)
        .bind(&game.variant)
        .bind(&game.options_json)
        .bind(hex::encode(game.seed))
        .bind(game.created_at)
        .bind(&credentials.host_token_hash)
        .execute(&mut *tx)
        .await
        .context("failed to store the game")?;
        for seat in &write.seats {
            sqlx::query(
                "INSERT INTO seats (game_id, seat, kind, name, token_hash, bot, claimed) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(&game.id)
            .bind(i64::from(seat.seat))
            .bind(&seat.kind)
            .bind(&seat.name)
            .bind(&seat.token_hash)
            .bind(&seat.bot)
            .bind(i64::from(seat.claimed))
            .execute(&mut *tx)
            .await
            .context("failed to store a seat")?;
        }
        for (seat, code_hash) in &credentials.invites {
            sqlx::query(
                "INSERT INTO invites (game_id, seat, code_hash, created_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(&game.id)
            .bind(i64::from(*seat))
            .bind(code_hash)
            .bind(game.created_at)
            .execute(&mut *tx)
            .await
            .context("failed to store an invite")?;
        }
        if let Some(clock) = &write.clock {
            sqlx::query(
                "INSERT INTO clocks (game_id, pace_json, state_json, deadline, version) \
                 VALUES ($1, $2, $3, $4, 0)",
            )
            .bind(&game.id)
            .bind(&clock.pace_json)
            .bind(&clock.state_json)
            .bind(clock.deadline)
            .execute(&mut *tx)
            .await
            .context("failed to store a clock")?;
        }
    }
    Ok(())
}

/// Stores snapshots with one statement; one already stored (by another process) is kept.
async fn store_snapshots(
    connection: &mut sqlx::AnyConnection,
    snapshots: &[SnapshotWrite],
) -> anyhow::Result<()> {
    let rows: Vec<serde_json::Value> = snapshots
        .iter()
        .map(|write| serde_json::json!([write.game_id, write.seq, hex::encode(&write.bytes)]))
        .collect();
    let statement = "INSERT INTO snapshots (game_id, seq, bytes) \
         SELECT value->>0, (value->>1)::bigint, decode(value->>2, 'hex') \
         FROM json_array_elements($1::json) \
         ON CONFLICT (game_id, seq) DO NOTHING";
    sqlx::query(statement)
        .bind(serde_json::to_string(&rows).context("failed to encode snapshots")?)
        .execute(connection)
        .await
        .context("failed to store snapshots")?;
    Ok(())
}

/// Stores a batch of actions with one statement, then marks finished the games they end (a
/// second statement, only for actions stored: a conflict ends no game); returns the (game,
/// sequence) pairs it stored. The caller's transaction makes both appear together.
async fn store_actions(
    connection: &mut sqlx::AnyConnection,
    batch: &[ActionWrite],
) -> anyhow::Result<HashSet<(String, u64)>> {
    let rows: Vec<serde_json::Value> = batch
        .iter()
        .map(|write| {
            let action = &write.action;
            serde_json::json!([
                write.game_id,
                action.seq,
                action.seat,
                action.action_json,
                action.events_json,
                action.tower_json,
                write.created_at,
                action.bot,
            ])
        })
        .collect();
    let rows = serde_json::to_string(&rows).context("failed to encode actions")?;
    let statement = batch_insert!();
    let stored = sqlx::query(statement)
        .bind(rows)
        .fetch_all(&mut *connection)
        .await
        .context("failed to store actions")?;
    let stored = stored
        .iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get::<i64, _>(1)? as u64)))
        .collect::<anyhow::Result<HashSet<(String, u64)>>>()?;
    let is_stored =
        |write: &&ActionWrite| stored.contains(&(write.game_id.clone(), write.action.seq));
    let ended: Vec<(&str, i64)> = batch
        .iter()
        .filter(|write| write.ends_game)
        .filter(is_stored)
        .map(|write| (write.game_id.as_str(), write.created_at))
        .collect();
    if !ended.is_empty() {
        // A game marked finished already keeps its first time.
        let statement = "UPDATE games SET finished_at = (value->>1)::bigint \
             FROM json_array_elements($1::json) \
             WHERE games.id = value->>0 AND games.finished_at IS NULL";
        sqlx::query(statement)
            .bind(serde_json::to_string(&ended).context("failed to encode ended games")?)
            .execute(&mut *connection)
            .await
            .context("failed to mark games finished")?;
    }
    let clocks: Vec<(&str, &str, Option<i64>)> = batch
        .iter()
        .filter(is_stored)
        .filter_map(|write| {
            let clock = write.clock.as_ref()?;
            Some((
                write.game_id.as_str(),
                clock.state_json.as_str(),
                clock.deadline,
            ))
        })
        .collect();
    if !clocks.is_empty() {
        let statement = "UPDATE clocks SET state_json = value->>1, \
             deadline = (value->>2)::bigint, version = clocks.version + 1 \
             FROM json_array_elements($1::json) WHERE clocks.game_id = value->>0";
        sqlx::query(statement)
            .bind(serde_json::to_string(&clocks).context("failed to encode clocks")?)
            .execute(connection)
            .await
            .context("failed to store clocks")?;
    }
    Ok(stored)
}
