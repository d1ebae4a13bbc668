//! The map editor's server side, for any ruleset: what can be edited (a ruleset's editor schema,
//! `maps/<ruleset>/editor.toml`, data only), edits applied to a map text with `toml_edit` so that
//! every comment, blank line and order the author wrote is kept, and where each place and each
//! finding is, so a client can show a finding at its place on the board.
//!
//! The schema describes the TOML, never the game: the array of tables that holds the places
//! (and which of their fields are the id, the name and the position), each kind of connection
//! (a list of neighbours on each place, written on both ends, or an array of tables naming two
//! places, optionally told apart by a flag), and the other fields of a place with their types,
//! allowed values and descriptions. The ruleset's `validate-map` still decides what is valid.

use std::collections::BTreeSet;

use anyhow::{Context as _, Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};
use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, Value};

/// The file beside a ruleset's maps that holds its editor schema.
pub const SCHEMA_FILE: &str = "editor.toml";

/// The most edits one request may carry.
pub const MAX_EDITS: usize = 64;

/// What the editor may change in a ruleset's maps.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Schema {
    /// The places.
    pub places: PlaceSchema,
    /// The kinds of connection between places, in the order a client offers them.
    #[serde(default, rename = "connection")]
    pub connections: Vec<ConnectionSchema>,
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

/// One editable field of a place.
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
}

/// The type of a field.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
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

impl Schema {
    /// Reads and checks a schema file's text.
    pub fn parse(text: &str) -> Result<Schema> {
        let schema: Schema = toml::from_str(text).context("the editor schema is not valid")?;
        for connection in &schema.connections {
            match (&connection.field, &connection.table, &connection.endpoints) {
                (Some(_), None, None) if connection.flag.is_none() => {}
                (None, Some(_), Some(_)) => {}
                _ => bail!(
                    "connection `{}` needs either `field`, or `table` and `endpoints`",
                    connection.kind
                ),
            }
        }
        Ok(schema)
    }

    fn connection(&self, kind: &str) -> Result<&ConnectionSchema> {
        self.connections
            .iter()
            .find(|connection| connection.kind == kind)
            .with_context(|| format!("there is no kind of connection `{kind}`"))
    }

    fn field(&self, name: &str) -> Result<&FieldSchema> {
        self.places
            .fields
            .iter()
            .find(|field| field.name == name)
            .with_context(|| format!("there is no editable field `{name}`"))
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
    let places = &schema.places;
    match edit {
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

fn add_place(
    schema: &Schema,
    doc: &mut DocumentMut,
    id: &str,
    name: &str,
    x: f64,
    y: f64,
) -> Result<()> {
    let places = &schema.places;
    if id.is_empty() || id.len() > 64 {
        bail!("a place's id must have 1 to 64 characters");
    }
    if !x.is_finite() || !y.is_finite() {
        bail!("a position must be a finite number");
    }
    if place_mut(schema, doc, id).is_ok() {
        bail!("there is a place `{id}` already");
    }
    // The first value of fields whose values come from the map (a region's id, say).
    let first_of = |table: &str| {
        doc.get(table)
            .and_then(Item::as_array_of_tables)
            .and_then(|tables| tables.iter().next())
            .and_then(|table| table.get("id").and_then(Item::as_str))
            .map(str::to_owned)
    };
    let mut table = Table::new();
    table.insert(&places.id, Item::Value(Value::from(id)));
    table.insert(&places.name, Item::Value(Value::from(name)));
    for field in places.fields.iter().filter(|field| !field.optional) {
        let value = match field.kind {
            FieldKind::String => Value::from(
                field
                    .values
                    .first()
                    .cloned()
                    .or_else(|| field.values_from.as_deref().and_then(first_of))
                    .unwrap_or_default(),
            ),
            FieldKind::Integer => Value::from(field.min.unwrap_or(0.0).ceil() as i64),
            FieldKind::Number => Value::from(field.min.unwrap_or(0.0)),
            FieldKind::Boolean => Value::from(false),
            FieldKind::List => Value::Array(Array::new()),
        };
        table.insert(&field.name, Item::Value(value));
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
    let places = &schema.places;
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
    let places = &schema.places;
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

/// The places, the connections and where each line of the text belongs, read from a map text
/// for a client: everything it needs to draw handles, offer connections and place findings.
#[derive(Debug, Default)]
pub struct Outline {
    /// Each place: `{id, name, key, x, y, fields}`.
    pub places: Vec<Json>,
    /// Each connection: `{kind, from, to}`, each pair once.
    pub connections: Vec<Json>,
    /// The place each line (0-based) belongs to, if any.
    line_places: Vec<Option<String>>,
    /// Allowed values of fields whose values come from another table of the map.
    pub values_from: Vec<(String, Vec<String>)>,
}

impl Outline {
    /// Reads what it can; a text that is not TOML has no outline.
    pub fn read(schema: &Schema, text: &str) -> Outline {
        let Ok(doc) = text.parse::<DocumentMut>() else {
            return Outline::default();
        };
        let places = &schema.places;
        let mut outline = Outline::default();
        let tables: Vec<&Table> = doc
            .get(&places.table)
            .and_then(Item::as_array_of_tables)
            .map(|tables| tables.iter().collect())
            .unwrap_or_default();
        let mut pairs = BTreeSet::new();
        for table in &tables {
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
            outline.places.push(json!({
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
        outline.connections = pairs
            .into_iter()
            .map(|(kind, from, to)| json!({ "kind": kind, "from": from, "to": to }))
            .collect();
        for field in &places.fields {
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
        // The n-th `[[<table>]]` header starts the n-th place; its sub-tables
        // (`[<table>.x]`, `[[<table>.x]]`) belong to it, and any other header ends it.
        let ids: Vec<Option<String>> = tables
            .iter()
            .map(|table| {
                table
                    .get(&places.id)
                    .and_then(Item::as_str)
                    .map(str::to_owned)
            })
            .collect();
        let header = format!("[[{}]]", places.table);
        let (sub, subs) = (
            format!("[{}.", places.table),
            format!("[[{}.", places.table),
        );
        let mut current: Option<String> = None;
        let mut seen = 0;
        for line in text.lines() {
            let trimmed = line.trim_start();
            if trimmed.starts_with('[') {
                let head = trimmed.split('#').next().unwrap_or("").trim_end();
                if head == header {
                    current = ids.get(seen).cloned().flatten();
                    seen += 1;
                } else if !(head.starts_with(&sub) || head.starts_with(&subs)) {
                    current = None;
                }
            }
            outline.line_places.push(current.clone());
        }
        outline
    }

    /// The place a 1-based line belongs to.
    pub fn place_at(&self, line: u32) -> Option<&str> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        self.line_places.get(index)?.as_deref()
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
    if let Some(fields) = value
        .pointer_mut("/places/field")
        .and_then(Json::as_array_mut)
    {
        for field in fields {
            let name = field.get("name").and_then(Json::as_str).map(str::to_owned);
            if let Some((_, ids)) = outline
                .values_from
                .iter()
                .find(|(key, _)| Some(key) == name.as_ref())
            {
                field["values"] = json!(ids);
            }
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
}
