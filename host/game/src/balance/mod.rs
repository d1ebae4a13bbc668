//! Balance: many bot games of one or two rule sets of a ruleset, and what they say about the
//! game (win rate per seat, scores, length, the first player's advantage, the score lines and
//! events the contract already carries), as data and as a self-contained HTML report.
//!
//! A [`Plan`] names the ruleset, the map, the seats, the bots and one or two [`Arm`]s (the rules
//! under test and, to compare with, the standard rules or another variant). [`run`] plays every
//! game of every arm with the same seeds, on as many threads as asked, reporting progress and
//! stopping early when cancelled; [`report::html`] writes the report. `tenka simulate` uses
//! both, and a server can call the same functions for a variant lab.

pub mod report;
pub use crate::stats;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Result, anyhow, bail};
use serde::Serialize;

use crate::bots::{BotKind, play_out_observed};
use crate::session::{GameSpec, MILESTONE_PREFIX, NewGame, Session};
use tenka_runtime::LoadedRuleset;
use tenka_runtime::table::{Seed, derive_seed};

/// The most games one arm of a simulation may play: 10,000 games of the largest shipped ruleset
/// with random bots take a few minutes on one core, and what a balance report can tell is
/// settled long before (a 95 % interval of a win rate is ±1 point at 10,000 games).
pub const MAX_GAMES: u64 = 10_000;

/// The most actions one game may take before it counts as failed (a ruleset that never ends).
pub const MAX_ACTIONS_PER_GAME: u64 = 1_000_000;

/// A bot's name as the command line spells it.
pub fn bot_name(bot: BotKind) -> &'static str {
    bot.name()
}

/// One rule set of a simulation: a name for the report and the options it plays with.
#[derive(Clone, Debug, Serialize)]
pub struct Arm {
    /// How the report names it ("beginner", "standard rules").
    pub label: String,
    /// The options set; empty for the ruleset's defaults.
    pub options: Vec<sdk::OptionSetting>,
}

/// What to simulate.
#[derive(Clone)]
pub struct Plan {
    /// The ruleset.
    pub ruleset: Arc<LoadedRuleset>,
    /// The map's TOML, already checked.
    pub map_toml: String,
    /// A name for the map in the report.
    pub map_label: String,
    /// Seats per game.
    pub seats: u32,
    /// Games per arm, at most [`MAX_GAMES`].
    pub games: u64,
    /// The simulation's seed: game `i` of every arm gets the same seed, derived from it.
    pub seed: u64,
    /// The bot of each seat, repeated when fewer than the seats.
    pub bots: Vec<BotKind>,
    /// The rules under test first, then the one to compare with, if any.
    pub arms: Vec<Arm>,
    /// Worker threads (at least 1).
    pub jobs: usize,
}

impl Plan {
    /// The bot of `seat`.
    pub fn bot(&self, seat: u32) -> BotKind {
        self.bots
            .get(seat as usize % self.bots.len().max(1))
            .copied()
            .unwrap_or(BotKind::Random)
    }

    /// The seed of game `index` (the same in every arm).
    pub fn game_seed(&self, index: u64) -> Seed {
        let base = derive_seed(&[0; 32], "tenka-simulate", self.seed);
        derive_seed(&base, "game", index)
    }

    fn check(&self) -> Result<()> {
        let info = self.ruleset.info();
        if self.seats < info.min_seats || self.seats > info.max_seats {
            bail!(
                "{} plays with {} to {} players, not {}",
                info.id,
                info.min_seats,
                info.max_seats,
                self.seats
            );
        }
        if self.games == 0 || self.games > MAX_GAMES {
            bail!(
                "a simulation plays 1 to {MAX_GAMES} games per rule set, not {}",
                self.games
            );
        }
        if self.arms.is_empty() || self.arms.len() > 2 {
            bail!("a simulation compares one or two rule sets");
        }
        if self.bots.is_empty() {
            bail!("a simulation needs at least one bot");
        }
        Ok(())
    }
}

/// What one finished game gives the report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GameStats {
    /// The game's number (its seed's index).
    pub index: u64,
    /// Actions applied.
    pub actions: u64,
    /// The seat that acted first.
    pub first_seat: Option<u32>,
    /// Final score by seat.
    pub scores: Vec<i64>,
    /// Rank by seat (1 wins; shared ranks are shared wins).
    pub ranks: Vec<u32>,
    /// Points by score-line label (its catalogue key), summed over seats.
    pub score_lines: BTreeMap<String, i64>,
    /// Public events by catalogue key.
    pub events: BTreeMap<String, u64>,
    /// Public `milestone.` events (a ruleset's rounds or years, where it marks them).
    pub milestones: u64,
    /// Events that close a stage worth pausing on (seasons, rounds).
    pub stages: u64,
    /// Cubes dropped into the battle tower.
    pub tower_in: u64,
    /// Cubes that came out of it.
    pub tower_out: u64,
}

/// The games of one arm.
#[derive(Clone, Debug, Serialize)]
pub struct ArmResult {
    /// The arm.
    pub arm: Arm,
    /// Every finished game, in index order.
    pub games: Vec<GameStats>,
    /// Games that failed, with why (index order).
    pub failures: Vec<(u64, String)>,
}

/// A simulation's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Simulation {
    /// The ruleset's id.
    pub ruleset: String,
    /// Its content hash.
    pub ruleset_hash: String,
    /// The map's name.
    pub map: String,
    /// Seats per game.
    pub seats: u32,
    /// The bot names by seat.
    pub bots: Vec<BotKind>,
    /// The seed.
    pub seed: u64,
    /// Games asked per arm.
    pub games_asked: u64,
    /// Each arm, in the plan's order.
    pub arms: Vec<ArmResult>,
    /// Worker threads used.
    pub jobs: usize,
    /// Wall time of all the games.
    pub wall_seconds: f64,
    /// Whether it was cancelled before every game was played.
    pub cancelled: bool,
    /// English texts of the catalogue keys seen, for labels.
    pub texts: BTreeMap<String, String>,
}

/// Plays one game and gathers its statistics. `after` sees the finished session (to export its
/// record).
fn play_one(
    plan: &Plan,
    arm: &Arm,
    index: u64,
    after: &(dyn Fn(usize, u64, &mut Session) -> Result<()> + Sync),
    arm_index: usize,
) -> Result<GameStats> {
    let seed = plan.game_seed(index);
    let spec = GameSpec {
        map_toml: plan.map_toml.clone(),
        options: arm.options.clone(),
        seats: plan.seats,
        seed,
        position: None,
    };
    let mut session = plan.ruleset.new_game(spec)?;
    let mut bots: Vec<_> = (0..plan.seats)
        .map(|seat| plan.bot(seat).create(&seed, seat))
        .collect();
    let mut stats = GameStats {
        index,
        ..GameStats::default()
    };
    let actions = play_out_observed(
        &mut session,
        &mut bots,
        MAX_ACTIONS_PER_GAME,
        |seat, applied| {
            stats.first_seat.get_or_insert(seat);
            for event in &applied.events {
                // Private events repeat, seat by seat, what the public ones tell; they are
                // left out so a count means one thing that happened at the table.
                if event.audience != sdk::Audience::Everyone {
                    continue;
                }
                *stats.events.entry(event.text.key.clone()).or_default() += 1;
                stats.milestones += u64::from(event.text.key.starts_with(MILESTONE_PREFIX));
                stats.stages += u64::from(event.summary.is_some());
            }
            for drop in &applied.tower {
                stats.tower_in += drop.dropped.iter().map(|c| u64::from(c.count)).sum::<u64>();
                stats.tower_out += drop
                    .came_out
                    .iter()
                    .map(|c| u64::from(c.count))
                    .sum::<u64>();
            }
        },
    )?;
    stats.actions = actions;
    let result = session
        .result()?
        .ok_or_else(|| anyhow!("the game ended without a result"))?;
    stats.scores = vec![0; plan.seats as usize];
    stats.ranks = vec![0; plan.seats as usize];
    for placing in &result.placings {
        if let Some(score) = stats.scores.get_mut(placing.seat as usize) {
            *score = placing.score;
            stats.ranks[placing.seat as usize] = placing.rank;
        }
    }
    for line in &result.breakdown {
        *stats.score_lines.entry(line.label.key.clone()).or_default() += line.points;
    }
    after(arm_index, index, &mut session)?;
    Ok(stats)
}

/// Plays every game of every arm of `plan`. `progress` is told each finished game (games done,
/// games in all); setting `cancel` stops the workers after the games they are playing, and the
/// result holds the games finished so far. `after` sees each finished session (arm index, game
/// index), for example to export its record; an error there fails that game.
pub fn run(
    plan: &Plan,
    progress: &(dyn Fn(u64, u64) + Sync),
    cancel: &AtomicBool,
    after: &(dyn Fn(usize, u64, &mut Session) -> Result<()> + Sync),
) -> Result<Simulation> {
    plan.check()?;
    let total = plan.games * plan.arms.len() as u64;
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let jobs = plan.jobs.clamp(1, total as usize);
    let started = Instant::now();
    type Outcome = (usize, u64, Result<GameStats>);
    let mut outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut finished = Vec::new();
                    loop {
                        if cancel.load(Ordering::Relaxed) {
                            return finished;
                        }
                        let ticket = next.fetch_add(1, Ordering::Relaxed);
                        if ticket >= total {
                            return finished;
                        }
                        // Game by game, the arms alternate: a cancelled run has about as many
                        // games of each.
                        let arm_index = (ticket % plan.arms.len() as u64) as usize;
                        let index = ticket / plan.arms.len() as u64;
                        let outcome =
                            play_one(plan, &plan.arms[arm_index], index, after, arm_index);
                        finished.push((arm_index, index, outcome));
                        progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    let wall_seconds = started.elapsed().as_secs_f64();
    outcomes.sort_by_key(|(arm, index, _)| (*arm, *index));
    let mut arms: Vec<ArmResult> = plan
        .arms
        .iter()
        .map(|arm| ArmResult {
            arm: arm.clone(),
            games: Vec::new(),
            failures: Vec::new(),
        })
        .collect();
    for (arm, index, outcome) in outcomes {
        match outcome {
            Ok(stats) => arms[arm].games.push(stats),
            Err(error) => arms[arm].failures.push((index, format!("{error:#}"))),
        }
    }
    let texts = english_texts(&plan.ruleset, &arms);
    Ok(Simulation {
        ruleset: plan.ruleset.info().id.clone(),
        ruleset_hash: plan.ruleset.hash().0.clone(),
        map: plan.map_label.clone(),
        seats: plan.seats,
        bots: (0..plan.seats).map(|seat| plan.bot(seat)).collect(),
        seed: plan.seed,
        games_asked: plan.games,
        arms,
        jobs,
        wall_seconds,
        cancelled: cancel.load(Ordering::Relaxed),
        texts,
    })
}

/// The English catalogue templates of the score-line and event keys the games used, for the
/// report's labels. A ruleset without an English catalogue leaves the keys as they are.
fn english_texts(ruleset: &LoadedRuleset, arms: &[ArmResult]) -> BTreeMap<String, String> {
    let used: std::collections::BTreeSet<&String> = arms
        .iter()
        .flat_map(|arm| &arm.games)
        .flat_map(|game| game.score_lines.keys().chain(game.events.keys()))
        .collect();
    let Ok(catalogue) = ruleset.catalogue("en") else {
        return BTreeMap::new();
    };
    catalogue
        .into_iter()
        .filter(|(key, _)| used.contains(key))
        .collect()
}
