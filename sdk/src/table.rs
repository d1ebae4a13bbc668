//! What the table gives a game: randomness, the battle tower and a log, all owned by the host.

use crate::{CubeCount, TowerShelf};

/// How important a log line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Something expected.
    Info,
    /// Something unexpected the ruleset recovered from.
    Warn,
}

/// The host's services for one game. In a component these are the contract's imports; in a
/// native test they are whatever the test supplies (see `sdk::testing`).
pub trait Table {
    /// A uniformly random 64-bit number from the game's random stream.
    fn next_u64(&mut self) -> u64;

    /// A uniformly random number in `0..bound`; `bound` must be at least 1.
    fn below(&mut self, bound: u64) -> u64;

    /// Sets the tower's shelves; allowed only before the first drop.
    fn configure_tower(&mut self, shelves: &[TowerShelf]) -> Result<(), String>;

    /// Drops cubes into the battle tower and returns what came out.
    fn drop_cubes(&mut self, cubes: &[CubeCount]) -> Vec<CubeCount>;

    /// Writes a line to the host's log.
    fn log(&mut self, level: LogLevel, line: &str);
}

/// Conveniences built on [`Table`]'s random numbers, the same in every build so games replay.
pub trait TableExt: Table {
    /// A random index in `0..len`; `len` must be at least 1.
    fn pick_index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// Shuffles `items` uniformly (Fisher-Yates from the last element down).
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// True with probability `numerator / denominator`.
    fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }
}

impl<T: Table + ?Sized> TableExt for T {}
