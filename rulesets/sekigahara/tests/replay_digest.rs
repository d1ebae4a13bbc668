//! Fixed-seed games keep their exact course: the decisions, the answers, every event (key,
//! arguments, audience), the snapshots, the views and the boards drawn. A change to how the
//! rules are written (typed offers, outcomes worded in one module) must leave every stored game
//! replaying bit for bit; this digest is how that is checked. It changes only with the rules.

mod common;

use common::{SMALL, options, table};
use sdk::{OptionValue, Setup, Viewer, random_action};

const SHIPPED: &str = include_str!("../../../maps/sekigahara/japan-1600.toml");

/// FNV-1a over the JSON of everything a game shows, step by step.
#[derive(Default)]
struct Digest(u64);

impl Digest {
    fn add(&mut self, bytes: &[u8]) {
        if self.0 == 0 {
            self.0 = 0xcbf2_9ce4_8422_2325;
        }
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn json(&mut self, value: &impl serde::Serialize) {
        self.add(&serde_json::to_vec(value).expect("serialises"));
    }
}

fn digest_of_games(
    map: &str,
    settings: &[(&str, OptionValue)],
    seeds: std::ops::Range<u64>,
) -> u64 {
    let ruleset = sdk::native::adapt::<sekigahara::Sekigahara>();
    let _ = options(settings); // the settings fit the schema
    let setup = Setup {
        map: map.to_string(),
        options: settings
            .iter()
            .map(|(name, value)| sdk::OptionSetting {
                name: (*name).to_string(),
                value: value.clone(),
            })
            .collect(),
        seats: 2,
    };
    let mut digest = Digest::default();
    for seed in seeds {
        let mut table = table(seed);
        let mut game = ruleset.create(&setup, &mut table).expect("the board reads");
        for step in 0.. {
            let pending = game.pending();
            digest.json(&pending);
            if step % 7 == 0 {
                for seat in 0..2 {
                    digest.add(game.view(Viewer::Seat(seat)).as_bytes());
                    digest.json(&game.render(Viewer::Seat(seat)));
                }
            }
            let Some(decision) = pending.first() else {
                break;
            };
            let action = random_action(&decision.kind, &mut table);
            digest.json(&action);
            digest.json(&game.preview(decision.seat, &action));
            let events = game
                .apply(decision.seat, &action, &mut table)
                .expect("legal");
            digest.json(&events);
            digest.add(&game.snapshot());
            assert!(step < 20_000, "seed {seed}: the game does not end");
        }
        digest.json(&game.result());
    }
    digest.0
}

#[test]
fn fixed_seed_games_on_the_small_board_keep_their_digest() {
    let plain = digest_of_games(SMALL, &[], 0..12);
    let eliminated = digest_of_games(
        SMALL,
        &[("retreat", OptionValue::Choice("eliminated".into()))],
        100..106,
    );
    assert_eq!(
        (plain, eliminated),
        (14448841437911530232, 2752933021017881992)
    );
}

#[test]
fn fixed_seed_games_on_the_shipped_board_keep_their_digest() {
    assert_eq!(digest_of_games(SHIPPED, &[], 0..3), 15241540428020127506);
}
