//! A cheap estimate of how a seat stands, for bots that stop their search before the game ends
//! (the contract's `evaluate`): each seat's strength relative to the others.
//!
//! A seat's strength is the victory points it holds, plus what the board would score at each
//! winter still to come if it stood as it is (provinces, buildings, region majorities), plus a
//! little for armies on the board (they hold and take provinces) and for chests (they pay for
//! the next year's actions and bids). The estimate is the seat's share of all strength; a
//! finished game gives the winners an equal share of 1. Bots call it on their determinized
//! copies, so it sees only what such a copy holds.

use sdk::Seat;

use crate::engine;
use crate::state::State;

/// What one army on the board is worth, in victory points.
const ARMY_WORTH: f64 = 0.25;
/// What one chest is worth, in victory points.
const CHEST_WORTH: f64 = 0.1;
/// Every seat's floor, so a seat with nothing still has some chance and the shares are defined.
const FLOOR: f64 = 1.0;

/// The seat's expected share of the win in `0.0..=1.0`; none for a seat not at the table.
pub fn evaluate(state: &State, seat: Seat) -> Option<f64> {
    if seat >= state.seats {
        return None;
    }
    if let Some(result) = crate::final_result(state) {
        return Some(result.win_share(seat));
    }
    let strengths = strengths(state);
    let total: f64 = strengths.iter().sum();
    Some((strengths[seat as usize] / total).clamp(0.0, 1.0))
}

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
            FLOOR
                + f64::from(player.vp)
                + board[seat as usize] * winters_left
                + f64::from(armies) * ARMY_WORTH
                + f64::from(player.chests) * CHEST_WORTH
        })
        .collect()
}
