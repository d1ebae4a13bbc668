//! Round-robin tournaments between bot kinds (`tenka arena`): how strong each kind is, measured
//! rather than asserted.
//!
//! Every pairing of two kinds plays the same number of games, the two kinds taking the seats in
//! turn (`ABAB…` then `BABA…`), so no kind keeps the first seat. Each game counts as one
//! comparison per pair of seats of different kinds (the better rank wins, a tie is half each).
//! The Elo ratings are the Bradley-Terry fit of those comparisons, anchored at the first kind,
//! with 95 % intervals from resampling whole games.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use sdk::{Action, PendingDecision};

use super::{Bot, BotKind, play_out};
use crate::session::{GameSpec, NewGame, Session};
use crate::stats::normal_cdf;
use tenka_runtime::LoadedRuleset;
use tenka_runtime::table::{Seed, derive_seed};

/// What to play.
pub struct ArenaPlan {
    /// The ruleset.
    pub ruleset: Arc<LoadedRuleset>,
    /// The map's TOML, already checked.
    pub map_toml: String,
    /// Seats per game.
    pub seats: u32,
    /// The kinds that meet, each pairing once.
    pub kinds: Vec<BotKind>,
    /// Games per pairing.
    pub games: u64,
    /// The tournament's seed; each game's seed is derived from it.
    pub seed: u64,
    /// The most actions a game may take.
    pub max_actions: u64,
    /// Instead of pairings, every game seats this lineup (indices into `kinds`, one per seat),
    /// turned one seat further each game so every kind sits in every seat: `hard,search,search`
    /// measures one kind against two copies of another.
    pub lineup: Option<Vec<usize>>,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct ArenaGame {
    /// The kind (an index into the plan's kinds) in each seat.
    pub kinds: Vec<usize>,
    /// Each seat's rank (1 is first).
    pub ranks: Vec<u32>,
}

/// How long a kind thought.
#[derive(Clone, Copy, Debug, Default)]
pub struct Thinking {
    /// Decisions answered.
    pub decisions: u64,
    /// Time spent answering them.
    pub time: Duration,
}

/// A tournament's games and timings.
pub struct ArenaOutcome {
    /// The kinds that met.
    pub kinds: Vec<BotKind>,
    /// Seats per game.
    pub seats: u32,
    /// Every finished game.
    pub games: Vec<ArenaGame>,
    /// Games that failed, with why.
    pub failures: Vec<String>,
    /// Thinking time per kind.
    pub thinking: Vec<Thinking>,
}

/// A bot whose thinking time is added up.
struct Timed {
    inner: Box<dyn Bot>,
    spent: Arc<Mutex<Thinking>>,
}

impl Bot for Timed {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn decide(&mut self, session: &mut Session, decision: &PendingDecision) -> Result<Action> {
        let started = Instant::now();
        let action = self.inner.decide(session, decision);
        let mut spent = self.spent.lock().unwrap_or_else(|e| e.into_inner());
        spent.decisions += 1;
        spent.time += started.elapsed();
        action
    }
}

impl ArenaPlan {
    /// Every pairing of kinds, in order.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.kinds.len();
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect()
    }

    /// The seating of every game: (the pairing's number, the game's number in it, each seat's
    /// kind).
    pub fn seatings(&self) -> Vec<(u64, u64, Vec<usize>)> {
        if let Some(lineup) = &self.lineup {
            return (0..self.games)
                .zip(turned(lineup, self.games))
                .map(|(game, kinds)| (0, game, kinds))
                .collect();
        }
        let mut out = Vec::new();
        for (pairing, &(a, b)) in self.pairings().iter().enumerate() {
            for game in 0..self.games {
                // Seats alternate between the two kinds, the first seat going to each in turn.
                let kinds: Vec<usize> = (0..self.seats as u64)
                    .map(|seat| if (seat + game) % 2 == 0 { a } else { b })
                    .collect();
                out.push((pairing as u64, game, kinds));
            }
        }
        out
    }

    /// Plays the tournament, telling `progress` each game done (games done, games in all).
    pub fn run(&self, mut progress: impl FnMut(u64, u64)) -> Result<ArenaOutcome> {
        if self.kinds.len() < 2 {
            bail!("an arena needs at least two kinds of bot");
        }
        if self.seats < 2 {
            bail!("an arena needs at least two seats");
        }
        if let Some(lineup) = &self.lineup
            && (lineup.len() != self.seats as usize
                || lineup.iter().any(|&k| k >= self.kinds.len()))
        {
            bail!("a lineup names one kind per seat");
        }
        let thinking: Vec<Arc<Mutex<Thinking>>> = self
            .kinds
            .iter()
            .map(|_| Arc::new(Mutex::new(Thinking::default())))
            .collect();
        let seatings = self.seatings();
        let total = seatings.len() as u64;
        let base = derive_seed(&[0; 32], "tenka-arena", self.seed);
        let mut games = Vec::new();
        let mut failures = Vec::new();
        let mut done = 0;
        for (pairing, game, kinds) in seatings {
            let seed: Seed = derive_seed(&base, "game", pairing * 1_000_000 + game);
            match self.play(&seed, &kinds, &thinking) {
                Ok(ranks) => games.push(ArenaGame { kinds, ranks }),
                Err(error) => failures.push(format!(
                    "{}, game {game}: {error:#}",
                    kinds
                        .iter()
                        .map(|&k| self.kinds[k].name())
                        .collect::<Vec<_>>()
                        .join(" ")
                )),
            }
            done += 1;
            progress(done, total);
        }
        Ok(ArenaOutcome {
            kinds: self.kinds.clone(),
            seats: self.seats,
            games,
            failures,
            thinking: thinking
                .iter()
                .map(|spent| *spent.lock().unwrap_or_else(|e| e.into_inner()))
                .collect(),
        })
    }

    fn play(
        &self,
        seed: &Seed,
        kinds: &[usize],
        thinking: &[Arc<Mutex<Thinking>>],
    ) -> Result<Vec<u32>> {
        let mut session = self.ruleset.new_game(GameSpec {
            map_toml: self.map_toml.clone(),
            options: Vec::new(),
            seats: self.seats,
            seed: *seed,
            position: None,
        })?;
        let mut bots: Vec<Box<dyn Bot>> = kinds
            .iter()
            .enumerate()
            .map(|(seat, &kind)| {
                Box::new(Timed {
                    inner: self.kinds[kind].create(seed, seat as u32),
                    spent: thinking[kind].clone(),
                }) as Box<dyn Bot>
            })
            .collect();
        play_out(&mut session, &mut bots, self.max_actions)?;
        let Some(result) = session.result()? else {
            bail!("the game ended without a result");
        };
        let mut ranks = vec![self.seats; self.seats as usize];
        for placing in result.placings {
            if let Some(rank) = ranks.get_mut(placing.seat as usize) {
                *rank = placing.rank;
            }
        }
        Ok(ranks)
    }
}

/// The seats of `games` games of `lineup`, turned one seat further each game.
fn turned(lineup: &[usize], games: u64) -> Vec<Vec<usize>> {
    let n = lineup.len();
    (0..games as usize)
        .map(|game| (0..n).map(|seat| lineup[(seat + game) % n]).collect())
        .collect()
}

/// One kind's rating.
#[derive(Clone, Copy, Debug)]
pub struct Rating {
    /// Elo points above the first kind.
    pub elo: f64,
    /// The 95 % interval's lower end.
    pub low: f64,
    /// The 95 % interval's upper end.
    pub high: f64,
}

/// How often a kind won the games it played.
#[derive(Clone, Copy, Debug, Default)]
pub struct WinShare {
    /// Games the kind played.
    pub games: u64,
    /// Games it won, a shared first place split between the seats that share it.
    pub won: f64,
    /// The share it would win if every seat were alike.
    pub par: f64,
    /// The 95 % interval (Wilson) of the share won.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The two-sided p-value (normal approximation) that the kind wins no more or less than par.
    pub p_value: f64,
}

/// How one kind fared against another.
#[derive(Clone, Copy, Debug)]
pub struct Pairing {
    /// The first kind (index).
    pub a: usize,
    /// The second kind (index).
    pub b: usize,
    /// Games they played.
    pub games: u64,
    /// Seat-against-seat comparisons the first kind won, tied and lost.
    pub wins: u64,
    /// Ties.
    pub ties: u64,
    /// Losses.
    pub losses: u64,
    /// Games in which a seat of the first kind placed first (alone or tied).
    pub first_places: u64,
    /// The two-sided p-value (sign test on the comparisons that were not ties) that neither kind
    /// is the stronger.
    pub p_value: f64,
}

impl Pairing {
    /// The first kind's score: wins and half the ties, over all comparisons.
    pub fn score(&self) -> f64 {
        let all = self.wins + self.ties + self.losses;
        if all == 0 {
            0.5
        } else {
            (self.wins as f64 + 0.5 * self.ties as f64) / all as f64
        }
    }
}

/// Each comparison of a game: (winner's kind, loser's kind, score of the first).
fn comparisons(game: &ArenaGame) -> Vec<(usize, usize, f64)> {
    let mut out = Vec::new();
    for i in 0..game.kinds.len() {
        for j in i + 1..game.kinds.len() {
            if game.kinds[i] == game.kinds[j] {
                continue;
            }
            let score = match game.ranks[i].cmp(&game.ranks[j]) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
            out.push((game.kinds[i], game.kinds[j], score));
        }
    }
    out
}

/// Bradley-Terry strengths by the MM algorithm, each pair of kinds also given one virtual drawn
/// comparison so a kind that never won keeps a finite rating. Elo relative to kind 0.
fn fit(kinds: usize, games: &[&ArenaGame]) -> Vec<f64> {
    let mut score = vec![vec![0.0f64; kinds]; kinds];
    let mut count = vec![vec![0.0f64; kinds]; kinds];
    for i in 0..kinds {
        for j in 0..kinds {
            if i != j {
                score[i][j] = 0.5;
                count[i][j] = 1.0;
            }
        }
    }
    for game in games {
        for (i, j, s) in comparisons(game) {
            score[i][j] += s;
            score[j][i] += 1.0 - s;
            count[i][j] += 1.0;
            count[j][i] += 1.0;
        }
    }
    let mut strength = vec![1.0f64; kinds];
    for _ in 0..500 {
        let mut next = strength.clone();
        for i in 0..kinds {
            let won: f64 = score[i].iter().sum();
            let denominator: f64 = (0..kinds)
                .filter(|&j| j != i)
                .map(|j| count[i][j] / (strength[i] + strength[j]))
                .sum();
            if denominator > 0.0 {
                next[i] = won / denominator;
            }
        }
        let norm = next[0].max(1e-300);
        strength = next.iter().map(|s| s / norm).collect();
    }
    strength
        .iter()
        .map(|s| 400.0 * s.max(1e-300).log10())
        .collect()
}

/// A small deterministic generator for resampling (splitmix64).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl ArenaOutcome {
    /// Each kind's Elo (first kind 0) with a 95 % interval from 400 resamplings of the games.
    pub fn ratings(&self) -> Vec<Rating> {
        let kinds = self.kinds.len();
        let all: Vec<&ArenaGame> = self.games.iter().collect();
        let point = fit(kinds, &all);
        let mut samples: Vec<Vec<f64>> = vec![Vec::new(); kinds];
        let mut state = 0x7E4A_u64;
        if !all.is_empty() {
            for _ in 0..400 {
                let resample: Vec<&ArenaGame> = (0..all.len())
                    .map(|_| all[(splitmix(&mut state) % all.len() as u64) as usize])
                    .collect();
                for (kind, elo) in fit(kinds, &resample).into_iter().enumerate() {
                    samples[kind].push(elo);
                }
            }
        }
        point
            .iter()
            .zip(samples.iter_mut())
            .map(|(&elo, sample)| {
                sample.sort_by(f64::total_cmp);
                let at = |q: f64| {
                    if sample.is_empty() {
                        elo
                    } else {
                        sample[((sample.len() - 1) as f64 * q).round() as usize]
                    }
                };
                Rating {
                    elo,
                    low: at(0.025),
                    high: at(0.975),
                }
            })
            .collect()
    }

    /// How each pairing went.
    pub fn pairings(&self) -> Vec<Pairing> {
        let kinds = self.kinds.len();
        let mut out = Vec::new();
        for a in 0..kinds {
            for b in a + 1..kinds {
                let mut pairing = Pairing {
                    a,
                    b,
                    games: 0,
                    wins: 0,
                    ties: 0,
                    losses: 0,
                    first_places: 0,
                    p_value: 1.0,
                };
                for game in &self.games {
                    let mut present = game.kinds.to_vec();
                    present.sort_unstable();
                    present.dedup();
                    if present != [a, b] {
                        continue;
                    }
                    pairing.games += 1;
                    if game
                        .kinds
                        .iter()
                        .zip(&game.ranks)
                        .any(|(&kind, &rank)| kind == a && rank == 1)
                    {
                        pairing.first_places += 1;
                    }
                    for (i, _, s) in comparisons(game) {
                        let s = if i == a { s } else { 1.0 - s };
                        if s > 0.75 {
                            pairing.wins += 1;
                        } else if s < 0.25 {
                            pairing.losses += 1;
                        } else {
                            pairing.ties += 1;
                        }
                    }
                }
                let decided = (pairing.wins + pairing.losses) as f64;
                if decided > 0.0 {
                    let z = (pairing.wins as f64 - decided / 2.0) / (decided / 4.0).sqrt();
                    pairing.p_value = (2.0 * (1.0 - normal_cdf(z.abs()))).min(1.0);
                }
                out.push(pairing);
            }
        }
        out
    }

    /// Each kind's share of the games it played that it won: a first place shared by several
    /// seats is split between them. Par is what the kind's seats would win if every seat were
    /// alike (a third for one seat of three).
    pub fn win_shares(&self) -> Vec<WinShare> {
        (0..self.kinds.len())
            .map(|kind| {
                let mut share = WinShare::default();
                let mut variance = 0.0;
                for game in &self.games {
                    let seats = game.kinds.iter().filter(|&&k| k == kind).count();
                    if seats == 0 {
                        continue;
                    }
                    let firsts = game.ranks.iter().filter(|&&r| r == 1).count().max(1);
                    let own = game
                        .kinds
                        .iter()
                        .zip(&game.ranks)
                        .filter(|&(&k, &r)| k == kind && r == 1)
                        .count();
                    let par = seats as f64 / game.kinds.len() as f64;
                    share.games += 1;
                    share.won += own as f64 / firsts as f64;
                    share.par += par;
                    variance += par * (1.0 - par);
                }
                if share.games > 0 {
                    let n = share.games as f64;
                    share.p_value = if variance > 0.0 {
                        let z = (share.won - share.par) / variance.sqrt();
                        (2.0 * (1.0 - normal_cdf(z.abs()))).min(1.0)
                    } else {
                        1.0
                    };
                    share.par /= n;
                    // Wilson's 95 % interval of the share.
                    let p = share.won / n;
                    let z = 1.96f64;
                    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
                    let half =
                        z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
                    share.low = (centre - half).max(0.0);
                    share.high = (centre + half).min(1.0);
                }
                share
            })
            .collect()
    }

    /// The tournament as Markdown: ratings, pairings and thinking time.
    pub fn markdown(&self, title: &str, command: &str) -> String {
        use std::fmt::Write;
        let mut text = String::new();
        let _ = writeln!(text, "### {title}\n");
        let _ = writeln!(text, "`{command}`\n");
        let _ = writeln!(
            text,
            "{} games ({} failed), {} seats; Elo relative to `{}`, 95 % intervals from resampling whole games.\n",
            self.games.len(),
            self.failures.len(),
            self.seats,
            self.kinds[0].name()
        );
        let _ = writeln!(text, "| bot | Elo | 95 % interval | seconds per move |");
        let _ = writeln!(text, "|---|---|---|---|");
        for ((kind, rating), thinking) in self.kinds.iter().zip(self.ratings()).zip(&self.thinking)
        {
            let per_move = if thinking.decisions == 0 {
                0.0
            } else {
                thinking.time.as_secs_f64() / thinking.decisions as f64
            };
            let _ = writeln!(
                text,
                "| {} | {:+.0} | {:+.0} to {:+.0} | {:.4} |",
                kind.name(),
                rating.elo,
                rating.low,
                rating.high,
                per_move
            );
        }
        let _ = writeln!(
            text,
            "\n| pairing | games | score of the first | won-tied-lost (seat against seat) | games the first placed first | p |"
        );
        let _ = writeln!(text, "|---|---|---|---|---|---|");
        for pairing in self.pairings() {
            let _ = writeln!(
                text,
                "| {} – {} | {} | {:.1} % | {}-{}-{} | {} | {:.2e} |",
                self.kinds[pairing.a].name(),
                self.kinds[pairing.b].name(),
                pairing.games,
                100.0 * pairing.score(),
                pairing.wins,
                pairing.ties,
                pairing.losses,
                pairing.first_places,
                pairing.p_value
            );
        }
        let _ = writeln!(
            text,
            "\n| bot | games | won (shared first places split) | share | 95 % interval | par | p (against par) |"
        );
        let _ = writeln!(text, "|---|---|---|---|---|---|---|");
        for (kind, share) in self.kinds.iter().zip(self.win_shares()) {
            if share.games == 0 {
                continue;
            }
            let _ = writeln!(
                text,
                "| {} | {} | {:.1} | {:.1} % | {:.1} to {:.1} % | {:.1} % | {:.2e} |",
                kind.name(),
                share.games,
                share.won,
                100.0 * share.won / share.games as f64,
                100.0 * share.low,
                100.0 * share.high,
                100.0 * share.par,
                share.p_value
            );
        }
        for failure in &self.failures {
            let _ = writeln!(text, "\nfailed: {failure}");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(games: Vec<ArenaGame>) -> ArenaOutcome {
        ArenaOutcome {
            kinds: vec![BotKind::Random, BotKind::Hard],
            seats: 2,
            games,
            failures: Vec::new(),
            thinking: vec![Thinking::default(); 2],
        }
    }

    #[test]
    fn a_kind_that_wins_more_rates_higher_and_its_pairing_is_significant() {
        let games = (0..60)
            .map(|game| ArenaGame {
                kinds: if game % 2 == 0 {
                    vec![0, 1]
                } else {
                    vec![1, 0]
                },
                // The second kind wins 50 of 60.
                ranks: match (game % 2 == 0, game < 50) {
                    (true, true) => vec![2, 1],
                    (false, true) => vec![1, 2],
                    (true, false) => vec![1, 2],
                    (false, false) => vec![2, 1],
                },
            })
            .collect();
        let outcome = outcome(games);
        let ratings = outcome.ratings();
        assert_eq!(ratings[0].elo, 0.0);
        assert!(ratings[1].elo > 200.0, "{ratings:?}");
        assert!(ratings[1].low > 0.0 && ratings[1].low <= ratings[1].elo);
        let pairing = outcome.pairings()[0];
        assert_eq!((pairing.wins, pairing.ties, pairing.losses), (10, 0, 50));
        assert!(pairing.p_value < 0.01, "{pairing:?}");
    }

    #[test]
    fn evenly_matched_kinds_rate_alike() {
        let games = (0..40)
            .map(|game| ArenaGame {
                kinds: vec![0, 1],
                ranks: if game % 2 == 0 {
                    vec![1, 2]
                } else {
                    vec![2, 1]
                },
            })
            .collect();
        let outcome = outcome(games);
        let ratings = outcome.ratings();
        assert!(ratings[1].elo.abs() < 1.0, "{ratings:?}");
        assert!(ratings[1].low < 0.0 && ratings[1].high > 0.0);
        assert!(outcome.pairings()[0].p_value > 0.5);
    }

    #[test]
    fn a_lineup_turns_one_seat_each_game_and_counts_shares_against_par() {
        assert_eq!(
            turned(&[0, 1, 1], 3),
            [vec![0, 1, 1], vec![1, 1, 0], vec![1, 0, 1]]
        );
        // The first kind wins two of three games, one of them shared with the other kind.
        let outcome = ArenaOutcome {
            kinds: vec![BotKind::Hard, BotKind::Search],
            seats: 3,
            games: vec![
                ArenaGame {
                    kinds: vec![0, 1, 1],
                    ranks: vec![1, 2, 3],
                },
                ArenaGame {
                    kinds: vec![1, 1, 0],
                    ranks: vec![1, 3, 1],
                },
                ArenaGame {
                    kinds: vec![1, 0, 1],
                    ranks: vec![1, 2, 3],
                },
            ],
            failures: Vec::new(),
            thinking: vec![Thinking::default(); 2],
        };
        let shares = outcome.win_shares();
        assert_eq!((shares[0].games, shares[0].won), (3, 1.5));
        assert!((shares[0].par - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(shares[1].won, 1.5);
        assert!(shares[0].low < 0.5 && shares[0].high > 0.5);
    }
}
