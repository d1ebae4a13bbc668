//! The data of a Shogun board: provinces, regions, borders and sea routes, and the card set.
//!
//! Everything here is read from TOML files (`maps/shogun/*.toml`), never written in code, so a map
//! author or a house rule can change the numbers without touching the rules engine. Parsing is
//! strict: an unknown field, a missing field or a broken reference is an error that names its line,
//! column and field.
//!
//! A [`Board`] owns its [`Cards`] (the default card set, or the map's override), so a game state
//! that embeds a `Board` can be snapshotted with serde as a whole.

mod cards;
mod check;
mod raw;

pub use cards::*;

use serde::{Deserialize, Serialize};

/// A province, as an index into [`Board::provinces`].
pub type ProvinceId = usize;
/// A region, as an index into [`Board::regions`].
pub type RegionId = usize;

/// One side of the Shogun board, read from a map file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Board {
    /// The map's id, e.g. `shogun-sun`.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Which side of the board: `sun` or `moon` for the printed board; free text for others.
    pub side: String,
    /// What the map author assumed where the sources were silent (shown to players).
    pub assumptions: Vec<String>,
    /// The regions, in file order.
    pub regions: Vec<Region>,
    /// The provinces, in file order; a [`ProvinceId`] indexes this.
    pub provinces: Vec<Province>,
    /// Per province, its neighbours by land or sea, sorted by id.
    neighbours: Vec<Vec<ProvinceId>>,
    /// Every sea route as `(a, b)` with `a < b`, sorted.
    sea_routes: Vec<(ProvinceId, ProvinceId)>,
    /// The card set this map is played with.
    cards: Cards,
}

/// A region: the unit of building majorities in winter scoring.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    /// Its id, e.g. `brown`.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its colour for drawing, as `#rrggbb`.
    pub colour: String,
}

/// A province of the board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Province {
    /// Its id: kebab-case ASCII, e.g. `awa-boso`.
    pub id: String,
    /// Its display name, e.g. `Awa-Boso`.
    pub name: String,
    /// The region it belongs to.
    pub region: RegionId,
    /// War chests collected by Collect taxes.
    pub tax: u32,
    /// Rice collected by Confiscate rice.
    pub rice: u32,
    /// Building spaces (1 to 3).
    pub spaces: u32,
    /// Whether the province is out of play in a 3-player game.
    pub out_of_play_with_3: bool,
    /// Where to draw it, on a board about 1000 x 700.
    pub x: f32,
    /// Where to draw it, on a board about 1000 x 700.
    pub y: f32,
    /// Its shape, in the coordinates of `x` and `y`, when the map gives one; otherwise the board
    /// generates one from the positions (see `render::shapes`).
    #[serde(default)]
    pub outline: Option<Vec<(f32, f32)>>,
}

impl Board {
    /// Reads a map file. `Ok` carries the board and any warnings; `Err` carries every error found
    /// (and the warnings), each with the line and column it is about.
    pub fn from_toml(text: &str) -> Result<(Board, Vec<sdk::Diagnostic>), Vec<sdk::Diagnostic>> {
        check::read_board(text)
    }

    /// One of the boards shipped with the ruleset, by side (`sun` or `moon`); `None` for another
    /// side. The shipped files are checked clean by this crate's tests.
    pub fn shipped(side: &str) -> Option<Board> {
        let text = match side {
            "sun" => SUN_MAP,
            "moon" => MOON_MAP,
            _ => return None,
        };
        Board::from_toml(text).ok().map(|(board, _)| board)
    }

    /// The provinces next to `p`, by land or by sea, sorted.
    pub fn neighbours(&self, p: ProvinceId) -> &[ProvinceId] {
        self.neighbours.get(p).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether `a` and `b` are joined by a sea route (rather than a land border).
    pub fn is_sea_route(&self, a: ProvinceId, b: ProvinceId) -> bool {
        let key = (a.min(b), a.max(b));
        self.sea_routes.binary_search(&key).is_ok()
    }

    /// Whether `a` and `b` are neighbours, by land or sea.
    pub fn are_neighbours(&self, a: ProvinceId, b: ProvinceId) -> bool {
        self.neighbours(a).binary_search(&b).is_ok()
    }

    /// The province with this id.
    pub fn province_by_id(&self, id: &str) -> Option<ProvinceId> {
        self.provinces.iter().position(|p| p.id == id)
    }

    /// A province's name as a whole message (a choice label, a text on the board): its catalogue
    /// key on the printed board, else the map's own name (see [`crate::names`]).
    pub fn province_label(&self, p: ProvinceId) -> sdk::Message {
        let province = &self.provinces[p];
        crate::names::place_label("province", &province.id, &province.name)
    }

    /// A province's name as an argument of a message, chosen as [`Board::province_label`] chooses.
    pub fn province_arg(&self, p: ProvinceId) -> sdk::MessageArg {
        let province = &self.provinces[p];
        crate::names::place_arg("province", &province.id, &province.name)
    }

    /// A region's name as an argument of a message: its catalogue key on the printed board, else
    /// the map's own name.
    pub fn region_arg(&self, r: RegionId) -> sdk::MessageArg {
        let region = &self.regions[r];
        crate::names::place_arg("region", &region.id, &region.name)
    }

    /// The region with this id.
    pub fn region_by_id(&self, id: &str) -> Option<RegionId> {
        self.regions.iter().position(|r| r.id == id)
    }

    /// Whether province `p` is in play with this many players.
    pub fn in_play(&self, p: ProvinceId, players: u32) -> bool {
        self.provinces
            .get(p)
            .is_some_and(|province| !(players <= 3 && province.out_of_play_with_3))
    }

    /// The provinces of region `r`, in file order.
    pub fn provinces_in_region(&self, r: RegionId) -> Vec<ProvinceId> {
        (0..self.provinces.len())
            .filter(|&p| self.provinces[p].region == r)
            .collect()
    }

    /// Every border and sea route once, as `(a, b)` with `a < b`, sorted.
    pub fn edges(&self) -> Vec<(ProvinceId, ProvinceId)> {
        let mut edges = Vec::new();
        for (a, list) in self.neighbours.iter().enumerate() {
            edges.extend(list.iter().filter(|&&b| a < b).map(|&b| (a, b)));
        }
        edges
    }

    /// The card set this map is played with: the default set, or the map's `[cards]` override.
    pub fn cards(&self) -> &Cards {
        &self.cards
    }

    /// Plays this board with the event deck named by the `event-deck` option: `standard` keeps
    /// the card set's own events; another name replaces them with that `[[event-deck]]`'s cards.
    /// A name the card set does not have is refused and changes nothing.
    pub fn use_event_deck(&mut self, deck: &str) -> Result<(), sdk::SetupError> {
        if deck == STANDARD_EVENT_DECK {
            return Ok(());
        }
        let events = self
            .cards
            .event_deck(deck)
            .map(|d| d.events.clone())
            .ok_or_else(|| {
                sdk::SetupError::Option(
                    "event-deck".into(),
                    format!(
                        "this map's card set has no event deck `{deck}`; it has: {}",
                        self.cards.event_deck_choices().join(", ")
                    ),
                )
            })?;
        self.cards.events = events;
        Ok(())
    }
}

/// The board a setup plays: its map, with the event deck the options chose, or why it cannot be
/// played.
pub fn read_board(map: &str, event_deck: &str) -> Result<Board, sdk::SetupError> {
    let mut board = match Board::from_toml(map) {
        Ok((board, _warnings)) => board,
        Err(diagnostics) => return Err(sdk::SetupError::Map(diagnostics)),
    };
    board.use_event_deck(event_deck)?;
    Ok(board)
}

/// Checks a map file: every error and warning, each with its line and column. This is what the
/// ruleset's `validate_map` returns; an empty list means a clean map.
pub fn validate_map(text: &str) -> Vec<sdk::Diagnostic> {
    match Board::from_toml(text) {
        Ok((_, warnings)) => warnings,
        Err(diagnostics) => diagnostics,
    }
}

/// The values of the `event-deck` option: `standard` and every `[[event-deck]]` of the default
/// card set (`maps/shogun/cards.toml`).
pub fn event_deck_choices() -> Vec<String> {
    Cards::default_set().event_deck_choices()
}

/// The sun side of the board, as shipped with the ruleset.
pub const SUN_MAP: &str = include_str!("../../../../maps/shogun/sun.toml");
/// The moon side of the board, as shipped with the ruleset.
pub const MOON_MAP: &str = include_str!("../../../../maps/shogun/moon.toml");
/// The default card set, as shipped with the ruleset.
pub const DEFAULT_CARDS: &str = include_str!("../../../../maps/shogun/cards.toml");
