//! What the server offers: the current version of every loaded ruleset with its maps (checked
//! and drawn) and its named variants. An [`Offer`] is an immutable picture of the files at one
//! moment; [`LiveOffer`] holds the newest and builds the next one when the files change (hot
//! reload). Games never read the offer after they start: each stores its ruleset hash, map
//! text and options, so a reload changes what new games get and nothing else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use sdk::{Diagnostic, OptionValue, RulesetInfo};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::games::short_hash as short;
use super::ruleset_calls::{self as calls, LoadedRuleset, Runtime};
use super::slots::CallSlots;
use tenka_game::maps::{MapName, MapOrigin};

/// A map on offer.
#[derive(Clone, Debug)]
pub struct MapEntry {
    /// The map's id.
    pub id: String,
    /// Its display name.
    pub name: MapName,
    /// A listed map or an example.
    pub origin: MapOrigin,
    /// The map text.
    pub toml: String,
    /// SHA-256 of the text, hex.
    pub hash: String,
    /// What the ruleset's checker found.
    pub diagnostics: Vec<Diagnostic>,
    /// The board of a fresh game on the map (SVG), or why there is none.
    pub board: Result<Arc<str>, String>,
}

impl MapEntry {
    /// Whether games can be started on the map: the checker found no error.
    pub fn is_valid(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// A named set of option values, read from `<maps>/<ruleset id>/variants/<variant id>.toml`
/// (see `tenka_game::variants` for the format).
#[derive(Clone, Debug)]
pub struct VariantEntry {
    /// The variant's id (its file name).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// What it changes, shown when it is picked.
    pub description: String,
    /// Option values by option name.
    pub options: BTreeMap<String, Value>,
}

/// One loaded ruleset as the API shows it.
#[derive(Clone, Debug)]
pub struct RulesetEntry {
    /// The ruleset's description.
    pub info: RulesetInfo,
    /// The hash of the version new games get.
    pub hash: String,
    /// Its maps that could be read: listed maps, then examples.
    pub maps: Vec<MapEntry>,
    /// Its named variants that passed the check.
    pub variants: Vec<VariantEntry>,
    /// Each variant file refused, with why (file, line, column and option).
    pub refused_variants: Vec<String>,
    /// What the map editor may change, if the ruleset describes it (contract 0.4.0 and later);
    /// a schema the host refuses is logged and the editor offers the text alone.
    pub editor: Option<Arc<tenka_game::editor::Schema>>,
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
                "origin": map.origin,
                "hash": map.hash,
                "valid": map.is_valid(),
            })).collect::<Vec<_>>(),
            "options": self.info.options,
            "variants": self.variants.iter().map(|variant| json!({
                "id": variant.id,
                "name": variant.name,
                "description": variant.description,
                "options": variant.options,
            })).collect::<Vec<_>>(),
            "refused_variants": self.refused_variants,
            "editor": self.editor.is_some(),
            "blank_map": self.editor.as_ref().is_some_and(|schema| schema.blank_map.is_some()),
        })
    }

    /// The map with this id.
    pub fn map(&self, id: &str) -> Option<&MapEntry> {
        self.maps.iter().find(|map| map.id == id)
    }
}

/// Everything the server offers at one moment.
#[derive(Clone, Debug, Default)]
pub struct Offer {
    /// The rulesets, in id order.
    pub rulesets: Vec<Arc<RulesetEntry>>,
}

impl Offer {
    /// Reads the maps and variants of every current ruleset from `maps_dir`, checks the maps
    /// and draws the valid ones. A map unchanged since `previous` (same ruleset version, same
    /// text) keeps its diagnostics and board without running the ruleset again. Runs ruleset
    /// code: call it on the blocking pool.
    pub fn build(runtime: &Runtime, maps_dir: &Path, previous: &Offer) -> Offer {
        let mut rulesets: Vec<Arc<RulesetEntry>> = calls::rulesets(runtime)
            .into_iter()
            .map(|ruleset| {
                let info = calls::info(&ruleset);
                let hash = calls::ruleset_hash(&ruleset);
                let earlier = previous.rulesets.iter().find(|entry| entry.hash == hash);
                let maps = tenka_game::maps::map_files(maps_dir, &info)
                    .into_iter()
                    .filter_map(|file| {
                        let toml = match std::fs::read_to_string(&file.path) {
                            Ok(toml) => toml,
                            Err(error) => {
                                tracing::warn!("map {} of {}: {error}", file.id, info.id);
                                return None;
                            }
                        };
                        let map_hash = hex::encode(Sha256::digest(toml.as_bytes()));
                        let (diagnostics, board) = match earlier
                            .and_then(|entry| entry.maps.iter().find(|map| map.hash == map_hash))
                        {
                            Some(known) => (known.diagnostics.clone(), known.board.clone()),
                            None => check_and_draw(&ruleset, &info, &toml),
                        };
                        Some(MapEntry {
                            id: file.id,
                            name: file.name,
                            origin: file.origin,
                            toml,
                            hash: map_hash,
                            diagnostics,
                            board,
                        })
                    })
                    .collect();
                let (variants, refused_variants) = read_variants(maps_dir, &info);
                // The schema is the ruleset's: the same version describes the same one.
                let editor = match earlier {
                    Some(entry) => entry.editor.clone(),
                    None => calls::map_editor(&ruleset).map(Arc::new),
                };
                Arc::new(RulesetEntry {
                    editor,
                    hash,
                    variants,
                    refused_variants,
                    maps,
                    info,
                })
            })
            .collect();
        rulesets.sort_by(|a, b| a.info.id.cmp(&b.info.id));
        Offer { rulesets }
    }

    /// The ruleset with this id.
    pub fn ruleset(&self, id: &str) -> Option<&Arc<RulesetEntry>> {
        self.rulesets.iter().find(|entry| entry.info.id == id)
    }

    /// What differs from `earlier`, one line each, for the log.
    pub fn changes_since(&self, earlier: &Offer) -> Vec<String> {
        let mut changes = Vec::new();
        for entry in &self.rulesets {
            let id = &entry.info.id;
            let Some(before) = earlier.ruleset(id) else {
                changes.push(format!("ruleset `{id}` added ({})", short(&entry.hash)));
                continue;
            };
            if before.hash != entry.hash {
                changes.push(format!(
                    "ruleset `{id}` changed ({} -> {})",
                    short(&before.hash),
                    short(&entry.hash)
                ));
            }
            for map in &entry.maps {
                match before.map(&map.id) {
                    None => changes.push(format!("map {id}/{} added", map.id)),
                    Some(old) if old.hash != map.hash => changes.push(format!(
                        "map {id}/{} changed ({} -> {})",
                        map.id,
                        short(&old.hash),
                        short(&map.hash)
                    )),
                    Some(_) => {}
                }
            }
            for map in &before.maps {
                if entry.map(&map.id).is_none() {
                    changes.push(format!("map {id}/{} removed", map.id));
                }
            }
            let options = |variant: &VariantEntry| (variant.name.clone(), variant.options.clone());
            for variant in &entry.variants {
                match before.variants.iter().find(|old| old.id == variant.id) {
                    None => changes.push(format!("variant {id}/{} added", variant.id)),
                    Some(old) if options(old) != options(variant) => {
                        changes.push(format!("variant {id}/{} changed", variant.id));
                    }
                    Some(_) => {}
                }
            }
            for variant in &before.variants {
                if !entry.variants.iter().any(|new| new.id == variant.id) {
                    changes.push(format!("variant {id}/{} removed", variant.id));
                }
            }
            for refused in &entry.refused_variants {
                if !before.refused_variants.contains(refused) {
                    changes.push(format!("variant refused: {refused}"));
                }
            }
        }
        for before in &earlier.rulesets {
            if self.ruleset(&before.info.id).is_none() {
                changes.push(format!("ruleset `{}` removed", before.info.id));
            }
        }
        changes
    }
}

/// A map's diagnostics and, when it has no error, its board.
pub(crate) fn check_and_draw(
    ruleset: &Arc<LoadedRuleset>,
    info: &RulesetInfo,
    toml: &str,
) -> (Vec<Diagnostic>, Result<Arc<str>, String>) {
    let diagnostics = calls::validate_map(ruleset, toml);
    let board = if diagnostics.iter().any(Diagnostic::is_error) {
        Err("the map has errors".to_owned())
    } else {
        tenka_game::maps::render_board(ruleset, toml, info.max_seats)
            .map(Arc::from)
            .map_err(|error| {
                // A setup the ruleset refuses (say, a valid map without a setup for the
                // default options) is the ruleset's words about the map: shown to authors.
                tracing::warn!("drawing a map of {}: {error:#}", info.id);
                format!("{error:#}")
            })
    };
    (diagnostics, board)
}

/// The variants of a ruleset that pass the check, and a line for each refused file naming it
/// relative to the maps folder.
fn read_variants(maps_dir: &Path, info: &RulesetInfo) -> (Vec<VariantEntry>, Vec<String>) {
    let folder = maps_dir.join(&info.id).join("variants");
    let (variants, errors) = tenka_game::variants::load_variants(&folder, &info.options);
    let refused = errors
        .into_iter()
        .map(|error| {
            let text = error.to_string();
            // Name the file as `<ruleset>/variants/<file>`, never by the server's own path.
            let prefix = format!("{}/", maps_dir.display());
            let text = text
                .strip_prefix(&prefix)
                .map_or(text.clone(), str::to_owned);
            tracing::warn!("variant refused: {text}");
            text
        })
        .collect();
    let variants = variants
        .into_iter()
        .map(|variant| VariantEntry {
            id: variant.id,
            name: variant.name,
            description: variant.description,
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
        .collect();
    (variants, refused)
}

/// What a running server offers: the newest [`Offer`], rebuilt by [`LiveOffer::reload`]
/// when ruleset, map or variant files change.
pub struct LiveOffer {
    runtime: Arc<Runtime>,
    /// The hub's slots for ruleset work: a reload compiles components and draws maps, which
    /// waits its turn beside people's moves rather than running beside them unbounded.
    slots: CallSlots,
    maps_dir: PathBuf,
    rulesets_dir: Option<PathBuf>,
    current: RwLock<Arc<Offer>>,
    /// One reload at a time: two would race to publish.
    reloading: tokio::sync::Mutex<()>,
    /// The ruleset the operator wants listed first (the lobby opens on it).
    default_ruleset: std::sync::OnceLock<String>,
}

impl LiveOffer {
    /// Builds the first offer. `rulesets_dir` is the folder reloads rescan for components;
    /// `None` keeps the rulesets registered by the caller as they are.
    pub async fn start(
        runtime: Arc<Runtime>,
        slots: CallSlots,
        maps_dir: PathBuf,
        rulesets_dir: Option<PathBuf>,
    ) -> anyhow::Result<LiveOffer> {
        let live = LiveOffer {
            runtime,
            slots,
            maps_dir,
            rulesets_dir,
            current: RwLock::new(Arc::new(Offer::default())),
            reloading: tokio::sync::Mutex::new(()),
            default_ruleset: std::sync::OnceLock::new(),
        };
        live.rebuild().await?;
        Ok(live)
    }

    /// The newest offer.
    pub fn current(&self) -> Arc<Offer> {
        self.current
            .read()
            .map(|current| current.clone())
            .unwrap_or_default()
    }

    /// Lists ruleset `id` first from now on (`GET /api/rulesets`; the lobby opens on the first
    /// one). Without it the rulesets stay in id order. An id no ruleset has is only logged.
    pub fn set_default_ruleset(&self, id: &str) {
        if self.default_ruleset.set(id.to_owned()).is_err() {
            return;
        }
        if self.current().ruleset(id).is_none() {
            tracing::warn!("--default-ruleset: no ruleset `{id}` is loaded");
        }
        if let Ok(mut current) = self.current.write() {
            *current = Arc::new(self.default_first((**current).clone()));
        }
    }

    /// The offer with the default ruleset, if any, moved to the front.
    fn default_first(&self, mut offer: Offer) -> Offer {
        if let Some(id) = self.default_ruleset.get()
            && let Some(at) = offer.rulesets.iter().position(|entry| &entry.info.id == id)
        {
            let entry = offer.rulesets.remove(at);
            offer.rulesets.insert(0, entry);
        }
        offer
    }

    /// The maps folder.
    pub fn maps_dir(&self) -> &Path {
        &self.maps_dir
    }

    /// The rulesets folder reloads rescan, if any.
    pub fn rulesets_dir(&self) -> Option<&Path> {
        self.rulesets_dir.as_deref()
    }

    /// Rescans the rulesets folder and rereads the maps and variants, then publishes the new
    /// offer. Games in progress are untouched: they are pinned to what they started with.
    /// Returns what changed, one line each.
    pub async fn reload(&self) -> anyhow::Result<Vec<String>> {
        let _one_at_a_time = self.reloading.lock().await;
        if let Some(dir) = self.rulesets_dir.clone() {
            let runtime = self.runtime.clone();
            let changes = self.slots.run(move || runtime.sync_dir(&dir)).await??;
            let forgotten = self.runtime.forget_unused_versions();
            if forgotten > 0 {
                tracing::info!("unloaded {forgotten} ruleset version(s) no game in memory uses");
            }
            for report in &changes.loaded {
                match &report.error {
                    Some(error) => {
                        tracing::warn!("{} was not loaded: {error}", report.path.display())
                    }
                    None => tracing::info!(
                        "loaded {} ({})",
                        report.path.display(),
                        report.hash.as_ref().map_or("", |hash| short(&hash.0))
                    ),
                }
            }
        }
        self.rebuild().await
    }

    /// Rereads the maps and variants (not the components) and publishes the new offer, at
    /// once: what a save of an example map calls, so the map is offered before it is answered
    /// (the file watcher's reload comes later and finds nothing new).
    pub async fn reread_maps(&self) -> anyhow::Result<Vec<String>> {
        let _one_at_a_time = self.reloading.lock().await;
        self.rebuild().await
    }

    async fn rebuild(&self) -> anyhow::Result<Vec<String>> {
        let previous = self.current();
        let runtime = self.runtime.clone();
        let maps_dir = self.maps_dir.clone();
        let earlier = previous.clone();
        let next = self
            .slots
            .run(move || Offer::build(&runtime, &maps_dir, &earlier))
            .await?;
        let changes = next.changes_since(&previous);
        for change in &changes {
            tracing::info!("offer: {change}");
        }
        if let Ok(mut current) = self.current.write() {
            *current = Arc::new(self.default_first(next));
        }
        Ok(changes)
    }
}
