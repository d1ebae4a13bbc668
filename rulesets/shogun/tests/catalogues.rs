//! The message catalogues: every template parses, every plural gives exactly the CLDR categories
//! its language needs, and every language has every English key with the same placeholders, so
//! no text falls back to English or shows a raw key.

use std::collections::BTreeMap;

use sdk::Ruleset;
use sdk::plural;
use shogun::Shogun;

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
fn texts_that_count_use_plurals_in_every_language() {
    let count = |language: &str| -> usize {
        catalogue(language)
            .values()
            .map(|template| plural::plurals(template).map_or(0, |p| p.len()))
            .sum()
    };
    let english = count("en");
    for language in LANGUAGES {
        assert_eq!(count(language), english, "{language}");
    }
    let seen = english * LANGUAGES.len();
    assert!(seen > 100, "only {seen} plurals");
}

#[test]
fn plurals_render_in_the_language_of_the_catalogue() {
    let render = |language: &str, armies: i64| {
        let text = Shogun::catalogue(language).unwrap();
        let catalogue = sdk::Catalogue::from_toml(text)
            .unwrap()
            .with_language(language);
        let message = sdk::Message::new("choice.group").number("armies", armies);
        catalogue.render(&message, &|seat| format!("P{seat}"))
    };
    assert_eq!(render("en", 1), "The group of 1 army");
    assert_eq!(render("en", 2), "The group of 2 armies");
    assert_eq!(render("ro", 1), "Grupul de 1 armată");
    assert_eq!(render("ro", 5), "Grupul de 5 armate");
    assert_eq!(render("ro", 20), "Grupul de 20 de armate");
    assert_eq!(render("ro", 101), "Grupul de 101 armate");
    assert_eq!(render("es", 1_000_000), "El grupo de 1000000 de ejércitos");
    assert_eq!(render("es", 3), "El grupo de 3 ejércitos");
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

#[test]
fn seat_panel_labels_fit_their_columns() {
    let column = shogun::render::STAT_COLUMN - 6.0;
    for language in LANGUAGES {
        let catalogue = catalogue(language);
        for key in [
            "render.chests",
            "render.rice",
            "render.vp",
            "render.province-cards",
            "render.supply",
            "render.turn-order",
        ] {
            let text = &catalogue[key];
            assert!(
                text.chars().count() as f32 * 0.6 * 13.0 <= column,
                "{language}: `{key}` = `{text}` is wider than its column"
            );
        }
        // The line that says what the tower and tray figures are has the panel's width, with
        // two-digit figures.
        let line = catalogue["render.tower-tray"]
            .replace("{tower}", "10")
            .replace("{tray}", "10");
        assert!(
            line.chars().count() as f32 * 0.6 * 13.0 <= shogun::render::PANEL_W - 30.0,
            "{language}: `render.tower-tray` = `{line}` is wider than the panel"
        );
    }
}
