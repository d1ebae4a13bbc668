//! The catalogues name what the lobby shows of a variant in every language (the SDK's
//! conformance suite checks the rest: `tests/conformance.rs`).

use sekigahara::Sekigahara;

/// The lobby names a variant, and says what it changes, from `variant.<id>` and
/// `variant.<id>.description` (the id is the variant file's name), and heads each option group
/// from `option-group.<word>`; a missing key shows the file's English text to a Russian player.
#[test]
fn regression_variants_and_the_siege_group_were_shown_in_english_in_every_language() {
    use sdk::Ruleset as _;
    let folder =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../maps/sekigahara/variants");
    let mut ids: Vec<String> = std::fs::read_dir(&folder)
        .expect("the variants folder")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    assert!(ids.len() >= 9, "variants found: {ids:?}");
    for language in ["ru", "en", "es", "de", "ro"] {
        let text = Sekigahara::catalogue(language).expect("a catalogue");
        let catalogue = sdk::Catalogue::from_toml(text).expect("reads");
        let keys: std::collections::BTreeSet<&str> = catalogue.pairs().map(|(k, _)| k).collect();
        let wanted = ids
            .iter()
            .flat_map(|id| [format!("variant.{id}"), format!("variant.{id}.description")])
            .chain(["option-group.siege".to_string()]);
        for key in wanted {
            assert!(keys.contains(key.as_str()), "`{language}` has no `{key}`");
        }
    }
}
