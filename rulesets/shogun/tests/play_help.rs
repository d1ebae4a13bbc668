//! What helps a player follow and plan: plan previews (cost against chests, skipped actions and
//! why), one event per battle or revolt with its own caption.

mod common;

use common::*;
use sdk::testing::ScriptedTable;
use sdk::{Action, DecisionKind, Game, Message, MessageArg};
use shogun::ShogunGame;
use shogun::data::ActionKind;
use shogun::engine;
use shogun::outcome::Log;
use shogun::preview::{Level, Note};
use shogun::state::Phase;

/// Spring planning; seat 0 has `chests` and has not planned; the others have. Seat 0 holds Kai
/// (2 armies) and Sagami (1 army, a Nō theatre), plus `extra` position text.
fn planning(chests: u32, extra: &str) -> ShogunGame {
    let text = format!(
        "year = 1\nseason = \"spring\"\nphase = \"planning\"\n\
         specials = [\"gold\", \"rice\", \"recruitment\", \"attack\", \"defence\"]\n\
         events = [\"event-6\", \"event-7\", \"event-9\", \"event-10\"]\n\
         [[seat]]\nchests = {chests}\n\
         [[seat]]\nchests = 5\nplan = {{ bid = \"chest:0\" }}\n\
         [[seat]]\nchests = 5\nplan = {{ bid = \"chest:0\" }}\n\
         [[seat]]\nchests = 5\nplan = {{ bid = \"chest:0\" }}\n\
         [[province]]\nid = \"kai\"\nowner = 0\narmies = 2\n\
         [[province]]\nid = \"sagami\"\nowner = 0\narmies = 1\ntheatre = true\n{extra}"
    );
    from_text(4, &text, &mut ScriptedTable::new(1))
}

/// An assign action for seat 0 from (slot id, item id) pairs.
fn placements(game: &ShogunGame, pairs: &[(&str, &str)]) -> Action {
    let pending = game.pending();
    let DecisionKind::Assign(assign) = &pending.iter().find(|d| d.seat == 0).unwrap().kind else {
        panic!("seat 0 is not planning");
    };
    Action::Assign(
        pairs
            .iter()
            .map(|(slot, item)| {
                let s = assign.slots.iter().position(|x| x.id == *slot).unwrap();
                let i = assign.items.iter().position(|x| x.id == *item).unwrap();
                (s as u32, i as u32)
            })
            .collect(),
    )
}

fn notes(game: &ShogunGame, pairs: &[(&str, &str)]) -> Vec<Note> {
    shogun::decide::preview(&game.state, 0, &placements(game, pairs)).expect("a preview")
}

fn number(message: &Message, name: &str) -> Option<i64> {
    message.args.iter().find_map(|(n, v)| match v {
        MessageArg::Number(x) if n == name => Some(*x),
        _ => None,
    })
}

fn key_arg(message: &Message, name: &str) -> Option<String> {
    message.args.iter().find_map(|(n, v)| match v {
        MessageArg::Key(k) if n == name => Some(k.clone()),
        _ => None,
    })
}

fn warnings(notes: &[Note]) -> Vec<&Message> {
    notes
        .iter()
        .filter(|n| n.level == Level::Warning)
        .map(|n| &n.text)
        .collect()
}

#[test]
fn a_preview_gives_the_running_cost_against_the_chests_held() {
    let game = planning(7, "");
    let notes = notes(
        &game,
        &[("action:build-castle", "province:kai"), ("bid", "chest:2")],
    );
    let cost = &notes[0];
    assert_eq!(cost.level, Level::Info);
    assert_eq!(cost.text.key, "preview.cost");
    assert_eq!(number(&cost.text, "cost"), Some(3 + 2));
    assert_eq!(number(&cost.text, "chests"), Some(7));
    assert!(warnings(&notes).is_empty(), "{notes:?}");
    // The plan is incomplete: the preview says how many placements are still needed.
    let pending = game.pending();
    let DecisionKind::Assign(assign) = &pending.iter().find(|d| d.seat == 0).unwrap().kind else {
        panic!("seat 0 is not planning");
    };
    let left = i64::from(assign.min_placements) - 2;
    assert!(
        notes
            .iter()
            .any(|n| n.text.key == "preview.unplaced" && number(&n.text, "count") == Some(left))
    );
}

#[test]
fn a_plan_costing_more_than_the_chests_held_is_flagged() {
    // The reported game: a plan sent with 0 chests, its actions skipped later.
    let game = planning(0, "");
    let notes = notes(
        &game,
        &[
            ("action:build-castle", "province:kai"),
            ("action:recruit-5", "province:sagami"),
        ],
    );
    let warned = warnings(&notes);
    assert!(
        warned.iter().any(|m| m.key == "preview.over-budget"
            && number(m, "cost") == Some(3 + 3)
            && number(m, "chests") == Some(0)),
        "{notes:?}"
    );
    // Each action it cannot pay is named with the engine's reason.
    let skipped: Vec<Option<String>> = warned
        .iter()
        .filter(|m| m.key == "preview.skipped")
        .map(|m| key_arg(m, "action"))
        .collect();
    assert!(
        skipped.contains(&Some("action.build-castle".into())),
        "{notes:?}"
    );
    assert!(
        skipped.contains(&Some("action.recruit-5".into())),
        "{notes:?}"
    );
    // Paid for, nothing is flagged.
    let rich = planning(9, "");
    let notes = self::notes(
        &rich,
        &[
            ("action:build-castle", "province:kai"),
            ("action:recruit-5", "province:sagami"),
        ],
    );
    assert!(warnings(&notes).is_empty(), "{notes:?}");
}

#[test]
fn a_preview_warns_of_a_theatre_where_one_stands_with_the_right_reason() {
    let game = planning(9, "");
    let notes = notes(&game, &[("action:build-theatre", "province:sagami")]);
    let warned = warnings(&notes);
    assert_eq!(warned.len(), 1, "{notes:?}");
    assert_eq!(warned[0].key, "preview.skipped");
    assert_eq!(
        key_arg(warned[0], "reason").as_deref(),
        Some("reason.already-built")
    );
    // A castle there has room; a castle in Kai too; the preview changes nothing.
    let before = game.state.clone();
    let notes = self::notes(&game, &[("action:build-castle", "province:sagami")]);
    assert!(warnings(&notes).is_empty(), "{notes:?}");
    assert_eq!(game.state, before);
}

#[test]
fn a_preview_warns_of_lone_armies_missing_supply_and_idle_chest_cards() {
    let mut game = planning(20, "");
    game.state.players[0].supply = 2;
    let notes = notes(
        &game,
        &[
            ("action:battle-move-a", "province:sagami"),
            ("action:recruit-3", "province:kai"),
            ("action:confiscate-rice", "chest:3"),
        ],
    );
    let keys: Vec<&str> = warnings(&notes).iter().map(|m| m.key.as_str()).collect();
    assert!(keys.contains(&"preview.chest-on-action"), "{notes:?}");
    let mut reasons: Vec<String> = warnings(&notes)
        .iter()
        .filter_map(|m| key_arg(m, "reason"))
        .collect();
    reasons.sort();
    assert_eq!(
        reasons,
        vec![
            "reason.no-armies".to_string(),
            "reason.one-army".to_string()
        ],
        "{notes:?}"
    );
    // Kai's 2 armies may attack.
    let notes = self::notes(&game, &[("action:battle-move-a", "province:kai")]);
    assert!(warnings(&notes).is_empty(), "{notes:?}");
}

#[test]
fn a_preview_refuses_what_does_not_fit_the_decision_and_a_seat_not_asked() {
    let game = planning(5, "");
    assert!(shogun::decide::preview(&game.state, 0, &Action::Assign(vec![(99, 0)])).is_err());
    assert!(shogun::decide::preview(&game.state, 0, &Action::Number(3)).is_err());
    assert!(shogun::decide::preview(&game.state, 1, &Action::Assign(vec![])).is_err());
    // An empty plan is a valid start: its cost is 0.
    let notes = shogun::decide::preview(&game.state, 0, &Action::Assign(vec![])).unwrap();
    assert_eq!(number(&notes[0].text, "cost"), Some(0));
}

#[test]
fn regression_a_theatre_planned_where_one_stood_was_skipped_for_no_free_building_space() {
    // Mikawa has one building space, Sagami three: a theatre where one stands is "already built",
    // a building in a full province "no free space".
    for (province, extra, reason) in [
        ("sagami", "", "reason.already-built"),
        (
            "mikawa",
            "\n[[province]]\nid = \"mikawa\"\nowner = 0\narmies = 1\ncastle = true\n",
            "reason.no-space",
        ),
    ] {
        let text = position_text("battle_farmers_defend")
            .replace("tray-farmers = 3", "")
            .replace(
                "plan = { battle-move-a = \"kai\" }",
                &format!("plan = {{ build-theatre = \"{province}\" }}"),
            )
            + "\n[[province]]\nid = \"sagami\"\nowner = 0\narmies = 1\ntheatre = true\n"
            + extra;
        let mut table = ScriptedTable::new(1);
        let mut game = from_text(4, &text, &mut table);
        let theatre = game
            .state
            .board
            .cards()
            .actions
            .iter()
            .position(|a| a.kind == ActionKind::BuildTheatre)
            .unwrap();
        let step = game
            .state
            .action_layout
            .iter()
            .position(|&a| a == theatre)
            .unwrap();
        game.state.phase = Phase::Actions {
            step,
            turn: 0,
            stage: shogun::state::Stage::Ready,
        };
        // The position ran the season already; put the plan back and rerun the step.
        let mut plan = shogun::state::Plan {
            actions: vec![None; game.state.board.cards().actions.len()],
            bid: None,
        };
        plan.actions[theatre] = Some(shogun::state::CardRef::Province(self::province(
            &game, province,
        )));
        game.state.plans[0] = Some(plan);
        let chests = game.state.players[0].chests;
        let mut log = Log::new();
        engine::advance(&mut game.state, &mut table, &mut log);
        let skipped = log
            .events()
            .iter()
            .map(|e| &e.text)
            .find(|m| m.key == "log.skipped")
            .unwrap_or_else(|| panic!("{province}: nothing skipped"));
        assert_eq!(
            key_arg(skipped, "action").as_deref(),
            Some("action.build-theatre")
        );
        assert_eq!(
            key_arg(skipped, "reason").as_deref(),
            Some(reason),
            "{province}"
        );
        assert_eq!(
            game.state.players[0].chests, chests,
            "a skipped building is not paid"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Events, drops and summaries

#[test]
fn a_battle_and_a_revolt_in_one_answer_are_two_events_each_with_its_own_drop_in_order() {
    let text = position_text("battle_farmers_defend").replacen(
        "[[seat]]\nchests = 5\n\n[[seat]]\nchests = 5\n\n[[seat]]",
        "[[seat]]\nchests = 5\n\n[[seat]]\nchests = 5\nplan = { confiscate-rice = \"sagami\" }\n\n[[seat]]",
        1,
    ) + "\n[[province]]\nid = \"sagami\"\nowner = 2\narmies = 3\nrevolts = 1\n";
    let mut table = ScriptedTable::new(1);
    let mut game = from_text(4, &text, &mut table);
    pick(&mut game, 0, "province:musashi", &mut table);
    table.then_tower_returns(vec![cubes(0, 4), cubes(1, 2), farmers(3)]);
    table.then_tower_returns(vec![cubes(2, 3)]);
    let events = game
        .apply(0, &Action::Number(4), &mut table)
        .expect("accepted");
    let with_drops: Vec<(&str, &[u32])> = events
        .iter()
        .filter(|e| !e.drops.is_empty())
        .map(|e| (e.text.key.as_str(), e.drops.as_slice()))
        .collect();
    assert_eq!(
        with_drops,
        vec![
            ("log.attack-player-held", &[0][..]),
            ("log.revolt-put-down", &[1][..]),
        ]
    );
    // The battle's caption: who attacks whom, where, from where, with how many, what came out
    // and what stays.
    let battle = &events
        .iter()
        .find(|e| e.text.key == "log.attack-player-held")
        .unwrap()
        .text;
    assert_eq!(number(battle, "armies"), Some(4));
    assert_eq!(number(battle, "defending"), Some(3));
    assert_eq!(number(battle, "out"), Some(4));
    assert_eq!(number(battle, "outdefending"), Some(2));
    assert_eq!(number(battle, "outfarmers"), Some(3));
    assert_eq!(number(battle, "left"), Some(1));
    assert_eq!(key_arg(battle, "from").as_deref(), Some("province.kai"));
    assert_eq!(key_arg(battle, "to").as_deref(), Some("province.musashi"));
    // Confiscating rice and the revolt it raised are two steps.
    let keys: Vec<&str> = events.iter().map(|e| e.text.key.as_str()).collect();
    let rice = keys.iter().position(|k| *k == "log.rice").expect("rice");
    assert_eq!(keys[rice + 1], "log.revolt-put-down");
    // The season ended in the same answer: a pause with where everyone stands.
    let season = events
        .iter()
        .find(|e| e.text.key == "log.season-over")
        .expect("the season's end");
    let summary = season.summary.as_ref().expect("a summary");
    assert_eq!(summary.title.key, "summary.season");
    assert_eq!(summary.lines.len(), 4 * 4);
    assert!(
        summary
            .lines
            .iter()
            .all(|l| l.seat.is_some() && l.value.is_some())
    );
}

#[test]
fn every_answer_names_its_drops_once_in_order_and_every_winter_and_season_pauses() {
    use sdk::testing::SeededTable;
    for seed in 0..6u8 {
        let mut table = SeededTable::new([seed; 32]);
        let options =
            sdk::Options::resolve(&<shogun::Shogun as sdk::Ruleset>::info().options, &[]).unwrap();
        let mut game = <shogun::Shogun as sdk::Ruleset>::create(
            &setup(3 + u32::from(seed % 3), shogun::data::SUN_MAP),
            &options,
            &mut table,
        )
        .expect("a game");
        let (mut winters, mut seasons) = (0, 0);
        while let Some(decision) = game.pending().first().cloned() {
            let action = sdk::random_action(&decision.kind, &mut table);
            let events = game.apply(decision.seat, &action, &mut table).unwrap();
            let drops: Vec<u32> = events.iter().flat_map(|e| e.drops.clone()).collect();
            assert_eq!(
                drops,
                (0..drops.len() as u32).collect::<Vec<_>>(),
                "{events:?}"
            );
            for event in &events {
                if !event.drops.is_empty() {
                    assert_eq!(event.drops.len(), 1, "one drop per battle or revolt");
                    assert!(
                        event.text.key.starts_with("log.attack-")
                            || event.text.key.starts_with("log.revolt-"),
                        "{event:?}"
                    );
                }
                match (event.text.key.as_str(), &event.summary) {
                    ("milestone.winter-scored", Some(summary)) => {
                        winters += 1;
                        assert_eq!(summary.title.key, "summary.winter");
                        for seat in 0..game.state.seats {
                            // The running total is said in words, not in the column of
                            // this winter's points.
                            let total = summary
                                .lines
                                .iter()
                                .find(|l| l.seat == Some(seat) && l.label.key == "summary.total")
                                .expect("a total line");
                            assert_eq!(total.value, None);
                            // The value column holds points of this winter only: its scoring
                            // lines, then their sum; the rice kept is said in words.
                            let own: Vec<_> = summary
                                .lines
                                .iter()
                                .filter(|l| l.seat == Some(seat) && l.value.is_some())
                                .collect();
                            let (last, scoring) = own.split_last().expect("scoring lines");
                            assert_eq!(last.label.key, "summary.winter-points");
                            assert!(
                                scoring.iter().all(|l| l.label.key.starts_with("score.")),
                                "{scoring:?}"
                            );
                            assert_eq!(
                                last.value,
                                Some(scoring.iter().filter_map(|l| l.value).sum::<i64>())
                            );
                            assert_eq!(
                                number(&total.label, "vp"),
                                Some(i64::from(game.state.players[seat as usize].vp))
                            );
                        }
                    }
                    ("log.season-over", Some(_)) => seasons += 1,
                    (key, Some(_)) => panic!("a summary on {key}"),
                    _ => {}
                }
            }
        }
        assert_eq!(winters, 2, "seed {seed}");
        assert_eq!(seasons, 6, "seed {seed}");
    }
}

// ---------------------------------------------------------------------------------------------
// Choices and privacy

fn detail_of(game: &ShogunGame, seat: u32, id: &str) -> Message {
    let pending = game.pending();
    let DecisionKind::Choose(choose) = &pending.iter().find(|d| d.seat == seat).unwrap().kind
    else {
        panic!("not a choice");
    };
    choose
        .choices
        .iter()
        .find(|c| c.id == id)
        .and_then(|c| c.detail.clone())
        .unwrap_or_else(|| panic!("{id} has no detail"))
}

#[test]
fn target_choices_say_whose_province_it_is_how_many_defend_and_move_or_attack() {
    let text = position_text("battle_farmers_defend")
        + "\n[[province]]\nid = \"sagami\"\nowner = 0\narmies = 2\n";
    let game = from_text(4, &text, &mut ScriptedTable::new(1));
    let attack = detail_of(&game, 0, "province:musashi");
    assert_eq!(attack.key, "choice.detail-attack-player");
    assert_eq!(number(&attack, "armies"), Some(3));
    assert!(
        attack
            .args
            .contains(&("owner".to_string(), MessageArg::Seat(1)))
    );
    let neutral = detail_of(&game, 0, "province:shinano");
    assert_eq!(neutral.key, "choice.detail-attack-neutral");
    assert_eq!(number(&neutral, "farmers"), Some(1));
    let own = detail_of(&game, 0, "province:sagami");
    assert_eq!(own.key, "choice.detail-move");
    assert_eq!(number(&own, "armies"), Some(2));
}

#[test]
fn only_planning_is_private() {
    use sdk::testing::SeededTable;
    let mut table = SeededTable::new([9; 32]);
    let options =
        sdk::Options::resolve(&<shogun::Shogun as sdk::Ruleset>::info().options, &[]).unwrap();
    let mut game = <shogun::Shogun as sdk::Ruleset>::create(
        &setup(4, shogun::data::SUN_MAP),
        &options,
        &mut table,
    )
    .unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    while let Some(decision) = game.pending().first().cloned() {
        let planning = matches!(game.state.phase, Phase::Planning);
        assert_eq!(decision.private, planning, "{:?}", game.state.phase);
        if let DecisionKind::Choose(choose) = &decision.kind
            && matches!(game.state.phase, Phase::Draft)
            && choose.choices.iter().any(|c| c.id.starts_with("face-up:"))
        {
            assert!(choose.choices.iter().all(|c| c.detail.is_some()));
        }
        kinds.insert(
            format!("{:?}", game.state.phase)
                .chars()
                .take(5)
                .collect::<String>(),
        );
        let action = sdk::random_action(&decision.kind, &mut table);
        game.apply(decision.seat, &action, &mut table).unwrap();
    }
    assert!(kinds.len() >= 5, "{kinds:?}");
}

#[test]
fn regression_taking_a_face_up_draft_card_logged_nothing() {
    // Half the draft's log entries were empty: the card taken said nothing, only the claim did.
    let mut table = ScriptedTable::new(3);
    let mut game = <shogun::Shogun as sdk::Ruleset>::create(
        &setup(4, shogun::data::SUN_MAP),
        &options(&[]),
        &mut table,
    )
    .unwrap();
    let seat = game.pending()[0].seat;
    let card = game.state.draft.as_ref().unwrap().face_up[0];
    let events = pick(&mut game, seat, "face-up:0", &mut table);
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].text.key, "log.takes-face-up");
    assert_eq!(events[0].audience, sdk::Audience::Everyone);
    assert_eq!(
        key_arg(&events[0].text, "province"),
        Some(format!("province.{}", game.state.board.provinces[card].id))
    );
    // The group decision that follows names the province being claimed.
    let prompt = &game.pending()[0].prompt;
    assert_eq!(prompt.key, "prompt.draft-group");
    assert!(prompt.args.iter().any(|(name, _)| name == "province"));
}
