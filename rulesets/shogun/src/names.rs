//! How messages name the places of a board: its provinces and regions.
//!
//! The catalogues translate the places of the printed board, under `province.<id>` and
//! `region.<id>`. An authored map's places have other ids and bring their own names in the map
//! file, which no catalogue knows; a message names such a place by that name as plain text (a whole
//! label goes through the catalogue's `name = "{name}"`), so players never see a raw key.
//!
//! Whether a key is catalogued is read from the English catalogue, which has every key the
//! ruleset emits; it is parsed once per instance, not per message.

use sdk::{Message, MessageArg};

/// The catalogue key of a whole label that is a name given as plain text.
pub const NAME_KEY: &str = "name";

/// A place as a message argument: the catalogue key `<kind>.<id>` when the catalogues translate
/// it, else the map's own `name` as plain text.
pub fn place_arg(kind: &str, id: &str, name: &str) -> MessageArg {
    crate::CATALOGUES
        .english()
        .key_or_text(format!("{kind}.{id}"), name)
}

/// A place as a whole message (a choice label, a text on the board), chosen as [`place_arg`]
/// chooses: the catalogue key itself, or [`NAME_KEY`] with the map's name as its argument.
pub fn place_label(kind: &str, id: &str, name: &str) -> Message {
    match place_arg(kind, id, name) {
        MessageArg::Key(key) => Message::new(key),
        text => Message::new(NAME_KEY).arg(NAME_KEY, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdk::Catalogue;

    #[test]
    fn a_printed_province_is_named_by_its_key_and_another_by_its_own_name() {
        assert_eq!(
            place_arg("province", "kai", "Kai"),
            MessageArg::Key("province.kai".into())
        );
        assert_eq!(
            place_label("province", "kai", "Kai"),
            Message::new("province.kai")
        );
        assert_eq!(
            place_arg("province", "windgate", "Windgate"),
            MessageArg::Text("Windgate".into())
        );
        assert_eq!(
            place_label("province", "windgate", "Windgate"),
            Message::new("name").text("name", "Windgate")
        );
        assert_eq!(
            place_arg("region", "amber", "Amber Isle"),
            MessageArg::Text("Amber Isle".into())
        );
        assert_eq!(
            place_arg("region", "brown", "Brown"),
            MessageArg::Key("region.brown".into())
        );
    }

    #[test]
    fn the_name_label_renders_the_name_in_every_language() {
        let label = place_label("province", "windgate", "Windgate");
        for language in ["en", "es", "de", "ro"] {
            let text = <crate::Shogun as sdk::Ruleset>::catalogue(language).unwrap();
            let catalogue = Catalogue::from_toml(text).unwrap();
            assert_eq!(
                catalogue.render(&label, &|_| String::new()),
                "Windgate",
                "{language}"
            );
        }
    }
}
