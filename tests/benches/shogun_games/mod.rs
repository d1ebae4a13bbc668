//! The games both benchmarks play: five-seat Shogun on the sun map, with random bots.

use host::NewGame as _;
use std::sync::Arc;

use host::bots::{Bot, BotKind, play_out};
use host::{GameSpec, LoadedRuleset, Session};

/// The sun side of the printed board.
pub const SUN: &str = include_str!("../../../maps/shogun/sun.toml");

/// Seats of every game: the most Shogun allows, the heaviest state.
pub const SEATS: u32 = 5;

/// The seed of game number `game`.
pub fn seed(game: u8) -> [u8; 32] {
    [game; 32]
}

/// Game number `game`: five seats on the sun map with the default options.
pub fn spec(game: u8) -> GameSpec {
    GameSpec {
        map_toml: SUN.to_owned(),
        options: Vec::new(),
        seats: SEATS,
        seed: seed(game),
        position: None,
    }
}

/// A random bot for every seat of game number `game`.
fn random_bots(game: u8) -> Vec<Box<dyn Bot>> {
    (0..SEATS)
        .map(|seat| BotKind::Random.create(&seed(game), seat))
        .collect()
}

/// Plays game number `game` to its end with random bots; returns the actions applied.
pub fn play_to_the_end(ruleset: &Arc<LoadedRuleset>, game: u8) -> u64 {
    let mut session = ruleset.new_game(spec(game)).expect("a game starts");
    play_out(&mut session, &mut random_bots(game), 50_000).expect("the game ends")
}

/// Game number `game` played `actions` decisions in by random bots (a five-seat game has about
/// 200 to 300).
pub fn mid_game(ruleset: &Arc<LoadedRuleset>, game: u8, actions: u32) -> Session {
    let mut session = ruleset.new_game(spec(game)).expect("a game starts");
    let mut bots = random_bots(game);
    for _ in 0..actions {
        let Some(decision) = session.pending().unwrap().into_iter().next() else {
            break;
        };
        let action = bots[decision.seat as usize]
            .decide(&mut session, &decision)
            .unwrap();
        // A refused random answer changes nothing; the next turn asks again.
        let _ = session.apply(decision.seat, &action);
    }
    session
}
