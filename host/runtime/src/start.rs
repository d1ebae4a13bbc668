//! Starting and resuming a game of a loaded ruleset, in the adapter its kind needs.

use std::sync::Arc;

use sdk::{Setup, SetupError};

use crate::component::WasmGame;
use crate::failure::CallError;
use crate::limits::deadline_ticks;
use crate::native::NativeGame;
use crate::ruleset::{LoadedRuleset, RulesetKind};
use crate::running::{Budget, RunningGame};
use crate::table::GameTable;

impl LoadedRuleset {
    /// Starts a game from its setup (or from a position file): a running game, or the
    /// ruleset's refusal of the setup.
    pub fn start(
        self: &Arc<Self>,
        setup: &Setup,
        position: Option<&str>,
        table: GameTable,
    ) -> Result<Result<Box<dyn RunningGame>, SetupError>, CallError> {
        match &self.kind {
            RulesetKind::Native(native) => {
                Ok(
                    NativeGame::create(self.clone(), native.as_ref(), setup, position, table)?
                        .map(|game| Box::new(game) as Box<dyn RunningGame>),
                )
            }
            RulesetKind::Wasm(wasm) => {
                let (store, instance) = wasm.instantiate(&self.info.id, table, &self.limits)?;
                let created = WasmGame::create(self.clone(), store, instance, setup, position)?;
                Ok(created.map(|game| Box::new(game) as Box<dyn RunningGame>))
            }
        }
    }

    /// Resumes a game from its snapshot bytes and table.
    pub fn resume(
        self: &Arc<Self>,
        bytes: &[u8],
        table: GameTable,
        budget: Budget,
    ) -> Result<Box<dyn RunningGame>, CallError> {
        match &self.kind {
            RulesetKind::Native(native) => Ok(Box::new(NativeGame::restore(
                self.clone(),
                native.as_ref(),
                bytes,
                table,
            )?)),
            RulesetKind::Wasm(wasm) => {
                let (mut store, instance) = wasm.instantiate(&self.info.id, table, &self.limits)?;
                if budget == Budget::Recovery {
                    store
                        .set_fuel(self.limits.recovery_fuel)
                        .expect("the runtime's engine consumes fuel");
                    store.set_epoch_deadline(deadline_ticks(self.limits.recovery_deadline));
                    store.data_mut().shared_budget = true;
                }
                Ok(Box::new(WasmGame::restore(
                    self.clone(),
                    store,
                    instance,
                    bytes,
                )?))
            }
        }
    }
}
