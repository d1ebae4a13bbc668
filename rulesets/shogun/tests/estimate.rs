//! The position estimate bots may use (`Game::evaluate`): a share of the win per seat that
//! follows what the board and the victory points say.

mod common;

use common::*;
use sdk::testing::ScriptedTable;
use sdk::{Action, Game};

fn estimates(game: &shogun::ShogunGame) -> Vec<f64> {
    (0..game.state.seats)
        .map(|seat| game.evaluate(seat).expect("Shogun gives an estimate"))
        .collect()
}

#[test]
fn every_seat_gets_a_share_and_the_shares_add_up_to_one() {
    let mut table = ScriptedTable::new(1);
    let game = from_file(4, "battle_farmers_defend", &mut table);
    let shares = estimates(&game);
    assert!(shares.iter().all(|s| (0.0..=1.0).contains(s)), "{shares:?}");
    assert!(
        (shares.iter().sum::<f64>() - 1.0).abs() < 1e-9,
        "{shares:?}"
    );
    assert_eq!(game.evaluate(4), None, "no fifth seat");
}

#[test]
fn more_provinces_and_armies_stand_better() {
    // Seat 0 holds Kai with 5 armies, seat 1 Musashi with 3, seats 2 and 3 nothing.
    let mut table = ScriptedTable::new(1);
    let game = from_file(4, "battle_farmers_defend", &mut table);
    let shares = estimates(&game);
    assert!(shares[0] > shares[1], "{shares:?}");
    assert!(shares[1] > shares[2], "{shares:?}");
    assert_eq!(shares[2], shares[3]);
}

#[test]
fn taking_a_province_raises_the_attackers_share_and_lowers_the_defenders() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    let before = estimates(&game);
    // Four attackers come out against nothing: Musashi falls to seat 0.
    table.then_tower_returns(vec![cubes(0, 4)]);
    pick(&mut game, 0, "province:musashi", &mut table);
    act(&mut game, 0, Action::Number(4), &mut table);
    assert_eq!(
        game.state.provinces[province(&game, "musashi")].owner,
        Some(0)
    );
    let after = estimates(&game);
    assert!(after[0] > before[0], "{before:?} -> {after:?}");
    assert!(after[1] < before[1], "{before:?} -> {after:?}");
}

#[test]
fn going_back_leaves_the_estimate_as_it_was() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    let before = estimates(&game);
    pick(&mut game, 0, "province:musashi", &mut table);
    act(&mut game, 0, Action::Back, &mut table);
    assert_eq!(estimates(&game), before);
}
