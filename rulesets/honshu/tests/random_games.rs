//! Random-bot games for 2, 3, 4 and 5 players with the real random stream: after every step 60
//! cards and 40 resources are accounted for; every game ends after 12 rounds; the final score,
//! recomputed by an independent function below from each final personal map, equals the result.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{cards_accounted, options, resources_accounted, setup};
use honshu::data::Terrain;
use honshu::state::{Phase, State};
use honshu::{Honshu, HonshuGame};
use sdk::testing::SeededTable;
use sdk::{Game, OptionValue, Ruleset, Viewer, random_action};

fn games_per_count() -> u64 {
    std::env::var("HONSHU_RANDOM_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40)
}

/// The final score of a map from its visible squares, written apart from the ruleset with the
/// default values: 1 per forest, 1 per square of the largest town, 3 per lake square after the
/// first of each lake, 3 per resource a factory of its colour takes (one each).
fn independent_score(cells: &BTreeMap<(i32, i32), (Terrain, bool)>) -> (i64, i64) {
    let kinds: BTreeMap<(i32, i32), Terrain> = cells.iter().map(|(s, (t, _))| (*s, *t)).collect();
    let groups = |wanted: Terrain| -> Vec<i64> {
        let mut seen = BTreeSet::new();
        let mut sizes = Vec::new();
        for (&square, &terrain) in &kinds {
            if terrain != wanted || seen.contains(&square) {
                continue;
            }
            let mut frontier = vec![square];
            seen.insert(square);
            let mut size = 0;
            while let Some((x, y)) = frontier.pop() {
                size += 1;
                for n in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] {
                    if kinds.get(&n) == Some(&wanted) && seen.insert(n) {
                        frontier.push(n);
                    }
                }
            }
            sizes.push(size);
        }
        sizes
    };
    let forests = kinds.values().filter(|&&t| t == Terrain::Forest).count() as i64;
    let town = groups(Terrain::Town).into_iter().max().unwrap_or(0);
    let lakes: i64 = groups(Terrain::Lake).into_iter().map(|n| 3 * (n - 1)).sum();
    let mut factories = 0;
    for colour in honshu::data::COLOURS {
        let have = cells
            .values()
            .filter(|(t, has)| *has && *t == Terrain::Production(colour))
            .count() as i64;
        let take = kinds
            .values()
            .filter(|&&t| t == Terrain::Factory(colour))
            .count() as i64;
        factories += 3 * have.min(take);
    }
    let fallow = kinds.values().filter(|&&t| t == Terrain::Fallow).count() as i64;
    (forests + town + lakes + factories, fallow)
}

/// Every visible square of a seat's map as the public view shows it.
fn visible_map(game: &HonshuGame, seat: usize) -> BTreeMap<(i32, i32), (Terrain, bool)> {
    let view: serde_json::Value = serde_json::from_str(&game.view(Viewer::Spectator)).unwrap();
    view["players"][seat]["map"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let terrain = Terrain::parse(c["terrain"].as_str().unwrap()).unwrap();
            (
                (
                    c["x"].as_i64().unwrap() as i32,
                    c["y"].as_i64().unwrap() as i32,
                ),
                (terrain, !c["resource"].is_null()),
            )
        })
        .collect()
}

fn check(state: &State, context: &str) {
    let expected: Vec<u8> = (1..=60).collect();
    assert_eq!(cards_accounted(state), expected, "{context}: cards");
    assert_eq!(resources_accounted(state), 40, "{context}: resources");
    assert!(
        (1..=12).contains(&state.round),
        "{context}: round {}",
        state.round
    );
}

fn play(seats: u32, seed: u64, side: &str) -> HonshuGame {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    seed_bytes[8] = seats as u8;
    let mut table = SeededTable::new(seed_bytes);
    let options = options(&[("province-side", OptionValue::Choice(side.into()))]);
    let mut game = Honshu::create(&setup(seats), &options, &mut table).unwrap();
    let mut steps = 0;
    loop {
        let context = format!("{seats} seats, seed {seed}, step {steps}");
        check(&game.state, &context);
        let pending = game.pending();
        let Some(decision) = pending.first() else {
            break;
        };
        let action = random_action(&decision.kind, &mut table);
        game.apply(decision.seat, &action, &mut table)
            .unwrap_or_else(|e| panic!("{context}: a legal-shaped random answer was refused: {e}"));
        steps += 1;
        assert!(steps < 20_000, "{context}: the game does not end");
    }
    game
}

#[test]
fn random_games_end_after_twelve_rounds_with_cards_resources_and_scores_right() {
    for seats in 2..=5u32 {
        for seed in 0..games_per_count() {
            let side = if seed % 2 == 0 { "a" } else { "b" };
            let game = play(seats, seed, side);
            let state = &game.state;
            assert_eq!(state.phase, Phase::Over);
            assert_eq!(state.round, 12, "the game ends after the twelfth round");
            for (seat, player) in state.players.iter().enumerate() {
                assert!(player.hand.is_empty(), "hands are played out");
                // Province + one card per round.
                assert_eq!(
                    player.map.placed.len(),
                    13,
                    "seat {seat} placed a card each round"
                );
            }
            let result = game.result().expect("a finished game has a result");
            for placing in &result.placings {
                let (score, fallow) = independent_score(&visible_map(&game, placing.seat as usize));
                assert_eq!(
                    placing.score, score,
                    "{seats} seats, seed {seed}, seat {}",
                    placing.seat
                );
                assert_eq!(placing.tie_breaks, vec![fallow]);
            }
            // Snapshots restore the same game.
            let restored = Honshu::restore(&game.snapshot()).unwrap();
            assert_eq!(restored, game);
        }
    }
}

#[test]
fn determinized_copies_keep_what_the_seat_knows_and_conserve_cards() {
    let mut seed_bytes = [7u8; 32];
    for seats in 2..=5u32 {
        seed_bytes[0] = seats as u8;
        let mut table = SeededTable::new(seed_bytes);
        let mut game = Honshu::create(&setup(seats), &options(&[]), &mut table).unwrap();
        while let Some(decision) = game.pending().first().cloned() {
            for seat in 0..seats {
                let copy = game.determinize(seat, &mut table);
                check(&copy.state, "determinized");
                let me = &game.state.players[seat as usize];
                assert_eq!(
                    copy.state.players[seat as usize].hand, me.hand,
                    "own hand kept"
                );
                // Cards this seat passed are still where it knows they are.
                for (s, player) in game.state.players.iter().enumerate() {
                    for card in player.hand.iter().filter(|c| me.passed.contains(c)) {
                        assert!(
                            copy.state.players[s].hand.contains(card),
                            "a passed card moved"
                        );
                    }
                    assert_eq!(copy.state.players[s].hand.len(), player.hand.len());
                    assert_eq!(copy.state.players[s].map, player.map, "maps are public");
                }
            }
            let action = random_action(&decision.kind, &mut table);
            game.apply(decision.seat, &action, &mut table).unwrap();
        }
    }
}
