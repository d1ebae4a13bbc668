//! How many decisions a second the rules take, natively, through the same calls the host makes
//! per action: `pending` (the host asks what is pending), then the SDK's `apply` (which asks
//! `pending` again for its shape check, clones the game and applies). Not a correctness test:
//! run it by hand in a release build,
//! `cargo test --release -p honshu --test speed -- --ignored --nocapture`.

mod common;

use std::time::Instant;

use common::{options, setup};
use honshu::Honshu;
use sdk::native::DynGame;
use sdk::testing::SeededTable;
use sdk::{Ruleset, random_action};

fn games() -> u64 {
    std::env::var("HONSHU_SPEED_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20)
}

#[test]
#[ignore = "a measurement, not a test: run it by hand in a release build"]
#[allow(
    clippy::disallowed_methods,
    reason = "a native measurement outside any game: the clock times the rules, not a game's state"
)]
fn decisions_per_second() {
    for seats in 2..=5u32 {
        let started = Instant::now();
        let mut decisions = 0u64;
        for seed in 0..games() {
            let mut seed_bytes = [0u8; 32];
            seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
            seed_bytes[8] = seats as u8;
            let mut table = SeededTable::new(seed_bytes);
            let mut game: Box<dyn DynGame> =
                Box::new(Honshu::create(&setup(seats), &options(&[]), &mut table).unwrap());
            while let Some(decision) = game.pending().into_iter().next() {
                let action = random_action(&decision.kind, &mut table);
                game.apply(decision.seat, &action, &mut table)
                    .expect("a legal-shaped random answer");
                decisions += 1;
            }
            assert!(game.result().is_some());
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{seats} players: {} games, {decisions} decisions in {seconds:.2} s: \
             {:.0} decisions/s, {:.1} ms/game",
            games(),
            decisions as f64 / seconds,
            seconds * 1000.0 / games() as f64
        );
    }
}
