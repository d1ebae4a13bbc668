//! The position estimate bots may use (`Game::evaluate`): each side's chance of winning, which
//! follows the points, the blocks and cards, and the danger to what ends the game at once.

mod common;

use common::*;
use sdk::Game;
use sekigahara::SekigaharaGame;
use sekigahara::state::{Ending, Step};

fn estimates(game: &SekigaharaGame) -> [f64; 2] {
    [0, 1].map(|seat| game.evaluate(seat).expect("Sekigahara gives an estimate"))
}

#[test]
fn a_finished_game_gives_the_winner_one_and_the_loser_nothing() {
    let (mut game, _) = empty_position(1);
    game.state.ending = Some((1, Ending::Points));
    game.state.step = Step::Over;
    assert_eq!(estimates(&game), [0.0, 1.0]);
    game.state.ending = Some((0, Ending::Commander));
    assert_eq!(estimates(&game), [1.0, 0.0]);
}

#[test]
fn a_fallen_commander_loses_before_the_ending_is_recorded() {
    let (mut game, _) = empty_position(1);
    game.state.fallen = [false, true];
    assert_eq!(estimates(&game), [1.0, 0.0]);
}

#[test]
fn the_estimates_are_chances_that_add_up_to_one() {
    let mut table = table(3);
    let game = new_game(SMALL, &mut table);
    let [west, east] = estimates(&game);
    assert!((0.0..=1.0).contains(&west) && (0.0..=1.0).contains(&east));
    assert!((west + east - 1.0).abs() < 1e-9, "{west} + {east}");
    assert_eq!(game.evaluate(2), None, "no third seat");
}

#[test]
fn more_blocks_and_more_points_stand_better() {
    let (mut game, _) = empty_position(1);
    let state = &mut game.state;
    put(state, &["west-commander"], "west-capital");
    put(state, &["east-commander"], "east-capital");
    let even = estimates(&game);
    // The west takes the east's farm with a strong stack: more points and more blocks.
    put(&mut game.state, &["red-2", "red-4", "gold-1"], "farm");
    let ahead = estimates(&game);
    assert!(ahead[0] > even[0], "{even:?} -> {ahead:?}");
    assert!(ahead[1] < even[1], "{even:?} -> {ahead:?}");
    assert!(ahead[0] > 0.5, "{ahead:?}");
}

#[test]
fn a_lead_counts_for_more_in_the_last_week() {
    let (mut game, _) = empty_position(1);
    put(&mut game.state, &["west-commander"], "west-capital");
    put(&mut game.state, &["east-commander"], "east-capital");
    put(&mut game.state, &["red-2", "red-4", "gold-1"], "farm");
    let early = estimates(&game)[0];
    game.state.week = game.state.board.weeks();
    game.state.turn = 1;
    let late = estimates(&game)[0];
    assert!(
        late > early && early > 0.5,
        "week 1: {early}, last turn: {late}"
    );
}

#[test]
fn enemies_beside_a_commander_put_its_side_in_danger() {
    let (mut game, _) = empty_position(1);
    put(&mut game.state, &["west-commander"], "west-capital");
    put(
        &mut game.state,
        &["east-commander", "blue-1"],
        "east-capital",
    );
    put(&mut game.state, &["grey-1"], "farm");
    let safe = estimates(&game);
    // Two eastern blocks reach the west's commander: the same blocks, the same points (a
    // resource area stays with its last holder), only the danger changed.
    put(&mut game.state, &["grey-1", "blue-1"], "west-capital");
    assert_eq!(game.state.points(0), 4);
    let besieged = estimates(&game);
    assert!(besieged[0] < safe[0], "{safe:?} -> {besieged:?}");
}

#[test]
fn the_estimate_changes_nothing_and_draws_nothing() {
    // `evaluate` has no table to draw from; asking twice gives the same answer and the game
    // is as it was.
    let mut table = table(5);
    let game = new_game(SMALL, &mut table);
    let before = game.clone();
    let first = estimates(&game);
    assert_eq!(estimates(&game), first);
    assert_eq!(game, before);
}

#[test]
fn random_games_keep_every_estimate_a_chance() {
    for seed in 0..4 {
        let mut table = table(seed);
        let mut game = new_game(SMALL, &mut table);
        let mut steps = 0;
        while !game.pending().is_empty() && steps < 5_000 {
            let [west, east] = estimates(&game);
            assert!(
                (0.0..=1.0).contains(&west),
                "seed {seed} step {steps}: {west}"
            );
            assert!((west + east - 1.0).abs() < 1e-9, "seed {seed} step {steps}");
            let decision = game.pending().remove(0);
            let action = sdk::random_action(&decision.kind, &mut table);
            game.apply(decision.seat, &action, &mut table)
                .expect("random answers are legal");
            steps += 1;
        }
        let result = game.result().expect("the game ended");
        let winner = result.placings[0].seat;
        let mut expected = [0.0, 0.0];
        expected[winner as usize] = 1.0;
        assert_eq!(estimates(&game), expected, "seed {seed}");
    }
}
