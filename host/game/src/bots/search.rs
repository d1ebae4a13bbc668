//! The search bot: determinized Monte Carlo search over the contract alone.

use std::time::{Duration, Instant};

use anyhow::Result;

use sdk::{Action, DecisionKind, PendingDecision, Seat};

use super::Bot;
use crate::scratch::ScratchGame;
use crate::session::{Session, SessionError};
use tenka_runtime::table::{GameTable, Seed};

/// How hard the search bot thinks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchSettings {
    /// The most candidate actions weighed per decision; a larger decision is sampled.
    pub candidates: usize,
    /// Random playouts per candidate, each on a freshly determinized game.
    pub playouts: usize,
    /// A playout longer than this many actions is cut off and scored as a middle place.
    pub max_playout_actions: u64,
    /// Thinking stops after this long: each candidate gets an equal share of it, and at least
    /// one playout. `None` thinks through every playout.
    pub think_time: Option<Duration>,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            candidates: 8,
            playouts: 8,
            max_playout_actions: 5_000,
            think_time: None,
        }
    }
}

/// Determinized Monte Carlo search. For each candidate action it asks the real game for an
/// determinized copy (hidden information redrawn by the ruleset, the tower's contents reshuffled,
/// a random stream of the bot's own), applies the candidate, plays on at random to the end and
/// scores the seat's place: 1 for first, 0 for last. The best average wins.
pub struct SearchBot {
    seat: Seat,
    table: GameTable,
    settings: SearchSettings,
    scratch: Option<ScratchGame>,
}

impl SearchBot {
    /// A search bot for `seat` whose choices come from `seed`.
    pub fn new(seat: Seat, seed: &Seed, settings: SearchSettings) -> SearchBot {
        let mut table = GameTable::new(seed);
        table.log_enabled = false;
        SearchBot {
            seat,
            table,
            settings,
            scratch: None,
        }
    }

    fn next_seed(&mut self) -> Seed {
        let mut seed = [0u8; 32];
        for chunk in seed.chunks_mut(8) {
            chunk.copy_from_slice(&sdk::Table::next_u64(&mut self.table).to_le_bytes());
        }
        seed
    }

    /// The actions worth weighing: all of them when few, else a random sample.
    fn candidates(&mut self, kind: &DecisionKind) -> Vec<Action> {
        let most = self.settings.candidates.max(1);
        match kind {
            DecisionKind::Choose(choose) if choose.max <= 1 && choose.choices.len() <= most => {
                let mut all: Vec<Action> = (0..choose.choices.len() as u32)
                    .map(|i| Action::Choose(vec![i]))
                    .collect();
                if choose.min == 0 {
                    all.push(Action::Choose(Vec::new()));
                }
                all
            }
            DecisionKind::Number(range) if range.max.abs_diff(range.min) < most as u64 => {
                (range.min..=range.max).map(Action::Number).collect()
            }
            _ => {
                let mut sample: Vec<Action> = Vec::new();
                for _ in 0..most * 3 {
                    let action = sdk::random_action(kind, &mut self.table);
                    if !sample.contains(&action) {
                        sample.push(action);
                    }
                    if sample.len() == most {
                        break;
                    }
                }
                sample
            }
        }
    }

    /// One playout: determinize, apply the candidate, play on at random. `None` if the rules refuse
    /// the candidate in the determinized game.
    fn playout(&mut self, session: &mut Session, candidate: &Action) -> Result<Option<f64>> {
        let seed = self.next_seed();
        let determinized = session.determinize(self.seat, &seed)?;
        let scratch = match self.scratch.as_mut() {
            Some(scratch) => {
                scratch.replace(determinized)?;
                scratch
            }
            None => self
                .scratch
                .insert(ScratchGame::new(session.ruleset().clone(), determinized)?),
        };
        match scratch.apply(self.seat, candidate) {
            Ok(_) => {}
            Err(SessionError::Rejected(_)) => return Ok(None),
            Err(error) => return Err(error.into()),
        }
        let mut steps = 0;
        while let Some(decision) = scratch.pending()?.into_iter().next() {
            steps += 1;
            if steps > self.settings.max_playout_actions {
                return Ok(Some(0.5));
            }
            let mut applied = false;
            for _ in 0..10 {
                let action = sdk::random_action(&decision.kind, &mut self.table);
                match scratch.apply(decision.seat, &action) {
                    Ok(_) => {
                        applied = true;
                        break;
                    }
                    Err(SessionError::Rejected(_)) => {}
                    Err(error) => return Err(error.into()),
                }
            }
            if !applied {
                return Ok(Some(0.5));
            }
        }
        let Some(result) = scratch.result()? else {
            return Ok(Some(0.5));
        };
        // A shared place shares the values of the places it covers (a draw is not a win).
        Ok(Some(result.placing_value(self.seat)))
    }
}

impl Bot for SearchBot {
    fn name(&self) -> &'static str {
        "search"
    }

    fn decide(&mut self, session: &mut Session, decision: &PendingDecision) -> Result<Action> {
        self.seat = decision.seat;
        let candidates = self.candidates(&decision.kind);
        if candidates.len() <= 1 {
            return Ok(candidates
                .into_iter()
                .next()
                .unwrap_or_else(|| sdk::random_action(&decision.kind, &mut self.table)));
        }
        let mut best: Option<(f64, Action)> = None;
        let share = self
            .settings
            .think_time
            .map(|time| time / candidates.len() as u32);
        for candidate in candidates {
            let mut total = 0.0;
            let mut counted = 0usize;
            let started = Instant::now();
            for _ in 0..self.settings.playouts {
                if counted > 0 && share.is_some_and(|share| started.elapsed() >= share) {
                    break;
                }
                match self.playout(session, &candidate)? {
                    Some(value) => {
                        total += value;
                        counted += 1;
                    }
                    None => break,
                }
            }
            if counted == 0 {
                continue;
            }
            let mean = total / counted as f64;
            if best.as_ref().is_none_or(|(score, _)| mean > *score) {
                best = Some((mean, candidate));
            }
        }
        Ok(best.map_or_else(
            || sdk::random_action(&decision.kind, &mut self.table),
            |(_, action)| action,
        ))
    }
}
