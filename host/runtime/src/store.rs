//! What the store of one game holds beside the instance: the game's table, its memory
//! limiter, and what the current call has done so far (against the per-call caps).

use crate::limits::GameLimiter;
use crate::table::GameTable;

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
