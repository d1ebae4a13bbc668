//! The object-safe form of a ruleset, shared by the component glue and the host's native runner.
//!
//! The adapter is where the SDK keeps its promises to the host whatever the author wrote:
//! options are checked against the schema before `create`, an action is checked against the
//! seat's pending decision before `apply`, and a rejected action leaves the game unchanged.

use std::marker::PhantomData;

use crate::{
    Action, BoardPart, Catalogue, Diagnostic, Event, Game, GameResult, MapEditor, Options,
    PendingDecision, PreviewNote, Rejection, Ruleset, RulesetInfo, Seat, Setup, SetupError, Table,
    Viewer, check_answer, check_draft_shape,
};

/// A ruleset behind a trait object.
pub trait DynRuleset: Send + Sync {
    /// See [`Ruleset::info`].
    fn info(&self) -> RulesetInfo;
    /// See [`Ruleset::validate_map`].
    fn validate_map(&self, map: &str) -> Vec<Diagnostic>;
    /// The catalogue of a language as (key, template) pairs; empty if not shipped or unreadable.
    fn catalogue(&self, language: &str) -> Vec<(String, String)>;
    /// See [`Ruleset::map_editor`].
    fn map_editor(&self) -> Option<MapEditor>;
    /// See [`Ruleset::create`]; options are resolved here.
    fn create(&self, setup: &Setup, table: &mut dyn Table) -> Result<Box<dyn DynGame>, SetupError>;
    /// See [`Ruleset::create_from_position`].
    fn create_from_position(
        &self,
        setup: &Setup,
        position: &str,
        table: &mut dyn Table,
    ) -> Result<Box<dyn DynGame>, SetupError>;
    /// See [`Ruleset::restore`].
    fn restore(&self, bytes: &[u8]) -> Result<Box<dyn DynGame>, String>;
}

/// A game behind a trait object.
pub trait DynGame: Send {
    /// See [`Game::pending`].
    fn pending(&self) -> Vec<PendingDecision>;
    /// See [`Game::answer`], which checks the action first; rolls back a rejection.
    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection>;
    /// See [`Game::view`].
    fn view(&self, viewer: Viewer) -> String;
    /// See [`Game::render`].
    fn render(&self, viewer: Viewer) -> Vec<BoardPart>;
    /// See [`Game::preview`]; checks the draft action's shape first.
    fn preview(&self, seat: Seat, action: &Action) -> Result<Vec<PreviewNote>, Rejection>;
    /// See [`Game::result`].
    fn result(&self) -> Option<GameResult>;
    /// See [`Game::snapshot`].
    fn snapshot(&self) -> Vec<u8>;
    /// See [`Game::determinize`].
    fn determinize(&self, seat: Seat, table: &mut dyn Table) -> Box<dyn DynGame>;
    /// See [`Game::evaluate`].
    fn evaluate(&self, seat: Seat) -> Option<f64>;
    /// See [`Game::rollout_action`].
    fn rollout_action(&self, seat: Seat, salt: u64) -> Option<Action>;
}

/// Wraps a [`Ruleset`] type as a [`DynRuleset`].
pub fn adapt<R: Ruleset>() -> Box<dyn DynRuleset>
where
    R::Game: Send,
{
    Box::new(Adapter::<R>(PhantomData))
}

struct Adapter<R>(PhantomData<fn() -> R>);

fn resolve_options<R: Ruleset>(setup: &Setup) -> Result<Options, SetupError> {
    Options::resolve(&R::info().options, &setup.options)
        .map_err(|e| SetupError::Option(e.option().to_owned(), e.to_string()))
}

fn check_seats<R: Ruleset>(setup: &Setup) -> Result<(), SetupError> {
    let info = R::info();
    if setup.seats < info.min_seats || setup.seats > info.max_seats {
        return Err(SetupError::SeatCount(format!(
            "{} needs {} to {} seats, not {}",
            info.name, info.min_seats, info.max_seats, setup.seats
        )));
    }
    Ok(())
}

impl<R: Ruleset> DynRuleset for Adapter<R>
where
    R::Game: Send,
{
    fn info(&self) -> RulesetInfo {
        R::info()
    }

    fn validate_map(&self, map: &str) -> Vec<Diagnostic> {
        R::validate_map(map)
    }

    fn catalogue(&self, language: &str) -> Vec<(String, String)> {
        R::catalogue(language)
            .and_then(|text| Catalogue::from_toml(text).ok())
            .map(|c| {
                c.pairs()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn map_editor(&self) -> Option<MapEditor> {
        R::map_editor()
    }

    fn create(&self, setup: &Setup, table: &mut dyn Table) -> Result<Box<dyn DynGame>, SetupError> {
        check_seats::<R>(setup)?;
        let options = resolve_options::<R>(setup)?;
        Ok(Box::new(R::create(setup, &options, table)?))
    }

    fn create_from_position(
        &self,
        setup: &Setup,
        position: &str,
        table: &mut dyn Table,
    ) -> Result<Box<dyn DynGame>, SetupError> {
        check_seats::<R>(setup)?;
        let options = resolve_options::<R>(setup)?;
        Ok(Box::new(R::create_from_position(
            setup, &options, position, table,
        )?))
    }

    fn restore(&self, bytes: &[u8]) -> Result<Box<dyn DynGame>, String> {
        Ok(Box::new(R::restore(bytes)?))
    }
}

impl<G: Game + Send> DynGame for G {
    fn pending(&self) -> Vec<PendingDecision> {
        Game::pending(self)
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        let before = self.clone();
        let outcome = Game::answer(self, seat, action, table);
        if outcome.is_err() {
            *self = before;
        }
        outcome
    }

    fn view(&self, viewer: Viewer) -> String {
        Game::view(self, viewer)
    }

    fn render(&self, viewer: Viewer) -> Vec<BoardPart> {
        Game::render(self, viewer)
    }

    fn preview(&self, seat: Seat, action: &Action) -> Result<Vec<PreviewNote>, Rejection> {
        let pending = Game::pending(self);
        let decision = pending
            .iter()
            .find(|d| d.seat == seat)
            .ok_or(Rejection::NotYourTurn)?;
        if *action == Action::Back {
            // Going back costs nothing and skips nothing: there is nothing to preview.
            return check_answer(decision, action).map(|()| Vec::new());
        }
        check_draft_shape(&decision.kind, action)?;
        Game::preview(self, seat, action)
    }

    fn result(&self) -> Option<GameResult> {
        Game::result(self)
    }

    fn snapshot(&self) -> Vec<u8> {
        Game::snapshot(self)
    }

    fn determinize(&self, seat: Seat, table: &mut dyn Table) -> Box<dyn DynGame> {
        Box::new(Game::determinize(self, seat, table))
    }

    fn evaluate(&self, seat: Seat) -> Option<f64> {
        Game::evaluate(self, seat)
    }

    fn rollout_action(&self, seat: Seat, salt: u64) -> Option<Action> {
        Game::rollout_action(self, seat, salt)
    }
}
