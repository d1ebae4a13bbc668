//! Every text of whole random games reads as a sentence in every language: no unfilled
//! placeholder, no raw key, no "null", "undefined" or "NaN" (issue 22, item 4), and every step
//! a player can watch says what happened (no empty "made a move" caption, item 6).

#[path = "common/texts.rs"]
mod texts;

use sdk::Setup;
use shogun::Shogun;
use shogun::data::{MOON_MAP, SUN_MAP};

const FIVE_ISLES: &str = include_str!("../../../maps/shogun/examples/five-isles.toml");

#[test]
fn regression_every_text_of_whole_games_is_filled_in_every_language() {
    let mut findings = Vec::new();
    for (map, seats, seed) in [
        (SUN_MAP, 4, 1),
        (SUN_MAP, 3, 2),
        (MOON_MAP, 5, 3),
        (FIVE_ISLES, 4, 4),
    ] {
        let setup = Setup {
            map: map.into(),
            options: Vec::new(),
            seats,
        };
        findings.extend(texts::check_whole_game::<Shogun>(&setup, [seed; 32]));
    }
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}
