//! The map editor's server side, for any ruleset: what can be edited (a ruleset's editor schema,
//! which the ruleset describes through the contract's `map-editor` and this module checks),
//! edits applied to a map text with `toml_edit` so that every comment, blank line and order the
//! author wrote is kept, and where each place, row and finding is, so a client can show a finding
//! at its place on the board or its row in a table.
//!
//! The schema describes the TOML, never the game: the array of tables that holds the places
//! (and which of their fields are the id, the name and the position), each kind of connection
//! (a list of neighbours on each place, written on both ends, or an array of tables naming two
//! places, optionally told apart by a flag), the other fields of a place with their types,
//! allowed values and descriptions, arrays of tables edited as tables of rows (a deck of cards),
//! and the text of an empty map. The ruleset's `validate-map` still decides what is valid.

use std::collections::BTreeSet;

use anyhow::{Context as _, Result, bail, ensure};
use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};
use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, Value};

use tenka_runtime::LoadedRuleset;

/// The most edits one request may carry.
pub const MAX_EDITS: usize = 64;

/// The bounds a ruleset's schema must keep: anything a ruleset says is checked before use.
pub mod bounds {
    /// The longest TOML key, kind or value, in bytes.
    pub const NAME_BYTES: usize = 64;
    /// The longest description, in bytes.
    pub const DESCRIPTION_BYTES: usize = 1_000;
    /// The most fields of a place or of a row.
    pub const FIELDS: usize = 64;
    /// The most allowed values of one field.
    pub const VALUES: usize = 256;
    /// The most kinds of connection.
    pub const CONNECTIONS: usize = 16;
    /// The most tables of rows.
    pub const TABLES: usize = 16;
    /// The longest fixed-length list.
    pub const LIST_LENGTH: u32 = 64;
    /// The longest empty map, in bytes.
    pub const BLANK_MAP_BYTES: usize = 16 * 1024;
    /// The largest number a minimum or maximum may be, either way.
    pub const NUMBER: f64 = 1e12;
}

/// What the editor may change in a ruleset's maps.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Schema {
    /// The places, if the maps have any.
    #[serde(default)]
    pub places: Option<PlaceSchema>,
    /// The kinds of connection between places, in the order a client offers them.
    #[serde(default, rename = "connection")]
    pub connections: Vec<ConnectionSchema>,
    /// The arrays of tables edited as tables of rows.
    #[serde(default, rename = "table")]
    pub tables: Vec<RowTableSchema>,
    /// The text of an empty map to start from.
    #[serde(default)]
    pub blank_map: Option<String>,
}

/// Where a map keeps its places.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PlaceSchema {
    /// The array of tables holding one table per place (`[[<table>]]`).
    pub table: String,
    /// The field holding a place's id.
    #[serde(default = "default_id")]
    pub id: String,
    /// The field holding a place's display name.
    #[serde(default = "default_name")]
    pub name: String,
    /// The fields of its position on the board.
    #[serde(default = "default_x")]
    pub x: String,
    /// See `x`.
    #[serde(default = "default_y")]
    pub y: String,
    /// What the board's `data-place` attribute names a place by: this prefix and its id.
    #[serde(default)]
    pub key_prefix: String,
    /// The other fields a form may edit.
    #[serde(default, rename = "field")]
    pub fields: Vec<FieldSchema>,
}

fn default_id() -> String {
    "id".to_owned()
}
fn default_name() -> String {
    "name".to_owned()
}
fn default_x() -> String {
    "x".to_owned()
}
fn default_y() -> String {
    "y".to_owned()
}

/// An array of tables edited as a table with one row per entry (the cards of a deck).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RowTableSchema {
    /// The array of tables (`[[<table>]]`).
    pub table: String,
    /// The field naming a row for people; one of `fields`.
    pub key: String,
    /// What the table holds.
    #[serde(default)]
    pub description: String,
    /// The fields of a row, one column each.
    #[serde(default, rename = "field")]
    pub fields: Vec<FieldSchema>,
}

/// One editable field of a place or a row.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FieldSchema {
    /// The TOML key.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: FieldKind,
    /// What it means, for the form.
    #[serde(default)]
    pub description: String,
    /// The values allowed, when they are a fixed set.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// The values allowed are the ids of this array of tables in the same map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_from: Option<String>,
    /// The smallest number allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// The largest number allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// Whether a place may leave the field out.
    #[serde(default)]
    pub optional: bool,
    /// A list of exactly this many items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub length: Option<u32>,
}

/// The type of a field, as the ruleset's schema names it.
pub use sdk::FieldKind;

/// One kind of connection between two places.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ConnectionSchema {
    /// Its name (`border`, `road`...), what edits and clients call it.
    pub kind: String,
    /// What it means, for the editor's picker.
    #[serde(default)]
    pub description: String,
    /// A list of neighbours on each place (written on both places), under this key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// Or an array of tables, one table per connection...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// ...whose field of this name lists the two places...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoints: Option<String>,
    /// ...and, when set, whose boolean field of this name is true for this kind (a kind without
    /// a flag is a table where no other kind's flag is true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<String>,
}

/// The ruleset's editor schema, checked, or `None` when it describes none, fails, or describes
/// one this module refuses (logged as a warning: the editor then offers the text alone).
pub fn schema_of(ruleset: &LoadedRuleset) -> Option<Schema> {
    let id = &ruleset.info().id;
    match ruleset.map_editor() {
        Ok(None) => None,
        Ok(Some(described)) => match Schema::from_ruleset(described) {
            Ok(schema) => Some(schema),
            Err(error) => {
                tracing::warn!("the map editor schema of {id} is refused: {error:#}");
                None
            }
        },
        Err(error) => {
            tracing::warn!("the map editor schema of {id}: {error:#}");
            None
        }
    }
}

fn field_from_sdk(field: sdk::EditorField) -> FieldSchema {
    FieldSchema {
        name: field.name,
        kind: field.kind,
        description: field.description,
        values: field.values,
        values_from: field.values_from,
        min: field.min,
        max: field.max,
        optional: field.optional,
        length: field.length,
    }
}

/// A TOML key the editor accepts from a ruleset: a bare key (letters, digits, `-` and `_`).
fn check_key(what: &str, key: &str) -> Result<()> {
    ensure!(
        !key.is_empty() && key.len() <= bounds::NAME_BYTES,
        "{what} must have 1 to {} bytes",
        bounds::NAME_BYTES
    );
    ensure!(
        key.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{what} `{}` is not a bare TOML key",
        key.escape_debug()
    );
    Ok(())
}

/// Text for people: bounded, no control characters but line breaks.
fn check_text(what: &str, text: &str, most: usize) -> Result<()> {
    ensure!(text.len() <= most, "{what} has more than {most} bytes");
    ensure!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{what} holds control characters"
    );
    Ok(())
}

impl FieldSchema {
    fn check(&self) -> Result<()> {
        check_key("a field's name", &self.name)?;
        let name = &self.name;
        check_text(
            &format!("field `{name}`'s description"),
            &self.description,
            bounds::DESCRIPTION_BYTES,
        )?;
        let textual = matches!(self.kind, FieldKind::String | FieldKind::List);
        let numeric = matches!(self.kind, FieldKind::Integer | FieldKind::Number);
        ensure!(
            textual || (self.values.is_empty() && self.values_from.is_none()),
            "field `{name}` is not text: it has no values"
        );
        ensure!(
            self.values.is_empty() || self.values_from.is_none(),
            "field `{name}` has both values and values-from"
        );
        ensure!(
            self.values.len() <= bounds::VALUES,
            "field `{name}` has more than {} values",
            bounds::VALUES
        );
        let mut seen = BTreeSet::new();
        for value in &self.values {
            ensure!(
                !value.is_empty() && value.len() <= bounds::NAME_BYTES,
                "a value of field `{name}` must have 1 to {} bytes",
                bounds::NAME_BYTES
            );
            check_text(
                &format!("a value of field `{name}`"),
                value,
                bounds::NAME_BYTES,
            )?;
            ensure!(seen.insert(value), "field `{name}` lists a value twice");
        }
        if let Some(source) = &self.values_from {
            check_key(&format!("field `{name}`'s values-from"), source)?;
        }
        ensure!(
            numeric || (self.min.is_none() && self.max.is_none()),
            "field `{name}` is not a number: it has no minimum or maximum"
        );
        for bound in [self.min, self.max].into_iter().flatten() {
            ensure!(
                bound.is_finite() && bound.abs() <= bounds::NUMBER,
                "field `{name}` has a bound out of range"
            );
        }
        if let (Some(min), Some(max)) = (self.min, self.max) {
            ensure!(min <= max, "field `{name}` has a minimum above its maximum");
        }
        if let Some(length) = self.length {
            ensure!(
                self.kind == FieldKind::List,
                "field `{name}` is not a list: it has no length"
            );
            ensure!(
                (1..=bounds::LIST_LENGTH).contains(&length),
                "field `{name}`'s length must be 1 to {}",
                bounds::LIST_LENGTH
            );
        }
        Ok(())
    }
}

/// Checks a list of fields: each on its own, at most so many, no name twice (nor one of
/// `taken`).
fn check_fields(what: &str, fields: &[FieldSchema], taken: &[&str]) -> Result<()> {
    ensure!(
        fields.len() <= bounds::FIELDS,
        "{what} has more than {} fields",
        bounds::FIELDS
    );
    let mut names: BTreeSet<&str> = taken.iter().copied().collect();
    for field in fields {
        field.check()?;
        ensure!(
            names.insert(&field.name),
            "{what} names field `{}` twice",
            field.name
        );
    }
    Ok(())
}

impl Schema {
    /// Reads and checks a schema written as TOML (the tests' shorthand).
    #[cfg(test)]
    pub(crate) fn parse(text: &str) -> Result<Schema> {
        let schema: Schema = toml::from_str(text).context("the editor schema is not valid")?;
        schema.check()?;
        Ok(schema)
    }

    /// The schema a ruleset describes, checked: every name a bare TOML key, every text and
    /// count bounded (see [`bounds`]), each field's extras fitting its kind, nothing named twice,
    /// the empty map TOML.
    pub fn from_ruleset(described: sdk::MapEditor) -> Result<Schema> {
        let schema = Schema {
            places: described.places.map(|places| PlaceSchema {
                table: places.table,
                id: places.id,
                name: places.name,
                x: places.x,
                y: places.y,
                key_prefix: places.key_prefix,
                fields: places.fields.into_iter().map(field_from_sdk).collect(),
            }),
            connections: described
                .connections
                .into_iter()
                .map(|connection| {
                    let (field, table, endpoints, flag) = match connection.storage {
                        sdk::ConnectionStorage::Field(field) => (Some(field), None, None, None),
                        sdk::ConnectionStorage::Table {
                            table,
                            endpoints,
                            flag,
                        } => (None, Some(table), Some(endpoints), flag),
                    };
                    ConnectionSchema {
                        kind: connection.kind,
                        description: connection.description,
                        field,
                        table,
                        endpoints,
                        flag,
                    }
                })
                .collect(),
            tables: described
                .tables
                .into_iter()
                .map(|table| RowTableSchema {
                    table: table.table,
                    key: table.key,
                    description: table.description,
                    fields: table.fields.into_iter().map(field_from_sdk).collect(),
                })
                .collect(),
            blank_map: described.blank_map,
        };
        schema.check()?;
        Ok(schema)
    }

    /// Checks what [`Schema::from_ruleset`] promises.
    fn check(&self) -> Result<()> {
        let mut arrays = BTreeSet::new();
        if let Some(places) = &self.places {
            for (what, key) in [
                ("the places' table", &places.table),
                ("the places' id field", &places.id),
                ("the places' name field", &places.name),
                ("the places' x field", &places.x),
                ("the places' y field", &places.y),
            ] {
                check_key(what, key)?;
            }
            let own = [&places.id, &places.name, &places.x, &places.y];
            ensure!(
                own.iter().collect::<BTreeSet<_>>().len() == own.len(),
                "the places' id, name, x and y must be four fields"
            );
            check_text(
                "the places' key prefix",
                &places.key_prefix,
                bounds::NAME_BYTES,
            )?;
            ensure!(
                !places.key_prefix.contains('\n'),
                "the places' key prefix holds a line break"
            );
            check_fields(
                "a place",
                &places.fields,
                &[&places.id, &places.name, &places.x, &places.y],
            )?;
            arrays.insert(places.table.as_str());
        } else {
            ensure!(
                self.connections.is_empty(),
                "connections need places to join"
            );
        }
        ensure!(
            self.connections.len() <= bounds::CONNECTIONS,
            "more than {} kinds of connection",
            bounds::CONNECTIONS
        );
        let mut kinds = BTreeSet::new();
        for connection in &self.connections {
            let kind = &connection.kind;
            check_key("a connection's kind", kind)?;
            ensure!(kinds.insert(kind), "connection `{kind}` is named twice");
            check_text(
                &format!("connection `{kind}`'s description"),
                &connection.description,
                bounds::DESCRIPTION_BYTES,
            )?;
            match (
                &connection.field,
                &connection.table,
                &connection.endpoints,
                &connection.flag,
            ) {
                (Some(field), None, None, None) => check_key("a connection's field", field)?,
                (None, Some(table), Some(endpoints), flag) => {
                    check_key("a connection's table", table)?;
                    check_key("a connection's endpoints", endpoints)?;
                    if let Some(flag) = flag {
                        check_key("a connection's flag", flag)?;
                        ensure!(
                            flag != endpoints,
                            "connection `{kind}`'s flag is its endpoints"
                        );
                    }
                    ensure!(
                        !arrays.contains(table.as_str()),
                        "connection `{kind}` is kept in the places' table"
                    );
                }
                _ => bail!("connection `{kind}` needs either `field`, or `table` and `endpoints`"),
            }
        }
        // Kinds sharing a table: the same endpoints, distinct flags, at most one without.
        for connection in &self.connections {
            let Some(table) = &connection.table else {
                continue;
            };
            let siblings: Vec<&ConnectionSchema> = self
                .connections
                .iter()
                .filter(|other| other.table.as_ref() == Some(table))
                .collect();
            ensure!(
                siblings
                    .iter()
                    .all(|other| other.endpoints == connection.endpoints),
                "the kinds kept in `{table}` name their places in different fields"
            );
            ensure!(
                siblings.iter().filter(|other| other.flag.is_none()).count() <= 1,
                "more than one kind kept in `{table}` has no flag"
            );
            let flags: BTreeSet<_> = siblings
                .iter()
                .filter_map(|other| other.flag.as_ref())
                .collect();
            ensure!(
                flags.len() == siblings.iter().filter(|other| other.flag.is_some()).count(),
                "two kinds kept in `{table}` have the same flag"
            );
        }
        ensure!(
            self.tables.len() <= bounds::TABLES,
            "more than {} tables of rows",
            bounds::TABLES
        );
        for table in &self.tables {
            check_key("a table of rows", &table.table)?;
            ensure!(
                arrays.insert(table.table.as_str())
                    && !self
                        .connections
                        .iter()
                        .any(|connection| connection.table.as_ref() == Some(&table.table)),
                "`{}` is edited twice",
                table.table
            );
            check_text(
                &format!("table `{}`'s description", table.table),
                &table.description,
                bounds::DESCRIPTION_BYTES,
            )?;
            check_fields(&format!("table `{}`", table.table), &table.fields, &[])?;
            ensure!(
                table.fields.iter().any(|field| field.name == table.key),
                "table `{}`'s key `{}` is none of its fields",
                table.table,
                table.key
            );
        }
        if let Some(blank) = &self.blank_map {
            ensure!(
                blank.len() <= bounds::BLANK_MAP_BYTES,
                "the empty map has more than {} bytes",
                bounds::BLANK_MAP_BYTES
            );
            blank
                .parse::<DocumentMut>()
                .context("the empty map is not TOML")?;
        }
        Ok(())
    }

    fn places(&self) -> Result<&PlaceSchema> {
        self.places
            .as_ref()
            .context("this ruleset's maps have no places to edit")
    }

    fn connection(&self, kind: &str) -> Result<&ConnectionSchema> {
        self.connections
            .iter()
            .find(|connection| connection.kind == kind)
            .with_context(|| format!("there is no kind of connection `{kind}`"))
    }

    fn field(&self, name: &str) -> Result<&FieldSchema> {
        self.places()?
            .fields
            .iter()
            .find(|field| field.name == name)
            .with_context(|| format!("there is no editable field `{name}`"))
    }

    fn table(&self, name: &str) -> Result<&RowTableSchema> {
        self.tables
            .iter()
            .find(|table| table.table == name)
            .with_context(|| format!("there is no table of rows `{name}`"))
    }
}

impl RowTableSchema {
    fn field(&self, name: &str) -> Result<&FieldSchema> {
        self.fields
            .iter()
            .find(|field| field.name == name)
            .with_context(|| format!("table `{}` has no field `{name}`", self.table))
    }
}

/// One change to a map, as a client asks for it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "op", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Edit {
    /// Put a place at a new position.
    Move {
        /// The place's id.
        place: String,
        /// The new position.
        x: f64,
        /// See `x`.
        y: f64,
    },
    /// Join two places by a connection of a kind (nothing if they are joined already).
    Connect {
        /// The kind of connection.
        kind: String,
        /// One place's id.
        from: String,
        /// The other's.
        to: String,
    },
    /// Remove the connection of a kind between two places (nothing if there is none).
    Disconnect {
        /// The kind of connection.
        kind: String,
        /// One place's id.
        from: String,
        /// The other's.
        to: String,
    },
    /// Add a place at a position; every field the schema requires gets a first value (the
    /// first allowed one, the smallest number, false, an empty list or text) for the form.
    AddPlace {
        /// The new place's id.
        id: String,
        /// Its name.
        name: String,
        /// Its position.
        x: f64,
        /// See `x`.
        y: f64,
    },
    /// Remove a place and every connection naming it.
    RemovePlace {
        /// The place's id.
        place: String,
    },
    /// Set a field of a place; `null` removes it.
    Set {
        /// The place's id.
        place: String,
        /// The field's name: the name, or one of the schema's fields.
        field: String,
        /// The new value.
        value: Json,
    },
    /// Add a row at the end of a table of rows; every field gets a first value (as for
    /// `add-place`; a whole-number key one above the largest, a fixed-length list that many
    /// first values).
    AddRow {
        /// The table's key.
        table: String,
    },
    /// Remove a row of a table of rows.
    RemoveRow {
        /// The table's key.
        table: String,
        /// The row, counted from 0 in the order of the text.
        row: usize,
    },
    /// Set a field of a row; `null` removes it.
    SetCell {
        /// The table's key.
        table: String,
        /// The row, counted from 0.
        row: usize,
        /// One of the table's fields.
        field: String,
        /// The new value.
        value: Json,
    },
    /// Set one item of a row's list field.
    SetItem {
        /// The table's key.
        table: String,
        /// The row, counted from 0.
        row: usize,
        /// One of the table's list fields.
        field: String,
        /// The item, counted from 0; below the list's length, or below the field's fixed
        /// length (a short list is filled up with first values).
        index: usize,
        /// The new item.
        value: String,
    },
}

/// Applies `edits` in order to a map text and returns the new text. Everything the edits do not
/// touch is kept byte for byte. A text that is not TOML, or an edit naming a place, kind or
/// field that does not exist, is an error.
pub fn apply(schema: &Schema, text: &str, edits: &[Edit]) -> Result<String> {
    if edits.is_empty() {
        return Ok(text.to_owned());
    }
    if edits.len() > MAX_EDITS {
        bail!("at most {MAX_EDITS} edits at once, not {}", edits.len());
    }
    let mut doc: DocumentMut = text
        .parse()
        .context("the map is not valid TOML; fix it in the text before editing the board")?;
    for edit in edits {
        apply_one(schema, &mut doc, edit)?;
    }
    Ok(doc.to_string())
}

fn apply_one(schema: &Schema, doc: &mut DocumentMut, edit: &Edit) -> Result<()> {
    match edit {
        Edit::AddRow { .. }
        | Edit::RemoveRow { .. }
        | Edit::SetCell { .. }
        | Edit::SetItem { .. } => apply_row_edit(schema, doc, edit),
        _ => apply_place_edit(schema, doc, edit),
    }
}

fn apply_row_edit(schema: &Schema, doc: &mut DocumentMut, edit: &Edit) -> Result<()> {
    match edit {
        Edit::AddRow { table } => add_row(schema.table(table)?, doc),
        Edit::RemoveRow { table, row } => {
            let rows = rows_mut(schema.table(table)?, doc)?;
            ensure!(*row < rows.len(), "table `{table}` has no row {row}");
            rows.remove(*row);
            Ok(())
        }
        Edit::SetCell {
            table,
            row,
            field,
            value,
        } => {
            let kind = schema.table(table)?.field(field)?.kind;
            let new = json_to_toml(kind, field, value)?;
            let row = row_mut(schema.table(table)?, doc, *row)?;
            match new {
                None => {
                    row.remove(field);
                }
                Some(new) => set_value(row, field, new),
            }
            Ok(())
        }
        Edit::SetItem {
            table,
            row,
            field,
            index,
            value,
        } => set_item(schema.table(table)?, doc, *row, field, *index, value),
        _ => bail!("not an edit of rows"),
    }
}

fn apply_place_edit(schema: &Schema, doc: &mut DocumentMut, edit: &Edit) -> Result<()> {
    let places = schema.places()?;
    match edit {
        Edit::AddRow { .. }
        | Edit::RemoveRow { .. }
        | Edit::SetCell { .. }
        | Edit::SetItem { .. } => bail!("not an edit of places"),
        Edit::Move { place, x, y } => {
            if !x.is_finite() || !y.is_finite() {
                bail!("a position must be a finite number");
            }
            let table = place_mut(schema, doc, place)?;
            set_number(table, &places.x, *x);
            set_number(table, &places.y, *y);
        }
        Edit::Set {
            place,
            field,
            value,
        } => {
            let kind = if field == &places.name {
                FieldKind::String
            } else {
                schema.field(field)?.kind
            };
            let new = json_to_toml(kind, field, value)?;
            let table = place_mut(schema, doc, place)?;
            match new {
                None => {
                    table.remove(field);
                }
                Some(new) => set_value(table, field, new),
            }
        }
        Edit::AddPlace { id, name, x, y } => add_place(schema, doc, id, name, *x, *y)?,
        Edit::RemovePlace { place } => remove_place(schema, doc, place)?,
        Edit::Connect { kind, from, to } | Edit::Disconnect { kind, from, to } => {
            let connect = matches!(edit, Edit::Connect { .. });
            if from == to {
                bail!("a place cannot be connected to itself");
            }
            let connection = schema.connection(kind)?;
            // Both places must exist, whatever the kind.
            place_mut(schema, doc, from)?;
            place_mut(schema, doc, to)?;
            if let Some(field) = &connection.field {
                for (one, other) in [(from, to), (to, from)] {
                    let table = place_mut(schema, doc, one)?;
                    edit_list(table, field, other, connect)?;
                }
            } else {
                edit_table_connection(schema, connection, doc, from, to, connect)?;
            }
        }
    }
    Ok(())
}

/// The first text a field allows: its first value, the first id of the table its values come
/// from (a region's id, say), or an empty text.
fn first_text(doc: &DocumentMut, field: &FieldSchema) -> String {
    field
        .values
        .first()
        .cloned()
        .or_else(|| {
            field
                .values_from
                .as_deref()
                .and_then(|table| doc.get(table))
                .and_then(Item::as_array_of_tables)
                .and_then(|tables| tables.iter().next())
                .and_then(|table| table.get("id").and_then(Item::as_str))
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

/// The value a new place or row starts with in a field.
fn first_value(doc: &DocumentMut, field: &FieldSchema) -> Value {
    match field.kind {
        FieldKind::String => Value::from(first_text(doc, field)),
        FieldKind::Integer => Value::from(field.min.unwrap_or(0.0).ceil() as i64),
        FieldKind::Number => Value::from(field.min.unwrap_or(0.0)),
        FieldKind::Boolean => Value::from(false),
        FieldKind::List => {
            let mut array = Array::new();
            for _ in 0..field.length.unwrap_or(0) {
                array.push(first_text(doc, field));
            }
            Value::Array(array)
        }
    }
}

/// The rows of a table of rows, which the map may not have yet.
fn rows_mut<'a>(table: &RowTableSchema, doc: &'a mut DocumentMut) -> Result<&'a mut ArrayOfTables> {
    if doc.get(&table.table).is_none() {
        doc.insert(&table.table, Item::ArrayOfTables(ArrayOfTables::new()));
    }
    doc.get_mut(&table.table)
        .and_then(Item::as_array_of_tables_mut)
        .with_context(|| format!("`{}` is not an array of tables", table.table))
}

fn row_mut<'a>(
    table: &RowTableSchema,
    doc: &'a mut DocumentMut,
    row: usize,
) -> Result<&'a mut Table> {
    rows_mut(table, doc)?
        .get_mut(row)
        .with_context(|| format!("table `{}` has no row {row}", table.table))
}

fn add_row(table: &RowTableSchema, doc: &mut DocumentMut) -> Result<()> {
    let mut row = Table::new();
    for field in table.fields.iter().filter(|field| !field.optional) {
        let mut value = first_value(doc, field);
        if field.name == table.key && field.kind == FieldKind::Integer {
            // One above the largest key so far, so the new row is told apart at once.
            let largest = doc
                .get(&table.table)
                .and_then(Item::as_array_of_tables)
                .into_iter()
                .flat_map(ArrayOfTables::iter)
                .filter_map(|row| row.get(&field.name).and_then(Item::as_integer))
                .max();
            if let Some(largest) = largest {
                value = Value::from(largest.saturating_add(1));
            }
        }
        row.insert(&field.name, Item::Value(value));
    }
    // A blank line before it, as between the rows an author writes.
    row.decor_mut().set_prefix("\n");
    rows_mut(table, doc)?.push(row);
    Ok(())
}

fn set_item(
    table: &RowTableSchema,
    doc: &mut DocumentMut,
    row: usize,
    field: &str,
    index: usize,
    value: &str,
) -> Result<()> {
    let schema = table.field(field)?;
    ensure!(
        schema.kind == FieldKind::List,
        "field `{field}` of table `{}` is not a list",
        table.table
    );
    let filler = first_text(doc, schema);
    let length = schema.length.map(|length| length as usize);
    let row = row_mut(table, doc, row)?;
    if row.get(field).is_none() {
        row.insert(field, Item::Value(Value::Array(Array::new())));
    }
    let array = row
        .get_mut(field)
        .and_then(Item::as_array_mut)
        .with_context(|| format!("`{field}` is not a list"))?;
    if index >= array.len() {
        ensure!(
            length.is_some_and(|length| index < length),
            "`{field}` has no item {index}"
        );
        while array.len() <= index {
            array.push(filler.as_str());
        }
    }
    // Replaced in place: the spaces around the item stay.
    array.replace(index, value);
    Ok(())
}

fn add_place(
    schema: &Schema,
    doc: &mut DocumentMut,
    id: &str,
    name: &str,
    x: f64,
    y: f64,
) -> Result<()> {
    let places = schema.places()?;
    if id.is_empty() || id.len() > 64 {
        bail!("a place's id must have 1 to 64 characters");
    }
    if !x.is_finite() || !y.is_finite() {
        bail!("a position must be a finite number");
    }
    if place_mut(schema, doc, id).is_ok() {
        bail!("there is a place `{id}` already");
    }
    let mut table = Table::new();
    table.insert(&places.id, Item::Value(Value::from(id)));
    table.insert(&places.name, Item::Value(Value::from(name)));
    for field in places.fields.iter().filter(|field| !field.optional) {
        table.insert(&field.name, Item::Value(first_value(doc, field)));
    }
    table.insert(&places.x, Item::Value(Value::from(x.round() as i64)));
    table.insert(&places.y, Item::Value(Value::from(y.round() as i64)));
    // A blank line before it, as between the places an author writes.
    table.decor_mut().set_prefix("\n");
    if doc.get(&places.table).is_none() {
        doc.insert(&places.table, Item::ArrayOfTables(ArrayOfTables::new()));
    }
    doc.get_mut(&places.table)
        .and_then(Item::as_array_of_tables_mut)
        .with_context(|| format!("`{}` is not an array of tables", places.table))?
        .push(table);
    Ok(())
}

fn remove_place(schema: &Schema, doc: &mut DocumentMut, id: &str) -> Result<()> {
    let places = schema.places()?;
    place_mut(schema, doc, id)?;
    let tables = doc
        .get_mut(&places.table)
        .and_then(Item::as_array_of_tables_mut)
        .context("the places went missing")?;
    tables.retain(|table| table.get(&places.id).and_then(Item::as_str) != Some(id));
    for connection in &schema.connections {
        if let Some(field) = &connection.field {
            let tables = doc
                .get_mut(&places.table)
                .and_then(Item::as_array_of_tables_mut)
                .context("the places went missing")?;
            for table in tables.iter_mut() {
                if table.get(field).is_some_and(Item::is_array) {
                    edit_list(table, field, id, false)?;
                }
            }
        } else if let (Some(key), Some(endpoints)) = (&connection.table, &connection.endpoints)
            && let Some(tables) = doc.get_mut(key).and_then(Item::as_array_of_tables_mut)
        {
            tables.retain(|table| {
                endpoints_of(table, endpoints).is_none_or(|(a, b)| a != id && b != id)
            });
        }
    }
    Ok(())
}

/// The table of the place with this id.
fn place_mut<'a>(schema: &Schema, doc: &'a mut DocumentMut, id: &str) -> Result<&'a mut Table> {
    let places = schema.places()?;
    doc.get_mut(&places.table)
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|tables| {
            tables
                .iter_mut()
                .find(|table| table.get(&places.id).and_then(Item::as_str) == Some(id))
        })
        .with_context(|| format!("there is no place `{id}`"))
}

/// Sets `key` to `new`, keeping the spaces and comment around the old value.
fn set_value(table: &mut Table, key: &str, mut new: Value) {
    match table.get_mut(key) {
        // Replaced in place, so the key and the comments above it stay as they are.
        Some(item) => {
            if let Some(old) = item.as_value() {
                *new.decor_mut() = old.decor().clone();
            }
            *item = Item::Value(new);
        }
        None => {
            table.insert(key, Item::Value(new));
        }
    }
}

/// Sets a number, as a whole number unless the old value was a float.
fn set_number(table: &mut Table, key: &str, number: f64) {
    let float = table
        .get(key)
        .and_then(Item::as_value)
        .is_some_and(Value::is_float);
    let new = if float {
        Value::from((number * 10.0).round() / 10.0)
    } else {
        Value::from(number.round() as i64)
    };
    set_value(table, key, new);
}

fn json_to_toml(kind: FieldKind, field: &str, value: &Json) -> Result<Option<Value>> {
    if value.is_null() {
        return Ok(None);
    }
    let wrong = || anyhow::anyhow!("field `{field}` must be {kind:?}, not {value}");
    Ok(Some(match kind {
        FieldKind::String => Value::from(value.as_str().ok_or_else(wrong)?),
        FieldKind::Integer => Value::from(value.as_i64().ok_or_else(wrong)?),
        FieldKind::Number => Value::from(value.as_f64().ok_or_else(wrong)?),
        FieldKind::Boolean => Value::from(value.as_bool().ok_or_else(wrong)?),
        FieldKind::List => {
            let items = value.as_array().ok_or_else(wrong)?;
            let mut array = Array::new();
            for item in items {
                array.push(item.as_str().ok_or_else(wrong)?);
            }
            Value::Array(array)
        }
    }))
}

/// Adds `id` to (or removes it from) the list under `key`.
fn edit_list(table: &mut Table, key: &str, id: &str, add: bool) -> Result<()> {
    if table.get(key).is_none() {
        if !add {
            return Ok(());
        }
        table.insert(key, Item::Value(Value::Array(Array::new())));
    }
    let array = table
        .get_mut(key)
        .and_then(Item::as_array_mut)
        .with_context(|| format!("`{key}` is not a list"))?;
    let at = array.iter().position(|item| item.as_str() == Some(id));
    match (add, at) {
        (true, None) => array.push(id),
        (false, Some(at)) => {
            array.remove(at);
            // The new first item loses the space that followed the comma before it.
            if at == 0
                && let Some(first) = array.get_mut(0)
                && first.decor().prefix().and_then(|prefix| prefix.as_str()) == Some(" ")
            {
                first.decor_mut().set_prefix("");
            }
        }
        _ => {}
    }
    Ok(())
}

/// The two place ids a connection table names, if it names two.
fn endpoints_of(table: &Table, key: &str) -> Option<(String, String)> {
    let array = table.get(key)?.as_array()?;
    let mut ids = array.iter().filter_map(|value| value.as_str());
    Some((ids.next()?.to_owned(), ids.next()?.to_owned()))
}

fn is_flagged(table: &Table, flag: &str) -> bool {
    table.get(flag).and_then(Item::as_bool).unwrap_or(false)
}

/// Which kind of `connections` (all on one table) a connection table is.
fn kind_of<'a>(siblings: &[&'a ConnectionSchema], table: &Table) -> Option<&'a ConnectionSchema> {
    siblings
        .iter()
        .find(|kind| {
            kind.flag
                .as_deref()
                .is_some_and(|flag| is_flagged(table, flag))
        })
        .or_else(|| siblings.iter().find(|kind| kind.flag.is_none()))
        .copied()
}

fn edit_table_connection(
    schema: &Schema,
    connection: &ConnectionSchema,
    doc: &mut DocumentMut,
    from: &str,
    to: &str,
    connect: bool,
) -> Result<()> {
    let (Some(table_key), Some(endpoints)) = (&connection.table, &connection.endpoints) else {
        bail!("connection `{}` has no table", connection.kind);
    };
    let siblings: Vec<&ConnectionSchema> = schema
        .connections
        .iter()
        .filter(|other| other.table.as_ref() == Some(table_key))
        .collect();
    if doc.get(table_key).is_none() {
        if !connect {
            return Ok(());
        }
        doc.insert(table_key, Item::ArrayOfTables(ArrayOfTables::new()));
    }
    let tables = doc
        .get_mut(table_key)
        .and_then(Item::as_array_of_tables_mut)
        .with_context(|| format!("`{table_key}` is not an array of tables"))?;
    let joins = |table: &Table| {
        endpoints_of(table, endpoints)
            .is_some_and(|(a, b)| (a == from && b == to) || (a == to && b == from))
    };
    let found = tables.iter().position(joins);
    match (connect, found) {
        (true, Some(at)) => {
            // The two places are joined already: make the join this kind.
            let table = tables.get_mut(at).context("a connection went missing")?;
            for other in &siblings {
                if let Some(flag) = &other.flag {
                    if other.kind == connection.kind {
                        set_value(table, flag, Value::from(true));
                    } else if is_flagged(table, flag) {
                        table.remove(flag);
                    }
                }
            }
        }
        (true, None) => {
            let mut table = Table::new();
            let mut pair = Array::new();
            pair.push(from);
            pair.push(to);
            table.insert(endpoints, Item::Value(Value::Array(pair)));
            if let Some(flag) = &connection.flag {
                table.insert(flag, Item::Value(Value::from(true)));
            }
            table.decor_mut().set_prefix("\n");
            tables.push(table);
        }
        (false, Some(at)) => {
            let table = tables.get(at).context("a connection went missing")?;
            if kind_of(&siblings, table).is_some_and(|kind| kind.kind == connection.kind) {
                tables.remove(at);
            }
        }
        (false, None) => {}
    }
    Ok(())
}

/// The places, the connections, the rows and where each line of the text belongs, read from a
/// map text for a client: everything it needs to draw handles, offer connections, fill tables
/// and place findings.
#[derive(Debug, Default)]
pub struct Outline {
    /// Each place: `{id, name, key, x, y, fields}`.
    pub places: Vec<Json>,
    /// Each connection: `{kind, from, to}`, each pair once.
    pub connections: Vec<Json>,
    /// The rows of each table of rows: `{<table>: [{<field>: value, ...}, ...]}`.
    pub rows: serde_json::Map<String, Json>,
    /// What each line (0-based) belongs to, if anything.
    lines: Vec<Option<Owner>>,
    /// Allowed values of fields whose values come from another table of the map.
    pub values_from: Vec<(String, Vec<String>)>,
}

/// What a line of the map text belongs to.
#[derive(Clone, Debug, PartialEq)]
enum Owner {
    /// The place with this id.
    Place(String),
    /// The row of this table with this index.
    Row(String, usize),
}

impl Outline {
    /// Reads what it can; a text that is not TOML has no outline.
    pub fn read(schema: &Schema, text: &str) -> Outline {
        let Ok(doc) = text.parse::<DocumentMut>() else {
            return Outline::default();
        };
        let mut outline = Outline::default();
        let mut place_ids: Vec<Option<String>> = Vec::new();
        if let Some(places) = &schema.places {
            outline.read_places(schema, places, &doc, &mut place_ids);
        }
        for table in &schema.tables {
            let rows: Vec<Json> = doc
                .get(&table.table)
                .and_then(Item::as_array_of_tables)
                .into_iter()
                .flat_map(ArrayOfTables::iter)
                .map(|row| {
                    let mut fields = serde_json::Map::new();
                    for field in &table.fields {
                        if let Some(value) = row.get(&field.name).and_then(Item::as_value) {
                            fields.insert(field.name.clone(), toml_to_json(value));
                        }
                    }
                    Json::Object(fields)
                })
                .collect();
            outline.rows.insert(table.table.clone(), Json::Array(rows));
        }
        let mut sources: Vec<&FieldSchema> = Vec::new();
        if let Some(places) = &schema.places {
            sources.extend(&places.fields);
        }
        for table in &schema.tables {
            sources.extend(&table.fields);
        }
        for field in sources {
            if let Some(source) = &field.values_from {
                let ids = doc
                    .get(source)
                    .and_then(Item::as_array_of_tables)
                    .into_iter()
                    .flat_map(ArrayOfTables::iter)
                    .filter_map(|table| table.get("id").and_then(Item::as_str))
                    .map(str::to_owned)
                    .collect();
                outline.values_from.push((field.name.clone(), ids));
            }
        }
        // The n-th `[[<table>]]` header starts the n-th place or row; its sub-tables
        // (`[<table>.x]`, `[[<table>.x]]`) belong to it, and any other header ends it.
        // Each array of tables that starts a place or a row, with the ids of the places.
        let mut owners: Vec<(String, Option<Vec<Option<String>>>)> = Vec::new();
        if let Some(places) = &schema.places {
            owners.push((places.table.clone(), Some(place_ids)));
        }
        for table in &schema.tables {
            owners.push((table.table.clone(), None));
        }
        let mut seen = vec![0usize; owners.len()];
        let mut current: Option<Owner> = None;
        let mut inside: Option<usize> = None;
        for line in text.lines() {
            let trimmed = line.trim_start();
            if trimmed.starts_with('[') {
                let head = trimmed.split('#').next().unwrap_or("").trim_end();
                let opens = owners
                    .iter()
                    .position(|(table, _)| head == format!("[[{table}]]"));
                if let Some(at) = opens {
                    let (table, ids) = &owners[at];
                    current = match ids {
                        Some(ids) => ids.get(seen[at]).cloned().flatten().map(Owner::Place),
                        None => Some(Owner::Row(table.clone(), seen[at])),
                    };
                    seen[at] += 1;
                    inside = Some(at);
                } else {
                    let within = inside.is_some_and(|at| {
                        let table = &owners[at].0;
                        head.starts_with(&format!("[{table}."))
                            || head.starts_with(&format!("[[{table}."))
                    });
                    if !within {
                        current = None;
                        inside = None;
                    }
                }
            }
            outline.lines.push(current.clone());
        }
        outline
    }

    fn read_places(
        &mut self,
        schema: &Schema,
        places: &PlaceSchema,
        doc: &DocumentMut,
        ids: &mut Vec<Option<String>>,
    ) {
        let tables: Vec<&Table> = doc
            .get(&places.table)
            .and_then(Item::as_array_of_tables)
            .map(|tables| tables.iter().collect())
            .unwrap_or_default();
        let mut pairs = BTreeSet::new();
        for table in &tables {
            ids.push(
                table
                    .get(&places.id)
                    .and_then(Item::as_str)
                    .map(str::to_owned),
            );
            let Some(id) = table.get(&places.id).and_then(Item::as_str) else {
                continue;
            };
            let number = |key: &str| {
                table
                    .get(key)
                    .and_then(Item::as_value)
                    .and_then(|value| value.as_float().or(value.as_integer().map(|i| i as f64)))
            };
            let mut fields = serde_json::Map::new();
            for field in &places.fields {
                if let Some(value) = table.get(&field.name).and_then(Item::as_value) {
                    fields.insert(field.name.clone(), toml_to_json(value));
                }
            }
            self.places.push(json!({
                "id": id,
                "name": table.get(&places.name).and_then(Item::as_str),
                "key": format!("{}{id}", places.key_prefix),
                "x": number(&places.x),
                "y": number(&places.y),
                "fields": fields,
            }));
            for connection in &schema.connections {
                let Some(field) = &connection.field else {
                    continue;
                };
                let Some(list) = table.get(field).and_then(Item::as_array) else {
                    continue;
                };
                for other in list.iter().filter_map(|value| value.as_str()) {
                    let (a, b) = if id < other { (id, other) } else { (other, id) };
                    pairs.insert((connection.kind.clone(), a.to_owned(), b.to_owned()));
                }
            }
        }
        for connection in &schema.connections {
            let (Some(table_key), Some(endpoints)) = (&connection.table, &connection.endpoints)
            else {
                continue;
            };
            let siblings: Vec<&ConnectionSchema> = schema
                .connections
                .iter()
                .filter(|other| other.table.as_ref() == Some(table_key))
                .collect();
            for table in doc
                .get(table_key)
                .and_then(Item::as_array_of_tables)
                .into_iter()
                .flat_map(ArrayOfTables::iter)
            {
                if kind_of(&siblings, table).is_some_and(|kind| kind.kind == connection.kind)
                    && let Some((a, b)) = endpoints_of(table, endpoints)
                {
                    pairs.insert((connection.kind.clone(), a, b));
                }
            }
        }
        self.connections = pairs
            .into_iter()
            .map(|(kind, from, to)| json!({ "kind": kind, "from": from, "to": to }))
            .collect();
    }

    fn owner_at(&self, line: u32) -> Option<&Owner> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        self.lines.get(index)?.as_ref()
    }

    /// The place a 1-based line belongs to.
    pub fn place_at(&self, line: u32) -> Option<&str> {
        match self.owner_at(line)? {
            Owner::Place(id) => Some(id),
            Owner::Row(..) => None,
        }
    }

    /// The row (table and index) a 1-based line belongs to.
    pub fn row_at(&self, line: u32) -> Option<(&str, usize)> {
        match self.owner_at(line)? {
            Owner::Row(table, index) => Some((table, *index)),
            Owner::Place(_) => None,
        }
    }
}

fn toml_to_json(value: &Value) -> Json {
    match value {
        Value::String(text) => Json::from(text.value().as_str()),
        Value::Integer(number) => Json::from(*number.value()),
        Value::Float(number) => Json::from(*number.value()),
        Value::Boolean(flag) => Json::from(*flag.value()),
        Value::Array(array) => Json::Array(array.iter().map(toml_to_json).collect()),
        other => Json::from(other.to_string().trim()),
    }
}

/// The schema as a client sees it: the allowed values of fields taken from the map filled in.
pub fn schema_json(schema: &Schema, outline: &Outline) -> Json {
    let mut value = serde_json::to_value(schema).unwrap_or(Json::Null);
    let fill = |fields: &mut Json| {
        for field in fields.as_array_mut().into_iter().flatten() {
            let name = field.get("name").and_then(Json::as_str).map(str::to_owned);
            if let Some((_, ids)) = outline
                .values_from
                .iter()
                .find(|(key, _)| Some(key) == name.as_ref())
            {
                field["values"] = json!(ids);
            }
        }
    };
    if let Some(fields) = value.pointer_mut("/places/field") {
        fill(fields);
    }
    for table in value
        .get_mut("table")
        .and_then(Json::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(fields) = table.get_mut("field") {
            fill(fields);
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTS: &str = r#"
[places]
table = "province"
key-prefix = "province."

[[places.field]]
name = "tax"
type = "integer"

[[connection]]
kind = "border"
field = "borders"
"#;

    const TABLES: &str = r#"
[places]
table = "area"

[[connection]]
kind = "road"
table = "road"
endpoints = "between"

[[connection]]
kind = "highway"
table = "road"
endpoints = "between"
flag = "highway"
"#;

    const MAP: &str = "# a map\n[map]\nid = \"m\"\n\n[[province]]\nid = \"a\"  # first\nx = 10\ny = 20\nborders = [\"b\"]\ntax = 3\n\n[[province]]\nid = \"b\"\nx = 30.0\ny = 40.0\nborders = [\"a\"]\n";

    #[test]
    fn edits_keep_everything_else() {
        let schema = Schema::parse(LISTS).unwrap();
        let moved = apply(
            &schema,
            MAP,
            &[Edit::Move {
                place: "b".into(),
                x: 31.26,
                y: 5.0,
            }],
        )
        .unwrap();
        assert!(moved.contains("x = 31.3\ny = 5.0\n"), "{moved}");
        assert!(
            moved.starts_with("# a map\n[map]\nid = \"m\"\n\n[[province]]\nid = \"a\"  # first\n")
        );
        let cut = apply(
            &schema,
            MAP,
            &[Edit::Disconnect {
                kind: "border".into(),
                from: "a".into(),
                to: "b".into(),
            }],
        )
        .unwrap();
        assert!(!cut.contains("\"b\"]") && !cut.contains("[\"a\"]"), "{cut}");
        let back = apply(
            &schema,
            &cut,
            &[Edit::Connect {
                kind: "border".into(),
                from: "a".into(),
                to: "b".into(),
            }],
        )
        .unwrap();
        let outline = Outline::read(&schema, &back);
        assert_eq!(outline.connections.len(), 1);
        assert_eq!(outline.place_at(7), Some("a"));
        assert_eq!(outline.place_at(2), None);
        assert_eq!(outline.place_at(14), Some("b"));
        assert!(
            apply(
                &schema,
                MAP,
                &[Edit::Set {
                    place: "a".into(),
                    field: "tax".into(),
                    value: json!("x")
                }]
            )
            .is_err()
        );
        assert!(
            apply(
                &schema,
                MAP,
                &[Edit::Move {
                    place: "z".into(),
                    x: 1.0,
                    y: 1.0
                }]
            )
            .is_err()
        );
    }

    #[test]
    fn a_place_is_added_with_first_values_and_removed_with_its_connections() {
        let schema = Schema::parse(LISTS).unwrap();
        let added = apply(
            &schema,
            MAP,
            &[Edit::AddPlace {
                id: "c".into(),
                name: "C".into(),
                x: 50.4,
                y: 60.0,
            }],
        )
        .unwrap();
        assert!(added.starts_with(MAP), "{added}");
        assert!(
            added
                .ends_with("\n\n[[province]]\nid = \"c\"\nname = \"C\"\ntax = 0\nx = 50\ny = 60\n"),
            "{added}"
        );
        let again = Edit::AddPlace {
            id: "c".into(),
            name: "C".into(),
            x: 1.0,
            y: 1.0,
        };
        assert!(apply(&schema, &added, &[again]).is_err());
        let removed = apply(&schema, MAP, &[Edit::RemovePlace { place: "b".into() }]).unwrap();
        assert!(!removed.contains("id = \"b\""), "{removed}");
        assert!(removed.contains("borders = []"), "{removed}");
        let schema = Schema::parse(TABLES).unwrap();
        let map =
            "[[area]]\nid = \"a\"\n\n[[area]]\nid = \"b\"\n\n[[road]]\nbetween = [\"a\", \"b\"]\n";
        let removed = apply(&schema, map, &[Edit::RemovePlace { place: "a".into() }]).unwrap();
        // The road naming it goes too; the blank line before the next table stays.
        assert_eq!(removed, "\n[[area]]\nid = \"b\"\n");
    }

    #[test]
    fn table_connections_tell_kinds_apart_by_their_flag() {
        let schema = Schema::parse(TABLES).unwrap();
        let map =
            "[[area]]\nid = \"a\"\n\n[[area]]\nid = \"b\"\n\n[[road]]\nbetween = [\"a\", \"b\"]\n";
        let edit = |text: &str, op: &str, kind: &str| {
            let edit: Edit =
                serde_json::from_value(json!({"op": op, "kind": kind, "from": "b", "to": "a"}))
                    .unwrap();
            apply(&schema, text, &[edit]).unwrap()
        };
        let highway = edit(map, "connect", "highway");
        assert!(highway.contains("highway = true"), "{highway}");
        let outline = Outline::read(&schema, &highway);
        assert_eq!(
            outline.connections,
            vec![json!({"kind": "highway", "from": "a", "to": "b"})]
        );
        assert_eq!(edit(&highway, "disconnect", "road"), highway);
        let none = edit(&highway, "disconnect", "highway");
        assert!(!none.contains("[[road]]"), "{none}");
    }

    const DECK: &str = r#"
[[table]]
table = "card"
key = "number"

[[table.field]]
name = "number"
type = "integer"
min = 1

[[table.field]]
name = "squares"
type = "list"
values = ["forest", "lake", "town"]
length = 3
"#;

    const CARDS: &str = "# a deck\n[deck]\nname = \"d\"\n\n[[card]]\nnumber = 1\nsquares = [\"lake\", \"town\", \"forest\"]  # the first\n\n[[card]]\nnumber = 2\nsquares = [\"town\", \"town\", \"lake\"]\n";

    fn edit(schema: &Schema, text: &str, edit: Json) -> Result<String> {
        let edit: Edit = serde_json::from_value(edit).unwrap();
        apply(schema, text, &[edit])
    }

    #[test]
    fn rows_are_edited_in_place_and_keep_everything_else() {
        let schema = Schema::parse(DECK).unwrap();
        let one = edit(
            &schema,
            CARDS,
            json!({"op": "set-item", "table": "card", "row": 0, "field": "squares", "index": 1, "value": "forest"}),
        )
        .unwrap();
        assert_eq!(
            one,
            CARDS.replace(
                "[\"lake\", \"town\", \"forest\"]  # the first",
                "[\"lake\", \"forest\", \"forest\"]  # the first"
            )
        );
        let number = edit(
            &schema,
            CARDS,
            json!({"op": "set-cell", "table": "card", "row": 1, "field": "number", "value": 7}),
        )
        .unwrap();
        assert_eq!(number, CARDS.replace("number = 2", "number = 7"));
        // Out of the list's fixed length, of the rows, or of the wrong type: refused.
        for bad in [
            json!({"op": "set-item", "table": "card", "row": 0, "field": "squares", "index": 3, "value": "lake"}),
            json!({"op": "set-item", "table": "card", "row": 2, "field": "squares", "index": 0, "value": "lake"}),
            json!({"op": "set-item", "table": "card", "row": 0, "field": "number", "index": 0, "value": "lake"}),
            json!({"op": "set-cell", "table": "card", "row": 0, "field": "number", "value": "x"}),
            json!({"op": "set-cell", "table": "deck", "row": 0, "field": "number", "value": 1}),
            json!({"op": "remove-row", "table": "card", "row": 5}),
            json!({"op": "move", "place": "a", "x": 1, "y": 1}),
        ] {
            assert!(edit(&schema, CARDS, bad.clone()).is_err(), "{bad}");
        }
        // A short list of a fixed length is filled up with first values.
        let short = CARDS.replace("[\"town\", \"town\", \"lake\"]", "[\"town\"]");
        let filled = edit(
            &schema,
            &short,
            json!({"op": "set-item", "table": "card", "row": 1, "field": "squares", "index": 2, "value": "lake"}),
        )
        .unwrap();
        assert!(
            filled.contains("squares = [\"town\", \"forest\", \"lake\"]"),
            "{filled}"
        );
    }

    #[test]
    fn a_row_is_added_with_first_values_and_removed() {
        let schema = Schema::parse(DECK).unwrap();
        let added = edit(&schema, CARDS, json!({"op": "add-row", "table": "card"})).unwrap();
        assert_eq!(
            added,
            format!(
                "{CARDS}\n[[card]]\nnumber = 3\nsquares = [\"forest\", \"forest\", \"forest\"]\n"
            )
        );
        let outline = Outline::read(&schema, &added);
        assert_eq!(outline.rows["card"].as_array().unwrap().len(), 3);
        assert_eq!(outline.rows["card"][2]["number"], json!(3));
        assert_eq!(outline.row_at(5), Some(("card", 0)));
        assert_eq!(outline.row_at(11), Some(("card", 1)));
        assert_eq!(outline.row_at(2), None);
        let removed = edit(
            &schema,
            CARDS,
            json!({"op": "remove-row", "table": "card", "row": 0}),
        )
        .unwrap();
        assert_eq!(
            removed,
            "# a deck\n[deck]\nname = \"d\"\n\n[[card]]\nnumber = 2\nsquares = [\"town\", \"town\", \"lake\"]\n"
        );
        // A map without the table yet gets it; the first key is the smallest allowed.
        let first = edit(
            &schema,
            "[deck]\n",
            json!({"op": "add-row", "table": "card"}),
        )
        .unwrap();
        assert!(first.contains("[[card]]\nnumber = 1\n"), "{first}");
    }

    fn field(name: &str, kind: sdk::FieldKind) -> sdk::EditorField {
        sdk::EditorField::new(name, kind, "what it is")
    }

    fn deck() -> sdk::MapEditor {
        sdk::MapEditor::default().with_table(sdk::RowTable::new(
            "card",
            "number",
            "the cards",
            vec![
                field("number", sdk::FieldKind::Integer).range(1.0, 60.0),
                field("squares", sdk::FieldKind::List)
                    .values(["forest", "lake"])
                    .length(6),
            ],
        ))
    }

    fn board() -> sdk::MapEditor {
        sdk::MapEditor::with_places(
            sdk::EditorPlaces::new("area", "area.")
                .field(field("kind", sdk::FieldKind::String).values(["plain", "castle"])),
        )
        .with_connection(sdk::EditorConnection::table(
            "road", "road", "between", None, "a road",
        ))
        .with_connection(sdk::EditorConnection::table(
            "highway",
            "road",
            "between",
            Some("highway"),
            "a highway",
        ))
        .with_blank_map("[map]\nname = \"new\"\n")
    }

    #[test]
    fn a_rulesets_schema_converts_with_every_part() {
        let schema = Schema::from_ruleset(board()).unwrap();
        let places = schema.places.as_ref().unwrap();
        assert_eq!(
            (places.table.as_str(), places.key_prefix.as_str()),
            ("area", "area.")
        );
        assert_eq!(schema.connections[1].flag.as_deref(), Some("highway"));
        assert_eq!(schema.connections[1].table.as_deref(), Some("road"));
        assert_eq!(schema.blank_map.as_deref(), Some("[map]\nname = \"new\"\n"));
        let schema = Schema::from_ruleset(deck()).unwrap();
        assert!(schema.places.is_none());
        assert_eq!(schema.tables[0].fields[1].length, Some(6));
        let client = schema_json(&schema, &Outline::default());
        assert_eq!(client["table"][0]["field"][1]["length"], json!(6));
        assert_eq!(client["places"], Json::Null);
    }

    #[test]
    fn a_hostile_schema_is_refused() {
        let mut bad: Vec<(&str, sdk::MapEditor)> = Vec::new();
        let mut huge = deck();
        huge.tables[0].fields[1].values = (0..10_000).map(|i| format!("v{i}")).collect();
        bad.push(("too many values", huge));
        let mut long = deck();
        long.tables[0].description = "x".repeat(1 << 20);
        bad.push(("a huge description", long));
        let mut key = deck();
        key.tables[0].table = "card]]\n[[x".into();
        bad.push(("a key that is not a bare key", key));
        let mut empty = deck();
        empty.tables[0].table = String::new();
        bad.push(("an empty key", empty));
        let mut length = deck();
        length.tables[0].fields[1].length = Some(u32::MAX);
        bad.push(("a huge length", length));
        let mut misplaced = deck();
        misplaced.tables[0].fields[0].length = Some(3);
        bad.push(("a length on a number", misplaced));
        let mut range = deck();
        range.tables[0].fields[0].min = Some(f64::NAN);
        bad.push(("a bound that is no number", range));
        let mut upside = deck();
        upside.tables[0].fields[0].min = Some(10.0);
        upside.tables[0].fields[0].max = Some(1.0);
        bad.push(("a minimum above the maximum", upside));
        let mut values = deck();
        values.tables[0].fields[0].values = vec!["1".into()];
        bad.push(("values on a number", values));
        let mut twice = deck();
        let again = twice.tables[0].clone();
        twice.tables.push(again);
        bad.push(("a table twice", twice));
        let mut nokey = deck();
        nokey.tables[0].key = "name".into();
        bad.push(("a key that is no field", nokey));
        let mut many = deck();
        many.tables = (0..100)
            .map(|i| {
                let mut table = many.tables[0].clone();
                table.table = format!("t{i}");
                table
            })
            .collect();
        bad.push(("too many tables", many));
        let mut blank = board();
        blank.blank_map = Some("[map\n".into());
        bad.push(("an empty map that is not TOML", blank));
        let mut big = board();
        big.blank_map = Some(format!("# {}\n", "x".repeat(100_000)));
        bad.push(("a huge empty map", big));
        let mut control = board();
        control.connections[0].description = "a\u{1b}[31m".into();
        bad.push(("control characters", control));
        let mut flagless = board();
        flagless.connections[1].storage = sdk::ConnectionStorage::Table {
            table: "road".into(),
            endpoints: "between".into(),
            flag: None,
        };
        bad.push(("two kinds of one table without a flag", flagless));
        let mut kinds = board();
        kinds.connections[1].kind = "road".into();
        bad.push(("a kind twice", kinds));
        let mut lonely = board();
        lonely.places = None;
        bad.push(("connections without places", lonely));
        let mut clash = board();
        clash
            .places
            .as_mut()
            .unwrap()
            .fields
            .push(field("x", sdk::FieldKind::Number));
        bad.push(("a field that is the position", clash));
        for (what, schema) in bad {
            assert!(Schema::from_ruleset(schema).is_err(), "{what} was accepted");
        }
    }
}
