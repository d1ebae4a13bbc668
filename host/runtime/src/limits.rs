//! What one game may use: a single byte budget for all its memories and tables, a cap on how
//! many instances, memories and tables its component creates, and the engine's epoch ticker
//! behind every call's wall-clock deadline. Beside them, one budget for all games together
//! ([`MemoryBudget`]), sized from the machine's memory, so that many games each within their
//! own budget cannot together make the machine swap.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use wasmtime::{EngineWeak, ResourceLimiter};

/// Which of a game's limits refused a request, remembered so a failed call can name it rather
/// than the bare trap the guest's allocator turns a refused `memory.grow` into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LimitHit {
    /// The game's memories and tables together would have passed the budget.
    Bytes,
}

/// The bytes every store of a runtime may hold in memories and tables together: every running
/// game, every bot's determinized game and every stateless call. A new instance is admitted only
/// while a whole game's budget still fits beside what the others hold
/// (`MemoryBudget::admits`), and no store grows past the total.
#[derive(Debug)]
pub struct MemoryBudget {
    total: usize,
    used: AtomicUsize,
}

impl MemoryBudget {
    /// A budget of `total` bytes.
    pub fn new(total: usize) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget {
            total,
            used: AtomicUsize::new(0),
        })
    }

    /// The budget, in bytes.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The bytes every store holds now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Whether a new store that may grow to `bytes` fits beside what the others hold.
    pub(crate) fn admits(&self, bytes: usize) -> bool {
        self.used().saturating_add(bytes) <= self.total
    }

    /// Counts `bytes` more, unless that passes the total.
    fn take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&sum| sum <= self.total)
            })
            .is_ok()
    }

    fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// The machine's memory in bytes (`MemTotal` of `/proc/meminfo`), where the system says.
pub fn machine_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The default budget of all games' ruleset memories: half the machine's memory (the rest is
/// for the server's own data, the database, the operating system and its page cache), or
/// 4 GiB where the machine's memory cannot be read.
pub fn default_ruleset_memory_bytes() -> usize {
    machine_memory_bytes()
        .map_or(4 << 30, |bytes| bytes / 2)
        .try_into()
        .unwrap_or(usize::MAX)
}

/// The resource limiter of one store (one game). wasmtime asks it before creating or growing
/// any memory or table of the store, whichever core instance of the component it belongs to,
/// so the budget holds for all of them together; a component that brings several memories
/// shares one budget between them.
pub(crate) struct GameLimiter {
    budget_bytes: usize,
    used_bytes: usize,
    /// The growth last allowed, taken back if wasmtime then fails to grow.
    last_growth: usize,
    max_instances: usize,
    max_memories: usize,
    max_tables: usize,
    pub(crate) hit: Option<LimitHit>,
    /// The budget of all stores together, which this store's bytes are also counted against.
    shared: Arc<MemoryBudget>,
}

impl Drop for GameLimiter {
    fn drop(&mut self) {
        // The store and its memories go with it.
        self.shared.give_back(self.used_bytes);
    }
}

/// What a table element costs, in bytes: wasmtime keeps one pointer per element.
const TABLE_ELEMENT_BYTES: usize = std::mem::size_of::<usize>();

impl GameLimiter {
    pub(crate) fn new(
        budget_bytes: usize,
        max_instances: usize,
        max_memories: usize,
        max_tables: usize,
        shared: Arc<MemoryBudget>,
    ) -> GameLimiter {
        GameLimiter {
            shared,
            budget_bytes,
            used_bytes: 0,
            last_growth: 0,
            max_instances,
            max_memories,
            max_tables,
            hit: None,
        }
    }

    fn grow(&mut self, current: usize, desired: usize) -> bool {
        let growth = desired.saturating_sub(current);
        match self.used_bytes.checked_add(growth) {
            // Past the server's budget the game is refused as past its own: the allocator in
            // the guest sees the same failed `memory.grow` either way.
            Some(total) if total <= self.budget_bytes && self.shared.take(growth) => {
                self.used_bytes = total;
                self.last_growth = growth;
                true
            }
            _ => {
                self.hit = Some(LimitHit::Bytes);
                self.last_growth = 0;
                false
            }
        }
    }

    fn take_back_last_growth(&mut self) {
        self.shared.give_back(self.last_growth);
        self.used_bytes = self.used_bytes.saturating_sub(self.last_growth);
        self.last_growth = 0;
    }
}

impl ResourceLimiter for GameLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(self.grow(current, desired))
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.take_back_last_growth();
        Ok(())
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(self.grow(
            current.saturating_mul(TABLE_ELEMENT_BYTES),
            desired.saturating_mul(TABLE_ELEMENT_BYTES),
        ))
    }

    fn table_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.take_back_last_growth();
        Ok(())
    }

    fn instances(&self) -> usize {
        self.max_instances
    }

    fn memories(&self) -> usize {
        self.max_memories
    }

    fn tables(&self) -> usize {
        self.max_tables
    }
}

/// How often the engine's epoch advances: the granularity of every call's deadline.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The number of epoch ticks a deadline lasts, at least one.
pub(crate) fn deadline_ticks(deadline: Duration) -> u64 {
    let ticks = deadline.as_nanos().div_ceil(EPOCH_TICK.as_nanos());
    u64::try_from(ticks).unwrap_or(u64::MAX).max(1)
}

/// Starts the one thread that advances `engine`'s epoch every [`EPOCH_TICK`]. It holds the
/// engine weakly and ends once the engine (and every component and store made from it) is
/// gone, so runtimes made and dropped by tests leave no thread behind.
pub(crate) fn start_epoch_ticker(engine: EngineWeak) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("tenka-epoch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(EPOCH_TICK);
                match engine.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => break,
                }
            }
        })
        .map(drop)
}
