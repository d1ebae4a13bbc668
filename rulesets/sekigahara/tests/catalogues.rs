//! The catalogues head each option group the lobby shows (the SDK's conformance suite checks the
//! rest, the variants' names and descriptions included: `tests/conformance.rs`).

/// The lobby names a variant, and says what it changes, from `variant.<id>` and
/// `variant.<id>.description` (the id is the variant file's name; checked by the conformance
/// suite), and heads each option group from `option-group.<word>`; a missing key showed the
/// file's English text to a Russian player. Every language has the English keys (the catalogue
/// check), so English having the key is enough.
#[test]
fn regression_variants_and_the_siege_group_were_shown_in_english_in_every_language() {
    let english = sekigahara::CATALOGUES.english();
    assert!(english.get("option-group.siege").is_some());
}
