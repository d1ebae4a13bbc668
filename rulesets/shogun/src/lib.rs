//! Shogun for 3-5 players, the reference ruleset of Tenka. Plain data ([`data::Board`], a
//! position file) goes into a validated [`state::State`]; the rules are functions over it
//! ([`engine`]); every decision goes through [`decide`]. The rules as implemented are written up
//! in `docs/rules/shogun.md`.

pub mod data;
pub mod decide;
pub mod editor;
pub mod engine;
pub mod estimate;
pub mod moves;
pub mod names;
pub mod outcome;
pub mod position;
pub mod preview;
pub mod render;
pub mod rollout;
pub mod state;
pub mod summary;
pub mod tell;
pub mod view;

use sdk::{
    Action, BoardPart, Diagnostic, FromOptions, GameResult, MapInfo, Options, PreviewNote,
    Rejection, RulesetInfo, Seat, Setup, SetupError, Table, Viewer,
};

use crate::state::{State, Variant};

/// The message catalogues; English has every key the ruleset emits.
pub static CATALOGUES: sdk::Catalogues = sdk::catalogues! {
    "en" => "../i18n/en.toml",
    "es" => "../i18n/es.toml",
    "de" => "../i18n/de.toml",
    "ro" => "../i18n/ro.toml",
};

/// The Shogun ruleset.
pub struct Shogun;

/// A game of Shogun in progress: the whole state.
#[derive(Clone, Debug, PartialEq)]
pub struct ShogunGame {
    pub state: State,
}

impl sdk::Ruleset for Shogun {
    type Game = ShogunGame;

    fn info() -> RulesetInfo {
        RulesetInfo {
            id: "shogun".into(),
            name: "Shogun".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_seats: 3,
            max_seats: 5,
            maps: vec![MapInfo::new("sun"), MapInfo::new("moon")],
            options: Variant::schema(),
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
    ) -> Result<ShogunGame, SetupError> {
        let (board, settings) = Variant::read(&setup.map, options)?;
        let (state, _log) = engine::new_game(board, settings, setup.seats, table)?;
        Ok(ShogunGame { state })
    }

    fn create_from_position(
        setup: &Setup,
        options: &Options,
        position: &str,
        table: &mut dyn Table,
    ) -> Result<ShogunGame, SetupError> {
        let (board, settings) = Variant::read(&setup.map, options)?;
        let state = position::from_position(board, settings, setup.seats, position, table)?;
        Ok(ShogunGame { state })
    }

    fn restore(bytes: &[u8]) -> Result<ShogunGame, String> {
        sdk::snapshot::read(bytes).map(|state| ShogunGame { state })
    }
}

impl sdk::Game for ShogunGame {
    sdk::decided_by_offers!(state);

    fn view(&self, viewer: Viewer) -> String {
        view::view(&self.state, viewer).to_string()
    }

    fn render(&self, viewer: Viewer) -> Vec<BoardPart> {
        render::board_parts(&self.state, viewer)
    }

    fn preview(&self, seat: Seat, action: &Action) -> Result<Vec<PreviewNote>, Rejection> {
        decide::preview(&self.state, seat, action).map(preview::notes)
    }

    fn result(&self) -> Option<GameResult> {
        view::result(&self.state)
    }

    fn snapshot(&self) -> Vec<u8> {
        sdk::snapshot::write(&self.state)
    }

    fn determinize(&self, seat: Seat, table: &mut dyn Table) -> Self {
        ShogunGame {
            state: view::determinize(&self.state, seat, table),
        }
    }

    fn evaluate(&self, seat: Seat) -> Option<f64> {
        estimate::evaluate(&self.state, seat)
    }

    fn rollout_action(&self, seat: Seat, salt: u64) -> Option<Action> {
        rollout::rollout_action(&self.state, seat, salt)
    }
}

sdk::register_ruleset!(Shogun);
