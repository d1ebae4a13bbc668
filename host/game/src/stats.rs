//! The few statistics the balance report needs: Wilson intervals for win rates, a two-proportion
//! z-test for a win rate under two rule sets, and a permutation test for a difference of means.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The normal quantile of a two-sided 95 % interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// The significance level the report calls a difference significant at.
pub const SIGNIFICANCE: f64 = 0.05;

/// Resamples of a permutation test: enough that a p-value near 0.05 is known to about ±0.004.
pub const PERMUTATIONS: usize = 4_000;

/// A proportion with its 95 % Wilson score interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Proportion {
    /// Successes.
    pub hits: u64,
    /// Trials.
    pub trials: u64,
    /// hits / trials (0 without trials).
    pub rate: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

/// `hits` out of `trials` with its 95 % Wilson interval, which stays inside [0, 1] and behaves
/// at rates near 0 or 1 and at small counts, where the normal approximation does not.
pub fn wilson(hits: u64, trials: u64) -> Proportion {
    if trials == 0 {
        return Proportion {
            hits,
            trials,
            rate: 0.0,
            low: 0.0,
            high: 1.0,
        };
    }
    let n = trials as f64;
    let p = hits as f64 / n;
    let z2 = Z_95 * Z_95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z_95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Proportion {
        hits,
        trials,
        rate: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// The two-sided p-value of the pooled two-proportion z-test that `a` and `b` have the same rate.
/// 1 when either has no trials or the pooled rate is 0 or 1 (nothing can differ).
pub fn two_proportion_p(a: &Proportion, b: &Proportion) -> f64 {
    if a.trials == 0 || b.trials == 0 {
        return 1.0;
    }
    let (na, nb) = (a.trials as f64, b.trials as f64);
    let pooled = (a.hits + b.hits) as f64 / (na + nb);
    let variance = pooled * (1.0 - pooled) * (1.0 / na + 1.0 / nb);
    if variance <= 0.0 {
        return 1.0;
    }
    let z = (a.rate - b.rate) / variance.sqrt();
    (2.0 * (1.0 - normal_cdf(z.abs()))).min(1.0)
}

/// The arithmetic mean (0 of nothing).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The two-sided p-value of a permutation test of the difference of the means of `a` and `b`:
/// the share of random relabellings of the pooled values whose difference is at least as large
/// as the observed one (with the usual +1 so it is never 0). The relabellings come from a
/// fixed seed, so the same samples always give the same p-value.
pub fn permutation_p(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 1.0;
    }
    let observed = (mean(a) - mean(b)).abs();
    let mut pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    let total: f64 = pooled.iter().sum();
    let (na, nb) = (a.len() as f64, b.len() as f64);
    // Differences this small are rounding, not a difference of the samples.
    let tolerance = 1e-9 * (1.0 + observed);
    let mut rng = ChaCha8Rng::seed_from_u64(0x7e4a_ba1a_4ce5);
    let mut at_least = 0usize;
    for _ in 0..PERMUTATIONS {
        // A partial Fisher-Yates shuffle draws a random first group of a's size.
        for i in 0..a.len() {
            let j = rng.random_range(i..pooled.len());
            pooled.swap(i, j);
        }
        let sum_a: f64 = pooled[..a.len()].iter().sum();
        let difference = (sum_a / na - (total - sum_a) / nb).abs();
        if difference + tolerance >= observed {
            at_least += 1;
        }
    }
    (at_least + 1) as f64 / (PERMUTATIONS + 1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_the_textbook_example() {
        // 81 of 263: the interval 0.2553 to 0.3662 (Wilson 1927, as in most references).
        let p = wilson(81, 263);
        assert!((p.low - 0.2553).abs() < 5e-4, "{p:?}");
        assert!((p.high - 0.3662).abs() < 5e-4, "{p:?}");
        let none = wilson(0, 20);
        assert_eq!(none.low, 0.0);
        assert!(none.high > 0.1 && none.high < 0.2, "{none:?}");
    }

    #[test]
    fn two_proportions_differ_only_when_they_do() {
        let p = two_proportion_p(&wilson(50, 100), &wilson(50, 100));
        assert!((p - 1.0).abs() < 1e-12);
        // 60 % against 40 % of 200 each: z = 4.0, p about 6e-5.
        let p = two_proportion_p(&wilson(120, 200), &wilson(80, 200));
        assert!(p < 1e-4 && p > 1e-5, "{p}");
        assert!((normal_cdf(1.959_963_984_540_054) - 0.975).abs() < 1e-9);
    }

    #[test]
    fn a_permutation_test_finds_a_shift_and_not_noise() {
        let a: Vec<f64> = (0..60).map(|i| f64::from(i % 10)).collect();
        let shifted: Vec<f64> = a.iter().map(|v| v + 3.0).collect();
        assert!(permutation_p(&a, &shifted) < 0.001);
        let same: Vec<f64> = (0..60).map(|i| f64::from((i * 7) % 10)).collect();
        assert!(permutation_p(&a, &same) > 0.5);
        assert_eq!(permutation_p(&a, &[]), 1.0);
    }
}
