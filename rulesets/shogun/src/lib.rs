//! Shogun for 3-5 players: the reference ruleset of Tenka.
//!
//! The shape follows shakmaty: plain data ([`data::Board`], a position file) goes through a
//! constructor into a validated [`state::State`]; the rules are pure functions over that state
//! ([`engine`]), and every decision a player takes goes through the contract's pending decisions
//! ([`decide`]). The rules as implemented are written up in `docs/rules/shogun.md`.

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
    Action, BoardPart, Diagnostic, Event, GameResult, MapInfo, Message, NoteLevel, OptionSpec,
    Options, PartKind, PendingDecision, Placing, PreviewNote, Rejection, RulesetInfo, Seat, Setup,
    SetupError, Table, Viewer,
};

use crate::data::Board;
use crate::state::{Settings, State};

/// The English message catalogue: every key the ruleset emits.
pub const CATALOGUE_EN: &str = include_str!("../i18n/en.toml");

/// The Shogun ruleset.
pub struct Shogun;

/// A game of Shogun in progress.
#[derive(Clone, Debug, PartialEq)]
pub struct ShogunGame {
    /// The whole state.
    pub state: State,
}

/// Reads the map of a setup, or says why it cannot be played.
pub fn read_board(map: &str) -> Result<Board, SetupError> {
    match Board::from_toml(map) {
        Ok((board, _warnings)) => Ok(board),
        Err(diagnostics) => Err(SetupError::Map(diagnostics)),
    }
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
            maps: vec![
                MapInfo {
                    id: "sun".into(),
                    name: Message::new("map.sun"),
                },
                MapInfo {
                    id: "moon".into(),
                    name: Message::new("map.moon"),
                },
            ],
            options: vec![
                OptionSpec::choice("setup", ["draft", "beginner"], "draft"),
                OptionSpec::integer("years", 1, 2, 2),
                OptionSpec::boolean("events", true),
                OptionSpec::decimal("tower-lodge-chance", 0.0, 1.0, state::DEFAULT_LODGE_CHANCE),
                OptionSpec::decimal(
                    "tower-release-chance",
                    0.0,
                    1.0,
                    state::DEFAULT_RELEASE_CHANCE,
                ),
                OptionSpec::integer("rice-cap", 0, 99, 0),
                OptionSpec::choice(
                    "event-deck",
                    data::event_deck_choices(),
                    data::STANDARD_EVENT_DECK,
                ),
            ],
            languages: vec!["en".into(), "es".into(), "de".into(), "ro".into()],
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
    ) -> Result<ShogunGame, SetupError> {
        let mut board = read_board(&setup.map)?;
        board.use_event_deck(options.choice("event-deck"))?;
        let (state, _log) =
            engine::new_game(board, Settings::from_options(options), setup.seats, table)?;
        Ok(ShogunGame { state })
    }

    fn create_from_position(
        setup: &Setup,
        options: &Options,
        position: &str,
        table: &mut dyn Table,
    ) -> Result<ShogunGame, SetupError> {
        let mut board = read_board(&setup.map)?;
        board.use_event_deck(options.choice("event-deck"))?;
        let state = position::from_position(
            board,
            Settings::from_options(options),
            setup.seats,
            position,
            table,
        )?;
        Ok(ShogunGame { state })
    }

    fn restore(bytes: &[u8]) -> Result<ShogunGame, String> {
        postcard::from_bytes(bytes)
            .map(|state| ShogunGame { state })
            .map_err(|e| format!("not a Shogun snapshot: {e}"))
    }
}

impl ShogunGame {
    /// Applies one seat's answer as [`sdk::Game::apply`] does, and returns what happened as typed
    /// outcomes as well as the events that tell them (for tests and native callers; the contract
    /// carries the events only).
    pub fn play(
        &mut self,
        seat: Seat,
        action: &Action,
        table: &mut dyn Table,
    ) -> Result<outcome::Log, Rejection> {
        decide::play(&mut self.state, seat, action, table)
    }
}

impl sdk::Game for ShogunGame {
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
            .into_iter()
            .map(|part| BoardPart {
                id: part.id,
                kind: match part.kind {
                    render::Kind::Map => PartKind::Map,
                    render::Kind::Seat(seat) => PartKind::Seat(seat),
                    render::Kind::Table => PartKind::Table,
                },
                title: part.title,
                svg: part.svg,
            })
            .collect()
    }

    fn preview(&self, seat: Seat, action: &Action) -> Result<Vec<PreviewNote>, Rejection> {
        Ok(decide::preview(&self.state, seat, action)?
            .into_iter()
            .map(|note| PreviewNote {
                level: match note.level {
                    preview::Level::Info => NoteLevel::Info,
                    preview::Level::Warning => NoteLevel::Warning,
                },
                text: note.text,
            })
            .collect())
    }

    fn result(&self) -> Option<GameResult> {
        final_result(&self.state)
    }

    fn snapshot(&self) -> Vec<u8> {
        postcard::to_allocvec(&self.state).unwrap_or_default()
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

/// The result of a finished game: most VP first, then most chests (decision 27); seats equal on
/// both share the place.
pub fn final_result(state: &State) -> Option<GameResult> {
    if !state.is_over() {
        return None;
    }
    let key = |s: Seat| {
        let p = &state.players[s as usize];
        (i64::from(p.vp), i64::from(p.chests))
    };
    let mut seats: Vec<Seat> = (0..state.seats).collect();
    seats.sort_by(|&a, &b| key(b).cmp(&key(a)).then(a.cmp(&b)));
    let mut placings: Vec<Placing> = Vec::new();
    for (i, &seat) in seats.iter().enumerate() {
        let rank = match placings.last() {
            Some(last) if key(last.seat) == key(seat) => last.rank,
            _ => i as u32 + 1,
        };
        let (score, chests) = key(seat);
        placings.push(Placing {
            seat,
            rank,
            score,
            tie_breaks: vec![chests],
        });
    }
    let winners: Vec<&Placing> = placings.iter().filter(|p| p.rank == 1).collect();
    let summary = if winners.len() > 1 {
        Message::new("summary.shared")
            .number("vp", winners[0].score)
            .number("chests", winners[0].tie_breaks[0])
    } else if placings.len() > 1 && placings[1].score == placings[0].score {
        Message::new("summary.chests")
            .seat("player", placings[0].seat)
            .number("vp", placings[0].score)
    } else {
        Message::new("summary.vp")
            .seat("player", placings[0].seat)
            .number("vp", placings[0].score)
    };
    Some(GameResult {
        placings,
        breakdown: state.score_lines.clone(),
        summary,
    })
}

sdk::register_ruleset!(Shogun);
