//! A test per rule, from positions on the small board (`tests/maps/small.toml`): the seed's rules,
//! the public sources' and the completions' (each with its option's default).
//!
//! The small board: west-capital (West's capital) - fort (West castle, the heir disk) - pass -
//! ford - keep (East castle) - east-capital along a highway; west-capital - field - pass - hill -
//! farm - east-capital and ford - hill by lesser roads.

mod common;

use common::*;
use sdk::{Game, NoteLevel, Viewer};
use sekigahara::combat;
use sekigahara::engine;
use sekigahara::movement::{self, routes, size_penalty};
use sekigahara::outcome::Log;
use sekigahara::state::*;

fn dests(state: &State, from: &str, group: &[&str]) -> Vec<(String, movement::Route)> {
    let side = state.board.blocks[block(state, group[0])].side;
    let blocks: Vec<usize> = group.iter().map(|g| block(state, g)).collect();
    routes(state, side, area(state, from), &blocks)
        .into_iter()
        .map(|r| (state.board.areas[r.dest].id.clone(), r))
        .collect()
}

fn route_to<'a>(found: &'a [(String, movement::Route)], to: &str) -> Option<&'a movement::Route> {
    found.iter().find(|(id, _)| id == to).map(|(_, r)| r)
}

// ----- seed: the weekly sequence -----

#[test]
fn week_one_has_no_reinforcement_step_and_starts_with_five_cards_and_four_boxed_blocks() {
    let mut t = table(1);
    let game = new_game(SMALL, &mut t);
    let state = &game.state;
    assert_eq!(state.week, 1);
    assert!(matches!(state.step, Step::Bid { .. }));
    for side in 0..2 {
        assert_eq!(state.hands[side].len(), 5);
        assert_eq!(state.blocks_at(Place::Reserve, side).len(), 4);
    }
    assert_eq!(
        state.blocks_at(Place::Box, 0).len(),
        2,
        "the box blocks start in the box"
    );
}

#[test]
fn reinforcement_discards_half_the_hand_draws_five_plus_one_for_most_castles_and_blocks_by_the_track()
 {
    let (mut game, mut t) = empty_position(2);
    let state = &mut game.state;
    put(state, &["red-1"], "keep"); // West holds both castles.
    give(state, 0, &[("red", "plain"); 5]);
    give(state, 0, &[("gold", "plain"), ("gold", "plain")]);
    give(state, 1, &[("blue", "plain"); 4]);
    state.turn = 1;
    state.phase = 3;
    state.step = Step::CombatPick;
    engine::advance(state, &mut t, &mut Log::new());
    assert_eq!(state.week, 2);
    let asks = sekigahara::ask::asks(state);
    assert_eq!(asks.len(), 2, "both sides discard at once");
    assert_eq!(
        (asks[0].picks(), asks[1].picks()),
        (Some((3, 3)), Some((2, 2))),
        "half of 7 and of 4, rounded down"
    );
    let west: Vec<String> = state.hands[0][..3]
        .iter()
        .map(|h| card_id(h.card))
        .collect();
    let east: Vec<String> = state.hands[1][..2]
        .iter()
        .map(|h| card_id(h.card))
        .collect();
    let bag_before = [
        state.blocks_at(Place::Bag, 0).len(),
        state.blocks_at(Place::Bag, 1).len(),
    ];
    answer(
        &mut game,
        &mut t,
        0,
        &west.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    answer(
        &mut game,
        &mut t,
        1,
        &east.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let state = &game.state;
    assert_eq!(state.hands[0].len(), 4 + 6, "most castles: a sixth card");
    assert_eq!(state.hands[1].len(), 2 + 5);
    // Resources: West holds its capital and field, East its capital and farm: a tie, so both
    // draw the track's 2 blocks and one more.
    for (side, before) in bag_before.iter().enumerate() {
        assert_eq!(
            before - state.blocks_at(Place::Bag, side).len(),
            3,
            "side {side}"
        );
    }
    assert!(matches!(state.step, Step::Bid { .. }));
}

#[test]
fn the_higher_bid_chooses_who_is_first_and_both_bids_are_discarded() {
    let (mut game, mut t) = empty_position(3);
    let state = &mut game.state;
    let west = give(state, 0, &[("red", "sword")])[0]; // 3
    let east = give(state, 1, &[("blue", "double")])[0]; // 6
    give(state, 0, &[("red", "plain")]);
    give(state, 1, &[("blue", "plain")]);
    state.step = Step::Bid { bids: [None, None] };
    answer(&mut game, &mut t, 0, &[&card_id(west)]);
    let view = game.view(Viewer::Seat(1));
    assert!(
        !view.contains(&format!("\"index\":{west},")),
        "a bid is secret until both are in"
    );
    answer(&mut game, &mut t, 1, &[&card_id(east)]);
    assert!(matches!(game.state.step, Step::ChooseFirst { chooser: 1 }));
    assert!(game.state.discards[0].contains(&west) && game.state.discards[1].contains(&east));
    answer(&mut game, &mut t, 1, &["first-0"]);
    assert_eq!(game.state.first, 0);
    assert_eq!(game.state.active(), 0);
}

#[test]
fn each_turn_is_the_first_sides_movement_and_combat_then_the_seconds_and_turn_b_keeps_the_order() {
    let (mut game, mut t) = empty_position(4);
    put(&mut game.state, &["red-1"], "west-capital");
    put(&mut game.state, &["blue-1"], "east-capital");
    game.state.first = 1;
    let mut order = Vec::new();
    for _ in 0..4 {
        let active = game.state.active() as u32;
        order.push((game.state.turn, active));
        answer(&mut game, &mut t, active, &["minimal"]);
        answer(&mut game, &mut t, active, &["end"]);
    }
    assert_eq!(order, vec![(0, 1), (0, 0), (1, 1), (1, 0)]);
    assert_eq!(game.state.week, 2);
}

// ----- seed: movement levels and muster -----

#[test]
fn minimal_movement_moves_one_stack_and_costs_no_card() {
    let (mut game, mut t) = empty_position(5);
    put(&mut game.state, &["red-1"], "west-capital");
    put(&mut game.state, &["red-2"], "field");
    put(&mut game.state, &["blue-1"], "east-capital");
    answer(&mut game, &mut t, 0, &["minimal"]);
    let red1 = block_id(&game.state, "red-1");
    answer(&mut game, &mut t, 0, &["area.west-capital"]);
    answer(&mut game, &mut t, 0, &[&red1]);
    answer(&mut game, &mut t, 0, &["area.fort"]);
    assert_eq!(
        choice_ids(&game, 0),
        vec!["end".to_string()],
        "one stack only"
    );
}

#[test]
fn limited_movement_costs_a_card_and_moves_three_stacks_or_two_and_a_muster() {
    let (mut game, mut t) = empty_position(6);
    let state = &mut game.state;
    put(state, &["red-1"], "west-capital");
    put(state, &["red-2"], "field");
    put(state, &["red-gun"], "fort");
    put(state, &["red-3"], "pass");
    put(state, &["blue-1"], "east-capital");
    let cards = give(state, 0, &[("red", "plain"), ("red", "plain")]);
    answer(&mut game, &mut t, 0, &["limited"]);
    answer(&mut game, &mut t, 0, &[&card_id(cards[0])]);
    assert_eq!(game.state.hands[0].len(), 1);
    for (from, id, to) in [
        ("west-capital", "red-1", "field"),
        ("field", "red-2", "pass"),
        ("fort", "red-gun", "west-capital"),
    ] {
        let b = block_id(&game.state, id);
        answer(&mut game, &mut t, 0, &[&format!("area.{from}")]);
        answer(&mut game, &mut t, 0, &[&b]);
        answer(&mut game, &mut t, 0, &[&format!("area.{to}")]);
    }
    assert_eq!(
        choice_ids(&game, 0),
        vec!["end".to_string()],
        "three activations used"
    );
}

#[test]
fn full_movement_costs_two_cards_moves_every_stack_and_adds_one_muster() {
    let (mut game, mut t) = empty_position(7);
    let state = &mut game.state;
    for (id, at) in [
        ("red-1", "west-capital"),
        ("red-2", "field"),
        ("red-gun", "fort"),
        ("red-3", "pass"),
    ] {
        put(state, &[id], at);
    }
    put(state, &["blue-1"], "east-capital");
    reserve(state, &["gold-1"]);
    let cards = give(state, 0, &[("red", "plain"), ("red", "plain")]);
    answer(&mut game, &mut t, 0, &["full"]);
    answer(
        &mut game,
        &mut t,
        0,
        &[&card_id(cards[0]), &card_id(cards[1])],
    );
    // Each road once: red-2 cannot come back along the road red-1 took.
    for (from, id, to) in [
        ("west-capital", "red-1", "field"),
        ("field", "red-2", "pass"),
        ("fort", "red-gun", "west-capital"),
        ("pass", "red-3", "hill"),
    ] {
        let b = block_id(&game.state, id);
        answer(&mut game, &mut t, 0, &[&format!("area.{from}")]);
        answer(&mut game, &mut t, 0, &[&b]);
        answer(&mut game, &mut t, 0, &[&format!("area.{to}")]);
    }
    assert!(
        choice_ids(&game, 0).contains(&"muster".to_string()),
        "the muster comes on top"
    );
}

#[test]
fn no_movement_swaps_any_number_of_cards() {
    let (mut game, mut t) = empty_position(8);
    put(&mut game.state, &["red-1"], "west-capital");
    let cards = give(
        &mut game.state,
        0,
        &[("red", "plain"), ("red", "sword"), ("gold", "plain")],
    );
    answer(&mut game, &mut t, 0, &["none"]);
    answer(
        &mut game,
        &mut t,
        0,
        &[&card_id(cards[0]), &card_id(cards[1])],
    );
    assert_eq!(game.state.hands[0].len(), 3);
    assert!(game.state.discards[0].contains(&cards[0]));
    assert_eq!(game.state.active(), 1, "the movement phase is over");
}

#[test]
fn muster_a_shows_blocks_of_one_clan_at_its_muster_area_and_muster_b_hides_one_block() {
    let (mut game, mut t) = empty_position(9);
    let state = &mut game.state;
    put(state, &["blue-1"], "east-capital");
    reserve(state, &["red-3", "red-4", "gold-1"]);
    let cards = give(state, 0, &[("red", "plain"), ("red", "plain")]);
    answer(&mut game, &mut t, 0, &["full"]);
    answer(
        &mut game,
        &mut t,
        0,
        &[&card_id(cards[0]), &card_id(cards[1])],
    );
    answer(&mut game, &mut t, 0, &["muster"]);
    assert!(choice_ids(&game, 0).contains(&"b".to_string()));
    answer(&mut game, &mut t, 0, &["a-red-west-capital"]);
    let (r3, r4) = (
        block_id(&game.state, "red-3"),
        block_id(&game.state, "red-4"),
    );
    answer(&mut game, &mut t, 0, &[&r3, &r4]);
    let view = game.view(Viewer::Seat(1));
    assert!(
        view.contains("\"red-3\"") && view.contains("\"red-4\""),
        "muster A is shown"
    );
    assert!(!view.contains("\"gold-1\""));
    assert!(
        !choice_ids(&game, 0).contains(&"muster".to_string()),
        "one muster a phase"
    );
    assert!(
        !choice_ids(&game, 0).contains(&"area.west-capital".to_string()),
        "mustered blocks do not move this turn"
    );
}

#[test]
fn muster_b_puts_one_hidden_block_on_any_friendly_muster_area() {
    let (mut game, mut t) = empty_position(10);
    let state = &mut game.state;
    put(state, &["blue-1"], "east-capital");
    reserve(state, &["gold-1"]);
    answer(&mut game, &mut t, 0, &["minimal"]);
    answer(&mut game, &mut t, 0, &["muster"]);
    answer(&mut game, &mut t, 0, &["b"]);
    let g = block_id(&game.state, "gold-1");
    answer(&mut game, &mut t, 0, &[&g]);
    answer(&mut game, &mut t, 0, &["area.west-capital"]);
    assert_eq!(game.state.count_in(area(&game.state, "west-capital"), 0), 1);
    assert!(
        !game.view(Viewer::Seat(1)).contains("\"gold-1\""),
        "muster B stays hidden"
    );
}

#[test]
fn blocks_muster_into_an_enemy_area_only_where_blocks_on_the_map_started_a_battle() {
    let (mut game, _t) = empty_position(11);
    let state = &mut game.state;
    put(state, &["blue-1"], "west-capital");
    let wc = area(state, "west-capital");
    assert!(!movement::muster_allowed(state, 0, wc));
    state.movement.battles.push(wc);
    assert!(movement::muster_allowed(state, 0, wc));
}

// ----- seed: speed -----

#[test]
fn speed_is_one_plus_highway_plus_leadership_plus_forced_march() {
    let (mut game, _t) = empty_position(12);
    let state = &mut game.state;
    put(state, &["red-1"], "west-capital");
    put(state, &["blue-1"], "east-capital");
    give(state, 0, &[("red", "plain")]);
    let found = dests(state, "west-capital", &["red-1"]);
    // From its own capital (leadership) along the highway: 3 areas free, 4 with a forced march.
    let ford = route_to(&found, "ford").expect("ford in reach");
    assert!(ford.highway && ford.free_leadership && !ford.needs_march);
    let keep = route_to(&found, "keep").expect("keep in reach with a forced march");
    assert!(keep.needs_march);
    assert!(
        route_to(&found, "east-capital").is_none(),
        "never more than 4 areas"
    );
    // Off the highway, no highway bonus: hill (west-capital, field, pass, hill) needs the march.
    let hill = route_to(&found, "hill").expect("hill");
    assert!(!hill.highway && hill.needs_march);
}

#[test]
fn leadership_needs_a_declared_leader_away_from_castles_and_capitals_and_counts_once() {
    let (mut game, _t) = empty_position(13);
    let state = &mut game.state;
    put(state, &["west-commander", "red-1"], "pass");
    put(state, &["blue-1"], "east-capital");
    let found = dests(state, "pass", &["west-commander", "red-1"]);
    let far = route_to(&found, "east-capital").expect("3 areas: highway + declared leader");
    assert!(far.needs_leader && !far.free_leadership);
    let found = dests(state, "pass", &["red-1"]);
    assert!(
        route_to(&found, "east-capital").is_none(),
        "without the leader 2 areas"
    );
    // At the capital the leader adds nothing more: still 3 areas without a march.
    put(state, &["west-commander", "red-1"], "west-capital");
    let found = dests(state, "west-capital", &["west-commander", "red-1"]);
    assert!(route_to(&found, "keep").is_none());
}

#[test]
fn each_four_blocks_beyond_four_cost_one_area_and_seventeen_cannot_move() {
    assert_eq!(
        (1..=17).map(size_penalty).collect::<Vec<_>>(),
        vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4]
    );
    let (mut game, _t) = empty_position(14);
    let state = &mut game.state;
    put(
        state,
        &["red-1", "red-2", "red-3", "red-4", "red-gun"],
        "pass",
    );
    put(state, &["blue-1"], "east-capital");
    let found = dests(
        state,
        "pass",
        &["red-1", "red-2", "red-3", "red-4", "red-gun"],
    );
    assert!(
        route_to(&found, "ford").is_some() && route_to(&found, "keep").is_none(),
        "5 blocks: 1 + highway - 1"
    );
    let b = block(state, "red-1");
    assert!(routes(state, 0, area(state, "pass"), &[b; 17]).is_empty());
}

#[test]
fn no_road_is_used_by_two_stacks_in_one_phase() {
    let (mut game, _t) = empty_position(15);
    let state = &mut game.state;
    put(state, &["red-1"], "west-capital");
    put(state, &["blue-1"], "east-capital");
    let road = state
        .board
        .road_between(area(state, "west-capital"), area(state, "fort"))
        .unwrap();
    state.movement.roads[road] = Some(0);
    state.movement.current = Some((area(state, "west-capital"), 1));
    let found = dests(state, "west-capital", &["red-1"]);
    assert!(
        route_to(&found, "fort").is_none(),
        "the road was used by another stack"
    );
    state.movement.current = Some((area(state, "west-capital"), 0));
    assert!(
        route_to(&dests(state, "west-capital", &["red-1"]), "fort").is_some(),
        "the same stack may"
    );
}

// ----- seed: enemies, stopping and overrun -----

#[test]
fn a_group_stops_on_entering_enemies_unless_it_overruns_them_four_to_one() {
    let (mut game, _t) = empty_position(16);
    let state = &mut game.state;
    put(state, &["red-1", "red-2"], "pass");
    put(state, &["blue-1"], "ford");
    put(state, &["blue-2"], "east-capital");
    let found = dests(state, "pass", &["red-1", "red-2"]);
    assert!(route_to(&found, "ford").unwrap().battle);
    assert!(route_to(&found, "keep").is_none(), "stopped at ford");
    put(state, &["red-3", "red-4"], "pass");
    let found = dests(state, "pass", &["red-1", "red-2", "red-3", "red-4"]);
    assert_eq!(route_to(&found, "ford").unwrap().overruns.len(), 1);
    assert!(
        route_to(&found, "keep").is_some(),
        "an overrun lets the group go on"
    );
}

#[test]
fn blocks_already_in_the_area_count_for_an_overrun_but_a_castle_garrison_cannot_be_overrun() {
    let (mut game, _t) = empty_position(17);
    let state = &mut game.state;
    put(state, &["red-1", "red-2"], "ford");
    put(state, &["blue-1"], "ford");
    put(state, &["red-3", "red-4"], "pass");
    let ford = area(state, "ford");
    assert!(
        movement::overruns(state, 0, ford, 2),
        "2 moving + 2 already there against 1"
    );
    put(state, &["blue-2"], "keep");
    put(state, &["red-1", "red-2", "red-gun"], "ford");
    assert!(
        !movement::overruns(state, 0, area(state, "keep"), 5),
        "a castle's holders cannot be overrun"
    );
}

#[test]
fn an_overrun_eliminates_the_enemies_and_their_side_draws_a_card_per_two_blocks() {
    let (mut game, mut t) = empty_position(18);
    let state = &mut game.state;
    put(
        state,
        &[
            "red-1", "red-2", "red-3", "red-4", "gold-1", "gold-2", "gold-cav", "red-gun",
        ],
        "pass",
    );
    put(state, &["blue-1", "blue-2"], "ford");
    put(state, &["grey-1"], "east-capital");
    let hand = state.hands[1].len();
    let ford = area(state, "ford");
    movement::overrun(state, 0, ford, &mut t, &mut Log::new());
    assert_eq!(state.count_in(ford, 1), 0);
    assert_eq!(state.hands[1].len(), hand + 1);
}

// ----- seed and public sources: battles -----

fn battle_at(state: &mut State, place: &str) {
    combat::start(state, area(state, place), &mut Log::new());
}

#[test]
fn a_card_deploys_a_block_of_its_clan_and_any_card_deploys_the_lone_any_card_blocks() {
    let (mut game, _t) = empty_position(19);
    let state = &mut game.state;
    let [red, gold, lc] = give(
        state,
        0,
        &[
            ("red", "plain"),
            ("gold", "plain"),
            ("challenge", "loyalty-challenge"),
        ],
    )[..] else {
        unreachable!()
    };
    let (r1, g1, cmd) = (
        block(state, "red-1"),
        block(state, "gold-1"),
        block(state, "west-commander"),
    );
    assert!(combat::card_fits(state, red, r1) && !combat::card_fits(state, red, g1));
    assert!(combat::card_fits(state, gold, g1) && combat::card_fits(state, red, cmd));
    assert!(
        !combat::card_fits(state, lc, cmd),
        "a loyalty challenge deploys nothing"
    );
}

#[test]
fn impact_is_mon_plus_one_per_same_clan_block_plus_the_special_attack_worked_example_ten() {
    let (mut game, _t) = empty_position(20);
    let state = &mut game.state;
    put(state, &["red-3", "red-2", "red-gun"], "pass");
    put(state, &["blue-1"], "pass");
    let [p1, p2, sword] = give(
        state,
        0,
        &[("red", "plain"), ("red", "plain"), ("red", "sword")],
    )[..] else {
        unreachable!()
    };
    battle_at(state, "pass");
    let (r3, r2, gun) = (
        block(state, "red-3"),
        block(state, "red-2"),
        block(state, "red-gun"),
    );
    combat::deploy(state, 0, Some(p1), &[r3], &mut Log::new());
    combat::deploy(state, 0, Some(p2), &[r2], &mut Log::new());
    assert_eq!(combat::impact_of(state, 0, gun, Some(sword)), (1, 2, 2));
    combat::deploy(state, 0, Some(sword), &[gun], &mut Log::new());
    assert_eq!(state.battle.as_ref().unwrap().impact[0], 10);
}

#[test]
fn the_special_bonus_grows_by_two_per_block_of_that_attack_type_already_deployed() {
    let (mut game, _t) = empty_position(21);
    let state = &mut game.state;
    put(state, &["red-gun", "gold-cav", "gold-1"], "pass");
    put(state, &["blue-1"], "pass");
    let [s1, s2] = give(state, 0, &[("red", "sword"), ("gold", "sword")])[..] else {
        unreachable!()
    };
    battle_at(state, "pass");
    combat::deploy(
        state,
        0,
        Some(s1),
        &[block(state, "red-gun")],
        &mut Log::new(),
    );
    // Cavalry after a gun: a different attack type, no extra.
    assert_eq!(
        combat::impact_of(state, 0, block(state, "gold-cav"), Some(s2)),
        (1, 0, 2)
    );
    assert_eq!(
        combat::impact_of(state, 0, block(state, "gold-1"), Some(s2)),
        (2, 0, 0),
        "no symbol, no special"
    );
}

#[test]
fn the_defender_wins_a_tie_and_each_side_loses_one_block_per_seven_enemy_impact() {
    let (mut game, mut t) = empty_position(22);
    let state = &mut game.state;
    put(state, &["red-1", "red-2", "red-3"], "pass");
    put(state, &["blue-1", "grey-1", "blue-3"], "pass");
    put(state, &["east-commander"], "east-capital");
    battle_at(state, "pass");
    {
        let b = state.battle.as_mut().unwrap();
        b.impact = [7, 7];
    }
    combat::resolve(state, &mut t, &mut Log::new());
    let battle = state.battle.as_ref().map(|b| b.winner);
    // Either a casualty choice is open or the battle is over; in both, East (defender) won.
    let west_left = state.count_in(area(state, "pass"), 0);
    if let Some(Some(w)) = battle {
        assert_eq!(w, 1);
    } else {
        assert!(west_left < 3);
    }
}

#[test]
fn casualties_take_deployed_blocks_first_and_leaders_last() {
    let (mut game, mut t) = empty_position(23);
    let state = &mut game.state;
    put(state, &["red-1", "red-2", "west-commander"], "pass");
    put(state, &["blue-1"], "pass");
    put(state, &["east-commander"], "east-capital");
    let card = give(state, 0, &[("red", "plain")])[0];
    battle_at(state, "pass");
    combat::deploy(
        state,
        0,
        Some(card),
        &[block(state, "red-2")],
        &mut Log::new(),
    );
    {
        let b = state.battle.as_mut().unwrap();
        b.impact = [3, 14]; // East wins: West owes 2, East owes 0.
    }
    combat::resolve(state, &mut t, &mut Log::new());
    // red-2 (deployed) goes first without a choice; then red-1 (the only other non-leader).
    assert_eq!(state.blocks[block(state, "red-2")].place, Place::Eliminated);
    assert_eq!(state.blocks[block(state, "red-1")].place, Place::Eliminated);
    assert_ne!(
        state.blocks[block(state, "west-commander")].place,
        Place::Eliminated
    );
    answer(&mut game, &mut t, 0, &["area.hill"]);
    assert_eq!(
        game.state.hands[0].len(),
        1,
        "two blocks lost: one card drawn"
    );
}

#[test]
fn the_losers_survivors_retreat_to_an_adjacent_area_without_enemies() {
    let (mut game, mut t) = empty_position(24);
    let state = &mut game.state;
    put(state, &["red-1", "red-2"], "ford");
    put(state, &["blue-1"], "ford");
    put(state, &["blue-2"], "keep");
    put(state, &["east-commander"], "east-capital");
    battle_at(state, "ford");
    state.battle.as_mut().unwrap().impact = [0, 1];
    combat::resolve(state, &mut t, &mut Log::new());
    // One loss (at least one for the loser); red-1 or red-2 is chosen.
    if let Some(b) = &state.battle
        && let Stage::Casualties(0, 1) = b.stage
    {
        combat::take_losses(state, 0, &[block(state, "red-1")], &mut Log::new());
        combat::next_casualties(state, &mut t, &mut Log::new());
    }
    let ids = choice_ids(&game, 0);
    // Pass or hill: both free of enemies; keep holds East.
    assert!(
        ids.contains(&"area.pass".to_string()) && ids.contains(&"area.hill".to_string()),
        "{ids:?}"
    );
    assert!(!ids.contains(&"area.keep".to_string()));
    answer(&mut game, &mut t, 0, &["area.hill"]);
    assert_eq!(game.state.count_in(area(&game.state, "hill"), 0), 1);
}

#[test]
fn survivors_with_nowhere_to_retreat_are_eliminated() {
    let (mut game, mut t) = empty_position(25);
    let state = &mut game.state;
    state.settings.retreat = false;
    put(state, &["red-1", "red-2"], "ford");
    put(state, &["blue-1"], "ford");
    put(state, &["east-commander"], "east-capital");
    battle_at(state, "ford");
    state.battle.as_mut().unwrap().impact = [0, 1];
    combat::resolve(state, &mut t, &mut Log::new());
    if state.battle.is_some() {
        combat::take_losses(state, 0, &[block(state, "red-1")], &mut Log::new());
        combat::next_casualties(state, &mut t, &mut Log::new());
    }
    assert_eq!(state.count_in(area(state, "ford"), 0), 0);
    assert_eq!(state.blocks[block(state, "red-2")].place, Place::Eliminated);
}

#[test]
fn an_unrefuted_loyalty_challenge_turns_the_block_and_a_matching_card_refutes_it() {
    let (mut game, mut t) = empty_position(26);
    let state = &mut game.state;
    put(state, &["red-2", "gold-1"], "pass");
    put(state, &["blue-1", "grey-1"], "pass");
    let card = give(state, 0, &[("red", "plain")])[0];
    give(state, 0, &[("gold", "plain")]);
    give(state, 1, &[("challenge", "loyalty-challenge")]);
    battle_at(state, "pass");
    combat::deploy(
        state,
        0,
        Some(card),
        &[block(state, "red-2")],
        &mut Log::new(),
    );
    combat::after_deploy(state, 0, &mut t, &mut Log::new());
    assert!(matches!(
        state.battle.as_ref().unwrap().stage,
        Stage::Challenge(1)
    ));
    combat::challenge(state, 1, &mut t, &mut Log::new());
    let b = state.battle.as_ref().unwrap();
    assert_eq!(
        b.impact,
        [0, 3],
        "turned: its mon for the challenger, no clan bonus"
    );
    assert!(b.deployed[0].turned);

    let (mut game, mut t) = empty_position(27);
    let state = &mut game.state;
    put(state, &["red-2"], "pass");
    put(state, &["blue-1"], "pass");
    let [card, _spare] = give(state, 0, &[("red", "plain"), ("red", "plain")])[..] else {
        unreachable!()
    };
    give(
        state,
        1,
        &[("challenge", "loyalty-challenge"), ("blue", "plain")],
    );
    battle_at(state, "pass");
    combat::deploy(
        state,
        0,
        Some(card),
        &[block(state, "red-2")],
        &mut Log::new(),
    );
    combat::challenge(state, 1, &mut t, &mut Log::new());
    let b = state.battle.as_ref().unwrap();
    assert_eq!(b.impact, [3, 0], "refuted: the block stays");
    assert!(
        state.hands[0][0].known,
        "the refuting card is shown and stays in hand"
    );
}

#[test]
fn leaders_may_be_deployed_free_at_the_opening_and_cannot_be_challenged() {
    let (mut game, mut t) = empty_position(28);
    let state = &mut game.state;
    put(state, &["west-commander", "red-1"], "pass");
    put(state, &["blue-1"], "pass");
    put(state, &["east-commander"], "east-capital");
    give(state, 1, &[("challenge", "loyalty-challenge")]);
    give(state, 0, &[("red", "plain")]);
    state.step = Step::CombatPick;
    state.phase = 1;
    answer(&mut game, &mut t, 0, &["area.pass"]);
    let cmd = block_id(&game.state, "west-commander");
    assert_eq!(choice_ids(&game, 0), vec![cmd.clone()]);
    answer(&mut game, &mut t, 0, &[&cmd]);
    let b = game.state.battle.as_ref().unwrap();
    assert_eq!(b.impact[0], 3);
    assert!(
        !matches!(b.stage, Stage::Challenge(_)),
        "a free leader is not challenged"
    );
}

#[test]
fn after_the_first_card_the_side_with_less_impact_acts_and_a_pass_ends_the_battle() {
    let (mut game, mut t) = empty_position(29);
    let state = &mut game.state;
    put(state, &["red-2", "red-1"], "pass");
    put(state, &["blue-1", "grey-1"], "pass");
    put(state, &["east-commander"], "east-capital");
    give(state, 0, &[("red", "plain"), ("red", "plain")]);
    give(state, 1, &[("blue", "plain"), ("grey", "plain")]);
    state.step = Step::CombatPick;
    state.phase = 1;
    answer(&mut game, &mut t, 0, &["area.pass"]);
    let card = game.state.hands[0][0].card;
    answer(&mut game, &mut t, 0, &[&card_id(card)]);
    let r2 = block_id(&game.state, "red-2");
    answer(&mut game, &mut t, 0, &[&r2]);
    // West leads 3 to 0: East, with less, acts.
    assert!(matches!(
        game.state.battle.as_ref().unwrap().stage,
        Stage::Deploy(1)
    ));
    answer(&mut game, &mut t, 1, &["pass"]);
    assert!(game.state.battle.is_none() || game.state.battle.as_ref().unwrap().winner == Some(0));
}

// ----- public sources: castles, disks, the box, victory -----

#[test]
fn a_small_garrison_may_withdraw_into_its_castle_and_a_won_siege_takes_the_castle() {
    let (mut game, mut t) = empty_position(30);
    let state = &mut game.state;
    put(state, &["blue-gun"], "keep");
    put(state, &["red-1", "red-2", "red-3"], "keep");
    put(state, &["east-commander"], "east-capital");
    state.phase = 1;
    state.step = Step::CombatPick;
    answer(&mut game, &mut t, 0, &["area.keep"]);
    assert_eq!(
        choice_ids(&game, 1),
        vec!["battle".to_string(), "siege".to_string()]
    );
    answer(&mut game, &mut t, 1, &["siege"]);
    assert!(game.state.battle.as_ref().unwrap().siege);
    let state = &mut game.state;
    state.battle.as_mut().unwrap().impact = [5, 1];
    combat::resolve(state, &mut t, &mut Log::new());
    assert_eq!(
        state.control[area(state, "keep")],
        Some(0),
        "the besieger takes the castle"
    );
}

#[test]
fn losing_the_disk_that_ends_the_game_loses_it() {
    let (mut game, mut t) = empty_position(31);
    let state = &mut game.state;
    put(state, &["west-commander"], "west-capital");
    put(state, &["east-commander", "blue-1"], "fort");
    assert!(
        state.disks_lost[0],
        "the heir is lost when the enemy takes its castle"
    );
    engine::check_instant_win(state, &mut Log::new());
    assert_eq!(state.ending, Some((1, Ending::Disk)));
    let _ = &mut t;
}

#[test]
fn each_card_discarded_in_movement_brings_a_box_block_to_the_entry_the_leader_last() {
    let (mut game, mut t) = empty_position(32);
    let state = &mut game.state;
    put(state, &["red-1"], "west-capital");
    put(state, &["blue-1"], "east-capital");
    let cards = give(state, 0, &[("red", "plain"), ("red", "plain")]);
    answer(&mut game, &mut t, 0, &["limited"]);
    answer(&mut game, &mut t, 0, &[&card_id(cards[0])]);
    let state = &game.state;
    let fort = Place::Area(area(state, "fort"));
    assert_eq!(
        state.blocks[block(state, "gold-box")].place,
        fort,
        "the non-leader first"
    );
    assert_eq!(state.blocks[block(state, "gold-leader")].place, Place::Box);
    assert!(
        state.blocks[block(state, "gold-box")].moved,
        "it cannot move this phase"
    );
}

#[test]
fn eliminating_a_commander_wins_at_once_and_both_at_once_go_to_the_tie_winner() {
    let (mut game, _t) = empty_position(33);
    let state = &mut game.state;
    engine::eliminate(state, block(state, "east-commander"));
    engine::check_instant_win(state, &mut Log::new());
    assert_eq!(state.ending, Some((0, Ending::Commander)));
    let (mut game, _t) = empty_position(34);
    let state = &mut game.state;
    engine::eliminate(state, block(state, "east-commander"));
    engine::eliminate(state, block(state, "west-commander"));
    engine::check_instant_win(state, &mut Log::new());
    assert_eq!(state.ending.map(|e| e.0), Some(0), "West has wins-ties");
}

#[test]
fn after_the_last_week_two_points_per_castle_and_one_per_resource_area_decide_ties_to_the_tie_winner()
 {
    let (mut game, mut t) = empty_position(35);
    let state = &mut game.state;
    state.week = state.board.weeks();
    state.turn = 1;
    state.phase = 3;
    state.step = Step::CombatPick;
    // Start: West fort + capital + field = 2 + 1 + 1; East keep + capital + farm = 4: a tie.
    assert_eq!((state.points(0), state.points(1)), (4, 4));
    engine::advance(state, &mut t, &mut Log::new());
    assert_eq!(state.ending, Some((0, Ending::Points)));
    let result = game.result().unwrap();
    assert_eq!(result.placings[0].seat, 0);
}

#[test]
fn a_resource_area_stays_with_the_last_side_to_pass_and_an_empty_castle_reverts() {
    let (mut game, _t) = empty_position(36);
    let state = &mut game.state;
    let ford = area(state, "ford");
    put(state, &["red-1"], "ford");
    assert_eq!(state.control[ford], Some(0));
    let (r1, keep) = (block(state, "red-1"), area(state, "keep"));
    state.blocks[r1].place = Place::Area(keep);
    engine::update_control(state, &mut Log::new());
    assert_eq!(state.control[ford], Some(0), "the resource area stays");
    assert_eq!(state.control[area(state, "keep")], Some(0));
    let hill = area(state, "hill");
    state.blocks[r1].place = Place::Area(hill);
    engine::update_control(state, &mut Log::new());
    assert_eq!(
        state.control[area(state, "keep")],
        Some(1),
        "the empty castle reverts"
    );
}

// ----- hidden information -----

#[test]
fn determinize_keeps_what_the_seat_has_seen_and_redraws_the_rest() {
    let (mut game, mut t) = empty_position(37);
    let state = &mut game.state;
    put(state, &["blue-1", "grey-1", "blue-3"], "ford");
    put(state, &["grey-champion"], "farm");
    reserve(state, &["grey-2"]);
    let gc = block(state, "grey-champion");
    state.blocks[gc].known = true; // seen in a battle and not moved since
    give(state, 1, &[("blue", "plain"), ("grey", "sword")]);
    state.hands[1][1].known = true;
    let known_card = state.hands[1][1].card;
    let mut redrawn = false;
    for _ in 0..30 {
        let world = sekigahara::view::determinize(&game.state, 0, &mut t);
        assert_eq!(
            world.blocks[gc].place, game.state.blocks[gc].place,
            "a known block stays"
        );
        assert_eq!(world.hands[1][1].card, known_card, "a shown card stays");
        assert_eq!(
            world.count_in(area(&world, "ford"), 1),
            3,
            "counts are public"
        );
        assert_eq!(world.blocks_at(Place::Reserve, 1).len(), 1);
        assert_eq!(world.hands[0], game.state.hands[0], "own hand untouched");
        redrawn |= world.blocks != game.state.blocks || world.hands[1] != game.state.hands[1];
    }
    assert!(redrawn, "unknown blocks and cards are redrawn");
}

#[test]
fn the_opponent_sees_counts_not_identities_and_revealed_blocks_hide_again_after_battle() {
    let (mut game, mut t) = empty_position(38);
    let state = &mut game.state;
    put(state, &["red-2"], "pass");
    put(state, &["blue-1", "grey-1", "blue-3"], "pass");
    put(state, &["east-commander"], "east-capital");
    let card = give(state, 0, &[("red", "plain")])[0];
    battle_at(state, "pass");
    assert!(!game.view(Viewer::Seat(1)).contains("\"red-2\""));
    assert!(game.view(Viewer::Seat(1)).contains("\"count\":1"));
    let r2 = block(&game.state, "red-2");
    combat::deploy(&mut game.state, 0, Some(card), &[r2], &mut Log::new());
    assert!(
        game.view(Viewer::Seat(1)).contains("\"red-2\""),
        "deployed: shown"
    );
    game.state.battle.as_mut().unwrap().impact = [3, 4];
    combat::resolve(&mut game.state, &mut t, &mut Log::new());
    if game.state.battle.is_some() {
        let b = block(&game.state, "red-2");
        combat::take_losses(&mut game.state, 0, &[b], &mut Log::new());
        combat::next_casualties(&mut game.state, &mut t, &mut Log::new());
    }
    let r2 = block(&game.state, "red-2");
    assert!(!game.state.blocks[r2].shown);
}

#[test]
fn the_preview_warns_of_a_stop_against_enemies_and_a_forced_march_card() {
    let (mut game, mut t) = empty_position(39);
    let state = &mut game.state;
    put(state, &["red-1"], "west-capital");
    put(state, &["blue-1"], "keep");
    put(state, &["east-commander"], "east-capital");
    give(state, 0, &[("red", "plain")]);
    answer(&mut game, &mut t, 0, &["minimal"]);
    answer(&mut game, &mut t, 0, &["area.west-capital"]);
    let r1 = block_id(&game.state, "red-1");
    answer(&mut game, &mut t, 0, &[&r1]);
    let ids = choice_ids(&game, 0);
    let keep = ids
        .iter()
        .position(|i| i == "area.keep")
        .expect("keep with a march") as u32;
    let notes = game.preview(0, &sdk::Action::Choose(vec![keep])).unwrap();
    let keys: Vec<(NoteLevel, String)> = notes.into_iter().map(|n| (n.level, n.text.key)).collect();
    assert!(
        keys.contains(&(NoteLevel::Warning, "preview.stop".into())),
        "{keys:?}"
    );
    assert!(
        keys.contains(&(NoteLevel::Warning, "preview.march".into())),
        "{keys:?}"
    );
}

#[test]
fn determinize_keeps_the_printed_starting_blocks_until_they_move() {
    let mut t = table(40);
    let game = new_game(SMALL, &mut t);
    let world = sekigahara::view::determinize(&game.state, 0, &mut t);
    for (b, def) in game.state.board.blocks.iter().enumerate() {
        if matches!(def.start, sekigahara::data::Start::Area(_)) {
            assert_eq!(
                world.blocks[b].place, game.state.blocks[b].place,
                "{}",
                def.id
            );
        }
    }
    assert!(
        !game.view(Viewer::Seat(0)).contains("\"east-commander\""),
        "still drawn blank"
    );
}

#[test]
fn all_blocks_of_a_stack_go_by_default() {
    let (mut game, mut t) = empty_position(41);
    put(
        &mut game.state,
        &["red-1", "red-2", "red-3"],
        "west-capital",
    );
    put(&mut game.state, &["blue-1"], "east-capital");
    answer(&mut game, &mut t, 0, &["minimal"]);
    answer(&mut game, &mut t, 0, &["area.west-capital"]);
    assert_eq!(choice_ids(&game, 0)[0], "all");
    answer(&mut game, &mut t, 0, &["all"]);
    answer(&mut game, &mut t, 0, &["area.fort"]);
    assert_eq!(game.state.count_in(area(&game.state, "fort"), 0), 3);
}

#[test]
fn regression_a_lone_raider_beating_a_castle_garrison_in_the_field_does_not_take_the_castle() {
    // Found by search-bot games: one block attacking a castle whose defenders held no matching
    // card won the field battle, the survivors retreated, and the castle (with its disk) fell.
    let (mut game, mut t) = empty_position(42);
    let state = &mut game.state;
    put(state, &["red-1", "red-2", "red-3"], "fort");
    put(state, &["blue-1"], "fort");
    put(state, &["east-commander"], "east-capital");
    put(state, &["west-commander"], "west-capital");
    let card = give(state, 1, &[("blue", "plain")])[0];
    state.first = 1;
    state.phase = 1;
    state.step = Step::CombatPick;
    answer(&mut game, &mut t, 1, &["area.fort"]);
    answer(&mut game, &mut t, 1, &[&card_id(card)]);
    let b1 = block_id(&game.state, "blue-1");
    answer(&mut game, &mut t, 1, &[&b1]);
    // West could not deploy: East wins, West loses one block of its choice.
    let r1 = block_id(&game.state, "red-1");
    answer(&mut game, &mut t, 0, &[&r1]);
    let state = &game.state;
    let fort = area(state, "fort");
    assert_eq!(
        state.count_in(fort, 0),
        2,
        "the survivors withdraw into the castle"
    );
    assert_eq!(state.control[fort], Some(0), "the castle is still West's");
    assert!(!state.disks_lost[0] && state.ending.is_none());
    assert_eq!(
        state.active(),
        0,
        "the combat phase is over: the besieged area waits"
    );
}

#[test]
fn without_castle_refuge_the_beaten_garrison_retreats_and_the_castle_falls() {
    let (mut game, mut t) = empty_position(43);
    let state = &mut game.state;
    state.settings.castle_refuge = false;
    put(state, &["red-1", "red-2", "red-3"], "fort");
    put(state, &["blue-1"], "fort");
    put(state, &["east-commander"], "east-capital");
    let card = give(state, 1, &[("blue", "plain")])[0];
    state.first = 1;
    state.phase = 1;
    state.step = Step::CombatPick;
    answer(&mut game, &mut t, 1, &["area.fort"]);
    answer(&mut game, &mut t, 1, &[&card_id(card)]);
    let b1 = block_id(&game.state, "blue-1");
    answer(&mut game, &mut t, 1, &[&b1]);
    let r1 = block_id(&game.state, "red-1");
    answer(&mut game, &mut t, 0, &[&r1]);
    if choice_ids(&game, 0).contains(&"area.pass".to_string()) {
        answer(&mut game, &mut t, 0, &["area.pass"]);
    }
    assert_eq!(
        game.state.ending,
        Some((1, Ending::Disk)),
        "the heir falls with the castle"
    );
}

#[test]
fn the_siege_bonus_option_starts_the_besieged_side_with_that_impact() {
    let (mut game, mut t) = empty_position(44);
    let state = &mut game.state;
    state.settings.siege_bonus = 3;
    put(state, &["blue-gun"], "keep");
    put(state, &["red-1", "red-2", "red-3"], "keep");
    put(state, &["east-commander"], "east-capital");
    give(state, 0, &[("red", "plain")]);
    state.phase = 1;
    state.step = Step::CombatPick;
    answer(&mut game, &mut t, 0, &["area.keep"]);
    answer(&mut game, &mut t, 1, &["siege"]);
    assert_eq!(game.state.battle.as_ref().unwrap().impact, [0, 3]);
}
