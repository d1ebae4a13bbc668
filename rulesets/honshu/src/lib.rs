//! Honshu for 2-5 players: a trick decides who picks which map card, and each player builds a
//! personal map from the cards picked. The second ruleset of Tenka, and the test of its promise
//! that a new game is a plugin plus data.
//!
//! Same shape as Shogun: data ([`data::Deck`]) goes into a plain [`state::State`]; the rules are
//! functions over it ([`engine`]); what each seat is asked and how its answer applies is
//! [`decide`]; [`view`] and [`render`] show each viewer only what it may know. The rules as
//! implemented are written up in `docs/rules/honshu.md`. A game takes no map: the deck is
//! compiled in, and a setup that carries a deck file plays with that deck instead.

pub mod data;
pub mod decide;
pub mod editor;
pub mod engine;
pub mod estimate;
pub mod moves;
pub mod outcome;
pub mod render;
pub mod rollout;
pub mod state;
pub mod tell;
pub mod view;

use sdk::{
    Action, BoardPart, Diagnostic, FromOptions, GameResult, Options, RulesetInfo, Seat, Setup,
    SetupError, Table, Viewer,
};

use crate::data::Deck;
use crate::state::{Settings, State};

/// The message catalogues; English has every key the ruleset emits.
pub static CATALOGUES: sdk::Catalogues = sdk::catalogues! {
    "en" => "../i18n/en.toml",
    "es" => "../i18n/es.toml",
    "de" => "../i18n/de.toml",
    "ro" => "../i18n/ro.toml",
};

/// The Honshu ruleset.
pub struct Honshu;

/// A game of Honshu in progress.
#[derive(Clone, Debug, PartialEq)]
pub struct HonshuGame {
    /// The whole state.
    pub state: State,
}

impl sdk::Ruleset for Honshu {
    type Game = HonshuGame;

    fn info() -> RulesetInfo {
        RulesetInfo {
            id: "honshu".into(),
            name: "Honshu".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_seats: 2,
            max_seats: 5,
            maps: Vec::new(),
            options: Settings::schema(),
            languages: CATALOGUES.languages(),
        }
    }

    /// Honshu takes no map; what can be checked is a deck file. An empty text is the shipped
    /// deck and has nothing to report.
    fn validate_map(map: &str) -> Vec<Diagnostic> {
        if map.trim().is_empty() {
            Vec::new()
        } else {
            data::validate(map)
        }
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
    ) -> Result<HonshuGame, SetupError> {
        let deck = Deck::of_setup(&setup.map)?;
        let state = engine::new_game(deck, Settings::from_options(options), setup.seats, table)?;
        Ok(HonshuGame { state })
    }

    fn restore(bytes: &[u8]) -> Result<HonshuGame, String> {
        sdk::snapshot::read(bytes).map(|state| HonshuGame { state })
    }
}

impl sdk::Game for HonshuGame {
    sdk::decided_by_offers!();

    fn view(&self, viewer: Viewer) -> String {
        view::view(&self.state, viewer).to_string()
    }

    fn render(&self, viewer: Viewer) -> Vec<BoardPart> {
        render::render(&self.state, viewer)
    }

    fn result(&self) -> Option<GameResult> {
        view::result(&self.state)
    }

    fn snapshot(&self) -> Vec<u8> {
        sdk::snapshot::write(&self.state)
    }

    fn determinize(&self, seat: Seat, table: &mut dyn Table) -> Self {
        HonshuGame {
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

sdk::register_ruleset!(Honshu);
