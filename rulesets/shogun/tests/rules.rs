//! Rule tests: each starts from the situation it is about (mostly a position file) and scripts
//! the battle tower's output, so the rule's outcome is exact.

mod common;

use common::*;
use sdk::testing::ScriptedTable;
use sdk::{Action, CubeOwner, DecisionKind, Game, Ruleset, Viewer};
use shogun::data::{MOON_MAP, SUN_MAP};
use shogun::outcome::{Outcome, SkipReason};
use shogun::state::{CardRef, Phase};
use shogun::{Shogun, ShogunGame};

fn farmer() -> CubeOwner {
    CubeOwner::Neutral("farmer".into())
}

/// Seat 0 sends 4 of Kai's 5 armies against Musashi.
fn attack_musashi(game: &mut ShogunGame, table: &mut ScriptedTable) {
    pick(game, 0, "province:musashi", table);
    act(game, 0, Action::Number(4), table);
}

#[test]
fn farmers_in_the_tray_count_for_the_defender() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    table.then_tower_returns(vec![cubes(0, 4), cubes(1, 2), farmers(3)]);
    attack_musashi(&mut game, &mut table);
    // The three tray farmers were thrown with the armies.
    assert_eq!(dropped(&table, 0, &farmer()), 3);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(0)), 4);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(1)), 3);
    let s = &game.state;
    let musashi = &s.provinces[province(&game, "musashi")];
    // 2 armies + 3 farmers beat 4: the farmers absorb 3 losses, the defender loses 1.
    assert_eq!(musashi.owner, Some(1));
    assert_eq!(musashi.armies, 1);
    assert_eq!(s.provinces[province(&game, "kai")].armies, 1);
    assert_eq!(
        s.tray_farmers, 0,
        "after a battle with farmers every tray farmer goes home"
    );
    assert_eq!(s.farmer_supply, 20);
    assert_eq!(s.players[0].supply, 62 - 1);
    assert_eq!(s.players[1].in_tower, 1);
}

#[test]
fn revolt_markers_keep_the_tray_farmers_out_of_a_battle() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_revolt_marker", &mut table);
    table.then_tower_returns(vec![cubes(0, 4), cubes(1, 2), farmers(3)]);
    attack_musashi(&mut game, &mut table);
    let s = &game.state;
    let musashi = &s.provinces[province(&game, "musashi")];
    // 4 against 2: the attacker loses 2 and keeps 2 in the province, revolt marker included.
    assert_eq!(musashi.owner, Some(0));
    assert_eq!(musashi.armies, 2);
    assert_eq!(musashi.revolts, 1);
    assert_eq!(
        s.tray_farmers, 3,
        "farmers that took no part stay in the tray"
    );
    assert_eq!(s.players[1].supply, 61);
    assert_eq!(s.players[1].in_tower, 1);
}

#[test]
fn a_tie_devastates_the_province() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_tie", &mut table);
    table.then_tower_returns(vec![cubes(0, 3), cubes(1, 3)]);
    attack_musashi(&mut game, &mut table);
    let s = &game.state;
    let musashi = &s.provinces[province(&game, "musashi")];
    assert_eq!(musashi.owner, None);
    assert_eq!(
        (
            musashi.armies,
            musashi.castle,
            musashi.temple,
            musashi.revolts
        ),
        (0, false, false, 0)
    );
    assert_eq!(s.players[0].supply + s.players[0].in_tower + 1, 62);
    assert_eq!(s.players[1].supply, 62);
}

#[test]
fn a_defender_left_without_armies_devastates_the_province() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    // 1 attacker against 0 defenders and 3 farmers: the farmers absorb the loss but no army stays.
    table.then_tower_returns(vec![cubes(0, 1), farmers(3)]);
    attack_musashi(&mut game, &mut table);
    assert_eq!(game.state.provinces[province(&game, "musashi")].owner, None);
}

#[test]
fn a_revolt_on_taxes_with_two_markers_throws_two_farmers() {
    let mut table = ScriptedTable::new(1);
    table.then_tower_returns(vec![cubes(0, 3), farmers(1)]);
    let game = from_file(3, "taxes_two_markers", &mut table);
    assert_eq!(dropped(&table, 0, &farmer()), 2);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(0)), 3);
    let kai = &game.state.provinces[province(&game, "kai")];
    assert_eq!(
        game.state.players[0].chests, 10,
        "the taxes are collected before the revolt"
    );
    assert_eq!(
        kai.armies, 2,
        "the player loses one army per farmer that came out"
    );
    assert_eq!(kai.revolts, 3, "a put-down revolt adds a marker");
    assert_eq!(
        game.state.farmer_supply, 19,
        "one farmer stayed in the tower"
    );
}

#[test]
fn a_lost_tax_revolt_devastates_and_leaves_no_marker() {
    let mut table = ScriptedTable::new(1);
    table.then_tower_returns(vec![cubes(0, 2), farmers(2)]);
    let game = from_file(3, "taxes_two_markers", &mut table);
    let kai = &game.state.provinces[province(&game, "kai")];
    assert_eq!((kai.owner, kai.armies, kai.revolts), (None, 0, 0));
    assert_eq!(game.state.players[0].chests, 10);
}

#[test]
fn hunger_revolts_follow_the_provisions_table() {
    let mut table = ScriptedTable::new(7);
    let mut game = from_file(4, "hunger", &mut table);
    // Shortfall 4: two revolts, the player picks the order.
    let ids = choice_ids(&game, 0);
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert_eq!(game.state.players[0].rice, 0);
    table.then_tower_returns(vec![cubes(0, 2), farmers(1)]);
    table.then_tower_returns(vec![farmers(3)]);
    let first = ids[0].clone();
    pick(&mut game, 0, &first, &mut table);
    // Farmers = 1 marker + 2 extra from the table, in both revolts.
    assert_eq!(dropped(&table, 0, &farmer()), 3);
    assert_eq!(dropped(&table, 1, &farmer()), 3);
    let first_province = game
        .state
        .board
        .province_by_id(first.trim_start_matches("province:"))
        .unwrap();
    let second_province = game
        .state
        .board
        .province_by_id(ids[1].trim_start_matches("province:"))
        .unwrap();
    assert_eq!(game.state.provinces[first_province].owner, Some(0));
    assert_eq!(game.state.provinces[first_province].armies, 1);
    assert_eq!(game.state.provinces[second_province].owner, None);
    // Scoring, then the new year: rice to 0, markers gone, four new events, planning.
    assert_eq!(game.state.year, 2);
    assert_eq!(game.state.phase, Phase::Planning);
    assert_eq!(game.state.year_events.len(), 4);
    assert!(game.state.provinces.iter().all(|p| p.revolts == 0));
    assert!(game.state.players.iter().all(|p| p.rice == 0));
    // Seat 0 kept 3 provinces: 3 VP.
    assert_eq!(game.state.players[0].vp, 3);
}

#[test]
fn regional_majority_ties_score_one_less() {
    let mut table = ScriptedTable::new(1);
    let game = from_file(4, "majorities", &mut table);
    assert!(game.state.is_over());
    let vp: Vec<u32> = game.state.players.iter().map(|p| p.vp).collect();
    // seat 0: 2 provinces + 3 buildings + castles (3-way tie) 2 + temples (2-way tie) 1 + theatres (tie) 0.
    // seat 1: the same. seat 2: 1 + 1 + 2. seat 3: 1 + 1 + sole temple majority in yellow 2.
    assert_eq!(vp, vec![10 + 8, 10 + 8, 10 + 4, 3 + 4]);
    let result = game.result().expect("the game is over");
    assert_eq!(
        result.placings[0].seat, 1,
        "tied on VP, seat 1 has more chests"
    );
    assert_eq!(result.placings[0].rank, 1);
    assert_eq!(result.placings[1].rank, 2);
    assert_eq!(result.summary.key, "summary.chests");
}

#[test]
fn equal_vp_and_chests_share_the_victory() {
    let mut table = ScriptedTable::new(1);
    let text = position_text("majorities").replace("chests = 7", "chests = 5");
    let game = from_text(4, &text, &mut table);
    let result = game.result().unwrap();
    assert_eq!((result.placings[0].rank, result.placings[1].rank), (1, 1));
    assert_eq!(result.summary.key, "summary.shared");
}

#[test]
fn bids_rank_chests_then_province_cards_then_zero_chests() {
    let mut table = ScriptedTable::new(1);
    let game = from_file(4, "bids", &mut table);
    assert_eq!(game.state.bid_order, vec![2, 3, 1, 0]);
    assert_eq!(game.state.players[2].chests, 3);
    assert_eq!(game.state.players[3].chests, 4);
    assert_eq!(
        game.state.players[1].chests, 5,
        "a province bid costs nothing"
    );
    assert_eq!(
        game.pending()[0].seat,
        2,
        "the highest bidder chooses a special first"
    );
}

#[test]
fn special_spaces_set_turn_order_and_ties_are_random() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "bids", &mut table);
    for (seat, space) in [(2, "space:5"), (3, "space:1"), (1, "space:3")] {
        pick(&mut game, seat, space, &mut table);
    }
    assert_eq!(choice_ids(&game, 0), vec!["space:2", "space:4"]);
    pick(&mut game, 0, "space:4", &mut table);
    assert_eq!(game.state.turn_order, vec![3, 1, 0, 2]);
    // Two equal chest bids: either may choose first, as the host's random draw decides.
    let text = position_text("bids").replace("bid = \"chest:0\"", "bid = \"chest:1\"");
    let mut firsts = std::collections::BTreeSet::new();
    for seed in 0..20 {
        let mut table = ScriptedTable::new(seed);
        let game = from_text(4, &text, &mut table);
        assert_eq!(game.state.bid_order[0], 2);
        assert_eq!(
            game.state.bid_order[3], 1,
            "a province bid ranks after chest bids of 1"
        );
        firsts.insert(game.state.bid_order[1]);
    }
    assert_eq!(firsts.len(), 2);
}

#[test]
fn an_action_that_can_only_be_done_in_part_is_skipped() {
    let mut table = ScriptedTable::new(1);
    let game = from_file(3, "partial_action", &mut table);
    let s = &game.state;
    // Deploy 5 skipped (4 in supply), Deploy 3 done, castle in full Mino skipped.
    assert_eq!(s.provinces[province(&game, "kai")].armies, 57);
    assert_eq!(s.provinces[province(&game, "owari")].armies, 4);
    assert_eq!(s.players[0].supply, 0);
    assert_eq!(s.players[0].chests, 3);
    assert!(!s.provinces[province(&game, "mino")].castle);
}

#[test]
fn out_of_play_provinces_with_three_players() {
    let mut table = ScriptedTable::new(1);
    let game = from_file(3, "three_players", &mut table);
    let mut targets = choice_ids(&game, 0);
    targets.sort();
    assert_eq!(
        targets,
        vec!["province:aki", "province:bitchu", "province:hoki"]
    );
    // No position may put armies there, and a 3-player draft never offers them.
    let text = position_text("three_players").replace("id = \"bingo\"", "id = \"izumo\"");
    assert!(
        Shogun::create_from_position(&setup(3, SUN_MAP), &options(&[]), &text, &mut table).is_err()
    );
    for map in [SUN_MAP, MOON_MAP] {
        let game =
            Shogun::create(&setup(3, map), &options(&[]), &mut ScriptedTable::new(3)).unwrap();
        let draft = game.state.draft.as_ref().unwrap();
        for &p in draft.deck.iter().chain(&draft.face_up) {
            assert!(!game.state.board.provinces[p].out_of_play_with_3);
        }
        assert_eq!(draft.deck.len() + draft.face_up.len(), 37);
    }
}

#[test]
fn deploy_move_places_then_moves_to_an_own_neighbour() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(3, "deploy_move", &mut table);
    assert_eq!(choice_ids(&game, 0), vec!["province:musashi", "no-move"]);
    pick(&mut game, 0, "province:musashi", &mut table);
    let pending = game.pending();
    assert_eq!(
        pending[0].kind,
        DecisionKind::Number(sdk::NumberDecision { min: 1, max: 2 })
    );
    // At least one army stays: 3 is refused and changes nothing.
    assert!(
        game.clone()
            .apply(0, &Action::Number(3), &mut table)
            .is_err()
    );
    act(&mut game, 0, Action::Number(2), &mut table);
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 1);
    assert_eq!(game.state.provinces[province(&game, "musashi")].armies, 3);
    assert_eq!(game.state.players[0].chests, 2);
}

/// The battle position with another event and specials for seat 0 and seat 1.
fn event_position(event: &str, extra: &str) -> String {
    position_text("battle_farmers_defend")
        .replace(
            "current-event = \"event-10\"",
            &format!("current-event = \"{event}\""),
        )
        .replace("tray-farmers = 3", "")
        + extra
}

#[test]
fn the_temple_event_protects_from_attack() {
    let mut table = ScriptedTable::new(1);
    let text = event_position("event-5", "temple = true\n");
    let game = from_text(4, &text, &mut table);
    assert!(!choice_ids(&game, 0).contains(&"province:musashi".to_string()));
    assert!(choice_ids(&game, 0).contains(&"province:sagami".to_string()));
}

#[test]
fn the_castle_event_and_the_specials_add_cubes() {
    let mut table = ScriptedTable::new(1);
    let text = event_position("event-3", "castle = true\n")
        .replace("chests = 5\nplan", "chests = 5\nspecial = \"attack\"\nplan")
        .replace(
            "[[seat]]\nchests = 5\n\n[[seat]]\nchests = 5\n\n[[seat]]",
            "[[seat]]\nchests = 5\nspecial = \"defence\"\n\n[[seat]]\nchests = 5\n\n[[seat]]",
        );
    let mut game = from_text(4, &text, &mut table);
    table.then_tower_returns(vec![]);
    attack_musashi(&mut game, &mut table);
    pick(&mut game, 0, "bonus:take", &mut table);
    pick(&mut game, 1, "bonus:take", &mut table);
    // 4 + 1 (attack special); 3 + 1 (defence special) + 1 (castle under the event).
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(0)), 5);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(1)), 5);
}

#[test]
fn the_neutral_farmers_event_defends_with_two() {
    let mut table = ScriptedTable::new(1);
    let text = event_position("event-2", "");
    let mut game = from_text(4, &text, &mut table);
    table.then_tower_returns(vec![cubes(0, 3), farmers(2)]);
    pick(&mut game, 0, "province:sagami", &mut table);
    act(&mut game, 0, Action::Number(4), &mut table);
    assert_eq!(dropped(&table, 0, &farmer()), 2);
    let sagami = &game.state.provinces[province(&game, "sagami")];
    assert_eq!((sagami.owner, sagami.armies), (Some(0), 1));
    assert_eq!(game.state.farmer_supply, 20);
}

#[test]
fn a_neutral_province_holds_on_a_tie() {
    let mut table = ScriptedTable::new(1);
    let text = event_position("event-10", "");
    let mut game = from_text(4, &text, &mut table);
    table.then_tower_returns(vec![cubes(0, 1), farmers(1)]);
    pick(&mut game, 0, "province:sagami", &mut table);
    act(&mut game, 0, Action::Number(4), &mut table);
    assert_eq!(game.state.provinces[province(&game, "sagami")].owner, None);
    assert_eq!(game.state.players[0].supply, 62 - 1 - 3);
}

#[test]
fn tax_and_recruit_events_with_specials() {
    let base = position_text("partial_action");
    // Tax at most 5 under event-6, +1 with the gold special: Suruga's 7 becomes 6.
    let text = base
        .replace("current-event = \"event-7\"", "current-event = \"event-6\"")
        .replace("events = [\"event-6\"]", "events = [\"event-7\"]")
        .replace(
            "plan = { recruit-5 = \"kai\", recruit-3 = \"owari\", build-castle = \"mino\" }",
            "special = \"gold\"\nplan = { collect-taxes = \"suruga\" }",
        )
        + "\n[[province]]\nid = \"suruga\"\nowner = 0\narmies = 1\n";
    let mut table = ScriptedTable::new(1);
    let game = from_text(3, &text, &mut table);
    assert_eq!(game.state.players[0].chests, 11);
    // Poor recruitment (event-11) with the 6-armies special: Deploy 5 places 3 + 1.
    let text = base
        .replace(
            "current-event = \"event-7\"",
            "current-event = \"event-11\"",
        )
        .replace("armies = 57", "armies = 2")
        .replace(
            "plan = { recruit-5 = \"kai\", recruit-3 = \"owari\", build-castle = \"mino\" }",
            "special = \"recruitment\"\nplan = { recruit-5 = \"kai\", recruit-3 = \"mino\" }",
        );
    let mut game = from_text(3, &text, &mut table);
    pick(&mut game, 0, "bonus:take", &mut table);
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 6);
    assert_eq!(game.state.provinces[province(&game, "mino")].armies, 3);
}

#[test]
fn the_theatre_event_removes_a_revolt_marker() {
    let text = position_text("partial_action")
        .replace("current-event = \"event-7\"", "current-event = \"event-0\"")
        .replace("armies = 57", "armies = 2\nrevolts = 2")
        .replace(
            "plan = { recruit-5 = \"kai\", recruit-3 = \"owari\", build-castle = \"mino\" }",
            "plan = { build-theatre = \"kai\" }",
        );
    let game = from_text(3, &text, &mut ScriptedTable::new(1));
    let kai = &game.state.provinces[province(&game, "kai")];
    assert!(kai.theatre);
    assert_eq!(kai.revolts, 1);
    assert_eq!(game.state.players[0].chests, 4);
}

#[test]
fn events_off_keep_only_the_winter_rice_loss() {
    let text = position_text("partial_action")
        .replace(
            "current-event = \"event-7\"",
            "current-event = \"event-11\"",
        )
        .replace("armies = 57", "armies = 2");
    let game = Shogun::create_from_position(
        &setup(3, SUN_MAP),
        &options(&[("events", sdk::OptionValue::Boolean(false))]),
        &text,
        &mut ScriptedTable::new(1),
    )
    .unwrap();
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 2 + 5);
    assert_eq!(game.state.provinces[province(&game, "owari")].armies, 1 + 3);
}

#[test]
fn a_plan_naming_a_lost_province_is_void() {
    let mut table = ScriptedTable::new(1);
    // Seat 1 planned to collect taxes in Musashi, which seat 0 takes first.
    let text = position_text("battle_revolt_marker").replace(
        "[[seat]]\nchests = 5\n\n[[seat]]",
        "[[seat]]\nchests = 5\nplan = { collect-taxes = \"musashi\" }\n\n[[seat]]",
    );
    let mut game = from_text(4, &text, &mut table);
    table.then_tower_returns(vec![cubes(0, 4), cubes(1, 2)]);
    attack_musashi(&mut game, &mut table);
    assert_eq!(
        game.state.provinces[province(&game, "musashi")].owner,
        Some(0)
    );
    assert_eq!(game.state.players[1].chests, 5);
}

#[test]
fn the_draft_places_every_group_and_starts_spring() {
    for seats in 3..=5 {
        let mut table = ScriptedTable::new(u64::from(seats));
        let mut game = Shogun::create(&setup(seats, SUN_MAP), &options(&[]), &mut table).unwrap();
        // Tower loading: 7 cubes of each player and 10 farmers.
        assert_eq!(dropped(&table, 0, &farmer()), 10);
        assert_eq!(dropped(&table, 0, &CubeOwner::Seat(0)), 7);
        let mut picks = 0;
        while matches!(game.state.phase, Phase::Draft) {
            let pending = game.pending();
            assert_eq!(pending.len(), 1);
            let seat = pending[0].seat;
            let ids = choice_ids(&game, seat);
            // Alternate face-up and blind draws, and the largest group first.
            let id = if ids[0].starts_with("group:") {
                ids[0].clone()
            } else {
                ids[picks % ids.len()].clone()
            };
            pick(&mut game, seat, &id, &mut table);
            picks += 1;
        }
        let groups = game.state.board.cards().groups_for(seats);
        assert_eq!(picks, 2 * groups.len() * seats as usize);
        for seat in 0..seats {
            assert_eq!(game.state.provinces_of(seat).len(), groups.len());
            assert_eq!(game.state.armies_on_board(seat), groups.iter().sum::<u32>());
        }
        assert_eq!(game.state.phase, Phase::Planning);
        assert_eq!(
            game.pending().len(),
            seats as usize,
            "everyone plans at once"
        );
    }
}

#[test]
fn the_beginner_setup_is_fixed() {
    for seats in 3..=5 {
        let opts = options(&[("setup", sdk::OptionValue::Choice("beginner".into()))]);
        let game =
            Shogun::create(&setup(seats, SUN_MAP), &opts, &mut ScriptedTable::new(1)).unwrap();
        let groups = game.state.board.cards().groups_for(seats);
        for seat in 0..seats {
            assert_eq!(game.state.armies_on_board(seat), groups.iter().sum::<u32>());
        }
        assert_eq!(game.state.phase, Phase::Planning);
    }
}

#[test]
fn planning_is_secret_until_revealed() {
    let mut table = ScriptedTable::new(1);
    let opts = options(&[("setup", sdk::OptionValue::Choice("beginner".into()))]);
    let mut game = Shogun::create(&setup(3, SUN_MAP), &opts, &mut table).unwrap();
    let pending = game.pending();
    let DecisionKind::Assign(assign) = &pending[0].kind else {
        panic!()
    };
    assert_eq!(assign.slots.len(), 11);
    assert_eq!(assign.min_placements, 11);
    let placements: Vec<(u32, u32)> = (0..11).map(|i| (i, i)).collect();
    act(&mut game, 0, Action::Assign(placements), &mut table);
    let own: serde_json::Value = serde_json::from_str(&game.view(Viewer::Seat(0))).unwrap();
    let other: serde_json::Value = serde_json::from_str(&game.view(Viewer::Seat(1))).unwrap();
    let spectator = game.view(Viewer::Spectator);
    assert!(own["players"][0]["plan"]["actions"][0]["card"]["province"].is_string());
    assert_eq!(other["players"][0]["plan"]["actions"][0]["card"], "hidden");
    assert_eq!(other["players"][0]["plan"]["bid"], "hidden");
    assert!(
        !spectator.contains("\"province\":\""),
        "no planned province card leaks"
    );
    // Face-down action cards and the event deck's order are not shown.
    let cards = own["action_cards"].as_array().unwrap();
    assert_eq!(cards.iter().filter(|c| c.is_null()).count(), 5);
    assert!(own["event_deck"].is_number());
    // A bid of more chests than held: `a_bid_of_more_chests_than_held_is_refused`.
    // Determinizing for seat 1 keeps seat 1's view and redraws seat 0's hidden plan.
    let copy = game.determinize(1, &mut table);
    assert_eq!(copy.view(Viewer::Seat(1)), game.view(Viewer::Seat(1)));
}

#[test]
fn snapshots_restore_the_same_game() {
    let mut table = ScriptedTable::new(1);
    let game = from_file(4, "bids", &mut table);
    let restored = Shogun::restore(&game.snapshot()).unwrap();
    assert_eq!(restored, game);
    assert!(Shogun::restore(b"nonsense").is_err());
}

#[test]
fn bad_positions_are_refused_with_a_reason() {
    let mut table = ScriptedTable::new(1);
    for (text, why) in [
        (position_text("bids") + "\nunknown = 1\n", "unknown field"),
        (
            position_text("bids").replace("id = \"kai\"", "id = \"atlantis\""),
            "unknown province",
        ),
        (
            position_text("bids").replace("armies = 2", "armies = 70"),
            "more than",
        ),
        (
            position_text("bids").replace("bid = \"kai\"", "bid = \"mino\""),
            "does not hold",
        ),
    ] {
        match Shogun::create_from_position(&setup(4, SUN_MAP), &options(&[]), &text, &mut table) {
            Err(sdk::SetupError::Position(reason)) => assert!(reason.contains(why), "{reason}"),
            other => panic!("expected a refusal ({why}), got {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn a_one_year_game_ends_after_the_first_winter() {
    let text = position_text("majorities").replace("year = 2", "year = 1");
    let opts = options(&[("years", sdk::OptionValue::Integer(1))]);
    let game =
        Shogun::create_from_position(&setup(4, SUN_MAP), &opts, &text, &mut ScriptedTable::new(1))
            .unwrap();
    assert!(game.state.is_over());
    assert!(game.pending().is_empty());
}

#[test]
fn bids_of_chest_cards_and_plans_in_views() {
    let mut table = ScriptedTable::new(1);
    let game = from_file(4, "bids", &mut table);
    let view: serde_json::Value = serde_json::from_str(&game.view(Viewer::Spectator)).unwrap();
    assert_eq!(
        view["players"][2]["plan"]["bid"]["chest"], 2,
        "bids are public once revealed"
    );
    assert!(
        view.get("event_deck").unwrap().is_number(),
        "only the deck's size is shown"
    );
    let card = CardRef::Chest(2);
    assert_eq!(game.state.plans[2].as_ref().unwrap().bid, Some(card));
}

#[test]
fn the_catalogue_has_every_key() {
    let catalogue = sdk::Catalogue::from_toml(Shogun::catalogue("en").unwrap()).unwrap();
    let mut keys: Vec<String> = Vec::new();
    for map in [SUN_MAP, MOON_MAP] {
        let board = shogun::data::read_board(map, "standard").unwrap();
        keys.extend(board.provinces.iter().map(|p| format!("province.{}", p.id)));
        keys.extend(board.regions.iter().map(|r| format!("region.{}", r.id)));
        let cards = board.cards();
        keys.extend(cards.events.iter().map(|e| e.name.clone()));
        for deck in &cards.event_decks {
            keys.extend(deck.events.iter().map(|e| e.name.clone()));
        }
        keys.extend(cards.specials.iter().map(|e| e.name.clone()));
        keys.extend(cards.actions.iter().map(|e| e.name.clone()));
    }
    keys.extend(
        Shogun::info()
            .options
            .iter()
            .map(|o| o.description.key.clone()),
    );
    keys.extend(Shogun::info().maps.iter().map(|m| m.name.key.clone()));
    // Every literal key in the rules' sources.
    let src = format!("{}/src", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        // The rendering's own keys are checked by the presentation tests.
        if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("render.rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for part in text.split('"').skip(1).step_by(2) {
                let prefixes = [
                    "log.", "prompt.", "choice.", "reason.", "score.", "summary.", "season.",
                    "slot.", "card.", "render.",
                ];
                if prefixes.iter().any(|p| part.starts_with(p))
                    && !part.contains(' ')
                    && !part.ends_with('.')
                {
                    keys.push(part.to_string());
                }
            }
        }
    }
    let missing: Vec<&String> = keys.iter().filter(|k| catalogue.get(k).is_none()).collect();
    assert!(missing.is_empty(), "missing keys: {missing:?}");
    assert!(keys.len() > 100);
}

#[test]
fn the_rice_cap_option_limits_rice_and_the_rice_special_adds_one() {
    // Suruga's rice is 3; the rice special adds 1; seat 0 already has 8.
    let text = position_text("partial_action").replace(
        "plan = { recruit-5 = \"kai\", recruit-3 = \"owari\", build-castle = \"mino\" }",
        "rice = 8\nspecial = \"rice\"\nplan = { confiscate-rice = \"suruga\" }",
    ) + "\n[[province]]\nid = \"suruga\"\nowner = 0\narmies = 1\n";
    let uncapped = from_text(3, &text, &mut ScriptedTable::new(1));
    assert_eq!(uncapped.state.players[0].rice, 8 + 3 + 1);
    let opts = options(&[("rice-cap", sdk::OptionValue::Integer(10))]);
    let capped =
        Shogun::create_from_position(&setup(3, SUN_MAP), &opts, &text, &mut ScriptedTable::new(1))
            .unwrap();
    assert_eq!(capped.state.players[0].rice, 10);
    // Confiscating added the province's first revolt marker.
    assert_eq!(
        capped.state.provinces[province(&capped, "suruga")].revolts,
        1
    );
}

#[test]
fn a_blind_draft_draw_is_told_only_to_the_drawer() {
    let mut table = ScriptedTable::new(5);
    let mut game = Shogun::create(&setup(4, SUN_MAP), &options(&[]), &mut table).unwrap();
    let seat = game.pending()[0].seat;
    let action = choice(&game, seat, "blind");
    let log = shogun::decide::play(&mut game.state, seat, &action, &mut table).unwrap();
    // Everyone learns that a card was drawn blind; only the drawer learns which.
    for event in log.events() {
        let names_province = event.text.args.iter().any(|(name, _)| name == "province");
        assert_eq!(
            event.audience == sdk::Audience::Seats(vec![seat]),
            names_province,
            "{event:?}"
        );
    }
    let drawn = game.state.draft.as_ref().and_then(|d| d.taken);
    assert_eq!(
        log.outcomes().iter().collect::<Vec<_>>(),
        vec![&Outcome::DrewBlind {
            seat,
            province: drawn.expect("a card taken"),
        }]
    );
    let other: serde_json::Value =
        serde_json::from_str(&game.view(Viewer::Seat((seat + 1) % 4))).unwrap();
    assert_eq!(other["draft"]["face_up"].as_array().unwrap().len(), 2);
    // The group decision follows, for the same seat.
    assert!(
        choice_ids(&game, seat)
            .iter()
            .all(|id| id.starts_with("group:"))
    );
}

#[test]
fn the_event_deck_option_replaces_the_events() {
    let opts = options(&[("event-deck", sdk::OptionValue::Choice("open-war".into()))]);
    let game = Shogun::create(&setup(4, SUN_MAP), &opts, &mut ScriptedTable::new(1)).unwrap();
    let events = &game.state.board.cards().events;
    assert!(!events.is_empty());
    assert!(
        events
            .iter()
            .all(|e| !e.effect.temple_protection && e.effect.tax_max.is_none())
    );
}

// --- Tests that fail when a rule breaks (issue 14) ---------------------------------------------

/// A 4-player spring position at the first action of a layout that starts with `first`, under
/// `event`; `rest` holds the seats and provinces.
fn at_action(first: &[&str], event: &str, rest: &str) -> String {
    let all = [
        "battle-move-a",
        "battle-move-b",
        "build-castle",
        "build-temple",
        "build-theatre",
        "confiscate-rice",
        "collect-taxes",
        "recruit-5",
        "recruit-3",
        "recruit-1-move",
    ];
    let layout: Vec<String> = first
        .iter()
        .copied()
        .chain(all.iter().copied().filter(|a| !first.contains(a)))
        .map(|a| format!("\"{a}\""))
        .collect();
    format!(
        "year = 1\nseason = \"spring\"\nphase = \"actions\"\nstep = 1\nactions = [{}]\n\
         specials = [\"gold\", \"rice\", \"recruitment\", \"attack\", \"defence\"]\n\
         events = [\"event-6\"]\ncurrent-event = \"{event}\"\nturn-order = [0, 1, 2, 3]\n{rest}",
        layout.join(", ")
    )
}

/// The first value `pick` finds among the outcomes.
fn first<T>(outcomes: &[Outcome], pick: impl Fn(&Outcome) -> Option<T>) -> Option<T> {
    outcomes.iter().find_map(pick)
}

/// A plan for `seat`'s planning decision: `fixed` (slot id, item id) pairs, then every other
/// slot filled with the items left, the bid with one it accepts.
fn plan_action(game: &ShogunGame, seat: u32, fixed: &[(&str, &str)]) -> Action {
    let pending = game.pending();
    let decision = pending.iter().find(|d| d.seat == seat).expect("planning");
    let DecisionKind::Assign(assign) = &decision.kind else {
        panic!("not planning: {decision:?}")
    };
    let slot = |id: &str| assign.slots.iter().position(|s| s.id == id).unwrap() as u32;
    let item = |id: &str| assign.items.iter().position(|i| i.id == id).unwrap() as u32;
    let mut placements: Vec<(u32, u32)> = fixed.iter().map(|(s, i)| (slot(s), item(i))).collect();
    for (s, spec) in assign.slots.iter().enumerate() {
        let s = s as u32;
        if placements.iter().any(|&(t, _)| t == s) {
            continue;
        }
        let free = (0..assign.items.len() as u32)
            .find(|&i| spec.accepts(i) && placements.iter().all(|&(_, j)| j != i));
        if let Some(i) = free {
            placements.push((s, i));
        }
    }
    Action::Assign(placements)
}

/// Answers every pending decision at random (the bots' way) until `stop` holds; returns what
/// happened.
fn play_until(
    game: &mut ShogunGame,
    table: &mut ScriptedTable,
    bots: &mut ScriptedTable,
    stop: impl Fn(&ShogunGame) -> bool,
) -> Vec<Outcome> {
    let mut log = Vec::new();
    let mut steps = 0;
    while !stop(game) && !game.state.is_over() {
        steps += 1;
        assert!(steps < 3000, "the game does not get there");
        let decision = game.pending().remove(0);
        let action = sdk::random_action(&decision.kind, bots);
        log.extend(act_told(game, decision.seat, action, table));
    }
    log
}

fn beginner() -> sdk::Options {
    options(&[("setup", sdk::OptionValue::Choice("beginner".into()))])
}

#[test]
fn the_event_drawn_in_play_changes_taxes_and_rice() {
    // From new games: seat 0 (Suruga taxes 7, Mino rice 5 in the beginner setup) plans taxes in
    // Suruga and rice in Mino; whatever event the game draws must limit what it gets.
    let mut changed = 0;
    for seed in 0..40 {
        let mut table = ScriptedTable::new(seed);
        let mut bots = ScriptedTable::new(seed + 1000);
        let mut game = Shogun::create(&setup(3, SUN_MAP), &beginner(), &mut table).unwrap();
        let plan = plan_action(
            &game,
            0,
            &[
                ("action:collect-taxes", "province:suruga"),
                ("action:confiscate-rice", "province:mino"),
                ("bid", "chest:0"),
            ],
        );
        act(&mut game, 0, plan, &mut table);
        let mut log = play_until(&mut game, &mut table, &mut bots, |g| {
            g.state.phase != Phase::Planning
        });
        let event = game.state.current_event.expect("an event is drawn");
        let effect = game.state.board.cards().events[event].effect.clone();
        log.extend(play_until(&mut game, &mut table, &mut bots, |g| {
            g.state.phase == Phase::Planning
        }));
        // Seat 0's special card this season.
        let cards = game.state.board.cards();
        let special = first(&log, |o| match o {
            Outcome::SpecialTaken {
                seat: 0, special, ..
            } => Some(cards.specials[*special].effect.clone()),
            _ => None,
        })
        .unwrap_or_default();
        let clamp = |v: u32, min: Option<u32>, max: Option<u32>| {
            v.min(max.unwrap_or(u32::MAX)).max(min.unwrap_or(0))
        };
        let taxes = first(&log, |o| match o {
            Outcome::TaxesCollected {
                seat: 0, chests, ..
            } => Some(*chests),
            _ => None,
        });
        if let Some(taxes) = taxes {
            let expected = clamp(7, effect.tax_min, effect.tax_max) + special.tax_bonus;
            assert_eq!(taxes, expected, "seed {seed}: taxes under {effect:?}");
            changed += usize::from(expected != 7 + special.tax_bonus);
        }
        let rice = first(&log, |o| match o {
            Outcome::RiceConfiscated { seat: 0, rice, .. } => Some(*rice),
            _ => None,
        });
        if let Some(rice) = rice {
            let expected = clamp(5, effect.rice_min, effect.rice_max) + special.rice_bonus;
            assert_eq!(rice, expected, "seed {seed}: rice under {effect:?}");
            changed += usize::from(expected != 5 + special.rice_bonus);
        }
    }
    assert!(
        changed >= 3,
        "the games drew too few events that matter: {changed}"
    );
}

#[test]
fn a_year_has_three_seasons_each_with_its_own_event_and_the_fourth_is_the_winter_card() {
    let mut table = ScriptedTable::new(11);
    let mut bots = ScriptedTable::new(12);
    let mut game = Shogun::create(&setup(4, SUN_MAP), &beginner(), &mut table).unwrap();
    let face_up = game.state.year_events.clone();
    assert_eq!(face_up.len(), 4);
    let mut drawn = Vec::new();
    let mut seasons = 0;
    let mut log = Vec::new();
    while game.state.year == 1 {
        seasons += 1;
        assert!(seasons <= 3, "a fourth season began");
        let season = game.state.season;
        log.extend(play_until(&mut game, &mut table, &mut bots, |g| {
            g.state.phase != Phase::Planning
        }));
        let event = game
            .state
            .current_event
            .expect("each season draws an event");
        assert!(!drawn.contains(&event), "an event drawn twice");
        assert!(
            !game.state.year_events.contains(&event),
            "a drawn event stays among the year's events"
        );
        drawn.push(event);
        log.extend(play_until(&mut game, &mut table, &mut bots, |g| {
            g.state.season != season || g.state.year != 1 || g.state.phase == Phase::Planning
        }));
    }
    assert_eq!(seasons, 3);
    // The game began in spring (before this log); then summer, autumn, and the next spring.
    let began: Vec<(u32, u32)> = log
        .iter()
        .filter_map(|o| match o {
            Outcome::SeasonBegan { year, season } => Some((*year, *season)),
            _ => None,
        })
        .collect();
    assert_eq!(began, vec![(1, 1), (1, 2), (2, 0)]);
    let winter: Vec<usize> = face_up
        .iter()
        .copied()
        .filter(|e| !drawn.contains(e))
        .collect();
    assert_eq!(winter.len(), 1);
    let loss = game.state.board.cards().events[winter[0]].winter_rice_loss;
    for seat in 0..4 {
        let lost = first(&log, |o| match o {
            Outcome::WinterRice { seat: s, loss, .. } if *s == seat => Some(*loss),
            _ => None,
        });
        assert_eq!(lost, Some(loss), "the winter card is the event never drawn");
    }
}

#[test]
fn tower_loading_returns_what_comes_out_to_supply() {
    let mut table = ScriptedTable::new(1);
    table.then_tower_returns(vec![cubes(0, 5), cubes(1, 7), cubes(2, 6), farmers(8)]);
    let game = Shogun::create(&setup(3, SUN_MAP), &options(&[]), &mut table).unwrap();
    let s = &game.state;
    let held: Vec<(u32, u32, u32)> = s
        .players
        .iter()
        .map(|p| (p.supply, p.in_tower, p.tray))
        .collect();
    assert_eq!(held, vec![(60, 2, 0), (62, 0, 0), (61, 1, 0)]);
    assert_eq!(
        (s.farmer_supply, s.farmers_in_tower, s.tray_farmers),
        (18, 2, 0)
    );
}

#[test]
fn starting_chests_are_18_15_or_12_by_player_count() {
    for (seats, chests) in [(3, 18), (4, 15), (5, 12)] {
        let game = Shogun::create(
            &setup(seats, SUN_MAP),
            &options(&[]),
            &mut ScriptedTable::new(1),
        )
        .unwrap();
        assert!(game.state.players.iter().all(|p| p.chests == chests));
    }
}

#[test]
fn a_face_up_draft_card_taken_is_replaced_from_the_deck() {
    let mut table = ScriptedTable::new(2);
    let mut game = Shogun::create(&setup(4, SUN_MAP), &options(&[]), &mut table).unwrap();
    let draft = game.state.draft.clone().unwrap();
    let seat = game.pending()[0].seat;
    pick(&mut game, seat, "face-up:1", &mut table);
    let after = game.state.draft.clone().unwrap();
    assert_eq!(
        after.face_up,
        vec![draft.face_up[0], *draft.deck.last().unwrap()]
    );
    assert_eq!(after.deck.len(), draft.deck.len() - 1);
    let group = choice_ids(&game, seat)[0].clone();
    pick(&mut game, seat, &group, &mut table);
    assert_eq!(game.state.provinces[draft.face_up[1]].owner, Some(seat));
}

#[test]
fn a_bid_of_more_chests_than_held_is_refused() {
    // Seat 0 holds 2 chests and no province card: it must place its five chest cards.
    let text =
        position_text("bids").replacen("chests = 5\nplan = { bid = \"chest:0\" }", "chests = 2", 1);
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &text, &mut table);
    let pending = game.pending();
    let DecisionKind::Assign(assign) = &pending[0].kind else {
        panic!("seat 0 plans")
    };
    let bid = assign.slots.iter().find(|s| s.id == "bid").unwrap();
    let accepted: Vec<&str> = (0..assign.items.len() as u32)
        .filter(|&i| bid.accepts(i))
        .map(|i| assign.items[i as usize].id.as_str())
        .collect();
    assert_eq!(accepted, vec!["chest:0", "chest:1", "chest:2"]);
    let too_much = plan_action(&game, 0, &[("bid", "chest:3")]);
    let before = game.clone();
    assert!(game.apply(0, &too_much, &mut table).is_err());
    assert_eq!(game, before, "a refused plan changes nothing");
    let affordable = plan_action(&game, 0, &[("bid", "chest:2")]);
    act(&mut game, 0, affordable, &mut table);
    assert_eq!(game.state.players[0].chests, 0, "the bid is paid");
}

#[test]
fn a_seat_without_a_bid_card_chooses_last() {
    let text = position_text("bids")
        .replace(
            "plan = { bid = \"chest:0\" }",
            "plan = { build-castle = \"chest:0\" }",
        )
        .replace(
            "plan = { bid = \"chest:1\" }",
            "plan = { bid = \"chest:0\" }",
        );
    for seed in 0..5 {
        let game = from_text(4, &text, &mut ScriptedTable::new(seed));
        // Chests 2, then a province card, then 0 chests, then no card at all.
        assert_eq!(game.state.bid_order, vec![2, 1, 3, 0]);
    }
}

#[test]
fn winter_revolts_go_in_the_autumn_turn_order() {
    // Seats 0 and 1 each have one province and no rice: one revolt each; seat 1 acted first.
    let text = "year = 1\nphase = \"winter\"\nevents = [\"event-6\"]\nturn-order = [1, 2, 0]\n\
                [[seat]]\n[[seat]]\n[[seat]]\nrice = 5\n\
                [[province]]\nid = \"kai\"\nowner = 0\narmies = 3\n\
                [[province]]\nid = \"mino\"\nowner = 1\narmies = 4\n\
                [[province]]\nid = \"omi\"\nowner = 2\narmies = 2\n";
    let mut table = ScriptedTable::new(1);
    from_text(3, text, &mut table);
    assert_eq!(table.drops.len(), 2);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(1)), 4);
    assert_eq!(dropped(&table, 1, &CubeOwner::Seat(0)), 3);
}

#[test]
fn confiscating_rice_where_markers_lie_raises_a_revolt() {
    let text = position_text("taxes_two_markers").replace(
        "plan = { collect-taxes = \"kai\" }",
        "plan = { confiscate-rice = \"kai\" }",
    );
    let mut table = ScriptedTable::new(1);
    table.then_tower_returns(vec![cubes(0, 3), farmers(1)]);
    let game = from_text(3, &text, &mut table);
    assert_eq!(dropped(&table, 0, &farmer()), 2, "one farmer per marker");
    let kai = &game.state.provinces[province(&game, "kai")];
    assert_eq!((kai.armies, kai.revolts), (2, 3));
    assert_eq!(game.state.players[0].rice, 3);
}

/// Seat 0 alone acts: `plan` on `province` (owned by seat 0 with 2 armies) under `event`.
fn one_action(event: &str, plan: &str, province: &str) -> ShogunGame {
    let text = at_action(
        &[],
        event,
        &format!(
            "[[seat]]\nchests = 5\nplan = {{ {plan} = \"{province}\" }}\n[[seat]]\n[[seat]]\n[[seat]]\n\
             [[province]]\nid = \"{province}\"\nowner = 0\narmies = 2\n"
        ),
    );
    from_text(4, &text, &mut ScriptedTable::new(1))
}

#[test]
fn the_tax_floor_event_raises_taxes_to_six() {
    // Mino's taxes are 3.
    let game = one_action("event-7", "collect-taxes", "mino");
    assert_eq!(game.state.players[0].chests, 5 + 6);
}

#[test]
fn the_rice_floor_event_raises_rice_to_four() {
    // Suruga's rice is 3.
    let game = one_action("event-9", "confiscate-rice", "suruga");
    assert_eq!(game.state.players[0].rice, 4);
}

#[test]
fn the_rice_ceiling_event_limits_rice_to_three() {
    // Mino's rice is 5.
    let game = one_action("event-10", "confiscate-rice", "mino");
    assert_eq!(game.state.players[0].rice, 3);
}

#[test]
fn the_attack_special_adds_a_cube_against_a_neutral_province() {
    let text = event_position("event-10", "")
        .replace("chests = 5\nplan", "chests = 5\nspecial = \"attack\"\nplan");
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &text, &mut table);
    pick(&mut game, 0, "province:sagami", &mut table);
    act(&mut game, 0, Action::Number(4), &mut table);
    let log = pick_told(&mut game, 0, "bonus:take", &mut table);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(0)), 5);
    assert_eq!(dropped(&table, 0, &farmer()), 1);
    let sent = first(&log, |o| match o {
        Outcome::NeutralBattle {
            seat: 0,
            armies,
            farmers,
            ..
        } => Some((*armies, *farmers)),
        _ => None,
    });
    assert_eq!(sent, Some((5, 1)));
}

#[test]
fn revolts_are_fought_without_the_defence_special_or_the_castle_event() {
    // Kai has a castle under the castle event, and seat 0 holds the defence special.
    let text = position_text("taxes_two_markers")
        .replace("current-event = \"event-2\"", "current-event = \"event-3\"")
        .replace(
            "chests = 5\nplan",
            "chests = 5\nspecial = \"defence\"\nplan",
        )
        .replace("revolts = 2", "revolts = 2\ncastle = true");
    let mut table = ScriptedTable::new(1);
    let game = from_text(3, &text, &mut table);
    assert_eq!(
        dropped(&table, 0, &CubeOwner::Seat(0)),
        3,
        "only the armies"
    );
    // 2 farmers against 3 armies: put down, one army left per farmer lost.
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 1);
}

#[test]
fn the_castle_event_adds_a_cube_only_where_a_castle_stands() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &event_position("event-3", ""), &mut table);
    table.then_tower_returns(vec![]);
    attack_musashi(&mut game, &mut table);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(1)), 3);
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &event_position("event-3", "castle = true\n"), &mut table);
    table.then_tower_returns(vec![]);
    attack_musashi(&mut game, &mut table);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(1)), 4);
}

#[test]
fn the_temple_event_leaves_moves_into_own_temple_provinces_open() {
    let text = event_position("event-5", "")
        + "\n[[province]]\nid = \"sagami\"\nowner = 0\narmies = 1\ntemple = true\n";
    let game = from_text(4, &text, &mut ScriptedTable::new(1));
    assert!(choice_ids(&game, 0).contains(&"province:sagami".to_string()));
}

#[test]
fn a_province_holds_one_building_of_each_type() {
    for (action, building, cost) in [
        ("build-castle", "castle", 3),
        ("build-temple", "temple", 2),
        ("build-theatre", "theatre", 1),
    ] {
        // Sagami has three spaces. Empty, the action builds its own building, at its cost.
        let text = at_action(
            &[action],
            "event-10",
            &format!(
                "[[seat]]\nchests = 5\nplan = {{ {action} = \"sagami\" }}\n[[seat]]\n[[seat]]\n[[seat]]\n\
                 [[province]]\nid = \"sagami\"\nowner = 0\narmies = 2\n"
            ),
        );
        let game = from_text(4, &text, &mut ScriptedTable::new(1));
        let sagami = &game.state.provinces[province(&game, "sagami")];
        let built = (sagami.castle, sagami.temple, sagami.theatre);
        let expected = (
            building == "castle",
            building == "temple",
            building == "theatre",
        );
        assert_eq!(built, expected, "{action}");
        assert_eq!(game.state.players[0].chests, 5 - cost, "{action}");
        // With that building already standing, a second one is skipped, unpaid.
        let text = text.replace("armies = 2\n", &format!("armies = 2\n{building} = true\n"));
        let game = from_text(4, &text, &mut ScriptedTable::new(1));
        assert_eq!(game.state.players[0].chests, 5, "{action}");
        let sagami = &game.state.provinces[province(&game, "sagami")];
        assert_eq!(sagami.buildings(), 1, "{action}");
    }
}

#[test]
fn cubes_of_seats_outside_a_battle_stay_in_the_tray() {
    // Seat 2 has 2 cubes in the tray; they fall with the battle and come out again.
    let text = position_text("battle_revolt_marker").replacen(
        "[[seat]]\nchests = 5\n\n[[seat]]\nchests = 5\n\n[[seat]]",
        "[[seat]]\nchests = 5\n\n[[seat]]\nchests = 5\ntray = 2\n\n[[seat]]",
        1,
    );
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &text, &mut table);
    table.then_tower_returns(vec![cubes(0, 4), cubes(1, 2), cubes(2, 2)]);
    attack_musashi(&mut game, &mut table);
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(2)), 2);
    let seat2 = &game.state.players[2];
    assert_eq!((seat2.supply, seat2.tray), (60, 2));
}

#[test]
fn a_conquered_province_keeps_its_buildings_and_markers() {
    let text = position_text("battle_revolt_marker") + "castle = true\ntemple = true\n";
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &text, &mut table);
    table.then_tower_returns(vec![cubes(0, 4), cubes(1, 2)]);
    attack_musashi(&mut game, &mut table);
    let musashi = &game.state.provinces[province(&game, "musashi")];
    assert_eq!(musashi.owner, Some(0));
    assert!(musashi.castle && musashi.temple);
    assert_eq!(musashi.revolts, 1);
}

// --- Regressions of the deviations fixed for issue 14 ------------------------------------------

/// The partial-action position with seat 0 holding the "6 armies" special, `supply` cubes in
/// supply, and Deploy 5 in Kai under `event`.
fn recruit_position(event: &str, supply: u32) -> String {
    position_text("partial_action")
        .replace(
            "current-event = \"event-7\"",
            &format!("current-event = \"{event}\""),
        )
        .replace("armies = 57", &format!("armies = {}", 62 - 2 - supply))
        .replace(
            "plan = { recruit-5 = \"kai\", recruit-3 = \"owari\", build-castle = \"mino\" }",
            "special = \"recruitment\"\nplan = { recruit-5 = \"kai\" }",
        )
}

#[test]
fn regression_the_six_armies_special_is_optional_so_deploy_5_happens_with_five_in_supply() {
    let game = from_text(
        3,
        &recruit_position("event-7", 5),
        &mut ScriptedTable::new(1),
    );
    assert_eq!(
        game.state.provinces[province(&game, "kai")].armies,
        55 + 5,
        "Deploy 5 places its five without the bonus"
    );
    assert_eq!(game.state.players[0].supply, 0);
    // Under poor recruitment (3 armies) the same holds with 3 in supply.
    let game = from_text(
        3,
        &recruit_position("event-11", 3),
        &mut ScriptedTable::new(1),
    );
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 57 + 3);
}

#[test]
fn regression_the_six_armies_special_is_asked_and_may_be_declined() {
    let mut table = ScriptedTable::new(1);
    let game = from_text(3, &recruit_position("event-7", 10), &mut table);
    assert_eq!(choice_ids(&game, 0), vec!["bonus:take", "bonus:decline"]);
    let kai = province(&game, "kai");
    let mut declined = game.clone();
    pick(&mut declined, 0, "bonus:decline", &mut table);
    assert_eq!(declined.state.provinces[kai].armies, 50 + 5);
    let mut taken = game;
    pick(&mut taken, 0, "bonus:take", &mut table);
    assert_eq!(taken.state.provinces[kai].armies, 50 + 6);
    assert_eq!(taken.state.players[0].chests, 5 - 3);
}

/// The battle position with the attack special for seat 0 and the defence special for seat 1.
fn specials_battle(event: &str, extra: &str) -> String {
    event_position(event, extra)
        .replace("chests = 5\nplan", "chests = 5\nspecial = \"attack\"\nplan")
        .replacen(
            "[[seat]]\nchests = 5\n\n[[seat]]\nchests = 5\n\n[[seat]]",
            "[[seat]]\nchests = 5\nspecial = \"defence\"\n\n[[seat]]\nchests = 5\n\n[[seat]]",
            1,
        )
}

#[test]
fn regression_attack_and_defence_specials_are_each_side_s_choice() {
    for (attack, defence, attackers, defenders) in [
        ("bonus:take", "bonus:take", 5, 4),
        ("bonus:decline", "bonus:take", 4, 4),
        ("bonus:take", "bonus:decline", 5, 3),
        ("bonus:decline", "bonus:decline", 4, 3),
    ] {
        let mut table = ScriptedTable::new(1);
        let mut game = from_text(4, &specials_battle("event-10", ""), &mut table);
        table.then_tower_returns(vec![]);
        attack_musashi(&mut game, &mut table);
        pick(&mut game, 0, attack, &mut table);
        assert_eq!(game.pending()[0].seat, 1, "the defender is asked next");
        let log = pick_told(&mut game, 1, defence, &mut table);
        // The battle reports what went in.
        let went_in = first(&log, |o| match o {
            Outcome::Battle {
                seat: 0,
                armies,
                defending,
                ..
            } => Some((*armies, *defending)),
            _ => None,
        });
        assert_eq!(went_in, Some((attackers, defenders)));
        assert_eq!(dropped(&table, 0, &CubeOwner::Seat(0)), attackers);
        assert_eq!(dropped(&table, 0, &CubeOwner::Seat(1)), defenders);
        assert_eq!(game.state.players[0].supply, 62 - 5 - (attackers - 4));
    }
}

#[test]
fn regression_a_special_is_not_asked_about_when_it_would_change_nothing() {
    // Seat 1's only supply cube goes to the castle event: its defence special has nothing to add.
    let text = specials_battle("event-3", "castle = true\n").replace(
        "[[province]]\nid = \"kai\"",
        "[[province]]\nid = \"shinano\"\nowner = 1\narmies = 58\n\n[[province]]\nid = \"kai\"",
    );
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &text, &mut table);
    table.then_tower_returns(vec![]);
    attack_musashi(&mut game, &mut table);
    pick(&mut game, 0, "bonus:take", &mut table);
    assert_eq!(
        table.drops.len(),
        1,
        "the battle is fought without asking seat 1"
    );
    assert_eq!(dropped(&table, 0, &CubeOwner::Seat(1)), 3 + 1);
}

#[test]
fn regression_a_plan_naming_a_province_lost_and_retaken_is_void() {
    // Seat 0 takes Musashi with Battle/Move A; seat 1 retakes it from Kozuke with Battle/Move B;
    // seat 1's taxes planned in Musashi are void all the same.
    let text = at_action(
        &["battle-move-a", "battle-move-b", "collect-taxes"],
        "event-10",
        "[[seat]]\nchests = 5\nplan = { battle-move-a = \"kai\" }\n\
         [[seat]]\nchests = 5\nplan = { battle-move-b = \"kozuke\", collect-taxes = \"musashi\" }\n\
         [[seat]]\n[[seat]]\n\
         [[province]]\nid = \"kai\"\nowner = 0\narmies = 5\n\
         [[province]]\nid = \"musashi\"\nowner = 1\narmies = 3\n\
         [[province]]\nid = \"kozuke\"\nowner = 1\narmies = 4\n",
    );
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &text, &mut table);
    table.then_tower_returns(vec![cubes(0, 4), cubes(1, 2)]);
    attack_musashi(&mut game, &mut table);
    assert_eq!(
        game.state.provinces[province(&game, "musashi")].owner,
        Some(0)
    );
    table.then_tower_returns(vec![cubes(1, 3), cubes(0, 1)]);
    pick(&mut game, 1, "province:musashi", &mut table);
    let log = act_told(&mut game, 1, Action::Number(3), &mut table);
    assert_eq!(
        game.state.provinces[province(&game, "musashi")].owner,
        Some(1)
    );
    assert_eq!(game.state.players[1].chests, 5, "no taxes from a void plan");
    assert!(log.iter().any(|o| matches!(
        o,
        Outcome::Skipped {
            seat: 1,
            reason: SkipReason::ProvinceLost,
            ..
        }
    )));
}

#[test]
fn regression_each_tower_shelf_takes_its_own_chances_from_the_card_data() {
    let map = format!(
        "{SUN_MAP}\n[cards]\ntower-shelves = [\n  {{ lodge-chance = 0.2, release-chance = 0.05 }},\n  \
         {{ lodge-chance = 0.1, release-chance = 0.01 }},\n  {{ lodge-chance = 0.3, release-chance = 0.0 }},\n]\n"
    );
    let mut table = ScriptedTable::new(1);
    Shogun::create(&setup(3, &map), &options(&[]), &mut table).unwrap();
    let chances: Vec<(f64, f64)> = table
        .shelves
        .unwrap()
        .iter()
        .map(|s| (s.lodge_chance, s.release_chance))
        .collect();
    assert_eq!(chances, vec![(0.2, 0.05), (0.1, 0.01), (0.3, 0.0)]);
    // An option set away from its default replaces that chance on every shelf.
    let mut table = ScriptedTable::new(1);
    let opts = options(&[("tower-lodge-chance", sdk::OptionValue::Decimal(0.4))]);
    Shogun::create(&setup(3, &map), &opts, &mut table).unwrap();
    let chances: Vec<(f64, f64)> = table
        .shelves
        .unwrap()
        .iter()
        .map(|s| (s.lodge_chance, s.release_chance))
        .collect();
    assert_eq!(chances, vec![(0.4, 0.05), (0.4, 0.01), (0.4, 0.0)]);
}

#[test]
fn special_card_choices_name_the_space_that_sets_turn_order() {
    let game = from_file(4, "bids", &mut ScriptedTable::new(1));
    let pending = game.pending();
    let DecisionKind::Choose(choose) = &pending[0].kind else {
        panic!("a special card to choose")
    };
    for (i, choice) in choose.choices.iter().enumerate() {
        let space = i as i64 + 1;
        assert_eq!(choice.id, format!("space:{space}"));
        assert!(
            choice
                .label
                .args
                .contains(&("space".into(), sdk::MessageArg::Number(space))),
            "{choice:?}"
        );
    }
}

#[test]
fn a_drop_names_only_the_owners_that_put_cubes_in() {
    // Seat 0 attacks Musashi with an empty tray: only seats 0 and 1 go in, neither the other seats
    // nor the farmers with an empty count (every player is shown what went in).
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &event_position("event-10", ""), &mut table);
    attack_musashi(&mut game, &mut table);
    let owners: Vec<&CubeOwner> = table.drops[0].dropped.iter().map(|c| &c.owner).collect();
    assert_eq!(owners, vec![&CubeOwner::Seat(0), &CubeOwner::Seat(1)]);
}

#[test]
fn a_battle_move_is_carried_out_once() {
    // Seat 0 sends 2 of Kai's 5 armies: 3 stay, and its Battle/Move A is done.
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_revolt_marker", &mut table);
    table.then_tower_returns(vec![cubes(0, 1), cubes(1, 3)]);
    pick(&mut game, 0, "province:musashi", &mut table);
    act(&mut game, 0, Action::Number(2), &mut table);
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 3);
    assert_eq!(
        game.state.phase,
        Phase::Planning,
        "the season went on to its end"
    );
    assert_eq!(game.state.season, 1);
}

#[test]
fn the_log_names_each_special_s_space_and_each_turn_position() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "bids", &mut table);
    let mut log = Vec::new();
    for (seat, space) in [
        (2, "space:5"),
        (3, "space:1"),
        (1, "space:3"),
        (0, "space:4"),
    ] {
        log.extend(pick_told(&mut game, seat, space, &mut table));
    }
    // Spaces and positions are counted from 0 in the outcomes.
    let space = |seat| {
        first(&log, |o| match o {
            Outcome::SpecialTaken { seat: s, space, .. } if *s == seat => Some(*space),
            _ => None,
        })
    };
    assert_eq!(space(2), Some(4));
    assert_eq!(space(3), Some(0));
    let order: Vec<(u32, usize)> = log
        .iter()
        .filter_map(|o| match o {
            Outcome::TurnOrder { seat, position } => Some((*seat, *position)),
            _ => None,
        })
        .collect();
    assert_eq!(order, vec![(3, 0), (1, 1), (0, 2), (2, 3)]);
    // The log counts them from 1, as the board prints them.
    let told = shogun::tell::events(
        &game.state,
        &Outcome::TurnOrder {
            seat: 3,
            position: 0,
        },
    );
    assert!(
        told[0]
            .text
            .args
            .contains(&("position".into(), sdk::MessageArg::Number(1)))
    );
}

#[test]
fn the_log_tells_when_the_theatre_event_removes_a_marker() {
    // Seat 0 deploys one army in Kai (a move decision follows), then builds Nō theatres in Mino
    // (two markers) under the event.
    for (revolts, removed) in [(2_u32, Some(1)), (0, None)] {
        let text = at_action(
            &["recruit-1-move", "build-theatre"],
            "event-0",
            &format!(
                "[[seat]]\nchests = 5\nplan = {{ recruit-1-move = \"kai\", build-theatre = \"mino\" }}\n\
                 [[seat]]\n[[seat]]\n[[seat]]\n\
                 [[province]]\nid = \"kai\"\nowner = 0\narmies = 2\n\
                 [[province]]\nid = \"musashi\"\nowner = 0\narmies = 1\n\
                 [[province]]\nid = \"mino\"\nowner = 0\narmies = 1\nrevolts = {revolts}\n"
            ),
        );
        let mut table = ScriptedTable::new(1);
        let mut game = from_text(4, &text, &mut table);
        let log = pick_told(&mut game, 0, "no-move", &mut table);
        let mino = province(&game, "mino");
        assert!(game.state.provinces[mino].theatre);
        assert_eq!(
            game.state.provinces[mino].revolts,
            revolts.saturating_sub(1)
        );
        let markers = first(&log, |o| match o {
            Outcome::RevoltMarkersRemoved { province, markers } if *province == mino => {
                Some(*markers)
            }
            _ => None,
        });
        assert_eq!(markers, removed);
    }
}

#[test]
fn battle_move_needs_two_armies_and_then_may_send_one() {
    // Kai with 2 armies: the move goes, one army stays; Totomi with 1: skipped.
    let text = at_action(
        &["battle-move-a"],
        "event-10",
        "[[seat]]\nchests = 5\nplan = { battle-move-a = \"kai\" }\n\
         [[seat]]\nplan = { battle-move-a = \"totomi\" }\n[[seat]]\n[[seat]]\n\
         [[province]]\nid = \"kai\"\nowner = 0\narmies = 2\n\
         [[province]]\nid = \"sagami\"\nowner = 0\narmies = 1\n\
         [[province]]\nid = \"totomi\"\nowner = 1\narmies = 1\n",
    );
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &text, &mut table);
    let log = pick_told(&mut game, 0, "province:sagami", &mut table);
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 1);
    assert_eq!(game.state.provinces[province(&game, "sagami")].armies, 2);
    assert_eq!(game.state.provinces[province(&game, "totomi")].armies, 1);
    let skipped = log.iter().any(|o| {
        matches!(
            o,
            Outcome::Skipped {
                seat: 1,
                reason: SkipReason::OneArmy,
                ..
            }
        )
    });
    assert!(skipped, "Totomi's single army cannot go");
}

#[test]
fn a_tower_reporting_cubes_that_never_went_in_creates_none() {
    // A faulty host says more of seat 0's cubes and more farmers came out than went in, and names
    // a seat that does not play and an unknown kind of cube. Only what can be inside counts; the
    // rest is logged.
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    table.then_tower_returns(vec![
        cubes(0, 6),
        cubes(1, 2),
        cubes(4, 2),
        sdk::CubeCount {
            owner: CubeOwner::Neutral("ninja".into()),
            count: 2,
        },
        farmers(5),
    ]);
    attack_musashi(&mut game, &mut table);
    // 4 attackers against 2 defenders and the 3 tray farmers: the farmers absorb 3 losses.
    let s = &game.state;
    let musashi = &s.provinces[province(&game, "musashi")];
    assert_eq!((musashi.owner, musashi.armies), (Some(1), 1));
    for (seat, player) in s.players.iter().enumerate() {
        let total = player.supply + s.armies_on_board(seat as u32) + player.in_tower + player.tray;
        assert_eq!(total, 62, "seat {seat}");
    }
    assert_eq!((s.farmer_supply, s.farmers_in_tower), (20, 0));
    let warnings = table
        .log
        .iter()
        .filter(|(level, _)| *level == sdk::LogLevel::Warn)
        .count();
    assert_eq!(warnings, 2, "{:?}", table.log);
}

#[test]
fn each_action_card_turns_face_up_once_when_the_action_five_before_it_is_done() {
    // Seat 0 deploys in Kai first (a move decision follows); the log of the rest of the season
    // turns the face-down cards one by one, in layout order, each once.
    let rest = "[[seat]]\nchests = 5\nplan = { recruit-1-move = \"kai\" }\n[[seat]]\n[[seat]]\n[[seat]]\n\
                [[province]]\nid = \"kai\"\nowner = 0\narmies = 2\n\
                [[province]]\nid = \"musashi\"\nowner = 0\narmies = 1\n";
    let text = at_action(&["recruit-1-move"], "event-10", rest);
    for (text, first_turned) in [
        (text.clone(), 5),
        // A position whose cards 6 and 7 already lie face up: they are not turned again.
        (
            text.replacen("turn-order", "revealed = 7\nturn-order", 1),
            7,
        ),
    ] {
        let mut table = ScriptedTable::new(1);
        let mut game = from_text(4, &text, &mut table);
        let layout = game.state.action_layout.clone();
        let log = pick_told(&mut game, 0, "no-move", &mut table);
        let turned: Vec<(usize, usize)> = log
            .iter()
            .filter_map(|o| match o {
                Outcome::ActionRevealed { action, slot } => Some((*slot, *action)),
                _ => None,
            })
            .collect();
        let expected: Vec<(usize, usize)> = (first_turned..layout.len())
            .map(|slot| (slot, layout[slot]))
            .collect();
        assert_eq!(turned, expected);
    }
}

#[test]
fn a_building_needs_its_cost_in_chests() {
    for (chests, built) in [(3, true), (2, false)] {
        let text = at_action(
            &["build-castle"],
            "event-10",
            &format!(
                "[[seat]]\nchests = {chests}\nplan = {{ build-castle = \"sagami\" }}\n[[seat]]\n[[seat]]\n[[seat]]\n\
                 [[province]]\nid = \"sagami\"\nowner = 0\narmies = 2\n"
            ),
        );
        let game = from_text(4, &text, &mut ScriptedTable::new(1));
        assert_eq!(
            game.state.provinces[province(&game, "sagami")].castle,
            built
        );
        assert_eq!(game.state.players[0].chests, if built { 0 } else { chests });
    }
}

#[test]
fn deploy_move_offers_a_move_only_toward_an_own_neighbour() {
    // Kai (1 army) gets its army; with Musashi its own, one army may move there.
    let with_neighbour = at_action(
        &["recruit-1-move"],
        "event-10",
        "[[seat]]\nchests = 5\nplan = { recruit-1-move = \"kai\" }\n[[seat]]\n[[seat]]\n[[seat]]\n\
         [[province]]\nid = \"kai\"\nowner = 0\narmies = 1\n\
         [[province]]\nid = \"musashi\"\nowner = 0\narmies = 1\n",
    );
    let game = from_text(4, &with_neighbour, &mut ScriptedTable::new(1));
    assert_eq!(choice_ids(&game, 0), vec!["province:musashi", "no-move"]);
    // Without an own neighbour there is nothing to ask: the season goes on.
    let alone =
        with_neighbour.replace("id = \"musashi\"\nowner = 0", "id = \"musashi\"\nowner = 1");
    let game = from_text(4, &alone, &mut ScriptedTable::new(1));
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 2);
    assert_eq!(game.state.phase, Phase::Planning);
}

#[test]
fn the_army_count_goes_back_to_the_target_choice_with_nothing_changed() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(4, "battle_farmers_defend", &mut table);
    // The target step is where the seat starts: it offers no way back (the plan fixed Kai).
    let at_target = game.snapshot();
    let targets = choice_ids(&game, 0);
    assert!(game.pending()[0].back.is_none());
    assert!(matches!(
        game.clone().apply(0, &Action::Back, &mut table),
        Err(sdk::Rejection::Malformed(_))
    ));

    pick(&mut game, 0, "province:musashi", &mut table);
    let count = &game.pending()[0];
    assert_eq!(count.prompt.key, "prompt.armies");
    assert_eq!(
        count.back.as_ref().map(|m| m.key.as_str()),
        Some("back.battle-target")
    );

    // Back: the same target choice, the game exactly as before the target was picked, and no
    // random number or tower drop spent.
    let mut back_table = ScriptedTable::new(9);
    let told = act_told(&mut game, 0, Action::Back, &mut back_table);
    let kai = province(&game, "kai");
    assert_eq!(told, vec![Outcome::TargetWithdrawn { seat: 0, from: kai }]);
    assert_eq!(game.snapshot(), at_target);
    assert_eq!(choice_ids(&game, 0), targets);
    assert!(back_table.drops.is_empty());
    assert_eq!(
        sdk::Table::next_u64(&mut back_table),
        sdk::Table::next_u64(&mut ScriptedTable::new(9)),
        "no random number drawn"
    );

    // Another target, then the attack goes on as usual.
    let other = targets
        .iter()
        .find(|id| *id != "province:musashi")
        .expect("Kai has another neighbour")
        .clone();
    pick(&mut game, 0, &other, &mut table);
    assert!(game.pending()[0].back.is_some());
    act(&mut game, 0, Action::Number(4), &mut table);
    assert_eq!(game.state.provinces[province(&game, "kai")].armies, 1);
}

#[test]
fn a_move_count_goes_back_to_the_destination_choice() {
    let mut table = ScriptedTable::new(1);
    let mut game = from_file(3, "deploy_move", &mut table);
    let at_target = game.snapshot();
    pick(&mut game, 0, "province:musashi", &mut table);
    assert_eq!(
        game.pending()[0].back.as_ref().map(|m| m.key.as_str()),
        Some("back.move-target")
    );
    act(&mut game, 0, Action::Back, &mut table);
    assert_eq!(game.snapshot(), at_target);
    assert_eq!(choice_ids(&game, 0), vec!["province:musashi", "no-move"]);
}
