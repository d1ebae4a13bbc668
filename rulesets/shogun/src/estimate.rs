//! A cheap estimate of how a seat stands, for bots that stop their search before the game ends
//! (the contract's `evaluate`): each seat's chance of winning from its strength against the
//! others'.
//!
//! A seat's strength is the victory points it holds, plus what the board would score at each
//! winter still to come if it stood as it is (provinces, buildings, region majorities), plus a
//! little for armies on the board (they hold and take provinces) and for chests (they pay for
//! the next year's actions and bids). The chances are a softmax over the strengths whose
//! temperature shrinks as the seasons run out: early on a lead of a few points says little, in
//! the last season it nearly decides the game. A share of all strength (the first estimate) put
//! every seat within a hundredth of a third, too flat for a search to tell moves apart. A
//! finished game gives the winners an equal share of 1. Bots call it on their determinized
//! copies, so it sees only what such a copy holds.
//!
//! There is no estimate while a season's plans are laid and not yet carried out (from the first
//! plan given to the end of the season's actions): a plan changes nothing on the board until
//! its actions run, so the board alone cannot judge it, and a bot that stopped its playout there
//! valued every plan the same. A bot's playout goes on to the next season's planning instead.

use sdk::Seat;

use crate::engine;
use crate::state::{Phase, State};

/// What one army on the board is worth, in victory points.
const ARMY_WORTH: f64 = 0.25;
/// What one chest is worth, in victory points.
const CHEST_WORTH: f64 = 0.1;
/// The softmax's temperature in the last season, in victory points...
const LAST_SEASON_TEMPERATURE: f64 = 3.0;
/// ...and what each season still to play adds to it.
const TEMPERATURE_PER_SEASON: f64 = 2.0;

/// The seat's chance of winning in `0.0..=1.0`; none for a seat not at the table, and none
/// while plans are laid and not carried out (see the module's comment).
pub fn evaluate(state: &State, seat: Seat) -> Option<f64> {
    if seat >= state.seats {
        return None;
    }
    if let Some(result) = crate::view::result(state) {
        return Some(result.win_share(seat));
    }
    if plans_pending(state) {
        return None;
    }
    chances(state).get(seat as usize).copied()
}

/// Whether a season's plans are laid and not all carried out yet.
fn plans_pending(state: &State) -> bool {
    match state.phase {
        Phase::Planning => state.plans.iter().any(Option::is_some),
        Phase::Specials { .. } | Phase::Actions { .. } => true,
        Phase::Draft | Phase::Winter { .. } | Phase::Over => false,
    }
}

/// Every seat's chance of winning from the board as it stands: a softmax over the strengths.
pub fn chances(state: &State) -> Vec<f64> {
    let strengths = strengths(state);
    let temperature = LAST_SEASON_TEMPERATURE
        + TEMPERATURE_PER_SEASON * f64::from(seasons_left(state).saturating_sub(1));
    let top = strengths.iter().copied().fold(f64::MIN, f64::max);
    let weights: Vec<f64> = strengths
        .iter()
        .map(|strength| ((strength - top) / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    weights
        .iter()
        .map(|weight| (weight / total).clamp(0.0, 1.0))
        .collect()
}

/// The seasons still to play, this one included.
fn seasons_left(state: &State) -> u32 {
    let played = state.year.saturating_sub(1) * SEASONS + state.season;
    (state.settings.years * SEASONS)
        .saturating_sub(played)
        .max(1)
}

/// Seasons in a year (spring, summer, autumn).
const SEASONS: u32 = 3;

/// Every seat's strength, in victory points.
fn strengths(state: &State) -> Vec<f64> {
    let winters_left = f64::from((state.settings.years + 1).saturating_sub(state.year).max(1));
    let mut board = vec![0.0; state.seats as usize];
    for line in engine::score(state) {
        board[line.seat as usize] += line.points as f64;
    }
    (0..state.seats)
        .map(|seat| {
            let player = &state.players[seat as usize];
            let armies: u32 = state
                .provinces_of(seat)
                .iter()
                .map(|&p| state.provinces[p].armies)
                .sum();
            f64::from(player.vp)
                + board[seat as usize] * winters_left
                + f64::from(armies) * ARMY_WORTH
                + f64::from(player.chests) * CHEST_WORTH
        })
        .collect()
}
