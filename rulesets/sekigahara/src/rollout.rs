//! A quick answer to a pending decision, as a player who knows the rules would give it without
//! thinking ahead (the contract's `rollout-action`). Search bots play these answers in their
//! playouts, where a random answer splits stacks, fights hopeless battles and retreats towards
//! the enemy.
//!
//! The rules of thumb: a stack moves whole; combat is fought first where the odds are best; a
//! besieged defender fights when it has at least as many blocks in the area as the attacker,
//! and withdraws into the castle otherwise; a retreat goes where the fewest enemy blocks stand.
//! Everything else (cards, stacks to move, routes, leaders, casualties) is left to chance.

use sdk::{Action, Salt, Seat};

use crate::ask::{Act, asks};
use crate::state::{State, other};

/// The quick answer to `seat`'s pending decision, or none where chance answers as well.
pub fn rollout_action(state: &State, seat: Seat, salt: u64) -> Option<Action> {
    let ask = asks(state).into_iter().find(|ask| ask.seat == seat)?;
    let side = ask.seat as usize;
    let mut salt = Salt::new(salt);
    let acts: Vec<&Act> = ask.choices().iter().map(|(_, act)| act).collect();
    let index = if let Some(all) = acts.iter().position(|act| **act == Act::AllBlocks) {
        all
    } else if acts.iter().any(|act| matches!(act, Act::Withdraw(_))) {
        let battle = state.battle.as_ref()?;
        let defenders = state.count_in(battle.area, side);
        let attackers = state.count_in(battle.area, other(side));
        let withdraw = defenders < attackers;
        acts.iter()
            .position(|act| **act == Act::Withdraw(withdraw))?
    } else if acts.iter().all(|act| matches!(act, Act::Area(_))) && !acts.is_empty() {
        let scores: Vec<f64> = acts
            .iter()
            .map(|act| {
                let Act::Area(area) = act else {
                    return f64::NEG_INFINITY;
                };
                let own = state.count_in(*area, side) as f64;
                let enemy = state.count_in(*area, other(side)) as f64;
                // Combat where the odds are best; a retreat (no own blocks there yet) where
                // the fewest enemy blocks stand.
                own - 1.5 * enemy
            })
            .collect();
        salt.best_of(&scores)?
    } else {
        return None;
    };
    ask.picks()
        .is_some_and(|(min, max)| min <= 1 && max >= 1)
        .then(|| Action::Choose(vec![index as u32]))
}
