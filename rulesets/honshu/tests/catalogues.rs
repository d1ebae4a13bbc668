//! Every language has every key of the English catalogue with the same placeholders, every
//! plural has the CLDR categories of its language, and every key the game emits exists.

use honshu::Honshu;
use sdk::{Catalogue, Ruleset};

fn keys(language: &str) -> Vec<String> {
    let text = Honshu::catalogue(language).expect("a shipped language");
    let catalogue = Catalogue::from_toml(text).expect("a catalogue parses");
    let mut keys: Vec<String> = catalogue.pairs().map(|(k, _)| k.to_owned()).collect();
    keys.sort();
    keys
}

#[test]
fn plurals_render_in_the_language_of_the_catalogue() {
    for language in Honshu::info().languages {
        let catalogue = Catalogue::from_toml(Honshu::catalogue(&language).unwrap())
            .unwrap()
            .with_language(language.as_str());
        let mut plurals = 0;
        for (key, template) in catalogue.pairs() {
            let counted: Vec<String> = sdk::plural::plurals(template)
                .unwrap()
                .into_iter()
                .map(|(arg, _)| arg)
                .collect();
            plurals += counted.len();
            if counted.is_empty() {
                continue;
            }
            for n in [0, 1, 2, 5, 21, 101] {
                let mut message = sdk::Message::new(key);
                for name in sdk::plural::placeholders(template) {
                    message = if counted.contains(&name) {
                        message.number(&name, n)
                    } else {
                        message.text(&name, "x")
                    };
                }
                let text = catalogue.render(&message, &|seat| format!("P{seat}"));
                assert!(
                    !text.contains('{') && !text.contains('#'),
                    "{language}: `{key}` with {n}: {text}"
                );
            }
        }
        assert!(plurals > 0, "{language}: no plural");
    }
}

#[test]
fn every_variant_is_named_and_described_in_every_language() {
    // The lobby names a variant, and says what it changes, from `variant.<id>` and
    // `variant.<id>.description`, where the id is the variant file's name; a missing key shows
    // the English text of the file to a German player.
    let folder =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../maps/honshu/variants");
    let mut ids: Vec<String> = std::fs::read_dir(&folder)
        .expect("the variants folder")
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    assert!(ids.len() >= 2, "variants found: {ids:?}");
    for language in Honshu::info().languages {
        let keys = keys(&language);
        for id in &ids {
            for key in [format!("variant.{id}"), format!("variant.{id}.description")] {
                assert!(keys.contains(&key), "`{language}` has no `{key}`");
            }
        }
    }
}
