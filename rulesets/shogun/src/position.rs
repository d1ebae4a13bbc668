//! Position files: a TOML description of any mid-game state, so each rule can be tested (and
//! taught) from the situation it is about.
//!
//! ```toml
//! year = 1
//! season = "summer"            # spring, summer or autumn
//! phase = "actions"            # planning, actions or winter
//! step = 1                     # actions: the action space to start at, 1-based
//! events = ["event-3", "event-6"]  # the year's face-up events not drawn yet
//! current-event = "event-2"    # actions: this season's event
//! actions = ["collect-taxes", ...] # the action layout; random when left out
//! turn-order = [1, 0, 2]
//!
//! [[seat]]
//! chests = 10
//! tower = 7                    # cubes of the seat in the tower
//! special = "attack"           # actions: the special card held
//! plan = { collect-taxes = "kai", bid = "chest:2" }
//!
//! [[province]]
//! id = "kai"
//! owner = 0
//! armies = 3
//! revolts = 2
//! ```
//!
//! The host's tower starts empty, so the cubes a position puts in the tower are dropped in when
//! the game is made, like the tower loading of a new game: what comes out goes back to supply.

use std::collections::BTreeMap;

use sdk::{Seat, SetupError, Table, TableExt};
use serde::Deserialize;

use crate::data::{Board, ProvinceId};
use crate::engine;
use crate::outcome::Log;
use crate::state::{CardRef, Phase, Plan, ProvinceState, Settings, Stage, State};

/// A position file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Position {
    /// The year, 1 or 2.
    #[serde(default = "one")]
    pub year: u32,
    /// `spring`, `summer` or `autumn`.
    #[serde(default = "spring")]
    pub season: String,
    /// `planning`, `actions` or `winter`.
    pub phase: String,
    /// For `actions`: the action space to start at, 1-based.
    #[serde(default = "one")]
    pub step: u32,
    /// The year's face-up events not drawn yet, by id.
    #[serde(default)]
    pub events: Vec<String>,
    /// This season's event, by id (phase `actions`).
    #[serde(default)]
    pub current_event: Option<String>,
    /// The undrawn event deck, top last; the events not named anywhere, shuffled, when left out.
    #[serde(default)]
    pub event_deck: Option<Vec<String>>,
    /// The action cards in the order they are carried out, by id.
    #[serde(default)]
    pub actions: Option<Vec<String>>,
    /// How many action cards are face up; by default 5, or more as the step requires.
    #[serde(default)]
    pub revealed: Option<usize>,
    /// The special cards on spaces 1 to 5, by id.
    #[serde(default)]
    pub specials: Option<Vec<String>>,
    /// Turn order, by seat.
    #[serde(default)]
    pub turn_order: Option<Vec<Seat>>,
    /// Farmer cubes in the tower.
    #[serde(default)]
    pub farmers_in_tower: u32,
    /// Farmer cubes in the tray.
    #[serde(default)]
    pub tray_farmers: u32,
    /// Per seat, in seat order.
    #[serde(default)]
    pub seat: Vec<SeatPosition>,
    /// Provinces that are not neutral and empty.
    #[serde(default)]
    pub province: Vec<ProvincePosition>,
}

fn one() -> u32 {
    1
}

fn spring() -> String {
    "spring".into()
}

/// One seat in a position.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SeatPosition {
    /// War chests.
    #[serde(default)]
    pub chests: u32,
    /// Rice.
    #[serde(default)]
    pub rice: u32,
    /// Victory points.
    #[serde(default)]
    pub vp: u32,
    /// Cubes in the tower.
    #[serde(default)]
    pub tower: u32,
    /// Cubes in the tray.
    #[serde(default)]
    pub tray: u32,
    /// The special card held this season, by id.
    #[serde(default)]
    pub special: Option<String>,
    /// The plan: action card id (or `bid`) to card (`chest:N` or a province id).
    #[serde(default)]
    pub plan: Option<BTreeMap<String, String>>,
}

/// One province in a position.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ProvincePosition {
    /// The province's id.
    pub id: String,
    /// The seat holding its card; neutral when left out.
    #[serde(default)]
    pub owner: Option<Seat>,
    /// Armies in it.
    #[serde(default)]
    pub armies: u32,
    /// A castle stands in it.
    #[serde(default)]
    pub castle: bool,
    /// A temple stands in it.
    #[serde(default)]
    pub temple: bool,
    /// A Nō theatre stands in it.
    #[serde(default)]
    pub theatre: bool,
    /// Revolt markers.
    #[serde(default)]
    pub revolts: u32,
}

fn bad(text: impl Into<String>) -> SetupError {
    SetupError::Position(text.into())
}

fn event_index(state: &State, id: &str) -> Result<usize, SetupError> {
    state
        .board
        .cards()
        .events
        .iter()
        .position(|e| e.id == id)
        .ok_or_else(|| bad(format!("unknown event `{id}`")))
}

fn parse_card(state: &State, text: &str) -> Result<CardRef, SetupError> {
    if let Some(v) = text.strip_prefix("chest:") {
        let v: u32 = v
            .parse()
            .map_err(|_| bad(format!("bad chest card `{text}`")))?;
        if v > 4 {
            return Err(bad(format!("chest cards go from 0 to 4, not {v}")));
        }
        return Ok(CardRef::Chest(v));
    }
    state
        .board
        .province_by_id(text)
        .map(CardRef::Province)
        .ok_or_else(|| bad(format!("unknown card `{text}`")))
}

/// Builds a game from a position file.
pub fn from_position(
    board: Board,
    settings: Settings,
    seats: u32,
    text: &str,
    table: &mut dyn Table,
) -> Result<State, SetupError> {
    let position: Position = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
    let mut state = engine::empty_state(board, settings, seats)?;
    let cards = state.board.cards().clone();
    if position.seat.len() != seats as usize {
        return Err(bad(format!(
            "the position has {} seats, the game {seats}",
            position.seat.len()
        )));
    }
    if position.year == 0 || position.year > state.settings.years {
        return Err(bad(format!(
            "year {} is outside this game's 1..={}",
            position.year, state.settings.years
        )));
    }
    state.year = position.year;
    state.season = match position.season.as_str() {
        "spring" => 0,
        "summer" => 1,
        "autumn" => 2,
        other => return Err(bad(format!("unknown season `{other}`"))),
    };
    // Provinces.
    let mut seen: Vec<ProvinceId> = Vec::new();
    for entry in &position.province {
        let p = state
            .board
            .province_by_id(&entry.id)
            .ok_or_else(|| bad(format!("unknown province `{}`", entry.id)))?;
        if seen.contains(&p) {
            return Err(bad(format!("province `{}` is listed twice", entry.id)));
        }
        seen.push(p);
        if !state.in_play(p) && (entry.owner.is_some() || entry.armies > 0) {
            return Err(bad(format!(
                "province `{}` is out of play with {seats} players",
                entry.id
            )));
        }
        let prov = ProvinceState {
            owner: entry.owner,
            armies: entry.armies,
            castle: entry.castle,
            temple: entry.temple,
            theatre: entry.theatre,
            revolts: entry.revolts,
        };
        match prov.owner {
            Some(o) if o >= seats => {
                return Err(bad(format!("province `{}`: no seat {o}", entry.id)));
            }
            Some(_) if prov.armies == 0 => {
                return Err(bad(format!(
                    "province `{}` is held but has no army",
                    entry.id
                )));
            }
            None if prov.armies > 0 || prov.buildings() > 0 || prov.revolts > 0 => {
                return Err(bad(format!(
                    "neutral province `{}` must be empty",
                    entry.id
                )));
            }
            _ => {}
        }
        if prov.buildings() > state.board.provinces[p].spaces {
            return Err(bad(format!(
                "province `{}` has more buildings than spaces",
                entry.id
            )));
        }
        state.provinces[p] = prov;
    }
    // Seats and cube conservation.
    for (s, entry) in position.seat.iter().enumerate() {
        let board_armies = state.armies_on_board(s as Seat);
        let used = board_armies + entry.tower + entry.tray;
        if used > cards.cubes_per_player {
            return Err(bad(format!(
                "seat {s} has more than {} cubes",
                cards.cubes_per_player
            )));
        }
        let player = &mut state.players[s];
        player.chests = entry.chests;
        player.rice = entry.rice;
        player.vp = entry.vp;
        player.supply = cards.cubes_per_player - used;
        player.tray = entry.tray;
    }
    if position.farmers_in_tower + position.tray_farmers > cards.farmers {
        return Err(bad(format!("more than {} farmers", cards.farmers)));
    }
    state.farmer_supply = cards.farmers - position.farmers_in_tower - position.tray_farmers;
    state.tray_farmers = position.tray_farmers;
    // Events.
    state.year_events = position
        .events
        .iter()
        .map(|id| event_index(&state, id))
        .collect::<Result<_, _>>()?;
    state.current_event = position
        .current_event
        .as_deref()
        .map(|id| event_index(&state, id))
        .transpose()?;
    state.event_deck = match &position.event_deck {
        Some(ids) => ids
            .iter()
            .map(|id| event_index(&state, id))
            .collect::<Result<_, _>>()?,
        None => {
            let mut rest: Vec<usize> = (0..cards.events.len())
                .filter(|e| !state.year_events.contains(e) && state.current_event != Some(*e))
                .collect();
            table.shuffle(&mut rest);
            rest
        }
    };
    // Action and special layouts.
    let mut layout: Vec<usize> = (0..cards.actions.len()).collect();
    table.shuffle(&mut layout);
    if let Some(ids) = &position.actions {
        layout = ids
            .iter()
            .map(|id| {
                cards
                    .actions
                    .iter()
                    .position(|a| &a.id == id)
                    .ok_or_else(|| bad(format!("unknown action `{id}`")))
            })
            .collect::<Result<_, _>>()?;
        let mut sorted = layout.clone();
        sorted.sort_unstable();
        if sorted != (0..cards.actions.len()).collect::<Vec<_>>() {
            return Err(bad("`actions` must name every action card once"));
        }
    }
    state.action_layout = layout;
    let step = position.step.max(1) as usize - 1;
    if step >= cards.actions.len() {
        return Err(bad(format!(
            "step {} is past the last action",
            position.step
        )));
    }
    state.actions_revealed = position
        .revealed
        .unwrap_or(5 + step)
        .min(cards.actions.len())
        .max(5.min(cards.actions.len()));
    let mut specials: Vec<usize> = (0..cards.specials.len()).collect();
    table.shuffle(&mut specials);
    if let Some(ids) = &position.specials {
        specials = ids
            .iter()
            .map(|id| {
                cards
                    .specials
                    .iter()
                    .position(|s| &s.id == id)
                    .ok_or_else(|| bad(format!("unknown special `{id}`")))
            })
            .collect::<Result<_, _>>()?;
        let mut sorted = specials.clone();
        sorted.sort_unstable();
        if sorted != (0..cards.specials.len()).collect::<Vec<_>>() {
            return Err(bad("`specials` must name every special card once"));
        }
    }
    state.special_layout = specials;
    state.special_holder = vec![None; cards.specials.len()];
    for (s, entry) in position.seat.iter().enumerate() {
        if let Some(id) = &entry.special {
            let card = cards
                .specials
                .iter()
                .position(|c| &c.id == id)
                .ok_or_else(|| bad(format!("unknown special `{id}`")))?;
            let space = state
                .special_layout
                .iter()
                .position(|&c| c == card)
                .unwrap_or(0);
            if state.special_holder[space].is_some() {
                return Err(bad(format!("special `{id}` is held twice")));
            }
            state.special_holder[space] = Some(s as Seat);
        }
    }
    // Plans.
    for (s, entry) in position.seat.iter().enumerate() {
        let Some(map) = &entry.plan else { continue };
        let mut plan = Plan {
            actions: vec![None; cards.actions.len()],
            bid: None,
        };
        let mut used: Vec<CardRef> = Vec::new();
        for (slot, text) in map {
            let card = parse_card(&state, text)?;
            if used.contains(&card) {
                return Err(bad(format!("seat {s} places `{text}` twice")));
            }
            used.push(card);
            if let CardRef::Province(p) = card
                && state.provinces[p].owner != Some(s as Seat)
            {
                return Err(bad(format!("seat {s} does not hold `{text}`")));
            }
            if slot == "bid" {
                plan.bid = Some(card);
            } else {
                let a = cards
                    .actions
                    .iter()
                    .position(|a| &a.id == slot)
                    .ok_or_else(|| bad(format!("unknown action space `{slot}`")))?;
                plan.actions[a] = Some(card);
            }
        }
        state.plans[s] = Some(plan);
    }
    let default_order: Vec<Seat> = {
        let held: Vec<Seat> = state.special_holder.iter().filter_map(|h| *h).collect();
        if held.len() == seats as usize {
            held
        } else {
            (0..seats).collect()
        }
    };
    state.turn_order = position.turn_order.clone().unwrap_or(default_order);
    let mut sorted = state.turn_order.clone();
    sorted.sort_unstable();
    if sorted != (0..seats).collect::<Vec<_>>() {
        return Err(bad("`turn-order` must name every seat once"));
    }
    state.phase = match position.phase.as_str() {
        "planning" => {
            if position.seat.iter().any(|s| s.special.is_some()) {
                return Err(bad("no special card is held while planning"));
            }
            Phase::Planning
        }
        "actions" => {
            state.bids_revealed = true;
            for plan in &mut state.plans {
                plan.get_or_insert_with(|| Plan {
                    actions: vec![None; cards.actions.len()],
                    bid: None,
                });
            }
            Phase::Actions {
                step,
                turn: 0,
                stage: Stage::Ready,
            }
        }
        "winter" => {
            state.season = 2;
            state.plans = vec![None; seats as usize];
            Phase::Winter {
                turn: 0,
                queue: Vec::new(),
                extra: 0,
                started: false,
            }
        }
        other => return Err(bad(format!("unknown phase `{other}`"))),
    };
    // The host's tower is empty: put the position's tower cubes in.
    engine::configure_tower(&state, table);
    let tower: Vec<u32> = position.seat.iter().map(|s| s.tower).collect();
    load_position_tower(&mut state, &tower, position.farmers_in_tower, table);
    let mut log = Log::new();
    engine::advance(&mut state, table, &mut log);
    Ok(state)
}

fn load_position_tower(state: &mut State, tower: &[u32], farmers: u32, table: &mut dyn Table) {
    if tower.iter().all(|&n| n == 0) && farmers == 0 {
        return;
    }
    // The tower counts were left out of supply above; drop them as setup's loading does.
    let mut cubes = Vec::new();
    for (s, &n) in tower.iter().enumerate() {
        state.players[s].in_tower = n;
        if n > 0 {
            cubes.push(sdk::CubeCount {
                owner: sdk::CubeOwner::Seat(s as Seat),
                count: n,
            });
        }
    }
    state.farmers_in_tower = farmers;
    if farmers > 0 {
        cubes.push(sdk::CubeCount {
            owner: sdk::CubeOwner::Neutral(engine::FARMER.into()),
            count: farmers,
        });
    }
    for cube in table.drop_cubes(&cubes) {
        match cube.owner {
            sdk::CubeOwner::Seat(s) if (s as usize) < state.players.len() => {
                let player = &mut state.players[s as usize];
                let n = cube.count.min(player.in_tower);
                player.in_tower -= n;
                player.supply += n;
            }
            sdk::CubeOwner::Neutral(_) => {
                let n = cube.count.min(state.farmers_in_tower);
                state.farmers_in_tower -= n;
                state.farmer_supply += n;
            }
            _ => {}
        }
    }
}
