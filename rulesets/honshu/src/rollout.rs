//! A quick answer to a pending decision, as a player who knows the rules would give it without
//! thinking ahead (the contract's `rollout-action`). Search bots play these answers in their
//! playouts: a random placement buries towns under fallow land and scatters lakes, and a
//! playout of such placements tells a search little about the card it chose.
//!
//! The rule of thumb: a card is placed where its map scores most right after (the scoring sheet
//! of the end of the game, as the estimate reads it), among a sample of the legal placements
//! drawn with the salt: weighing every rotation, square and layer at every step of every playout
//! would cost more than the playout. Each of the three steps (rotation, square, layer) answers
//! toward the best placement that still agrees with the steps already taken. Everything else
//! (the trick, the pick, the fees) is left to chance.

use sdk::{Action, DecisionKind, Salt, Seat};

use crate::decide::placement_steps;
use crate::engine;
use crate::moves::Step;
use crate::state::{Layer, Square, State};

/// How many legal placements a step weighs at most.
const SAMPLE: usize = 12;

/// The quick answer to `seat`'s pending decision, or none where chance answers as well.
pub fn rollout_action(state: &State, seat: Seat, salt: u64) -> Option<Action> {
    let (card, steps, grid) = placement_steps(state, seat)?;
    let grid = grid?;
    let player = &state.players[seat as usize];
    let layout = state.deck.card(card);
    let mut salt = Salt::new(salt);

    // The placements that agree with the steps taken so far.
    let rotations: Vec<u8> = match player.draft.rotation {
        Some(rotation) => vec![rotation],
        None => grid.legal_rotations(layout),
    };
    let mut candidates: Vec<(u8, Square, Layer)> = Vec::new();
    for rotation in rotations {
        let origins = match player.draft.origin {
            Some(origin) => vec![origin],
            None => grid.legal_origins(layout, rotation),
        };
        for origin in origins {
            let (over, under) = grid.layers(layout, origin, rotation);
            if over {
                candidates.push((rotation, origin, Layer::Over));
            }
            if under {
                candidates.push((rotation, origin, Layer::Under));
            }
        }
    }
    // A sample drawn with the salt (a partial shuffle), so playouts see several good placements.
    let sample = candidates.len().min(SAMPLE);
    for i in 0..sample {
        let j = i + salt.pick_index(candidates.len() - i);
        candidates.swap(i, j);
    }
    candidates.truncate(sample);
    let scores: Vec<f64> = candidates
        .iter()
        .map(|&(rotation, origin, layer)| {
            let mut map = player.map.clone();
            let mut pool = state.pool;
            engine::place_unchecked(&mut map, &mut pool, card, layout, origin, rotation, layer);
            engine::score_map(&map, &state.settings.points, state.scoring_card).total as f64
        })
        .collect();
    let (rotation, origin, layer) = candidates[salt.best_of(&scores)?];

    let wanted = match (player.draft.rotation, player.draft.origin) {
        (None, _) => Step::Rotate(rotation),
        (Some(_), None) => Step::At(origin),
        (Some(_), Some(_)) => Step::Layer(layer),
    };
    let index = steps.iter().position(|&step| step == wanted)?;
    let decisions = crate::decide::pending(state);
    let decision = decisions.iter().find(|decision| decision.seat == seat)?;
    matches!(decision.kind, DecisionKind::Choose(_)).then(|| Action::Choose(vec![index as u32]))
}
