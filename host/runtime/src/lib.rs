//! Tenka's runtime: the one crate that runs WebAssembly.
//!
//! - Loading (`loading.rs`): compiling (or fetching from the cache) each component, checking its
//!   contract version and imports before it runs, and the registry of loaded versions.
//! - A loaded ruleset (`ruleset.rs`): its description, its stateless calls (map checks,
//!   catalogues) and the limits every call runs under.
//! - A running game (`running.rs`): one trait, [`RunningGame`], implemented by the component
//!   adapter (`component.rs`, any contract version through `bindings/`, each game in a store of
//!   its own: `store.rs`) and the native adapter (`native.rs`), every call answering a typed
//!   [`CallError`]; `start.rs` starts or resumes a game in the adapter its ruleset needs.
//! - A game's table (`table.rs`: its random stream and battle tower) and the sanitizer every
//!   board passes through (`svg_sanitizer.rs`).
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
mod component;
pub mod failure;
mod forbidden_imports;
mod limits;
mod loading;
pub mod native;
mod panic_output;
mod ruleset;
mod running;
mod start;
mod store;
pub mod svg_sanitizer;
pub mod table;

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use cache::{ArtifactCache, CacheOutcome};
pub use failure::{
    CallError, CapacityExhausted, FailureCause, RulesetFailure, capacity_exhausted, failure_of,
};
pub use limits::{MemoryBudget, default_ruleset_memory_bytes, machine_memory_bytes};
pub use loading::{DirChanges, Runtime, check_component, inspect_component};
pub use ruleset::LoadedRuleset;
pub use running::{Budget, RunningGame};
pub use table::{GameTable, Seed, TableState, TowerDrop};

/// The contract versions this host can run. A component built for another is refused.
pub use bindings::SUPPORTED_CONTRACTS;

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
pub(crate) const WHOLE_32_BIT_MEMORY: u64 = 4 << 30;

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
