//! The component adapter: a game of a ruleset component (any contract version, through
//! `bindings/`) in a store of its own, behind [`RunningGame`].

use std::sync::Arc;

use sdk::{
    Action, BoardPart, Event, GameResult, PendingDecision, PreviewNote, Rejection, Seat, Setup,
    SetupError, Viewer,
};
use wasmtime::Store;
use wasmtime::component::ResourceAny;

use crate::bindings::Instance;
use crate::failure::{CallError, FailureCause, RulesetFailure};
use crate::ruleset::{LoadedRuleset, call_failed, describe_failure, set_call_budget};
use crate::running::RunningGame;
use crate::store::StoreState;
use crate::table::GameTable;

/// The component adapter: one game of a component of any contract version, in its own store.
pub(crate) struct WasmGame {
    ruleset: Arc<LoadedRuleset>,
    store: Store<StoreState>,
    instance: Instance,
    game: ResourceAny,
}

impl WasmGame {
    /// Creates a game in a fresh instance: the game, or the ruleset's refusal of the setup.
    pub(crate) fn create(
        ruleset: Arc<LoadedRuleset>,
        mut store: Store<StoreState>,
        instance: Instance,
        setup: &Setup,
        position: Option<&str>,
    ) -> Result<Result<WasmGame, SetupError>, CallError> {
        let created = call_in(&mut store, &instance, &ruleset, "create", |guest, store| {
            guest.create(store, setup, position)
        })?;
        Ok(created.map(|game| WasmGame {
            ruleset,
            store,
            instance,
            game,
        }))
    }

    /// Restores a game from its snapshot bytes in a fresh instance.
    pub(crate) fn restore(
        ruleset: Arc<LoadedRuleset>,
        mut store: Store<StoreState>,
        instance: Instance,
        bytes: &[u8],
    ) -> Result<WasmGame, CallError> {
        let game = restore_in(&mut store, &instance, &ruleset, bytes)?;
        Ok(WasmGame {
            ruleset,
            store,
            instance,
            game,
        })
    }

    fn call<R>(
        &mut self,
        call: &str,
        f: impl FnOnce(&Instance, &mut Store<StoreState>, ResourceAny) -> wasmtime::Result<R>,
    ) -> Result<R, CallError> {
        let game = self.game;
        call_in(
            &mut self.store,
            &self.instance,
            &self.ruleset,
            call,
            |guest, store| f(guest, store, game),
        )
    }
}

/// Runs one export in `store` under the call's budget (or the shared recovery budget), and
/// describes its failure.
fn call_in<R>(
    store: &mut Store<StoreState>,
    instance: &Instance,
    ruleset: &LoadedRuleset,
    call: &str,
    f: impl FnOnce(&Instance, &mut Store<StoreState>) -> wasmtime::Result<R>,
) -> Result<R, CallError> {
    if !store.data().shared_budget {
        set_call_budget(store, &ruleset.limits);
    }
    store.data_mut().start_call();
    let outcome = f(instance, store);
    outcome.map_err(|error| {
        describe_failure(&ruleset.info.id, call, error, store, &ruleset.limits).into()
    })
}

fn restore_in(
    store: &mut Store<StoreState>,
    instance: &Instance,
    ruleset: &LoadedRuleset,
    bytes: &[u8],
) -> Result<ResourceAny, CallError> {
    call_in(store, instance, ruleset, "restore", |guest, store| {
        guest.restore(store, bytes)
    })?
    .map_err(|e| {
        CallError::Failed(call_failed(
            &ruleset.info.id,
            "restore",
            FailureCause::Fault {
                detail: format!("it could not restore its snapshot: {e}"),
            },
        ))
    })
}

/// A failure of `call` the host itself noticed after the call returned.
fn host_fault(ruleset: &LoadedRuleset, call: &str, detail: String) -> CallError {
    CallError::Failed(RulesetFailure {
        ruleset: ruleset.info.id.clone(),
        call: call.to_owned(),
        cause: FailureCause::Fault { detail },
        game_failed: false,
    })
}

impl RunningGame for WasmGame {
    fn table(&mut self) -> &mut GameTable {
        &mut self.store.data_mut().table
    }

    fn pending(&mut self) -> Result<Vec<PendingDecision>, CallError> {
        let pending = self.call("pending", |g, s, game| g.pending(s, game))?;
        self.ruleset.checked_pending(pending)
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<Event>, Rejection>, CallError> {
        let outcome = self.call("apply", |g, s, game| g.apply(s, game, seat, action))?;
        self.ruleset.checked_events(outcome)
    }

    fn view(&mut self, viewer: Viewer) -> Result<String, CallError> {
        let text = self.call("view", |g, s, game| g.view(s, game, viewer))?;
        self.ruleset.checked_view(text)
    }

    fn render(&mut self, viewer: Viewer) -> Result<Vec<BoardPart>, CallError> {
        let parts = self.call("render", |g, s, game| g.render(s, game, viewer))?;
        self.ruleset.checked_board(parts)
    }

    fn preview(
        &mut self,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<PreviewNote>, Rejection>, CallError> {
        let outcome = self.call("preview", |g, s, game| g.preview(s, game, seat, action))?;
        self.ruleset.checked_notes(outcome)
    }

    fn evaluate(&mut self, seat: Seat) -> Result<Option<f64>, CallError> {
        self.call("evaluate", |g, s, game| g.evaluate(s, game, seat))
    }

    fn rollout_action(&mut self, seat: Seat, salt: u64) -> Result<Option<Action>, CallError> {
        self.call("rollout-action", |g, s, game| {
            g.rollout_action(s, game, seat, salt)
        })
    }

    fn result(&mut self) -> Result<Option<GameResult>, CallError> {
        let result = self.call("final-result", |g, s, game| g.final_result(s, game))?;
        self.ruleset.checked_result(result)
    }

    fn snapshot(&mut self) -> Result<Vec<u8>, CallError> {
        let bytes = self.call("snapshot", |g, s, game| g.snapshot(s, game))?;
        self.ruleset.checked_snapshot(bytes)
    }

    fn determinize(&mut self, seat: Seat, table: &mut GameTable) -> Result<Vec<u8>, CallError> {
        std::mem::swap(&mut self.store.data_mut().table, table);
        let outcome = self.call("determinize", |g, s, game| {
            let copy = g.determinize(&mut *s, game, seat)?;
            let bytes = g.snapshot(&mut *s, copy);
            copy.resource_drop(&mut *s)?;
            bytes
        });
        std::mem::swap(&mut self.store.data_mut().table, table);
        self.ruleset.checked_snapshot(outcome?)
    }

    fn reload(&mut self, bytes: &[u8], table: GameTable) -> Result<(), CallError> {
        self.store.data_mut().table = table;
        let game = restore_in(&mut self.store, &self.instance, &self.ruleset, bytes)?;
        let old = std::mem::replace(&mut self.game, game);
        old.resource_drop(&mut self.store)
            .map_err(|error| host_fault(&self.ruleset, "restore", error.to_string()))
    }

    fn end_shared_budget(&mut self) {
        self.store.data_mut().shared_budget = false;
    }
}
