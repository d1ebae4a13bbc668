//! One test per rule of the text, each from a position set up by hand.

mod common;

use common::*;
use honshu::data::{Colour, Terrain};
use honshu::engine::{legal_layers, placement_problem, score_map};
use honshu::outcome::Outcome;
use honshu::state::*;
use sdk::{Action, Game, OptionValue};

/// A map from rows of letters: F forest, T town, L lake, W fallow, b/n/g/y production
/// (blue, brown, grey, yellow, each with its resource), B/N/G/Y factory, `.` nothing.
fn map_of(rows: &[&str]) -> PersonalMap {
    let mut map = PersonalMap::default();
    for (y, row) in rows.iter().enumerate() {
        for (x, letter) in row.chars().enumerate() {
            let colour = |c: char| match c.to_ascii_lowercase() {
                'b' => Colour::Blue,
                'n' => Colour::Brown,
                'g' => Colour::Grey,
                _ => Colour::Yellow,
            };
            let (terrain, resource) = match letter {
                'F' => (Terrain::Forest, None),
                'T' => (Terrain::Town, None),
                'L' => (Terrain::Lake, None),
                'W' => (Terrain::Fallow, None),
                'b' | 'n' | 'g' | 'y' => {
                    (Terrain::Production(colour(letter)), Some(colour(letter)))
                }
                'B' | 'N' | 'G' | 'Y' => (Terrain::Factory(colour(letter)), None),
                _ => continue,
            };
            map.cells.insert(
                (x as i32, y as i32),
                Cell {
                    terrain,
                    card: 0,
                    resource,
                },
            );
        }
    }
    map
}

#[test]
fn setup_deals_provinces_with_resources_hands_and_a_player_order() {
    let (game, _) = new_game(4, 1, &[]);
    let state = &game.state;
    let mut provinces: Vec<usize> = state.players.iter().map(|p| p.province).collect();
    provinces.sort_unstable();
    provinces.dedup();
    assert_eq!(
        provinces.len(),
        4,
        "each player gets a different starting province"
    );
    for player in &state.players {
        assert_eq!(player.hand.len(), 6);
        let side_a = &state.deck.provinces[player.province].sides[0];
        for (i, terrain) in side_a.iter().enumerate() {
            let cell = player.map.cells[&honshu::engine::square_of((0, 0), 0, i)];
            assert_eq!(cell.terrain, *terrain, "side A face up");
            assert_eq!(
                cell.resource.is_some(),
                matches!(terrain, Terrain::Production(_))
            );
        }
    }
    let mut order = state.order.clone();
    order.sort_unstable();
    assert_eq!(order, vec![0, 1, 2, 3]);
    assert_eq!(resources_accounted(state), 40);
}

#[test]
fn side_b_deals_the_b_layouts() {
    let (game, _) = new_game(3, 2, &[("province-side", OptionValue::Choice("b".into()))]);
    for player in &game.state.players {
        let side_b = &game.state.deck.provinces[player.province].sides[1];
        assert_eq!(player.map.cells[&(0, 0)].terrain, side_b[0]);
    }
}

/// The example of the rules: Jack plays 11, Mary 29 with blue (89), Chris 57 with blue (117),
/// Lisa 59. Chris is first, Mary second, Lisa third, Jack last.
#[test]
fn trick_values_resources_and_the_new_player_order() {
    let (mut game, mut table) = new_game(4, 3, &[]);
    let [jack, mary, chris, lisa] = [0u32, 1, 2, 3];
    game.state.order = vec![jack, mary, chris, lisa];
    for (seat, card) in [(jack, 11), (mary, 29), (chris, 57), (lisa, 59)] {
        game.state.players[seat as usize].hand = vec![card];
        game.state.players[seat as usize].map = map_of(&["bg", "TT"]);
    }
    let resources = resources_accounted(&game.state);
    answer(&mut game, &mut table, jack, &["card:11"]);
    answer(&mut game, &mut table, jack, &["resource:none"]);
    answer(&mut game, &mut table, mary, &["card:29"]);
    // The first resource of a trick may be any colour.
    let ids = choice_ids(&game, mary);
    assert!(ids.contains(&"resource:0,0".into()) && ids.contains(&"resource:1,0".into()));
    answer(&mut game, &mut table, mary, &["resource:0,0"]);
    answer(&mut game, &mut table, chris, &["card:57"]);
    // Later ones must match it: Chris's grey is not offered.
    assert_eq!(
        choice_ids(&game, chris),
        vec!["resource:none", "resource:0,0"]
    );
    answer(&mut game, &mut table, chris, &["resource:0,0"]);
    answer(&mut game, &mut table, lisa, &["card:59"]);
    answer(&mut game, &mut table, lisa, &["resource:none"]);
    assert_eq!(game.state.order, vec![chris, mary, lisa, jack]);
    assert_eq!(
        resources_accounted(&game.state),
        resources,
        "played resources are on the table"
    );
    // Picking goes in the new order; the resources go back to the pool.
    let pool_before: u8 = game.state.pool.iter().sum();
    answer(&mut game, &mut table, chris, &["card:11"]);
    answer(&mut game, &mut table, mary, &["card:59"]);
    answer(&mut game, &mut table, lisa, &["card:57"]);
    answer(&mut game, &mut table, jack, &["card:29"]);
    assert_eq!(game.state.pool.iter().sum::<u8>(), pool_before + 2);
    assert_eq!(game.state.phase, Phase::Place);
    assert_eq!(game.state.players[chris as usize].to_place, Some(11));
}

#[test]
fn a_seat_without_resources_is_not_asked_for_one() {
    let (mut game, mut table) = new_game(3, 4, &[]);
    let first = game.state.order[0];
    game.state.players[first as usize].map = map_of(&["TT", "FF"]);
    let card = game.state.players[first as usize].hand[0];
    answer(&mut game, &mut table, first, &[&format!("card:{card}")]);
    assert_ne!(game.pending()[0].seat, first, "the next seat plays at once");
}

#[test]
fn placement_must_overlap_keep_a_square_visible_and_never_cover_lakes() {
    let map = map_of(&["TL", "TT", "TT"]);
    let dry: honshu::data::Layout = [Terrain::Forest; 6];
    let mut wet = dry;
    wet[0] = Terrain::Lake;
    // Apart from the map: refused.
    assert_eq!(
        placement_problem(&map, &dry, (5, 5), 0, Layer::Over),
        Some("not-touching")
    );
    // Over the lake at (1,0): refused; over the towns only: allowed.
    assert_eq!(
        placement_problem(&map, &dry, (1, 0), 0, Layer::Over),
        Some("covers-lake")
    );
    assert_eq!(placement_problem(&map, &dry, (0, 1), 0, Layer::Over), None);
    // Under: at least one square must stay visible, and the card's own lakes too.
    assert_eq!(
        placement_problem(&map, &dry, (0, 0), 0, Layer::Under),
        Some("all-hidden")
    );
    assert_eq!(legal_layers(&map, &dry, (1, 0), 0), vec![Layer::Under]);
    assert_eq!(
        placement_problem(&map, &wet, (0, 2), 0, Layer::Under),
        Some("hides-lake")
    );
    assert_eq!(
        placement_problem(&map, &wet, (-1, 2), 0, Layer::Under),
        None
    );
}

#[test]
fn placing_puts_resources_on_new_production_and_discards_covered_ones() {
    let (mut game, mut table) = new_game(3, 5, &[]);
    let seat = 0;
    game.state.phase = Phase::Place;
    game.state.players[seat].map = map_of(&["gT", "TT", "TT"]);
    for player in &mut game.state.players[1..] {
        player.to_place = None;
    }
    // A card with a yellow production square at its top-left.
    let card = (1..=60u8)
        .find(|&c| {
            game.state.deck.card(c)[0] == Terrain::Production(Colour::Yellow)
                && !game.state.deck.card(c).contains(&Terrain::Lake)
        })
        .expect("the deck has such a card");
    game.state.players[seat].to_place = Some(card);
    let pool = game.state.pool;
    // The rotation, the position and the layer are separate steps; the way back undoes one.
    assert_eq!(game.pending()[0].back, None, "nothing to go back to");
    answer(&mut game, &mut table, 0, &["rotate:0"]);
    answer(&mut game, &mut table, 0, &["at:0,0"]);
    assert!(
        game.state.players[seat].map.cells[&(0, 0)]
            .resource
            .is_some(),
        "nothing placed yet"
    );
    assert!(game.pending()[0].back.is_some(), "the way back is offered");
    game.apply(0, &Action::Back, &mut table).unwrap();
    answer(&mut game, &mut table, 0, &["at:0,0"]);
    answer(&mut game, &mut table, 0, &["over"]);
    let cell = game.state.players[seat].map.cells[&(0, 0)];
    assert_eq!(
        cell.resource,
        Some(Colour::Yellow),
        "new production square gets its resource"
    );
    assert_eq!(
        game.state.pool[Colour::Grey.index()],
        pool[Colour::Grey.index()] + 1,
        "covered grey back to the pool"
    );
    assert_eq!(
        game.state.pool[Colour::Yellow.index()],
        pool[Colour::Yellow.index()] - 1
    );
}

#[test]
fn hands_pass_left_after_round_3_right_after_round_9_and_six_new_after_round_6() {
    let (mut game, mut table) = new_game(3, 6, &[]);
    let hands_at = |game: &honshu::HonshuGame| -> Vec<Vec<u8>> {
        game.state.players.iter().map(|p| p.hand.clone()).collect()
    };
    let mut before = Vec::new();
    while game.state.round <= 10 {
        let round = game.state.round;
        if matches!(game.state.phase, Phase::Place) && game.pending().len() == 1 {
            before = hands_at(&game);
        }
        let decision = game.pending()[0].clone();
        let action = sdk::random_action(&decision.kind, &mut table);
        let log = honshu::decide::play(&mut game.state, decision.seat, &action).unwrap();
        if game.state.round != round {
            // The rules report the hands' move, then the new round.
            let moved: Vec<&Outcome> = log
                .outcomes()
                .iter()
                .filter(|o| matches!(o, Outcome::HandsPassed { .. } | Outcome::NewHands))
                .collect();
            let expected: Vec<Outcome> = match round {
                3 => vec![Outcome::HandsPassed { step: 1 }],
                6 => vec![Outcome::NewHands],
                9 => vec![Outcome::HandsPassed { step: 2 }],
                _ => vec![],
            };
            assert_eq!(moved, expected.iter().collect::<Vec<_>>(), "round {round}");
            assert_eq!(
                log.outcomes().last(),
                Some(&Outcome::Round { round: round + 1 })
            );
            let after = hands_at(&game);
            match round {
                3 => assert_eq!(
                    after,
                    vec![before[2].clone(), before[0].clone(), before[1].clone()],
                    "to the left"
                ),
                6 => assert!(after.iter().all(|h| h.len() == 6), "six new cards each"),
                9 => assert_eq!(
                    after,
                    vec![before[1].clone(), before[2].clone(), before[0].clone()],
                    "to the right"
                ),
                _ => assert_eq!(after, before, "hands stay"),
            }
        }
    }
}

#[test]
fn two_players_duel_the_winner_picks_a_pair_and_each_keeps_one_card() {
    let (mut game, mut table) = new_game(2, 7, &[]);
    game.state.players[0].hand = vec![40];
    game.state.players[1].hand = vec![12];
    game.state.players[1].map = map_of(&["TT"]);
    let Phase::Duel { revealed, .. } = game.state.phase else {
        panic!("a duel")
    };
    // Both choose at once; neither sees the other's card before both are in.
    assert_eq!(game.pending().len(), 2);
    answer(&mut game, &mut table, 0, &["card:40"]);
    let seen_by_1: serde_json::Value =
        serde_json::from_str(&game.view(sdk::Viewer::Seat(1))).unwrap();
    assert_eq!(seen_by_1["table"]["committed"][0], serde_json::json!(true));
    let told = answer_told(&mut game, 1, &["card:12"]);
    assert_eq!(
        told,
        vec![
            Outcome::DuelCommitted { seat: 1, card: 12 },
            Outcome::DuelRevealed {
                cards: [40, 12],
                winner: 0
            },
        ]
    );
    // Seat 1 lost and has no resources to pay: the winner chooses.
    let told = answer_told(&mut game, 0, &["pair:revealed"]);
    assert_eq!(
        told,
        vec![Outcome::PairTaken {
            seat: 0,
            cards: revealed
        }]
    );
    let told = answer_told(&mut game, 0, &[&format!("card:{}", revealed[1])]);
    assert_eq!(told, vec![Outcome::KeepChosen { seat: 0 }]);
    let told = answer_told(&mut game, 1, &["card:40"]);
    assert_eq!(
        told[..2],
        [
            Outcome::Kept {
                seat: 0,
                card: revealed[1],
                discarded: revealed[0]
            },
            Outcome::Kept {
                seat: 1,
                card: 40,
                discarded: 12
            },
        ]
    );
    assert_eq!(game.state.players[0].to_place, Some(revealed[1]));
    assert_eq!(game.state.players[1].to_place, Some(40));
    assert!(game.state.discard.contains(&revealed[0]) && game.state.discard.contains(&12));
}

#[test]
fn the_loser_of_a_duel_may_pay_two_resources_to_choose_first() {
    let (mut game, mut table) = new_game(2, 8, &[]);
    game.state.players[0].hand = vec![40];
    game.state.players[1].hand = vec![12];
    let pool = game.state.pool.iter().sum::<u8>();
    game.state.players[1].map = map_of(&["bg", "yT"]);
    game.state.pool[0] -= 1;
    game.state.pool[2] -= 1;
    game.state.pool[3] -= 1;
    answer(&mut game, &mut table, 0, &["card:40"]);
    answer(&mut game, &mut table, 1, &["card:12"]);
    let told = answer_told(&mut game, 1, &["fee:pay"]);
    assert_eq!(
        told,
        vec![Outcome::FeeAnswered {
            seat: 1,
            winner: 0,
            pay: true
        }]
    );
    let told = answer_told(&mut game, 1, &["resource:0,0", "resource:0,1"]);
    assert_eq!(told, vec![Outcome::FeePaid { seat: 1 }]);
    assert_eq!(
        game.state.pool.iter().sum::<u8>(),
        pool - 1,
        "two of the three go back"
    );
    answer(&mut game, &mut table, 1, &["pair:played"]);
    let Phase::Keep { pairs, .. } = game.state.phase else {
        panic!("keep")
    };
    assert_eq!(pairs[1], [40, 12], "the loser took the played pair");
}

#[test]
fn final_scoring_counts_forests_largest_town_factories_and_lakes() {
    let points = Points::standard();
    // 3 forests; towns of 3 and 1 (largest 3); lakes of 3 (2 x 3) and 1 (0);
    // 2 blue resources for one blue factory (3); a yellow factory without resource.
    let map = map_of(&["FFFL", "TTTL", "WbbL", "TYBW", "L..."]);
    let sheet = score_map(&map, &points, None);
    assert_eq!(sheet.forests, 3);
    assert_eq!(sheet.town, 3);
    assert_eq!(sheet.lakes, 6);
    assert_eq!(sheet.factories, 3);
    assert_eq!(sheet.fallow, 2);
    assert_eq!(sheet.total, 15);
}

#[test]
fn ties_are_broken_by_visible_fallow() {
    let (mut game, _) = new_game(2, 9, &[]);
    game.state.phase = Phase::Over;
    let sheet = |total, fallow| ScoreSheet {
        total,
        fallow,
        ..ScoreSheet::default()
    };
    game.state.scores = vec![sheet(20, 1), sheet(20, 3)];
    let result = game.result().unwrap();
    assert_eq!(result.placings[0].seat, 1);
    assert_eq!(result.placings[1].rank, 2);
}

#[test]
fn each_scoring_card_scores_as_written() {
    let p = Points::standard();
    let score = |rows: &[&str], card| score_map(&map_of(rows), &p, Some(card)).scoring_card;
    let total = |rows: &[&str], card| score_map(&map_of(rows), &p, Some(card));
    // 1: two resources per factory.
    assert_eq!(total(&["bbB"], ScoringCard::DoubleDelivery).factories, 6);
    // 2: lines of three forests, in rows and columns.
    assert_eq!(
        score(&["FFF", "F..", "F.."], ScoringCard::ForestLines),
        2 * p.forest_line
    );
    // 3: 2x2 blocks of fallow.
    assert_eq!(
        score(&["WWW", "WWW"], ScoringCard::FallowBlocks),
        2 * p.fallow_block
    );
    // 4: every lake square, instead of the usual lake score.
    assert_eq!(
        total(&["LL", "L."], ScoringCard::LakeSquares).lakes,
        3 * p.lake_square
    );
    // 5: town squares with town on all four sides.
    assert_eq!(
        score(&[".T.", "TTT", ".T."], ScoringCard::TownCentres),
        p.town_centre
    );
    // 6: visible production squares without a resource.
    let mut map = map_of(&["bg"]);
    map.cells.get_mut(&(0, 0)).unwrap().resource = None;
    assert_eq!(
        score_map(&map, &p, Some(ScoringCard::EmptyProduction)).scoring_card,
        p.empty_production
    );
    // 7 and 8: a bonus per delivered resource of those colours.
    assert_eq!(score(&["bBgG"], ScoringCard::BlueYellow), p.blue_yellow);
    assert_eq!(score(&["bBgGnN"], ScoringCard::GreyBrown), 2 * p.grey_brown);
}

#[test]
fn point_values_are_options() {
    let (game, _) = new_game(3, 10, &[("lake-points", OptionValue::Integer(5))]);
    let sheet = score_map(&map_of(&["LL"]), &game.state.settings.points, None);
    assert_eq!(sheet.lakes, 5);
}

/// Placing offered "back" as one of its choices: the search bots, which weigh every choice,
/// went back and forth between a rotation and its positions for hundreds of actions in some
/// games. Going back is the decision's way back now (`PendingDecision::back`), which no bot and
/// no random answer takes: a placement is three answers, and no choice undoes a step.
#[test]
fn regression_bots_went_back_and_forth_between_a_rotation_and_its_positions() {
    for (seats, seed) in [(2, 11), (4, 12)] {
        let (mut game, mut table) = new_game(seats, seed, &[]);
        let mut placing_answers = 0u32;
        let mut steps = 0u32;
        while let Some(decision) = game.pending().first().cloned() {
            steps += 1;
            assert!(steps < 5_000, "the game does not end");
            if game.state.phase == Phase::Place {
                let ids = choice_ids(&game, decision.seat);
                assert!(!ids.iter().any(|id| id == "back"), "{ids:?}");
                let draft = game.state.players[decision.seat as usize].draft;
                assert_eq!(
                    decision.back.is_some(),
                    draft.rotation.is_some(),
                    "{decision:?}"
                );
                placing_answers += 1;
            }
            random_answer(&mut game, &mut table, &decision);
        }
        let placed: u32 = game
            .state
            .players
            .iter()
            .map(|player| player.map.placed.len() as u32 - 1)
            .sum();
        assert_eq!(placing_answers, 3 * placed, "{seats} seats, seed {seed}");
    }
}

/// The log told every seat and spectator each step of a placement as it was taken ("turns card
/// 12 by 270°", then "by 90°" as the player changed their mind), before the placement was
/// confirmed. A step in progress is the placing seat's alone; the others learn the placement
/// once it is laid.
#[test]
fn regression_rotation_told_before_placement_confirmed() {
    use sdk::{Audience, Viewer};
    let (mut game, mut table) = new_game(3, 5, &[]);
    game.state.phase = Phase::Place;
    game.state.players[0].map = map_of(&["gT", "TT", "TT"]);
    for player in &mut game.state.players[1..] {
        player.to_place = None;
    }
    let card = (1..=60u8)
        .find(|&c| !game.state.deck.card(c).contains(&Terrain::Lake))
        .expect("the deck has a card without a lake");
    game.state.players[0].to_place = Some(card);
    let others = [Viewer::Seat(1), Viewer::Seat(2), Viewer::Spectator];
    let seen_by_others = |events: &[sdk::Event]| {
        events
            .iter()
            .filter(|e| others.iter().any(|&viewer| e.audience.includes(viewer)))
            .count()
    };
    let rotations = choice_ids(&game, 0);
    assert!(
        rotations.len() > 1,
        "the card turns several ways: {rotations:?}"
    );
    let (first, last) = (&rotations[rotations.len() - 1], &rotations[0]);
    let mut in_progress = answer(&mut game, &mut table, 0, &[first]);
    in_progress.extend(game.apply(0, &Action::Back, &mut table).unwrap());
    in_progress.extend(answer(&mut game, &mut table, 0, &[last]));
    let position = choice_ids(&game, 0)[0].clone();
    in_progress.extend(answer(&mut game, &mut table, 0, &[&position]));
    assert_eq!(seen_by_others(&in_progress), 0, "{in_progress:?}");
    assert!(
        in_progress
            .iter()
            .all(|e| e.audience == Audience::Seats(vec![0])),
        "the placing seat still sees each of its own steps: {in_progress:?}"
    );
    let layer = choice_ids(&game, 0)[0].clone();
    let confirmed = answer(&mut game, &mut table, 0, &[&layer]);
    assert!(
        seen_by_others(&confirmed) > 0,
        "the confirmed placement is told to everyone: {confirmed:?}"
    );
}
