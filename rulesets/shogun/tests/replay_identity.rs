//! Replay identity: fixed-seed random games, from the start and from every position file, must
//! ask the same questions, tell the same events (texts, order, drops), draw the same chance and
//! end in the same snapshot, bit for bit, as when the digests below were recorded. A change to
//! how the rules are written (typed moves, typed outcomes) must leave every stored game replaying;
//! a digest that moves means a stored game would not.
//!
//! The digests were recorded before moves and outcomes were typed (commit `01393cd`). Change one
//! only for a deliberate change of the rules or their texts, and say so in the commit.

use sdk::Ruleset as _;
use sdk::testing::{SeededTable, replay_digest};
use shogun::data::{MOON_MAP, SUN_MAP};
use shogun::{Shogun, ShogunGame};

mod common;

fn seeded(seed: u64, salt: u8) -> SeededTable {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8] = salt;
    SeededTable::new(bytes)
}

/// Plays `game` to the end (or 4,000 answers) with random answers drawn from `table`, digesting
/// every pending decision, answer, event and the final snapshot, view and result.
fn digest_of(mut game: ShogunGame, table: &mut SeededTable) -> u64 {
    let digest = replay_digest(&mut game, table, 4000, every_choice_decodes_to_its_own_id);
    assert!(game.state.is_over(), "a random game did not end");
    digest
}

/// Every choice offered stands for a move that writes the same id: the offer and the ids agree.
fn every_choice_decodes_to_its_own_id(game: &ShogunGame, pending: &[sdk::PendingDecision]) {
    for decision in pending {
        let offer = sdk::Play::offer(&game.state, decision.seat)
            .unwrap_or_else(|| panic!("seat {} has no offer", decision.seat));
        assert_eq!(
            &offer.decision(),
            decision,
            "the offer is the pending decision"
        );
        for (i, (choice, _)) in offer.choices().iter().enumerate() {
            let action = sdk::Action::Choose(vec![i as u32]);
            let mv = offer
                .decode(&action)
                .ok()
                .and_then(sdk::Answer::single)
                .unwrap_or_else(|| panic!("`{}` does not decode", choice.id));
            assert_eq!(
                mv.choice_id(&game.state.board).as_deref(),
                Some(choice.id.as_str())
            );
        }
    }
}

fn new_game(seats: u32, map: &str, beginner: bool, table: &mut SeededTable) -> ShogunGame {
    sdk::testing::new_game::<Shogun>(seats, map, &common::setup_options(beginner), table)
}

#[test]
fn fixed_seed_games_replay_bit_for_bit() {
    let mut found = Vec::new();
    for (seats, map, beginner, seed) in [
        (3, SUN_MAP, false, 1),
        (3, MOON_MAP, true, 2),
        (4, SUN_MAP, false, 3),
        (4, MOON_MAP, false, 4),
        (5, SUN_MAP, true, 5),
        (5, MOON_MAP, false, 6),
    ] {
        let mut table = seeded(seed, seats as u8);
        let game = new_game(seats, map, beginner, &mut table);
        found.push(digest_of(game, &mut table));
    }
    assert_eq!(found, GAMES, "the digests of the fixed-seed games moved");
}

#[test]
fn games_from_every_position_file_replay_bit_for_bit() {
    let mut found = Vec::new();
    for (i, (name, seats)) in POSITIONS.iter().enumerate() {
        let mut table = seeded(100 + i as u64, *seats as u8);
        let game = Shogun::create_from_position(
            &common::setup(*seats, SUN_MAP),
            &common::options(&[]),
            &common::position_text(name),
            &mut table,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        found.push((*name, digest_of(game, &mut table)));
    }
    let expected: Vec<(&str, u64)> = POSITIONS
        .iter()
        .zip(POSITION_DIGESTS)
        .map(|((name, _), digest)| (*name, digest))
        .collect();
    assert_eq!(found, expected, "the digests of the position games moved");
}

const GAMES: [u64; 6] = [
    1716084623683514636,
    16136548929250738170,
    208194347531274701,
    17283011676637227994,
    2679886914976582801,
    1759849786153866948,
];

const POSITIONS: [(&str, u32); 10] = [
    ("battle_farmers_defend", 4),
    ("battle_revolt_marker", 4),
    ("battle_tie", 4),
    ("bids", 4),
    ("deploy_move", 3),
    ("hunger", 4),
    ("majorities", 4),
    ("partial_action", 3),
    ("taxes_two_markers", 3),
    ("three_players", 3),
];

const POSITION_DIGESTS: [u64; 10] = [
    3515659667817972586,
    18193729450641243324,
    3938041543270054562,
    14065308917537492820,
    7353933373859038813,
    8464436802955693933,
    7680592856438910683,
    10775495973352378852,
    5213959957123380152,
    11467140448181294584,
];
