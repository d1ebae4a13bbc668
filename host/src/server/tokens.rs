//! Seat tokens and game ids: unguessable random strings. Only the SHA-256 of a token is stored,
//! so a copy of the database does not let anyone act for a seat.

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

/// A new seat token, as URL-safe lowercase hex.
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
