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
    let catalogue = sdk::Catalogue::from_toml(sekigahara::CATALOGUE_EN).expect("reads");
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
