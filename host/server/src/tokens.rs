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
//!
//! A join or claim that carries a client-chosen key also leaves a **receipt** for
//! [`SEAT_RECEIPT_SECONDS`]: the new seat token sealed with what the request spent (the invite
//! code or the old token) and the key ([`seal`]), so a retry after a lost answer gets the same
//! token back, and a copy of the database reveals nothing without the code and the key.
//!
//! One secret is not made here but given by the operator: the **operator token** of
//! `tenka serve` ([`OperatorToken`]), which saves maps as examples the lobby offers. The server
//! keeps only its SHA-256 and compares digests in constant time.

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

/// How long a retried join or claim with the same key gets the same seat token back: long
/// enough for a browser to retry after a lost answer or a server restart, short enough that a
/// receipt is not a second way into a seat.
pub const SEAT_RECEIPT_SECONDS: i64 = 600;

/// The longest client-chosen key a join or claim accepts, and the shortest: a key is meant to be
/// a random string the client makes up for one request and its retries.
pub const RETRY_KEY_LENGTH: std::ops::RangeInclusive<usize> = 16..=128;

/// Seals a seat token (64 hex digits) with the secret a request spent (`spent`: an invite code
/// or an old seat token) and the client's key, or unseals a sealed one: the token's bytes XORed
/// with a pad derived from both, neither of which the server stores. `None` when `token` is not
/// 64 hex digits.
pub fn seal(token: &str, spent: &str, key: &str) -> Option<String> {
    let bytes = hex::decode(token).ok()?;
    if bytes.len() != TOKEN_BYTES {
        return None;
    }
    let pad = Sha256::new()
        .chain_update(b"tenka seat receipt\0")
        .chain_update(spent.as_bytes())
        .chain_update(b"\0")
        .chain_update(key.as_bytes())
        .finalize();
    Some(hex::encode(
        bytes
            .iter()
            .zip(pad.iter())
            .map(|(byte, pad)| byte ^ pad)
            .collect::<Vec<u8>>(),
    ))
}

/// The digest under which a join's or claim's receipt is kept: of the kind of request and of
/// what it spent (the invite code, the old token).
pub fn receipt_hash(kind: &str, spent: &str) -> String {
    token_hash(&format!("{kind}\0{spent}"))
}

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

/// The shortest operator token `tenka serve` takes: a token is meant to be a long random
/// string (`openssl rand -hex 32`), not a password a person could guess.
pub const MIN_OPERATOR_TOKEN_CHARS: usize = 16;

/// The operator's token, kept only as its SHA-256. Its `Debug` shows nothing of it, so a
/// logged configuration never carries it.
#[derive(Clone)]
pub struct OperatorToken {
    digest: [u8; 32],
}

impl OperatorToken {
    /// The token from its text (white space around it, such as a file's last newline, is
    /// dropped); refused when shorter than [`MIN_OPERATOR_TOKEN_CHARS`] or holding white space
    /// or control characters.
    pub fn new(text: &str) -> anyhow::Result<OperatorToken> {
        let token = text.trim();
        if token.chars().count() < MIN_OPERATOR_TOKEN_CHARS {
            anyhow::bail!(
                "the operator token must have at least {MIN_OPERATOR_TOKEN_CHARS} characters \
                 (make one with `openssl rand -hex 32`)"
            );
        }
        if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            anyhow::bail!("the operator token must not hold white space or control characters");
        }
        Ok(OperatorToken {
            digest: Sha256::digest(token.as_bytes()).into(),
        })
    }

    /// Whether `given` is the token. Both sides are hashed first and the digests compared in
    /// constant time, so neither the comparison's time nor the given text's length tells how
    /// much of the token was right.
    pub fn matches(&self, given: &str) -> bool {
        let given: [u8; 32] = Sha256::digest(given.as_bytes()).into();
        let difference = self
            .digest
            .iter()
            .zip(given.iter())
            .fold(0u8, |difference, (a, b)| difference | (a ^ b));
        std::hint::black_box(difference) == 0
    }
}

impl std::fmt::Debug for OperatorToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OperatorToken(..)")
    }
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
    fn a_sealed_token_opens_only_with_the_spent_secret_and_the_key() {
        let token = new_token().unwrap();
        let sealed = seal(&token, "code", "a-key-of-the-client").unwrap();
        assert_ne!(sealed, token);
        assert_eq!(
            seal(&sealed, "code", "a-key-of-the-client"),
            Some(token.clone())
        );
        assert_ne!(
            seal(&sealed, "code", "another-key-entirely"),
            Some(token.clone())
        );
        assert_ne!(seal(&sealed, "other", "a-key-of-the-client"), Some(token));
        assert_eq!(seal("not hex", "code", "key"), None);
    }

    #[test]
    fn the_stored_hash_is_not_the_token() {
        let token = new_token().unwrap();
        let hash = token_hash(&token);
        assert_ne!(hash, token);
        assert_eq!(hash, token_hash(&token), "the hash is stable for lookups");
    }

    #[test]
    fn the_operator_token_matches_itself_only_and_never_shows() {
        let token = OperatorToken::new("  0123456789abcdef-operator\n").unwrap();
        assert!(token.matches("0123456789abcdef-operator"));
        assert!(!token.matches("0123456789abcdef-operatoR"));
        assert!(!token.matches(""));
        assert!(!format!("{token:?}").contains("0123"));
        assert!(OperatorToken::new("short").is_err());
        assert!(OperatorToken::new("0123456789 abcdef-operator").is_err());
    }
}
