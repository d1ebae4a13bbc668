//! The battle tower's model: a hidden, stateful randomiser.
//!
//! The host owns each game's tower and runs this model on the game's random stream; it lives in
//! the SDK so that a ruleset's native tests can drop cubes through the same tower the host uses.
//!
//! Model (the two-shelf tower of the reference ruleset, parameters configurable): the dropped cubes,
//! in random order, fall onto the first shelf one at a time. For each falling cube, every cube
//! lodged on the shelf is knocked loose with the shelf's release chance and falls on; then the
//! falling cube lodges with the shelf's lodge chance, or falls on. What falls off the first shelf
//! falls onto the second in the same way, and what falls off the last shelf comes out.
//! With two shelves of lodge chance 0.15, a fresh cube in an empty tower comes out with
//! probability 0.85 x 0.85 = 0.7225.

use serde::{Deserialize, Serialize};

use crate::{CubeCount, CubeOwner, TowerShelf};

/// The default shelves: two, each with lodge chance 0.15 and release chance 1/40.
pub const DEFAULT_SHELVES: [TowerShelf; 2] = [
    TowerShelf {
        lodge_chance: 0.15,
        release_chance: 0.025,
    },
    TowerShelf {
        lodge_chance: 0.15,
        release_chance: 0.025,
    },
];

/// The most shelves a tower may have; more would only slow every drop down.
pub const MAX_SHELVES: usize = 8;

/// A tower: its shelves and the cubes lodged on each, top shelf first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TowerModel {
    shelves: Vec<TowerShelf>,
    lodged: Vec<Vec<CubeOwner>>,
}

impl Default for TowerModel {
    fn default() -> Self {
        TowerModel::new(DEFAULT_SHELVES.to_vec()).expect("the default shelves are valid")
    }
}

/// A uniform number in `[0, 1)` from 53 random bits.
fn unit(next_u64: &mut dyn FnMut() -> u64) -> f64 {
    (next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl TowerModel {
    /// An empty tower with these shelves. Refuses no shelves, too many, or a chance outside
    /// `0..=1`.
    pub fn new(shelves: Vec<TowerShelf>) -> Result<TowerModel, String> {
        if shelves.is_empty() || shelves.len() > MAX_SHELVES {
            return Err(format!(
                "a tower has 1 to {MAX_SHELVES} shelves, not {}",
                shelves.len()
            ));
        }
        for (i, shelf) in shelves.iter().enumerate() {
            for (what, chance) in [
                ("lodge", shelf.lodge_chance),
                ("release", shelf.release_chance),
            ] {
                if !(0.0..=1.0).contains(&chance) {
                    return Err(format!(
                        "shelf {}: {what} chance {chance} is outside 0..=1",
                        i + 1
                    ));
                }
            }
        }
        let lodged = vec![Vec::new(); shelves.len()];
        Ok(TowerModel { shelves, lodged })
    }

    /// The shelves, top first.
    pub fn shelves(&self) -> &[TowerShelf] {
        &self.shelves
    }

    /// Whether nothing is lodged in the tower.
    pub fn is_empty(&self) -> bool {
        self.lodged.iter().all(Vec::is_empty)
    }

    /// How many cubes of each owner are lodged in the tower, sorted by owner. This is the
    /// tower's secret: the host never shows it to players during a game.
    pub fn contents(&self) -> Vec<CubeCount> {
        merge(self.lodged.iter().flatten().cloned())
    }

    /// Drops cubes in and returns what came out, merged by owner and sorted by owner.
    /// `next_u64` is the game's random stream.
    pub fn drop(
        &mut self,
        cubes: &[CubeCount],
        next_u64: &mut dyn FnMut() -> u64,
    ) -> Vec<CubeCount> {
        let mut falling: Vec<CubeOwner> = cubes
            .iter()
            .flat_map(|c| std::iter::repeat_n(c.owner.clone(), c.count as usize))
            .collect();
        // The cubes of one handful land in no particular order.
        for i in (1..falling.len()).rev() {
            let j = (next_u64() % (i as u64 + 1)) as usize;
            falling.swap(i, j);
        }
        for (shelf, lodged) in self.shelves.iter().zip(self.lodged.iter_mut()) {
            let mut passed = Vec::with_capacity(falling.len() + lodged.len());
            for cube in falling {
                let mut k = 0;
                while k < lodged.len() {
                    if unit(next_u64) < shelf.release_chance {
                        passed.push(lodged.swap_remove(k));
                    } else {
                        k += 1;
                    }
                }
                if unit(next_u64) < shelf.lodge_chance {
                    lodged.push(cube);
                } else {
                    passed.push(cube);
                }
            }
            falling = passed;
        }
        merge(falling.into_iter())
    }

    /// A tower with the same shelves and the same number of lodged cubes of each owner, spread
    /// over the shelves at random: what a player could believe about the hidden tower. Search
    /// bots simulate with such a tower, never with the real one.
    pub fn scrambled(&self, next_u64: &mut dyn FnMut() -> u64) -> TowerModel {
        let mut lodged = vec![Vec::new(); self.shelves.len()];
        for cube in self.lodged.iter().flatten() {
            let shelf = (next_u64() % self.shelves.len() as u64) as usize;
            lodged[shelf].push(cube.clone());
        }
        TowerModel {
            shelves: self.shelves.clone(),
            lodged,
        }
    }
}

/// Merges single cubes into counts per owner, sorted by owner.
fn merge(cubes: impl Iterator<Item = CubeOwner>) -> Vec<CubeCount> {
    let mut counts: std::collections::BTreeMap<CubeOwner, u32> = std::collections::BTreeMap::new();
    for owner in cubes {
        *counts.entry(owner).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(owner, count)| CubeCount { owner, count })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter_rng(seed: u64) -> impl FnMut() -> u64 {
        // SplitMix64: enough for unit tests of the model's bookkeeping.
        let mut state = seed;
        move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    #[test]
    fn cubes_are_never_created_or_lost() {
        let mut tower = TowerModel::default();
        let mut rng = counter_rng(7);
        let mut total_in = 0u32;
        let mut total_out = 0u32;
        for round in 0..200u32 {
            let cubes = vec![
                CubeCount {
                    owner: CubeOwner::Seat(round % 3),
                    count: round % 7,
                },
                CubeCount {
                    owner: CubeOwner::Neutral("farmer".into()),
                    count: 2,
                },
            ];
            total_in += cubes.iter().map(|c| c.count).sum::<u32>();
            total_out += tower
                .drop(&cubes, &mut rng)
                .iter()
                .map(|c| c.count)
                .sum::<u32>();
        }
        let inside: u32 = tower.contents().iter().map(|c| c.count).sum();
        assert_eq!(total_in, total_out + inside);
    }

    #[test]
    fn a_closed_shelf_keeps_everything_and_an_open_one_nothing() {
        let closed = TowerShelf {
            lodge_chance: 1.0,
            release_chance: 0.0,
        };
        let open = TowerShelf {
            lodge_chance: 0.0,
            release_chance: 0.0,
        };
        let cubes = [CubeCount {
            owner: CubeOwner::Seat(0),
            count: 5,
        }];
        let mut rng = counter_rng(1);
        let mut tower = TowerModel::new(vec![closed]).unwrap();
        assert!(tower.drop(&cubes, &mut rng).is_empty());
        assert_eq!(tower.contents(), cubes.to_vec());
        let mut tower = TowerModel::new(vec![open]).unwrap();
        assert_eq!(tower.drop(&cubes, &mut rng), cubes.to_vec());
        assert!(tower.is_empty());
    }

    #[test]
    fn invalid_shelves_are_refused() {
        assert!(TowerModel::new(vec![]).is_err());
        let bad = TowerShelf {
            lodge_chance: 1.5,
            release_chance: 0.0,
        };
        assert!(
            TowerModel::new(vec![bad])
                .unwrap_err()
                .contains("lodge chance 1.5")
        );
    }

    #[test]
    fn scrambling_keeps_counts_per_owner() {
        let mut rng = counter_rng(3);
        let mut tower = TowerModel::default();
        for seat in 0..4 {
            tower.drop(
                &[CubeCount {
                    owner: CubeOwner::Seat(seat),
                    count: 20,
                }],
                &mut rng,
            );
        }
        assert_eq!(tower.scrambled(&mut rng).contents(), tower.contents());
    }
}
