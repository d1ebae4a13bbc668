//! Information-set Monte Carlo tree search over the contract alone.
//!
//! Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree for the deciding seat,
//! grown over many iterations, each of which plays a freshly determinized game (the ruleset's
//! `determinize`, seen from the deciding seat), so no plan ever rests on a secret the seat cannot
//! know. A node is what the deciding seat could tell apart: the actions taken since the root,
//! with the actions other seats took in secret hidden, and every action of a simultaneous round
//! hidden from the seats that chose beside it.
//!
//! - Where one seat decides in the open, arms are picked by UCB1 over the times each arm was
//!   available (an arm proposed in one determinized game may be refused in another).
//! - Where several seats decide at once, or a decision is private, arms are picked by regret
//!   matching (the selection rule of simultaneous-move MCTS, Lanctot et al. 2013): a mixed
//!   strategy that an opponent cannot exploit there, where UCB would play a predictable best
//!   reply to the past.
//! - Large decisions (many-pick choices, wide numbers, assignments) are widened progressively:
//!   a node proposes one more sampled answer as its visits grow.
//!
//! - Playouts are cut short where the ruleset gives an estimate of a position (the contract's
//!   `evaluate`): after a few random actions past the tree, every seat's result is the
//!   ruleset's estimate instead of the end of a random game. A random playout of a long game
//!   (a few hundred actions) is most of an iteration's cost and says little about the position
//!   it started from; the estimate is cheap and says more. A ruleset without an estimate keeps
//!   full playouts.
//!
//! - Where the ruleset offers a rollout policy (the contract's `rollout-action`, a quick
//!   answer a sensible player would give), playouts play it instead of a random answer, and a
//!   widened decision proposes it before sampled answers: a random plan of a whole season is
//!   rarely worth weighing, a rule of thumb's plan often is. A ruleset without one keeps
//!   random playouts and sampled answers.
//!
//! Answers come from the decision's kind alone, or from the ruleset's rollout policy; nothing
//! else is ever generated.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Result;

use sdk::{Action, DecisionKind, PendingDecision, Seat};

use super::Bot;
use tenka_runtime::table::{GameTable, Seed};

use crate::scratch::ScratchGame;
use crate::session::{Session, SessionError};

/// The levels' playout depth (see [`InfoSetSettings::playout_depth`]), measured with the easy
/// level on the longest game shipped, a two-player wargame of some 250 actions a game (its
/// rules document, section "Balance", has the figures): a game cost 38 s of CPU time with full
/// playouts, 13 s at depth 64, 4.7 s at 16 and 1.6 s at 4 or 0 (there the tree and the determinized
/// games cost more than the playout). Depth 16 against depth 4 won 11 of 20 games, no
/// difference, and at depth 4 the level beat the random bot in 92 of 100 games, 50 from each
/// side. Depth 4 plays as well as 16 for a third of the cost.
const PLAYOUT_DEPTH: u64 = 4;

/// How far below the best mean result an arm may be and still be drawn at a secret decision.
const SECRET_MARGIN: f64 = 0.05;

/// How an information-set search bot thinks.
#[derive(Clone, Debug, PartialEq)]
pub struct InfoSetSettings {
    /// The name the bot answers to (its level).
    pub name: &'static str,
    /// Iterations per decision: each determinizes the game afresh, walks the tree, plays on at
    /// random (to the end, or for [`InfoSetSettings::playout_depth`] actions and then asks the
    /// ruleset's estimate) and backs up every seat's result.
    pub iterations: usize,
    /// Where playouts run to the end of the game (the ruleset gives no estimate), iterations
    /// go on past [`InfoSetSettings::iterations`] until this many actions were played in all,
    /// up to ten times the iterations: a short game's iterations are a few actions each, and it
    /// gets more of them for the same work. Playouts cut short by an estimate cost little in
    /// actions and much in determinized games and calls, so there the iterations alone count.
    /// Deterministic like the iterations: it counts actions, not time.
    pub min_actions: u64,
    /// Thinking stops after this long even when iterations are left (a server's bots, whose
    /// turns people wait for). At least one iteration always runs.
    pub think_time: Option<Duration>,
    /// A playout longer than this many actions is cut off and scored as a middle place.
    pub max_playout_actions: u64,
    /// After this many random actions past the tree, a playout stops and every seat is scored
    /// by the ruleset's estimate (`Session::evaluate`) instead of played to the end: most of an
    /// iteration's cost is its playout, and a long game's random tail says less about the
    /// position than a ruleset's judgement of it. `None`, or a ruleset that gives no estimate,
    /// plays every playout to the end.
    pub playout_depth: Option<u64>,
    /// UCB's exploration constant (results are in 0..=1).
    pub exploration: f64,
    /// How much of regret matching's strategy is spread evenly, so every arm keeps being tried.
    pub regret_exploration: f64,
    /// A decision with at most this many answers has all of them weighed from the start; a
    /// larger one is widened progressively.
    pub enumerate_up_to: u64,
    /// Whether playouts and wide decisions follow the ruleset's rollout answers (the contract's
    /// `rollout-action`) where it gives them; without, they are random.
    pub rollout_policy: bool,
    /// With a temperature, the answer is drawn from a softmax over the root's mean results
    /// instead of taken as the most tried: a weaker player's mistakes, most often near misses.
    pub temperature: Option<f64>,
}

impl InfoSetSettings {
    /// Settings with the usual constants for a level of `name` with `iterations` per decision.
    pub fn level(name: &'static str, iterations: usize) -> InfoSetSettings {
        InfoSetSettings {
            name,
            iterations,
            think_time: None,
            min_actions: 0,
            max_playout_actions: 5_000,
            playout_depth: Some(PLAYOUT_DEPTH),
            exploration: 0.7,
            regret_exploration: 0.1,
            enumerate_up_to: 64,
            rollout_policy: true,
            temperature: None,
        }
    }
}

/// One answer weighed at a node for one seat.
#[derive(Debug)]
struct Arm {
    action: Action,
    /// Times the arm was picked.
    visits: u32,
    /// Times the arm could have been picked (its shape fitted the determinized decision).
    available: u32,
    /// Sum of the seat's results after picking it.
    total: f64,
    /// Regret matching's cumulative regret.
    regret: f64,
    /// Regret matching's summed strategy (its average is the strategy that approaches an
    /// equilibrium).
    strategy_sum: f64,
}

impl Arm {
    fn new(action: Action) -> Arm {
        Arm {
            action,
            visits: 0,
            available: 0,
            total: 0.0,
            regret: 0.0,
            strategy_sum: 0.0,
        }
    }

    fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.0
        } else {
            self.total / f64::from(self.visits)
        }
    }
}

/// A seat's arms at a node.
#[derive(Debug, Default)]
struct SeatArms {
    arms: Vec<Arm>,
    visits: u32,
    /// Whether the seat decided here at once with others or in secret (regret matching).
    secret: bool,
}

/// What the deciding seat can tell of one action taken: which seat took it, and the action
/// itself unless it was taken out of sight.
type Edge = (Seat, Option<Action>);

#[derive(Debug, Default)]
struct Node {
    seats: HashMap<Seat, SeatArms>,
    children: HashMap<Edge, usize>,
}

/// How a picked arm is reported back for its update.
struct Pick {
    node: usize,
    seat: Seat,
    arm: usize,
    /// The probability regret matching gave the arm (1 under UCB).
    probability: f64,
    /// The arms that were available at the pick, for regret matching's update.
    available: Vec<usize>,
    secret: bool,
}

/// The information-set search bot.
pub struct InfoSetBot {
    seat: Seat,
    table: GameTable,
    settings: InfoSetSettings,
    scratch: Option<ScratchGame>,
    /// Whether the ruleset gives an estimate: known once one was given, or once a whole
    /// playout was asked after each of its actions and got none, so a ruleset without one
    /// costs a playout of calls and then plays every playout to the end. (A ruleset may give
    /// none only where it cannot judge the position, as while secret plans wait to be carried
    /// out: the first "none" alone tells nothing.)
    estimates: Option<bool>,
    /// When the next decision's thinking must stop, if set ([`Bot::think_until`]).
    deadline: Option<Instant>,
    /// Whether the ruleset offers a rollout policy: known once it gave an answer, or once it
    /// gave none [`POLICY_PATIENCE`] times in a row before ever giving one.
    policy: Option<bool>,
    /// The rollout policy's silent answers so far, while [`InfoSetBot::policy`] is unknown.
    policy_silences: u32,
    /// Where the salts of rollout answers come from: a stream of its own, derived from the
    /// bot's seed, so asking a ruleset that gives none leaves the bot's choices as they were.
    salts: sdk::Salt,
}

/// How many times a ruleset may give no rollout answer before the bot stops asking: a ruleset
/// may offer answers for some decisions only (the large ones), so one silence tells little.
const POLICY_PATIENCE: u32 = 256;

impl InfoSetBot {
    /// A bot for `seat` whose choices come from `seed`.
    pub fn new(seat: Seat, seed: &Seed, settings: InfoSetSettings) -> InfoSetBot {
        let mut table = GameTable::new(seed);
        table.log_enabled = false;
        InfoSetBot {
            seat,
            table,
            settings,
            scratch: None,
            estimates: None,
            deadline: None,
            policy: None,
            policy_silences: 0,
            salts: sdk::Salt::new(u64::from_le_bytes([
                seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], seed[6], seed[7],
            ])),
        }
    }

    fn next_seed(&mut self) -> Seed {
        let mut seed = [0u8; 32];
        for chunk in seed.chunks_mut(8) {
            chunk.copy_from_slice(&sdk::Table::next_u64(&mut self.table).to_le_bytes());
        }
        seed
    }

    /// A uniform number in `0..1` from the bot's own stream.
    fn unit(&mut self) -> f64 {
        (sdk::Table::next_u64(&mut self.table) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A fresh determinized game of the deciding seat, in the reused scratch session.
    fn determinize(&mut self, session: &mut Session) -> Result<()> {
        let seed = self.next_seed();
        let determinized = session.determinize(self.seat, &seed)?;
        match self.scratch.as_mut() {
            Some(scratch) => scratch.replace(determinized)?,
            None => {
                self.scratch = Some(ScratchGame::new(session.ruleset().clone(), determinized)?);
            }
        }
        Ok(())
    }

    /// Adds arms to `arms` for `seat`'s decision of `kind`: every answer of a small decision,
    /// else one more answer whenever the visits have grown past what the current arms cover,
    /// the ruleset's rollout answer when it offers a new one, else a sampled one.
    fn widen(&mut self, arms: &mut SeatArms, seat: Seat, kind: &DecisionKind) -> Result<()> {
        if let Some(all) = enumerate(kind, self.settings.enumerate_up_to) {
            if arms.arms.len() < all.len() {
                for action in all {
                    if !arms.arms.iter().any(|arm| arm.action == action) {
                        arms.arms.push(Arm::new(action));
                    }
                }
            }
            return Ok(());
        }
        // Progressive widening: about 2·√visits arms, at least two.
        let wanted = (2.0 * f64::from(arms.visits + 1).sqrt()).ceil() as usize;
        if arms.arms.len() >= wanted.max(2) {
            return Ok(());
        }
        if let Some(action) = self.rollout_action(seat)?
            && !arms.arms.iter().any(|arm| arm.action == action)
        {
            arms.arms.push(Arm::new(action));
            return Ok(());
        }
        for _ in 0..4 {
            let action = sdk::random_action(kind, &mut self.table);
            if !arms.arms.iter().any(|arm| arm.action == action) {
                arms.arms.push(Arm::new(action));
                return Ok(());
            }
        }
        Ok(())
    }

    /// The ruleset's rollout answer for `seat` in the scratch game, salted from
    /// [`InfoSetBot::salts`]; none when the ruleset offers none here (see [`InfoSetBot::policy`]).
    fn rollout_action(&mut self, seat: Seat) -> Result<Option<Action>> {
        if self.policy == Some(false) || !self.settings.rollout_policy {
            return Ok(None);
        }
        let salt = self.salts.next_u64();
        let Some(scratch) = self.scratch.as_mut() else {
            return Ok(None);
        };
        let action = scratch.rollout_action(seat, salt)?;
        match (&action, self.policy) {
            (Some(_), _) => self.policy = Some(true),
            (None, None) => {
                self.policy_silences += 1;
                if self.policy_silences >= POLICY_PATIENCE {
                    self.policy = Some(false);
                }
            }
            (None, Some(_)) => {}
        }
        Ok(action)
    }

    /// Picks an arm for `decision` at `node` among those not yet refused in this determinized game.
    fn pick(
        &mut self,
        tree: &mut [Node],
        node: usize,
        decision: &PendingDecision,
        secret: bool,
        refused: &[usize],
    ) -> Result<Option<Pick>> {
        let mut arms = tree[node].seats.remove(&decision.seat).unwrap_or_default();
        arms.secret |= secret;
        if let Err(error) = self.widen(&mut arms, decision.seat, &decision.kind) {
            tree[node].seats.insert(decision.seat, arms);
            return Err(error);
        }
        let available: Vec<usize> = (0..arms.arms.len())
            .filter(|&i| !refused.contains(&i) && fits(&arms.arms[i].action, &decision.kind))
            .collect();
        let picked = if available.is_empty() {
            None
        } else if arms.secret {
            let strategy = self.regret_strategy(&arms, &available);
            let mut roll = self.unit();
            let mut chosen = available.len() - 1;
            for (slot, probability) in strategy.iter().enumerate() {
                if roll < *probability {
                    chosen = slot;
                    break;
                }
                roll -= probability;
            }
            for (slot, &arm) in available.iter().enumerate() {
                arms.arms[arm].strategy_sum += strategy[slot];
            }
            Some((available[chosen], strategy[chosen]))
        } else {
            let parent = available
                .iter()
                .map(|&arm| arms.arms[arm].available)
                .max()
                .unwrap_or(0)
                + 1;
            let log = f64::from(parent).ln();
            let mut best: Option<(f64, usize)> = None;
            for &arm in &available {
                let this = &arms.arms[arm];
                let score = if this.visits == 0 {
                    // Untried arms first, in a random order.
                    f64::INFINITY
                } else {
                    this.mean()
                        + self.settings.exploration * (log.max(0.0) / f64::from(this.visits)).sqrt()
                };
                let score = if score.is_infinite() {
                    1e9 + self.unit()
                } else {
                    score
                };
                if best.is_none_or(|(top, _)| score > top) {
                    best = Some((score, arm));
                }
            }
            best.map(|(_, arm)| (arm, 1.0))
        };
        let outcome = picked.map(|(arm, probability)| Pick {
            node,
            seat: decision.seat,
            arm,
            probability,
            available: available.clone(),
            secret: arms.secret,
        });
        tree[node].seats.insert(decision.seat, arms);
        Ok(outcome)
    }

    /// Regret matching's strategy over `available` arms, mixed with an even spread.
    fn regret_strategy(&self, arms: &SeatArms, available: &[usize]) -> Vec<f64> {
        let positive: Vec<f64> = available
            .iter()
            .map(|&arm| arms.arms[arm].regret.max(0.0))
            .collect();
        let sum: f64 = positive.iter().sum();
        let even = 1.0 / available.len() as f64;
        let spread = self.settings.regret_exploration;
        positive
            .iter()
            .map(|&p| {
                let matched = if sum > 0.0 { p / sum } else { even };
                (1.0 - spread) * matched + spread * even
            })
            .collect()
    }

    /// One iteration: determinize, walk and grow the tree, play on at random, back up. Answers
    /// how many actions it played.
    fn iterate(
        &mut self,
        session: &mut Session,
        tree: &mut Vec<Node>,
        observer_decision: &PendingDecision,
    ) -> Result<u64> {
        self.determinize(session)?;
        let mut path: Vec<Pick> = Vec::new();
        let mut node = 0usize;
        let mut in_tree = true;
        let mut steps = 0u64;
        // Actions played at random since the walk left the tree.
        let mut random_steps = 0u64;
        let mut first = true;
        loop {
            if !in_tree
                && self
                    .settings
                    .playout_depth
                    .is_some_and(|depth| random_steps >= depth)
                && let Some(results) = self.estimate()?
            {
                self.back_up(tree, &path, &results);
                return Ok(steps);
            }
            let Some(scratch) = self.scratch.as_mut() else {
                return Ok(steps);
            };
            let pending = scratch.pending()?;
            if pending.is_empty() {
                break;
            }
            steps += 1;
            if steps > self.settings.max_playout_actions {
                let seats = pending.iter().map(|d| d.seat).max().unwrap_or(0) as usize + 1;
                self.back_up(tree, &path, &vec![0.5; seats.max(self.seat as usize + 1)]);
                return Ok(steps);
            }
            // At the root the deciding seat answers first: beside it, others may be pending at
            // once, and the tree is the deciding seat's.
            let decision = if first {
                pending
                    .iter()
                    .find(|d| d.seat == observer_decision.seat)
                    .unwrap_or(&pending[0])
                    .clone()
            } else {
                pending[0].clone()
            };
            first = false;
            let simultaneous = pending.len() > 1;
            if in_tree {
                let secret = simultaneous || decision.private;
                let mut refused = Vec::new();
                let mut applied = None;
                while refused.len() < 8 {
                    let Some(pick) = self.pick(tree, node, &decision, secret, &refused)? else {
                        break;
                    };
                    let action = tree[node].seats[&decision.seat].arms[pick.arm]
                        .action
                        .clone();
                    let Some(scratch) = self.scratch.as_mut() else {
                        return Ok(steps);
                    };
                    match scratch.apply(decision.seat, &action) {
                        Ok(_) => {
                            applied = Some((pick, action));
                            break;
                        }
                        Err(SessionError::Rejected(_)) => refused.push(pick.arm),
                        Err(error) => return Err(error.into()),
                    }
                }
                let Some((pick, action)) = applied else {
                    // Nothing the node proposes fits this determinized game: play on at random.
                    in_tree = false;
                    if !self.playout_step(&decision)? {
                        break;
                    }
                    random_steps += 1;
                    continue;
                };
                // Availability counts every arm whose shape fitted, the refused ones included
                // (they were offered and lost their turn).
                if let Some(arms) = tree[node].seats.get_mut(&decision.seat) {
                    arms.visits += 1;
                    for &arm in &pick.available {
                        arms.arms[arm].available += 1;
                    }
                }
                let hidden = simultaneous || (decision.private && decision.seat != self.seat);
                let edge = (decision.seat, (!hidden).then_some(action));
                path.push(pick);
                let next = match tree[node].children.get(&edge) {
                    Some(&child) => child,
                    None => {
                        // Expansion: one new node per iteration, then a random playout.
                        tree.push(Node::default());
                        let child = tree.len() - 1;
                        tree[node].children.insert(edge, child);
                        in_tree = false;
                        child
                    }
                };
                node = next;
            } else if self.playout_step(&decision)? {
                random_steps += 1;
            } else {
                break;
            }
        }
        if self.estimates.is_none()
            && random_steps > self.settings.playout_depth.unwrap_or(u64::MAX)
        {
            // A whole playout was asked after each of its last actions and got no estimate.
            self.estimates = Some(false);
        }
        let Some(scratch) = self.scratch.as_mut() else {
            return Ok(steps);
        };
        let results = match scratch.result()? {
            Some(result) => {
                let most = result
                    .placings
                    .iter()
                    .map(|p| p.seat as usize + 1)
                    .max()
                    .unwrap_or(0)
                    .max(self.seat as usize + 1);
                // A shared place shares the values of the places it covers: a draw counted as
                // a win for both once, and the bots did not tell winning from drawing.
                let results: Vec<f64> = (0..most as u32)
                    .map(|seat| result.placing_value(seat))
                    .collect();
                results
            }
            None => vec![0.5; self.seat as usize + 1],
        };
        self.back_up(tree, &path, &results);
        Ok(steps)
    }

    /// Every seat's estimated result in the scratch game, from the ruleset's `evaluate`, or
    /// none when the ruleset gives no estimate there (the playout then goes on, and asks again
    /// after its next action). See [`InfoSetBot::estimates`] for when the bot stops asking.
    fn estimate(&mut self) -> Result<Option<Vec<f64>>> {
        if self.estimates == Some(false) {
            return Ok(None);
        }
        let Some(scratch) = self.scratch.as_mut() else {
            return Ok(None);
        };
        // Every seat of the real game: the scratch game knows how many (a scratch session once
        // had none, and seats after the bot's own were scored 0.5 in every playout).
        let Some(results) = scratch.estimates()? else {
            return Ok(None);
        };
        self.estimates = Some(true);
        Ok(Some(results))
    }

    /// Plays one answer to `decision` in the scratch game: the ruleset's rollout answer when it
    /// offers one that the rules take, else a random one. `false` when no answer fits (the
    /// playout ends there, scored as it stands).
    fn playout_step(&mut self, decision: &PendingDecision) -> Result<bool> {
        let mut suggested = self.rollout_action(decision.seat)?;
        // The suggestion first, then up to ten random answers.
        let tries = 10 + usize::from(suggested.is_some());
        for _ in 0..tries {
            let action = suggested
                .take()
                .unwrap_or_else(|| sdk::random_action(&decision.kind, &mut self.table));
            let Some(scratch) = self.scratch.as_mut() else {
                return Ok(false);
            };
            match scratch.apply(decision.seat, &action) {
                Ok(_) => return Ok(true),
                Err(SessionError::Rejected(_)) => {}
                Err(error) => return Err(error.into()),
            }
        }
        Ok(false)
    }

    /// Adds each seat's result to the arms it picked on the way down.
    fn back_up(&self, tree: &mut [Node], path: &[Pick], results: &[f64]) {
        for pick in path {
            let value = results.get(pick.seat as usize).copied().unwrap_or(0.5);
            let Some(arms) = tree[pick.node].seats.get_mut(&pick.seat) else {
                continue;
            };
            let arm = &mut arms.arms[pick.arm];
            arm.visits += 1;
            arm.total += value;
            if pick.secret {
                // Outcome-sampling regret: the picked arm's estimated value is the result over
                // its probability, every other arm's is zero; each arm's regret grows by its
                // estimate minus what the strategy earned.
                let earned = value;
                for &other in &pick.available {
                    let estimate = if other == pick.arm {
                        value / pick.probability.max(1e-6)
                    } else {
                        0.0
                    };
                    arms.arms[other].regret += estimate - earned;
                }
            }
        }
    }

    /// The answer at the root once thinking is over.
    fn choose(&mut self, tree: &[Node], decision: &PendingDecision) -> Option<Action> {
        let arms = tree.first()?.seats.get(&decision.seat)?;
        let tried: Vec<&Arm> = arms.arms.iter().filter(|arm| arm.visits > 0).collect();
        if tried.is_empty() {
            return None;
        }

        if let Some(temperature) = self.settings.temperature {
            // A softmax over mean results: near misses are common, blunders rare.
            let top = tried.iter().map(|arm| arm.mean()).fold(f64::MIN, f64::max);
            let weights: Vec<f64> = tried
                .iter()
                .map(|arm| ((arm.mean() - top) / temperature.max(1e-6)).exp())
                .collect();
            return Some(self.draw(&tried, &weights));
        }
        if arms.secret {
            // In secret a predictable answer is what an opponent who knows the bot would
            // exploit, so the answer is drawn, not taken. But regret matching's average strategy
            // over a large decision stays close to even after a few hundred iterations (every
            // arm started with an even share), which plays little better than at random. The
            // draw is therefore among the well-tried arms whose results are within a small
            // margin of the best, weighted by the average strategy: mixed where it matters, sound
            // where it does not.
            let most = tried.iter().map(|arm| arm.visits).max().unwrap_or(0);
            let solid: Vec<&Arm> = tried
                .iter()
                .copied()
                .filter(|arm| arm.visits * 4 >= most)
                .collect();
            let best = solid.iter().map(|arm| arm.mean()).fold(f64::MIN, f64::max);
            let near: Vec<&Arm> = solid
                .into_iter()
                .filter(|arm| arm.mean() >= best - SECRET_MARGIN)
                .collect();
            let weights: Vec<f64> = near
                .iter()
                .map(|arm| arm.strategy_sum.max(f64::from(arm.visits)))
                .collect();
            if !near.is_empty() {
                return Some(self.draw(&near, &weights));
            }
        }
        tried
            .iter()
            .max_by(|a, b| a.visits.cmp(&b.visits).then(a.mean().total_cmp(&b.mean())))
            .map(|arm| arm.action.clone())
    }

    fn draw(&mut self, arms: &[&Arm], weights: &[f64]) -> Action {
        let sum: f64 = weights.iter().sum();
        let mut roll = self.unit() * sum;
        for (arm, weight) in arms.iter().zip(weights) {
            if roll < *weight {
                return arm.action.clone();
            }
            roll -= weight;
        }
        arms[arms.len() - 1].action.clone()
    }
}

impl Bot for InfoSetBot {
    fn name(&self) -> &'static str {
        self.settings.name
    }

    fn think_until(&mut self, deadline: Instant) {
        self.deadline = Some(deadline);
    }

    fn decide(&mut self, session: &mut Session, decision: &PendingDecision) -> Result<Action> {
        self.seat = decision.seat;
        // A decision with a single answer needs no thought.
        if let Some(only) = super::only_answer(&decision.kind) {
            return Ok(only);
        }
        let started = Instant::now();
        let deadline = self.deadline.take();
        let mut tree = vec![Node::default()];
        let iterations = self.settings.iterations.max(1);
        let mut actions = 0u64;
        for iteration in 0..iterations.saturating_mul(10) {
            if iteration >= iterations
                && (actions >= self.settings.min_actions || self.estimates == Some(true))
            {
                break;
            }
            if iteration > 0
                && (self
                    .settings
                    .think_time
                    .is_some_and(|limit| started.elapsed() >= limit)
                    || deadline.is_some_and(|deadline| Instant::now() >= deadline))
            {
                break;
            }
            actions += self.iterate(session, &mut tree, decision)?;
        }
        Ok(self
            .choose(&tree, decision)
            .unwrap_or_else(|| sdk::random_action(&decision.kind, &mut self.table)))
    }
}

/// Every answer to `kind` when there are at most `most` of them.
pub(super) fn enumerate(kind: &DecisionKind, most: u64) -> Option<Vec<Action>> {
    match kind {
        DecisionKind::Choose(choose) => {
            let available = choose.choices.len() as u32;
            let max = choose.max.min(available);
            let min = choose.min.min(max);
            if max <= 1 {
                let mut all: Vec<Action> = Vec::new();
                if min == 0 {
                    all.push(Action::Choose(Vec::new()));
                }
                if max == 1 {
                    all.extend((0..available).map(|i| Action::Choose(vec![i])));
                }
                (all.len() as u64 <= most).then_some(all)
            } else if min == max && max == available {
                // Everything must be picked: one answer.
                (most >= 1)
                    .then(|| Action::Choose((0..available).collect()))
                    .map(|action| vec![action])
            } else {
                None
            }
        }
        DecisionKind::Number(range) => {
            let span = range.max.abs_diff(range.min);
            (span < most).then(|| (range.min..=range.max).map(Action::Number).collect())
        }
        DecisionKind::Assign(_) => None,
    }
}

/// Whether `action` has a shape `kind` accepts (the rules may still refuse it).
fn fits(action: &Action, kind: &DecisionKind) -> bool {
    match (action, kind) {
        (Action::Choose(picks), DecisionKind::Choose(choose)) => {
            let available = choose.choices.len() as u32;
            let count = picks.len() as u32;
            count >= choose.min.min(choose.max.min(available))
                && count <= choose.max.min(available)
                && picks.iter().all(|&i| i < available)
        }
        (Action::Number(number), DecisionKind::Number(range)) => {
            (range.min..=range.max).contains(number)
        }
        (Action::Assign(placements), DecisionKind::Assign(assign)) => {
            placements.iter().all(|&(slot, item)| {
                assign
                    .slots
                    .get(slot as usize)
                    .is_some_and(|s| (item as usize) < assign.items.len() && s.accepts(item))
            })
        }
        _ => false,
    }
}
