//! Every text of whole random games reads as a sentence in every language: no unfilled
//! placeholder, no raw key, no "null", "undefined" or "NaN" (issue 22, item 4), and every step
//! a player can watch says what happened (no empty "made a move" caption, item 6).

#[path = "common/texts.rs"]
mod texts;

use sdk::testing::SeededTable;
use sdk::{Game, Options, Ruleset, Setup, random_action};
use shogun::data::{MOON_MAP, SUN_MAP};
use shogun::{Shogun, ShogunGame};
use texts::{Catalogues, MOST_FINDINGS, check_position, event_messages, sees, viewers};

const FIVE_ISLES: &str = include_str!("../../../maps/shogun/examples/five-isles.toml");

fn new_game(map: &str, seats: u32, seed: u8) -> (ShogunGame, SeededTable) {
    let mut table = SeededTable::new([seed; 32]);
    let setup = Setup {
        map: map.into(),
        options: Vec::new(),
        seats,
    };
    let options = Options::resolve(&Shogun::info().options, &[]).unwrap();
    let game = Shogun::create(&setup, &options, &mut table).expect("a game");
    (game, table)
}

/// Plays a whole random game, checking every text at every step; returns the findings.
fn play(map: &str, seats: u32, seed: u8, catalogues: &Catalogues) -> Vec<String> {
    let (mut game, mut table) = new_game(map, seats, seed);
    let mut findings = check_position(&game, seats, catalogues, "start");
    let mut step = 0;
    while let Some(decision) = game.pending().first().cloned() {
        let action = random_action(&decision.kind, &mut table);
        let events = game
            .apply(decision.seat, &action, &mut table)
            .expect("a random legal answer is accepted");
        step += 1;
        let context = format!("{seats} seats, seed {seed}, step {step}");
        for event in &events {
            for message in event_messages(event) {
                findings.extend(catalogues.check(&message, &format!("{context}, event")));
            }
        }
        // The story tells every answer to everyone who watches; an answer nobody is told of
        // reads "Player 2 made a move".
        for viewer in viewers(seats) {
            if !events.iter().any(|event| sees(event, viewer)) {
                findings.push(format!(
                    "{viewer:?} is told nothing of an answer to `{}`",
                    decision.prompt.key
                ));
            }
        }
        findings.extend(check_position(&game, seats, catalogues, &context));
        if findings.len() > MOST_FINDINGS * 10 {
            break;
        }
    }
    findings
}

#[test]
fn regression_every_text_of_whole_games_is_filled_in_every_language() {
    let catalogues = Catalogues::of::<Shogun>();
    let mut findings = Vec::new();
    for (map, seats, seed) in [
        (SUN_MAP, 4, 1),
        (SUN_MAP, 3, 2),
        (MOON_MAP, 5, 3),
        (FIVE_ISLES, 4, 4),
    ] {
        findings.extend(play(map, seats, seed, &catalogues));
        if findings.len() > MOST_FINDINGS {
            break;
        }
    }
    let findings: std::collections::BTreeSet<String> = findings.into_iter().collect();
    let findings: Vec<String> = findings.into_iter().collect();
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}
