//! A cheap estimate of how a seat stands, for bots that stop their search before the game ends
//! (the contract's `evaluate`): each seat's share of the win.
//!
//! A seat's standing is what its map would score if the game ended now (the same scoring sheet
//! as the end of the game: forests, the largest town, lakes, deliveries, the scoring card). The
//! shares are a softmax over those scores whose temperature falls as the rounds run out, so an
//! early lead counts for less than the same lead in the last round; they add up to 1. A finished
//! game gives the winners an equal share of 1. Bots call it on their determinized copies, so it
//! sees only what such a copy holds; it reads the state and draws nothing.

use sdk::Seat;

use crate::engine;
use crate::state::{ROUNDS, State};

/// The softmax's temperature, in points, in the last round ...
const TEMPERATURE_AT_END: f64 = 2.0;
/// ... and how much it grows for each round still to come after the current one.
const TEMPERATURE_PER_ROUND: f64 = 1.5;

/// The seat's expected share of the win in `0.0..=1.0`; none for a seat not at the table.
pub fn evaluate(state: &State, seat: Seat) -> Option<f64> {
    if seat >= state.seats {
        return None;
    }
    if let Some(result) = crate::view::result(state) {
        return Some(result.win_share(seat));
    }
    let scores: Vec<f64> = state
        .players
        .iter()
        .map(|p| engine::score_map(&p.map, &state.settings.points, state.scoring_card).total as f64)
        .collect();
    let rounds_left = f64::from(ROUNDS.saturating_sub(state.round));
    let temperature = TEMPERATURE_AT_END + TEMPERATURE_PER_ROUND * rounds_left;
    let top = scores.iter().copied().fold(f64::MIN, f64::max);
    let weights: Vec<f64> = scores
        .iter()
        .map(|s| ((s - top) / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    Some((weights[seat as usize] / total).clamp(0.0, 1.0))
}
