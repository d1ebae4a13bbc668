//! The rollout policy bots play in their playouts (`Game::rollout_action`): every answer it
//! gives is one the rules take, and its plans waste no action a player would see is wasted.

mod common;

use common::*;
use sdk::testing::SeededTable;
use sdk::{Action, DecisionKind, Game, Ruleset, random_action};
use shogun::data::{ActionKind, MOON_MAP, SUN_MAP};
use shogun::decide::{plan_from, planning_decision};
use shogun::engine;
use shogun::state::{CardRef, Phase};
use shogun::{Shogun, ShogunGame};

/// Plays a whole game in which every seat answers with the rollout policy where it gives an
/// answer and at random elsewhere; calls `check` before each policy answer is applied.
fn play_with_the_policy(
    seats: u32,
    map: &str,
    seed: u8,
    mut check: impl FnMut(&ShogunGame, u32, &Action),
) -> (ShogunGame, u32) {
    let mut table = SeededTable::new([seed; 32]);
    let mut game =
        Shogun::create(&setup(seats, map), &options(&[]), &mut table).expect("a valid setup");
    let mut answered = 0;
    for step in 0..20_000u64 {
        let pending = game.pending();
        let Some(decision) = pending.first() else {
            return (game, answered);
        };
        let suggested =
            game.rollout_action(decision.seat, step.wrapping_mul(0x9E37) ^ u64::from(seed));
        let action = match suggested {
            Some(action) => {
                check(&game, decision.seat, &action);
                answered += 1;
                action
            }
            None => random_action(&decision.kind, &mut table),
        };
        if let Err(rejection) = game.apply(decision.seat, &action, &mut table) {
            panic!("the rules refused the answer {action:?} to {decision:?}: {rejection:?}");
        }
    }
    panic!("the game never ended");
}

fn decision_min(game: &ShogunGame, seat: u32) -> u32 {
    planning_decision(&game.state, seat).min_placements
}

#[test]
fn rollout_plans_build_only_where_there_is_room_and_spend_no_more_than_the_chests() {
    let mut plans = 0;
    for (seats, map, seed) in [(3, SUN_MAP, 7), (4, SUN_MAP, 8), (5, MOON_MAP, 9)] {
        play_with_the_policy(seats, map, seed, |game, seat, action| {
            let state = &game.state;
            if state.phase != Phase::Planning {
                return;
            }
            let Action::Assign(placements) = action else {
                panic!("a plan is a placement of cards: {action:?}");
            };
            let decision = planning_decision(state, seat);
            sdk::check_action_shape(&DecisionKind::Assign(decision), action)
                .expect("the plan fits the planning decision");
            let plan = plan_from(state, seat, placements);
            let mut cost = match plan.bid {
                Some(CardRef::Chest(value)) => value,
                _ => 0,
            };
            for (index, card) in plan.actions.iter().enumerate() {
                let Some(CardRef::Province(p)) = card else {
                    continue;
                };
                let action_card = &state.board.cards().actions[index];
                cost += action_card.cost;
                let builds = matches!(
                    action_card.kind,
                    ActionKind::BuildCastle | ActionKind::BuildTemple | ActionKind::BuildTheatre
                );
                assert!(
                    !builds || engine::build_obstacle(state, *p, action_card.kind).is_none(),
                    "{} planned where it cannot be built",
                    action_card.id
                );
            }
            // The decision asks for a card on every space it can fill: with more province cards
            // than free actions and the bid space can take, some must go on actions the chests
            // cannot pay for (the game skips them).
            let chest_cards = 5;
            let must_place = (decision_min(game, seat) as usize).saturating_sub(chest_cards);
            let free_spaces = state
                .board
                .cards()
                .actions
                .iter()
                .filter(|card| card.cost == 0)
                .count()
                + 1;
            assert!(
                cost <= state.players[seat as usize].chests || must_place > free_spaces,
                "the plan costs {cost} chests of {}: {plan:?} {placements:?}",
                state.players[seat as usize].chests
            );
            plans += 1;
        });
    }
    assert!(plans >= 3 * 6, "only {plans} plans were checked");
}
