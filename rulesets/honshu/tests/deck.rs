//! The shipped deck passes its own check, and a broken deck file gets located diagnostics.

use honshu::Honshu;
use honshu::data::{Deck, STANDARD_DECK, validate};
use sdk::Ruleset;

#[test]
fn the_shipped_deck_is_clean_and_has_sixty_cards_and_six_provinces() {
    assert_eq!(validate(STANDARD_DECK), vec![]);
    let deck = Deck::standard();
    assert_eq!(deck.cards.len(), 60);
    assert_eq!(deck.provinces.len(), 6);
    // Side A is the same on every card, side B differs.
    assert!(
        deck.provinces
            .iter()
            .all(|p| p.sides[0] == deck.provinces[0].sides[0])
    );
    assert!(
        deck.provinces[1..]
            .iter()
            .any(|p| p.sides[1] != deck.provinces[0].sides[1])
    );
}

#[test]
fn no_map_is_no_finding() {
    assert!(Honshu::validate_map("").is_empty());
    assert!(Honshu::info().maps.is_empty(), "Honshu takes no map");
}

#[test]
fn a_bad_terrain_and_a_duplicate_card_are_reported_at_their_place() {
    let broken = STANDARD_DECK
        .replacen("\"forest\"", "\"forrest\"", 1)
        .replacen("number = 2\n", "number = 1\n", 1);
    let found = Honshu::validate_map(&broken);
    let line_of =
        |needle: &str| broken.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1;
    let terrain = found
        .iter()
        .find(|d| d.text.contains("forrest"))
        .expect("unknown terrain");
    assert_eq!(terrain.line, line_of("\"forrest\""));
    assert!(terrain.column > 1);
    let twice = found
        .iter()
        .find(|d| d.text.contains("listed twice"))
        .expect("duplicate");
    assert!(twice.line > 0);
    assert!(found.iter().any(|d| d.text.contains("missing: 2")));
}

#[test]
fn a_grammar_error_names_its_line() {
    let found = Honshu::validate_map("[deck]\nruleset = \"honshu\"\nname = 3\n");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].line, 3);
}

#[test]
fn a_card_with_five_squares_is_refused() {
    let broken = STANDARD_DECK.replacen(", \"town\"]", "]", 1);
    let found = Honshu::validate_map(&broken);
    assert!(
        found
            .iter()
            .any(|d| d.is_error() && d.text.contains("5 squares") && d.line > 0),
        "{found:?}"
    );
}
