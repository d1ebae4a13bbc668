//! The position estimate bots may use (`Game::evaluate`): each seat's chance of winning, which
//! follows what the board and the victory points say, and which is not given while a season's
//! plans wait to be carried out.

mod common;

use common::*;
use sdk::testing::{ScriptedTable, SeededTable};
use sdk::{Action, Game, Ruleset, random_action};
use shogun::data::SUN_MAP;
use shogun::state::Phase;
use shogun::{Shogun, ShogunGame, estimate};

fn chances(game: &ShogunGame) -> Vec<f64> {
    estimate::chances(&game.state)
}

/// A sun-side game of `seats` played at random from `seed` until `stop` holds.
fn played_until(seats: u32, seed: u8, stop: impl Fn(&ShogunGame) -> bool) -> ShogunGame {
    let mut table = SeededTable::new([seed; 32]);
    let game = Shogun::create(&setup(seats, SUN_MAP), &options(&[]), &mut table);
    let mut game = game.expect("a valid setup");
    for _ in 0..5000 {
        if stop(&game) {
            return game;
        }
        let pending = game.pending();
        let decision = pending.first().expect("the game goes on");
        let action = random_action(&decision.kind, &mut table);
        game.apply(decision.seat, &action, &mut table)
            .expect("a random legal answer is accepted");
    }
    panic!("the position never came");
}

fn before_any_plan(game: &ShogunGame) -> bool {
    game.state.phase == Phase::Planning && game.state.plans.iter().all(Option::is_none)
}

#[test]
fn every_seat_gets_a_chance_and_the_chances_add_up_to_one() {
    let game = played_until(4, 3, before_any_plan);
    let chances: Vec<f64> = (0..4)
        .map(|seat| game.evaluate(seat).expect("an estimate before any plan"))
        .collect();
    assert!(
        chances.iter().all(|s| (0.0..=1.0).contains(s)),
        "{chances:?}"
    );
    assert!(
        (chances.iter().sum::<f64>() - 1.0).abs() < 1e-9,
        "{chances:?}"
    );
    assert_eq!(game.evaluate(4), None, "no fifth seat");
}

#[test]
fn no_estimate_while_plans_wait_to_be_carried_out() {
    // A plan changes nothing on the board until its actions run: judged from the board, every
    // plan looked the same to the bots that stopped their playouts there.
    let planned = played_until(3, 5, |game| {
        game.state.phase == Phase::Planning && game.state.plans.iter().any(Option::is_some)
    });
    assert_eq!(planned.evaluate(0), None);
    let acting = played_until(3, 5, |game| {
        matches!(game.state.phase, Phase::Actions { .. })
    });
    assert_eq!(acting.evaluate(1), None);
    let next_season = played_until(3, 5, |game| {
        before_any_plan(game) && (game.state.season > 0 || game.state.year > 1)
    });
    assert!(
        next_season.evaluate(2).is_some(),
        "planning again: an estimate"
    );
}

#[test]
fn a_planning_position_is_judged_by_what_each_seat_holds() {
    let mut table = ScriptedTable::new(1);
    let game = from_file(4, "planning_kai_and_musashi", &mut table);
    let chances: Vec<f64> = (0..4)
        .map(|seat| game.evaluate(seat).expect("no plan given yet: an estimate"))
        .collect();
    assert!(chances[0] > chances[1], "{chances:?}");
    assert!(chances[1] > chances[2], "{chances:?}");
    assert_eq!(chances[2], chances[3]);
}

#[test]
fn more_provinces_and_armies_stand_better() {
    // Seat 0 holds Kai with 5 armies, seat 1 Musashi with 3, seats 2 and 3 nothing.
    let mut table = ScriptedTable::new(1);
    let game = from_file(4, "battle_farmers_defend", &mut table);
    let chances = chances(&game);
    assert!(chances[0] > chances[1], "{chances:?}");
    assert!(chances[1] > chances[2], "{chances:?}");
    assert_eq!(chances[2], chances[3]);
}

#[test]
fn a_lead_counts_for_more_as_the_seasons_run_out() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    game.state.year = 1;
    game.state.season = 0;
    let early = chances(&game);
    game.state.year = game.state.settings.years;
    game.state.season = 2;
    let late = chances(&game);
    assert!(late[0] > early[0], "{early:?} -> {late:?}");
    assert!(late[3] < early[3], "{early:?} -> {late:?}");
}

#[test]
fn taking_a_province_raises_the_attackers_chance_and_lowers_the_defenders() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    let before = chances(&game);
    // Four attackers come out against nothing: Musashi falls to seat 0.
    table.then_tower_returns(vec![cubes(0, 4)]);
    pick(&mut game, 0, "province:musashi", &mut table);
    act(&mut game, 0, Action::Number(4), &mut table);
    assert_eq!(
        game.state.provinces[province(&game, "musashi")].owner,
        Some(0)
    );
    let after = chances(&game);
    assert!(after[0] > before[0], "{before:?} -> {after:?}");
    assert!(after[1] < before[1], "{before:?} -> {after:?}");
}

#[test]
fn going_back_leaves_the_estimate_as_it_was() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    let before = chances(&game);
    pick(&mut game, 0, "province:musashi", &mut table);
    act(&mut game, 0, Action::Back, &mut table);
    assert_eq!(chances(&game), before);
}
