//! Table clocks as stored (table `clocks`, one row per timed game): the pace, each seat's time,
//! the earliest deadline and a version that makes claiming an expiry a compare-and-set.

use std::collections::HashMap;

use anyhow::Context as _;
use sqlx::Row;

use super::Storage;

/// A timed table's clock as it is first stored, with its game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockRow {
    /// The pace, as JSON.
    pub pace_json: String,
    /// Each seat's clock, as JSON.
    pub state_json: String,
    /// The earliest deadline of a running seat (ms since the epoch).
    pub deadline: Option<i64>,
}

/// A clock as a move leaves it, stored in the move's commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClockWrite {
    /// Each seat's clock, as JSON.
    pub state_json: String,
    /// The earliest deadline of a running seat.
    pub deadline: Option<i64>,
}

/// A stored clock: the pace, each seat's clock (both JSON) and the version.
pub type StoredClock = (String, String, i64);

impl Storage {
    /// A game's clock, if the game is timed.
    pub async fn clock(&self, id: &str) -> anyhow::Result<Option<StoredClock>> {
        let row =
            sqlx::query("SELECT pace_json, state_json, version FROM clocks WHERE game_id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await
                .context("failed to read a clock")?;
        row.map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
            .transpose()
    }

    /// The paces of the newest `limit` games that are timed (the games
    /// [`Storage::list_games`] lists), by game.
    pub async fn newest_paces(&self, limit: u32) -> anyhow::Result<HashMap<String, String>> {
        let rows = sqlx::query(
            "SELECT game_id, pace_json FROM clocks WHERE game_id IN \
             (SELECT id FROM games ORDER BY created_at DESC, id LIMIT $1)",
        )
        .bind(i64::from(limit))
        .fetch_all(self.pool())
        .await
        .context("failed to read paces")?;
        rows.iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect()
    }

    /// Every unfinished game's earliest clock deadline, for the timer after a start.
    pub async fn clock_deadlines(&self) -> anyhow::Result<Vec<(String, i64)>> {
        let rows = sqlx::query(
            "SELECT clocks.game_id, clocks.deadline FROM clocks JOIN games \
             ON games.id = clocks.game_id \
             WHERE clocks.deadline IS NOT NULL AND games.finished_at IS NULL",
        )
        .fetch_all(self.pool())
        .await
        .context("failed to read clock deadlines")?;
        rows.iter()
            .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .collect()
    }

    /// Writes a game's clock whatever its version (a seat handed to a bot or taken back);
    /// returns the new version.
    pub async fn save_clock(&self, id: &str, clock: &ClockWrite) -> anyhow::Result<i64> {
        let row = sqlx::query(
            "UPDATE clocks SET state_json = $1, deadline = $2, version = version + 1 \
             WHERE game_id = $3 RETURNING version",
        )
        .bind(&clock.state_json)
        .bind(clock.deadline)
        .bind(id)
        .fetch_one(self.pool())
        .await
        .context("failed to store a clock")?;
        Ok(row.try_get(0)?)
    }

    /// Claims an expiry: writes the clock `clock` and hands `seats` to `bot`, in one
    /// transaction, only if the stored clock is still at version `seen`. True for the one
    /// claimer that did; false when another process (or a move) changed the clock first, and
    /// then nothing changed.
    pub async fn claim_expiry(
        &self,
        id: &str,
        seen: i64,
        clock: &ClockWrite,
        seats: &[u32],
        bot: &str,
    ) -> anyhow::Result<bool> {
        let mut tx = self.pool().begin().await?;
        let claimed = sqlx::query(
            "UPDATE clocks SET state_json = $1, deadline = $2, version = version + 1 \
             WHERE game_id = $3 AND version = $4",
        )
        .bind(&clock.state_json)
        .bind(clock.deadline)
        .bind(id)
        .bind(seen)
        .execute(&mut *tx)
        .await
        .context("failed to claim a clock's expiry")?
        .rows_affected();
        if claimed != 1 {
            return Ok(false);
        }
        for &seat in seats {
            sqlx::query(
                "UPDATE seats SET bot = $1 WHERE game_id = $2 AND seat = $3 AND bot IS NULL",
            )
            .bind(bot)
            .bind(id)
            .bind(i64::from(seat))
            .execute(&mut *tx)
            .await
            .context("failed to hand a seat out of time to a bot")?;
        }
        tx.commit()
            .await
            .context("failed to commit a clock's expiry")?;
        Ok(true)
    }
}
