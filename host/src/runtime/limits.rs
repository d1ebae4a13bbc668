//! What one game may use: a single byte budget for all its memories and tables, a cap on how
//! many instances, memories and tables its component creates, and the engine's epoch ticker
//! behind every call's wall-clock deadline.

use std::time::Duration;

use wasmtime::{EngineWeak, ResourceLimiter};

/// Which of a game's limits refused a request, remembered so a failed call can name it rather
/// than the bare trap the guest's allocator turns a refused `memory.grow` into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LimitHit {
    /// The game's memories and tables together would have passed the budget.
    Bytes,
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
}

/// What a table element costs, in bytes: wasmtime keeps one pointer per element.
const TABLE_ELEMENT_BYTES: usize = std::mem::size_of::<usize>();

impl GameLimiter {
    pub(crate) fn new(
        budget_bytes: usize,
        max_instances: usize,
        max_memories: usize,
        max_tables: usize,
    ) -> GameLimiter {
        GameLimiter {
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
            Some(total) if total <= self.budget_bytes => {
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
