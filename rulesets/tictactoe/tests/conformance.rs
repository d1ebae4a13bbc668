//! What every ruleset must do, by the SDK's conformance suite: a catalogue with every key the
//! game emits, random games that end, snapshots that restore, the same seed the same game.

#[test]
fn tictactoe_conforms() {
    sdk::testing::Conformance::new()
        .setup(2, "", &[])
        .seeds(4)
        .run::<tictactoe::TicTacToe>();
}
