//! SQLite's writer: a thread of its own with a connection of its own to the database file.
//!
//! Not a task on the server's pool because sqlx runs every SQLite connection on a worker thread
//! and each statement is a round trip to it (a message and a thread wake-up each way, one more
//! per row returned): a batch holding a few new games took a dozen such trips, and the one
//! writer became the bottleneck of the whole server. Here a statement is a function call on a
//! prepared statement kept in the connection's cache; what is left of hand-offs is the queue in
//! and one answer per write.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior, params};
use tokio::sync::mpsc;

use super::{ActionWrite, Batch, CommitCounters, Done, GameWrite, MAX_BATCH, SnapshotWrite, Write};

/// Opens the writer's connection to the (migrated, write-ahead-logged) database at `path`, with
/// the settings the server's pool uses.
pub(in crate::storage) fn open(path: &Path) -> anyhow::Result<Connection> {
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("failed to open {} for writing", path.display()))?;
    // Other connections write too (seats claimed, invites, tickets): wait for them a while.
    connection.busy_timeout(Duration::from_secs(5))?;
    // Every commit syncs the write-ahead log to disk before it returns, so a write answered as
    // stored survives a power cut.
    connection.pragma_update(None, "synchronous", "FULL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    Ok(connection)
}

/// Stores what `queue` brings, batch by batch, until every sender is gone. Runs on its own
/// thread: it blocks between batches and while committing.
pub(in crate::storage) fn write_batches(
    mut connection: Connection,
    mut queue: mpsc::UnboundedReceiver<Write>,
    counters: Arc<CommitCounters>,
) {
    let mut writes = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = queue.blocking_recv() {
        writes.push(first);
        while writes.len() < MAX_BATCH
            && let Ok(write) = queue.try_recv()
        {
            writes.push(write);
        }
        let batch = Batch::sort(writes.drain(..));
        let outcome = commit_batch(&mut connection, &batch);
        batch.answer(outcome, &counters);
    }
}

/// Stores a batch in one transaction: each part (games, actions, snapshots, ends) in a
/// savepoint, so a statement the database refuses undoes and fails its own part only; then one
/// commit, one sync. What each part came to, or the error that failed them all.
fn commit_batch(connection: &mut Connection, batch: &Batch) -> anyhow::Result<Done> {
    // Immediate: the write lock is taken at the start, so the batch never fails halfway for a
    // lock another connection holds (it waits for the busy timeout instead).
    let mut transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .context("failed to begin a batch")?;
    let games = part(&mut transaction, &batch.games, store_games, ());
    let actions = part(
        &mut transaction,
        &batch.actions,
        store_actions,
        HashSet::new(),
    );
    let snapshots = part(&mut transaction, &batch.snapshots, store_snapshots, ());
    // Dropped on failure, the transaction rolls back: nothing of the batch is stored.
    transaction.commit().context("failed to commit a batch")?;
    Ok((games, actions, snapshots))
}

/// Runs `store` on a part of the batch inside a savepoint; `empty` when there is nothing to do.
fn part<W, T>(
    transaction: &mut Transaction,
    writes: &[W],
    store: fn(&Connection, &[W]) -> anyhow::Result<T>,
    empty: T,
) -> Result<T, Arc<anyhow::Error>> {
    if writes.is_empty() {
        return Ok(empty);
    }
    let savepoint = transaction
        .savepoint()
        .context("failed to open a savepoint")?;
    // Dropped without a commit, the savepoint rolls back.
    let stored = store(&savepoint, writes)?;
    savepoint
        .commit()
        .context("failed to release a savepoint")?;
    Ok(stored)
}

/// Stores new games with their seats and credentials.
fn store_games(connection: &Connection, games: &[GameWrite]) -> anyhow::Result<()> {
    let mut insert_game = connection.prepare_cached(
        "INSERT INTO games (id, ruleset_id, ruleset_hash, map_id, map_hash, map_toml, variant, \
         options_json, seed_hex, created_at, finished_at, host_token_hash) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, NULL, ?11)",
    )?;
    let mut insert_seat = connection.prepare_cached(
        "INSERT INTO seats (game_id, seat, kind, name, token_hash, bot, claimed) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut insert_invite = connection.prepare_cached(
        "INSERT INTO invites (game_id, seat, code_hash, created_at) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for write in games {
        let (game, credentials) = (&write.game, &write.credentials);
        insert_game
            .execute(params![
                game.id,
                game.ruleset_id,
                game.ruleset_hash,
                game.map_id,
                game.map_hash,
                game.map_toml,
                game.variant,
                game.options_json,
                hex::encode(game.seed),
                game.created_at,
                credentials.host_token_hash,
            ])
            .context("failed to store the game")?;
        for seat in &write.seats {
            insert_seat
                .execute(params![
                    game.id,
                    seat.seat,
                    seat.kind,
                    seat.name,
                    seat.token_hash,
                    seat.bot,
                    i64::from(seat.claimed),
                ])
                .context("failed to store a seat")?;
        }
        for (seat, code_hash) in &credentials.invites {
            insert_invite
                .execute(params![game.id, seat, code_hash, game.created_at])
                .context("failed to store an invite")?;
        }
        if let Some(clock) = &write.clock {
            connection
                .prepare_cached(
                    "INSERT INTO clocks (game_id, pace_json, state_json, deadline, version) \
                     VALUES (?1, ?2, ?3, ?4, 0)",
                )?
                .execute(params![
                    game.id,
                    clock.pace_json,
                    clock.state_json,
                    clock.deadline
                ])
                .context("failed to store a clock")?;
        }
    }
    Ok(())
}

/// Stores actions, and marks finished the games they end; returns the (game, sequence) pairs it
/// stored. A row whose `(game, sequence)` is taken already is left out, so a conflict answers its
/// own action and no other (and ends no game).
fn store_actions(
    connection: &Connection,
    actions: &[ActionWrite],
) -> anyhow::Result<HashSet<(String, u64)>> {
    let mut insert = connection.prepare_cached(
        "INSERT INTO actions (game_id, seq, seat, action_json, events_json, tower_json, \
         created_at, bot) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
         ON CONFLICT (game_id, seq) DO NOTHING",
    )?;
    // A game marked finished already keeps its first time.
    let mut finish = connection.prepare_cached(
        "UPDATE games SET finished_at = ?1 WHERE id = ?2 AND finished_at IS NULL",
    )?;
    let mut clocks = connection.prepare_cached(
        "UPDATE clocks SET state_json = ?1, deadline = ?2, version = version + 1 \
         WHERE game_id = ?3",
    )?;
    let mut stored = HashSet::with_capacity(actions.len());
    for ActionWrite {
        game_id,
        action,
        ends_game,
        clock,
        created_at,
        ..
    } in actions
    {
        let seq = i64::try_from(action.seq).context("an action's sequence number is too big")?;
        let inserted = insert
            .execute(params![
                game_id,
                seq,
                action.seat,
                action.action_json,
                action.events_json,
                action.tower_json,
                created_at,
                action.bot,
            ])
            .context("failed to store actions")?;
        if inserted == 1 {
            if *ends_game {
                finish
                    .execute(params![created_at, game_id])
                    .context("failed to mark a game finished")?;
            }
            if let Some(clock) = clock {
                clocks
                    .execute(params![clock.state_json, clock.deadline, game_id])
                    .context("failed to store a clock")?;
            }
            stored.insert((game_id.clone(), action.seq));
        }
    }
    Ok(stored)
}

/// Stores snapshots; one already stored (by an earlier run) is kept.
fn store_snapshots(connection: &Connection, snapshots: &[SnapshotWrite]) -> anyhow::Result<()> {
    let mut insert = connection.prepare_cached(
        "INSERT INTO snapshots (game_id, seq, bytes) VALUES (?1, ?2, ?3) \
         ON CONFLICT (game_id, seq) DO NOTHING",
    )?;
    for snapshot in snapshots {
        let seq = i64::try_from(snapshot.seq).context("a snapshot's sequence number is too big")?;
        insert
            .execute(params![snapshot.game_id, seq, snapshot.bytes])
            .context("failed to store snapshots")?;
    }
    Ok(())
}
