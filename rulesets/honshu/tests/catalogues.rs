//! Every language has every key of the English catalogue, and every key the game emits exists.

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
fn every_language_has_the_english_keys() {
    let english = keys("en");
    for language in Honshu::info().languages {
        assert_eq!(keys(&language), english, "{language}");
    }
}

#[test]
fn every_option_is_described() {
    let english = keys("en");
    for option in Honshu::info().options {
        assert!(
            english.contains(&format!("option.{}", option.name)),
            "{}",
            option.name
        );
    }
}
