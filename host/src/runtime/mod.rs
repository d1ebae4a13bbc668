//! Loading rulesets: compiling (or fetching from the cache) each component, checking its
//! contract version and imports before it runs, and the limits every call runs under.
//!
//! A component is checked in this order, each step before anything of it executes:
//! 1. its `tenka-contract` custom section (inside the core module the component nests) must name
//!    a contract version this host supports;
//! 2. it may import only the contract's interfaces, plus the `wasi:*` plumbing that Rust's
//!    standard library links in, which is defined to trap because a ruleset never does I/O;
//! 3. it is compiled, or its precompiled artifact is loaded from the cache;
//! 4. it is instantiated once, in a store of its own, to read its description.

pub(crate) mod bindings;
pub mod cache;
pub mod failure;
mod forbidden_imports;
mod limits;
mod panic_output;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use wasmtime::component::{Component, Linker};
use wasmtime::{
    Config, Engine, InstanceAllocationStrategy, PoolConcurrencyLimitError, PoolingAllocationConfig,
    Store,
};

use crate::session::{GameSpec, Session, SessionError};
use crate::table::GameTable;
pub use cache::{ArtifactCache, CacheOutcome};
pub use failure::{
    CapacityExhausted, FailureCause, RulesetFailure, capacity_exhausted, failure_of,
};
use forbidden_imports::ForbiddenImportCalled;
pub(crate) use limits::deadline_ticks;
use limits::{GameLimiter, LimitHit};
pub use limits::{MemoryBudget, default_ruleset_memory_bytes, machine_memory_bytes};

/// The contract versions this host can run. A component built for another is refused.
pub use bindings::SUPPORTED_CONTRACTS;

/// The interfaces of the contract a component may import, without their version suffix.
const CONTRACT_IMPORTS: &[&str] = &[
    "tenka:ruleset/types",
    "tenka:ruleset/random",
    "tenka:ruleset/battle-tower",
    "tenka:ruleset/log",
];

/// The SHA-256 of a ruleset, as lowercase hex: of the component's bytes, or of a native
/// ruleset's id. Game records name the ruleset by it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ContentHash(pub String);

impl ContentHash {
    /// The hash of some bytes.
    pub fn of(bytes: &[u8]) -> ContentHash {
        ContentHash(hex::encode(Sha256::digest(bytes)))
    }
}

impl fmt::Display for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The limits every call into a ruleset, and every game, runs under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallLimits {
    /// Fuel given before each call (about one unit per WebAssembly instruction). A call that
    /// uses it all fails with "fuel exhausted". Fuel is the deterministic limit: a call that
    /// runs out runs out again on every replay.
    pub fuel_per_call: u64,
    /// The wall-clock time a call may take, a safety net beside fuel for work fuel barely
    /// counts (a bulk memory copy costs one unit whatever its size) and for a host too busy
    /// to notice. It is not deterministic, so it is set well above what fuel allows.
    pub deadline: Duration,
    /// The fuel one recovery gets in all (restoring the last recovery point and replaying the
    /// actions since), so a ruleset that keeps failing costs a bounded amount per failure.
    pub recovery_fuel: u64,
    /// The wall-clock time one recovery may take in all.
    pub recovery_deadline: Duration,
    /// The most bytes one game's memories and tables may hold together (the budget is per
    /// game, whatever number of memories its component brings). Also the largest a single
    /// memory may be, which sizes each slot of the instance pool.
    pub memory_bytes: usize,
    /// The most core instances one game's component may create.
    pub max_instances: u32,
    /// The most linear memories one game's component may create.
    pub max_memories: u32,
    /// The most tables one game's component may create.
    pub max_tables: u32,
    /// The longest string or byte list (view, render, snapshot) a call may return, in bytes.
    pub max_output_bytes: usize,
    /// The most entries a returned list (decisions, events, choices) may have.
    pub max_output_items: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            fuel_per_call: 1_000_000_000,
            deadline: Duration::from_secs(5),
            recovery_fuel: 4_000_000_000,
            recovery_deadline: Duration::from_secs(20),
            memory_bytes: 64 << 20,
            // An SDK component has three core instances, one memory and two tables.
            max_instances: 8,
            max_memories: 2,
            max_tables: 4,
            max_output_bytes: 8 << 20,
            max_output_items: 100_000,
        }
    }
}

/// The pool every instance of a runtime comes from. Instances, their memories and tables are
/// carved from address space reserved once, so live games cost no memory mappings of their
/// own and the number of live instances has a firm cap: past it, instantiating fails with
/// [`CapacityExhausted`] instead of the process running out of mappings.
///
/// Each memory slot reserves the whole 4 GiB a 32-bit WebAssembly memory can address, plus a
/// guard: compiled code then needs no bounds check on any access (a stray one faults in the
/// reservation and traps), which made whole games about 10 % faster. Only what a game touches
/// is ever backed by memory, and its budget is still [`CallLimits::memory_bytes`]; the cost is
/// address space, about `instances * (4 GiB + guard_bytes)` per runtime, which is why the pool
/// is sized for the sessions a server keeps running, not for every game it holds (a server
/// parks idle games as snapshots: `HubConfig::max_running_games`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolLimits {
    /// The most component instances alive at once: every running game, every bot's determinized
    /// game, and the short-lived instances of stateless calls (catalogues, map checks).
    pub instances: u32,
    /// The most linear memories alive at once (an SDK component has one).
    pub memories: u32,
    /// The most tables alive at once (an SDK component has two).
    pub tables: u32,
    /// The guard region after each memory's 4 GiB reservation, in bytes: accesses at a static
    /// offset up to this far past an address need no check either.
    pub guard_bytes: u64,
    /// The bytes all instances' memories and tables may hold together ([`MemoryBudget`]): a
    /// new instance is refused as [`CapacityExhausted`] unless a whole game's budget still fits.
    /// Half the machine's memory by default.
    pub ruleset_memory_bytes: usize,
}

impl Default for PoolLimits {
    fn default() -> Self {
        PoolLimits {
            instances: 2_048,
            memories: 2_048,
            tables: 4_096,
            guard_bytes: 32 << 20,
            ruleset_memory_bytes: limits::default_ruleset_memory_bytes(),
        }
    }
}

/// Everything a 32-bit WebAssembly memory can address, reserved for each memory slot.
const WHOLE_32_BIT_MEMORY: u64 = 4 << 30;

/// How a [`Runtime`] is set up.
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// Limits for every call.
    pub limits: CallLimits,
    /// The instance pool.
    pub pool: PoolLimits,
    /// Where precompiled artifacts are kept; `None` compiles in memory every time.
    pub cache_dir: Option<PathBuf>,
}

impl Default for RuntimeConfig {
    /// Default limits; the cache in `$TENKA_CACHE_DIR`, else `target/tenka-cache`.
    fn default() -> Self {
        let cache_dir = std::env::var_os("TENKA_CACHE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/tenka-cache"));
        RuntimeConfig {
            limits: CallLimits::default(),
            pool: PoolLimits::default(),
            cache_dir: Some(cache_dir),
        }
    }
}

/// What loading one component did.
#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    /// The component file.
    pub path: PathBuf,
    /// The ruleset's id, when it loaded.
    pub ruleset_id: Option<String>,
    /// The component's hash, when it could be read.
    pub hash: Option<ContentHash>,
    /// Whether its precompiled artifact came from the cache.
    pub cache: Option<CacheOutcome>,
    /// How long loading took.
    pub elapsed: Duration,
    /// Why it was refused, if it was.
    pub error: Option<String>,
}

/// What a store of one game holds: that game's table and its limits.
pub(crate) struct StoreState {
    pub(crate) table: GameTable,
    pub(crate) limiter: GameLimiter,
    /// While a recovery runs, its calls share one fuel and time budget set before it starts,
    /// instead of each getting its own.
    pub(crate) shared_budget: bool,
    /// What the ruleset wrote to standard error in this call: a panic's message.
    pub(crate) panic_output: Vec<u8>,
    /// Battle-tower drops in this call, against [`MOST_DROPS_PER_CALL`].
    pub(crate) drops_this_call: u32,
    /// Log lines in this call, against [`MOST_LOG_LINES_PER_CALL`].
    pub(crate) log_lines_this_call: u32,
}

/// The most battle-tower drops one call may make. Each drop is recorded on the host until the
/// call ends, outside the game's memory budget, and a host call costs only a few units of fuel:
/// without a cap, one call could fill the host's memory with drop records.
pub(crate) const MOST_DROPS_PER_CALL: u32 = 10_000;

/// The most log lines one call may write; later ones are dropped, so a ruleset cannot flood the
/// server's log.
pub(crate) const MOST_LOG_LINES_PER_CALL: u32 = 1_000;

impl StoreState {
    /// Forgets what the previous call did, before a new call.
    pub(crate) fn start_call(&mut self) {
        self.limiter.hit = None;
        self.panic_output.clear();
        self.drops_this_call = 0;
        self.log_lines_this_call = 0;
    }

    /// A drop through the battle tower asked for by the ruleset, within what one call may do.
    pub(crate) fn drop_into_tower(
        &mut self,
        cubes: &[sdk::CubeCount],
    ) -> wasmtime::Result<Vec<sdk::CubeCount>> {
        const MOST_CUBES_PER_DROP: u64 = 100_000;
        let total: u64 = cubes.iter().map(|c| u64::from(c.count)).sum();
        if total > MOST_CUBES_PER_DROP {
            return Err(wasmtime::Error::msg(format!(
                "battle-tower.drop of {total} cubes; at most {MOST_CUBES_PER_DROP} are allowed"
            )));
        }
        // The host works through a drop cube by cube, each falling cube meeting every cube
        // lodged on each shelf it passes, and a call cannot be interrupted while the host
        // works: bound that work, which a tower set to keep every cube makes quadratic.
        const MOST_TOWER_STEPS_PER_DROP: u64 = 100_000_000;
        let tower = self.table.tower();
        let lodged: u64 = tower.contents().iter().map(|c| u64::from(c.count)).sum();
        let shelves = tower.shelves().len().max(1) as u64;
        let steps = shelves
            .saturating_mul(total)
            .saturating_mul(lodged.saturating_add(total).saturating_add(1));
        if steps > MOST_TOWER_STEPS_PER_DROP {
            return Err(wasmtime::Error::msg(format!(
                "battle-tower.drop of {total} cubes onto {lodged} lodged ones is too much work \
                 for one drop"
            )));
        }
        self.drops_this_call += 1;
        if self.drops_this_call > MOST_DROPS_PER_CALL {
            return Err(wasmtime::Error::msg(format!(
                "more than {MOST_DROPS_PER_CALL} battle-tower drops in one call"
            )));
        }
        Ok(self.table.drop_into_tower(cubes))
    }

    /// A log line from the ruleset: at most [`MOST_LOG_LINES_PER_CALL`] per call, each cut to
    /// 2,000 characters.
    pub(crate) fn write_log(&mut self, level: sdk::LogLevel, line: &str) {
        self.log_lines_this_call += 1;
        if self.log_lines_this_call > MOST_LOG_LINES_PER_CALL {
            return;
        }
        let line: String = line.chars().take(2000).collect();
        self.table.write_log(level, &line);
    }
}

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
    ) -> Result<(Store<StoreState>, bindings::Instance)> {
        if !self.memory.admits(limits.memory_bytes) {
            return Err(anyhow::Error::new(CapacityExhausted {
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
        set_call_budget(&mut store, limits)?;
        match self.pre.instantiate(&mut store) {
            Ok(instance) => Ok((store, instance)),
            Err(error) => {
                if let Some(full) = error.downcast_ref::<PoolConcurrencyLimitError>() {
                    return Err(anyhow::Error::new(CapacityExhausted {
                        detail: full.to_string(),
                    }));
                }
                Err(describe_failure(
                    ruleset,
                    "instantiate",
                    error,
                    &store,
                    limits,
                ))
            }
        }
    }
}

/// Gives a store the fuel and the deadline of one call.
pub(crate) fn set_call_budget(store: &mut Store<StoreState>, limits: &CallLimits) -> Result<()> {
    store
        .set_fuel(limits.fuel_per_call)
        .map_err(anyhow::Error::from)?;
    store.set_epoch_deadline(deadline_ticks(limits.deadline));
    Ok(())
}

pub(crate) enum RulesetKind {
    Wasm(Arc<WasmRuleset>),
    Native(Box<dyn sdk::native::DynRuleset>),
}

/// A ruleset the runtime has loaded: a checked component, or a native ruleset in tests.
pub struct LoadedRuleset {
    info: sdk::RulesetInfo,
    hash: ContentHash,
    source: Option<PathBuf>,
    /// The component's bytes, kept so a server can archive the exact version its games run on.
    component: Option<Arc<[u8]>>,
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
) -> anyhow::Error {
    let cause = failure_cause(&error, store.data(), limits);
    tracing::debug!("ruleset `{ruleset}` failed in `{call}`: {error:?}");
    anyhow::Error::new(RulesetFailure {
        ruleset: ruleset.to_owned(),
        call: call.to_owned(),
        cause,
        game_failed: false,
    })
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
pub(crate) fn call_failed(ruleset: &str, call: &str, cause: FailureCause) -> anyhow::Error {
    anyhow::Error::new(RulesetFailure {
        ruleset: ruleset.to_owned(),
        call: call.to_owned(),
        cause,
        game_failed: false,
    })
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
    ) -> Result<R> {
        match &self.kind {
            RulesetKind::Native(ruleset) => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| native(ruleset.as_ref())))
                    .map_err(|payload| {
                        call_failed(
                            &self.info.id,
                            call,
                            FailureCause::Panic {
                                message: crate::native::panic_message(payload.as_ref()),
                            },
                        )
                    })
            }
            RulesetKind::Wasm(wasm) => {
                let mut table = GameTable::new(&[0; 32]);
                table.log_enabled = false;
                let (mut store, instance) = wasm.instantiate(&self.info.id, table, &self.limits)?;
                f(&instance, &mut store).map_err(|error| {
                    describe_failure(&self.info.id, call, error, &store, &self.limits)
                })
            }
        }
    }

    /// Checks a map given as TOML text. An error means the ruleset failed, not the map.
    pub fn validate_map(&self, map_toml: &str) -> Result<Vec<sdk::Diagnostic>> {
        let diagnostics = self.stateless(
            "validate-map",
            |instance, store| instance.validate_map(store, map_toml),
            |ruleset| ruleset.validate_map(map_toml),
        )?;
        self.check_items("validate-map", diagnostics.len())?;
        Ok(diagnostics)
    }

    /// The message catalogue of a language as (key, template) pairs.
    pub fn catalogue(&self, language: &str) -> Result<Vec<(String, String)>> {
        let pairs = self.stateless(
            "catalogue",
            |instance, store| instance.catalogue(store, language),
            |ruleset| ruleset.catalogue(language),
        )?;
        self.check_items("catalogue", pairs.len())?;
        Ok(pairs)
    }

    pub(crate) fn check_items(&self, call: &str, items: usize) -> Result<()> {
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

    pub(crate) fn check_bytes(&self, call: &str, bytes: usize) -> Result<()> {
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

    /// Starts a game.
    pub fn new_game(self: &Arc<Self>, spec: GameSpec) -> Result<Session, SessionError> {
        Session::new(self.clone(), spec)
    }
}

/// The contract version a component declares, read from its `tenka-contract` custom section
/// (in the component or any module nested in it), and the names of its top-level imports.
pub fn inspect_component(bytes: &[u8]) -> Result<(Option<String>, Vec<String>)> {
    use wasmparser::{Parser, Payload};
    let mut version = None;
    let mut imports = Vec::new();
    let mut depth = 0usize;
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.context("the file is not a valid WebAssembly component")? {
            Payload::Version { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::CustomSection(section) if section.name() == sdk::CONTRACT_SECTION => {
                let text = String::from_utf8_lossy(section.data()).trim().to_owned();
                version = Some(text);
            }
            Payload::ComponentImportSection(reader) if depth == 1 => {
                for import in reader {
                    imports.push(import?.name.0.to_owned());
                }
            }
            _ => {}
        }
    }
    Ok((version, imports))
}

/// Refuses a component built for another contract or importing more than the contract, and
/// names the contract version it was built for.
pub fn check_component(bytes: &[u8]) -> Result<String> {
    let (version, imports) = inspect_component(bytes)?;
    let version = match version {
        None => bail!(
            "it has no `{}` section: it was not built with the Tenka SDK (this host supports contract version {})",
            sdk::CONTRACT_SECTION,
            SUPPORTED_CONTRACTS.join(", ")
        ),
        Some(version) if !SUPPORTED_CONTRACTS.contains(&version.as_str()) => bail!(
            "it was built for contract version {version}, but this host supports contract version {}",
            SUPPORTED_CONTRACTS.join(", ")
        ),
        Some(version) => version,
    };
    for import in imports {
        let interface = import.split('@').next().unwrap_or_default();
        if CONTRACT_IMPORTS.contains(&interface) || interface.starts_with("wasi:") {
            continue;
        }
        bail!("it imports `{import}`, which the Tenka contract does not provide");
    }
    Ok(version)
}

/// What the runtime has loaded. A ruleset id names one *current* version, the one new games get;
/// every version ever loaded stays available by its hash for the games pinned to it.
#[derive(Default)]
struct Registry {
    current: BTreeMap<String, Arc<LoadedRuleset>>,
    versions: BTreeMap<ContentHash, Arc<LoadedRuleset>>,
}

/// What [`Runtime::sync_dir`] changed.
#[derive(Debug, Default)]
pub struct DirChanges {
    /// Each new or changed component file and what loading it did.
    pub loaded: Vec<LoadReport>,
    /// The ids of rulesets whose file is gone: no longer offered for new games, still kept for
    /// the games started on them.
    pub removed: Vec<String>,
}

impl DirChanges {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.loaded.is_empty() && self.removed.is_empty()
    }
}

/// The host's rulesets: one engine, one linker, and every ruleset loaded so far.
pub struct Runtime {
    engine: Engine,
    config: RuntimeConfig,
    cache: ArtifactCache,
    rulesets: RwLock<Registry>,
    memory: Arc<MemoryBudget>,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// The budget of all instances' memories together, and what they hold now.
    pub fn memory_budget(&self) -> &Arc<MemoryBudget> {
        &self.memory
    }

    /// How many games fit in the memory budget if each used all of its own: the default cap on
    /// running games (`HubConfig::max_running_games`) a server derives from the machine.
    pub fn games_that_fit(&self) -> usize {
        (self.memory.total() / self.config.limits.memory_bytes.max(1)).max(1)
    }

    /// A runtime with no rulesets yet.
    pub fn new(config: RuntimeConfig) -> Result<Runtime> {
        let mut engine_config = Config::new();
        // Fuel is the limit on work: deterministic, so a call that runs out replays the same.
        engine_config.consume_fuel(true);
        // Epochs are only a wall-clock safety net beside it (see `CallLimits::deadline`).
        engine_config.epoch_interruption(true);
        // Rulesets must replay bit-for-bit on every machine.
        engine_config.cranelift_nan_canonicalization(true);
        // Each memory reserves all it could address so no access needs a bounds check; the
        // budget is enforced by the pool's maximum size and the limiter (see `PoolLimits`).
        let limits = &config.limits;
        let memory_bytes = limits.memory_bytes.next_multiple_of(64 << 10);
        engine_config.memory_reservation(WHOLE_32_BIT_MEMORY);
        engine_config.memory_guard_size(config.pool.guard_bytes);
        engine_config.memory_reservation_for_growth(0);
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(config.pool.instances)
            .total_core_instances(config.pool.instances.saturating_mul(limits.max_instances))
            .total_memories(config.pool.memories)
            .total_tables(config.pool.tables)
            .max_memory_size(memory_bytes)
            .max_core_instances_per_component(limits.max_instances)
            .max_memories_per_component(limits.max_memories)
            .max_tables_per_component(limits.max_tables);
        engine_config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = Engine::new(&engine_config)
            .map_err(anyhow::Error::from)
            .context("failed to set up the WebAssembly engine and its instance pool")?;
        limits::start_epoch_ticker(engine.weak())
            .context("failed to start the epoch ticker thread")?;
        Ok(Runtime {
            engine,
            memory: MemoryBudget::new(config.pool.ruleset_memory_bytes),
            cache: ArtifactCache::new(config.cache_dir.clone()),
            config,
            rulesets: RwLock::new(Registry::default()),
        })
    }

    /// The runtime's configuration.
    pub fn config(&self) -> &RuntimeConfig {
        &self.config
    }

    /// How many component instances of the pool are alive now (live games, bots' determinized
    /// games, stateless calls in flight), out of [`PoolLimits::instances`].
    pub fn live_instances(&self) -> u64 {
        self.engine
            .pooling_allocator_metrics()
            .map_or(0, |metrics| metrics.component_instances())
    }

    /// Loads every `*.wasm` file of `dir`, in name order. A component that fails is reported
    /// and skipped; the others still load. Fails only when the directory cannot be read.
    pub fn load_dir(&self, dir: &Path) -> Result<Vec<LoadReport>> {
        Ok(wasm_files(dir)?
            .iter()
            .map(|path| self.load_report(path, || self.load_file(path)))
            .collect())
    }

    /// What loading the component at `path` with `load` did, and how long it took.
    fn load_report(
        &self,
        path: &Path,
        load: impl FnOnce() -> Result<(Arc<LoadedRuleset>, CacheOutcome)>,
    ) -> LoadReport {
        let started = Instant::now();
        let mut report = LoadReport {
            path: path.to_owned(),
            ruleset_id: None,
            hash: None,
            cache: None,
            elapsed: Duration::ZERO,
            error: None,
        };
        match load() {
            Ok((ruleset, cache)) => {
                report.ruleset_id = Some(ruleset.info().id.clone());
                report.hash = Some(ruleset.hash());
                report.cache = Some(cache);
            }
            Err(error) => report.error = Some(format!("{error:#}")),
        }
        report.elapsed = started.elapsed();
        report
    }

    /// Loads one component file and registers its ruleset.
    pub fn load_file(&self, path: &Path) -> Result<(Arc<LoadedRuleset>, CacheOutcome)> {
        let bytes = std::fs::read(path)
            .with_context(|| format!("failed to read the component {}", path.display()))?;
        self.load_file_bytes(path, &bytes)
    }

    /// Registers the component read from `path`.
    fn load_file_bytes(
        &self,
        path: &Path,
        bytes: &[u8],
    ) -> Result<(Arc<LoadedRuleset>, CacheOutcome)> {
        self.load_bytes(bytes, Some(path.to_owned()))
            .with_context(|| format!("refused the component {}", path.display()))
    }

    /// Loads a component from its bytes and makes it the current version of its ruleset.
    pub fn load_bytes(
        &self,
        bytes: &[u8],
        source: Option<PathBuf>,
    ) -> Result<(Arc<LoadedRuleset>, CacheOutcome)> {
        let (ruleset, outcome) = self.compile(bytes, source)?;
        self.register(ruleset.clone())?;
        Ok((ruleset, outcome))
    }

    /// Loads a component as a kept version only: it is found by [`Runtime::ruleset_version`] but
    /// does not become what new games get. For games pinned to a version no longer current.
    pub fn load_version(&self, bytes: &[u8]) -> Result<Arc<LoadedRuleset>> {
        let (ruleset, _) = self.compile(bytes, None)?;
        let mut registry = self.registry_mut()?;
        Ok(registry
            .versions
            .entry(ruleset.hash())
            .or_insert(ruleset)
            .clone())
    }

    /// Checks, compiles (or fetches from the cache) and describes a component. A version already
    /// loaded is reused as it is.
    fn compile(
        &self,
        bytes: &[u8],
        source: Option<PathBuf>,
    ) -> Result<(Arc<LoadedRuleset>, CacheOutcome)> {
        let hash = ContentHash::of(bytes);
        if let Some(loaded) = self.ruleset_version(&hash.0) {
            if loaded.source == source {
                return Ok((loaded, CacheOutcome::AlreadyLoaded));
            }
            if let RulesetKind::Wasm(wasm) = &loaded.kind {
                // The same compiled component, now also found at another place.
                let moved = Arc::new(LoadedRuleset {
                    info: loaded.info.clone(),
                    hash,
                    source,
                    component: loaded.component.clone(),
                    kind: RulesetKind::Wasm(wasm.clone()),
                    limits: loaded.limits.clone(),
                });
                return Ok((moved, CacheOutcome::AlreadyLoaded));
            }
        }
        let contract = check_component(bytes)?;
        let (component, outcome) = self.cache.load_or_compile(&self.engine, bytes, &hash.0)?;
        // The pool has checked, while the component was compiled or loaded from the cache, how
        // many instances, memories and tables its modules need against what a game may have.
        // That holds only when every module is the component's own: one it imported could
        // bring any number, found out only once a game runs.
        if component.resources_required().is_none() {
            bail!(
                "it instantiates a core module it imports, so what it needs cannot be checked \
                 before it runs"
            );
        }
        let pre = self.prepare(&component, &contract)?;
        let wasm = WasmRuleset {
            engine: self.engine.clone(),
            pre,
            memory: self.memory.clone(),
        };
        let mut table = GameTable::new(&[0; 32]);
        table.log_enabled = false;
        let (mut store, instance) = wasm.instantiate("(loading)", table, &self.config.limits)?;
        let describe = |store: &mut Store<StoreState>, call: &str, error: wasmtime::Error| {
            describe_failure("(loading)", call, error, store, &self.config.limits)
        };
        let declared = instance
            .contract_version(&mut store)
            .map_err(|e| describe(&mut store, "contract-version", e))?;
        if declared != contract {
            bail!(
                "it reports contract version {declared}, but its `{}` section says {contract}",
                sdk::CONTRACT_SECTION
            );
        }
        set_call_budget(&mut store, &self.config.limits)?;
        let info = instance
            .info(&mut store)
            .map_err(|e| describe(&mut store, "info", e))?;
        check_info(&info)?;
        let ruleset = Arc::new(LoadedRuleset {
            info,
            hash,
            source,
            component: Some(Arc::from(bytes)),
            kind: RulesetKind::Wasm(Arc::new(wasm)),
            limits: self.config.limits.clone(),
        });
        Ok((ruleset, outcome))
    }

    /// Brings the rulesets loaded from `dir` in line with its `*.wasm` files: a new or changed
    /// file is loaded and becomes current (a file that fails to load leaves the version before
    /// it current), and a ruleset whose file is gone is no longer current. Versions that stop
    /// being current stay loaded for the games pinned to them. Fails only when the directory
    /// cannot be read.
    pub fn sync_dir(&self, dir: &Path) -> Result<DirChanges> {
        let mut changes = DirChanges::default();
        let paths = wasm_files(dir)?;
        let before = self.rulesets();
        for path in &paths {
            let Ok(bytes) = std::fs::read(path) else {
                // Being replaced right now: the next look sees the new file.
                continue;
            };
            let hash = ContentHash::of(&bytes);
            let from_here: Vec<&Arc<LoadedRuleset>> = before
                .iter()
                .filter(|loaded| loaded.source() == Some(path.as_path()))
                .collect();
            if from_here.iter().any(|loaded| loaded.hash == hash) {
                continue;
            }
            let report = self.load_report(path, || self.load_file_bytes(path, &bytes));
            if let Some(id) = &report.ruleset_id {
                // The file now holds another ruleset: the one it held is gone.
                let mut registry = self.registry_mut()?;
                for old in from_here.iter().filter(|loaded| &loaded.info().id != id) {
                    registry.current.remove(&old.info().id);
                    changes.removed.push(old.info().id.clone());
                }
            }
            changes.loaded.push(report);
        }
        let gone = before.iter().filter(|loaded| {
            loaded.source().is_some_and(|source| {
                source.parent() == Some(dir) && !paths.iter().any(|path| path == source)
            })
        });
        let mut registry = self.registry_mut()?;
        for loaded in gone {
            registry.current.remove(&loaded.info().id);
            changes.removed.push(loaded.info().id.clone());
        }
        Ok(changes)
    }

    /// Links a component built for `contract` (a version in [`SUPPORTED_CONTRACTS`]).
    fn prepare(&self, component: &Component, contract: &str) -> Result<bindings::RulesetPre> {
        let mut linker: Linker<StoreState> = Linker::new(&self.engine);
        bindings::RulesetPre::new(contract, &mut linker, |linker| {
            // Rust's standard library links `wasi:*` plumbing a ruleset never uses; calling any
            // of it fails the call, except what its panic hook needs to hand the host the
            // panic's message, which `panic_output` answers over the failing stubs.
            forbidden_imports::define_as_failing(linker, &self.engine, component)?;
            panic_output::define(linker, &self.engine, component)?;
            linker.allow_shadowing(false);
            linker
                .instantiate_pre(component)
                .map_err(anyhow::Error::from)
                .context("the component does not fit the contract")
        })
    }

    /// Registers a native ruleset (tests and benchmarks): no sandbox, same session API. Its hash
    /// is the SHA-256 of `native:<id>`.
    pub fn register_native(
        &self,
        ruleset: Box<dyn sdk::native::DynRuleset>,
    ) -> Result<Arc<LoadedRuleset>> {
        let info = ruleset.info();
        check_info(&info)?;
        let hash = ContentHash::of(format!("native:{}", info.id).as_bytes());
        let loaded = Arc::new(LoadedRuleset {
            info,
            hash,
            source: None,
            component: None,
            kind: RulesetKind::Native(ruleset),
            limits: self.config.limits.clone(),
        });
        self.register(loaded.clone())?;
        Ok(loaded)
    }

    fn registry_mut(&self) -> Result<std::sync::RwLockWriteGuard<'_, Registry>> {
        self.rulesets
            .write()
            .map_err(|_| anyhow!("the ruleset registry is poisoned"))
    }

    /// Makes `ruleset` the current version of its id. Another version of the same id may be
    /// replaced only by a file at the same path (an edited component); two files or a native
    /// ruleset claiming one id is an error.
    fn register(&self, ruleset: Arc<LoadedRuleset>) -> Result<()> {
        let mut registry = self.registry_mut()?;
        let id = ruleset.info().id.clone();
        if let Some(existing) = registry.current.get(&id) {
            let same_file = existing.source().is_some() && existing.source() == ruleset.source();
            if existing.hash() != ruleset.hash() && !same_file {
                bail!(
                    "ruleset id `{id}` is already loaded from {}",
                    existing.source().map_or_else(
                        || "a native ruleset".to_owned(),
                        |p| p.display().to_string()
                    )
                );
            }
        }
        // The current version and its entry by hash are one value, so a version is unused
        // exactly when nothing but the registry holds it.
        registry.versions.insert(ruleset.hash(), ruleset.clone());
        registry.current.insert(id, ruleset);
        Ok(())
    }

    /// The current version of every ruleset, by id.
    pub fn rulesets(&self) -> Vec<Arc<LoadedRuleset>> {
        self.rulesets
            .read()
            .map(|r| r.current.values().cloned().collect())
            .unwrap_or_default()
    }

    /// The current version of the ruleset with this id: the one new games get.
    pub fn ruleset(&self, id: &str) -> Option<Arc<LoadedRuleset>> {
        self.rulesets.read().ok()?.current.get(id).cloned()
    }

    /// Unloads every version that is not current and that nothing holds any more (no game in
    /// memory runs on it), so a server whose components are rebuilt again and again does not
    /// keep each build. A game on a forgotten version loads it again when it is next used (the
    /// server keeps the bytes in its database). Returns how many were unloaded.
    pub fn forget_unused_versions(&self) -> usize {
        let Ok(mut registry) = self.registry_mut() else {
            return 0;
        };
        let before = registry.versions.len();
        // The registry's own entry is one holder; a current version has a second.
        registry
            .versions
            .retain(|_, version| Arc::strong_count(version) > 1);
        before - registry.versions.len()
    }

    /// A loaded version by its content hash (hex), current or not.
    pub fn ruleset_version(&self, hash: &str) -> Option<Arc<LoadedRuleset>> {
        self.rulesets
            .read()
            .ok()?
            .versions
            .get(&ContentHash(hash.to_owned()))
            .cloned()
    }
}

/// The `*.wasm` files of `dir`, in name order.
fn wasm_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("failed to read the rulesets directory {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "wasm"))
        .collect();
    paths.sort();
    Ok(paths)
}

fn check_info(info: &sdk::RulesetInfo) -> Result<()> {
    let id_ok = !info.id.is_empty()
        && info
            .id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !id_ok {
        bail!(
            "ruleset id `{}` must be lowercase letters, digits and dashes",
            info.id
        );
    }
    if info.min_seats == 0 || info.min_seats > info.max_seats {
        bail!(
            "ruleset `{}` declares seats {}..={}",
            info.id,
            info.min_seats,
            info.max_seats
        );
    }
    Ok(())
}
