//! The one writer of new games, actions and snapshots: it takes whatever is
//! queued (at most [`MAX_BATCH`] writes) and stores it with one commit, many games at once
//! (group commit). Each waiter is answered only once the commit holding its write is durable:
//! stored when its part of the batch succeeded and the commit too, the error otherwise (a
//! statement the database refuses fails its own part's writes; a failed commit fails them all).
//! While one batch commits the next one gathers, so under load every commit (and its sync to
//! disk) carries many games' writes; alone, a write is stored at once. Being the one writer also
//! means these writes never wait for each other's locks.
//!
//! Each database has its own writer: [`sqlite`] on a thread of its own with a connection of its
//! own, [`postgres`] as a task on the server's pool.

pub(super) mod postgres;
pub(super) mod sqlite;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::oneshot;

use super::{ClockRow, ClockWrite, Insert, NewCredentials, StoredAction, StoredGame, StoredSeat};

/// The writer's answer to one write: its outcome, or the error that failed its batch.
pub(super) type Answer<T> = oneshot::Sender<Result<T, Arc<anyhow::Error>>>;

/// A write waiting in the writer's queue, with the one who waits for it to be durable.
#[derive(Debug)]
pub(super) enum Write {
    Game(GameWrite),
    Action(ActionWrite),
    Snapshot(SnapshotWrite),
}

/// A new game with its seats and credentials.
#[derive(Debug)]
pub(super) struct GameWrite {
    pub game: Box<StoredGame>,
    pub seats: Vec<StoredSeat>,
    pub credentials: NewCredentials,
    /// A timed table's clock.
    pub clock: Option<ClockRow>,
    pub answer: Answer<()>,
}

/// An accepted action. One that ends its game marks the game finished with it, in the same part
/// of the batch: a move that ends a game is durable, end included, after one commit.
#[derive(Debug)]
pub(super) struct ActionWrite {
    pub game_id: String,
    pub action: StoredAction,
    pub ends_game: bool,
    /// The game's clock as the action leaves it (timed tables), written with the action.
    pub clock: Option<ClockWrite>,
    pub created_at: i64,
    pub answer: Answer<Insert>,
}

/// A snapshot of a game at a version.
#[derive(Debug)]
pub(super) struct SnapshotWrite {
    pub game_id: String,
    pub seq: u64,
    pub bytes: Vec<u8>,
    pub answer: Answer<()>,
}

/// The most writes one batch stores: enough that a full queue drains in a few commits, few
/// enough that one commit stays short.
pub(super) const MAX_BATCH: usize = 1024;

/// Counters of the writer: how many batches of actions it committed and how many actions they
/// held.
#[derive(Debug, Default)]
pub struct CommitCounters {
    batches: AtomicU64,
    actions: AtomicU64,
}

impl CommitCounters {
    /// (batches committed, actions stored in them) since the storage was opened.
    pub fn get(&self) -> (u64, u64) {
        (
            self.batches.load(Ordering::Relaxed),
            self.actions.load(Ordering::Relaxed),
        )
    }
}

/// What each part of a batch came to: the games, the actions (the (game, sequence) pairs
/// stored; one missing was taken already) and the snapshots.
pub(super) type Done = (
    Result<(), Arc<anyhow::Error>>,
    Result<HashSet<(String, u64)>, Arc<anyhow::Error>>,
    Result<(), Arc<anyhow::Error>>,
);

/// One batch of writes, sorted by kind: the order in which they are stored (a game before its
/// actions, actions before the snapshots they lead to).
#[derive(Default)]
pub(super) struct Batch {
    pub games: Vec<GameWrite>,
    pub actions: Vec<ActionWrite>,
    pub snapshots: Vec<SnapshotWrite>,
}

impl Batch {
    /// Sorts `writes` by kind.
    pub fn sort(writes: impl Iterator<Item = Write>) -> Batch {
        let mut batch = Batch::default();
        for write in writes {
            match write {
                Write::Game(game) => batch.games.push(game),
                Write::Action(action) => batch.actions.push(action),
                Write::Snapshot(snapshot) => batch.snapshots.push(snapshot),
            }
        }
        batch
    }

    /// Answers every waiter with what its part came to, or with the error that failed the whole
    /// batch, and counts the actions stored.
    pub fn answer(self, outcome: anyhow::Result<Done>, counters: &CommitCounters) {
        let (games_done, actions_done, snapshots_done) = match outcome {
            Ok(done) => done,
            Err(error) => {
                let error = Arc::new(error);
                (Err(error.clone()), Err(error.clone()), Err(error))
            }
        };
        if let Ok(stored) = &actions_done {
            counters.batches.fetch_add(1, Ordering::Relaxed);
            counters
                .actions
                .fetch_add(stored.len() as u64, Ordering::Relaxed);
        }
        // A waiter that gave up is fine: what it asked for is stored (or not) either way.
        for game in self.games {
            let _ = game.answer.send(games_done.clone());
        }
        for write in self.actions {
            let _ = write.answer.send(match &actions_done {
                Ok(stored) if stored.contains(&(write.game_id, write.action.seq)) => {
                    Ok(Insert::Stored)
                }
                Ok(_) => Ok(Insert::Conflict),
                Err(error) => Err(error.clone()),
            });
        }
        for snapshot in self.snapshots {
            let _ = snapshot.answer.send(snapshots_done.clone());
        }
    }
}
