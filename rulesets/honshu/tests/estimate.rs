//! The position estimate bots may use (`Game::evaluate`): each seat's share of the win, which
//! follows what its map would score now.

mod common;

use common::*;
use honshu::HonshuGame;
use sdk::Game;
use sdk::testing::ScriptedTable;

fn estimates(game: &HonshuGame) -> Vec<f64> {
    (0..game.state.seats)
        .map(|seat| game.evaluate(seat).expect("Honshu gives an estimate"))
        .collect()
}

fn random_step(game: &mut HonshuGame, table: &mut ScriptedTable) {
    let decision = game.pending().remove(0);
    random_answer(game, table, &decision);
}

#[test]
fn shares_are_chances_that_add_up_to_one_through_whole_games() {
    for (seats, seed) in [(2, 1), (3, 2), (4, 3), (5, 4)] {
        let (mut game, mut table) = new_game(seats, seed, &[]);
        assert_eq!(game.evaluate(seats), None, "no such seat");
        let mut steps = 0;
        while !game.pending().is_empty() {
            let shares = estimates(&game);
            assert!(
                shares.iter().all(|s| (0.0..=1.0).contains(s)),
                "{seats} seats, step {steps}: {shares:?}"
            );
            assert!(
                (shares.iter().sum::<f64>() - 1.0).abs() < 1e-9,
                "{seats} seats, step {steps}: {shares:?}"
            );
            random_step(&mut game, &mut table);
            steps += 1;
            assert!(steps < 10_000, "the game does not end");
        }
        // A finished game: the winners share 1, everyone else has nothing.
        let result = game.result().expect("the game is over");
        let winners = result.placings.iter().filter(|p| p.rank == 1).count() as f64;
        let shares = estimates(&game);
        for placing in &result.placings {
            let expected = if placing.rank == 1 {
                1.0 / winners
            } else {
                0.0
            };
            assert_eq!(shares[placing.seat as usize], expected, "{result:?}");
        }
    }
}

#[test]
fn the_better_map_stands_better() {
    let (mut game, mut table) = new_game(2, 7, &[]);
    // Play into the game until the two maps score differently.
    let score = |game: &HonshuGame, seat: usize| {
        honshu::engine::score_map(
            &game.state.players[seat].map,
            &game.state.settings.points,
            game.state.scoring_card,
        )
        .total
    };
    while score(&game, 0) == score(&game, 1) {
        random_step(&mut game, &mut table);
    }
    let better = if score(&game, 0) > score(&game, 1) {
        0
    } else {
        1
    };
    let shares = estimates(&game);
    assert!(shares[better] > shares[1 - better], "{shares:?}");
    // The same maps the other way round: the estimate follows the map.
    let (a, b) = game.state.players.split_at_mut(1);
    std::mem::swap(&mut a[0].map, &mut b[0].map);
    let swapped = estimates(&game);
    assert!(swapped[1 - better] > swapped[better], "{swapped:?}");
}

#[test]
fn the_estimate_changes_nothing_and_draws_nothing() {
    let (game, _) = new_game(3, 5, &[]);
    let before = game.clone();
    let first = estimates(&game);
    assert_eq!(estimates(&game), first);
    assert_eq!(game, before);
}
