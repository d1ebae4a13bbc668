//! Honshu's rules of thumb for bots' playouts (`honshu::rollout`, offered through
//! `Game::rollout_action`): every answer is one the rules take, and its placements build better
//! maps than random ones.

mod common;

use common::*;
use honshu::engine;
use sdk::Game;

/// Plays a whole game in which the seats in `policy` answer with the rollout policy where it
/// gives an answer, and everyone else at random; returns each seat's final map score and how
/// many answers the policy gave.
fn play(seats: u32, seed: u64, policy: &[u32]) -> (Vec<i64>, u32) {
    let (mut game, mut table) = new_game(seats, seed, &[]);
    let mut answered = 0;
    let mut step = 0u64;
    while let Some(decision) = game.pending().first().cloned() {
        step += 1;
        assert!(step < 20_000, "the game does not end");
        let suggested = policy
            .contains(&decision.seat)
            .then(|| game.rollout_action(decision.seat, step ^ seed.rotate_left(17)))
            .flatten();
        if let Some(action) = suggested {
            answered += 1;
            if let Err(rejection) = game.apply(decision.seat, &action, &mut table) {
                panic!("the rules refused {action:?} for {decision:?}: {rejection:?}");
            }
            continue;
        }
        random_answer(&mut game, &mut table, &decision);
    }
    let scores = game
        .state
        .players
        .iter()
        .map(|player| {
            engine::score_map(
                &player.map,
                &game.state.settings.points,
                game.state.scoring_card,
            )
            .total
        })
        .collect();
    (scores, answered)
}

#[test]
fn rollout_placements_build_better_maps_than_random_ones() {
    // Five points a game better, at least: a few more squares of forest or town.
    let (mut policy, mut random) = (0, 0);
    for seed in 1..=6 {
        let (scores, _) = play(2, seed, &[0]);
        policy += scores[0];
        random += scores[1];
    }
    assert!(
        policy > random + 5 * 6,
        "over six games the policy's maps scored {policy}, random maps {random}"
    );
}
