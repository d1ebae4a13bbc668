//! Loading rulesets: a component's contract version and imports checked before anything of it
//! runs, compiled or fetched from the artifact cache, instantiated once to read its description;
//! and the registry of every version loaded.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store};

use crate::bindings::{self, SUPPORTED_CONTRACTS};
use crate::cache::{ArtifactCache, CacheOutcome};
use crate::limits::{self, MemoryBudget};
use crate::ruleset::{
    LoadedRuleset, RulesetKind, StoreState, WasmRuleset, describe_failure, set_call_budget,
};
use crate::table::GameTable;
use crate::{ContentHash, LoadReport, RuntimeConfig, WHOLE_32_BIT_MEMORY};
use crate::{forbidden_imports, panic_output};

/// The interfaces of the contract a component may import, without their version suffix.
const CONTRACT_IMPORTS: &[&str] = &[
    "tenka:ruleset/types",
    "tenka:ruleset/random",
    "tenka:ruleset/battle-tower",
    "tenka:ruleset/log",
];

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
    /// games, stateless calls in flight), out of [`crate::PoolLimits::instances`].
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
        set_call_budget(&mut store, &self.config.limits);
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
