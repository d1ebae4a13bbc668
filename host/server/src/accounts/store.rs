//! The accounts' tables (`migrations/*/20261129000001_accounts.sql`): accounts, their sessions
//! (by the SHA-256 of the session id) and the seats attached to them. Only this module writes
//! them; reopening a seat (`Storage::reopen_seat`) also detaches it.

use anyhow::Context as _;
use sqlx::Row as _;

use crate::storage::{Storage, now_millis};

/// An account as handlers see it: never its password hash.
#[derive(Clone, Debug)]
pub struct Account {
    pub id: String,
    pub name: String,
    pub created_at: i64,
}

/// A seat attached to an account.
#[derive(Clone, Debug)]
pub struct AttachedSeat {
    pub game_id: String,
    pub seat: u32,
    pub attached_at: i64,
}

/// What attaching one seat did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attached {
    /// Attached now.
    New,
    /// It was this account's already.
    Already,
    /// Another account has it.
    Elsewhere,
}

/// Creates an account and its first session in one transaction. `false` when the name (folded
/// to lowercase) is taken; nothing is stored then.
pub async fn create_account(
    storage: &Storage,
    account: &Account,
    name_key: &str,
    password_hash: &str,
    session_hash: &str,
    expires_at: i64,
) -> anyhow::Result<bool> {
    let mut tx = storage.pool().begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO accounts (id, name, name_key, password_hash, created_at) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name_key) DO NOTHING",
    )
    .bind(&account.id)
    .bind(&account.name)
    .bind(name_key)
    .bind(password_hash)
    .bind(account.created_at)
    .execute(&mut *tx)
    .await
    .context("failed to store an account")?
    .rows_affected();
    if inserted != 1 {
        return Ok(false);
    }
    insert_session(
        &mut tx,
        &account.id,
        session_hash,
        account.created_at,
        expires_at,
    )
    .await?;
    tx.commit().await.context("failed to commit an account")?;
    Ok(true)
}

/// The account of this name (any case) with its password hash, for signing in only.
pub async fn account_for_sign_in(
    storage: &Storage,
    name_key: &str,
) -> anyhow::Result<Option<(Account, String)>> {
    let row =
        sqlx::query("SELECT id, name, created_at, password_hash FROM accounts WHERE name_key = $1")
            .bind(name_key)
            .fetch_optional(storage.pool())
            .await
            .context("failed to read an account")?;
    row.map(|row| Ok((account_of(&row)?, row.try_get(3)?)))
        .transpose()
}

/// Starts a session of `account_id`; forgets expired sessions on the way.
pub async fn start_session(
    storage: &Storage,
    account_id: &str,
    session_hash: &str,
    expires_at: i64,
) -> anyhow::Result<()> {
    let now = now_millis();
    sqlx::query("DELETE FROM account_sessions WHERE expires_at < $1")
        .bind(now)
        .execute(storage.pool())
        .await
        .context("failed to forget expired sessions")?;
    let mut connection = storage.pool().acquire().await?;
    insert_session(&mut connection, account_id, session_hash, now, expires_at).await
}

/// Stores a session by its digest.
pub(super) async fn insert_session(
    connection: &mut sqlx::AnyConnection,
    account_id: &str,
    session_hash: &str,
    created_at: i64,
    expires_at: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "INSERT INTO account_sessions (id_hash, account_id, created_at, expires_at) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(session_hash)
    .bind(account_id)
    .bind(created_at)
    .bind(expires_at)
    .execute(connection)
    .await
    .context("failed to store a session")?;
    Ok(())
}

/// An account from a row of `id, name, created_at`.
fn account_of(row: &sqlx::any::AnyRow) -> anyhow::Result<Account> {
    Ok(Account {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        created_at: row.try_get(2)?,
    })
}

/// The account of an id.
pub async fn account(storage: &Storage, account_id: &str) -> anyhow::Result<Option<Account>> {
    let row = sqlx::query("SELECT id, name, created_at FROM accounts WHERE id = $1")
        .bind(account_id)
        .fetch_optional(storage.pool())
        .await
        .context("failed to read an account")?;
    row.as_ref().map(account_of).transpose()
}

/// The account of a live session.
pub async fn session_account(
    storage: &Storage,
    session_hash: &str,
) -> anyhow::Result<Option<Account>> {
    let row = sqlx::query(
        "SELECT a.id, a.name, a.created_at FROM account_sessions s \
         JOIN accounts a ON a.id = s.account_id WHERE s.id_hash = $1 AND s.expires_at > $2",
    )
    .bind(session_hash)
    .bind(now_millis())
    .fetch_optional(storage.pool())
    .await
    .context("failed to read a session")?;
    row.as_ref().map(account_of).transpose()
}

/// Ends a session (signing out, or a new sign-in from the same browser).
pub async fn end_session(storage: &Storage, session_hash: &str) -> anyhow::Result<()> {
    sqlx::query("DELETE FROM account_sessions WHERE id_hash = $1")
        .bind(session_hash)
        .execute(storage.pool())
        .await
        .context("failed to end a session")?;
    Ok(())
}

/// Attaches a seat to an account, unless another account has it.
pub async fn attach_seat(
    storage: &Storage,
    account_id: &str,
    game_id: &str,
    seat: u32,
) -> anyhow::Result<Attached> {
    let inserted = sqlx::query(
        "INSERT INTO account_seats (game_id, seat, account_id, attached_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (game_id, seat) DO NOTHING",
    )
    .bind(game_id)
    .bind(i64::from(seat))
    .bind(account_id)
    .bind(now_millis())
    .execute(storage.pool())
    .await
    .context("failed to attach a seat")?
    .rows_affected();
    if inserted == 1 {
        return Ok(Attached::New);
    }
    let owner: Option<String> =
        sqlx::query("SELECT account_id FROM account_seats WHERE game_id = $1 AND seat = $2")
            .bind(game_id)
            .bind(i64::from(seat))
            .fetch_optional(storage.pool())
            .await
            .context("failed to read a seat's account")?
            .map(|row| row.try_get(0))
            .transpose()?;
    Ok(if owner.as_deref() == Some(account_id) {
        Attached::Already
    } else {
        Attached::Elsewhere
    })
}

/// The seats attached to an account, newest first, at most `limit`.
pub async fn attached_seats(
    storage: &Storage,
    account_id: &str,
    limit: u32,
) -> anyhow::Result<Vec<AttachedSeat>> {
    let rows = sqlx::query(
        "SELECT game_id, seat, attached_at FROM account_seats WHERE account_id = $1 \
         ORDER BY attached_at DESC, game_id, seat LIMIT $2",
    )
    .bind(account_id)
    .bind(i64::from(limit))
    .fetch_all(storage.pool())
    .await
    .context("failed to read an account's seats")?;
    rows.iter()
        .map(|row| {
            Ok(AttachedSeat {
                game_id: row.try_get(0)?,
                seat: u32::try_from(row.try_get::<i64, _>(1)?)?,
                attached_at: row.try_get(2)?,
            })
        })
        .collect()
}

/// Whether the seat is attached to this account.
pub async fn owns_seat(
    storage: &Storage,
    account_id: &str,
    game_id: &str,
    seat: u32,
) -> anyhow::Result<bool> {
    Ok(sqlx::query(
        "SELECT 1 FROM account_seats WHERE account_id = $1 AND game_id = $2 AND seat = $3",
    )
    .bind(account_id)
    .bind(game_id)
    .bind(i64::from(seat))
    .fetch_optional(storage.pool())
    .await
    .context("failed to read an account's seat")?
    .is_some())
}

/// Gives an attached person's seat a new token (digest `token_hash`): every earlier token of the
/// seat stops working and no receipt hands an old one back. `false` when the seat is not this
/// account's (any more) or not a person's.
pub async fn replace_seat_token(
    storage: &Storage,
    account_id: &str,
    game_id: &str,
    seat: u32,
    token_hash: &str,
) -> anyhow::Result<bool> {
    let mut tx = storage.pool().begin().await?;
    let changed = sqlx::query(
        "UPDATE seats SET token_hash = $1 WHERE game_id = $2 AND seat = $3 AND kind = 'human' \
         AND EXISTS (SELECT 1 FROM account_seats a WHERE a.game_id = $2 AND a.seat = $3 \
         AND a.account_id = $4)",
    )
    .bind(token_hash)
    .bind(game_id)
    .bind(i64::from(seat))
    .bind(account_id)
    .execute(&mut *tx)
    .await
    .context("failed to give a seat a new token")?
    .rows_affected();
    if changed != 1 {
        return Ok(false);
    }
    sqlx::query("DELETE FROM seat_receipts WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(i64::from(seat))
        .execute(&mut *tx)
        .await
        .context("failed to forget a seat's receipts")?;
    tx.commit()
        .await
        .context("failed to commit a seat's new token")?;
    Ok(true)
}

/// When the game last changed: its last action's time, or its creation.
pub async fn last_change(storage: &Storage, game_id: &str, created_at: i64) -> anyhow::Result<i64> {
    let row = sqlx::query("SELECT MAX(created_at) FROM actions WHERE game_id = $1")
        .bind(game_id)
        .fetch_one(storage.pool())
        .await
        .context("failed to read a game's last action")?;
    Ok(row.try_get::<Option<i64>, _>(0)?.unwrap_or(created_at))
}
