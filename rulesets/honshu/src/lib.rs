//! Honshu for 2-5 players: a trick decides who picks which map card, and each player builds a
//! personal map from the cards picked. The second ruleset of Tenka, and the test of its promise
//! that a new game is a plugin plus data.
//!
//! Same shape as Shogun: data ([`data::Deck`], from `maps/honshu/deck.toml`) goes into a plain
//! [`state::State`]; the rules are functions over it ([`engine`]); what each seat is asked and
//! how its answer applies is [`decide`]; [`view`] and [`render`] show each viewer only what it
//! may know. The rules as implemented are written up in `docs/rules/honshu.md`.
//!
//! Honshu has no shared board: its `info().maps` is empty and a game takes no map. The deck is
//! compiled in; a setup that does carry a deck file (same shape) plays with that deck instead.

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
    Action, BoardPart, Diagnostic, Event, GameResult, Message, OptionSpec, Options,
    PendingDecision, Placing, Rejection, RulesetInfo, ScoreLine, Seat, Setup, SetupError, Table,
    Viewer,
};

use crate::data::Deck;
use crate::state::{POINT_OPTIONS, SCORING_CARDS, Settings, State};

/// The English message catalogue: every key the ruleset emits.
pub const CATALOGUE_EN: &str = include_str!("../i18n/en.toml");

/// The Honshu ruleset.
pub struct Honshu;

/// A game of Honshu in progress.
#[derive(Clone, Debug, PartialEq)]
pub struct HonshuGame {
    /// The whole state.
    pub state: State,
}

/// The deck a setup plays with: the shipped one, or the deck file the setup carries.
pub fn deck_of(map_text: &str) -> Result<Deck, SetupError> {
    if map_text.trim().is_empty() {
        Ok(Deck::standard())
    } else {
        Deck::from_toml(map_text).map_err(SetupError::Map)
    }
}

impl sdk::Ruleset for Honshu {
    type Game = HonshuGame;

    fn info() -> RulesetInfo {
        let mut options = vec![
            OptionSpec::choice("province-side", ["a", "b"], "a"),
            OptionSpec::choice(
                "scoring-card",
                ["none", "random"]
                    .into_iter()
                    .chain(SCORING_CARDS.iter().map(|(name, _)| *name)),
                "none",
            ),
        ];
        options.extend(
            POINT_OPTIONS
                .iter()
                .map(|(name, default)| OptionSpec::integer(name, 0, 20, *default)),
        );
        RulesetInfo {
            id: "honshu".into(),
            name: "Honshu".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_seats: 2,
            max_seats: 5,
            maps: Vec::new(),
            options,
            languages: vec!["en".into(), "es".into(), "de".into(), "ro".into()],
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

    fn catalogue(language: &str) -> Option<&'static str> {
        match language {
            "en" => Some(CATALOGUE_EN),
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
    ) -> Result<HonshuGame, SetupError> {
        let deck = deck_of(&setup.map)?;
        let state = engine::new_game(deck, Settings::from_options(options), setup.seats, table)?;
        Ok(HonshuGame { state })
    }

    fn restore(bytes: &[u8]) -> Result<HonshuGame, String> {
        postcard::from_bytes(bytes)
            .map(|state| HonshuGame { state })
            .map_err(|e| format!("not a Honshu snapshot: {e}"))
    }
}

impl HonshuGame {
    /// Applies one seat's answer as [`sdk::Game::apply`] does, and returns what happened as typed
    /// outcomes as well as the events that tell them (for tests and native callers; the contract
    /// carries the events only).
    pub fn play(&mut self, seat: Seat, action: &Action) -> Result<outcome::Log, Rejection> {
        decide::play(&mut self.state, seat, action)
    }
}

impl sdk::Game for HonshuGame {
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
        render::render(&self.state, viewer)
    }

    fn result(&self) -> Option<GameResult> {
        final_result(&self.state)
    }

    fn snapshot(&self) -> Vec<u8> {
        postcard::to_allocvec(&self.state).unwrap_or_default()
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

/// The result of a finished game: most points first, then most visible fallow squares; seats
/// equal on both share the place.
pub fn final_result(state: &State) -> Option<GameResult> {
    if !state.is_over() {
        return None;
    }
    let key = |s: Seat| {
        let sheet = &state.scores[s as usize];
        (sheet.total, sheet.fallow)
    };
    let mut seats: Vec<Seat> = (0..state.seats).collect();
    seats.sort_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));
    let mut placings: Vec<Placing> = Vec::new();
    for (i, &seat) in seats.iter().enumerate() {
        let rank = match placings.last() {
            Some(last) if key(last.seat) == key(seat) => last.rank,
            _ => i as u32 + 1,
        };
        let (score, fallow) = key(seat);
        placings.push(Placing {
            seat,
            rank,
            score,
            tie_breaks: vec![fallow],
        });
    }
    let mut breakdown = Vec::new();
    for (seat, sheet) in state.scores.iter().enumerate() {
        for (label, points) in sheet.lines() {
            breakdown.push(ScoreLine {
                seat: seat as Seat,
                label: Message::new(label),
                points,
            });
        }
    }
    let winners = placings.iter().filter(|p| p.rank == 1).count();
    let summary = if winners > 1 {
        Message::new("summary.shared").number("points", placings[0].score)
    } else if placings.len() > 1 && placings[1].score == placings[0].score {
        Message::new("summary.fallow")
            .seat("player", placings[0].seat)
            .number("points", placings[0].score)
    } else {
        Message::new("summary.points")
            .seat("player", placings[0].seat)
            .number("points", placings[0].score)
    };
    Some(GameResult {
        placings,
        breakdown,
        summary,
    })
}

sdk::register_ruleset!(Honshu);
