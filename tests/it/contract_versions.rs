//! Contract versions: components built for 0.1.0, 0.2.0 and 0.3.0, kept as bytes in
//! `tests/fixtures`, still load, play, store and replay through the host's adapters and describe
//! no map editor schema; the same ruleset built for the current contract shows what 0.2.0 added
//! (board parts, previews, choice details, private decisions, events tied to their drops with
//! summaries), through the runtime and through the server; Shogun shows what 0.3.0 added (a way
//! back from a step, recorded and replayed) and what 0.4.0 added (its map editor schema, and
//! quick answers for bots' playouts).

use host::NewGame as _;
use std::sync::Arc;

use axum::http::StatusCode;
use host::bots::{BotKind, play_out};
use host::{GameSpec, LoadedRuleset, Session, SessionError};
use sdk::{Action, DecisionKind, NoteLevel, PartKind, Rejection, Viewer};
use serde_json::{Value, json};

use crate::runtime_support::{FIXTURE, fixture_wasm, runtime, shogun_wasm, spec, workspace_root};
use crate::server_support::{TempDir, TestApp, answer_rng, every_seat_token, random_answer};

/// Where the fixture ruleset built for contract 0.1.0 is kept.
fn fixture_0_1_0_path() -> std::path::PathBuf {
    workspace_root().join("tests/fixtures/contract-0.1.0/fixture-ruleset-for-tests.wasm")
}

/// The fixture ruleset exactly as it was built for contract 0.1.0.
fn fixture_0_1_0() -> Arc<LoadedRuleset> {
    let path = fixture_0_1_0_path();
    let bytes = std::fs::read(&path).expect("the 0.1.0 fixture is in the repository");
    assert_eq!(
        host::runtime::check_component(&bytes).unwrap(),
        "0.1.0",
        "the fixture really is a 0.1.0 component"
    );
    runtime("contract-0.1.0")
        .load_file(&path)
        .expect("a 0.1.0 component loads")
        .0
}

/// The fixture ruleset exactly as it was built for contract 0.2.0.
fn fixture_0_2_0() -> Arc<LoadedRuleset> {
    let path =
        workspace_root().join("tests/fixtures/contract-0.2.0/fixture-ruleset-for-tests.wasm");
    let bytes = std::fs::read(&path).expect("the 0.2.0 fixture is in the repository");
    assert_eq!(
        host::runtime::check_component(&bytes).unwrap(),
        "0.2.0",
        "the fixture really is a 0.2.0 component"
    );
    runtime("contract-0.2.0")
        .load_file(&path)
        .expect("a 0.2.0 component loads")
        .0
}

/// The fixture ruleset exactly as it was built for contract 0.3.0.
fn fixture_0_3_0() -> Arc<LoadedRuleset> {
    let path =
        workspace_root().join("tests/fixtures/contract-0.3.0/fixture-ruleset-for-tests.wasm");
    let bytes = std::fs::read(&path).expect("the 0.3.0 fixture is in the repository");
    assert_eq!(
        host::runtime::check_component(&bytes).unwrap(),
        "0.3.0",
        "the fixture really is a 0.3.0 component"
    );
    runtime("contract-0.3.0")
        .load_file(&path)
        .expect("a 0.3.0 component loads")
        .0
}

/// The spec on a map that caps a bid's total.
fn with_bid_cap(mut game_spec: host::GameSpec, cap: i64) -> host::GameSpec {
    game_spec.map_toml = format!("bid-cap = {cap}\n");
    game_spec
}

/// Random bots play the three-seat game on to its end; its record replays bit for bit on the
/// same component. Returns the record.
fn play_and_replay(ruleset: &Arc<LoadedRuleset>, session: &mut Session) -> host::GameRecord {
    let mut bots: Vec<_> = (0..3)
        .map(|s| BotKind::Random.create(&[7; 32], s))
        .collect();
    let applied = play_out(session, &mut bots, 10_000).unwrap();
    assert!(applied > 10, "a whole game: {applied} actions");
    let record = session.record().unwrap();
    assert!(record.result.is_some());
    let mut replayed = Session::replay(ruleset.clone(), &record).expect("the record replays");
    assert_eq!(replayed.record().unwrap(), record, "bit for bit");
    record
}

/// [`play_and_replay`], then a snapshot of the finished game restores on the same old component.
fn play_replay_and_restore(ruleset: &Arc<LoadedRuleset>, mut session: Session) {
    let record = play_and_replay(ruleset, &mut session);
    let snapshot = session.snapshot().unwrap();
    let mut restored = Session::restore(
        ruleset.clone(),
        session.spec().clone(),
        snapshot,
        session.actions().to_vec(),
    )
    .unwrap();
    assert_eq!(restored.result().unwrap(), record.result);
}

#[test]
fn a_component_built_for_contract_0_1_0_plays_and_its_record_replays() {
    let ruleset = fixture_0_1_0();
    assert_eq!(ruleset.info().id, FIXTURE);
    assert_eq!(
        ruleset.map_editor().unwrap(),
        None,
        "0.1.0 has no map editor schema"
    );
    let mut session = ruleset.new_game(spec(3, 7)).unwrap();

    // What 0.1.0 cannot say gets the value that promises least.
    let pending = session.pending().unwrap();
    assert!(
        pending.iter().all(|decision| decision.private),
        "{pending:?}"
    );
    let parts = session.render(Viewer::Seat(0)).unwrap();
    assert_eq!(parts.len(), 1, "one part: the whole board");
    assert_eq!(parts[0].kind, PartKind::Map);
    assert!(parts[0].svg.contains("<svg"), "{}", parts[0].svg);
    let draft = Action::Assign(vec![(0, 0)]);
    assert_eq!(session.preview(0, &draft).unwrap(), Vec::new());

    play_replay_and_restore(&ruleset, session);
}

#[test]
fn a_component_built_for_contract_0_2_0_plays_and_its_record_replays() {
    let ruleset = fixture_0_2_0();
    assert_eq!(ruleset.info().id, FIXTURE);
    assert_eq!(
        ruleset.map_editor().unwrap(),
        None,
        "0.2.0 has no map editor schema"
    );
    let mut session = ruleset.new_game(spec(3, 7)).unwrap();

    // What 0.2.0 cannot say: no way back, no estimate. The host refuses `back` for the decision
    // offering none, before the component (which could not even be sent it) is called.
    let pending = session.pending().unwrap();
    assert!(pending.iter().all(|d| d.back.is_none()), "{pending:?}");
    let seat = pending[0].seat;
    let version = session.version();
    match session.apply(seat, &Action::Back) {
        Err(SessionError::Rejected(Rejection::Malformed(reason))) => {
            assert_eq!(reason, "this decision offers no way back");
        }
        other => panic!("back was not refused: {other:?}"),
    }
    assert!(session.preview(seat, &Action::Back).is_err());
    assert_eq!(session.version(), version);
    assert!(session.actions().is_empty(), "a refusal is not recorded");
    assert_eq!(session.evaluate(seat).unwrap(), None);

    play_replay_and_restore(&ruleset, session);
}

#[test]
fn a_component_built_for_contract_0_3_0_plays_replays_and_describes_no_map_editor() {
    let ruleset = fixture_0_3_0();
    assert_eq!(ruleset.info().id, FIXTURE);
    // What 0.3.0 cannot say: no map editor schema, so the editor offers the text alone.
    assert_eq!(ruleset.map_editor().unwrap(), None);
    assert!(host::editor::schema_of(&ruleset).is_none());
    let mut session = ruleset.new_game(spec(3, 7)).unwrap();
    play_and_replay(&ruleset, &mut session);
}

#[test]
fn a_0_4_0_component_describes_its_map_editor_schema() {
    let shogun = shogun_wasm();
    let described = shogun
        .map_editor()
        .unwrap()
        .expect("Shogun describes its maps");
    let schema = host::editor::Schema::from_ruleset(described).expect("the host accepts it");
    let places = schema.places.as_ref().unwrap();
    assert_eq!(places.table, "province");
    assert_eq!(places.fields.len(), 5);
    assert_eq!(schema.connections.len(), 2);
    // The empty map is a map the ruleset reads: what is missing are the provinces.
    let blank = schema.blank_map.as_deref().unwrap();
    let findings = shogun.validate_map(blank).unwrap();
    assert!(!findings.is_empty());
    // The current fixture, built with the SDK's default, describes none.
    assert_eq!(fixture_wasm().map_editor().unwrap(), None);
}

/// A Shogun game on the sun map from one of its rule tests' positions.
fn shogun_from_position(name: &str, seats: u32) -> Session {
    let root = workspace_root();
    let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
    shogun_wasm()
        .new_game(GameSpec {
            map_toml: read("maps/shogun/sun.toml"),
            options: Vec::new(),
            seats,
            seed: [4; 32],
            position: Some(read(&format!(
                "rulesets/shogun/tests/positions/{name}.toml"
            ))),
        })
        .expect("the position loads")
}

/// The index of the choice `id` in `seat`'s choose decision.
fn choice_index(session: &mut Session, seat: u32, id: &str) -> u32 {
    let pending = session.pending().unwrap();
    let DecisionKind::Choose(choose) = &pending.iter().find(|d| d.seat == seat).unwrap().kind
    else {
        panic!("not a choice: {pending:?}")
    };
    choose.choices.iter().position(|c| c.id == id).unwrap() as u32
}

#[test]
fn a_0_3_0_component_goes_back_from_a_step_and_the_game_replays_bit_for_bit() {
    // Seat 0 attacks from Kai; the count offers a way back to the target.
    let mut session = shogun_from_position("battle_farmers_defend", 4);
    let at_target = session.pending().unwrap();
    assert!(at_target[0].back.is_none());
    let state_at_target = session.snapshot().unwrap();
    let musashi = choice_index(&mut session, 0, "province:musashi");
    session.apply(0, &Action::Choose(vec![musashi])).unwrap();
    let count = session.pending().unwrap();
    assert_eq!(
        count[0].back.as_ref().map(|m| m.key.as_str()),
        Some("back.battle-target")
    );
    assert_eq!(session.preview(0, &Action::Back).unwrap(), Vec::new());

    let went_back = session.apply(0, &Action::Back).unwrap();
    assert_eq!(went_back.events[0].text.key, "log.target-withdrawn");
    assert!(went_back.tower.is_empty(), "going back drops nothing");
    assert_eq!(session.pending().unwrap(), at_target);
    let state_now = session.snapshot().unwrap();
    assert_eq!(state_now.game, state_at_target.game, "the game as before");
    assert_eq!(state_now.table, state_at_target.table, "no random number");

    // Back from the target step itself is refused: it offers none.
    assert!(matches!(
        session.apply(0, &Action::Back),
        Err(SessionError::Rejected(Rejection::Malformed(_)))
    ));

    // Another target, the count, and the game goes on; its record replays bit for bit.
    let DecisionKind::Choose(choose) = &at_target[0].kind else {
        panic!("a target choice")
    };
    let other = choose
        .choices
        .iter()
        .position(|c| c.id != "province:musashi")
        .unwrap() as u32;
    session.apply(0, &Action::Choose(vec![other])).unwrap();
    session.apply(0, &Action::Number(4)).unwrap();
    // Random bots finish the game (they never go back: they answer from the decision's kind).
    let mut bots: Vec<_> = (0..4)
        .map(|s| BotKind::Random.create(&[4; 32], s))
        .collect();
    play_out(&mut session, &mut bots, 20_000).unwrap();
    let record = session.record().unwrap();
    let backs = record
        .actions
        .iter()
        .filter(|a| a.action == Action::Back)
        .count();
    assert_eq!(backs, 1, "the one back, and none by a bot");
    let mut replayed = Session::replay(shogun_wasm(), &record).expect("the record replays");
    assert_eq!(replayed.record().unwrap(), record, "bit for bit");
}

#[test]
fn a_0_4_0_component_gives_rollout_answers_and_a_0_3_0_one_none() {
    use host::scratch::ScratchGame;
    let mut session = shogun_from_position("planning_kai_and_musashi", 4);
    let before = session.snapshot().unwrap();
    let pending = session.pending().unwrap();
    let plan = pending.iter().find(|d| d.seat == 0).expect("seat 0 plans");
    let determinized = session.determinize(0, &[9; 32]).unwrap();
    let mut scratch = ScratchGame::new(shogun_wasm(), determinized).unwrap();
    let answer = scratch
        .rollout_action(0, 17)
        .unwrap()
        .expect("Shogun answers a plan");
    sdk::check_action_shape(&plan.kind, &answer).expect("the answer fits the plan");
    assert_eq!(
        scratch.rollout_action(0, 17).unwrap(),
        Some(answer.clone()),
        "the same salt, the same answer"
    );
    let answers: std::collections::HashSet<String> = (0..16)
        .map(|salt| format!("{:?}", scratch.rollout_action(0, salt).unwrap()))
        .collect();
    assert!(answers.len() > 1, "the salt varies the plan");
    assert_eq!(scratch.rollout_action(9, 17).unwrap(), None, "no such seat");
    scratch.apply(0, &answer).expect("the rules take it");
    assert_eq!(
        session.snapshot().unwrap(),
        before,
        "the real game is untouched"
    );

    // A 0.3.0 component has no rollout answers: its bots play at random in their playouts.
    let old = fixture_0_3_0();
    let mut session = old.new_game(spec(3, 7)).unwrap();
    let seat = session.pending().unwrap()[0].seat;
    let determinized = session.determinize(seat, &[9; 32]).unwrap();
    let mut scratch = ScratchGame::new(old, determinized).unwrap();
    assert_eq!(scratch.rollout_action(seat, 17).unwrap(), None);
}

#[test]
fn a_0_3_0_component_estimates_a_position_without_changing_the_game() {
    let mut session = shogun_from_position("planning_kai_and_musashi", 4);
    let before = session.snapshot().unwrap();
    let shares: Vec<f64> = (0..4)
        .map(|seat| session.evaluate(seat).unwrap().expect("Shogun gives one"))
        .collect();
    assert!(shares.iter().all(|s| (0.0..=1.0).contains(s)), "{shares:?}");
    // Seat 0 holds Kai with 5 armies, seat 1 Musashi with 3, the others nothing.
    assert!(shares[0] > shares[1] && shares[1] > shares[2], "{shares:?}");
    assert_eq!(session.evaluate(9).unwrap(), None, "no such seat");
    let after = session.snapshot().unwrap();
    assert_eq!(after, before, "an estimate changes nothing");
}

#[test]
fn the_fixture_built_for_contract_0_2_0_says_what_0_2_0_added() {
    let ruleset = fixture_wasm();
    let mut session = ruleset.new_game(with_bid_cap(spec(2, 3), 3)).unwrap();

    // Bidding is secret: private. The board comes in parts: the table and the viewer's hand.
    let pending = session.pending().unwrap();
    assert!(pending.iter().all(|decision| decision.private));
    let parts = session.render(Viewer::Seat(1)).unwrap();
    let kinds: Vec<(&str, &PartKind)> = parts.iter().map(|p| (p.id.as_str(), &p.kind)).collect();
    assert_eq!(
        kinds,
        [("table", &PartKind::Map), ("hand-1", &PartKind::Seat(1))]
    );
    assert_eq!(parts[1].title.as_ref().unwrap().key, "part.hand");
    assert_eq!(
        session.render(Viewer::Spectator).unwrap().len(),
        1,
        "no hand for a spectator"
    );

    // A preview of a draft says what it totals, warns above the cap, and changes nothing.
    let version = session.version();
    let view = session.view(Viewer::Seat(0)).unwrap();
    let notes = session
        .preview(0, &Action::Assign(vec![(0, 0), (1, 1)]))
        .unwrap();
    assert_eq!(notes[0].level, NoteLevel::Info);
    assert_eq!(notes[0].text.key, "preview.bid-total");
    let hand: Vec<i64> = serde_json::from_str::<Value>(&view).unwrap()["seats"][0]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let over_cap = hand[0] + hand[1] > 3;
    assert_eq!(
        notes.iter().any(|n| n.level == NoteLevel::Warning),
        over_cap,
        "{hand:?}: {notes:?}"
    );
    // An incomplete draft (no token placed yet) is fine; a malformed one is not.
    assert!(session.preview(0, &Action::Assign(Vec::new())).is_ok());
    assert!(session.preview(0, &Action::Assign(vec![(0, 99)])).is_err());
    assert!(session.preview(0, &Action::Number(1)).is_err());
    assert_eq!(session.version(), version);
    assert_eq!(session.view(Viewer::Seat(0)).unwrap(), view);

    // The bids resolve in one drop, explained by the round's outcome with a summary.
    for seat in 0..2 {
        let decision = session
            .pending()
            .unwrap()
            .into_iter()
            .find(|d| d.seat == seat)
            .unwrap();
        let DecisionKind::Assign(assign) = &decision.kind else {
            panic!("a bid")
        };
        let hand = &serde_json::from_str::<Value>(&session.view(Viewer::Seat(seat)).unwrap())
            .unwrap()["seats"][seat as usize]["hand"];
        let lowest = (0..assign.items.len())
            .min_by_key(|i| hand[*i].as_i64().unwrap())
            .unwrap() as u32;
        let applied = session
            .apply(seat, &Action::Assign(vec![(0, lowest)]))
            .unwrap();
        if seat == 1 {
            assert_eq!(applied.tower.len(), 1, "one drop");
            let outcome: Vec<_> = applied
                .events
                .iter()
                .filter(|e| !e.drops.is_empty())
                .collect();
            assert_eq!(outcome.len(), 1, "{:?}", applied.events);
            assert_eq!(outcome[0].drops, [0]);
            let summary = outcome[0].summary.as_ref().expect("a summary");
            assert_eq!(summary.lines.len(), 2);
        }
    }
    // A prize to pick, for the winner only: public, with what each prize scores.
    if let Some(pick) = session
        .pending()
        .unwrap()
        .into_iter()
        .find(|d| matches!(d.kind, DecisionKind::Choose(_)))
    {
        assert!(!pick.private);
        let DecisionKind::Choose(choose) = pick.kind else {
            unreachable!()
        };
        assert!(
            choose
                .choices
                .iter()
                .all(|c| c.detail.as_ref().is_some_and(|d| d.key == "prize.scores"))
        );
    }
}

#[tokio::test]
async fn the_api_takes_back_as_an_answer_and_refuses_it_where_no_way_back_is_offered() {
    let dir = TempDir::new("back-refused");
    let app = TestApp::start_on(&dir.0, None, crate::server_support::runtime(), |_, _| {}).await;
    let seats = json!([{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }]);
    let (status, created) = app
        .post_game(json!({ "ruleset": "secret-draw", "map": "square", "seats": seats }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let game = created["id"].as_str().unwrap().to_owned();
    let token = created["seats"][0]["token"].as_str().unwrap().to_owned();
    let (_, view) = app.view(&game, Some(&token)).await;
    assert!(view["pending"][0].get("back").is_none(), "{view}");
    let answer = json!({ "version": view["version"], "action": "back" });
    for (path, body) in [
        ("actions", answer),
        ("preview", json!({ "action": "back" })),
    ] {
        let (status, body) = app
            .call(
                "POST",
                &format!("/api/games/{game}/{path}"),
                Some(&token),
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {body}");
        assert_eq!(body["error"], "rejected");
        assert_eq!(
            body["rejection"],
            json!({ "malformed": "this decision offers no way back" })
        );
    }
    let (_, after) = app.view(&game, Some(&token)).await;
    assert_eq!(after["version"], view["version"], "nothing changed");
}

/// A server over `dir` that also runs the 0.1.0 fixture component.
async fn server_with_0_1_0(dir: &std::path::Path) -> TestApp {
    let runtime = crate::server_support::runtime();
    runtime.load_file(&fixture_0_1_0_path()).unwrap();
    TestApp::start_on(dir, None, runtime, |_, _| {}).await
}

#[tokio::test]
async fn a_stored_game_of_a_0_1_0_component_plays_and_replays_through_the_server() {
    let dir = TempDir::new("contract-0-1-0");
    let ruleset = fixture_0_1_0();
    let app = server_with_0_1_0(&dir.0).await;
    // The fixture ships no map: the game is created without one.
    let seats = json!([{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }]);
    let (status, created) = app
        .post_game(json!({ "ruleset": FIXTURE, "seats": seats }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let game = created["id"].as_str().unwrap().to_owned();
    let tokens = every_seat_token(&created);
    let mut rng = answer_rng(5);
    loop {
        let mut moved = false;
        for token in &tokens {
            let (_, view) = app.view(&game, Some(token)).await;
            if view["status"] == "finished" {
                break;
            }
            assert_eq!(view["parts"].as_array().unwrap().len(), 1, "{view}");
            assert_eq!(view["parts"][0]["id"], "board");
            if view["pending"].as_array().unwrap().is_empty() {
                continue;
            }
            assert_eq!(view["pending"][0]["private"], true);
            let action = random_answer(&view, &mut rng);
            let (status, preview) = app
                .call(
                    "POST",
                    &format!("/api/games/{game}/preview"),
                    Some(token),
                    Some(json!({ "action": action })),
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{preview}");
            assert_eq!(preview["notes"], json!([]));
            let (status, body) = app.act(&game, token, &view["version"], action).await;
            assert!(
                status == StatusCode::OK || status == StatusCode::UNPROCESSABLE_ENTITY,
                "{body}"
            );
            moved = true;
        }
        if !moved {
            break;
        }
    }
    drop(app);

    // After a restart, the stored game loads on the old component and its record replays.
    let app = server_with_0_1_0(&dir.0).await;
    let (status, view) = app.view(&game, None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["status"], "finished");
    let (status, record) = app
        .call("GET", &format!("/api/games/{game}/record"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{record}");
    let record = host::GameRecord::from_json(&record.to_string()).unwrap();
    assert_eq!(record.ruleset_hash, ruleset.hash());
    let mut replayed = Session::replay(ruleset, &record).expect("the stored game replays");
    assert_eq!(replayed.record().unwrap(), record);
    let (_, log) = app
        .call("GET", &format!("/api/games/{game}/log"), None, None)
        .await;
    for entry in log.as_array().unwrap() {
        for event in entry["events"].as_array().unwrap() {
            assert_eq!(event["drops"], json!([]), "0.1.0 events name no drops");
        }
    }
}
