//! The game state: plain data, `Clone + Serialize + Deserialize`, so a snapshot is its postcard
//! bytes. The rules that change it live in `engine`; what a seat is asked lives in `decide`.

use serde::{Deserialize, Serialize};

use crate::data::{Board, ProvinceId};
use sdk::{FromOptions, Message, MessageArg, OptionSpec, Options, ScoreLine, Seat};

/// The default of the `tower-lodge-chance` option: at this value each shelf keeps the lodge chance
/// the card data gives it.
pub const DEFAULT_LODGE_CHANCE: f64 = 0.15;

/// The default of the `tower-release-chance` option: at this value each shelf keeps the release
/// chance the card data gives it.
pub const DEFAULT_RELEASE_CHANCE: f64 = 0.025;

/// The variant options of one game, read once from [`sdk::Options`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The fixed beginner setup instead of the claiming draft.
    pub beginner_setup: bool,
    /// Years played (1 or 2); the game ends after the last winter.
    pub years: u32,
    /// Whether event cards change the seasons' actions (their winter rice loss always counts).
    pub events: bool,
    /// The tower's lodge chance for every shelf; at [`DEFAULT_LODGE_CHANCE`] the card data's
    /// per-shelf chances apply.
    pub tower_lodge_chance: f64,
    /// The tower's release chance for every shelf; at [`DEFAULT_RELEASE_CHANCE`] the card data's
    /// per-shelf chances apply.
    pub tower_release_chance: f64,
    /// The most rice a player may hold; 0 means no cap.
    pub rice_cap: u32,
}

/// What a game's options choose: the settings the rules read, and the event deck the board
/// plays with (which changes the board's cards, not the settings).
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// The settings the rules read.
    pub settings: Settings,
    /// The `event-deck` option: `standard`, or an `[[event-deck]]` of the card set.
    pub event_deck: String,
}

impl Variant {
    /// The board a setup's map plays with the event deck `options` choose, and the settings they
    /// choose, or why the map cannot be played.
    pub fn read(map: &str, options: &Options) -> Result<(Board, Settings), sdk::SetupError> {
        let variant = Variant::from_options(options);
        let board = crate::data::read_board(map, &variant.event_deck)?;
        Ok((board, variant.settings))
    }
}

impl FromOptions for Variant {
    fn schema() -> Vec<OptionSpec> {
        vec![
            OptionSpec::choice("setup", ["draft", "beginner"], "draft"),
            OptionSpec::integer("years", 1, 2, 2),
            OptionSpec::boolean("events", true),
            OptionSpec::decimal("tower-lodge-chance", 0.0, 1.0, DEFAULT_LODGE_CHANCE),
            OptionSpec::decimal("tower-release-chance", 0.0, 1.0, DEFAULT_RELEASE_CHANCE),
            OptionSpec::integer("rice-cap", 0, 99, 0),
            OptionSpec::choice(
                "event-deck",
                crate::data::event_deck_choices(),
                crate::data::STANDARD_EVENT_DECK,
            ),
        ]
    }

    fn from_options(options: &Options) -> Variant {
        Variant {
            settings: Settings::from_options(options),
            event_deck: options.choice("event-deck").to_string(),
        }
    }
}

impl Settings {
    /// Reads the settings from resolved options.
    pub fn from_options(options: &Options) -> Settings {
        Settings {
            beginner_setup: options.choice("setup") == "beginner",
            years: options.integer("years").clamp(1, 2) as u32,
            events: options.boolean("events"),
            tower_lodge_chance: options.decimal("tower-lodge-chance"),
            tower_release_chance: options.decimal("tower-release-chance"),
            rice_cap: options.integer("rice-cap").clamp(0, 99) as u32,
        }
    }
}

/// A card a player can place on an action space or the bid space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CardRef {
    /// A province card (the province must still be the player's when the action runs).
    Province(ProvinceId),
    /// A war chest card of this value (0 to 4).
    Chest(u32),
}

/// One seat's secret plan for a season.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Per action card (index into the card set's actions), the card placed on its space.
    pub actions: Vec<Option<CardRef>>,
    /// The card on the bid space.
    pub bid: Option<CardRef>,
}

/// What one player has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// War chests.
    pub chests: u32,
    /// Rice.
    pub rice: u32,
    /// Victory points.
    pub vp: u32,
    /// Army cubes in the player's supply.
    pub supply: u32,
    /// Cubes in the battle tower (dropped minus came out).
    pub in_tower: u32,
    /// Cubes lying in the tower's tray.
    pub tray: u32,
}

/// One province on the board.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProvinceState {
    /// Who holds its card; `None` for the neutral pile.
    pub owner: Option<Seat>,
    /// Armies standing in it.
    pub armies: u32,
    /// A castle stands in it.
    pub castle: bool,
    /// A temple stands in it.
    pub temple: bool,
    /// A Nō theatre stands in it.
    pub theatre: bool,
    /// Revolt markers on it.
    pub revolts: u32,
}

impl ProvinceState {
    /// Buildings standing in the province.
    pub fn buildings(&self) -> u32 {
        u32::from(self.castle) + u32::from(self.temple) + u32::from(self.theatre)
    }
}

/// The claiming draft while it runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    /// The face-up province cards (up to 2).
    pub face_up: Vec<ProvinceId>,
    /// The face-down deck; the last element is the top.
    pub deck: Vec<ProvinceId>,
    /// Per seat, the armies of the countryside groups not yet placed.
    pub groups: Vec<Vec<u32>>,
    /// The seat that claims first.
    pub first: Seat,
    /// Claims completed so far.
    pub picks: u32,
    /// The card just taken, waiting for the choice of a group.
    pub taken: Option<ProvinceId>,
}

/// A battle waiting for the players' special-card choices before the tower is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Battle {
    /// The attacker's province.
    pub from: ProvinceId,
    /// The province attacked.
    pub to: ProvinceId,
    /// Armies the attacker sends.
    pub armies: u32,
    /// Cubes the attacker adds from supply with its special card (0 when declined).
    pub attack_bonus: u32,
}

/// Where in an action a decision is awaited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// Nothing awaited: the engine runs this seat's action next.
    Ready,
    /// Deploy/Move 1: where to move after placing the army (or not at all).
    MoveTarget {
        /// The province the army was placed in.
        from: ProvinceId,
    },
    /// Deploy/Move 1: how many armies move.
    MoveCount {
        /// Source.
        from: ProvinceId,
        /// Destination, an own province.
        to: ProvinceId,
    },
    /// Battle/Move: which adjacent province.
    BattleTarget {
        /// Source.
        from: ProvinceId,
    },
    /// Battle/Move: how many armies go.
    BattleCount {
        /// Source.
        from: ProvinceId,
        /// Destination.
        to: ProvinceId,
    },
    /// Deploy with a special card's bonus armies: whether to place them too (the bonus is
    /// optional in every rule text).
    RecruitBonus {
        /// The province deployed to.
        province: ProvinceId,
    },
    /// A battle: whether the attacker adds its special card's cube.
    AttackBonus {
        /// The battle so far.
        battle: Battle,
    },
    /// A battle: whether the defender (not the seat whose turn it is) adds its special card's cube.
    DefenceBonus {
        /// The battle so far, the attacker's choice included.
        battle: Battle,
    },
}

/// The phase the game is in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// The claiming draft (see [`Draft`]).
    Draft,
    /// Secret simultaneous planning: every seat without a plan is pending.
    Planning,
    /// Seats take special cards in bid order; `next` indexes the bid order.
    Specials {
        /// The position in the bid order that chooses next.
        next: usize,
    },
    /// Actions run: `step` indexes the action layout, `turn` the turn order.
    Actions {
        /// The action space being carried out (0-based).
        step: usize,
        /// The position in turn order of the seat acting.
        turn: usize,
        /// What is awaited from that seat.
        stage: Stage,
    },
    /// Winter: rice loss and hunger revolts per seat in turn order, then scoring.
    Winter {
        /// The position in turn order of the seat whose revolts are being resolved.
        turn: usize,
        /// Revolting provinces of that seat not yet resolved (the seat picks the order).
        queue: Vec<ProvinceId>,
        /// Extra farmers joining each of these revolts.
        extra: u32,
        /// Whether `turn`'s rice loss and draw are already done.
        started: bool,
    },
    /// The game is over.
    Over,
}

/// The whole game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The board side with its card set.
    pub board: Board,
    /// The variant options.
    pub settings: Settings,
    /// Number of seats.
    pub seats: u32,
    /// Per seat.
    pub players: Vec<Player>,
    /// Per province of the board.
    pub provinces: Vec<ProvinceState>,
    /// Farmer cubes in the general supply.
    pub farmer_supply: u32,
    /// Farmer cubes in the tower.
    pub farmers_in_tower: u32,
    /// Farmer cubes in the tray.
    pub tray_farmers: u32,
    /// The year, from 1.
    pub year: u32,
    /// The season of the year: 0 spring, 1 summer, 2 autumn.
    pub season: u32,
    /// Undrawn event cards (indices into the card set); the last is the top.
    pub event_deck: Vec<usize>,
    /// This year's face-up events not yet drawn; the last one left is the winter card.
    pub year_events: Vec<usize>,
    /// The event of this season, once drawn.
    pub current_event: Option<usize>,
    /// The action cards (indices into the card set) in the order they are carried out.
    pub action_layout: Vec<usize>,
    /// How many of the laid-out action cards are face up.
    pub actions_revealed: usize,
    /// The special cards (indices into the card set) on the special spaces 1..5.
    pub special_layout: Vec<usize>,
    /// Per special space, the seat that took it this season.
    pub special_holder: Vec<Option<Seat>>,
    /// Per seat, its plan this season once given.
    pub plans: Vec<Option<Plan>>,
    /// Per seat, the provinces it lost this season: a plan naming one is void even when the
    /// province has been retaken since (decision 12), as its card left the planning board.
    pub lost: Vec<Vec<ProvinceId>>,
    /// Whether the bids of this season are revealed.
    pub bids_revealed: bool,
    /// Seats in the order they choose special cards.
    pub bid_order: Vec<Seat>,
    /// Seats in turn order for this season's actions (and the winter after autumn).
    pub turn_order: Vec<Seat>,
    /// The claiming draft, while it runs.
    pub draft: Option<Draft>,
    /// Where the game is.
    pub phase: Phase,
    /// Every scoring line so far, both winters.
    pub score_lines: Vec<ScoreLine>,
    /// The revolts of the winter being played, for its summary (emptied when a year starts).
    #[serde(default)]
    pub winter_revolts: Vec<RevoltOutcome>,
}

/// How one revolt ended, kept for the winter's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevoltOutcome {
    /// Where.
    pub province: ProvinceId,
    /// Whose province it was.
    pub owner: Seat,
    /// Whether the owner kept it.
    pub kept: bool,
}

impl State {
    /// The seat holding the special card of this index this season, if any.
    pub fn special_of(&self, seat: Seat) -> Option<usize> {
        self.special_holder
            .iter()
            .position(|h| *h == Some(seat))
            .map(|space| self.special_layout[space])
    }

    /// Whether province `p` is in play with this game's seat count.
    pub fn in_play(&self, p: ProvinceId) -> bool {
        self.board.in_play(p, self.seats)
    }

    /// The provinces a seat holds, in board order.
    pub fn provinces_of(&self, seat: Seat) -> Vec<ProvinceId> {
        (0..self.provinces.len())
            .filter(|&p| self.provinces[p].owner == Some(seat))
            .collect()
    }

    /// A province's name as a whole message (see [`Board::province_label`]).
    pub fn province_label(&self, p: ProvinceId) -> Message {
        self.board.province_label(p)
    }

    /// A province's name as an argument of a message (see [`Board::province_arg`]); add it with
    /// [`Message::arg`].
    pub fn province_arg(&self, p: ProvinceId) -> MessageArg {
        self.board.province_arg(p)
    }

    /// Armies of `seat` standing on the board.
    pub fn armies_on_board(&self, seat: Seat) -> u32 {
        self.provinces
            .iter()
            .filter(|p| p.owner == Some(seat))
            .map(|p| p.armies)
            .sum()
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }
}
