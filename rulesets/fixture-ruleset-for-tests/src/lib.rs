//! A small bidding game that exercises every part of the contract, for the host's tests.
//! Never shipped.
//!
//! Each seat holds secret tokens worth 1 to 6. A round has three steps:
//! 1. every seat bids one or two tokens at once and in secret (an `assign` decision);
//! 2. the bids are revealed, each seat drops its bid as cubes into the battle tower and adds the
//!    cubes of its own that come out; the strongest seat picks one of three prize cards drawn at
//!    random (a `choose` decision), a tie gives no prize;
//! 3. each seat in turn draws 0 to 2 new tokens at a point each (a `number` decision).
//!
//! After the last round the most points win; ties break on the value of the tokens left in hand,
//! and seats equal on both share the place.
//!
//! The map (TOML) may set `deck` (prize values, 1 to 20 each), `start-tokens` (1 to 8),
//! `bid-cap` (a bid above it is illegal) and `hand-limit` (a draw that leaves more tokens in hand
//! is illegal). An empty map is the default game.

mod game;
mod map;

pub use game::{Fixture, FixtureGame, ID, Phase, Scoring};
pub use map::{FixtureMap, parse_map};

sdk::register_ruleset!(Fixture);
