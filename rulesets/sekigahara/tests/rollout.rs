//! The rollout policy bots play in their playouts (`Game::rollout_action`): every answer it
//! gives is one the rules take, and it answers the decisions its rules of thumb cover.

mod common;

use common::*;
use sdk::{Action, Game, random_action};
use sekigahara::ask::{Act, asks};

#[test]
fn the_rules_take_every_answer_of_the_rollout_policy() {
    let mut whole_stacks = 0;
    for seed in 1..=3 {
        let mut table = table(seed);
        let mut game = new_game(SMALL, &mut table);
        let mut answered = 0;
        for step in 0..50_000u64 {
            let Some(decision) = game.pending().first().cloned() else {
                break;
            };
            let action = match game.rollout_action(decision.seat, step ^ seed) {
                Some(action) => {
                    answered += 1;
                    let ask = asks(&game.state)
                        .into_iter()
                        .find(|ask| ask.seat == decision.seat)
                        .expect("the seat is asked");
                    if let Action::Choose(picks) = &action
                        && ask.choices().get(picks[0] as usize).map(|(_, act)| act)
                            == Some(&Act::AllBlocks)
                    {
                        whole_stacks += 1;
                    }
                    action
                }
                None => random_action(&decision.kind, &mut table),
            };
            if let Err(rejection) = game.apply(decision.seat, &action, &mut table) {
                // A random answer may be refused (a route the rules close); the policy's never.
                assert!(
                    game.rollout_action(decision.seat, step ^ seed) != Some(action.clone()),
                    "the rules refused the policy's {action:?} for {decision:?}: {rejection:?}"
                );
            }
        }
        assert!(
            game.pending().is_empty(),
            "seed {seed}: the game did not end"
        );
        assert!(
            answered > 0,
            "seed {seed}: the policy answered {answered} times"
        );
    }
    assert!(whole_stacks > 0, "no stack was moved whole");
}
