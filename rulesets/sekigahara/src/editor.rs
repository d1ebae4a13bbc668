//! What the map editor may change in a Sekigahara board (contract `map-editor`): the TOML keys
//! of `maps/README.md`, with their types and meanings, and an empty board to start from.

use sdk::{EditorConnection, EditorField, EditorPlaces, FieldKind, MapEditor};

/// The skeleton of a Sekigahara board: its two sides and no area yet.
pub const BLANK_MAP: &str = r##"# A new Sekigahara board. Add areas in the editor (or as [[area]] tables below), then clans,
# blocks and cards; the fields are described in maps/README.md.

[map]
id = "new-board"
name = "New board"
ruleset = "sekigahara"
reinforcement-track = [2, 2, 2, 1, 1, 1]
starting-reinforcements = 4

# The first side is seat 0.
[[side]]
id = "ishida"
name = "Ishida"
colour = "#d4a017"
wins-ties = true

[[side]]
id = "tokugawa"
name = "Tokugawa"
colour = "#26231f"
"##;

/// The editor's schema of Sekigahara boards.
pub fn schema() -> MapEditor {
    MapEditor::with_places(
        EditorPlaces::new("area", "area.")
            .field(
                EditorField::new(
                    "kind",
                    FieldKind::String,
                    "A capital is a resource area that gives its side leadership; a castle \
                     scores 2.",
                )
                .values(["plain", "resource", "capital", "castle"]),
            )
            .field(
                EditorField::new(
                    "owner",
                    FieldKind::String,
                    "Castle: its original owner (required); capital: whose capital; resource: \
                     its first controller; plain: none.",
                )
                .values_from("side")
                .optional(),
            )
            .field(
                EditorField::new(
                    "disk",
                    FieldKind::String,
                    "Castles only: the disk that sits in it.",
                )
                .values_from("disk")
                .optional(),
            )
            .field(
                EditorField::new(
                    "muster",
                    FieldKind::List,
                    "The clans whose muster area this is.",
                )
                .values_from("clan")
                .optional(),
            )
            .field(
                EditorField::new(
                    "source",
                    FieldKind::String,
                    "The historical source of the place.",
                )
                .optional(),
            ),
    )
    .with_connection(EditorConnection::table(
        "road",
        "road",
        "between",
        None,
        "A road, usable both ways; at most one road between two areas.",
    ))
    .with_connection(EditorConnection::table(
        "highway",
        "road",
        "between",
        Some("highway"),
        "A highway: a move wholly on highways goes one area further.",
    ))
    .with_blank_map(BLANK_MAP)
}
