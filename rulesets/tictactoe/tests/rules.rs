//! A whole game through the rules: the decisions, the marks, the result and the snapshot.

use sdk::testing::SeededTable;
use sdk::{Action, Game, Ruleset};
use tictactoe::{Board, TicTacToe};

#[test]
fn the_first_seat_wins_on_the_diagonal_when_both_take_the_lowest_free_cell() {
    let mut board = Board::default();
    let mut table = SeededTable::new([0; 32]);
    for turn in 0..7 {
        let pending = board.pending();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].seat, turn % 2);
        board
            .apply(turn % 2, &Action::Choose(vec![0]), &mut table)
            .unwrap();
    }
    assert!(board.pending().is_empty());
    let result = board.result().unwrap();
    assert_eq!((result.placings[0].seat, result.placings[0].rank), (0, 1));
    assert_eq!(TicTacToe::restore(&board.snapshot()).unwrap(), board);
}
