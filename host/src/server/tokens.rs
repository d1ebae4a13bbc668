//! The game server's secrets and game ids: unguessable random strings. Only the SHA-256 of a
//! secret is stored, so a copy of the database does not let anyone act for a seat.
//!
//! Four kinds of secret, all made by [`new_token`] and told apart only by where they are stored:
//! - a **seat token** acts for one seat (`Authorization: Bearer`); it is given to the person who
//!   plays the seat and to nobody else, and is replaced when the seat is claimed;
//! - the **host token** is the creator's credential: it manages the game's invites and acts for
//!   no seat;
//! - an **invite code** is exchanged once for a fresh seat token; the creator can revoke it or
//!   replace it while the seat is unclaimed;
//! - a **stream ticket** opens the game's event stream once, within [`STREAM_TICKET_SECONDS`]:
//!   `EventSource` cannot send headers, and a seat token in a URL would end up in logs and
//!   browser history.

use sha2::{Digest, Sha256};

/// The random bytes in a seat token: 256 bits, well above the 128 the invite links need.
const TOKEN_BYTES: usize = 32;

/// Fills `bytes` from the operating system's random source.
pub fn random_bytes<const N: usize>() -> anyhow::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)
        .map_err(|error| anyhow::anyhow!("the operating system gave no random bytes: {error}"))?;
    Ok(bytes)
}

/// How long a stream ticket may wait before it is used: long enough for a slow connection to open
/// the stream, short enough that a ticket seen in a log is long dead.
pub const STREAM_TICKET_SECONDS: i64 = 30;

/// A new secret (seat token, host token, invite code or stream ticket), as URL-safe lowercase hex.
pub fn new_token() -> anyhow::Result<String> {
    Ok(hex::encode(random_bytes::<TOKEN_BYTES>()?))
}

/// A new game id: 64 random bits as hex, short enough for a link and never guessed in practice
/// (a game id grants nothing but spectating).
pub fn new_game_id() -> anyhow::Result<String> {
    Ok(hex::encode(random_bytes::<8>()?))
}

/// The digest under which a token is stored and looked up.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_distinct_and_url_safe() {
        let first = new_token().unwrap();
        let second = new_token().unwrap();
        assert_ne!(first, second);
        assert!(first.len() * 4 >= 128, "a token carries at least 128 bits");
        assert!(first.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn the_stored_hash_is_not_the_token() {
        let token = new_token().unwrap();
        let hash = token_hash(&token);
        assert_ne!(hash, token);
        assert_eq!(hash, token_hash(&token), "the hash is stable for lookups");
    }
}
