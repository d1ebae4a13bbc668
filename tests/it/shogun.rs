//! The Shogun component through the host: whole games by bots, the winter checkpoints of the
//! game record, replay, and the same game natively and as WebAssembly.

use host::NewGame as _;
use std::sync::Arc;

use host::bots::{BotKind, play_out};
use host::scratch::ScratchGame;
use host::{GameSpec, LoadedRuleset, Session};
use serde_json::Value;

use crate::runtime_support::shogun_wasm;

const SUN: &str = include_str!("../../maps/shogun/sun.toml");
const MOON: &str = include_str!("../../maps/shogun/moon.toml");

fn spec(map: &str, seats: u32, seed_byte: u8) -> GameSpec {
    GameSpec {
        map_toml: map.to_owned(),
        options: Vec::new(),
        seats,
        seed: [seed_byte; 32],
        position: None,
    }
}

/// Shogun compiled natively, in a runtime of its own: the same rules without WebAssembly.
fn shogun_native() -> Arc<LoadedRuleset> {
    crate::runtime_support::native::<shogun::Shogun>()
}

fn play(ruleset: &Arc<LoadedRuleset>, spec: GameSpec) -> Session {
    let seed = spec.seed;
    let seats = spec.seats;
    let mut session = ruleset.new_game(spec).expect("a Shogun game starts");
    let mut bots: Vec<_> = (0..seats)
        .map(|seat| BotKind::Random.create(&seed, seat))
        .collect();
    play_out(&mut session, &mut bots, 20_000).expect("the bots finish the game");
    session
}

/// Points per seat in a list of score lines (the view's JSON form of `sdk::ScoreLine`).
fn points_by_seat(lines: &Value, seats: usize) -> Vec<i64> {
    let mut points = vec![0; seats];
    for line in lines.as_array().expect("score lines are a list") {
        points[line["seat"].as_u64().unwrap() as usize] += line["points"].as_i64().unwrap();
    }
    points
}

#[test]
fn each_winter_is_recorded_with_the_board_and_every_players_score_breakdown() {
    let ruleset = shogun_wasm();
    let mut session = play(&ruleset, spec(SUN, 5, 7));
    let record = session.record().unwrap();
    let winters: Vec<_> = record
        .checkpoints
        .iter()
        .filter(|c| {
            c.milestone
                .as_ref()
                .is_some_and(|m| m.key == "milestone.winter-scored")
        })
        .collect();
    assert_eq!(winters.len(), 2, "one checkpoint per winter");
    for (year, checkpoint) in winters.iter().enumerate() {
        let view = &checkpoint.spectator_view;
        assert_eq!(
            view["provinces"].as_array().unwrap().len(),
            45,
            "the board snapshot"
        );
        // The breakdown so far adds up to each player's victory points at that winter.
        let points = points_by_seat(&view["score_lines"], 5);
        let vp: Vec<i64> = view["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["vp"].as_i64().unwrap())
            .collect();
        assert_eq!(points, vp, "winter {}", year + 1);
    }
    // The final result's breakdown is the same per-seat sum as the last winter's.
    let result = record.result.clone().expect("the game is over");
    let mut final_points = vec![0; 5];
    for line in &result.breakdown {
        final_points[line.seat as usize] += line.points;
    }
    assert_eq!(
        final_points,
        points_by_seat(&winters[1].spectator_view["score_lines"], 5)
    );
    for placing in &result.placings {
        assert_eq!(placing.score, final_points[placing.seat as usize]);
    }
}

#[test]
fn an_exported_shogun_record_replays_and_a_tampered_one_is_refused() {
    let ruleset = shogun_wasm();
    let mut session = play(&ruleset, spec(MOON, 3, 11));
    let record = session.record().unwrap();
    let json = serde_json::to_string(&record).unwrap();
    let parsed = serde_json::from_str(&json).unwrap();
    let mut replayed = Session::replay(ruleset.clone(), &parsed).expect("the record replays");
    assert_eq!(replayed.result().unwrap(), record.result);

    let mut tampered = record.clone();
    let last = tampered.checkpoints.len() - 1;
    tampered.checkpoints[last].spectator_view["players"][0]["vp"] = Value::from(999);
    let error = Session::replay(ruleset, &tampered).expect_err("a changed checkpoint is refused");
    assert!(format!("{error:#}").contains("checkpoint"), "{error:#}");
}

#[test]
fn the_component_and_the_native_build_play_the_same_shogun_game() {
    let native = shogun_native();
    let mut from_wasm = play(&shogun_wasm(), spec(SUN, 4, 3));
    let mut from_native = play(&native, spec(SUN, 4, 3));
    assert_eq!(from_wasm.actions(), from_native.actions());
    assert_eq!(from_wasm.result().unwrap(), from_native.result().unwrap());
    assert_eq!(
        from_wasm.view(sdk::Viewer::Spectator).unwrap(),
        from_native.view(sdk::Viewer::Spectator).unwrap()
    );
}

/// Regression: the map checker used `HashMap`, whose `RandomState` asks WASI for OS randomness;
/// the host defines that import as a trap, so every `create` and `validate-map` of the Shogun
/// component failed while the native build passed. `rulesets/clippy.toml` now forbids the type.
#[test]
fn regression_os_randomness_in_the_map_checker_trapped_the_component() {
    let ruleset = shogun_wasm();
    for map in [SUN, MOON] {
        let diagnostics = ruleset
            .validate_map(map)
            .expect("validate-map runs in the component");
        assert!(diagnostics.iter().all(|d| !d.is_error()), "{diagnostics:?}");
    }
    assert!(ruleset.new_game(spec(SUN, 3, 1)).is_ok());
}

/// Viewers whose views are compared: every seat and a spectator.
fn viewers(seats: u32) -> Vec<sdk::Viewer> {
    (0..seats)
        .map(sdk::Viewer::Seat)
        .chain([sdk::Viewer::Spectator])
        .collect()
}

/// Secrecy, by the ruleset's own account of what each seat cannot know: a copy of the game
/// determinized for a seat has every hidden thing redrawn (other seats' unrevealed plans and bids,
/// the face-down action cards, the event deck's order, the tower's shelves), so if that seat's
/// view or board showed any of it, the copy's would differ from the real one.
#[test]
fn no_seat_sees_what_the_rules_keep_from_it_in_any_random_game() {
    let native = shogun_native();
    let mut compared = 0;
    for (game, (map, seats)) in [
        (SUN, 3),
        (MOON, 4),
        (SUN, 5),
        (MOON, 5),
        (SUN, 4),
        (MOON, 3),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = [game as u8 + 40; 32];
        let mut session = native.new_game(spec(map, seats, seed[0])).unwrap();
        let mut bots: Vec<_> = (0..seats)
            .map(|seat| BotKind::Random.create(&seed, seat))
            .collect();
        let mut step = 0u64;
        while let Some(decision) = session.pending().unwrap().into_iter().next() {
            if step.is_multiple_of(7) {
                for seat in 0..seats {
                    let determinized = session.determinize(seat, &[step as u8; 32]).unwrap();
                    let mut copy = ScratchGame::new(native.clone(), determinized).unwrap();
                    let viewer = sdk::Viewer::Seat(seat);
                    assert_eq!(
                        copy.view(viewer).unwrap(),
                        session.view(viewer).unwrap(),
                        "game {game} step {step}: view of seat {seat}"
                    );
                    if step.is_multiple_of(35) {
                        assert_eq!(
                            copy.render(viewer).unwrap(),
                            session.render(viewer).unwrap(),
                            "game {game} step {step}: board of seat {seat}"
                        );
                    }
                    compared += 1;
                }
            }
            let action = bots[decision.seat as usize]
                .decide(&mut session, &decision)
                .unwrap();
            if session.apply(decision.seat, &action).is_ok() {
                step += 1;
            }
        }
    }
    assert!(compared > 300, "only {compared} comparisons");
}

/// Secrecy of plans, by experiment: the same game with a different plan for one seat looks the
/// same to every other seat and to spectators until that plan is revealed, in views, boards and
/// the events they are shown.
#[test]
fn another_plan_changes_nothing_the_other_seats_see_before_the_reveal() {
    let native = shogun_native();
    let mut planning_phases = 0;
    for seats in [3, 4, 5] {
        let seed = [seats as u8 + 60; 32];
        let mut session = native.new_game(spec(SUN, seats, seed[0])).unwrap();
        let mut bots: Vec<_> = (0..seats)
            .map(|seat| BotKind::Random.create(&seed, seat))
            .collect();
        let mut other_plans = host::bots::RandomBot::new(&[seats as u8; 32]);
        while let Some(decision) = session.pending().unwrap().into_iter().next() {
            // Only while others still plan: the last plan in reveals the bids at once.
            let pending_plans = session
                .pending()
                .unwrap()
                .iter()
                .filter(|d| matches!(d.kind, sdk::DecisionKind::Assign(_)))
                .count();
            if pending_plans > 1 {
                // Fork the game, and let the first planner plan differently in the fork.
                let snapshot = session.snapshot().unwrap();
                let mut twin = Session::restore(
                    native.clone(),
                    session.spec().clone(),
                    snapshot,
                    session.actions().to_vec(),
                )
                .unwrap();
                use host::bots::Bot;
                let mine = bots[decision.seat as usize]
                    .decide(&mut session, &decision)
                    .unwrap();
                let theirs = other_plans.decide(&mut twin, &decision).unwrap();
                let (Ok(a), Ok(b)) = (
                    session.apply(decision.seat, &mine),
                    twin.apply(decision.seat, &theirs),
                ) else {
                    continue;
                };
                for viewer in viewers(seats).into_iter().filter(|v| !v.is(decision.seat)) {
                    let visible = |events: &[sdk::Event]| -> Vec<sdk::Message> {
                        events
                            .iter()
                            .filter(|e| e.audience.includes(viewer))
                            .map(|e| e.text.clone())
                            .collect()
                    };
                    assert_eq!(visible(&a.events), visible(&b.events), "{viewer:?}: events");
                    assert_eq!(
                        session.view(viewer).unwrap(),
                        twin.view(viewer).unwrap(),
                        "{viewer:?}: view"
                    );
                    assert_eq!(
                        session.render(viewer).unwrap(),
                        twin.render(viewer).unwrap(),
                        "{viewer:?}: board"
                    );
                }
                planning_phases += 1;
                continue;
            }
            let action = bots[decision.seat as usize]
                .decide(&mut session, &decision)
                .unwrap();
            let _ = session.apply(decision.seat, &action);
        }
    }
    assert!(planning_phases >= 18, "{planning_phases} plans compared");
}

/// The information-set bots scored each cut playout with the ruleset's estimate for the seats up
/// to their own only: the scratch game they played on knew no seat count, so in a three-seat
/// game the bot in seat 0 saw both opponents at an even 0.5 whatever the position.
#[test]
fn regression_playouts_estimated_only_the_seats_up_to_the_bots_own() {
    let native = shogun_native();
    let mut session = native.new_game(spec(SUN, 3, 5)).unwrap();
    let mut bots: Vec<_> = (0..3)
        .map(|seat| BotKind::Random.create(&[5; 32], seat))
        .collect();
    // Into the game, where the estimates differ between seats, to a season's planning before
    // any plan is laid (while plans wait to be carried out Shogun gives no estimate).
    for step in 0.. {
        let pending = session.pending().unwrap();
        if step >= 60 && pending.len() == 3 && session.evaluate(0).unwrap().is_some() {
            break;
        }
        let Some(decision) = pending.into_iter().next() else {
            break;
        };
        let action = bots[decision.seat as usize]
            .decide(&mut session, &decision)
            .unwrap();
        let _ = session.apply(decision.seat, &action);
    }
    let determinized = session.determinize(0, &[9; 32]).unwrap();
    let mut scratch = ScratchGame::new(native.clone(), determinized).unwrap();
    assert_eq!(scratch.seats(), 3);
    let estimates = scratch
        .estimates()
        .unwrap()
        .expect("Shogun estimates every seat");
    assert_eq!(estimates.len(), 3, "{estimates:?}");
    for seat in 0..3 {
        assert_eq!(
            Some(estimates[seat as usize]),
            session.evaluate(seat).unwrap(),
            "seat {seat}: the scratch game is the real one as seat 0 sees it"
        );
    }
}
