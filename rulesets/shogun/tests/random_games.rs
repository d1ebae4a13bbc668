//! Property tests over thousands of random bot games: 3, 4 and 5 players on both board sides,
//! with the real tower model. After every step the conservation laws must hold; every game ends
//! after the second winter; each winter's score, recomputed by an independent function below,
//! equals what the ruleset awarded.

use std::collections::BTreeSet;

use sdk::testing::SeededTable;
use sdk::{Game, Ruleset, Viewer, random_action};
use shogun::data::{MOON_MAP, SUN_MAP};
use shogun::state::State;
use shogun::{Shogun, ShogunGame};

mod common;

/// Checks the conservation laws of the rules on one state.
fn check_invariants(state: &State, context: &str) {
    let cards = state.board.cards();
    for (s, player) in state.players.iter().enumerate() {
        let on_board = state.armies_on_board(s as u32);
        assert_eq!(
            player.supply + on_board + player.in_tower + player.tray,
            cards.cubes_per_player,
            "{context}: seat {s}'s cubes are not all accounted for"
        );
    }
    assert_eq!(
        state.farmer_supply + state.farmers_in_tower + state.tray_farmers,
        cards.farmers,
        "{context}: farmers"
    );
    for (p, prov) in state.provinces.iter().enumerate() {
        match prov.owner {
            Some(owner) => {
                assert!(
                    owner < state.seats,
                    "{context}: province {p} held by no seat"
                );
                assert!(
                    state.in_play(p),
                    "{context}: out-of-play province {p} is held"
                );
                assert!(prov.armies >= 1, "{context}: held province {p} has no army");
            }
            None => assert!(
                prov.armies == 0 && prov.buildings() == 0 && prov.revolts == 0,
                "{context}: neutral province {p} is not empty"
            ),
        }
        assert!(
            prov.buildings() <= state.board.provinces[p].spaces,
            "{context}: province {p} overbuilt"
        );
    }
}

/// The winter score of a board, written independently of the ruleset: 1 VP per province,
/// 1 per building, and per region and building type 3/2/1 for the sole leader, one less each
/// for tied leaders.
fn independent_score(state: &State) -> Vec<i64> {
    let n = state.seats as usize;
    let mut score = vec![0i64; n];
    for (p, prov) in state.provinces.iter().enumerate() {
        if let (Some(owner), true) = (prov.owner, state.in_play(p)) {
            score[owner as usize] +=
                1 + i64::from(prov.castle) + i64::from(prov.temple) + i64::from(prov.theatre);
        }
    }
    for region in 0..state.board.regions.len() {
        for kind in 0..3 {
            let mut count = vec![0u32; n];
            for (p, prov) in state.provinces.iter().enumerate() {
                let has = [prov.castle, prov.temple, prov.theatre][kind];
                if let (true, Some(owner)) = (
                    state.board.provinces[p].region == region && has && state.in_play(p),
                    prov.owner,
                ) {
                    count[owner as usize] += 1;
                }
            }
            let best = *count.iter().max().unwrap();
            if best == 0 {
                continue;
            }
            let leaders: Vec<usize> = (0..n).filter(|&s| count[s] == best).collect();
            let full = [3, 2, 1][kind];
            let points = if leaders.len() == 1 { full } else { full - 1 };
            for s in leaders {
                score[s] += points;
            }
        }
    }
    score
}

fn vps(state: &State) -> Vec<i64> {
    state.players.iter().map(|p| i64::from(p.vp)).collect()
}

/// Plays one random game to the end, checking everything on the way.
fn play(seats: u32, map: &str, seed: u64, beginner: bool, seen: &mut BTreeSet<String>) {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8] = seats as u8;
    bytes[9] = u8::from(map == MOON_MAP);
    let mut table = SeededTable::new(bytes);
    let mut game: ShogunGame =
        sdk::testing::new_game::<Shogun>(seats, map, &common::setup_options(beginner), &mut table);
    let context = format!("{seats} seats, seed {seed}");
    check_invariants(&game.state, &context);
    let mut winters_scored = 0;
    let mut steps = 0;
    while !game.state.is_over() {
        steps += 1;
        assert!(steps < 5000, "{context}: the game does not end");
        let pending = game.pending();
        assert!(
            !pending.is_empty(),
            "{context}: a game not over waits for nobody"
        );
        let decision = &pending[table_pick(&mut table, pending.len())];
        let action = random_action(&decision.kind, &mut table);
        sdk::check_action_shape(&decision.kind, &action).unwrap();
        let year = game.state.year;
        // Victory points change only when a winter is scored.
        let before = vps(&game.state);
        let events = game
            .apply(decision.seat, &action, &mut table)
            .unwrap_or_else(|e| panic!("{context}: {e:?}"));
        seen.extend(events.into_iter().map(|e| e.text.key));
        check_invariants(&game.state, &context);
        for player in &game.state.players {
            assert!(
                player.rice < 1000 && player.chests < 1000,
                "{context}: a count wrapped around"
            );
        }
        // A winter was scored: the year moved on or the game ended.
        if game.state.year != year || game.state.is_over() {
            let gained: Vec<i64> = vps(&game.state)
                .iter()
                .zip(&before)
                .map(|(a, b)| a - b)
                .collect();
            assert_eq!(
                gained,
                independent_score(&game.state),
                "{context}: winter score"
            );
            winters_scored += 1;
        } else {
            assert_eq!(vps(&game.state), before, "{context}: points outside winter");
        }
        if steps % 97 == 0 {
            let restored = Shogun::restore(&game.snapshot()).unwrap();
            assert_eq!(restored, game, "{context}: snapshot");
            for seat in 0..seats {
                let copy = game.determinize(seat, &mut table);
                assert_eq!(
                    copy.view(Viewer::Seat(seat)),
                    game.view(Viewer::Seat(seat)),
                    "{context}: determinize"
                );
                check_invariants(&copy.state, &context);
            }
        }
    }
    assert_eq!(
        winters_scored, 2,
        "{context}: the game ends after the second winter"
    );
    assert_eq!(game.state.year, 2);
    assert!(game.pending().is_empty());
    let result = game.result().expect("a finished game has a result");
    assert_eq!(result.placings.len(), seats as usize);
    let scores: Vec<i64> = result.placings.iter().map(|p| p.score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]));
    assert_eq!(result.placings[0].rank, 1);
    let breakdown_total: i64 = result.breakdown.iter().map(|l| l.points).sum();
    assert_eq!(breakdown_total, vps(&game.state).iter().sum::<i64>());
}

fn table_pick(table: &mut SeededTable, len: usize) -> usize {
    use sdk::TableExt;
    table.pick_index(len)
}

fn run(seats: u32, map: &str, games: u64) {
    let mut seen = BTreeSet::new();
    for seed in 0..games {
        play(seats, map, seed, seed % 5 == 4, &mut seen);
    }
    // The random games reach every kind of situation the invariants are about.
    for key in [
        "log.attack-player-won",
        "log.attack-player-held",
        "log.attack-player-devastated",
        "log.attack-neutral-won",
        "log.attack-neutral-lost",
        "log.revolt-devastated",
        "log.revolt-put-down",
        "log.built",
        "log.moved",
        "log.skipped",
        "log.winter-rice",
    ] {
        assert!(seen.contains(key), "no random game produced {key}");
    }
}

/// Games per player count and board side. `SHOGUN_RANDOM_GAMES` lowers it where the suite runs
/// hundreds of times (`cargo xtask mutants`); the full count is what CI plays.
fn games() -> u64 {
    std::env::var("SHOGUN_RANDOM_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200)
}

#[test]
fn random_games_three_players_sun() {
    run(3, SUN_MAP, games());
}

#[test]
fn random_games_three_players_moon() {
    run(3, MOON_MAP, games());
}

#[test]
fn random_games_four_players_sun() {
    run(4, SUN_MAP, games());
}

#[test]
fn random_games_four_players_moon() {
    run(4, MOON_MAP, games());
}

#[test]
fn random_games_five_players_sun() {
    run(5, SUN_MAP, games());
}

#[test]
fn random_games_five_players_moon() {
    run(5, MOON_MAP, games());
}
