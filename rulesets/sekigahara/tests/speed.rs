//! Measures (prints, never asserts) what a search bot's playouts cost natively: the snapshot's
//! size and the time per random action, with and without a snapshot round trip per playout.
//! Run with `cargo test -p sekigahara --release --test speed -- --ignored --nocapture`.

mod common;

use common::{new_game, table};
use sdk::native::DynGame;
use sdk::{Game, Ruleset, random_action};
use sekigahara::Sekigahara;
use std::time::Instant;

const BOARD: &str = include_str!("../../../maps/sekigahara/japan-1600.toml");

#[test]
#[ignore = "a measurement, not a check"]
#[allow(
    clippy::disallowed_methods,
    reason = "a native measurement outside any game: the clock times the rules, it is not in them"
)]
fn playout_costs() {
    let mut t = table(1);
    let game = new_game(BOARD, &mut t);
    println!(
        "snapshot bytes at the start: {}",
        Game::snapshot(&game).len()
    );
    let started = Instant::now();
    let mut actions = 0u64;
    let mut pending_calls = 0u64;
    for seed in 0..50 {
        let mut t = table(seed);
        // Through the SDK's dynamic game, as the host calls it: it asks `pending` again for its
        // shape check and clones the game before each action.
        let mut game: Box<dyn DynGame> = Box::new(new_game(BOARD, &mut t));
        while let Some(d) = game.pending().first().cloned() {
            pending_calls += 1;
            let a = random_action(&d.kind, &mut t);
            game.apply(d.seat, &a, &mut t).expect("legal");
            actions += 1;
        }
    }
    let elapsed = started.elapsed();
    println!(
        "{actions} actions in {elapsed:?}: {:?} per action ({pending_calls} pending calls)",
        elapsed / actions as u32
    );
    let started = Instant::now();
    let bytes = Game::snapshot(&game);
    for _ in 0..1000 {
        let copy = Game::determinize(&game, 0, &mut t);
        let bytes = Game::snapshot(&copy);
        let _ = Sekigahara::restore(&bytes).expect("restores");
    }
    println!(
        "determinize + snapshot + restore: {:?} each ({} bytes)",
        started.elapsed() / 1000,
        bytes.len()
    );
}

/// Prints how many decisions of each kind a random game on the shipped board asks.
#[test]
#[ignore = "a measurement, not a check"]
fn decisions_by_step() {
    let mut counts = std::collections::BTreeMap::new();
    for seed in 0..50 {
        let mut t = table(seed);
        let mut game = new_game(BOARD, &mut t);
        while let Some(d) = Game::pending(&game).first().cloned() {
            let name = format!("{:?}", game.state.step);
            let name = name.split([' ', '{', '(']).next().unwrap_or("").to_string();
            let name = if name == "Battle" {
                let stage = format!("{:?}", game.state.battle.as_ref().map(|b| b.stage.clone()));
                format!("Battle/{}", stage.split(['(', ' ']).nth(1).unwrap_or(""))
            } else {
                name
            };
            *counts.entry(name).or_insert(0u64) += 1;
            let a = random_action(&d.kind, &mut t);
            Game::apply(&mut game, d.seat, &a, &mut t).expect("legal");
        }
    }
    for (name, n) in counts {
        println!("{name}: {:.1} a game", n as f64 / 50.0);
    }
}
