//! Running a ruleset natively, without WebAssembly: the same calls as a component, on a
//! [`sdk::native::DynRuleset`], for tests and for measuring what the sandbox costs.
//!
//! A native ruleset is trusted code: it has no fuel or memory limit. A panic is still caught
//! and reported as a failed call, like a trap.

use std::panic::{AssertUnwindSafe, catch_unwind};

use anyhow::Result;

use sdk::native::{DynGame, DynRuleset};
use sdk::{Action, Event, GameResult, PendingDecision, Rejection, Seat, Setup, SetupError, Viewer};

use crate::runtime::{FailureCause, call_failed};
use crate::table::GameTable;

/// One game of a native ruleset, with its table.
pub(crate) struct NativeGame {
    pub(crate) game: Box<dyn DynGame>,
    pub(crate) table: GameTable,
}

/// Runs `f`, turning a panic or a table misuse into an error naming the call.
fn guarded<R>(
    ruleset: &str,
    call: &str,
    table: &mut GameTable,
    f: impl FnOnce(&mut GameTable) -> R,
) -> Result<R> {
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
        )),
        (Err(payload), _) => Err(call_failed(
            ruleset,
            call,
            FailureCause::Panic {
                message: panic_message(payload.as_ref()),
            },
        )),
    }
}

/// The message of a caught panic, when it has one.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}

impl NativeGame {
    pub(crate) fn create(
        ruleset: &dyn DynRuleset,
        id: &str,
        setup: &Setup,
        position: Option<&str>,
        mut table: GameTable,
    ) -> Result<Result<NativeGame, SetupError>> {
        let created = guarded(id, "create", &mut table, |table| match position {
            Some(position) => ruleset.create_from_position(setup, position, table),
            None => ruleset.create(setup, table),
        })?;
        Ok(created.map(|game| NativeGame { game, table }))
    }

    pub(crate) fn restore(
        ruleset: &dyn DynRuleset,
        id: &str,
        bytes: &[u8],
        mut table: GameTable,
    ) -> Result<NativeGame> {
        let game =
            guarded(id, "restore", &mut table, |_| ruleset.restore(bytes))?.map_err(|e| {
                call_failed(
                    id,
                    "restore",
                    FailureCause::Fault {
                        detail: format!("it could not restore its snapshot: {e}"),
                    },
                )
            })?;
        Ok(NativeGame { game, table })
    }

    pub(crate) fn pending(&mut self, id: &str) -> Result<Vec<PendingDecision>> {
        let game = &self.game;
        guarded(id, "pending", &mut self.table, |_| game.pending())
    }

    pub(crate) fn apply(
        &mut self,
        id: &str,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<Event>, Rejection>> {
        let game = &mut self.game;
        guarded(id, "apply", &mut self.table, |table| {
            game.apply(seat, action, table)
        })
    }

    pub(crate) fn view(&mut self, id: &str, viewer: Viewer) -> Result<String> {
        let game = &self.game;
        guarded(id, "view", &mut self.table, |_| game.view(viewer))
    }

    pub(crate) fn render(&mut self, id: &str, viewer: Viewer) -> Result<Vec<sdk::BoardPart>> {
        let game = &self.game;
        guarded(id, "render", &mut self.table, |_| game.render(viewer))
    }

    pub(crate) fn preview(
        &mut self,
        id: &str,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<sdk::PreviewNote>, Rejection>> {
        let game = &self.game;
        guarded(id, "preview", &mut self.table, |_| {
            game.preview(seat, action)
        })
    }

    pub(crate) fn result(&mut self, id: &str) -> Result<Option<GameResult>> {
        let game = &self.game;
        guarded(id, "final-result", &mut self.table, |_| game.result())
    }

    pub(crate) fn snapshot(&mut self, id: &str) -> Result<Vec<u8>> {
        let game = &self.game;
        guarded(id, "snapshot", &mut self.table, |_| game.snapshot())
    }

    pub(crate) fn evaluate(&mut self, id: &str, seat: Seat) -> Result<Option<f64>> {
        let game = &self.game;
        guarded(id, "evaluate", &mut self.table, |_| game.evaluate(seat))
    }

    /// The determinized copy as snapshot bytes, drawn from `table`.
    pub(crate) fn determinize(
        &mut self,
        id: &str,
        seat: Seat,
        table: &mut GameTable,
    ) -> Result<Vec<u8>> {
        let game = &self.game;
        let copy = guarded(id, "determinize", table, |table| {
            game.determinize(seat, table)
        })?;
        guarded(id, "snapshot", table, |_| copy.snapshot())
    }
}
