//! Every text of whole random games reads as a sentence: no unfilled placeholder, no raw key, no
//! "null", "undefined" or "NaN" (issue 22, item 4), and every move is told.

#[path = "../../shogun/tests/common/texts.rs"]
mod texts;

use sdk::Setup;
use tictactoe::TicTacToe;

#[test]
fn regression_every_text_of_whole_games_is_filled() {
    let mut findings = Vec::new();
    for seed in 0..20u8 {
        let setup = Setup {
            map: String::new(),
            options: Vec::new(),
            seats: 2,
        };
        findings.extend(texts::check_whole_game::<TicTacToe>(&setup, [seed; 32]));
    }
    findings.sort();
    findings.dedup();
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}
