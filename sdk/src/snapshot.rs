//! The bytes of a game's snapshot, for a ruleset whose game is plain serde data: postcard, which
//! every shipped ruleset uses. Implement [`Game::snapshot`](crate::Game::snapshot) with
//! [`write()`] and [`Ruleset::restore`](crate::Ruleset::restore) with [`read()`].
//!
//! Postcard writes a struct as its fields one after the other, so a game type that wraps its
//! state in a one-field struct writes the same bytes as the state alone.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The snapshot of `game`.
pub fn write<T: Serialize>(game: &T) -> Vec<u8> {
    postcard::to_allocvec(game).unwrap_or_default()
}

/// The game a snapshot of [`write()`] holds, or why the bytes are not one.
pub fn read<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| format!("not a snapshot of this game: {e}"))
}

#[cfg(test)]
mod tests {
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct State {
        round: u8,
        hands: Vec<Vec<u8>>,
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Game {
        state: State,
    }

    #[test]
    fn a_game_reads_back_and_its_wrapper_adds_no_byte() {
        let state = State {
            round: 3,
            hands: vec![vec![1, 2], vec![]],
        };
        let bytes = super::write(&state);
        let game = Game { state };
        assert_eq!(super::write(&game), bytes);
        assert_eq!(super::read::<Game>(&bytes), Ok(game));
        assert!(super::read::<Game>(&bytes[..2]).is_err());
    }
}
