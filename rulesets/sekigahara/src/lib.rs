//! Sekigahara for 2 players: a card-driven block wargame of 1600, Ishida against Tokugawa.
//!
//! Same shape as Shogun and Honshu: data ([`data::Board`], one TOML board file with the rosters
//! and decks) goes into a plain [`state::State`]; the rules are functions over it ([`engine`],
//! [`movement`], [`combat`]); what each seat is asked, in words, is [`ask`] (an `sdk::Offer` of
//! [`ask::Act`]s) and how the acts picked apply is [`decide`]; the rules report typed
//! [`outcome`]s, worded in [`tell`] alone; [`view`] and [`render`] show each viewer only what it
//! may know. The rules as implemented are
//! written up in `docs/rules/sekigahara.md`.

pub mod ask;
pub mod combat;
pub mod data;
pub mod decide;
pub mod editor;
pub mod engine;
pub mod estimate;
pub mod movement;
pub mod names;
pub mod outcome;
pub mod preview;
pub mod render;
pub mod rollout;
pub mod state;
pub mod tell;
pub mod view;

use sdk::{
    Action, BoardPart, Diagnostic, FromOptions, GameResult, MapInfo, Options, PreviewNote,
    Rejection, RulesetInfo, Seat, Setup, SetupError, Table, Viewer,
};

use crate::outcome::Log;
use crate::state::{Settings, State};

/// The message catalogues; English has every key the ruleset emits.
pub static CATALOGUES: sdk::Catalogues = sdk::catalogues! {
    "en" => "../i18n/en.toml",
    "ru" => "../i18n/ru.toml",
    "es" => "../i18n/es.toml",
    "de" => "../i18n/de.toml",
    "ro" => "../i18n/ro.toml",
};

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

impl sdk::Ruleset for Sekigahara {
    type Game = SekigaharaGame;

    fn info() -> RulesetInfo {
        RulesetInfo {
            id: "sekigahara".into(),
            name: "Sekigahara".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_seats: 2,
            max_seats: 2,
            maps: vec![MapInfo::new(MAP_ID)],
            options: Settings::schema(),
            languages: CATALOGUES.languages(),
        }
    }

    fn validate_map(map: &str) -> Vec<Diagnostic> {
        data::validate_map(map)
    }

    fn map_editor() -> Option<sdk::MapEditor> {
        Some(editor::schema())
    }

    fn catalogues() -> &'static sdk::Catalogues {
        &CATALOGUES
    }

    fn create(
        setup: &Setup,
        options: &Options,
        table: &mut dyn Table,
    ) -> Result<SekigaharaGame, SetupError> {
        let board = data::board_of_setup(&setup.map)?;
        let mut state = engine::new_game(board, Settings::from_options(options), table);
        engine::advance(&mut state, table, &mut Log::new());
        Ok(SekigaharaGame { state })
    }

    fn restore(bytes: &[u8]) -> Result<SekigaharaGame, String> {
        sdk::snapshot::read(bytes).map(|state| SekigaharaGame { state })
    }
}

impl sdk::Game for SekigaharaGame {
    sdk::decided_by_offers!();

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
        view::result(&self.state)
    }

    fn snapshot(&self) -> Vec<u8> {
        sdk::snapshot::write(&self.state)
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

sdk::register_ruleset!(Sekigahara);
