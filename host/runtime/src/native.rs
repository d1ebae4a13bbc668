//! Running a ruleset natively, without WebAssembly: the same calls as a component, on a
//! [`sdk::native::DynRuleset`], for tests and for measuring what the sandbox costs.
//!
//! A native ruleset is trusted code: it has no fuel or memory limit. A panic is still caught
//! and reported as a failed call, like a trap.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use sdk::native::{DynGame, DynRuleset};
use sdk::{
    Action, BoardPart, Event, GameResult, PendingDecision, PreviewNote, Rejection, Seat, Setup,
    SetupError, Viewer,
};

use crate::failure::{CallError, FailureCause, panic_message};
use crate::ruleset::{LoadedRuleset, RulesetKind, call_failed};
use crate::running::RunningGame;
use crate::table::GameTable;

/// The native adapter: one game of a native ruleset, with its table.
pub(crate) struct NativeGame {
    ruleset: Arc<LoadedRuleset>,
    game: Box<dyn DynGame>,
    table: GameTable,
}

/// Runs `f`, turning a panic or a table misuse into an error naming the call.
fn guarded<R>(
    ruleset: &str,
    call: &str,
    table: &mut GameTable,
    f: impl FnOnce(&mut GameTable) -> R,
) -> Result<R, CallError> {
    let outcome = catch_unwind(AssertUnwindSafe(|| f(table)));
    let fault = table.take_fault();
    match (outcome, fault) {
        (Ok(value), None) => Ok(value),
        (Ok(_), Some(fault)) => Err(call_failed(
            ruleset,
            call,
            FailureCause::Fault {
                detail: fault.to_string(),
            },
        )
        .into()),
        (Err(payload), _) => Err(call_failed(
            ruleset,
            call,
            FailureCause::Panic {
                message: panic_message(payload.as_ref()),
            },
        )
        .into()),
    }
}

impl NativeGame {
    pub(crate) fn create(
        ruleset: Arc<LoadedRuleset>,
        source: &dyn DynRuleset,
        setup: &Setup,
        position: Option<&str>,
        mut table: GameTable,
    ) -> Result<Result<NativeGame, SetupError>, CallError> {
        let created = guarded(
            &ruleset.info.id,
            "create",
            &mut table,
            |table| match position {
                Some(position) => source.create_from_position(setup, position, table),
                None => source.create(setup, table),
            },
        )?;
        Ok(created.map(|game| NativeGame {
            ruleset,
            game,
            table,
        }))
    }

    pub(crate) fn restore(
        ruleset: Arc<LoadedRuleset>,
        source: &dyn DynRuleset,
        bytes: &[u8],
        mut table: GameTable,
    ) -> Result<NativeGame, CallError> {
        let id = &ruleset.info.id;
        let game = guarded(id, "restore", &mut table, |_| source.restore(bytes))?.map_err(|e| {
            call_failed(
                id,
                "restore",
                FailureCause::Fault {
                    detail: format!("it could not restore its snapshot: {e}"),
                },
            )
        })?;
        Ok(NativeGame {
            ruleset,
            game,
            table,
        })
    }

    /// Runs one call of the game under the panic guard.
    fn call<R>(
        &mut self,
        call: &str,
        f: impl FnOnce(&mut dyn DynGame, &mut GameTable) -> R,
    ) -> Result<R, CallError> {
        let game = &mut self.game;
        guarded(&self.ruleset.info.id, call, &mut self.table, |table| {
            f(game.as_mut(), table)
        })
    }
}

impl RunningGame for NativeGame {
    fn table(&mut self) -> &mut GameTable {
        &mut self.table
    }

    fn pending(&mut self) -> Result<Vec<PendingDecision>, CallError> {
        let pending = self.call("pending", |game, _| game.pending())?;
        self.ruleset.checked_pending(pending)
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<Event>, Rejection>, CallError> {
        let outcome = self.call("apply", |game, table| game.apply(seat, action, table))?;
        self.ruleset.checked_events(outcome)
    }

    fn view(&mut self, viewer: Viewer) -> Result<String, CallError> {
        let text = self.call("view", |game, _| game.view(viewer))?;
        self.ruleset.checked_view(text)
    }

    fn render(&mut self, viewer: Viewer) -> Result<Vec<BoardPart>, CallError> {
        let parts = self.call("render", |game, _| game.render(viewer))?;
        self.ruleset.checked_board(parts)
    }

    fn preview(
        &mut self,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<PreviewNote>, Rejection>, CallError> {
        let outcome = self.call("preview", |game, _| game.preview(seat, action))?;
        self.ruleset.checked_notes(outcome)
    }

    fn evaluate(&mut self, seat: Seat) -> Result<Option<f64>, CallError> {
        self.call("evaluate", |game, _| game.evaluate(seat))
    }

    fn rollout_action(&mut self, seat: Seat, salt: u64) -> Result<Option<Action>, CallError> {
        self.call("rollout-action", |game, _| game.rollout_action(seat, salt))
    }

    fn result(&mut self) -> Result<Option<GameResult>, CallError> {
        let result = self.call("final-result", |game, _| game.result())?;
        self.ruleset.checked_result(result)
    }

    fn snapshot(&mut self) -> Result<Vec<u8>, CallError> {
        let bytes = self.call("snapshot", |game, _| game.snapshot())?;
        self.ruleset.checked_snapshot(bytes)
    }

    fn determinize(&mut self, seat: Seat, table: &mut GameTable) -> Result<Vec<u8>, CallError> {
        let id = &self.ruleset.info.id;
        let game = &self.game;
        let copy = guarded(id, "determinize", table, |table| {
            game.determinize(seat, table)
        })?;
        let bytes = guarded(id, "snapshot", table, |_| copy.snapshot())?;
        self.ruleset.checked_snapshot(bytes)
    }

    fn reload(&mut self, bytes: &[u8], table: GameTable) -> Result<(), CallError> {
        let RulesetKind::Native(source) = &self.ruleset.kind else {
            unreachable!("a native game belongs to a native ruleset");
        };
        *self = NativeGame::restore(self.ruleset.clone(), source.as_ref(), bytes, table)?;
        Ok(())
    }

    fn end_shared_budget(&mut self) {}
}
