//! Account names and passwords: what the server accepts, and the password's Argon2id hash.
//!
//! Parameters (OWASP's recommendation for Argon2id): 19 MiB of memory, 2 passes, 1 lane, a
//! 16-byte random salt and a 32-byte output, written into the PHC string
//! (`$argon2id$v=19$m=19456,t=2,p=1$...`) with the salt. Verifying reads the parameters from
//! the stored string, so raising them later keeps old hashes working. Hashing runs in the
//! accounts' own bounded slots on the blocking pool, never on the async reactor.

use std::sync::OnceLock;

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::error::{AppError, AppResult};

/// Memory per hash, in KiB.
pub const MEMORY_KIB: u32 = 19 * 1024;
/// Passes over the memory.
pub const PASSES: u32 = 2;
/// Lanes.
pub const LANES: u32 = 1;

/// The characters of an account name, and how many.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 3..=32;
/// The characters of a password, and how many (a passphrase fits; a megabyte does not).
pub const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 10..=128;

fn hasher() -> AppResult<Argon2<'static>> {
    let params = Params::new(MEMORY_KIB, PASSES, LANES, Some(32))
        .map_err(|error| AppError::Internal(anyhow::anyhow!("argon2 parameters: {error}")))?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// The name as stored, or why it is refused: 3 to 32 of `a-z`, `A-Z`, `0-9`, `.`, `_`, `-`,
/// starting with a letter or digit (no look-alike letters of other scripts, no spaces).
pub fn account_name(raw: &str) -> AppResult<String> {
    let valid = NAME_CHARS.contains(&raw.chars().count())
        && raw.starts_with(|c: char| c.is_ascii_alphanumeric())
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !valid {
        return Err(AppError::BadRequest(format!(
            "an account name has {} to {} characters: letters a-z, digits, `.`, `_` and `-`, \
             starting with a letter or digit",
            NAME_CHARS.start(),
            NAME_CHARS.end()
        )));
    }
    Ok(raw.to_owned())
}

/// The key two names are told apart by: case does not count.
pub fn name_key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// Checks a new password's length (the message never repeats the password).
pub fn new_password(password: &str) -> AppResult<()> {
    if !PASSWORD_CHARS.contains(&password.chars().count()) {
        return Err(AppError::BadRequest(format!(
            "a password has {} to {} characters",
            PASSWORD_CHARS.start(),
            PASSWORD_CHARS.end()
        )));
    }
    Ok(())
}

/// Checks a password given at sign-in only for its size, so a hash is never computed over an
/// unbounded input; a wrong one is answered as any wrong password.
pub fn given_password(password: &str) -> AppResult<()> {
    if password.is_empty() || password.chars().count() > *PASSWORD_CHARS.end() {
        return Err(AppError::BadRequest(format!(
            "a password has at most {} characters",
            PASSWORD_CHARS.end()
        )));
    }
    Ok(())
}

/// The Argon2id PHC string of `password`, with a fresh random salt. Slow on purpose: call it
/// in a slot off the reactor.
pub fn hash(password: &str) -> AppResult<String> {
    let hashed = hasher()?
        .hash_password(password.as_bytes())
        .map_err(|error| {
            AppError::Internal(anyhow::anyhow!("failed to hash a password: {error}"))
        })?;
    Ok(hashed.to_string())
}

/// Whether `password` matches the stored PHC string. `None` (an unknown account) checks
/// against a hash of nothing anyone knows, so a wrong name costs as much time as a wrong
/// password and timing does not tell which names exist.
pub fn verify(password: &str, stored: Option<&str>) -> bool {
    static DECOY: OnceLock<Option<String>> = OnceLock::new();
    match stored {
        Some(stored) => matches(password, stored),
        None => {
            if let Some(decoy) = DECOY.get_or_init(|| hash("a decoy nobody signs in with").ok()) {
                let _ = matches(password, decoy);
            }
            false
        }
    }
}

/// Whether `password` matches the PHC string `stored`.
fn matches(password: &str, stored: &str) -> bool {
    let (Ok(parsed), Ok(verifier)) = (PasswordHash::new(stored), hasher()) else {
        return false;
    };
    verifier
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_is_argon2id_salted_and_verifies_only_its_password() {
        let first = hash("correct horse battery").unwrap();
        let second = hash("correct horse battery").unwrap();
        assert!(
            first.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{first}"
        );
        assert_ne!(first, second, "each hash has its own salt");
        assert!(!first.contains("correct horse"));
        assert!(verify("correct horse battery", Some(&first)));
        assert!(!verify("correct horse battera", Some(&first)));
        assert!(!verify("a decoy nobody signs in with", None));
        assert!(!verify("anything", Some("not a phc string")));
    }

    #[test]
    fn names_and_passwords_are_bounded() {
        assert!(account_name("ab").is_err());
        assert!(account_name("player.one_2-x").is_ok());
        assert!(account_name(".dot").is_err());
        assert!(account_name("with space").is_err());
        assert!(account_name("Ѕpoof").is_err(), "a Cyrillic look-alike");
        assert!(account_name(&"a".repeat(33)).is_err());
        assert_eq!(name_key("Player"), name_key("pLAYER"));
        assert!(new_password("short").is_err());
        assert!(new_password(&"x".repeat(129)).is_err());
        assert!(new_password("long enough passphrase").is_ok());
        assert!(given_password("").is_err());
    }
}
