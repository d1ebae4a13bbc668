//! What the map editor may change in a Shogun map (contract `map-editor`): the TOML keys of
//! `maps/README.md`, with their types and meanings, and an empty map to start from.

use sdk::{EditorConnection, EditorField, EditorPlaces, FieldKind, MapEditor};

/// The skeleton of a Shogun map with one region and no province yet.
pub const BLANK_MAP: &str = r##"# A new Shogun map. Add provinces in the editor (or as [[province]] tables below); the fields
# are described in maps/README.md.

[map]
id = "new-map"
name = "New map"
ruleset = "shogun"
side = "drawn"

[[region]]
id = "first"
name = "First region"
colour = "#8b5a2b"
"##;

/// The editor's schema of Shogun maps.
pub fn schema() -> MapEditor {
    let integer = |name: &str, min: f64, max: f64, description: &str| {
        EditorField::new(name, FieldKind::Integer, description).range(min, max)
    };
    MapEditor::with_places(
        EditorPlaces::new("province", "province.")
            .field(
                EditorField::new(
                    "region",
                    FieldKind::String,
                    "The one region the province belongs to.",
                )
                .values_from("region"),
            )
            .field(integer("tax", 0.0, 20.0, "War chests from Collect taxes."))
            .field(integer("rice", 0.0, 20.0, "Rice from Confiscate rice."))
            .field(integer("spaces", 1.0, 3.0, "Building spaces."))
            .field(
                EditorField::new(
                    "out-of-play-with-3",
                    FieldKind::Boolean,
                    "Left out of 3-player games (no card, no army may enter).",
                )
                .optional(),
            ),
    )
    .with_connection(EditorConnection::field(
        "border",
        "borders",
        "Neighbours by land, written on both provinces.",
    ))
    .with_connection(EditorConnection::field(
        "sea-route",
        "sea-routes",
        "Neighbours by sea (the dashed lines), written on both provinces.",
    ))
    .with_blank_map(BLANK_MAP)
}
