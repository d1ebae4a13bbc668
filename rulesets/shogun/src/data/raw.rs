//! The TOML shapes of map and card files, exactly as written, with the span of every item a
//! diagnostic may need to point at. Every table denies unknown fields.

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

/// A whole map file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawMap {
    pub map: Spanned<RawHeader>,
    #[serde(default)]
    pub region: Vec<Spanned<RawRegion>>,
    #[serde(default)]
    pub province: Vec<Spanned<RawProvince>>,
    #[serde(default)]
    pub cards: Option<Spanned<RawCards>>,
}

/// The `[map]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawHeader {
    pub id: Spanned<String>,
    pub name: String,
    pub ruleset: Spanned<String>,
    pub side: String,
    #[serde(default)]
    pub assumptions: Vec<String>,
}

/// One `[[region]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawRegion {
    pub id: Spanned<String>,
    pub name: String,
    pub colour: Spanned<String>,
}

/// One `[[province]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawProvince {
    pub id: Spanned<String>,
    pub name: String,
    /// Optional in the grammar so that a missing region gets its own clear message.
    #[serde(default)]
    pub region: Option<Spanned<String>>,
    pub tax: Spanned<u32>,
    pub rice: Spanned<u32>,
    pub spaces: Spanned<u32>,
    #[serde(default)]
    pub out_of_play_with_3: bool,
    pub x: f32,
    pub y: f32,
    #[serde(default)]
    pub borders: Vec<Spanned<String>>,
    #[serde(default)]
    pub sea_routes: Vec<Spanned<String>>,
    /// Optional: the province's shape as `[[x, y], ...]` in the coordinates of `x` and `y`.
    #[serde(default)]
    pub outline: Option<Spanned<Vec<[f32; 2]>>>,
}

/// A card set: the whole default file, or a map's `[cards]` override. Every field is optional
/// here; the default file must have them all, an override replaces only the ones it has.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawCards {
    pub cubes_per_player: Option<Spanned<u32>>,
    pub farmers: Option<Spanned<u32>>,
    pub tower_load_per_player: Option<Spanned<u32>>,
    pub tower_load_farmers: Option<Spanned<u32>>,
    pub tower_shelves: Option<Spanned<Vec<Spanned<RawShelf>>>>,
    pub starting_chests: Option<Spanned<Vec<Spanned<RawStartingChests>>>>,
    pub countryside_groups: Option<Spanned<Vec<Spanned<RawGroup>>>>,
    pub provisions: Option<Spanned<Vec<Spanned<RawProvisionRow>>>>,
    pub action: Option<Vec<Spanned<RawAction>>>,
    pub special: Option<Vec<Spanned<RawSpecial>>>,
    pub event: Option<Vec<Spanned<RawEvent>>>,
    pub beginner_setup: Option<Vec<Spanned<RawBeginnerSeat>>>,
    pub event_deck: Option<Vec<Spanned<RawEventDeck>>>,
}

/// One `[[event-deck]]`: a named alternative to the event list, chosen by the `event-deck` option.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawEventDeck {
    pub id: Spanned<String>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub event: Vec<Spanned<RawEvent>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawShelf {
    pub lodge_chance: Spanned<f64>,
    pub release_chance: Spanned<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawStartingChests {
    pub players: Spanned<u32>,
    pub chests: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawGroup {
    pub label: String,
    pub armies: Spanned<u32>,
    pub players: Spanned<Vec<u32>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawProvisionRow {
    pub shortfall_from: Spanned<u32>,
    pub revolts: u32,
    pub extra_farmers: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawAction {
    pub id: Spanned<String>,
    pub name: String,
    pub kind: super::ActionKind,
    pub cost: u32,
    #[serde(default)]
    pub armies: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawSpecial {
    pub id: Spanned<String>,
    pub name: String,
    #[serde(default)]
    pub effect: RawSpecialEffect,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawSpecialEffect {
    #[serde(default)]
    pub attack_bonus: u32,
    #[serde(default)]
    pub defence_bonus: u32,
    #[serde(default)]
    pub tax_bonus: u32,
    #[serde(default)]
    pub rice_bonus: u32,
    #[serde(default)]
    pub recruit_5_bonus: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawEvent {
    pub id: Spanned<String>,
    pub name: String,
    pub winter_rice_loss: u32,
    #[serde(default)]
    pub effect: RawEventEffect,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawEventEffect {
    #[serde(default)]
    pub theatre_removes_revolt: u32,
    #[serde(default)]
    pub neutral_farmers: Option<u32>,
    #[serde(default)]
    pub castle_defender_bonus: u32,
    #[serde(default)]
    pub temple_protection: bool,
    #[serde(default)]
    pub tax_min: Option<u32>,
    #[serde(default)]
    pub tax_max: Option<u32>,
    #[serde(default)]
    pub rice_min: Option<u32>,
    #[serde(default)]
    pub rice_max: Option<u32>,
    #[serde(default)]
    pub recruit_5: Option<u32>,
    #[serde(default)]
    pub recruit_3: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawBeginnerSeat {
    pub players: Spanned<u32>,
    pub seat: Spanned<u32>,
    /// Province id = armies; each value's span locates its line.
    pub provinces: BTreeMap<String, Spanned<u32>>,
}
