//! The one storage layer of the server: SQLite (embedded, the default) or PostgreSQL (several
//! server processes on one database), both through `sqlx::AnyPool` with embedded migrations.
//!
//! A game is stored as its record (setup and seed) plus its ordered actions; each action row also
//! keeps the events and tower drops it produced, so the log is served without running the game.
//! Snapshots every few actions keep loading a game fast.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Row};
use tokio::sync::{mpsc, oneshot};

mod clocks;
mod writer;

pub use clocks::{ClockRow, ClockWrite};
pub use writer::CommitCounters;
use writer::{ActionWrite, Answer, GameWrite, SnapshotWrite, Write};

/// Which database the server runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatabaseKind {
    /// One embedded file, one server process.
    Sqlite,
    /// A shared server; any number of server processes.
    Postgres,
}

/// The channel on which PostgreSQL deployments announce new actions (`<game id>:<seq>`) and
/// seat changes (`<game id>:seats`) to every other server process.
pub const NOTIFY_CHANNEL: &str = "tenka_actions";

/// A game's setup as stored: everything needed to start it again from scratch.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// The game's id.
    pub id: String,
    /// The ruleset's id.
    pub ruleset_id: String,
    /// The hash of the ruleset the game was started with.
    pub ruleset_hash: String,
    /// The map's id (a shipped map's id, or `custom`).
    pub map_id: String,
    /// The SHA-256 of the map text, hex.
    pub map_hash: String,
    /// The map text.
    pub map_toml: String,
    /// The named variant the options came from, if any.
    pub variant: Option<String>,
    /// The option settings, as JSON (`[OptionSetting]`).
    pub options_json: String,
    /// The seed of the game's random stream; secret until the game ends.
    pub seed: [u8; 32],
    /// When the game was created, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When the game ended, if it has.
    pub finished_at: Option<i64>,
}

/// One seat as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredSeat {
    /// The seat number.
    pub seat: u32,
    /// `human` or `bot`: who the seat was created for.
    pub kind: String,
    /// The display name.
    pub name: String,
    /// SHA-256 of the seat's token (human seats only).
    pub token_hash: Option<String>,
    /// The bot playing the seat now, if any (a bot seat, or a human seat handed to a bot).
    pub bot: Option<String>,
    /// Whether a person has claimed the seat.
    pub claimed: bool,
}

/// One accepted action as stored, with what it produced.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredAction {
    /// The game version this action created (1 for the first action).
    pub seq: u64,
    /// The seat that acted.
    pub seat: u32,
    /// The action, as JSON.
    pub action_json: String,
    /// The events it produced with their audiences, as JSON.
    pub events_json: String,
    /// The tower drops it caused, as JSON.
    pub tower_json: String,
    /// The bot that chose the action for the seat; `None` when its person did.
    pub bot: Option<String>,
}

/// The outcome of storing an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// The action is durably stored.
    Stored,
    /// Another writer stored an action with the same sequence number first.
    Conflict,
}

/// The writer's queue. The server also queues a move on its own, from the thread that applied
/// it, which saves a hand-off through the async reactor per move.
#[derive(Clone, Debug)]
pub struct WriteQueue(mpsc::UnboundedSender<Write>);

impl WriteQueue {
    /// Queues an action for the writer; [`Queued::durable`] waits for it to be stored. An action
    /// that `ends_game` marks the game finished with it, in the same commit.
    pub fn queue_action(
        &self,
        id: &str,
        action: StoredAction,
        ends_game: bool,
    ) -> anyhow::Result<Queued<Insert>> {
        self.queue_timed_action(id, action, ends_game, None)
    }

    /// [`WriteQueue::queue_action`] with the game's clock as the action leaves it, written in
    /// the same commit (only if the action is stored).
    pub fn queue_timed_action(
        &self,
        id: &str,
        action: StoredAction,
        ends_game: bool,
        clock: Option<ClockWrite>,
    ) -> anyhow::Result<Queued<Insert>> {
        self.queue(|answer| {
            Write::Action(ActionWrite {
                game_id: id.to_owned(),
                action,
                ends_game,
                clock,
                created_at: now_millis(),
                answer,
            })
        })
    }

    /// Puts the write `write` makes (given where to answer) in the queue.
    fn queue<T>(&self, write: impl FnOnce(Answer<T>) -> Write) -> anyhow::Result<Queued<T>> {
        let (answer, answered) = oneshot::channel();
        self.0
            .send(write(answer))
            .map_err(|_| anyhow::anyhow!("the database writer has stopped"))?;
        Ok(Queued(answered))
    }
}

/// A write in the writer's queue: [`Queued::durable`] waits until it is stored, or failed.
#[derive(Debug)]
#[must_use = "a queued write may still fail: wait for it to be durable"]
pub struct Queued<T>(oneshot::Receiver<Result<T, Arc<anyhow::Error>>>);

impl<T> Queued<T> {
    /// Waits for the writer's answer: once the commit holding the write is durable.
    pub async fn durable(self) -> anyhow::Result<T> {
        match self.0.await {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(error)) => Err(anyhow::anyhow!("{error:#}")),
            Err(_) => anyhow::bail!("the database writer stopped before answering"),
        }
    }
}

/// The secrets a new game starts with, as SHA-256 digests (never the secrets themselves).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewCredentials {
    /// The digest of the creator's host token, which manages the game's invites.
    pub host_token_hash: Option<String>,
    /// One open invite per seat offered to someone else: (seat, digest of the invite code).
    pub invites: Vec<(u32, String)>,
}

/// What came of a request to change a seat's invite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InviteChange {
    /// Done.
    Changed,
    /// The game has no such seat.
    NoSeat,
    /// The seat is played by a bot from the start; nobody is invited to it.
    BotSeat,
    /// A person has claimed the seat; it is theirs and no invite can change that.
    Claimed,
}

/// What a join or claim that carries a client-chosen key leaves behind, so that a retry after a
/// lost answer gets the same seat token ([`Storage::seat_receipt`]). Digests and a sealed token
/// only (see `tokens::seal`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatReceipt {
    /// The digest of what the request spent (the invite code or the old seat token), by kind.
    pub request_hash: String,
    /// The digest of the client's key.
    pub key_hash: String,
    /// The new seat token, sealed with the code (or old token) and the key.
    pub sealed_token: String,
    /// Until when a retry gets the token back (ms since the epoch).
    pub expires_at: i64,
}

/// Stores a join's or claim's receipt in the transaction that gave the seat its token, so the
/// token and its receipt are durable together (a server killed between them loses neither).
async fn insert_receipt(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    seat: u32,
    receipt: &SeatReceipt,
) -> anyhow::Result<()> {
    sqlx::query(
        "INSERT INTO seat_receipts (request_hash, game_id, key_hash, seat, sealed_token, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&receipt.request_hash)
    .bind(id)
    .bind(&receipt.key_hash)
    .bind(i64::from(seat))
    .bind(&receipt.sealed_token)
    .bind(receipt.expires_at)
    .execute(&mut **tx)
    .await
    .context("failed to keep a seat receipt")?;
    Ok(())
}

/// A statement about one seat of a game: `$1` is the game's id and `$2` the seat; any further
/// parameters are bound after them.
fn seat_statement<'q>(
    sql: &'static str,
    id: &'q str,
    seat: u32,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    sqlx::query(sql).bind(id).bind(i64::from(seat))
}

/// Removes a seat's open invite (see [`seat_statement`]).
const CLOSE_INVITE: &str = "DELETE FROM invites WHERE game_id = $1 AND seat = $2";

/// How [`Storage::reopen_to_invite`] reopens a seat: statements of [`seat_statement`]'s form.
struct Reopening {
    /// Changes the seat's row; changing none refuses the reopening.
    seat: &'static str,
    /// Clear what the seat had (its invite, receipts...).
    close: &'static [&'static str],
    close_failed: &'static str,
    commit_failed: &'static str,
}

/// The server's database.
#[derive(Clone, Debug)]
pub struct Storage {
    pool: AnyPool,
    kind: DatabaseKind,
    url: String,
    /// The queue of the one task that stores new games, actions (an action that ends its game
    /// with the game marked finished) and snapshots, many games' at a time (group commit).
    writer: WriteQueue,
    /// What the writer has done, for tests and benchmarks.
    commits: Arc<CommitCounters>,
}

/// The columns [`stored_game`] reads, in its order (a macro, so queries stay static text).
macro_rules! game_columns {
    () => {
        "id, ruleset_id, ruleset_hash, map_id, map_hash, map_toml, variant, options_json, \
         seed_hex, created_at, finished_at"
    };
}

/// A game's setup from a row of `game_columns!()`.
fn stored_game(row: &sqlx::any::AnyRow) -> anyhow::Result<StoredGame> {
    let seed_hex: String = row.try_get(8)?;
    let seed: [u8; 32] = hex::decode(&seed_hex)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .context("a stored seed is not 32 bytes of hex")?;
    Ok(StoredGame {
        id: row.try_get(0)?,
        ruleset_id: row.try_get(1)?,
        ruleset_hash: row.try_get(2)?,
        map_id: row.try_get(3)?,
        map_hash: row.try_get(4)?,
        map_toml: row.try_get(5)?,
        variant: row.try_get(6)?,
        options_json: row.try_get(7)?,
        seed,
        created_at: row.try_get(9)?,
        finished_at: row.try_get(10)?,
    })
}

/// The columns [`stored_seat`] reads, in its order.
macro_rules! seat_columns {
    () => {
        "seat, kind, name, token_hash, bot, claimed"
    };
}

/// A seat from a row of `seat_columns!()`.
fn stored_seat(row: &sqlx::any::AnyRow) -> anyhow::Result<StoredSeat> {
    Ok(StoredSeat {
        seat: u32::try_from(row.try_get::<i64, _>(0)?)?,
        kind: row.try_get(1)?,
        name: row.try_get(2)?,
        token_hash: row.try_get(3)?,
        bot: row.try_get(4)?,
        claimed: row.try_get::<i64, _>(5)? != 0,
    })
}

/// Milliseconds since the Unix epoch, for timestamps.
pub fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as i64)
        .unwrap_or(0)
}

impl Storage {
    /// Opens the database at `url`, or the SQLite file `tenka.db` in `data_dir` when `url` is
    /// `None`, creating it on first start, and runs the migrations.
    pub async fn open(url: Option<&str>, data_dir: &Path) -> anyhow::Result<Storage> {
        sqlx::any::install_default_drivers();
        let url = match url {
            Some(url) => url.to_owned(),
            None => {
                std::fs::create_dir_all(data_dir).with_context(|| {
                    format!("failed to create the data directory {}", data_dir.display())
                })?;
                format!("sqlite://{}?mode=rwc", data_dir.join("tenka.db").display())
            }
        };
        let kind = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            DatabaseKind::Postgres
        } else if url.starts_with("sqlite:") {
            DatabaseKind::Sqlite
        } else {
            anyhow::bail!("unsupported database url `{url}`: use sqlite:// or postgres://");
        };
        if kind == DatabaseKind::Sqlite && (url.contains(":memory:") || url.contains("mode=memory"))
        {
            // The writer has a connection of its own, which would see another, empty database;
            // and a game kept in memory is lost with the process anyway.
            anyhow::bail!("an in-memory SQLite database cannot keep games: use a file");
        }
        let options = AnyConnectOptions::from_str(&url)
            .with_context(|| format!("invalid database url `{url}`"))?;
        let pool = AnyPoolOptions::new()
            .after_connect(move |connection, _| {
                Box::pin(async move {
                    if kind == DatabaseKind::Sqlite {
                        // Every commit syncs the write-ahead log to disk before it returns, so
                        // an action answered as stored survives a power cut (stated rather than
                        // left to the driver's default).
                        use sqlx::Executor as _;
                        connection.execute("PRAGMA synchronous = FULL").await?;
                    }
                    Ok(())
                })
            })
            .max_connections(match kind {
                // SQLite has one writer at a time; a few connections serve concurrent reads.
                DatabaseKind::Sqlite => 4,
                DatabaseKind::Postgres => 16,
            })
            .connect_with(options)
            .await
            .context("failed to connect to the database")?;
        if kind == DatabaseKind::Sqlite {
            // Write-ahead logging lets readers go on while actions are committed;
            // `synchronous = FULL` (set on every connection) keeps every commit durable.
            sqlx::query("PRAGMA journal_mode = WAL")
                .execute(&pool)
                .await
                .context("failed to enable write-ahead logging")?;
        }
        let migrator = match kind {
            DatabaseKind::Sqlite => sqlx::migrate!("./migrations/sqlite"),
            DatabaseKind::Postgres => sqlx::migrate!("./migrations/postgres"),
        };
        migrator
            .run(&pool)
            .await
            .context("failed to migrate the database")?;
        let (writer, queue) = mpsc::unbounded_channel();
        let commits = Arc::new(CommitCounters::default());
        match kind {
            DatabaseKind::Sqlite => {
                let file = sqlx::sqlite::SqliteConnectOptions::from_str(&url)
                    .with_context(|| format!("invalid database url `{url}`"))?
                    .get_filename()
                    .to_owned();
                let connection = writer::sqlite::open(&file)?;
                let counters = commits.clone();
                std::thread::Builder::new()
                    .name("tenka-db-writer".to_owned())
                    .spawn(move || writer::sqlite::write_batches(connection, queue, counters))
                    .context("failed to start the database writer")?;
            }
            DatabaseKind::Postgres => {
                tokio::spawn(writer::postgres::write_batches(
                    pool.clone(),
                    queue,
                    commits.clone(),
                ));
            }
        }
        Ok(Storage {
            pool,
            kind,
            url,
            writer: WriteQueue(writer),
            commits,
        })
    }

    /// What the action writer has committed so far: (batches, actions).
    pub fn commits(&self) -> (u64, u64) {
        self.commits.get()
    }

    /// The connection pool, for operators' tools and tests that need SQL of their own.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Which database this is.
    pub fn kind(&self) -> DatabaseKind {
        self.kind
    }

    /// The database's url, for the PostgreSQL listener.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stores a new game and its seats in one transaction, without a host token or invites.
    pub async fn create_game(&self, game: &StoredGame, seats: &[StoredSeat]) -> anyhow::Result<()> {
        self.create_game_with(game, seats, &NewCredentials::default())
            .await
    }

    /// Stores a new game, its seats, its host token's digest and its invites in one
    /// transaction, so a game never exists without the credentials its creator was given.
    pub async fn create_game_with(
        &self,
        game: &StoredGame,
        seats: &[StoredSeat],
        credentials: &NewCredentials,
    ) -> anyhow::Result<()> {
        self.create_timed_game(game, seats, credentials, None).await
    }

    /// [`Storage::create_game_with`] with the table's clock, stored in the same transaction.
    pub async fn create_timed_game(
        &self,
        game: &StoredGame,
        seats: &[StoredSeat],
        credentials: &NewCredentials,
        clock: Option<ClockRow>,
    ) -> anyhow::Result<()> {
        self.writer
            .queue(|answer| {
                Write::Game(GameWrite {
                    game: Box::new(game.clone()),
                    seats: seats.to_vec(),
                    credentials: credentials.clone(),
                    clock,
                    answer,
                })
            })?
            .durable()
            .await
    }

    /// The ids of every stored game, newest first.
    pub async fn game_ids(&self) -> anyhow::Result<Vec<String>> {
        let rows = sqlx::query("SELECT id FROM games ORDER BY created_at DESC, id")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok(row.try_get::<String, _>(0)?))
            .collect()
    }

    /// The newest `limit` games with their seats and versions, for the game list: three queries
    /// whatever the number of games (the games, all their seats, all their versions).
    pub async fn list_games(
        &self,
        limit: u32,
    ) -> anyhow::Result<Vec<(StoredGame, Vec<StoredSeat>, u64)>> {
        macro_rules! newest {
            () => {
                "SELECT id FROM games ORDER BY created_at DESC, id LIMIT $1"
            };
        }
        let newest_rows = |sql| {
            sqlx::query(sql)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
        };
        let games = newest_rows(concat!(
            "SELECT ",
            game_columns!(),
            " FROM games ORDER BY created_at DESC, id LIMIT $1"
        ))
        .await?;
        let seat_rows = newest_rows(concat!(
            "SELECT ",
            seat_columns!(),
            ", game_id FROM seats WHERE game_id IN (",
            newest!(),
            ") ORDER BY game_id, seat"
        ))
        .await?;
        let version_rows = newest_rows(concat!(
            "SELECT game_id, MAX(seq) FROM actions WHERE game_id IN (",
            newest!(),
            ") GROUP BY game_id"
        ))
        .await?;
        let mut seats: std::collections::HashMap<String, Vec<StoredSeat>> =
            std::collections::HashMap::new();
        for row in &seat_rows {
            seats
                .entry(row.try_get(6)?)
                .or_default()
                .push(stored_seat(row)?);
        }
        let mut versions = std::collections::HashMap::new();
        for row in &version_rows {
            let id: String = row.try_get(0)?;
            let seq: Option<i64> = row.try_get(1)?;
            versions.insert(id, seq.unwrap_or(0) as u64);
        }
        games
            .iter()
            .map(|row| {
                let game = stored_game(row)?;
                let game_seats = seats.remove(&game.id).unwrap_or_default();
                let version = versions.get(&game.id).copied().unwrap_or(0);
                Ok((game, game_seats, version))
            })
            .collect()
    }

    /// One game's setup, if it exists.
    pub async fn game(&self, id: &str) -> anyhow::Result<Option<StoredGame>> {
        let row = sqlx::query(concat!(
            "SELECT ",
            game_columns!(),
            " FROM games WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(stored_game).transpose()
    }

    /// A game's seats, in seat order.
    pub async fn seats(&self, id: &str) -> anyhow::Result<Vec<StoredSeat>> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            seat_columns!(),
            " FROM seats WHERE game_id = $1 ORDER BY seat"
        ))
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(stored_seat).collect()
    }

    /// The game's version: the sequence number of its last action, 0 before any.
    pub async fn version(&self, id: &str) -> anyhow::Result<u64> {
        let row = sqlx::query("SELECT MAX(seq) FROM actions WHERE game_id = $1")
            .bind(id)
            .fetch_one(&self.pool)
            .await?;
        let seq: Option<i64> = row.try_get(0)?;
        Ok(seq.unwrap_or(0) as u64)
    }

    /// Stores an action durably. `Conflict` when its sequence number is already taken.
    ///
    /// The action joins the writer's queue and is answered once the batch holding it has
    /// committed (on SQLite with `synchronous = FULL`, once the write-ahead log is synced):
    /// many games' actions share one transaction and one sync to disk, and no action is answered
    /// before it is durable. An action that `ends_game` marks the game finished in that commit.
    pub async fn insert_action(
        &self,
        id: &str,
        action: &StoredAction,
        ends_game: bool,
    ) -> anyhow::Result<Insert> {
        self.writer
            .queue_action(id, action.clone(), ends_game)?
            .durable()
            .await
    }

    /// The writer's queue, for queuing actions from other threads.
    pub fn write_queue(&self) -> WriteQueue {
        self.writer.clone()
    }

    /// The actions after version `after`, in order.
    pub async fn actions_since(&self, id: &str, after: u64) -> anyhow::Result<Vec<StoredAction>> {
        let rows = sqlx::query(
            "SELECT seq, seat, action_json, events_json, tower_json, bot FROM actions \
             WHERE game_id = $1 AND seq > $2 ORDER BY seq",
        )
        .bind(id)
        .bind(after as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(StoredAction {
                    seq: row.try_get::<i64, _>(0)? as u64,
                    seat: u32::try_from(row.try_get::<i64, _>(1)?)?,
                    action_json: row.try_get(2)?,
                    events_json: row.try_get(3)?,
                    tower_json: row.try_get(4)?,
                    bot: row.try_get(5)?,
                })
            })
            .collect()
    }

    /// The newest snapshot of a game: (version, bytes).
    pub async fn latest_snapshot(&self, id: &str) -> anyhow::Result<Option<(u64, Vec<u8>)>> {
        let row = sqlx::query(
            "SELECT seq, bytes FROM snapshots WHERE game_id = $1 ORDER BY seq DESC LIMIT 1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| Ok((row.try_get::<i64, _>(0)? as u64, row.try_get(1)?)))
            .transpose()
    }

    /// Stores a snapshot of a game at a version. Another process may have stored the same one.
    pub async fn save_snapshot(&self, id: &str, seq: u64, bytes: &[u8]) -> anyhow::Result<()> {
        self.writer
            .queue(|answer| {
                Write::Snapshot(SnapshotWrite {
                    game_id: id.to_owned(),
                    seq,
                    bytes: bytes.to_vec(),
                    answer,
                })
            })?
            .durable()
            .await
    }

    /// Marks a game finished that is not yet (an action that ends a game marks it as it is
    /// stored; this mends a game stored before that was so).
    pub async fn mark_finished(&self, id: &str) -> anyhow::Result<()> {
        sqlx::query("UPDATE games SET finished_at = $1 WHERE id = $2 AND finished_at IS NULL")
            .bind(now_millis())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Hands a seat to a bot, or back to its person with `None`.
    pub async fn set_seat_bot(&self, id: &str, seat: u32, bot: Option<&str>) -> anyhow::Result<()> {
        seat_statement(
            "UPDATE seats SET bot = $3 WHERE game_id = $1 AND seat = $2",
            id,
            seat,
        )
        .bind(bot)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Marks a seat claimed by a person with a display name.
    pub async fn claim_seat(&self, id: &str, seat: u32, name: &str) -> anyhow::Result<()> {
        let claim = "UPDATE seats SET claimed = 1, name = $3 WHERE game_id = $1 AND seat = $2";
        seat_statement(claim, id, seat)
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The seat of a game whose current token has this digest, if any.
    pub async fn seat_of_token_hash(&self, id: &str, hash: &str) -> anyhow::Result<Option<u32>> {
        let row = sqlx::query("SELECT seat FROM seats WHERE game_id = $1 AND token_hash = $2")
            .bind(id)
            .bind(hash)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| Ok(u32::try_from(row.try_get::<i64, _>(0)?)?))
            .transpose()
    }

    /// The digest of a game's host token; `None` for a game stored before games had one (or an
    /// unknown game).
    pub async fn host_token_hash(&self, id: &str) -> anyhow::Result<Option<String>> {
        let row = sqlx::query("SELECT host_token_hash FROM games WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(row) => row.try_get(0)?,
            None => None,
        })
    }

    /// The seats of a game that have an open invite, in seat order.
    pub async fn open_invites(&self, id: &str) -> anyhow::Result<Vec<u32>> {
        let rows = sqlx::query("SELECT seat FROM invites WHERE game_id = $1 ORDER BY seat")
            .bind(id)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok(u32::try_from(row.try_get::<i64, _>(0)?)?))
            .collect()
    }

    /// Exchanges an invite code (by digest) for a seat: the invite is used up, the seat gets
    /// the new token's digest (any earlier token of the seat stops working) and is claimed,
    /// under `name` if one is given. `None` when the game has no such open invite. Two
    /// exchanges of one code, even by two server processes, give the seat to one of them: the
    /// delete that uses the code up decides.
    pub async fn redeem_invite(
        &self,
        id: &str,
        code_hash: &str,
        token_hash: &str,
        name: Option<&str>,
        receipt: Option<&SeatReceipt>,
    ) -> anyhow::Result<Option<u32>> {
        let mut tx = self.pool.begin().await?;
        let row =
            sqlx::query("DELETE FROM invites WHERE game_id = $1 AND code_hash = $2 RETURNING seat")
                .bind(id)
                .bind(code_hash)
                .fetch_optional(&mut *tx)
                .await
                .context("failed to use up an invite")?;
        let Some(row) = row else {
            return Ok(None);
        };
        let seat = u32::try_from(row.try_get::<i64, _>(0)?)?;
        let update = match name {
            Some(name) => sqlx::query(
                "UPDATE seats SET token_hash = $1, claimed = 1, name = $2 \
                 WHERE game_id = $3 AND seat = $4",
            )
            .bind(token_hash)
            .bind(name),
            None => sqlx::query(
                "UPDATE seats SET token_hash = $1, claimed = 1 WHERE game_id = $2 AND seat = $3",
            )
            .bind(token_hash),
        };
        update
            .bind(id)
            .bind(i64::from(seat))
            .execute(&mut *tx)
            .await
            .context("failed to give a seat its token")?;
        if let Some(receipt) = receipt {
            insert_receipt(&mut tx, id, seat, receipt).await?;
        }
        tx.commit()
            .await
            .context("failed to commit a joined seat")?;
        Ok(Some(seat))
    }

    /// Claims a seat for the holder of its current token: the seat gets a new token (digest
    /// `new_hash`) and a display name, and the old token stops working. `false` when the seat's
    /// token is no longer `old_hash` (replaced meanwhile).
    pub async fn claim_with_new_token(
        &self,
        id: &str,
        seat: u32,
        old_hash: &str,
        new_hash: &str,
        name: &str,
        receipt: Option<&SeatReceipt>,
    ) -> anyhow::Result<bool> {
        let mut tx = self.pool.begin().await?;
        let changed = sqlx::query(
            "UPDATE seats SET token_hash = $1, claimed = 1, name = $2 \
             WHERE game_id = $3 AND seat = $4 AND token_hash = $5",
        )
        .bind(new_hash)
        .bind(name)
        .bind(id)
        .bind(i64::from(seat))
        .bind(old_hash)
        .execute(&mut *tx)
        .await
        .context("failed to claim a seat")?
        .rows_affected();
        if changed != 1 {
            return Ok(false);
        }
        // A claimed seat is its person's: no invite may hand it to someone else.
        seat_statement(CLOSE_INVITE, id, seat)
            .execute(&mut *tx)
            .await
            .context("failed to close a claimed seat's invite")?;
        if let Some(receipt) = receipt {
            insert_receipt(&mut tx, id, seat, receipt).await?;
        }
        tx.commit().await.context("failed to commit a claim")?;
        Ok(true)
    }

    /// The seat and sealed token a join or claim of game `id` left under `request_hash` for the
    /// key with digest `key_hash`, while its receipt lasts. Forgets expired receipts on the way.
    pub async fn seat_receipt(
        &self,
        id: &str,
        request_hash: &str,
        key_hash: &str,
    ) -> anyhow::Result<Option<(u32, String)>> {
        let now = now_millis();
        sqlx::query("DELETE FROM seat_receipts WHERE expires_at < $1")
            .bind(now)
            .execute(&self.pool)
            .await
            .context("failed to forget expired seat receipts")?;
        let row = sqlx::query(
            "SELECT seat, sealed_token FROM seat_receipts \
             WHERE request_hash = $1 AND game_id = $2 AND key_hash = $3 AND expires_at >= $4",
        )
        .bind(request_hash)
        .bind(id)
        .bind(key_hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await
        .context("failed to read a seat receipt")?;
        row.map(|row| {
            Ok((
                u32::try_from(row.try_get::<i64, _>(0)?)?,
                row.try_get::<String, _>(1)?,
            ))
        })
        .transpose()
    }

    /// Reopens a person's seat, claimed or not, to a new invite (digest `code_hash`): the seat
    /// is unclaimed, its token (whoever holds it) stops working, its earlier invite and any
    /// receipt of a join or claim are gone. Who plays it meanwhile (a bot or nobody) does not
    /// change. The way back for a seat whose person lost its token or never got it.
    pub async fn reopen_seat(
        &self,
        id: &str,
        seat: u32,
        code_hash: &str,
    ) -> anyhow::Result<InviteChange> {
        let reopen = Reopening {
            seat: "UPDATE seats SET token_hash = NULL, claimed = 0 \
                   WHERE game_id = $1 AND seat = $2 AND kind = 'human'",
            close: &[
                CLOSE_INVITE,
                "DELETE FROM seat_receipts WHERE game_id = $1 AND seat = $2",
                // The seat goes to someone else: no account keeps it.
                "DELETE FROM account_seats WHERE game_id = $1 AND seat = $2",
            ],
            close_failed: "failed to close a reopened seat's invite",
            commit_failed: "failed to commit a reopened seat",
        };
        self.reopen_to_invite(id, seat, code_hash, reopen).await
    }

    /// The kind of a game's seat (`human` or `bot`), if the game has it.
    pub async fn seat_kind(&self, id: &str, seat: u32) -> anyhow::Result<Option<String>> {
        let row = seat_statement(
            "SELECT kind FROM seats WHERE game_id = $1 AND seat = $2",
            id,
            seat,
        )
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| row.try_get(0).map_err(anyhow::Error::from))
            .transpose()
    }

    /// Why a seat's invite cannot change, if it cannot.
    async fn invite_refusal(&self, id: &str, seat: u32) -> anyhow::Result<Option<InviteChange>> {
        let kind = "SELECT kind, claimed FROM seats WHERE game_id = $1 AND seat = $2";
        let row = seat_statement(kind, id, seat)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else {
            return Ok(Some(InviteChange::NoSeat));
        };
        let kind: String = row.try_get(0)?;
        let claimed = row.try_get::<i64, _>(1)? != 0;
        Ok(if kind != "human" {
            Some(InviteChange::BotSeat)
        } else if claimed {
            Some(InviteChange::Claimed)
        } else {
            None
        })
    }

    /// Opens an unclaimed person's seat to a new invite (digest `code_hash`): an earlier invite
    /// of the seat is revoked and the seat's token, if someone holds one, stops working. Changes
    /// nothing unless the answer is [`InviteChange::Changed`].
    pub async fn reissue_invite(
        &self,
        id: &str,
        seat: u32,
        code_hash: &str,
    ) -> anyhow::Result<InviteChange> {
        let reopen = Reopening {
            seat: "UPDATE seats SET token_hash = NULL \
                   WHERE game_id = $1 AND seat = $2 AND kind = 'human' AND claimed = 0",
            close: &[CLOSE_INVITE],
            close_failed: "failed to revoke an invite",
            commit_failed: "failed to commit an invite",
        };
        self.reopen_to_invite(id, seat, code_hash, reopen).await
    }

    /// Reopens a seat to a new invite (digest `code_hash`) in one transaction: `reopen.seat`
    /// changes the seat's row, and only if it changed one, `reopen.close` clear what the seat
    /// had and the invite is stored. The write comes first, so the transaction holds the write
    /// lock from its first statement (SQLite) and the checks it makes cannot go stale.
    async fn reopen_to_invite(
        &self,
        id: &str,
        seat: u32,
        code_hash: &str,
        reopen: Reopening,
    ) -> anyhow::Result<InviteChange> {
        let mut tx = self.pool.begin().await?;
        let reopened = seat_statement(reopen.seat, id, seat)
            .execute(&mut *tx)
            .await
            .context("failed to reopen a seat")?
            .rows_affected();
        if reopened != 1 {
            drop(tx);
            return Ok(self
                .invite_refusal(id, seat)
                .await?
                .unwrap_or(InviteChange::NoSeat));
        }
        for &statement in reopen.close {
            seat_statement(statement, id, seat)
                .execute(&mut *tx)
                .await
                .context(reopen.close_failed)?;
        }
        seat_statement(
            "INSERT INTO invites (game_id, seat, code_hash, created_at) VALUES ($1, $2, $3, $4)",
            id,
            seat,
        )
        .bind(code_hash)
        .bind(now_millis())
        .execute(&mut *tx)
        .await
        .context("failed to store an invite")?;
        tx.commit().await.context(reopen.commit_failed)?;
        Ok(InviteChange::Changed)
    }

    /// Revokes an unclaimed seat's open invite, if it has one (the seat then waits for a new
    /// invite). Changes nothing unless the answer is [`InviteChange::Changed`].
    pub async fn revoke_invite(&self, id: &str, seat: u32) -> anyhow::Result<InviteChange> {
        if let Some(refusal) = self.invite_refusal(id, seat).await? {
            return Ok(refusal);
        }
        seat_statement(CLOSE_INVITE, id, seat)
            .execute(&self.pool)
            .await
            .context("failed to revoke an invite")?;
        Ok(InviteChange::Changed)
    }

    /// Stores a stream ticket (by digest) for the seat token with digest `token_hash`, valid
    /// until `expires_at` (ms since the epoch); forgets expired tickets on the way.
    pub async fn insert_stream_ticket(
        &self,
        ticket_hash: &str,
        id: &str,
        token_hash: &str,
        expires_at: i64,
    ) -> anyhow::Result<()> {
        sqlx::query("DELETE FROM stream_tickets WHERE expires_at < $1")
            .bind(now_millis())
            .execute(&self.pool)
            .await
            .context("failed to forget expired stream tickets")?;
        sqlx::query(
            "INSERT INTO stream_tickets (ticket_hash, game_id, token_hash, expires_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(ticket_hash)
        .bind(id)
        .bind(token_hash)
        .bind(expires_at)
        .execute(&self.pool)
        .await
        .context("failed to store a stream ticket")?;
        Ok(())
    }

    /// Uses up a stream ticket of a game: the digest of the seat token it was issued for, or
    /// `None` when the ticket is unknown, used, expired or of another game.
    pub async fn take_stream_ticket(
        &self,
        ticket_hash: &str,
        id: &str,
    ) -> anyhow::Result<Option<String>> {
        let row = sqlx::query(
            "DELETE FROM stream_tickets WHERE ticket_hash = $1 AND game_id = $2 \
             RETURNING token_hash, expires_at",
        )
        .bind(ticket_hash)
        .bind(id)
        .fetch_optional(&self.pool)
        .await
        .context("failed to use a stream ticket")?;
        let Some(row) = row else { return Ok(None) };
        let expires_at: i64 = row.try_get(1)?;
        Ok((expires_at >= now_millis())
            .then(|| row.try_get(0))
            .transpose()?)
    }

    /// Keeps a ruleset component's bytes under its content hash, once; storing a hash already
    /// kept changes nothing.
    pub async fn keep_component(
        &self,
        hash: &str,
        ruleset_id: &str,
        bytes: &[u8],
    ) -> anyhow::Result<()> {
        sqlx::query(
            "INSERT INTO components (hash, ruleset_id, bytes, stored_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (hash) DO NOTHING",
        )
        .bind(hash)
        .bind(ruleset_id)
        .bind(bytes.to_vec())
        .bind(now_millis())
        .execute(&self.pool)
        .await
        .context("failed to keep a ruleset component")?;
        Ok(())
    }

    /// A kept ruleset component's bytes by content hash.
    pub async fn component(&self, hash: &str) -> anyhow::Result<Option<Vec<u8>>> {
        let row = sqlx::query("SELECT bytes FROM components WHERE hash = $1")
            .bind(hash)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| row.try_get(0).map_err(anyhow::Error::from))
            .transpose()
    }

    /// Tells the other server processes on this database that a game changed. Does nothing on
    /// SQLite, which has one process.
    pub async fn notify(&self, payload: &str) -> anyhow::Result<()> {
        if self.kind == DatabaseKind::Postgres {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(NOTIFY_CHANNEL)
                .bind(payload)
                .execute(&self.pool)
                .await
                .context("failed to notify the other server processes")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: &str) -> StoredGame {
        StoredGame {
            id: id.to_owned(),
            ruleset_id: "fixture".to_owned(),
            ruleset_hash: "abc".to_owned(),
            map_id: "small".to_owned(),
            map_hash: "def".to_owned(),
            map_toml: "name = 'x'".to_owned(),
            variant: None,
            options_json: "[]".to_owned(),
            seed: [7; 32],
            created_at: 1,
            finished_at: None,
        }
    }

    /// Stores action `seq` of `game` (ending it or not) and waits for the writer's answer.
    async fn insert(storage: &Storage, game: &str, seq: u64, ends_game: bool) -> Insert {
        storage
            .insert_action(game, &action(seq), ends_game)
            .await
            .unwrap()
    }

    fn action(seq: u64) -> StoredAction {
        StoredAction {
            seq,
            seat: 0,
            action_json: "{\"number\":1}".to_owned(),
            events_json: "[]".to_owned(),
            tower_json: "[]".to_owned(),
            bot: None,
        }
    }

    /// The last move of a game took two commits in turn (the action, then the game marked
    /// finished), so it was answered a sync to disk later than any other move.
    #[tokio::test]
    async fn regression_the_move_that_ends_a_game_marks_it_finished_in_its_own_commit() {
        let dir = tempdir();
        let storage = Storage::open(None, &dir).await.unwrap();
        storage.create_game(&game("g1"), &[]).await.unwrap();
        let (batches, _) = storage.commits();
        assert_eq!(insert(&storage, "g1", 1, false).await, Insert::Stored);
        assert_eq!(storage.game("g1").await.unwrap().unwrap().finished_at, None);
        // A conflicting action ends nothing: the game goes on.
        assert_eq!(insert(&storage, "g1", 1, true).await, Insert::Conflict);
        assert_eq!(storage.game("g1").await.unwrap().unwrap().finished_at, None);
        assert_eq!(insert(&storage, "g1", 2, true).await, Insert::Stored);
        let finished_at = storage.game("g1").await.unwrap().unwrap().finished_at;
        assert!(finished_at.is_some(), "the ending action marked the game");
        assert_eq!(storage.commits().0, batches + 3, "one commit each");
        // Marking it again (mending a game stored before) keeps the first time.
        storage.mark_finished("g1").await.unwrap();
        assert_eq!(
            storage.game("g1").await.unwrap().unwrap().finished_at,
            finished_at
        );
    }

    #[tokio::test]
    async fn games_actions_and_snapshots_round_trip_through_sqlite() {
        let dir = tempdir();
        let storage = Storage::open(None, &dir).await.unwrap();
        let seats = [StoredSeat {
            seat: 0,
            kind: "human".to_owned(),
            name: "Ann".to_owned(),
            token_hash: Some("h".to_owned()),
            bot: None,
            claimed: false,
        }];
        storage.create_game(&game("g1"), &seats).await.unwrap();
        assert_eq!(storage.game("g1").await.unwrap(), Some(game("g1")));
        assert_eq!(storage.seats("g1").await.unwrap(), seats);
        assert_eq!(storage.game("nope").await.unwrap(), None);

        assert_eq!(storage.version("g1").await.unwrap(), 0);
        assert_eq!(insert(&storage, "g1", 1, false).await, Insert::Stored);
        assert_eq!(insert(&storage, "g1", 1, false).await, Insert::Conflict);
        assert_eq!(insert(&storage, "g1", 2, false).await, Insert::Stored);
        assert_eq!(storage.version("g1").await.unwrap(), 2);
        assert_eq!(
            storage.actions_since("g1", 1).await.unwrap(),
            vec![action(2)]
        );

        storage.save_snapshot("g1", 2, &[1, 2, 3]).await.unwrap();
        storage.save_snapshot("g1", 2, &[1, 2, 3]).await.unwrap();
        assert_eq!(
            storage.latest_snapshot("g1").await.unwrap(),
            Some((2, vec![1, 2, 3]))
        );

        storage.set_seat_bot("g1", 0, Some("random")).await.unwrap();
        storage.claim_seat("g1", 0, "Bea").await.unwrap();
        let seat = &storage.seats("g1").await.unwrap()[0];
        assert_eq!(
            (seat.bot.as_deref(), seat.claimed, seat.name.as_str()),
            (Some("random"), true, "Bea")
        );

        let component: Vec<u8> = (0..=255).collect();
        storage.keep_component("h1", "r", &component).await.unwrap();
        storage.keep_component("h1", "r", b"other").await.unwrap();
        assert_eq!(storage.component("h1").await.unwrap(), Some(component));
        assert_eq!(storage.component("h2").await.unwrap(), None);

        // Everything survives a restart on the same directory.
        drop(storage);
        let reopened = Storage::open(None, &dir).await.unwrap();
        assert_eq!(reopened.version("g1").await.unwrap(), 2);
        assert_eq!(reopened.game_ids().await.unwrap(), vec!["g1".to_owned()]);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Many games' actions go through the one writer at once: each waiter hears its own
    /// outcome (a taken version answers only its own action), and what was answered stored is
    /// exactly what the database holds, also when a commit fails for everyone in it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_actions_share_commits_and_each_hears_its_own_outcome() {
        let dir = tempdir();
        let storage = Storage::open(None, &dir).await.unwrap();
        let ids: Vec<String> = (0..20).map(|i| format!("g{i}")).collect();
        for id in &ids {
            storage.create_game(&game(id), &[]).await.unwrap();
        }
        // The database refuses every action of game g7 from version 5 on, failing whatever
        // commit holds one.
        sqlx::query(
            "CREATE TRIGGER refuse BEFORE INSERT ON actions \
             WHEN NEW.game_id = 'g7' AND NEW.seq >= 5 BEGIN SELECT RAISE(ABORT, 'refused'); END",
        )
        .execute(storage.pool())
        .await
        .unwrap();
        let mut tasks = tokio::task::JoinSet::new();
        for id in ids.clone() {
            let storage = storage.clone();
            tasks.spawn(async move {
                let mut outcomes = Vec::new();
                for seq in 1..=10 {
                    let outcome = storage.insert_action(&id, &action(seq), false).await;
                    let stored = matches!(outcome, Ok(Insert::Stored));
                    outcomes.push((seq, outcome.map_err(|error| format!("{error:#}"))));
                    if id == "g3" && seq == 4 && stored {
                        // A second writer of version 4: only this insert hears of the conflict.
                        match storage.insert_action(&id, &action(4), false).await {
                            Ok(again) => assert_eq!(again, Insert::Conflict),
                            // Unless it shared g7's failing commit.
                            Err(error) => assert!(format!("{error:#}").contains("refused")),
                        }
                    }
                }
                (id, outcomes)
            });
        }
        let mut answered_stored = 0;
        for (id, outcomes) in tasks.join_all().await {
            let stored: Vec<u64> = storage
                .actions_since(&id, 0)
                .await
                .unwrap()
                .iter()
                .map(|action| action.seq)
                .collect();
            for (seq, outcome) in outcomes {
                match outcome {
                    Ok(Insert::Stored) => {
                        answered_stored += 1;
                        assert!(
                            stored.contains(&seq),
                            "{id} {seq} answered stored is stored"
                        );
                    }
                    Ok(Insert::Conflict) => panic!("{id} {seq}: a conflict nobody caused"),
                    Err(error) => {
                        assert!(
                            !stored.contains(&seq),
                            "{id} {seq} failed ({error}) yet stored"
                        );
                        if id != "g7" {
                            // Failed with g7's commit: retrying alone succeeds.
                            assert!(error.contains("refused"), "{error}");
                        }
                    }
                }
            }
            if id == "g7" {
                assert_eq!(stored, vec![1, 2, 3, 4], "g7 stops at the refusal");
            }
        }
        let (batches, actions) = storage.commits();
        assert_eq!(actions, answered_stored, "the writer counts what it stored");
        assert!(batches >= 1 && batches <= actions);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The writer keeps a connection of its own, which could never see an in-memory database:
    /// such a url is refused with a reason instead of losing every write.
    #[tokio::test]
    async fn an_in_memory_sqlite_url_is_refused_with_a_reason() {
        let dir = tempdir();
        for url in ["sqlite::memory:", "sqlite://games.db?mode=memory"] {
            let error = Storage::open(Some(url), &dir).await.unwrap_err();
            assert!(
                format!("{error:#}").contains("in-memory SQLite database cannot keep games"),
                "{url}: {error:#}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    fn human(seat: u32, token_hash: Option<&str>) -> StoredSeat {
        StoredSeat {
            seat,
            kind: "human".to_owned(),
            name: format!("P{seat}"),
            token_hash: token_hash.map(str::to_owned),
            bot: None,
            claimed: false,
        }
    }

    #[tokio::test]
    async fn invites_are_used_once_revoked_and_reissued_only_for_unclaimed_seats() {
        let dir = tempdir();
        let storage = Storage::open(None, &dir).await.unwrap();
        let mut bot = human(2, None);
        bot.kind = "bot".to_owned();
        let seats = [human(0, Some("t0")), human(1, None), bot];
        let credentials = NewCredentials {
            host_token_hash: Some("host".to_owned()),
            invites: vec![(1, "c1".to_owned())],
        };
        storage
            .create_game_with(&game("g1"), &seats, &credentials)
            .await
            .unwrap();
        assert_eq!(
            storage.host_token_hash("g1").await.unwrap().as_deref(),
            Some("host")
        );
        assert_eq!(storage.host_token_hash("nope").await.unwrap(), None);
        assert_eq!(storage.open_invites("g1").await.unwrap(), vec![1]);

        // Used once, then gone.
        assert_eq!(
            storage
                .redeem_invite("g1", "c1", "t1", Some("Bo"), None)
                .await
                .unwrap(),
            Some(1)
        );
        assert_eq!(
            storage
                .redeem_invite("g1", "c1", "t9", None, None)
                .await
                .unwrap(),
            None
        );
        let seat = &storage.seats("g1").await.unwrap()[1];
        assert_eq!(
            (seat.token_hash.as_deref(), seat.claimed, seat.name.as_str()),
            (Some("t1"), true, "Bo")
        );
        assert!(storage.open_invites("g1").await.unwrap().is_empty());

        // A claimed seat, a bot's seat and a missing seat refuse, changing nothing.
        assert_eq!(
            storage.reissue_invite("g1", 1, "c2").await.unwrap(),
            InviteChange::Claimed
        );
        assert_eq!(
            storage.reissue_invite("g1", 2, "c2").await.unwrap(),
            InviteChange::BotSeat
        );
        assert_eq!(
            storage.revoke_invite("g1", 7).await.unwrap(),
            InviteChange::NoSeat
        );
        assert_eq!(
            storage.seats("g1").await.unwrap()[1].token_hash.as_deref(),
            Some("t1")
        );

        // Reopening the creator's unclaimed seat retires its token; a new code replaces the old.
        assert_eq!(
            storage.reissue_invite("g1", 0, "c3").await.unwrap(),
            InviteChange::Changed
        );
        assert_eq!(storage.seats("g1").await.unwrap()[0].token_hash, None);
        assert_eq!(
            storage.reissue_invite("g1", 0, "c4").await.unwrap(),
            InviteChange::Changed
        );
        assert_eq!(
            storage
                .redeem_invite("g1", "c3", "x", None, None)
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            storage.revoke_invite("g1", 0).await.unwrap(),
            InviteChange::Changed
        );
        assert_eq!(
            storage
                .redeem_invite("g1", "c4", "x", None, None)
                .await
                .unwrap(),
            None
        );

        // Claiming needs the current token and replaces it.
        assert!(
            !storage
                .claim_with_new_token("g1", 1, "wrong", "t5", "Cy", None)
                .await
                .unwrap()
        );
        assert!(
            storage
                .claim_with_new_token("g1", 1, "t1", "t5", "Cy", None)
                .await
                .unwrap()
        );
        assert_eq!(
            storage.seats("g1").await.unwrap()[1].token_hash.as_deref(),
            Some("t5")
        );

        // Stream tickets: once, unexpired, for their game only.
        let later = now_millis() + 30_000;
        storage
            .insert_stream_ticket("k1", "g1", "t5", later)
            .await
            .unwrap();
        assert_eq!(
            storage.take_stream_ticket("k1", "other").await.unwrap(),
            None
        );
        assert_eq!(
            storage
                .take_stream_ticket("k1", "g1")
                .await
                .unwrap()
                .as_deref(),
            Some("t5")
        );
        assert_eq!(storage.take_stream_ticket("k1", "g1").await.unwrap(), None);
        storage
            .insert_stream_ticket("k2", "g1", "t5", now_millis() - 1)
            .await
            .unwrap();
        assert_eq!(storage.take_stream_ticket("k2", "g1").await.unwrap(), None);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A database written before invites existed: its games keep their seats' tokens and get
    /// no host token; the new tables start empty.
    #[tokio::test]
    async fn games_stored_before_the_invites_migration_keep_their_tokens() {
        let dir = tempdir();
        sqlx::any::install_default_drivers();
        let url = format!("sqlite://{}?mode=rwc", dir.join("tenka.db").display());
        let pool = AnyPoolOptions::new()
            .max_connections(1)
            .connect_with(AnyConnectOptions::from_str(&url).unwrap())
            .await
            .unwrap();
        // The schema as it was, with one game of that time.
        let migrator = sqlx::migrate!("./migrations/sqlite");
        migrator.run_to(20261122000002, &pool).await.unwrap();
        sqlx::query(
            "INSERT INTO games (id, ruleset_id, ruleset_hash, map_id, map_hash, map_toml, variant, \
             options_json, seed_hex, created_at, finished_at) \
             VALUES ('old', 'fixture', 'abc', 'small', 'def', 'x', NULL, '[]', $1, 1, NULL)",
        )
        .bind(hex::encode([7u8; 32]))
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO seats (game_id, seat, kind, name, token_hash, bot, claimed) \
             VALUES ('old', 0, 'human', 'Ann', 'h0', NULL, 0), ('old', 1, 'human', 'Bo', 'h1', NULL, 1)",
        )
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;

        let storage = Storage::open(None, &dir).await.unwrap();
        let seats = storage.seats("old").await.unwrap();
        assert_eq!(
            seats
                .iter()
                .map(|seat| (seat.token_hash.as_deref(), seat.claimed))
                .collect::<Vec<_>>(),
            vec![(Some("h0"), false), (Some("h1"), true)]
        );
        assert_eq!(storage.host_token_hash("old").await.unwrap(), None);
        assert!(storage.open_invites("old").await.unwrap().is_empty());
        assert!(
            storage
                .claim_with_new_token("old", 0, "h0", "n0", "Ann", None)
                .await
                .unwrap()
        );
        assert_eq!(
            storage.seats("old").await.unwrap()[0].token_hash.as_deref(),
            Some("n0")
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    fn tempdir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "tenka-storage-{}",
            hex::encode(crate::tokens::random_bytes::<8>().unwrap())
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
