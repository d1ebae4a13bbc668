//! The one storage layer of the server: SQLite (embedded, the default) or PostgreSQL (several
//! server processes on one database), both through `sqlx::AnyPool` with embedded migrations.
//!
//! A game is stored as its record (setup and seed) plus its ordered actions; each action row also
//! keeps the events and tower drops it produced, so the log is served without running the game.
//! Snapshots every few actions keep loading a game fast.

use std::path::Path;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context as _;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Row};

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
}

/// The outcome of storing an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// The action is durably stored.
    Stored,
    /// Another writer stored an action with the same sequence number first.
    Conflict,
}

/// The server's database.
#[derive(Clone, Debug)]
pub struct Storage {
    pool: AnyPool,
    kind: DatabaseKind,
    url: String,
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
        let options = AnyConnectOptions::from_str(&url)
            .with_context(|| format!("invalid database url `{url}`"))?;
        let pool = AnyPoolOptions::new()
            .max_connections(match kind {
                // SQLite has one writer at a time; a few connections serve concurrent reads.
                DatabaseKind::Sqlite => 4,
                DatabaseKind::Postgres => 16,
            })
            .connect_with(options)
            .await
            .context("failed to connect to the database")?;
        if kind == DatabaseKind::Sqlite {
            // Write-ahead logging lets readers go on while an action is committed; the default
            // `synchronous = FULL` keeps every commit durable across a crash.
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
        Ok(Storage { pool, kind, url })
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

    /// Stores a new game and its seats in one transaction.
    pub async fn create_game(&self, game: &StoredGame, seats: &[StoredSeat]) -> anyhow::Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO games (id, ruleset_id, ruleset_hash, map_id, map_hash, map_toml, variant, \
             options_json, seed_hex, created_at, finished_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL)",
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
        .execute(&mut *tx)
        .await
        .context("failed to store the game")?;
        for seat in seats {
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
        tx.commit().await.context("failed to commit the new game")?;
        Ok(())
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
        let games = sqlx::query(concat!(
            "SELECT ",
            game_columns!(),
            " FROM games ORDER BY created_at DESC, id LIMIT $1"
        ))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        let seat_rows = sqlx::query(concat!(
            "SELECT ",
            seat_columns!(),
            ", game_id FROM seats WHERE game_id IN (",
            newest!(),
            ") ORDER BY game_id, seat"
        ))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        let version_rows = sqlx::query(concat!(
            "SELECT game_id, MAX(seq) FROM actions WHERE game_id IN (",
            newest!(),
            ") GROUP BY game_id"
        ))
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
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
        let row = sqlx::query(concat!("SELECT ", game_columns!(), " FROM games WHERE id = $1"))
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
    pub async fn insert_action(&self, id: &str, action: &StoredAction) -> anyhow::Result<Insert> {
        let result = sqlx::query(
            "INSERT INTO actions (game_id, seq, seat, action_json, events_json, tower_json, \
             created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(id)
        .bind(action.seq as i64)
        .bind(i64::from(action.seat))
        .bind(&action.action_json)
        .bind(&action.events_json)
        .bind(&action.tower_json)
        .bind(now_millis())
        .execute(&self.pool)
        .await;
        match result {
            Ok(_) => Ok(Insert::Stored),
            Err(sqlx::Error::Database(error)) if error.is_unique_violation() => {
                Ok(Insert::Conflict)
            }
            Err(error) => Err(anyhow::Error::new(error).context("failed to store an action")),
        }
    }

    /// The actions after version `after`, in order.
    pub async fn actions_since(&self, id: &str, after: u64) -> anyhow::Result<Vec<StoredAction>> {
        let rows = sqlx::query(
            "SELECT seq, seat, action_json, events_json, tower_json FROM actions \
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
        let result = sqlx::query("INSERT INTO snapshots (game_id, seq, bytes) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(seq as i64)
            .bind(bytes.to_vec())
            .execute(&self.pool)
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(sqlx::Error::Database(error)) if error.is_unique_violation() => Ok(()),
            Err(error) => Err(anyhow::Error::new(error).context("failed to store a snapshot")),
        }
    }

    /// Records that a game has ended.
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
        sqlx::query("UPDATE seats SET bot = $1 WHERE game_id = $2 AND seat = $3")
            .bind(bot)
            .bind(id)
            .bind(i64::from(seat))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Marks a seat claimed by a person with a display name.
    pub async fn claim_seat(&self, id: &str, seat: u32, name: &str) -> anyhow::Result<()> {
        sqlx::query("UPDATE seats SET claimed = 1, name = $1 WHERE game_id = $2 AND seat = $3")
            .bind(name)
            .bind(id)
            .bind(i64::from(seat))
            .execute(&self.pool)
            .await?;
        Ok(())
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

    fn action(seq: u64) -> StoredAction {
        StoredAction {
            seq,
            seat: 0,
            action_json: "{\"number\":1}".to_owned(),
            events_json: "[]".to_owned(),
            tower_json: "[]".to_owned(),
        }
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
        assert_eq!(
            storage.insert_action("g1", &action(1)).await.unwrap(),
            Insert::Stored
        );
        assert_eq!(
            storage.insert_action("g1", &action(1)).await.unwrap(),
            Insert::Conflict
        );
        assert_eq!(
            storage.insert_action("g1", &action(2)).await.unwrap(),
            Insert::Stored
        );
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

    fn tempdir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "tenka-storage-{}",
            hex::encode(crate::server::tokens::random_bytes::<8>().unwrap())
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
