//! What the map editor can change in a ruleset's maps ([`Ruleset::map_editor`]): the places and
//! their connections, arrays of tables edited row by row (a deck of cards), and the text of an
//! empty map to start from. The schema describes the map's TOML, never the game: the host's
//! editor edits any ruleset's maps from it, and `validate-map` still decides what is valid.
//!
//! ```
//! use sdk::{EditorField, FieldKind, MapEditor, RowTable};
//!
//! let deck = MapEditor::default().with_table(RowTable::new(
//!     "card",
//!     "number",
//!     "The cards of the deck.",
//!     vec![
//!         EditorField::new("number", FieldKind::Integer, "The card's number.").range(1.0, 99.0),
//!         EditorField::new("colours", FieldKind::List, "Its colours, in order.")
//!             .values(["red", "blue"])
//!             .length(6),
//!     ],
//! ));
//! assert_eq!(deck.tables.len(), 1);
//! ```
//!
//! [`Ruleset::map_editor`]: crate::Ruleset::map_editor

use serde::{Deserialize, Serialize};

/// What the map editor can change in a ruleset's maps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MapEditor {
    /// The places, for maps that have any; `None` for a map made only of tables (a deck).
    pub places: Option<EditorPlaces>,
    /// The kinds of connection between places, in the order the editor offers them.
    pub connections: Vec<EditorConnection>,
    /// The arrays of tables edited as tables of rows.
    pub tables: Vec<RowTable>,
    /// The text of an empty map (valid TOML: the map format's skeleton with nothing in it) an
    /// author can start from.
    pub blank_map: Option<String>,
}

impl MapEditor {
    /// A schema for maps with places.
    pub fn with_places(places: EditorPlaces) -> MapEditor {
        MapEditor {
            places: Some(places),
            ..MapEditor::default()
        }
    }

    /// Adds a kind of connection.
    pub fn with_connection(mut self, connection: EditorConnection) -> MapEditor {
        self.connections.push(connection);
        self
    }

    /// Adds a table edited row by row.
    pub fn with_table(mut self, table: RowTable) -> MapEditor {
        self.tables.push(table);
        self
    }

    /// Sets the text of an empty map.
    pub fn with_blank_map(mut self, text: impl Into<String>) -> MapEditor {
        self.blank_map = Some(text.into());
        self
    }
}

/// Where a map keeps its places: an array of tables, one per place.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EditorPlaces {
    /// The key of the array of tables (`province` for `[[province]]`).
    pub table: String,
    /// The field holding a place's id.
    pub id: String,
    /// The field holding a place's display name.
    pub name: String,
    /// The field holding a place's horizontal position on the board.
    pub x: String,
    /// The field holding its vertical position.
    pub y: String,
    /// What the board's `data-place` attribute names a place by: this prefix and its id.
    pub key_prefix: String,
    /// The other fields of a place the editor can change.
    pub fields: Vec<EditorField>,
}

impl EditorPlaces {
    /// Places in `[[table]]` with the fields `id`, `name`, `x` and `y`, named on the board as
    /// `key_prefix` and their id.
    pub fn new(table: impl Into<String>, key_prefix: impl Into<String>) -> EditorPlaces {
        EditorPlaces {
            table: table.into(),
            id: "id".to_owned(),
            name: "name".to_owned(),
            x: "x".to_owned(),
            y: "y".to_owned(),
            key_prefix: key_prefix.into(),
            fields: Vec::new(),
        }
    }

    /// Adds a field a place's form edits.
    pub fn field(mut self, field: EditorField) -> EditorPlaces {
        self.fields.push(field);
        self
    }
}

/// The type of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FieldKind {
    /// Text.
    String,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// True or false.
    Boolean,
    /// A list of texts.
    List,
}

/// One field of a place or of a row the editor can change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EditorField {
    /// The TOML key.
    pub name: String,
    /// Its type.
    pub kind: FieldKind,
    /// What it means, shown beside its input.
    pub description: String,
    /// The values allowed (of a text, or of each item of a list), when they are a fixed set.
    pub values: Vec<String>,
    /// The values allowed are the ids of this array of tables in the same map.
    pub values_from: Option<String>,
    /// The smallest number allowed.
    pub min: Option<f64>,
    /// The largest number allowed.
    pub max: Option<f64>,
    /// Whether the field may be left out.
    pub optional: bool,
    /// A list of exactly this many items: one input per item.
    pub length: Option<u32>,
}

impl EditorField {
    /// A required field with any value of its kind.
    pub fn new(
        name: impl Into<String>,
        kind: FieldKind,
        description: impl Into<String>,
    ) -> EditorField {
        EditorField {
            name: name.into(),
            kind,
            description: description.into(),
            values: Vec::new(),
            values_from: None,
            min: None,
            max: None,
            optional: false,
            length: None,
        }
    }

    /// Only these values are allowed.
    pub fn values<S: Into<String>>(mut self, values: impl IntoIterator<Item = S>) -> EditorField {
        self.values = values.into_iter().map(Into::into).collect();
        self
    }

    /// Only the ids of the array of tables `table` of the same map are allowed.
    pub fn values_from(mut self, table: impl Into<String>) -> EditorField {
        self.values_from = Some(table.into());
        self
    }

    /// Numbers from `min` to `max`.
    pub fn range(mut self, min: f64, max: f64) -> EditorField {
        self.min = Some(min);
        self.max = Some(max);
        self
    }

    /// The field may be left out.
    pub fn optional(mut self) -> EditorField {
        self.optional = true;
        self
    }

    /// A list of exactly `length` items.
    pub fn length(mut self, length: u32) -> EditorField {
        self.length = Some(length);
        self
    }
}

/// Where a map writes the connections of one kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ConnectionStorage {
    /// A list of neighbours under this key on each place, written on both places.
    Field(String),
    /// An array of tables, one table per connection.
    Table {
        /// The key of the array of tables.
        table: String,
        /// The field listing the two places it joins.
        endpoints: String,
        /// The boolean field that is true for this kind, if the table holds several kinds.
        flag: Option<String>,
    },
}

/// One kind of connection between two places.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EditorConnection {
    /// Its name, what the editor's picker and edits call it.
    pub kind: String,
    /// What it means, for the picker.
    pub description: String,
    /// Where the map writes it.
    pub storage: ConnectionStorage,
}

impl EditorConnection {
    /// A kind written as a list of neighbours under `field` on both places.
    pub fn field(
        kind: impl Into<String>,
        field: impl Into<String>,
        description: impl Into<String>,
    ) -> EditorConnection {
        EditorConnection {
            kind: kind.into(),
            description: description.into(),
            storage: ConnectionStorage::Field(field.into()),
        }
    }

    /// A kind written as one `[[table]]` per connection, naming its two places in `endpoints`
    /// and, if `flag` is set, told apart from the table's other kinds by that boolean field.
    pub fn table(
        kind: impl Into<String>,
        table: impl Into<String>,
        endpoints: impl Into<String>,
        flag: Option<&str>,
        description: impl Into<String>,
    ) -> EditorConnection {
        EditorConnection {
            kind: kind.into(),
            description: description.into(),
            storage: ConnectionStorage::Table {
                table: table.into(),
                endpoints: endpoints.into(),
                flag: flag.map(str::to_owned),
            },
        }
    }
}

/// An array of tables the editor shows as a table with one row per entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowTable {
    /// The key of the array of tables (`card` for `[[card]]`).
    pub table: String,
    /// The field naming a row for people; one of `fields`.
    pub key: String,
    /// What the table holds, shown above it.
    pub description: String,
    /// The fields of a row, in the order of the columns.
    pub fields: Vec<EditorField>,
}

impl RowTable {
    /// A table of rows in `[[table]]`, each named by its field `key`.
    pub fn new(
        table: impl Into<String>,
        key: impl Into<String>,
        description: impl Into<String>,
        fields: Vec<EditorField>,
    ) -> RowTable {
        RowTable {
            table: table.into(),
            key: key.into(),
            description: description.into(),
            fields,
        }
    }
}
