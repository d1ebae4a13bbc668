//! The board as each viewer sees it, kept as snapshots (`tests/snapshots/`): a change to the
//! drawing shows up as a diff to review (`cargo insta review`, or read the `.snap.new` file)
//! instead of passing unseen. Tic-tac-toe is the example of `docs/sdk.md`, so its board is the
//! one an author compares theirs with.

use sdk::testing::SeededTable;
use sdk::{Action, Game, Ruleset, Setup, Viewer};
use tictactoe::TicTacToe;

/// A game after the first seat took the centre and the second a corner.
fn game_after_two_marks() -> <TicTacToe as Ruleset>::Game {
    let setup = Setup {
        map: String::new(),
        options: Vec::new(),
        seats: 2,
    };
    let mut table = SeededTable::new([0; 32]);
    let options = sdk::Options::resolve(&TicTacToe::info().options, &setup.options)
        .expect("no options to resolve");
    let mut game = TicTacToe::create(&setup, &options, &mut table).expect("a new game");
    // Choices are the free cells in order: the centre is the fifth, then the first corner.
    game.apply(0, &Action::Choose(vec![4]), &mut table)
        .expect("the centre is free");
    game.apply(1, &Action::Choose(vec![0]), &mut table)
        .expect("the corner is free");
    game
}

#[test]
fn the_seat_to_move_sees_the_free_cells_it_can_click() {
    let parts = game_after_two_marks().render(Viewer::Seat(0));
    assert_eq!(parts.len(), 1);
    insta::assert_snapshot!(parts[0].svg);
}

#[test]
fn a_spectator_sees_the_marks_and_nothing_to_click() {
    let parts = game_after_two_marks().render(Viewer::Spectator);
    assert!(!parts[0].svg.contains("data-choice"));
    insta::assert_snapshot!(parts[0].svg);
}
