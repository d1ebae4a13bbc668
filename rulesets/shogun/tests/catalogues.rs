//! The message catalogues: every template parses, every plural gives exactly the CLDR categories
//! its language needs, and every language has every English key with the same placeholders, so
//! no text falls back to English or shows a raw key.

use std::collections::BTreeMap;

use sdk::Ruleset;
use shogun::{Shogun, plural};

const LANGUAGES: [&str; 4] = ["en", "es", "de", "ro"];

fn catalogue(language: &str) -> BTreeMap<String, String> {
    let text = Shogun::catalogue(language).unwrap_or_else(|| panic!("no `{language}` catalogue"));
    sdk::Catalogue::from_toml(text)
        .unwrap_or_else(|e| panic!("`{language}` catalogue: {e}"))
        .pairs()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn every_plural_has_exactly_the_cldr_categories_of_its_language() {
    let mut plurals_seen = 0;
    for language in LANGUAGES {
        let needed = plural::categories(language).expect("a language with plural rules");
        assert!(needed.contains(&"other"));
        for (key, template) in catalogue(language) {
            let plurals = plural::plurals(&template)
                .unwrap_or_else(|e| panic!("{language}: `{key}` does not parse: {e}"));
            for (arg, categories) in plurals {
                plurals_seen += 1;
                let named: Vec<&str> = categories
                    .iter()
                    .map(String::as_str)
                    .filter(|c| !c.starts_with('='))
                    .collect();
                let mut sorted = named.clone();
                sorted.sort_unstable();
                let mut wanted = needed.to_vec();
                wanted.sort_unstable();
                assert_eq!(
                    sorted, wanted,
                    "{language}: `{key}`, plural of `{arg}`: categories {named:?}, CLDR needs {needed:?}"
                );
            }
        }
    }
    assert!(plurals_seen > 100, "only {plurals_seen} plurals");
}

#[test]
fn every_language_has_every_english_key_with_the_same_placeholders_and_plurals() {
    let english = catalogue("en");
    for language in ["es", "de", "ro"] {
        let translated = catalogue(language);
        let missing: Vec<&String> = english
            .keys()
            .filter(|k| !translated.contains_key(*k))
            .collect();
        assert!(missing.is_empty(), "{language} lacks {missing:?}");
        let extra: Vec<&String> = translated
            .keys()
            .filter(|k| !english.contains_key(*k))
            .collect();
        assert!(
            extra.is_empty(),
            "{language} has keys English lacks: {extra:?}"
        );
        for (key, template) in &english {
            let other = &translated[key];
            assert_eq!(
                plural::placeholders(other),
                plural::placeholders(template),
                "{language}: `{key}`"
            );
            let counted = |t: &str| -> Vec<String> {
                plural::plurals(t)
                    .unwrap()
                    .into_iter()
                    .map(|(a, _)| a)
                    .collect()
            };
            assert_eq!(
                counted(other),
                counted(template),
                "{language}: `{key}` counts other arguments"
            );
            assert!(!other.trim().is_empty(), "{language}: `{key}` is empty");
        }
    }
}

#[test]
fn no_english_text_counts_without_a_plural() {
    // "1 armies", "revolt(s)": a number placeholder right before a counted noun must be a plural.
    let nouns = [
        "armies",
        "army",
        "farmers",
        "war chests",
        "victory points",
        "cards",
        "revolts",
        "markers",
        "spaces",
    ];
    for (key, template) in catalogue("en") {
        assert!(!template.contains("(s)"), "`{key}`: {template}");
        for name in plural::placeholders(&template) {
            for noun in nouns {
                assert!(
                    !template.contains(&format!("{{{name}}} {noun}")),
                    "`{key}` counts {noun} without a plural: {template}"
                );
            }
        }
    }
}

#[test]
fn german_says_kriegstruhe_throughout() {
    // docs/TERMINOLOGY.md: "Kriegstruhe" (and "Kriegstruhenkarte"), never "Truhe" alone.
    for (key, template) in catalogue("de") {
        let lower = template.to_lowercase();
        for (at, _) in lower.match_indices("truhe") {
            assert!(
                lower[..at].ends_with("kriegs"),
                "`{key}` says Truhe without Krieg: {template}"
            );
        }
    }
}

#[test]
fn the_neutral_cube_and_the_tie_break_have_names_in_every_language() {
    for language in LANGUAGES {
        let catalogue = catalogue(language);
        assert!(
            catalogue.contains_key(&format!("cube.{}", shogun::engine::FARMER)),
            "{language}"
        );
        assert!(catalogue.contains_key("result.tie-breaks"), "{language}");
    }
}

#[test]
fn card_labels_fit_their_cards_in_every_language() {
    // Rough text width: characters x 0.6 x font size.
    let width = |text: &str, font: f32| text.chars().count() as f32 * 0.6 * font;
    let card = shogun::render::CARD_W - 8.0;
    for language in LANGUAGES {
        let catalogue = catalogue(language);
        let mut shorts = 0;
        for (key, template) in &catalogue {
            if key.starts_with("action-short.") || key == "slot.bid-short" {
                shorts += 1;
                assert!(
                    width(template, shogun::render::CARD_FONT) <= card,
                    "{language}: `{key}` = `{template}` is wider than a card"
                );
            }
            if key.starts_with("event.") {
                assert!(
                    width(template, 13.0) <= shogun::render::CALENDAR_W - 12.0,
                    "{language}: `{key}` overflows"
                );
            }
            if key.starts_with("special.") {
                assert!(
                    width(template, 13.0) <= 312.0,
                    "{language}: `{key}` overflows"
                );
            }
        }
        assert_eq!(
            shorts, 11,
            "{language}: a short label per action card and the bid"
        );
    }
}
