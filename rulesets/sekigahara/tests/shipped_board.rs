//! The shipped board reads clean and plays: random games on it end.

mod common;

use common::{new_game, table};
use sdk::{Game, random_action};
use sekigahara::data::Board;

const BOARD: &str = include_str!("../../../maps/sekigahara/japan-1600.toml");

#[test]
fn the_shipped_board_reads_clean() {
    let (board, warnings) = Board::from_toml(BOARD).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(board.weeks(), 7);
    for side in 0..2 {
        assert_eq!(board.blocks.iter().filter(|b| b.side == side).count(), 48);
    }
}

#[test]
fn random_games_on_the_shipped_board_end() {
    let mut endings = [0u32; 2];
    for seed in 0..20 {
        let mut table = table(seed);
        let mut game = new_game(BOARD, &mut table);
        let mut steps = 0;
        while let Some(decision) = game.pending().first().cloned() {
            let action = random_action(&decision.kind, &mut table);
            game.apply(decision.seat, &action, &mut table)
                .unwrap_or_else(|e| panic!("seed {seed} step {steps}: {e:?}"));
            steps += 1;
            assert!(steps < 50_000, "seed {seed}: the game does not end");
        }
        let (winner, _) = game.state.ending.expect("ended");
        endings[winner] += 1;
    }
    eprintln!("random-bot wins by side: {endings:?}");
}
