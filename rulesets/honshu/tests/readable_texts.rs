//! Every text of whole random games reads as a sentence in every language: no unfilled
//! placeholder, no raw key, no "null", "undefined" or "NaN" (issue 22, item 4), and every step
//! a player can watch says what happened (no empty "made a move" caption, item 6).

#[path = "../../shogun/tests/common/texts.rs"]
mod texts;

use honshu::Honshu;
use sdk::Setup;

#[test]
fn regression_every_text_of_whole_games_is_filled_in_every_language() {
    let mut findings = Vec::new();
    for (seats, seed) in [(2, 1), (3, 2), (5, 3)] {
        let setup = Setup {
            map: String::new(),
            options: Vec::new(),
            seats,
        };
        findings.extend(texts::check_whole_game::<Honshu>(&setup, [seed; 32]));
    }
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}
