//! What the server offers: the loaded rulesets with their maps (checked once at start) and
//! named variants. Built once on the blocking pool, then served from memory.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use sdk::{Diagnostic, Message, OptionValue, RulesetInfo};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::engine::{self, Runtime};

/// A map a ruleset ships, read from `<maps>/<ruleset id>/<map id>.toml`.
#[derive(Clone, Debug)]
pub struct MapEntry {
    /// The map's id.
    pub id: String,
    /// Its display name.
    pub name: Message,
    /// The map text.
    pub toml: String,
    /// SHA-256 of the text, hex.
    pub hash: String,
    /// What the ruleset's checker found.
    pub diagnostics: Vec<Diagnostic>,
}

/// A named set of option values, read from `<maps>/<ruleset id>/variants/<variant id>.toml`
/// (see `crate::variants` for the format).
#[derive(Clone, Debug)]
pub struct VariantEntry {
    /// The variant's id (its file name).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Option values by option name.
    pub options: BTreeMap<String, Value>,
}

/// One loaded ruleset as the API shows it.
#[derive(Clone, Debug)]
pub struct RulesetEntry {
    /// The ruleset's description.
    pub info: RulesetInfo,
    /// The hash the runtime gives the ruleset.
    pub hash: String,
    /// Its shipped maps that could be read.
    pub maps: Vec<MapEntry>,
    /// Its named variants.
    pub variants: Vec<VariantEntry>,
}

impl RulesetEntry {
    /// The ruleset as `GET /api/rulesets` lists it.
    pub fn summary(&self) -> Value {
        json!({
            "id": self.info.id,
            "name": self.info.name,
            "version": self.info.version,
            "hash": self.hash,
            "min_seats": self.info.min_seats,
            "max_seats": self.info.max_seats,
            "languages": self.info.languages,
            "maps": self.maps.iter().map(|map| json!({
                "id": map.id,
                "name": map.name,
                "hash": map.hash,
                "valid": !map.diagnostics.iter().any(Diagnostic::is_error),
            })).collect::<Vec<_>>(),
            "options": self.info.options,
            "variants": self.variants.iter().map(|variant| json!({
                "id": variant.id,
                "name": variant.name,
                "options": variant.options,
            })).collect::<Vec<_>>(),
        })
    }
}

/// Everything the server offers.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// The rulesets, in id order.
    pub rulesets: Vec<RulesetEntry>,
}

impl Catalog {
    /// Reads the maps and variants of every loaded ruleset from `maps_dir` and checks the maps.
    /// Runs ruleset code: call it on the blocking pool.
    pub fn build(runtime: &Arc<Runtime>, maps_dir: &Path) -> Catalog {
        let mut rulesets: Vec<RulesetEntry> = engine::rulesets(runtime)
            .into_iter()
            .map(|ruleset| {
                let info = engine::info(&ruleset);
                let folder = maps_dir.join(&info.id);
                let maps = info
                    .maps
                    .iter()
                    .filter_map(|map| {
                        let path = folder.join(format!("{}.toml", map.id));
                        let toml = match std::fs::read_to_string(&path) {
                            Ok(toml) => toml,
                            Err(error) => {
                                tracing::warn!("map {} of {}: {error}", map.id, info.id);
                                return None;
                            }
                        };
                        Some(MapEntry {
                            id: map.id.clone(),
                            name: map.name.clone(),
                            hash: hex::encode(Sha256::digest(toml.as_bytes())),
                            diagnostics: engine::validate_map(&ruleset, &toml),
                            toml,
                        })
                    })
                    .collect();
                RulesetEntry {
                    hash: engine::ruleset_hash(&ruleset),
                    variants: read_variants(&folder.join("variants"), &info),
                    maps,
                    info,
                }
            })
            .collect();
        rulesets.sort_by(|a, b| a.info.id.cmp(&b.info.id));
        Catalog { rulesets }
    }
}

fn read_variants(folder: &Path, info: &RulesetInfo) -> Vec<VariantEntry> {
    let (variants, errors) = crate::variants::load_variants(folder, &info.options);
    for error in errors {
        tracing::warn!("variant refused: {error}");
    }
    variants
        .into_iter()
        .map(|variant| VariantEntry {
            id: variant.id,
            name: variant.name,
            options: variant
                .options
                .into_iter()
                .map(|setting| {
                    let value = match setting.value {
                        OptionValue::Boolean(value) => Value::from(value),
                        OptionValue::Integer(value) => Value::from(value),
                        OptionValue::Decimal(value) => Value::from(value),
                        OptionValue::Choice(value) => Value::from(value),
                    };
                    (setting.name, value)
                })
                .collect(),
        })
        .collect()
}
