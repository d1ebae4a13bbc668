//! The catalogues: every template parses, plurals fit each language, translations match English.

use sekigahara::Sekigahara;

/// Every finding of the SDK's check: templates parse, plurals carry every form of their
/// language (Russian's one/few/many/other included), translations match English.
#[test]
fn catalogues() {
    let findings = sdk::testing::check_catalogues::<Sekigahara>();
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}

/// Every key the engine emits is in the English catalogue.
#[test]
fn every_emitted_key_is_catalogued() {
    let catalogue = sdk::Catalogue::from_toml(sekigahara::CATALOGUES.get("en").unwrap_or_default())
        .expect("reads");
    let keys: std::collections::BTreeSet<&str> = catalogue.pairs().map(|(k, _)| k).collect();
    let sources = [
        include_str!("../src/combat.rs"),
        include_str!("../src/decide.rs"),
        include_str!("../src/engine.rs"),
        include_str!("../src/movement.rs"),
        include_str!("../src/names.rs"),
        include_str!("../src/preview.rs"),
        include_str!("../src/render.rs"),
        include_str!("../src/lib.rs"),
    ];
    let mut missing = Vec::new();
    for source in sources {
        for piece in source.split('"').skip(1).step_by(2) {
            let prefix = piece.split('.').next().unwrap_or("");
            let catalogued_prefix = [
                "event", "prompt", "choice", "detail", "level", "kind", "symbol", "card",
                "summary", "score", "result", "preview", "reject", "render",
            ];
            if catalogued_prefix.contains(&prefix)
                && piece.contains('.')
                && !piece.contains(' ')
                && !piece.ends_with('.')
                && !keys.contains(piece)
            {
                missing.push(piece.to_string());
            }
        }
    }
    assert!(missing.is_empty(), "not catalogued: {missing:?}");
}

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
