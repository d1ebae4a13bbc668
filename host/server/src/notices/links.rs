//! The links a mail carries: a one-click unsubscribe signed with a key the server processes
//! share (HMAC-SHA-256; a forged or altered link is refused), and a one-time sign-in link that
//! opens the game (a random token stored only as its SHA-256, good once and for
//! [`SIGN_IN_LINK_HOURS`]: a mail read late, forwarded or kept in an archive holds no lasting
//! key to the account).

use anyhow::Context as _;
use hmac::{KeyInit as _, Mac as _};
use sqlx::Row as _;

use crate::storage::Storage;
use crate::tokens;

type HmacSha256 = hmac::Hmac<sha2_for_hmac::Sha256>;

/// How long a sign-in link works.
pub const SIGN_IN_LINK_HOURS: i64 = 72;

/// The name of the unsubscribe key in `server_secrets`.
const UNSUBSCRIBE_KEY: &str = "unsubscribe-hmac";

/// The key that signs unsubscribe links: made at random by the first process that needs it and
/// stored, so every process on the database (and every restart) signs alike.
pub async fn unsubscribe_key(storage: &Storage) -> anyhow::Result<Vec<u8>> {
    sqlx::query(
        "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
    )
    .bind(UNSUBSCRIBE_KEY)
    .bind(tokens::new_token()?)
    .execute(storage.pool())
    .await
    .context("failed to store the unsubscribe key")?;
    let value: String = sqlx::query("SELECT value FROM server_secrets WHERE name = $1")
        .bind(UNSUBSCRIBE_KEY)
        .fetch_one(storage.pool())
        .await
        .context("failed to read the unsubscribe key")?
        .try_get(0)?;
    Ok(value.into_bytes())
}

fn mac(key: &[u8], account: &str) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(b"tenka unsubscribe\0");
    mac.update(account.as_bytes());
    mac
}

/// The signature of an unsubscribe link for `account`.
pub fn unsubscribe_signature(key: &[u8], account: &str) -> String {
    hex::encode(mac(key, account).finalize().into_bytes())
}

/// Whether `signature` is the one of `account`'s unsubscribe link (compared in constant time).
pub fn unsubscribe_signature_holds(key: &[u8], account: &str, signature: &str) -> bool {
    let Ok(given) = hex::decode(signature) else {
        return false;
    };
    mac(key, account).verify_slice(&given).is_ok()
}

/// The unsubscribe link's path and query for `account`.
pub fn unsubscribe_path(key: &[u8], account: &str) -> String {
    format!(
        "/api/notices/unsubscribe?account={account}&sig={}",
        unsubscribe_signature(key, account)
    )
}

/// Makes a one-time sign-in link for `account` to `game`, at `seat` if the mail is about one of
/// the account's seats; the path to send.
pub async fn new_sign_in_link(
    storage: &Storage,
    account: &str,
    game: &str,
    seat: Option<u32>,
    now: i64,
) -> anyhow::Result<String> {
    let token = tokens::new_token()?;
    sqlx::query(
        "INSERT INTO mail_links (token_hash, account_id, game_id, expires_at, seat) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(tokens::token_hash(&token))
    .bind(account)
    .bind(game)
    .bind(now + SIGN_IN_LINK_HOURS * 3_600_000)
    .bind(seat.map(i64::from))
    .execute(storage.pool())
    .await
    .context("failed to store a sign-in link")?;
    Ok(format!("/api/notices/open/{token}"))
}

/// What a sign-in link opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opened {
    /// The link worked, now and never again: the account, game and seat.
    SignedIn {
        account: String,
        game: String,
        seat: Option<u32>,
    },
    /// The link was used or is too old; the game and seat it was for, if it ever was a link.
    Spent {
        game: Option<String>,
        seat: Option<u32>,
    },
}

/// Uses a sign-in link: only the first use within its time signs in.
pub async fn use_sign_in_link(storage: &Storage, token: &str, now: i64) -> anyhow::Result<Opened> {
    let hash = tokens::token_hash(token);
    let row = sqlx::query("SELECT account_id, game_id, seat FROM mail_links WHERE token_hash = $1")
        .bind(&hash)
        .fetch_optional(storage.pool())
        .await
        .context("failed to read a sign-in link")?;
    let Some(row) = row else {
        return Ok(Opened::Spent {
            game: None,
            seat: None,
        });
    };
    let (account, game): (String, String) = (row.try_get(0)?, row.try_get(1)?);
    let seat = row
        .try_get::<Option<i64>, _>(2)?
        .and_then(|seat| u32::try_from(seat).ok());
    let used = sqlx::query(
        "UPDATE mail_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL \
         AND expires_at > $1",
    )
    .bind(now)
    .bind(&hash)
    .execute(storage.pool())
    .await
    .context("failed to use a sign-in link")?
    .rows_affected();
    Ok(if used == 1 {
        Opened::SignedIn {
            account,
            game,
            seat,
        }
    } else {
        Opened::Spent {
            game: Some(game),
            seat,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsubscribe_signature_holds_only_for_its_account_and_key() {
        let key = b"a key of the server";
        let signature = unsubscribe_signature(key, "alice");
        assert!(unsubscribe_signature_holds(key, "alice", &signature));
        assert!(!unsubscribe_signature_holds(key, "bob", &signature));
        assert!(!unsubscribe_signature_holds(
            b"another key",
            "alice",
            &signature
        ));
        let mut altered = signature.clone().into_bytes();
        altered[0] = if altered[0] == b'0' { b'1' } else { b'0' };
        let altered = String::from_utf8(altered).unwrap();
        assert!(!unsubscribe_signature_holds(key, "alice", &altered));
        assert!(!unsubscribe_signature_holds(key, "alice", "not hex"));
        assert!(!unsubscribe_signature_holds(key, "alice", ""));
    }
}
