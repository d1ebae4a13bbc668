//! Replay identity: fixed-seed random games for 2 to 5 players must ask the same questions, tell
//! the same events in the same order, draw the same chance and end in the same snapshot, bit for
//! bit, as when the digests below were recorded. A change to how the rules are written (typed
//! moves, typed outcomes) must leave every stored game replaying; a digest that moves means a
//! stored game would not.
//!
//! The digests were recorded before moves and outcomes were typed. Change one only for a
//! deliberate change of the rules or their texts, and say so in the commit.

mod common;

use common::{options, setup};
use honshu::moves::Move;
use honshu::{Honshu, HonshuGame};
use sdk::testing::{SeededTable, replay_digest};
use sdk::{OptionValue, Ruleset};

/// Plays `game` to the end with random answers drawn from `table`, digesting every pending
/// decision, answer, event and the final snapshot, view and result.
fn digest_of(mut game: HonshuGame, table: &mut SeededTable) -> u64 {
    let digest = replay_digest(&mut game, table, 4000, every_choice_decodes_to_its_own_id);
    assert!(game.state.is_over(), "a random game did not end");
    digest
}

/// Every choice of a one-choice decision decodes to a move that writes the same id: encode and
/// decode agree.
fn every_choice_decodes_to_its_own_id(game: &HonshuGame, pending: &[sdk::PendingDecision]) {
    for decision in pending {
        let sdk::DecisionKind::Choose(choose) = &decision.kind else {
            continue;
        };
        if choose.max != 1 {
            continue;
        }
        for (i, choice) in choose.choices.iter().enumerate() {
            let action = sdk::Action::Choose(vec![i as u32]);
            let mv = honshu::decide::offer_of(&game.state, decision.seat)
                .expect("the seat is offered its decision")
                .into_answer(&action)
                .and_then(Move::of_answer)
                .unwrap_or_else(|e| panic!("`{}` does not decode: {e:?}", choice.id));
            assert_eq!(mv.choice_id().as_deref(), Some(choice.id.as_str()));
        }
    }
}

#[test]
fn fixed_seed_games_replay_bit_for_bit() {
    let mut found = Vec::new();
    for (seats, side, scoring, seed) in [
        (2, "a", "random", 1u64),
        (3, "b", "random", 2),
        (4, "a", "none", 3),
        (5, "b", "random", 4),
    ] {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8] = seats as u8;
        let mut table = SeededTable::new(bytes);
        let options = options(&[
            ("province-side", OptionValue::Choice(side.into())),
            ("scoring-card", OptionValue::Choice(scoring.into())),
        ]);
        let game = Honshu::create(&setup(seats), &options, &mut table).unwrap();
        found.push(digest_of(game, &mut table));
    }
    assert_eq!(found, GAMES, "the digests of the fixed-seed games moved");
}

/// Recorded again when the steps of a placement in progress became the placing seat's own
/// events (they were told to everyone): the same questions, answers, chance and snapshots, only
/// the audience of those events changed.
const GAMES: [u64; 4] = [
    17124601816223467045,
    9109802516460967233,
    467738120504454389,
    7875263506493454271,
];
