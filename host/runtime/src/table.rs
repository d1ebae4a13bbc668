//! The table of one game: its random stream and its battle tower, owned by the host.
//!
//! Both come from one ChaCha20 generator seeded with the game's 256-bit seed. The seed's SHA-256
//! commitment is published when the game starts and the seed itself when it ends, so players can
//! check that no number was chosen after the fact.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use sdk::tower::TowerModel;
use sdk::{CubeCount, LogLevel, TowerShelf};

/// A game's 256-bit seed.
pub type Seed = [u8; 32];

/// The public commitment to a seed: its SHA-256, as lowercase hex.
pub fn commitment(seed: &Seed) -> String {
    hex::encode(Sha256::digest(seed))
}

/// A seed derived from a parent seed and a label, for independent streams (per game of a
/// simulation, per bot seat) that never overlap the parent.
pub fn derive_seed(parent: &Seed, label: &str, index: u64) -> Seed {
    let mut hasher = Sha256::new();
    hasher.update(parent);
    hasher.update(label.as_bytes());
    hasher.update(index.to_le_bytes());
    hasher.finalize().into()
}

/// One drop through the tower during a call, as the host reports it to clients.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TowerDrop {
    /// What the ruleset dropped in.
    pub dropped: Vec<CubeCount>,
    /// What came out.
    pub came_out: Vec<CubeCount>,
}

/// Where a table's random stream stands, enough to continue it exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RngState {
    /// The seed the stream started from.
    pub seed: Seed,
    /// How many 32-bit words of the stream were used.
    pub word_pos: u128,
}

/// Everything a table holds, for snapshots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableState {
    /// The random stream.
    pub rng: RngState,
    /// The tower, with its secret contents.
    pub tower: TowerModel,
    /// Whether a cube was dropped yet (the tower can be configured only before).
    pub dropped_any: bool,
}

/// The host's services for one game: random numbers, the battle tower and the log.
#[derive(Clone, Debug)]
pub struct GameTable {
    rng: ChaCha20Rng,
    tower: TowerModel,
    dropped_any: bool,
    /// Drops made since the host last collected them.
    drops: Vec<TowerDrop>,
    /// A misuse by the ruleset during the current call (`below(0)`), reported as its failure.
    fault: Option<String>,
    /// Whether `log` lines go to the host's tracing output.
    pub log_enabled: bool,
}

impl GameTable {
    /// A table with a fresh stream from `seed` and the default tower.
    pub fn new(seed: &Seed) -> GameTable {
        GameTable {
            rng: ChaCha20Rng::from_seed(*seed),
            tower: TowerModel::default(),
            dropped_any: false,
            drops: Vec::new(),
            fault: None,
            log_enabled: true,
        }
    }

    /// Rebuilds a table from its state.
    pub fn from_state(state: &TableState) -> GameTable {
        let mut rng = ChaCha20Rng::from_seed(state.rng.seed);
        rng.set_word_pos(state.rng.word_pos);
        GameTable {
            rng,
            tower: state.tower.clone(),
            dropped_any: state.dropped_any,
            drops: Vec::new(),
            fault: None,
            log_enabled: true,
        }
    }

    /// The table's state, to snapshot or to roll back to.
    pub fn state(&self) -> TableState {
        TableState {
            rng: RngState {
                seed: self.rng.get_seed(),
                word_pos: self.rng.get_word_pos(),
            },
            tower: self.tower.clone(),
            dropped_any: self.dropped_any,
        }
    }

    /// A table for a search bot's determinized games: the tower keeps how many cubes of each owner
    /// it holds but not where they lie, and the random stream is the bot's own, so nothing the
    /// bot simulates touches or reveals the real game's randomness.
    pub fn scratch(&self, seed: &Seed) -> GameTable {
        let mut rng = ChaCha20Rng::from_seed(*seed);
        let tower = self.tower.scrambled(&mut || rng.next_u64());
        GameTable {
            rng,
            tower,
            dropped_any: self.dropped_any,
            drops: Vec::new(),
            fault: None,
            log_enabled: false,
        }
    }

    /// The tower model, with its secret contents.
    pub fn tower(&self) -> &TowerModel {
        &self.tower
    }

    /// Takes the drops made since the last call.
    pub fn take_drops(&mut self) -> Vec<TowerDrop> {
        std::mem::take(&mut self.drops)
    }

    /// Takes the misuse recorded during the last call, if any.
    pub fn take_fault(&mut self) -> Option<String> {
        self.fault.take()
    }

    /// `random.below`, with the misuse `below(0)` reported as an error.
    pub fn try_below(&mut self, bound: u64) -> Result<u64, String> {
        if bound == 0 {
            return Err("random.below(0) has no possible answer".into());
        }
        Ok(self.rng.random_range(0..bound))
    }

    /// `battle-tower.drop`.
    pub fn drop_into_tower(&mut self, cubes: &[CubeCount]) -> Vec<CubeCount> {
        self.dropped_any = true;
        let rng = &mut self.rng;
        let came_out = self.tower.drop(cubes, &mut || rng.next_u64());
        self.drops.push(TowerDrop {
            dropped: cubes.to_vec(),
            came_out: came_out.clone(),
        });
        came_out
    }

    /// `battle-tower.configure`.
    pub fn configure(&mut self, shelves: &[TowerShelf]) -> Result<(), String> {
        if self.dropped_any {
            return Err("the tower can only be configured before the first drop".into());
        }
        self.tower = TowerModel::new(shelves.to_vec())?;
        Ok(())
    }

    /// `log.write`.
    pub fn write_log(&mut self, level: LogLevel, line: &str) {
        if !self.log_enabled {
            return;
        }
        match level {
            LogLevel::Debug => tracing::debug!(target: "ruleset", "{line}"),
            LogLevel::Info => tracing::info!(target: "ruleset", "{line}"),
            LogLevel::Warn => tracing::warn!(target: "ruleset", "{line}"),
        }
    }
}

impl sdk::Table for GameTable {
    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn below(&mut self, bound: u64) -> u64 {
        match self.try_below(bound) {
            Ok(n) => n,
            Err(fault) => {
                self.fault.get_or_insert(fault);
                0
            }
        }
    }

    fn configure_tower(&mut self, shelves: &[TowerShelf]) -> Result<(), String> {
        self.configure(shelves)
    }

    fn drop_cubes(&mut self, cubes: &[CubeCount]) -> Vec<CubeCount> {
        self.drop_into_tower(cubes)
    }

    fn log(&mut self, level: LogLevel, line: &str) {
        self.write_log(level, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdk::Table;

    #[test]
    fn a_restored_table_continues_the_same_stream() {
        let mut table = GameTable::new(&[5; 32]);
        table.next_u64();
        table.drop_into_tower(&[CubeCount {
            owner: sdk::CubeOwner::Seat(0),
            count: 9,
        }]);
        let mut copy = GameTable::from_state(&table.state());
        for _ in 0..10 {
            assert_eq!(table.next_u64(), copy.next_u64());
        }
        assert_eq!(copy.tower(), table.tower());
    }

    #[test]
    fn below_zero_is_a_fault_not_a_panic() {
        let mut table = GameTable::new(&[1; 32]);
        assert_eq!(table.below(0), 0);
        assert!(table.take_fault().is_some());
    }
}
