//! A bot's scratch game: a determinized copy of a real game ([`Session::determinize`]) played
//! forward to judge a move. Nothing of it is recorded and nothing is recovered: a failed call
//! leaves it unusable until the next [`ScratchGame::replace`], and the real game is never
//! touched.
//!
//! [`Session::determinize`]: crate::session::Session::determinize

use std::sync::Arc;

use sdk::{Action, BoardPart, GameResult, PendingDecision, Seat, Viewer};
use tenka_runtime::{Budget, LoadedRuleset, RunningGame};

use crate::session::{
    Determinized, SessionError, apply_keeping_the_table, evaluate_keeping_the_table, pending_once,
    refuse_back_without_a_way,
};

/// A determinized game a bot plays on, reusing one instance across determinizations.
pub struct ScratchGame {
    ruleset: Arc<LoadedRuleset>,
    /// `None` after a failed call, until the next [`ScratchGame::replace`].
    running: Option<Box<dyn RunningGame>>,
    pending: Option<Vec<PendingDecision>>,
    seats: u32,
}

impl std::fmt::Debug for ScratchGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScratchGame")
            .field("ruleset", &self.ruleset.info().id)
            .finish_non_exhaustive()
    }
}

impl ScratchGame {
    /// A scratch game playing `determinized`.
    pub fn new(
        ruleset: Arc<LoadedRuleset>,
        determinized: Determinized,
    ) -> Result<ScratchGame, SessionError> {
        let seats = determinized.seats;
        let running = ruleset.resume(&determinized.game, determinized.table, Budget::PerCall)?;
        Ok(ScratchGame {
            ruleset,
            running: Some(running),
            pending: None,
            seats,
        })
    }

    /// Plays another determinized game from now on, reusing the instance when there is one.
    pub fn replace(&mut self, determinized: Determinized) -> Result<(), SessionError> {
        self.pending = None;
        self.seats = determinized.seats;
        let reloaded = match self.running.as_mut() {
            Some(running) => running.reload(&determinized.game, determinized.table),
            None => self
                .ruleset
                .resume(&determinized.game, determinized.table, Budget::PerCall)
                .map(|running| {
                    self.running = Some(running);
                }),
        };
        if reloaded.is_err() {
            self.running = None;
        }
        Ok(reloaded?)
    }

    /// Runs a call; a failed one leaves the scratch game without a running game.
    fn with_game<R>(
        &mut self,
        f: impl FnOnce(&mut dyn RunningGame) -> Result<R, tenka_runtime::CallError>,
    ) -> Result<R, SessionError> {
        let Some(running) = self.running.as_mut() else {
            return Err(SessionError::Mismatch(
                "a scratch game that failed cannot be played on: replace it with a new \
                 determinized game"
                    .to_owned(),
            ));
        };
        let outcome = f(running.as_mut());
        if outcome.is_err() {
            self.running = None;
            self.pending = None;
        }
        Ok(outcome?)
    }

    /// The decisions the game waits for; empty once it is over.
    pub fn pending(&mut self) -> Result<Vec<PendingDecision>, SessionError> {
        pending_once(
            self,
            |scratch| &mut scratch.pending,
            |scratch| scratch.with_game(|game| game.pending()),
        )
    }

    /// Applies one seat's answer; a rejected one changes nothing.
    pub fn apply(&mut self, seat: Seat, action: &Action) -> Result<(), SessionError> {
        if *action == Action::Back {
            refuse_back_without_a_way(&self.pending()?, seat, action)?;
        }
        self.with_game(|game| apply_keeping_the_table(game, seat, action))?
            .map_err(SessionError::Rejected)?;
        self.pending = None;
        Ok(())
    }

    /// The ruleset's estimate for `seat` in `0.0..=1.0`, when it gives one.
    pub fn evaluate(&mut self, seat: Seat) -> Result<Option<f64>, SessionError> {
        self.with_game(|game| evaluate_keeping_the_table(game, seat))
    }

    /// The ruleset's quick answer to `seat`'s pending decision (its rollout policy), varied by
    /// `salt`; none when it gives none, when `seat` is not pending, or when the answer does not
    /// fit the decision's shape (or goes back): the bot then answers at random. The table is
    /// kept as it was, as for [`ScratchGame::evaluate`].
    pub fn rollout_action(
        &mut self,
        seat: Seat,
        salt: u64,
    ) -> Result<Option<Action>, SessionError> {
        let pending = self.pending()?;
        let Some(decision) = pending.iter().find(|decision| decision.seat == seat) else {
            return Ok(None);
        };
        let suggested = self.with_game(|game| {
            let table = game.table().clone();
            let suggested = game.rollout_action(seat, salt);
            *game.table() = table;
            suggested
        })?;
        Ok(suggested.filter(|action| {
            *action != Action::Back && sdk::check_action_shape(&decision.kind, action).is_ok()
        }))
    }

    /// The real game's seats.
    pub fn seats(&self) -> u32 {
        self.seats
    }

    /// Every seat's estimate from the ruleset's `evaluate`, seat by seat, or none as soon as
    /// one seat gets none (a ruleset that gives no estimate, or none in this position).
    pub fn estimates(&mut self) -> Result<Option<Vec<f64>>, SessionError> {
        let mut estimates = Vec::with_capacity(self.seats as usize);
        for seat in 0..self.seats {
            match self.evaluate(seat)? {
                Some(value) => estimates.push(value),
                None => return Ok(None),
            }
        }
        Ok(Some(estimates))
    }

    /// The state as `viewer` may see it: what a determinized game must show a seat exactly
    /// as the real one does.
    pub fn view(&mut self, viewer: Viewer) -> Result<String, SessionError> {
        self.with_game(|game| game.view(viewer))
    }

    /// The board as `viewer` sees it, sanitised as a session's is.
    pub fn render(&mut self, viewer: Viewer) -> Result<Vec<BoardPart>, SessionError> {
        let parts = self.with_game(|game| game.render(viewer))?;
        Ok(tenka_runtime::svg_sanitizer::sanitize_board(
            &self.ruleset.info().id,
            parts,
        ))
    }

    /// The result, once the game is over.
    pub fn result(&mut self) -> Result<Option<GameResult>, SessionError> {
        self.with_game(|game| game.result())
    }
}
