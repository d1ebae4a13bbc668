//! Numbers drawn from a rollout's salt: how a ruleset's rollout policy varies its answer without
//! touching the game's random stream.

/// A small deterministic generator seeded by the `salt` of [`Game::rollout_action`]
/// (SplitMix64): the same salt gives the same numbers in every build, so bots' searches replay.
///
/// [`Game::rollout_action`]: crate::Game::rollout_action
#[derive(Clone, Debug)]
pub struct Salt {
    state: u64,
}

impl Salt {
    /// A generator for `salt`.
    pub fn new(salt: u64) -> Salt {
        Salt { state: salt }
    }

    /// The next 64-bit number.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..bound`; 0 when `bound` is 0.
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        // Multiply-shift: unbiased enough for a rule of thumb, and never loops.
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }

    /// An index in `0..len`; 0 when `len` is 0.
    pub fn pick_index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// True with probability `numerator / denominator`.
    pub fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    /// The index of the largest of `scores`, ties broken by the salt; none when empty.
    pub fn best_of(&mut self, scores: &[f64]) -> Option<usize> {
        let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let tied: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] >= top).collect();
        (!tied.is_empty()).then(|| tied[self.pick_index(tied.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::Salt;

    #[test]
    fn the_same_salt_draws_the_same_numbers_and_another_salt_others() {
        let draw = |salt| {
            let mut salt = Salt::new(salt);
            (0..8).map(|_| salt.below(1000)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        assert!(draw(7).iter().all(|&n| n < 1000));
    }

    #[test]
    fn best_of_breaks_ties_by_the_salt_and_never_picks_a_lower_score() {
        let scores = [1.0, 3.0, 2.0, 3.0];
        let picks: Vec<usize> = (0..64)
            .map(|salt| Salt::new(salt).best_of(&scores).unwrap())
            .collect();
        assert!(picks.iter().all(|&i| i == 1 || i == 3));
        assert!(picks.contains(&1) && picks.contains(&3));
        assert_eq!(Salt::new(1).best_of(&[]), None);
    }
}
