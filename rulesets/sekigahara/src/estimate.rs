//! A cheap estimate of how a side stands, for bots that stop their search before the game ends
//! (the contract's `evaluate`): its chance of winning, from what the position holds.
//!
//! The game is won on points after the last week (2 per castle, 1 per resource area, ties to the
//! tie winner) unless a commander or a disk that ends the game falls first. The estimate weighs
//! one side's lead over the other, in points:
//!
//! - the points the side would score if the game ended now, and half a point to the tie winner;
//! - its fighting strength: the mon of its blocks on the map and in its reinforcement box (the
//!   blocks that take and hold castles later), and the cards in its hand (each deploys a block in
//!   battle or pays for movement);
//! - the danger to what ends the game at once: a commander block, or a castle with a disk whose
//!   loss ends the game, standing in an area where enemy blocks stand too.
//!
//! The lead becomes a chance through a logistic curve that flattens the more turns are left, so
//! an early lead counts for less than the same lead in the last week. A finished game gives the
//! winner 1 and the loser 0. Bots call it on their determinized copies, so it sees only what such
//! a copy holds; it reads the state and draws nothing.

use sdk::Seat;

use crate::data::DiskEffect;
use crate::state::{Place, Side, State, other};

/// What one mon of a block on the map or in the reinforcement box is worth, in points.
const MON_WORTH: f64 = 0.2;
/// What one card in hand is worth, in points.
const CARD_WORTH: f64 = 0.25;
/// What the tie winner's tie is worth, in points.
const TIE_WORTH: f64 = 0.5;
/// What losing the game at once would cost, in points, scaled by the share of the blocks in
/// the endangered area that are the enemy's.
const DANGER_WORTH: f64 = 6.0;
/// The logistic curve's scale, in points, in the last turn of the game ...
const SCALE_AT_END: f64 = 1.0;
/// ... and how much it grows for each turn still to come after the current one.
const SCALE_PER_TURN: f64 = 0.5;

/// The side's chance of winning in `0.0..=1.0`; none for a seat not at the table.
pub fn evaluate(state: &State, seat: Seat) -> Option<f64> {
    if seat >= 2 {
        return None;
    }
    let side = seat as Side;
    if let Some(winner) = winner(state) {
        return Some(if winner == side { 1.0 } else { 0.0 });
    }
    let lead = lead(state, side);
    let turns_left = f64::from(
        (state.board.weeks().saturating_sub(state.week)) * 2 + u32::from(state.turn == 0),
    );
    let scale = SCALE_AT_END + SCALE_PER_TURN * turns_left;
    Some((1.0 / (1.0 + (-lead / scale).exp())).clamp(0.0, 1.0))
}

/// The winner of a finished game, or of one a fallen side has lost before the ending is
/// recorded.
fn winner(state: &State) -> Option<Side> {
    if let Some((winner, _)) = state.ending {
        return Some(winner);
    }
    match state.fallen {
        [true, true] => Some(state.tie_winner()),
        [true, false] => Some(1),
        [false, true] => Some(0),
        [false, false] => None,
    }
}

/// How far `side` is ahead of the other, in points (negative when behind).
fn lead(state: &State, side: Side) -> f64 {
    worth(state, side) - worth(state, other(side))
}

/// What a side's position is worth, in points.
fn worth(state: &State, side: Side) -> f64 {
    let mut mon = 0u32;
    for (b, block) in state.blocks.iter().enumerate() {
        let def = &state.board.blocks[b];
        if def.side == side && matches!(block.place, Place::Area(_) | Place::Reserve) {
            mon += u32::from(def.mon);
        }
    }
    let tie = if state.tie_winner() == side {
        TIE_WORTH
    } else {
        0.0
    };
    f64::from(state.points(side))
        + tie
        + MON_WORTH * f64::from(mon)
        + CARD_WORTH * state.hands[side].len() as f64
        - DANGER_WORTH * danger(state, side)
}

/// How close `side` stands to losing at once, in `0.0..=1.0` per endangered thing: for its
/// commander and each of its disks whose loss ends the game, the enemy's share of the blocks in
/// that area when enemy blocks stand there.
fn danger(state: &State, side: Side) -> f64 {
    let counts = state.counts();
    let share = |area: usize| {
        let [own, enemy] = [counts[area][side], counts[area][other(side)]];
        if enemy == 0 {
            0.0
        } else {
            enemy as f64 / (own + enemy) as f64
        }
    };
    let mut danger = 0.0;
    for (b, block) in state.blocks.iter().enumerate() {
        let def = &state.board.blocks[b];
        if def.side == side
            && def.commander
            && let Place::Area(area) = block.place
        {
            danger += share(area);
        }
    }
    for (d, disk) in state.board.disks.iter().enumerate() {
        if disk.effect == DiskEffect::LossEndsGame
            && !state.disks_lost[d]
            && state.board.areas[disk.area].owner == Some(side)
        {
            danger += share(disk.area);
        }
    }
    danger
}
