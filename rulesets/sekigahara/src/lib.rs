//! Sekigahara for 2 players: a card-driven block wargame of 1600, Ishida against Tokugawa.
//!
//! Same shape as Shogun and Honshu: data ([`data::Board`], one TOML board file with the rosters
//! and decks) goes into a plain [`state::State`]; the rules are functions over it ([`engine`],
//! [`movement`], [`combat`]); what each seat is asked and how its answer applies is [`decide`];
//! [`view`] and [`render`] show each viewer only what it may know. The rules as implemented are
//! written up in `docs/rules/sekigahara.md`.

pub mod combat;
pub mod data;
pub mod decide;
pub mod editor;
pub mod engine;
pub mod estimate;
pub mod movement;
pub mod names;
pub mod preview;
pub mod render;
pub mod rollout;
pub mod state;
pub mod view;

use sdk::{
    Action, BoardPart, Diagnostic, Event, GameResult, MapInfo, Message, OptionSpec, Options,
    PendingDecision, Placing, PreviewNote, Rejection, RulesetInfo, ScoreLine, Seat, Setup,
    SetupError, Table, Viewer,
};

use crate::data::Board;
use crate::state::{Ending, Settings, State};

/// The English message catalogue: every key the ruleset emits.
pub const CATALOGUE_EN: &str = include_str!("../i18n/en.toml");

/// The map id of the shipped board.
pub const MAP_ID: &str = "japan-1600";

/// The Sekigahara ruleset.
pub struct Sekigahara;

/// A game of Sekigahara in progress.
#[derive(Clone, Debug, PartialEq)]
pub struct SekigaharaGame {
    /// The whole state.
    pub state: State,
}

/// Reads the board of a setup, or says why it cannot be played.
pub fn read_board(map: &str) -> Result<Board, SetupError> {
    Board::from_toml(map)
        .map(|(board, _)| board)
        .map_err(SetupError::Map)
}

/// The settings the options choose.
pub fn settings_from(options: &Options) -> Settings {
    Settings {
        initiative_lower_impact: options.choice("battle-initiative") == "lower-impact",
        turned_clan_bonus: options.boolean("turned-clan-bonus"),
        casualty_divisor: options.integer("casualty-divisor") as u32,
        loser_min_loss: options.integer("loser-min-loss") as u32,
        retreat: options.choice("retreat") == "adjacent",
        siege_limit: options.integer("siege-limit") as u32,
        reshuffle: options.boolean("reshuffle"),
        castle_refuge: options.boolean("castle-refuge"),
        siege_bonus: options.integer("siege-bonus") as u32,
    }
}

impl sdk::Ruleset for Sekigahara {
    type Game = SekigaharaGame;

    fn info() -> RulesetInfo {
        let defaults = Settings::default();
        RulesetInfo {
            id: "sekigahara".into(),
            name: "Sekigahara".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_seats: 2,
            max_seats: 2,
            maps: vec![MapInfo {
                id: MAP_ID.into(),
                name: Message::new("map.japan-1600"),
            }],
            options: vec![
                OptionSpec::choice(
                    "battle-initiative",
                    ["lower-impact", "alternate"],
                    "lower-impact",
                ),
                OptionSpec::boolean("turned-clan-bonus", defaults.turned_clan_bonus),
                OptionSpec::integer(
                    "casualty-divisor",
                    1,
                    30,
                    i64::from(defaults.casualty_divisor),
                ),
                OptionSpec::integer("loser-min-loss", 0, 3, i64::from(defaults.loser_min_loss)),
                OptionSpec::choice("retreat", ["adjacent", "eliminated"], "adjacent"),
                OptionSpec::integer("siege-limit", 0, 8, i64::from(defaults.siege_limit)),
                OptionSpec::boolean("reshuffle", defaults.reshuffle),
                OptionSpec::boolean("castle-refuge", defaults.castle_refuge),
                OptionSpec::integer("siege-bonus", 0, 10, i64::from(defaults.siege_bonus)),
            ],
            languages: ["en", "ru", "es", "de", "ro"].map(String::from).to_vec(),
        }
    }

    fn validate_map(map: &str) -> Vec<Diagnostic> {
        data::validate_map(map)
    }

    fn map_editor() -> Option<sdk::MapEditor> {
        Some(editor::schema())
    }

    fn catalogue(language: &str) -> Option<&'static str> {
        match language {
            "en" => Some(CATALOGUE_EN),
            "ru" => Some(include_str!("../i18n/ru.toml")),
            "es" => Some(include_str!("../i18n/es.toml")),
            "de" => Some(include_str!("../i18n/de.toml")),
            "ro" => Some(include_str!("../i18n/ro.toml")),
            _ => None,
        }
    }

    fn create(
        setup: &Setup,
        options: &Options,
        table: &mut dyn Table,
    ) -> Result<SekigaharaGame, SetupError> {
        let board = read_board(&setup.map)?;
        let mut state = engine::new_game(board, settings_from(options), table);
        engine::advance(&mut state, table);
        Ok(SekigaharaGame { state })
    }

    fn restore(bytes: &[u8]) -> Result<SekigaharaGame, String> {
        postcard::from_bytes(bytes)
            .map(|state| SekigaharaGame { state })
            .map_err(|e| format!("not a Sekigahara snapshot: {e}"))
    }
}

impl sdk::Game for SekigaharaGame {
    fn pending(&self) -> Vec<PendingDecision> {
        decide::pending(&self.state)
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        decide::apply(&mut self.state, seat, action, table)
    }

    fn view(&self, viewer: Viewer) -> String {
        view::view(&self.state, viewer).to_string()
    }

    fn render(&self, viewer: Viewer) -> Vec<BoardPart> {
        render::parts(&self.state, viewer)
    }

    fn preview(&self, seat: Seat, action: &Action) -> Result<Vec<PreviewNote>, Rejection> {
        preview::preview(&self.state, seat, action)
    }

    fn result(&self) -> Option<GameResult> {
        final_result(&self.state)
    }

    fn snapshot(&self) -> Vec<u8> {
        postcard::to_allocvec(&self.state).unwrap_or_default()
    }

    fn determinize(&self, seat: Seat, table: &mut dyn Table) -> Self {
        SekigaharaGame {
            state: view::determinize(&self.state, seat as usize, table),
        }
    }

    fn evaluate(&self, seat: Seat) -> Option<f64> {
        estimate::evaluate(&self.state, seat)
    }

    fn rollout_action(&self, seat: Seat, salt: u64) -> Option<Action> {
        rollout::rollout_action(&self.state, seat, salt)
    }
}

/// The result of a finished game: the winner first; the score is the points at the end.
pub fn final_result(state: &State) -> Option<GameResult> {
    let (winner, ending) = state.ending?;
    let placings = [winner, state::other(winner)]
        .into_iter()
        .enumerate()
        .map(|(i, side)| Placing {
            seat: side as u32,
            rank: i as u32 + 1,
            score: i64::from(state.points(side)),
            tie_breaks: Vec::new(),
        })
        .collect();
    let breakdown = (0..2)
        .flat_map(|side| {
            let (castles, resources) = state.holdings(side);
            [
                ScoreLine {
                    seat: side as u32,
                    label: Message::new("score.castles"),
                    points: 2 * i64::from(castles),
                },
                ScoreLine {
                    seat: side as u32,
                    label: Message::new("score.resources"),
                    points: i64::from(resources),
                },
            ]
        })
        .collect();
    let summary = Message::new(match ending {
        Ending::Commander => "result.commander",
        Ending::Disk => "result.disk",
        Ending::Points => "result.points",
    })
    .seat("side", winner as u32)
    .number("points", i64::from(state.points(winner)));
    Some(GameResult {
        placings,
        breakdown,
        summary,
    })
}

sdk::register_ruleset!(Sekigahara);
