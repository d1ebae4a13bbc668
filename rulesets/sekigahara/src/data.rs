//! The board file: areas, roads, the reinforcement track, both block rosters and both decks, as
//! one TOML document (the shipped one is `maps/sekigahara/japan-1600.toml`, listed in `info()`
//! as the map `japan-1600`).
//!
//! Reading has two stages, as Shogun's maps: the TOML grammar first (an unknown field, a missing
//! field or a wrong type stops there with one error at its place), then the meaning (every broken
//! reference, duplicate id, bad number or cut-off area), all reported at once, each at its line.
//!
//! The shape of the file:
//!
//! ```toml
//! [map]
//! id = "japan-1600"                   # kebab-case
//! name = "Japan, 1600"
//! ruleset = "sekigahara"
//! reinforcement-track = [2, 2, 2, 1, 1, 1]  # blocks drawn in weeks 2, 3, ... (week 1 draws none)
//! starting-reinforcements = 4         # optional, default 4: blocks drawn into each box at setup
//! sources = ["..."]                   # optional: where the places come from
//!
//! [[side]]                            # exactly two; the first is seat 0
//! id = "ishida"
//! name = "Ishida"
//! colour = "#d4a017"
//! wins-ties = true                    # final-score ties and a double instant win go to this side
//! box-entry = "osaka"                 # optional: where blocks of the side's box (start = "box") arrive
//!
//! [[clan]]
//! id = "mori"
//! name = "Mori"
//! side = "ishida"
//!
//! [[area]]
//! id = "osaka"
//! name = "Osaka"
//! x = 310.0                           # drawing position on a board about 1000 x 700
//! y = 520.0
//! kind = "castle"                     # plain | resource | capital | castle
//! owner = "ishida"                    # castle: original owner (required); capital: whose capital
//!                                     # (required); resource: first controller (optional)
//! disk = "hideyori"                   # optional, castles only: a [[disk]] id
//! muster = ["mori"]                   # optional: clans whose muster area this is
//! source = "Osaka castle, Toyotomi seat from 1583"   # optional: the historical source
//!
//! [[disk]]
//! id = "hideyori"
//! name = "Toyotomi Hideyori"
//! effect = "loss-ends-game"           # loss-ends-game (always the last loss; its loss is an
//!                                     # instant win for the other side) | absorbs-siege-loss
//!
//! [[road]]
//! between = ["osaka", "kyoto"]
//! highway = true                      # optional, default false
//!
//! [[block]]
//! id = "mori-terumoto"
//! clan = "mori"
//! mon = 1                             # 1-4
//! leader = true                       # optional
//! symbol = "gun"                      # optional: gun | cavalry
//! commander = false                   # optional: its elimination is an instant loss for its side
//! any-card = false                    # optional: any card of its side deploys it
//! start = "box"                       # an area id, "bag" or "box" (the side's box)
//! name = "Mori Terumoto"              # optional
//!
//! [[card]]
//! side = "ishida"
//! clan = "mori"                       # absent for a loyalty challenge
//! number = 5                          # the corner number used for the initiative bid
//! kind = "double"                     # double | sword | plain | loyalty-challenge
//! copies = 1                          # optional, default 1
//! ```

use sdk::Diagnostic;
use sdk::map_check::{Report, grammar_error, is_colour, is_kebab_id};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use toml::Spanned;

/// The id the `[map] ruleset` field must have.
pub const RULESET_ID: &str = "sekigahara";
/// Largest mon a block may carry.
pub const MAX_MON: u8 = 4;
/// Largest number of copies of one card line.
const MAX_COPIES: u32 = 60;
/// Blocks drawn into each reinforcement box at setup unless the board says otherwise (public).
pub const DEFAULT_STARTING_REINFORCEMENTS: u32 = 4;
/// Largest number of blocks the track may give in one week.
const MAX_TRACK_BLOCKS: u32 = 10;

// ----- the raw TOML shapes -----

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawFile {
    map: Spanned<RawHeader>,
    #[serde(default)]
    side: Vec<Spanned<RawSide>>,
    #[serde(default)]
    clan: Vec<Spanned<RawClan>>,
    #[serde(default)]
    area: Vec<Spanned<RawArea>>,
    #[serde(default)]
    disk: Vec<Spanned<RawDisk>>,
    #[serde(default)]
    road: Vec<Spanned<RawRoad>>,
    #[serde(default)]
    block: Vec<Spanned<RawBlock>>,
    #[serde(default)]
    card: Vec<Spanned<RawCard>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawHeader {
    id: Spanned<String>,
    name: String,
    ruleset: Spanned<String>,
    reinforcement_track: Spanned<Vec<Spanned<u32>>>,
    #[serde(default)]
    starting_reinforcements: Option<Spanned<u32>>,
    #[serde(default)]
    sources: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSide {
    id: Spanned<String>,
    name: String,
    colour: Spanned<String>,
    #[serde(default)]
    wins_ties: bool,
    #[serde(default)]
    box_entry: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawClan {
    id: Spanned<String>,
    name: String,
    side: Spanned<String>,
}

/// What an area is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AreaKind {
    /// Nothing to control.
    Plain,
    /// A resource area: 1 point, and counts for the extra reinforcement block.
    Resource,
    /// A side's capital: a resource area that also gives its owner leadership.
    Capital,
    /// A castle: 2 points, counts for the extra card, gives leadership to its controller.
    Castle,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawArea {
    id: Spanned<String>,
    name: String,
    x: f32,
    y: f32,
    kind: Spanned<AreaKind>,
    #[serde(default)]
    owner: Option<Spanned<String>>,
    #[serde(default)]
    disk: Option<Spanned<String>>,
    #[serde(default)]
    muster: Vec<Spanned<String>>,
    #[serde(default)]
    source: Option<String>,
}

/// What a disk does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiskEffect {
    /// Always the last loss of its castle's defenders; losing it loses the game.
    LossEndsGame,
    /// May take one siege loss in place of a block.
    AbsorbsSiegeLoss,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawDisk {
    id: Spanned<String>,
    name: String,
    effect: DiskEffect,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawRoad {
    between: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    highway: bool,
}

/// A block's special-attack symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Symbol {
    /// Arquebus.
    Gun,
    /// Cavalry.
    Cavalry,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawBlock {
    id: Spanned<String>,
    clan: Spanned<String>,
    mon: Spanned<u8>,
    #[serde(default)]
    leader: bool,
    #[serde(default)]
    symbol: Option<Symbol>,
    #[serde(default)]
    commander: bool,
    #[serde(default)]
    any_card: bool,
    start: Spanned<String>,
    #[serde(default)]
    name: Option<String>,
}

/// What a card does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardKind {
    /// Deploys two blocks of its clan.
    Double,
    /// Deploys one block; a gun or cavalry block deployed with it makes a special attack.
    Sword,
    /// Deploys one block.
    Plain,
    /// Challenges the loyalty of a block the opponent just deployed.
    LoyaltyChallenge,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawCard {
    side: Spanned<String>,
    #[serde(default)]
    clan: Option<Spanned<String>>,
    number: Spanned<u32>,
    kind: Spanned<CardKind>,
    #[serde(default)]
    copies: Option<Spanned<u32>>,
}

// ----- the checked board -----

/// One of the two sides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideDef {
    pub id: String,
    pub name: String,
    pub colour: String,
    pub wins_ties: bool,
    /// Where blocks of the side's box arrive.
    pub box_entry: Option<usize>,
}

/// A clan (daimyo).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClanDef {
    pub id: String,
    pub name: String,
    pub side: usize,
}

/// An area of the map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AreaDef {
    pub id: String,
    pub name: String,
    pub x: f32,
    pub y: f32,
    pub kind: AreaKind,
    /// Castle: original owner; capital: whose capital; resource: first controller.
    pub owner: Option<usize>,
    /// Index into [`Board::disks`].
    pub disk: Option<usize>,
    /// Clans whose muster area this is.
    pub muster: Vec<usize>,
    /// Roads touching this area, as indices into [`Board::roads`].
    pub roads: Vec<usize>,
    /// The historical source of the place.
    pub source: Option<String>,
}

impl AreaDef {
    /// Whether the area counts as a resource area (capitals do).
    pub fn is_resource(&self) -> bool {
        matches!(self.kind, AreaKind::Resource | AreaKind::Capital)
    }

    /// Whether the area has a castle.
    pub fn is_castle(&self) -> bool {
        self.kind == AreaKind::Castle
    }
}

/// A disk attached to a castle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiskDef {
    pub id: String,
    pub name: String,
    pub effect: DiskEffect,
    /// The castle area it sits in.
    pub area: usize,
}

/// A road between two areas.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoadDef {
    pub a: usize,
    pub b: usize,
    pub highway: bool,
}

impl RoadDef {
    /// The far end of the road seen from `area`.
    pub fn other(&self, area: usize) -> usize {
        if self.a == area { self.b } else { self.a }
    }
}

/// Where a block starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Start {
    Area(usize),
    Bag,
    Box,
}

/// One block of a roster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockDef {
    pub id: String,
    pub name: Option<String>,
    pub clan: usize,
    pub side: usize,
    pub mon: u8,
    pub leader: bool,
    pub symbol: Option<Symbol>,
    pub commander: bool,
    pub any_card: bool,
    pub start: Start,
}

/// One card (copies expanded).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardDef {
    pub side: usize,
    pub clan: Option<usize>,
    pub number: u32,
    pub kind: CardKind,
}

/// A whole checked board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Board {
    pub id: String,
    pub name: String,
    /// Where the places come from.
    pub sources: Vec<String>,
    /// Blocks drawn in weeks 2, 3, ...; the game lasts one week more than the track is long.
    pub track: Vec<u32>,
    /// Blocks drawn from each bag into the reinforcement box at setup.
    pub starting_reinforcements: u32,
    pub sides: Vec<SideDef>,
    pub clans: Vec<ClanDef>,
    pub areas: Vec<AreaDef>,
    pub disks: Vec<DiskDef>,
    pub roads: Vec<RoadDef>,
    pub blocks: Vec<BlockDef>,
    pub cards: Vec<CardDef>,
}

impl Board {
    /// Reads and checks a board file: the board and its warnings, or every error found.
    pub fn from_toml(text: &str) -> Result<(Board, Vec<Diagnostic>), Vec<Diagnostic>> {
        read_board(text)
    }

    /// The number of weeks.
    pub fn weeks(&self) -> u32 {
        self.track.len() as u32 + 1
    }

    /// The capital of a side, if it has one.
    pub fn capital_of(&self, side: usize) -> Option<usize> {
        self.areas
            .iter()
            .position(|a| a.kind == AreaKind::Capital && a.owner == Some(side))
    }

    /// The road between two areas, if any.
    pub fn road_between(&self, a: usize, b: usize) -> Option<usize> {
        self.areas[a]
            .roads
            .iter()
            .copied()
            .find(|&r| self.roads[r].other(a) == b)
    }

    /// The area with an id.
    pub fn area_index(&self, id: &str) -> Option<usize> {
        self.areas.iter().position(|a| a.id == id)
    }

    /// The block with an id.
    pub fn block_index(&self, id: &str) -> Option<usize> {
        self.blocks.iter().position(|b| b.id == id)
    }
}

/// The diagnostics of a board file: empty when it is clean.
pub fn validate_map(text: &str) -> Vec<Diagnostic> {
    match read_board(text) {
        Ok((_, warnings)) => warnings,
        Err(errors) => errors,
    }
}

/// Reads the board of a setup, or says why it cannot be played.
pub fn board_of_setup(map: &str) -> Result<Board, sdk::SetupError> {
    Board::from_toml(map)
        .map(|(board, _)| board)
        .map_err(sdk::SetupError::Map)
}

// ----- checking -----

/// Collects the ids of one table, reporting bad and duplicate ones; maps id to index.
fn index_ids<'a>(
    what: &str,
    ids: impl Iterator<Item = &'a Spanned<String>>,
    report: &mut Report<'_>,
) -> BTreeMap<String, usize> {
    let mut found = BTreeMap::new();
    for (i, id) in ids.enumerate() {
        if !is_kebab_id(id.get_ref()) {
            report.error(
                &id.span(),
                format!(
                    "{what} id `{}` must be kebab-case (lowercase letters and digits joined by -)",
                    id.get_ref()
                ),
            );
        }
        if found.insert(id.get_ref().clone(), i).is_some() {
            report.error(
                &id.span(),
                format!("{what} `{}` is defined twice", id.get_ref()),
            );
        }
    }
    found
}

fn lookup(
    what: &str,
    ids: &BTreeMap<String, usize>,
    name: &Spanned<String>,
    report: &mut Report<'_>,
) -> Option<usize> {
    let found = ids.get(name.get_ref()).copied();
    if found.is_none() {
        report.error(
            &name.span(),
            format!("no {what} `{}` is defined", name.get_ref()),
        );
    }
    found
}

fn read_board(text: &str) -> Result<(Board, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut report = Report::new(text);
    let raw: RawFile = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(e) => return Err(vec![grammar_error(report.index(), &e)]),
    };
    let header = raw.map.get_ref();
    if !is_kebab_id(header.id.get_ref()) {
        report.error(
            &header.id.span(),
            format!("map id `{}` must be kebab-case", header.id.get_ref()),
        );
    }
    if header.ruleset.get_ref() != RULESET_ID {
        report.error(
            &header.ruleset.span(),
            format!(
                "this file is for the ruleset `{}`, not `{RULESET_ID}`",
                header.ruleset.get_ref()
            ),
        );
    }
    if header.reinforcement_track.get_ref().is_empty() {
        report.error(
            &header.reinforcement_track.span(),
            "the reinforcement track needs at least one week (week 2)".into(),
        );
    }
    if let Some(n) = &header.starting_reinforcements
        && *n.get_ref() > MAX_TRACK_BLOCKS
    {
        report.error(
            &n.span(),
            format!("at most {MAX_TRACK_BLOCKS} starting reinforcements"),
        );
    }
    for blocks in header.reinforcement_track.get_ref() {
        if *blocks.get_ref() > MAX_TRACK_BLOCKS {
            report.error(
                &blocks.span(),
                format!("at most {MAX_TRACK_BLOCKS} blocks a week"),
            );
        }
    }

    // Sides.
    if raw.side.len() != 2 {
        report.error(
            &raw.map.span(),
            format!(
                "exactly two [[side]] tables are needed, found {}",
                raw.side.len()
            ),
        );
    }
    let side_ids = index_ids(
        "side",
        raw.side.iter().map(|s| &s.get_ref().id),
        &mut report,
    );
    for side in &raw.side {
        if !is_colour(side.get_ref().colour.get_ref()) {
            report.error(
                &side.get_ref().colour.span(),
                "a colour is written \"#rrggbb\"".into(),
            );
        }
    }
    if raw.side.iter().filter(|s| s.get_ref().wins_ties).count() > 1 {
        report.error(
            &raw.map.span(),
            "at most one side may have wins-ties = true".into(),
        );
    }

    // Clans.
    let clan_ids = index_ids(
        "clan",
        raw.clan.iter().map(|c| &c.get_ref().id),
        &mut report,
    );
    let clan_sides: Vec<Option<usize>> = raw
        .clan
        .iter()
        .map(|c| lookup("side", &side_ids, &c.get_ref().side, &mut report))
        .collect();

    // Disks.
    let disk_ids = index_ids(
        "disk",
        raw.disk.iter().map(|d| &d.get_ref().id),
        &mut report,
    );
    let mut disk_area: Vec<Option<usize>> = vec![None; raw.disk.len()];

    // Areas.
    let area_ids = index_ids(
        "area",
        raw.area.iter().map(|a| &a.get_ref().id),
        &mut report,
    );
    let mut areas = Vec::new();
    for (i, spanned) in raw.area.iter().enumerate() {
        let area = spanned.get_ref();
        let kind = *area.kind.get_ref();
        let owner = area
            .owner
            .as_ref()
            .and_then(|o| lookup("side", &side_ids, o, &mut report));
        match (kind, &area.owner) {
            (AreaKind::Castle, None) => report.error(
                &area.kind.span(),
                format!("castle `{}` needs its original owner", area.id.get_ref()),
            ),
            (AreaKind::Capital, None) => report.error(
                &area.kind.span(),
                format!(
                    "capital `{}` needs the side it belongs to",
                    area.id.get_ref()
                ),
            ),
            (AreaKind::Plain, Some(o)) => report.error(
                &o.span(),
                "a plain area has no owner (make it a resource area to give it a controller)"
                    .into(),
            ),
            _ => {}
        }
        let disk = area.disk.as_ref().and_then(|d| {
            let found = lookup("disk", &disk_ids, d, &mut report)?;
            if kind != AreaKind::Castle {
                report.error(&d.span(), "only a castle can hold a disk".into());
            }
            if disk_area[found].replace(i).is_some() {
                report.error(
                    &d.span(),
                    format!("disk `{}` is placed in two castles", d.get_ref()),
                );
            }
            Some(found)
        });
        let mut muster = Vec::new();
        for clan in &area.muster {
            if let Some(c) = lookup("clan", &clan_ids, clan, &mut report) {
                if muster.contains(&c) {
                    report.error(
                        &clan.span(),
                        format!("clan `{}` listed twice", clan.get_ref()),
                    );
                }
                muster.push(c);
            }
        }
        areas.push(AreaDef {
            id: area.id.get_ref().clone(),
            name: area.name.clone(),
            x: area.x,
            y: area.y,
            kind,
            owner,
            disk,
            muster,
            roads: Vec::new(),
            source: area.source.clone(),
        });
    }
    for (d, area) in disk_area.iter().enumerate() {
        if area.is_none() {
            report.error(
                &raw.disk[d].span(),
                format!(
                    "disk `{}` is in no castle",
                    raw.disk[d].get_ref().id.get_ref()
                ),
            );
        }
    }
    for (c, clan) in raw.clan.iter().enumerate() {
        let musters: Vec<&AreaDef> = areas.iter().filter(|a| a.muster.contains(&c)).collect();
        if musters.is_empty() {
            report.error(
                &clan.span(),
                format!("clan `{}` has no muster area", clan.get_ref().id.get_ref()),
            );
        }
    }
    let mut capitals = [0usize; 2];
    for area in &areas {
        if area.kind == AreaKind::Capital
            && let Some(side) = area.owner.filter(|&s| s < 2)
        {
            capitals[side] += 1;
        }
    }
    for (side, count) in capitals.iter().enumerate() {
        if *count > 1 && side < raw.side.len() {
            report.error(
                &raw.side[side].span(),
                "a side has at most one capital".into(),
            );
        }
    }

    // Roads.
    let mut roads = Vec::new();
    let mut seen_pairs = BTreeSet::new();
    for spanned in &raw.road {
        let road = spanned.get_ref();
        let ends = road.between.get_ref();
        if ends.len() != 2 {
            report.error(
                &road.between.span(),
                "a road is `between` exactly two areas".into(),
            );
            continue;
        }
        let a = lookup("area", &area_ids, &ends[0], &mut report);
        let b = lookup("area", &area_ids, &ends[1], &mut report);
        let (Some(a), Some(b)) = (a, b) else { continue };
        if a == b {
            report.error(
                &road.between.span(),
                "a road joins two different areas".into(),
            );
            continue;
        }
        if !seen_pairs.insert((a.min(b), a.max(b))) {
            report.error(
                &road.between.span(),
                format!(
                    "a second road between `{}` and `{}`",
                    ends[0].get_ref(),
                    ends[1].get_ref()
                ),
            );
            continue;
        }
        let r = roads.len();
        areas[a].roads.push(r);
        areas[b].roads.push(r);
        roads.push(RoadDef {
            a,
            b,
            highway: road.highway,
        });
    }
    if !areas.is_empty() && !report.has_errors() {
        let mut reached = vec![false; areas.len()];
        let mut stack = vec![0];
        reached[0] = true;
        while let Some(a) = stack.pop() {
            for &r in &areas[a].roads {
                let b = roads[r].other(a);
                if !reached[b] {
                    reached[b] = true;
                    stack.push(b);
                }
            }
        }
        for (a, r) in reached.iter().enumerate() {
            if !r {
                report.error(
                    &raw.area[a].span(),
                    format!(
                        "area `{}` cannot be reached by road from `{}`",
                        areas[a].id, areas[0].id
                    ),
                );
            }
        }
    }
    if areas.is_empty() {
        report.error(&raw.map.span(), "the board has no [[area]]".into());
    }

    // Sides' box entries.
    let mut sides = Vec::new();
    for side in &raw.side {
        let side = side.get_ref();
        let box_entry = side
            .box_entry
            .as_ref()
            .and_then(|e| lookup("area", &area_ids, e, &mut report));
        sides.push(SideDef {
            id: side.id.get_ref().clone(),
            name: side.name.clone(),
            colour: side.colour.get_ref().clone(),
            wins_ties: side.wins_ties,
            box_entry,
        });
    }

    // Blocks.
    let block_ids = index_ids(
        "block",
        raw.block.iter().map(|b| &b.get_ref().id),
        &mut report,
    );
    let _ = block_ids;
    let mut blocks = Vec::new();
    let mut commanders = [0usize; 2];
    for spanned in &raw.block {
        let block = spanned.get_ref();
        let Some(clan) = lookup("clan", &clan_ids, &block.clan, &mut report) else {
            continue;
        };
        let Some(side) = clan_sides[clan] else {
            continue;
        };
        let mon = *block.mon.get_ref();
        if !(1..=MAX_MON).contains(&mon) {
            report.error(&block.mon.span(), format!("mon is 1 to {MAX_MON}"));
        }
        let start = match block.start.get_ref().as_str() {
            "bag" => Start::Bag,
            "box" => {
                if sides.get(side).is_some_and(|s| s.box_entry.is_none()) {
                    report.error(
                        &block.start.span(),
                        "a block starts in the box of a side without box-entry".into(),
                    );
                }
                Start::Box
            }
            _ => match lookup("area", &area_ids, &block.start, &mut report) {
                Some(a) => Start::Area(a),
                None => continue,
            },
        };
        if block.commander && side < 2 {
            commanders[side] += 1;
        }
        blocks.push(BlockDef {
            id: block.id.get_ref().clone(),
            name: block.name.clone(),
            clan,
            side,
            mon,
            leader: block.leader,
            symbol: block.symbol,
            commander: block.commander,
            any_card: block.any_card,
            start,
        });
    }
    for (side, count) in commanders.iter().enumerate() {
        if *count > 1 && side < raw.side.len() {
            report.error(
                &raw.side[side].span(),
                "a side has at most one commander block".into(),
            );
        }
    }
    for (side, spanned) in raw.side.iter().enumerate() {
        let on_map = blocks
            .iter()
            .filter(|b| b.side == side && matches!(b.start, Start::Area(_)))
            .count();
        if on_map == 0 {
            report.warning(
                &spanned.span(),
                format!(
                    "side `{}` has no block on the map at the start",
                    spanned.get_ref().id.get_ref()
                ),
            );
        }
    }

    // Cards.
    let mut cards = Vec::new();
    for spanned in &raw.card {
        let card = spanned.get_ref();
        let Some(side) = lookup("side", &side_ids, &card.side, &mut report) else {
            continue;
        };
        let kind = *card.kind.get_ref();
        let clan = match (&card.clan, kind) {
            (None, CardKind::LoyaltyChallenge) => None,
            (Some(c), CardKind::LoyaltyChallenge) => {
                report.error(&c.span(), "a loyalty challenge names no clan".into());
                None
            }
            (None, _) => {
                report.error(
                    &card.kind.span(),
                    "a double, sword or plain card names its clan".into(),
                );
                continue;
            }
            (Some(c), _) => {
                let Some(clan) = lookup("clan", &clan_ids, c, &mut report) else {
                    continue;
                };
                if clan_sides[clan].is_some_and(|s| s != side) {
                    report.error(
                        &c.span(),
                        format!(
                            "clan `{}` is not of side `{}`",
                            c.get_ref(),
                            card.side.get_ref()
                        ),
                    );
                }
                Some(clan)
            }
        };
        let copies = card.copies.as_ref().map_or(1, |c| *c.get_ref());
        if copies == 0 || copies > MAX_COPIES {
            let span = card.copies.as_ref().map_or(spanned.span(), Spanned::span);
            report.error(&span, format!("copies is 1 to {MAX_COPIES}"));
        }
        for _ in 0..copies.min(MAX_COPIES) {
            cards.push(CardDef {
                side,
                clan,
                number: *card.number.get_ref(),
                kind,
            });
        }
    }
    // Bids never tie when the two decks share no corner number.
    let numbers: [BTreeSet<u32>; 2] = [0, 1].map(|s| {
        cards
            .iter()
            .filter(|c| c.side == s)
            .map(|c| c.number)
            .collect()
    });
    if let Some(shared) = numbers[0].intersection(&numbers[1]).next() {
        report.warning(
            &raw.map.span(),
            format!(
                "both decks have cards numbered {shared}: equal bids are settled in favour of the side with wins-ties (or the first side)"
            ),
        );
    }
    for side in 0..raw.side.len().min(2) {
        let count = cards.iter().filter(|c| c.side == side).count();
        if count < 12 {
            report.error(
                &raw.side[side].span(),
                format!(
                    "side `{}` has {count} cards; at least 12 are needed (two hands of 5 and a bid)",
                    raw.side[side].get_ref().id.get_ref()
                ),
            );
        }
        for clan in (0..raw.clan.len()).filter(|&c| clan_sides[c] == Some(side)) {
            let has_blocks = blocks.iter().any(|b| b.clan == clan && !b.any_card);
            let has_cards = cards.iter().any(|c| c.clan == Some(clan));
            if has_blocks && !has_cards {
                report.warning(
                    &raw.clan[clan].span(),
                    format!(
                        "clan `{}` has blocks that only its own cards deploy, but no card",
                        raw.clan[clan].get_ref().id.get_ref()
                    ),
                );
            }
        }
    }

    if report.has_errors() {
        return Err(report.finish());
    }
    let disks = raw
        .disk
        .iter()
        .zip(&disk_area)
        .map(|(d, area)| DiskDef {
            id: d.get_ref().id.get_ref().clone(),
            name: d.get_ref().name.clone(),
            effect: d.get_ref().effect,
            area: area.unwrap_or(0),
        })
        .collect();
    let board = Board {
        id: header.id.get_ref().clone(),
        name: header.name.clone(),
        sources: header.sources.clone(),
        track: header
            .reinforcement_track
            .get_ref()
            .iter()
            .map(|b| *b.get_ref())
            .collect(),
        starting_reinforcements: header
            .starting_reinforcements
            .as_ref()
            .map_or(DEFAULT_STARTING_REINFORCEMENTS, |n| *n.get_ref()),
        sides,
        clans: raw
            .clan
            .iter()
            .zip(&clan_sides)
            .map(|(c, side)| ClanDef {
                id: c.get_ref().id.get_ref().clone(),
                name: c.get_ref().name.clone(),
                side: side.unwrap_or(0),
            })
            .collect(),
        areas,
        disks,
        roads,
        blocks,
        cards,
    };
    Ok((board, report.finish()))
}
