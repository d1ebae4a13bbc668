//! `PUT /api/rulesets/{id}/examples/{name}`: the map editor's "Save as example". The server's
//! operator (whoever holds the operator token `tenka serve` was given; without one this is off)
//! stores a map text as `<maps>/<ruleset>/examples/<name>.toml`, which the lobby then offers
//! like any example map.
//!
//! The text is checked exactly as the editor checks it (the size cap, then the ruleset's own
//! `validate-map` in the hub's call slots, bounded per client address and per server by the
//! editor's [`EditorLimits`](super::editor::EditorLimits)); a map with errors is refused with its
//! findings. A refused save writes nothing. An accepted one is written durably (a temporary file
//! in the same folder, synced, renamed over the name, the folder synced), byte for byte the text
//! given, and the offer is reread before the answer, so the maps API lists the example at once.
//! A map the ruleset lists is never overwritten; an example is replaced only when asked.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::AppState;
use super::asking::Operator;
use super::editor::check_map_size;
use super::error::{AppError, AppJson, AppPath};
use tenka_game::maps::{EXAMPLES_FOLDER, MapOrigin};

/// The longest name of an example map.
pub const MAX_NAME_CHARS: usize = 64;

/// `PUT /api/rulesets/{id}/examples/{name}` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveRequest {
    /// The map text, stored byte for byte.
    pub toml: String,
    /// Whether an example of this name may be replaced (without it, an existing one is 409).
    #[serde(default)]
    pub replace: bool,
}

/// Whether `name` may name an example: 1 to [`MAX_NAME_CHARS`] lowercase ASCII letters, digits
/// and hyphens, starting and ending with a letter or digit. Nothing else gets near a path: no
/// dot, slash, backslash or other character a file system or a shell treats specially.
pub fn is_example_name(name: &str) -> bool {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name.chars().all(|c| allowed(c) || c == '-')
        && name.starts_with(allowed)
        && name.ends_with(allowed)
}

/// What a save found once it held the folder.
enum Outcome {
    /// An example of this name exists and the request did not ask to replace it.
    Exists,
    /// The ruleset found errors: every finding.
    Invalid(Vec<sdk::Diagnostic>),
    /// Written; whether it replaced an example, and the findings (warnings only).
    Written {
        replaced: bool,
        diagnostics: Vec<sdk::Diagnostic>,
    },
}

/// `PUT /api/rulesets/{id}/examples/{name}`
pub async fn save(
    State(state): State<AppState>,
    _operator: Operator,
    AppPath((id, name)): AppPath<(String, String)>,
    extensions: axum::http::Extensions,
    AppJson(request): AppJson<SaveRequest>,
) -> Result<(StatusCode, Json<Value>), AppError> {
    if !is_example_name(&name) {
        return Err(AppError::BadRequest(format!(
            "an example's name is 1 to {MAX_NAME_CHARS} lowercase letters, digits and hyphens, \
             starting and ending with a letter or digit (like `my-island-2`)"
        )));
    }
    let entry = super::api::ruleset_entry(&state, &id)?;
    if entry.info.maps.is_empty() && entry.maps.is_empty() {
        return Err(AppError::BadRequest(format!(
            "ruleset `{id}` takes no map: its board comes with the game"
        )));
    }
    check_map_size(&request.toml)?;
    if entry.info.maps.iter().any(|map| map.id == name) {
        return Err(AppError::Conflict(format!(
            "`{name}` is a map ruleset `{id}` ships: an example cannot replace it; choose \
             another name"
        )));
    }
    let _admitted = state.editor.admit(&extensions)?;
    // One save at a time: the check for an existing example and the write belong together.
    let _saving = state.editor.saving.lock().await;
    let ruleset = super::api::loaded_ruleset(&state, &entry)?;
    let info = entry.info.clone();
    let folder = state
        .offer
        .maps_dir()
        .join(&entry.info.id)
        .join(EXAMPLES_FOLDER);
    let text = request.toml;
    let hash = hex::encode(Sha256::digest(text.as_bytes()));
    let replace = request.replace;
    let file_name = name.clone();
    let outcome = state
        .hub
        .call_slots()
        .run(move || -> anyhow::Result<Outcome> {
            let path = folder.join(format!("{file_name}.toml"));
            let exists = path.exists();
            if exists && !replace {
                return Ok(Outcome::Exists);
            }
            let (diagnostics, _board) = super::offer::check_and_draw(&ruleset, &info, &text);
            if diagnostics.iter().any(sdk::Diagnostic::is_error) {
                return Ok(Outcome::Invalid(diagnostics));
            }
            write_durably(&folder, &file_name, text.as_bytes())?;
            Ok(Outcome::Written {
                replaced: exists,
                diagnostics,
            })
        })
        .await
        .and_then(|outcome| outcome)
        .map_err(AppError::Internal)?;
    let (replaced, diagnostics) = match outcome {
        Outcome::Exists => {
            return Err(AppError::Conflict(format!(
                "ruleset `{id}` has an example `{name}` already; send `replace: true` to replace \
                 it, or choose another name"
            )));
        }
        Outcome::Invalid(diagnostics) => {
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            return Err(AppError::InvalidMap {
                message: format!(
                    "the ruleset found {errors} error(s) in the map; nothing was saved"
                ),
                diagnostics: serde_json::to_value(&diagnostics).unwrap_or(Value::Null),
            });
        }
        Outcome::Written {
            replaced,
            diagnostics,
        } => (replaced, diagnostics),
    };
    tracing::info!(
        "example map {id}/{name} {} by the operator",
        if replaced { "replaced" } else { "saved" }
    );
    // Offer it before answering: the next `GET /api/rulesets` lists it.
    if let Err(error) = state.offer.reread_maps().await {
        tracing::warn!("rereading the maps after saving {id}/{name}: {error:#}");
    }
    let offered = state.offer.current();
    let map = offered
        .ruleset(&id)
        .and_then(|entry| entry.map(&name))
        .filter(|map| map.origin == MapOrigin::Example);
    Ok((
        if replaced {
            StatusCode::OK
        } else {
            StatusCode::CREATED
        },
        Json(json!({
            "ruleset": id,
            "id": name,
            "origin": "example",
            "hash": hash,
            "offered": map.is_some(),
            "replaced": replaced,
            "diagnostics": diagnostics,
        })),
    ))
}

/// Writes `bytes` as `<folder>/<name>.toml` so that a crash leaves either the old file or the
/// new one whole: a temporary file in the same folder (a name no map reader picks up), synced,
/// renamed over the name, then the folder synced so the rename itself is durable. The folder
/// is made if missing (and its parent synced). A failure removes the temporary file.
fn write_durably(folder: &Path, name: &str, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context as _;
    if !folder.is_dir() {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("failed to make {}", folder.display()))?;
        if let Some(parent) = folder.parent() {
            sync_folder(parent)?;
        }
    }
    let suffix = hex::encode(super::tokens::random_bytes::<6>()?);
    let temporary: PathBuf = folder.join(format!(".{name}.{suffix}.tmp"));
    let target = folder.join(format!("{name}.toml"));
    let written = (|| -> anyhow::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .with_context(|| format!("failed to create {}", temporary.display()))?;
        file.write_all(bytes)
            .with_context(|| format!("failed to write {}", temporary.display()))?;
        file.sync_all()
            .with_context(|| format!("failed to sync {}", temporary.display()))?;
        drop(file);
        std::fs::rename(&temporary, &target)
            .with_context(|| format!("failed to rename to {}", target.display()))?;
        sync_folder(folder)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Syncs a folder, so the names it holds (a rename, a new file) survive a power cut.
fn sync_folder(folder: &Path) -> anyhow::Result<()> {
    use anyhow::Context as _;
    #[cfg(unix)]
    std::fs::File::open(folder)
        .and_then(|dir| dir.sync_all())
        .with_context(|| format!("failed to sync {}", folder.display()))?;
    #[cfg(not(unix))]
    let _ = folder;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_names_are_short_slugs_and_nothing_like_a_path() {
        for good in ["a", "my-island", "x2", "sun-2026-edit", &"a".repeat(64)] {
            assert!(is_example_name(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "My-Island",
            "a.toml",
            "..",
            "a/b",
            "a\\b",
            "a b",
            "é",
            "a_b",
            "%2e%2e",
            &"a".repeat(65),
        ] {
            assert!(!is_example_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_durable_write_leaves_the_bytes_and_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!(
            "tenka-examples-unit-{}",
            hex::encode(super::super::tokens::random_bytes::<6>().unwrap())
        ));
        let folder = dir.join("game").join("examples");
        write_durably(&folder, "first", b"name = \"A\"\r\n# no newline at the end").unwrap();
        assert_eq!(
            std::fs::read(folder.join("first.toml")).unwrap(),
            b"name = \"A\"\r\n# no newline at the end"
        );
        write_durably(&folder, "first", b"name = \"B\"\n").unwrap();
        assert_eq!(
            std::fs::read(folder.join("first.toml")).unwrap(),
            b"name = \"B\"\n"
        );
        let names: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["first.toml"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
