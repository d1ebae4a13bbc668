//! `POST /api/rulesets/{id}/editor`: the map editor's one call. It applies a client's edits to a
//! map text (format-preserving, see [`tenka_game::editor`]), checks the result with the ruleset's own
//! `validate-map`, draws it as the map preview does, and says where each place and each finding
//! is. Nothing is stored: the text the client holds is the only copy.
//!
//! Anyone may call it, so it is bounded like other work a client can start: the body cap of the
//! whole API (a map text fits in it), the request rate of its address, one call at a time per
//! client address and [`EDITOR_CALLS`] at once on the server (refused at once beyond them, never
//! queued), and the ruleset work itself in the hub's call slots with its fuel and memory limits.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Json;
use axum::extract::{ConnectInfo, Path, State};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::AppState;
use super::connections::{AddressSlot, AddressSlots};
use super::error::{AppError, AppJson};
use tenka_game::editor::{self, Edit, Outline};

/// Editor calls the server runs at once; more are answered 503 at once.
pub const EDITOR_CALLS: usize = 2;

/// The longest map text the editor takes, in bytes (the API's body cap leaves a little less).
pub const MAX_MAP_BYTES: usize = 60 * 1024;

/// Refuses a map text longer than [`MAX_MAP_BYTES`], before anything reads it.
pub(crate) fn check_map_size(toml: &str) -> Result<(), AppError> {
    if toml.len() > MAX_MAP_BYTES {
        return Err(AppError::BadRequest(format!(
            "a map text may have at most {MAX_MAP_BYTES} bytes, not {}",
            toml.len()
        )));
    }
    Ok(())
}

/// The bounds of editor calls: per client address and per server.
pub struct EditorLimits {
    per_address: Arc<AddressSlots>,
    server: Arc<Semaphore>,
    /// Saves of example maps, one at a time (`examples.rs`).
    pub saving: tokio::sync::Mutex<()>,
}

impl Default for EditorLimits {
    fn default() -> Self {
        EditorLimits {
            per_address: AddressSlots::new(1),
            server: Arc::new(Semaphore::new(EDITOR_CALLS)),
            saving: tokio::sync::Mutex::new(()),
        }
    }
}

/// An editor call (or a save of an example, which checks a map the same way) admitted: its
/// address's slot and the server's, given back when dropped.
pub struct Admitted {
    _address: AddressSlot,
    _server: OwnedSemaphorePermit,
}

impl EditorLimits {
    /// Admits a call of the client whose connection `extensions` describe, or refuses it at
    /// once: 429 when its address is checking a map already, 503 when the server checks as many
    /// as it may.
    pub fn admit(&self, extensions: &axum::http::Extensions) -> Result<Admitted, AppError> {
        let address = extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::from([0, 0, 0, 0]), |info| info.0.ip());
        let mine = self.per_address.take(address).ok_or_else(|| {
            AppError::TooManyJobs(
                "this address is already checking a map; wait for the answer".to_owned(),
            )
        })?;
        let ours = self.server.clone().try_acquire_owned().map_err(|_| {
            AppError::Busy("the server is checking as many maps as it can; try again".to_owned())
        })?;
        Ok(Admitted {
            _address: mine,
            _server: ours,
        })
    }
}

/// `POST /api/rulesets/{id}/editor` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditRequest {
    /// The map text as the client has it.
    pub toml: String,
    /// Edits to apply first, in order (none: only check and draw).
    #[serde(default)]
    pub edits: Vec<Edit>,
}

/// `POST /api/rulesets/{id}/editor`
pub async fn edit(
    State(state): State<AppState>,
    Path(id): Path<String>,
    extensions: axum::http::Extensions,
    AppJson(request): AppJson<EditRequest>,
) -> Result<Json<Value>, AppError> {
    let entry = super::api::ruleset_entry(&state, &id)?;
    if entry.info.maps.is_empty() && entry.maps.is_empty() && entry.editor.is_none() {
        return Err(AppError::BadRequest(format!(
            "ruleset `{id}` takes no map: its board comes with the game"
        )));
    }
    check_map_size(&request.toml)?;
    if request.edits.len() > editor::MAX_EDITS {
        return Err(AppError::BadRequest(format!(
            "at most {} edits at once, not {}",
            editor::MAX_EDITS,
            request.edits.len()
        )));
    }
    if !request.edits.is_empty() && entry.editor.is_none() {
        return Err(AppError::BadRequest(format!(
            "ruleset `{id}` describes no editable fields: edit the text"
        )));
    }
    let _admitted = state.editor.admit(&extensions)?;
    let text = match &entry.editor {
        Some(schema) => editor::apply(schema, &request.toml, &request.edits)
            .map_err(|error| AppError::BadRequest(format!("{error:#}")))?,
        None => request.toml,
    };
    let ruleset = super::api::loaded_ruleset(&state, &entry)?;
    let info = entry.info.clone();
    let checked = text.clone();
    let (diagnostics, board) = state
        .hub
        .call_slots()
        .run(move || super::offer::check_and_draw(&ruleset, &info, &checked))
        .await
        .map_err(AppError::Internal)?;
    let valid = !diagnostics.iter().any(sdk::Diagnostic::is_error);
    let outline = entry
        .editor
        .as_ref()
        .map(|schema| Outline::read(schema, &text))
        .unwrap_or_default();
    let diagnostics: Vec<Value> = diagnostics
        .iter()
        .map(|diagnostic| {
            let mut value = serde_json::to_value(diagnostic).unwrap_or(Value::Null);
            value["place"] = json!(outline.place_at(diagnostic.line));
            value["row"] = json!(
                outline
                    .row_at(diagnostic.line)
                    .map(|(table, index)| json!({ "table": table, "index": index }))
            );
            value
        })
        .collect();
    let (svg, board_error) = match board {
        Ok(svg) => (Some(svg), None),
        Err(why) => (None, Some(why)),
    };
    Ok(Json(json!({
        "toml": text,
        "valid": valid,
        "diagnostics": diagnostics,
        "svg": svg.as_deref(),
        "board_error": board_error,
        "schema": entry.editor.as_ref().map(|schema| editor::schema_json(schema, &outline)),
        "places": outline.places,
        "connections": outline.connections,
        "rows": outline.rows,
    })))
}
