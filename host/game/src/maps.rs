//! A ruleset's map files in a maps folder, and a map's board as a fresh game draws it.
//!
//! The folder of one ruleset, `<maps>/<ruleset id>/`, holds:
//! - `<map id>.toml` for each map the ruleset lists in its `info().maps` (its printed boards);
//! - `examples/<map id>.toml`: any number of further maps, authored as data. The host cannot read
//!   a map's format, so such a map's display name is its `name` (at the top or under `[map]`),
//!   or else its file name;
//! - `variants/*.toml`: named option sets (see [`crate::variants`]);
//! - anything else the ruleset itself embeds (a card set), which is not a map.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, Result, anyhow};
use sdk::{Message, RulesetInfo, Viewer};
use serde::Serialize;

use crate::session::{GameSpec, NewGame};
use tenka_runtime::LoadedRuleset;

/// The folder of further maps inside a ruleset's maps folder.
pub const EXAMPLES_FOLDER: &str = "examples";

/// Where a map comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MapOrigin {
    /// A map the ruleset lists in its description.
    Listed,
    /// A map file in the ruleset's `examples/` folder.
    Example,
}

/// A map's display name: a catalogue message for the maps a ruleset lists, plain text from the
/// file for the others.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MapName {
    /// A key of the ruleset's message catalogue.
    Catalogued(Message),
    /// Text as written in the map file.
    Plain(String),
}

/// One map file of a ruleset.
#[derive(Clone, Debug)]
pub struct MapFile {
    /// The map's id: its file name without `.toml`.
    pub id: String,
    /// Its display name.
    pub name: MapName,
    /// Where it comes from.
    pub origin: MapOrigin,
    /// The file.
    pub path: PathBuf,
}

/// The map files of a ruleset in `maps_dir`: its listed maps that exist, then its examples in
/// name order. An example whose id a listed map already has is left out, with a warning.
pub fn map_files(maps_dir: &Path, info: &RulesetInfo) -> Vec<MapFile> {
    let folder = maps_dir.join(&info.id);
    let mut files: Vec<MapFile> = info
        .maps
        .iter()
        .map(|map| MapFile {
            id: map.id.clone(),
            name: MapName::Catalogued(map.name.clone()),
            origin: MapOrigin::Listed,
            path: folder.join(format!("{}.toml", map.id)),
        })
        .filter(|file| {
            let exists = file.path.is_file();
            if !exists {
                tracing::warn!("map {} of {} is missing", file.id, info.id);
            }
            exists
        })
        .collect();
    let mut examples: Vec<PathBuf> = std::fs::read_dir(folder.join(EXAMPLES_FOLDER))
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok().map(|entry| entry.path()))
                .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
                .collect()
        })
        .unwrap_or_default();
    examples.sort();
    for path in examples {
        let Some(id) = path
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
        else {
            continue;
        };
        if files.iter().any(|file| file.id == id) {
            tracing::warn!(
                "{} is left out: ruleset {} already has a map `{id}`",
                path.display(),
                info.id
            );
            continue;
        }
        let name = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| declared_name(&text))
            .unwrap_or_else(|| id.clone());
        files.push(MapFile {
            id,
            name: MapName::Plain(name),
            origin: MapOrigin::Example,
            path,
        });
    }
    files
}

/// A map file's own name: `name` at the top, or under `[map]`.
pub fn declared_name(text: &str) -> Option<String> {
    let table = text.parse::<toml::Table>().ok()?;
    table
        .get("name")
        .or_else(|| table.get("map").and_then(|map| map.get("name")))
        .and_then(toml::Value::as_str)
        .map(str::to_owned)
}

/// The map file with this id, if the ruleset has it in `maps_dir`.
pub fn find_map(maps_dir: &Path, info: &RulesetInfo, id: &str) -> Option<MapFile> {
    map_files(maps_dir, info)
        .into_iter()
        .find(|file| file.id == id)
}

/// The map part of a fresh game's board as a spectator sees it, as SVG: what a map preview
/// shows.
/// The seed is fixed, so the same map and ruleset always draw the same picture. Runs ruleset
/// code.
pub fn render_board(ruleset: &Arc<LoadedRuleset>, map_toml: &str, seats: u32) -> Result<String> {
    let spec = GameSpec {
        map_toml: map_toml.to_owned(),
        options: Vec::new(),
        seats,
        seed: [0; 32],
        position: None,
    };
    let mut session = ruleset
        .new_game(spec)
        .map_err(|error| anyhow!("a game cannot start on this map: {error}"))?;
    let parts = session
        .render(Viewer::Spectator)
        .context("the ruleset failed to draw the board")?;
    Ok(map_part(parts).map(|part| part.svg).unwrap_or_default())
}

/// The part of a board that is its map: the first of kind map, else the first part.
pub fn map_part(parts: Vec<sdk::BoardPart>) -> Option<sdk::BoardPart> {
    let index = parts
        .iter()
        .position(|part| part.kind == sdk::PartKind::Map)
        .unwrap_or(0);
    parts.into_iter().nth(index)
}

/// Families tried, in order, for the generic `sans-serif` a ruleset's SVG names: the host's
/// fonts decide what is there, and the rasterizer's own default (Arial) rarely is on Linux.
const SANS_SERIF_FAMILIES: &[&str] = &[
    "DejaVu Sans",
    "Liberation Sans",
    "Noto Sans",
    "Arial",
    "Helvetica",
];

/// Draws an SVG document (a ruleset's board) as a PNG image at its own size, with the fonts
/// installed on this machine. Without any font the picture is drawn without its texts.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    let installed: Vec<String> = options
        .fontdb
        .faces()
        .flat_map(|face| face.families.iter().map(|(family, _)| family.clone()))
        .collect();
    let sans_serif = SANS_SERIF_FAMILIES
        .iter()
        .map(|family| (*family).to_owned())
        .find(|family| installed.contains(family))
        .or_else(|| installed.first().cloned());
    match sans_serif {
        Some(family) => options.fontdb_mut().set_sans_serif_family(family),
        None => tracing::warn!("no fonts are installed: the PNG has no texts"),
    }
    let tree = usvg::Tree::from_str(svg, &options).context("the drawing is not a valid SVG")?;
    // Whole pixels, rounded up: a drawing 916.4 units wide needs 917 columns to be all there.
    let (width, height) = (tree.size().width().ceil(), tree.size().height().ceil());
    let mut pixmap = tiny_skia::Pixmap::new(width as u32, height as u32)
        .ok_or_else(|| anyhow!("the drawing has no area ({width}x{height})"))?;
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .context("failed to encode the PNG image")
}

/// The TOML syntax error of a map text, if it has one, as a diagnostic at the toml crate's span
/// (1-based line and column). A ruleset's own checks cannot say more of a text that does not
/// parse, so this is what an author needs to hear first.
pub fn syntax_error(text: &str) -> Option<sdk::Diagnostic> {
    let error = text.parse::<toml::Table>().err()?;
    let (line, column) = error.span().map_or((0, 0), |span| {
        sdk::LineIndex::new(text).position(span.start)
    });
    Some(sdk::Diagnostic::error(
        line,
        column,
        format!("TOML syntax: {}", error.message().trim()),
    ))
}

/// The ruleset a map text says it is for: `ruleset = "<id>"` at the top or under `[map]`. Read
/// line by line, so a map whose TOML is broken elsewhere still names its ruleset.
pub fn declared_ruleset(text: &str) -> Option<String> {
    if let Ok(table) = text.parse::<toml::Table>() {
        return table
            .get("ruleset")
            .or_else(|| table.get("map").and_then(|map| map.get("ruleset")))
            .and_then(toml::Value::as_str)
            .map(str::to_owned);
    }
    let mut section = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.trim_matches(['[', ']', ' ']).to_owned();
            continue;
        }
        if !section.is_empty() && section != "map" {
            continue;
        }
        // Each line is parsed alone as a one-key document: a valid `ruleset = "..."` line parses
        // whatever the rest of the file holds.
        let Some(("ruleset", _)) = line.split_once('=').map(|(key, v)| (key.trim(), v)) else {
            continue;
        };
        if let Ok(entry) = line.parse::<toml::Table>()
            && let Some(id) = entry.get("ruleset").and_then(toml::Value::as_str)
        {
            return Some(id.to_owned());
        }
    }
    None
}
