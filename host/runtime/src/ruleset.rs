//! A loaded ruleset: its description, its stateless calls, the limits its calls run under, and
//! how a failed call is described.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use wasmtime::{Engine, PoolConcurrencyLimitError, Store};

use crate::bindings;
use crate::failure::{CallError, CapacityExhausted, FailureCause, RulesetFailure};
use crate::forbidden_imports::ForbiddenImportCalled;
use crate::limits::{GameLimiter, LimitHit, MemoryBudget, deadline_ticks};
use crate::panic_output;
pub(crate) use crate::store::StoreState;
use crate::table::GameTable;
use crate::{CallLimits, ContentHash};
use sdk::{BoardPart, Event, GameResult, PendingDecision, PreviewNote, Rejection};

/// A component ready to instantiate.
pub(crate) struct WasmRuleset {
    pub(crate) engine: Engine,
    pub(crate) pre: bindings::RulesetPre,
    /// The runtime's budget of all instances' memories together.
    pub(crate) memory: Arc<MemoryBudget>,
}

impl WasmRuleset {
    /// A new store for one game (or one stateless call) with its own instance from the pool.
    /// A full pool is a [`CapacityExhausted`]; a component that breaks a limit while it is
    /// instantiated (too many memories, a start function that loops) a [`RulesetFailure`].
    pub(crate) fn instantiate(
        &self,
        ruleset: &str,
        table: GameTable,
        limits: &CallLimits,
    ) -> Result<(Store<StoreState>, bindings::Instance), CallError> {
        if !self.memory.admits(limits.memory_bytes) {
            return Err(CallError::Capacity(CapacityExhausted {
                detail: format!(
                    "the rulesets' memories hold {} MiB of the server's {} MiB; another game \
                     may need {} MiB",
                    self.memory.used() >> 20,
                    self.memory.total() >> 20,
                    limits.memory_bytes >> 20
                ),
            }));
        }
        let mut store = Store::new(
            &self.engine,
            StoreState {
                table,
                limiter: GameLimiter::new(
                    limits.memory_bytes,
                    limits.max_instances as usize,
                    limits.max_memories as usize,
                    limits.max_tables as usize,
                    self.memory.clone(),
                ),
                shared_budget: false,
                panic_output: Vec::new(),
                drops_this_call: 0,
                log_lines_this_call: 0,
            },
        );
        store.limiter(|state| &mut state.limiter);
        store.epoch_deadline_trap();
        set_call_budget(&mut store, limits);
        match self.pre.instantiate(&mut store) {
            Ok(instance) => Ok((store, instance)),
            Err(error) => {
                if let Some(full) = error.downcast_ref::<PoolConcurrencyLimitError>() {
                    return Err(CallError::Capacity(CapacityExhausted {
                        detail: full.to_string(),
                    }));
                }
                Err(describe_failure(ruleset, "instantiate", error, &store, limits).into())
            }
        }
    }
}

/// Gives a store the fuel and the deadline of one call.
///
/// Setting fuel fails only on an engine built without fuel, which this runtime never builds.
pub(crate) fn set_call_budget(store: &mut Store<StoreState>, limits: &CallLimits) {
    store
        .set_fuel(limits.fuel_per_call)
        .expect("the runtime's engine consumes fuel");
    store.set_epoch_deadline(deadline_ticks(limits.deadline));
}

pub(crate) enum RulesetKind {
    Wasm(Arc<WasmRuleset>),
    Native(Box<dyn sdk::native::DynRuleset>),
}

/// A ruleset the runtime has loaded: a checked component, or a native ruleset in tests.
pub struct LoadedRuleset {
    pub(crate) info: sdk::RulesetInfo,
    pub(crate) hash: ContentHash,
    pub(crate) source: Option<PathBuf>,
    /// The component's bytes, kept so a server can archive the exact version its games run on.
    pub(crate) component: Option<Arc<[u8]>>,
    pub(crate) kind: RulesetKind,
    pub(crate) limits: CallLimits,
}

impl fmt::Debug for LoadedRuleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedRuleset")
            .field("id", &self.info.id)
            .field("hash", &self.hash)
            .field("source", &self.source)
            .finish()
    }
}

/// Turns the error of a failed call into a [`RulesetFailure`] that names the ruleset, the call
/// and the limit or fault that stopped it. The full error (with its WebAssembly backtrace) goes
/// to the log at debug level; the failure itself stays short enough to show a client.
pub(crate) fn describe_failure(
    ruleset: &str,
    call: &str,
    error: wasmtime::Error,
    store: &Store<StoreState>,
    limits: &CallLimits,
) -> RulesetFailure {
    let cause = failure_cause(&error, store.data(), limits);
    tracing::debug!("ruleset `{ruleset}` failed in `{call}`: {error:?}");
    RulesetFailure {
        ruleset: ruleset.to_owned(),
        call: call.to_owned(),
        cause,
        game_failed: false,
    }
}

fn failure_cause(error: &wasmtime::Error, state: &StoreState, limits: &CallLimits) -> FailureCause {
    if state.limiter.hit == Some(LimitHit::Bytes) {
        return FailureCause::Memory {
            bytes: limits.memory_bytes,
        };
    }
    if let Some(trap) = error.downcast_ref::<wasmtime::Trap>() {
        return match trap {
            wasmtime::Trap::OutOfFuel => FailureCause::Fuel {
                fuel: limits.fuel_per_call,
            },
            wasmtime::Trap::Interrupt => FailureCause::Deadline {
                millis: u64::try_from(limits.deadline.as_millis()).unwrap_or(u64::MAX),
            },
            wasmtime::Trap::StackOverflow => FailureCause::StackOverflow,
            // A Rust ruleset aborts with `unreachable` after its panic hook ran.
            wasmtime::Trap::UnreachableCodeReached if !state.panic_output.is_empty() => {
                FailureCause::Panic {
                    message: panic_output::panic_message(&state.panic_output),
                }
            }
            wasmtime::Trap::UnreachableCodeReached => FailureCause::Trap {
                trap: "unreachable executed (the ruleset panicked or aborted)".to_owned(),
            },
            other => FailureCause::Trap {
                trap: other.to_string(),
            },
        };
    }
    if let Some(called) = error.downcast_ref::<ForbiddenImportCalled>() {
        // Rust's standard library reaches for these only to print a panic's message (see
        // `panic_output`); a standard library that prints some other way ends up here.
        let import = called.import.as_str();
        let prints_a_panic = import.starts_with("wasi:cli/")
            && (import.contains("std") || import.contains("environment"))
            || import.starts_with("wasi:io/streams");
        if prints_a_panic {
            return FailureCause::Panic {
                message: panic_output::panic_message(&state.panic_output),
            };
        }
        return FailureCause::Fault {
            detail: called.to_string(),
        };
    }
    // What is left is a host service the ruleset misused (a tower drop too large, a random
    // range that is empty): the host's own message says what.
    FailureCause::Fault {
        detail: error.root_cause().to_string(),
    }
}

/// A failure of `call` that is not a trap: too large an output, a snapshot refused.
pub(crate) fn call_failed(ruleset: &str, call: &str, cause: FailureCause) -> RulesetFailure {
    RulesetFailure {
        ruleset: ruleset.to_owned(),
        call: call.to_owned(),
        cause,
        game_failed: false,
    }
}

impl LoadedRuleset {
    /// The ruleset's description.
    pub fn info(&self) -> &sdk::RulesetInfo {
        &self.info
    }

    /// The ruleset's content hash.
    pub fn hash(&self) -> ContentHash {
        self.hash.clone()
    }

    /// The component file it was loaded from; `None` for a native ruleset or one loaded from
    /// bytes.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// The component's bytes; `None` for a native ruleset.
    pub fn component_bytes(&self) -> Option<&[u8]> {
        self.component.as_deref()
    }

    /// Whether this is a native ruleset (tests) rather than a component.
    pub fn is_native(&self) -> bool {
        matches!(self.kind, RulesetKind::Native(_))
    }

    /// The limits its calls run under.
    pub fn limits(&self) -> &CallLimits {
        &self.limits
    }

    /// Runs a stateless export in a fresh instance.
    fn stateless<R>(
        &self,
        call: &str,
        f: impl FnOnce(&bindings::Instance, &mut Store<StoreState>) -> wasmtime::Result<R>,
        native: impl FnOnce(&dyn sdk::native::DynRuleset) -> R,
    ) -> Result<R, CallError> {
        match &self.kind {
            RulesetKind::Native(ruleset) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| native(ruleset.as_ref())))
                    .map_err(|payload| {
                        call_failed(
                            &self.info.id,
                            call,
                            FailureCause::Panic {
                                message: crate::failure::panic_message(payload.as_ref()),
                            },
                        )
                        .into()
                    })
            }
            RulesetKind::Wasm(wasm) => {
                let mut table = GameTable::new(&[0; 32]);
                table.log_enabled = false;
                let (mut store, instance) = wasm.instantiate(&self.info.id, table, &self.limits)?;
                f(&instance, &mut store).map_err(|error| {
                    describe_failure(&self.info.id, call, error, &store, &self.limits).into()
                })
            }
        }
    }

    /// Checks a map given as TOML text. An error means the ruleset failed, not the map.
    pub fn validate_map(&self, map_toml: &str) -> Result<Vec<sdk::Diagnostic>, CallError> {
        let diagnostics = self.stateless(
            "validate-map",
            |instance, store| instance.validate_map(store, map_toml),
            |ruleset| ruleset.validate_map(map_toml),
        )?;
        self.check_items("validate-map", diagnostics.len())?;
        Ok(diagnostics)
    }

    /// The message catalogue of a language as (key, template) pairs.
    pub fn catalogue(&self, language: &str) -> Result<Vec<(String, String)>, CallError> {
        let pairs = self.stateless(
            "catalogue",
            |instance, store| instance.catalogue(store, language),
            |ruleset| ruleset.catalogue(language),
        )?;
        self.check_items("catalogue", pairs.len())?;
        Ok(pairs)
    }

    /// What the map editor can change in the ruleset's maps, as the ruleset describes it:
    /// `None` for a ruleset that describes nothing (every component before contract 0.4.0).
    /// Checked here only against the output limits; what it says is the caller's to check.
    pub fn map_editor(&self) -> Result<Option<sdk::MapEditor>, CallError> {
        let schema = self.stateless(
            "map-editor",
            |instance, store| instance.map_editor(store),
            |ruleset| ruleset.map_editor(),
        )?;
        if let Some(schema) = &schema {
            let (items, bytes) = editor_size(schema);
            self.check_items("map-editor", items)?;
            self.check_bytes("map-editor", bytes)?;
        }
        Ok(schema)
    }

    pub(crate) fn check_items(&self, call: &str, items: usize) -> Result<(), RulesetFailure> {
        if items > self.limits.max_output_items {
            return Err(call_failed(
                &self.info.id,
                call,
                FailureCause::Output {
                    detail: format!(
                        "it returned {items} entries, more than the limit of {}",
                        self.limits.max_output_items
                    ),
                },
            ));
        }
        Ok(())
    }

    pub(crate) fn check_bytes(&self, call: &str, bytes: usize) -> Result<(), RulesetFailure> {
        if bytes > self.limits.max_output_bytes {
            return Err(call_failed(
                &self.info.id,
                call,
                FailureCause::Output {
                    detail: format!(
                        "it returned {bytes} bytes, more than the limit of {}",
                        self.limits.max_output_bytes
                    ),
                },
            ));
        }
        Ok(())
    }
}

/// Every answer of a running game, checked against the ruleset's output limits by both
/// adapters.
impl LoadedRuleset {
    /// The decisions, checked against the output limits.
    pub(crate) fn checked_pending(
        &self,
        pending: Vec<PendingDecision>,
    ) -> Result<Vec<PendingDecision>, CallError> {
        self.check_items("pending", pending.len())?;
        for decision in &pending {
            let items = match &decision.kind {
                sdk::DecisionKind::Choose(c) => c.choices.len(),
                sdk::DecisionKind::Number(_) => 0,
                sdk::DecisionKind::Assign(a) => a.items.len() + a.slots.len(),
            };
            self.check_items("pending", items)?;
        }
        Ok(pending)
    }

    pub(crate) fn checked_events(
        &self,
        outcome: Result<Vec<Event>, Rejection>,
    ) -> Result<Result<Vec<Event>, Rejection>, CallError> {
        if let Ok(events) = &outcome {
            self.check_items("apply", events.len())?;
        }
        Ok(outcome)
    }

    pub(crate) fn checked_view(&self, text: String) -> Result<String, CallError> {
        self.check_bytes("view", text.len())?;
        Ok(text)
    }

    pub(crate) fn checked_board(&self, parts: Vec<BoardPart>) -> Result<Vec<BoardPart>, CallError> {
        self.check_items("render", parts.len())?;
        let bytes = parts
            .iter()
            .map(|part| part.id.len() + part.svg.len())
            .sum::<usize>();
        self.check_bytes("render", bytes)?;
        Ok(parts)
    }

    pub(crate) fn checked_notes(
        &self,
        outcome: Result<Vec<PreviewNote>, Rejection>,
    ) -> Result<Result<Vec<PreviewNote>, Rejection>, CallError> {
        if let Ok(notes) = &outcome {
            self.check_items("preview", notes.len())?;
        }
        Ok(outcome)
    }

    pub(crate) fn checked_result(
        &self,
        result: Option<GameResult>,
    ) -> Result<Option<GameResult>, CallError> {
        if let Some(result) = &result {
            self.check_items(
                "final-result",
                result.placings.len() + result.breakdown.len(),
            )?;
        }
        Ok(result)
    }

    pub(crate) fn checked_snapshot(&self, bytes: Vec<u8>) -> Result<Vec<u8>, CallError> {
        self.check_bytes("snapshot", bytes.len())?;
        Ok(bytes)
    }
}

/// How many entries a map editor schema has (fields, values, kinds, tables) and how many bytes
/// of text, for the output limits.
fn editor_size(schema: &sdk::MapEditor) -> (usize, usize) {
    let field = |f: &sdk::EditorField| {
        (
            1 + f.values.len(),
            f.name.len()
                + f.description.len()
                + f.values.iter().map(String::len).sum::<usize>()
                + f.values_from.as_ref().map_or(0, String::len),
        )
    };
    let mut items = 0;
    let mut bytes = schema.blank_map.as_ref().map_or(0, String::len);
    let mut add = |(i, b): (usize, usize)| {
        items += i;
        bytes += b;
    };
    if let Some(places) = &schema.places {
        add((
            1,
            [
                &places.table,
                &places.id,
                &places.name,
                &places.x,
                &places.y,
                &places.key_prefix,
            ]
            .iter()
            .map(|text| text.len())
            .sum(),
        ));
        places.fields.iter().map(field).for_each(&mut add);
    }
    for connection in &schema.connections {
        let stored = match &connection.storage {
            sdk::ConnectionStorage::Field(field) => field.len(),
            sdk::ConnectionStorage::Table {
                table,
                endpoints,
                flag,
            } => table.len() + endpoints.len() + flag.as_ref().map_or(0, String::len),
        };
        add((
            1,
            connection.kind.len() + connection.description.len() + stored,
        ));
    }
    for table in &schema.tables {
        add((
            1,
            table.table.len() + table.key.len() + table.description.len(),
        ));
        table.fields.iter().map(field).for_each(&mut add);
    }
    (items, bytes)
}
