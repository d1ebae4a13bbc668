//! The passkeys' tables (`migrations/*/20261129100000_passkeys.sql`): each account's passkeys
//! and the WebAuthn ceremonies between their two requests. Only the accounts module writes
//! them.

use anyhow::Context as _;
use sqlx::Row as _;

use super::store::{self, Account};
use crate::storage::Storage;

/// A ceremony between its start and its finish.
#[derive(Clone, Debug)]
pub struct Ceremony {
    /// `sign-up`, `add`, `sign-in` or `sign-in-named`.
    pub kind: String,
    /// The account it is for (a sign-up's new account; none for a discoverable sign-in).
    pub account_id: Option<String>,
    /// A sign-up's account name.
    pub name: Option<String>,
    /// A sign-up's language.
    pub language: Option<String>,
    /// The challenge's state, as webauthn-rs serialises it.
    pub state_json: String,
}

/// A passkey as stored.
#[derive(Clone, Debug)]
pub struct StoredPasskey {
    pub credential_id: String,
    pub account_id: String,
    pub passkey_json: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

/// Stores a ceremony under the digest of its id until `expires_at`; forgets expired ones on
/// the way.
pub async fn start_ceremony(
    storage: &Storage,
    id_hash: &str,
    ceremony: &Ceremony,
    now: i64,
    expires_at: i64,
) -> anyhow::Result<()> {
    sqlx::query("DELETE FROM passkey_ceremonies WHERE expires_at < $1")
        .bind(now)
        .execute(storage.pool())
        .await
        .context("failed to forget expired passkey ceremonies")?;
    sqlx::query(
        "INSERT INTO passkey_ceremonies \
         (id_hash, kind, account_id, name, language, state_json, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(id_hash)
    .bind(&ceremony.kind)
    .bind(&ceremony.account_id)
    .bind(&ceremony.name)
    .bind(&ceremony.language)
    .bind(&ceremony.state_json)
    .bind(expires_at)
    .execute(storage.pool())
    .await
    .context("failed to store a passkey ceremony")?;
    Ok(())
}

/// Takes a ceremony: deleted whether it is still good or not, and given only to the one
/// request whose delete removed it, before it expired. So a challenge is answered once.
pub async fn take_ceremony(
    storage: &Storage,
    id_hash: &str,
    now: i64,
) -> anyhow::Result<Option<Ceremony>> {
    let row = sqlx::query(
        "SELECT kind, account_id, name, language, state_json, expires_at \
         FROM passkey_ceremonies WHERE id_hash = $1",
    )
    .bind(id_hash)
    .fetch_optional(storage.pool())
    .await
    .context("failed to read a passkey ceremony")?;
    let Some(row) = row else {
        return Ok(None);
    };
    let deleted = sqlx::query("DELETE FROM passkey_ceremonies WHERE id_hash = $1")
        .bind(id_hash)
        .execute(storage.pool())
        .await
        .context("failed to use a passkey ceremony")?
        .rows_affected();
    let expires_at: i64 = row.try_get(5)?;
    if deleted != 1 || expires_at <= now {
        return Ok(None);
    }
    Ok(Some(Ceremony {
        kind: row.try_get(0)?,
        account_id: row.try_get(1)?,
        name: row.try_get(2)?,
        language: row.try_get(3)?,
        state_json: row.try_get(4)?,
    }))
}

fn stored_passkey(row: &sqlx::any::AnyRow) -> anyhow::Result<StoredPasskey> {
    Ok(StoredPasskey {
        credential_id: row.try_get(0)?,
        account_id: row.try_get(1)?,
        passkey_json: row.try_get(2)?,
        created_at: row.try_get(3)?,
        last_used_at: row.try_get(4)?,
    })
}

/// An account's passkeys, oldest first.
pub async fn passkeys_of(
    storage: &Storage,
    account_id: &str,
) -> anyhow::Result<Vec<StoredPasskey>> {
    let rows = sqlx::query(
        "SELECT credential_id, account_id, passkey_json, created_at, last_used_at \
         FROM account_passkeys WHERE account_id = $1 ORDER BY created_at, credential_id",
    )
    .bind(account_id)
    .fetch_all(storage.pool())
    .await
    .context("failed to read an account's passkeys")?;
    rows.iter().map(stored_passkey).collect()
}

/// The passkey of a credential id, whichever account has it.
pub async fn passkey(
    storage: &Storage,
    credential_id: &str,
) -> anyhow::Result<Option<StoredPasskey>> {
    let row = sqlx::query(
        "SELECT credential_id, account_id, passkey_json, created_at, last_used_at \
         FROM account_passkeys WHERE credential_id = $1",
    )
    .bind(credential_id)
    .fetch_optional(storage.pool())
    .await
    .context("failed to read a passkey")?;
    row.as_ref().map(stored_passkey).transpose()
}

/// Adds a passkey to an account; `false` when the credential is registered already (to any
/// account).
pub async fn add_passkey(
    storage: &Storage,
    account_id: &str,
    credential_id: &str,
    passkey_json: &str,
    now: i64,
) -> anyhow::Result<bool> {
    let mut connection = storage.pool().acquire().await?;
    insert_passkey(
        &mut connection,
        account_id,
        credential_id,
        passkey_json,
        now,
    )
    .await
}

async fn insert_passkey(
    connection: &mut sqlx::AnyConnection,
    account_id: &str,
    credential_id: &str,
    passkey_json: &str,
    now: i64,
) -> anyhow::Result<bool> {
    Ok(sqlx::query(
        "INSERT INTO account_passkeys (credential_id, account_id, passkey_json, created_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (credential_id) DO NOTHING",
    )
    .bind(credential_id)
    .bind(account_id)
    .bind(passkey_json)
    .bind(now)
    .execute(connection)
    .await
    .context("failed to store a passkey")?
    .rows_affected()
        == 1)
}

/// What creating an account with a passkey did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    Created,
    NameTaken,
    CredentialTaken,
}

/// Creates an account without a password, its first passkey and its first session in one
/// transaction; nothing is stored unless all three are.
pub async fn create_account_with_passkey(
    storage: &Storage,
    account: &Account,
    name_key: &str,
    language: Option<&str>,
    (credential_id, passkey_json): (&str, &str),
    (session_hash, expires_at): (&str, i64),
) -> anyhow::Result<Created> {
    let mut tx = storage.pool().begin().await?;
    let inserted = sqlx::query(
        "INSERT INTO accounts (id, name, name_key, password_hash, created_at, language) \
         VALUES ($1, $2, $3, '', $4, $5) ON CONFLICT (name_key) DO NOTHING",
    )
    .bind(&account.id)
    .bind(&account.name)
    .bind(name_key)
    .bind(account.created_at)
    .bind(language)
    .execute(&mut *tx)
    .await
    .context("failed to store an account")?
    .rows_affected();
    if inserted != 1 {
        return Ok(Created::NameTaken);
    }
    if !insert_passkey(
        &mut tx,
        &account.id,
        credential_id,
        passkey_json,
        account.created_at,
    )
    .await?
    {
        return Ok(Created::CredentialTaken);
    }
    store::insert_session(
        &mut tx,
        &account.id,
        session_hash,
        account.created_at,
        expires_at,
    )
    .await?;
    tx.commit().await.context("failed to commit an account")?;
    Ok(Created::Created)
}

/// Stores a passkey's new state after a sign-in (its counter), unless another sign-in changed
/// it since it was read; `false` then.
pub async fn passkey_used(
    storage: &Storage,
    credential_id: &str,
    read_json: &str,
    new_json: &str,
    now: i64,
) -> anyhow::Result<bool> {
    Ok(sqlx::query(
        "UPDATE account_passkeys SET passkey_json = $1, last_used_at = $2 \
         WHERE credential_id = $3 AND passkey_json = $4",
    )
    .bind(new_json)
    .bind(now)
    .bind(credential_id)
    .bind(read_json)
    .execute(storage.pool())
    .await
    .context("failed to store a passkey's use")?
    .rows_affected()
        == 1)
}

/// Removes one of an account's passkeys, unless it is the last way to sign in (no password, no
/// other passkey). `None` when the account has no such passkey, `Some(false)` when it is the
/// last way in.
pub async fn remove_passkey(
    storage: &Storage,
    account_id: &str,
    credential_id: &str,
) -> anyhow::Result<Option<bool>> {
    let mut tx = storage.pool().begin().await?;
    let row = sqlx::query(
        "SELECT (SELECT COUNT(*) FROM account_passkeys WHERE account_id = $1), \
         (SELECT password_hash FROM accounts WHERE id = $1), \
         (SELECT COUNT(*) FROM account_passkeys WHERE account_id = $1 AND credential_id = $2)",
    )
    .bind(account_id)
    .bind(credential_id)
    .fetch_one(&mut *tx)
    .await
    .context("failed to read an account's ways to sign in")?;
    let (count, password, this_one): (i64, Option<String>, i64) =
        (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
    if this_one != 1 {
        return Ok(None);
    }
    if count <= 1 && password.unwrap_or_default().is_empty() {
        return Ok(Some(false));
    }
    sqlx::query("DELETE FROM account_passkeys WHERE account_id = $1 AND credential_id = $2")
        .bind(account_id)
        .bind(credential_id)
        .execute(&mut *tx)
        .await
        .context("failed to remove a passkey")?;
    tx.commit()
        .await
        .context("failed to commit a passkey's removal")?;
    Ok(Some(true))
}

/// What the passkeys and mails read of an account beside its name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountExtras {
    /// Whether it has a password (an account made with a passkey has none).
    pub has_password: bool,
    /// Its language for mails, if known.
    pub language: Option<String>,
}

/// An account's [`AccountExtras`] (the default for an account that is gone).
pub async fn extras(storage: &Storage, account_id: &str) -> anyhow::Result<AccountExtras> {
    let row = sqlx::query("SELECT password_hash, language FROM accounts WHERE id = $1")
        .bind(account_id)
        .fetch_optional(storage.pool())
        .await
        .context("failed to read an account")?;
    let Some(row) = row else {
        return Ok(AccountExtras::default());
    };
    Ok(AccountExtras {
        has_password: !row.try_get::<String, _>(0)?.is_empty(),
        language: row.try_get(1)?,
    })
}

/// Stores the account's language for mails.
pub async fn set_language(
    storage: &Storage,
    account_id: &str,
    language: &str,
) -> anyhow::Result<()> {
    sqlx::query("UPDATE accounts SET language = $1 WHERE id = $2")
        .bind(language)
        .bind(account_id)
        .execute(storage.pool())
        .await
        .context("failed to store an account's language")?;
    Ok(())
}
