//! What the map editor may change in a Honshu deck file (contract `map-editor`): no places, the
//! cards as a table of rows (a number and six squares each), and an empty deck to start from
//! (no card, the shipped starting provinces).

use sdk::{EditorField, FieldKind, MapEditor, RowTable};

use crate::data::{COLOURS, MAP_CARDS, SQUARES, STANDARD_DECK, Terrain};

/// The head of a deck file with no card yet.
const BLANK_HEAD: &str = r##"# A new Honshu deck. Add cards in the editor (or as [[card]] tables below); docs/rules/honshu.md
# describes the deck file.
#
# Each card lists its squares row by row, 2 columns by 3 rows as the card stands upright:
#   squares = [top-left, top-right, middle-left, middle-right, bottom-left, bottom-right]

[deck]
ruleset = "honshu"
name = "New deck"

# The starting provinces, as in the shipped deck.
"##;

/// A deck file with no card yet: its head and the shipped deck's starting provinces.
pub fn blank_deck() -> String {
    let provinces = STANDARD_DECK
        .find("[[province]]")
        .map_or("", |at| &STANDARD_DECK[at..]);
    format!("{BLANK_HEAD}{provinces}")
}

/// Every terrain a square can show, by its name in deck files.
pub fn terrain_names() -> Vec<String> {
    let mut terrains = vec![
        Terrain::Forest,
        Terrain::Town,
        Terrain::Lake,
        Terrain::Fallow,
    ];
    terrains.extend(COLOURS.map(Terrain::Production));
    terrains.extend(COLOURS.map(Terrain::Factory));
    terrains.iter().map(|terrain| terrain.name()).collect()
}

/// The editor's schema of Honshu decks.
pub fn schema() -> MapEditor {
    MapEditor::default()
        .with_table(RowTable::new(
            "card",
            "number",
            "The map cards: each has a number (the lower plays first in a trick) and six \
             squares, row by row as the card stands upright.",
            vec![
                EditorField::new("number", FieldKind::Integer, "The card's number.")
                    .range(1.0, MAP_CARDS as f64),
                EditorField::new(
                    "squares",
                    FieldKind::List,
                    "Top-left, top-right, middle-left, middle-right, bottom-left, bottom-right.",
                )
                .values(terrain_names())
                .length(SQUARES as u32),
            ],
        ))
        .with_blank_map(blank_deck())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_square_name_reads_and_the_empty_deck_lacks_only_cards() {
        let names = terrain_names();
        assert_eq!(names.len(), 12);
        assert!(names.iter().all(|name| Terrain::parse(name).is_some()));
        let findings = crate::data::validate(&blank_deck());
        assert!(!findings.is_empty(), "an empty deck cannot be played");
        assert!(
            findings.iter().all(|d| d.text.contains("card")),
            "{findings:?}"
        );
    }
}
