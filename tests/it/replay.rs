//! Game records: a finished game exports a record that replays to the same result, and a record
//! that was changed in any way is refused.

use host::NewGame as _;
use host::bots::{BotKind, play_out};
use host::{GameRecord, Session, SessionError};

use crate::runtime_support::{fixture_wasm, spec};

fn finished_record(seed: u8) -> (std::sync::Arc<host::LoadedRuleset>, GameRecord) {
    let ruleset = fixture_wasm();
    let mut game_spec = spec(3, seed);
    game_spec.options = vec![sdk::OptionSetting {
        name: "rounds".into(),
        value: sdk::OptionValue::Integer(10),
    }];
    let mut session = ruleset.new_game(game_spec).unwrap();
    let before_end = session.record().unwrap();
    assert!(
        before_end.seed.is_none(),
        "the seed stays secret while the game runs"
    );
    let mut bots: Vec<_> = (0..3)
        .map(|s| BotKind::Random.create(&[seed; 32], s))
        .collect();
    play_out(&mut session, &mut bots, 10_000).unwrap();
    (ruleset, session.record().unwrap())
}

fn refusal(ruleset: &std::sync::Arc<host::LoadedRuleset>, record: &GameRecord) -> String {
    match Session::replay(ruleset.clone(), record) {
        Err(SessionError::Mismatch(what)) => what,
        Err(other) => panic!("unexpected error kind: {other}"),
        Ok(_) => panic!("a changed record was accepted"),
    }
}

#[test]
fn a_record_replays_to_the_same_result() {
    let (ruleset, record) = finished_record(4);
    assert!(record.seed.is_some(), "the seed is revealed at the end");
    assert_eq!(record.seed_commitment, host::table::commitment(&[4; 32]));
    assert!(record.result.is_some());
    assert!(
        record.checkpoints.len() >= 2,
        "periodic checkpoints and one at the end"
    );
    assert_eq!(
        record.checkpoints.last().unwrap().after_action,
        record.actions.len() as u64
    );
    let json = record.to_json().unwrap();
    let read_back = GameRecord::from_json(&json).unwrap();
    assert_eq!(read_back, record);
    let mut replayed = Session::replay(ruleset, &read_back).unwrap();
    assert_eq!(replayed.result().unwrap(), record.result);
    assert_eq!(replayed.record().unwrap(), record);
}

#[test]
fn a_tampered_record_is_refused_saying_what_differs() {
    let (ruleset, record) = finished_record(6);

    let mut changed_action = record.clone();
    let index = changed_action
        .actions
        .iter()
        .position(|a| matches!(a.action, sdk::Action::Number(_)))
        .unwrap();
    let sdk::Action::Number(n) = changed_action.actions[index].action else {
        unreachable!()
    };
    changed_action.actions[index].action = sdk::Action::Number((n + 1) % 3);
    let error = refusal(&ruleset, &changed_action);
    assert!(error.contains("does not replay"), "{error}");

    let mut changed_result = record.clone();
    changed_result.result.as_mut().unwrap().placings[0].score += 1;
    assert!(refusal(&ruleset, &changed_result).contains("result differs"));

    let mut changed_seed = record.clone();
    changed_seed.seed = Some(hex::encode([9u8; 32]));
    assert!(refusal(&ruleset, &changed_seed).contains("seed commitment"));

    let mut no_seed = record.clone();
    no_seed.seed = None;
    assert!(refusal(&ruleset, &no_seed).contains("no seed"));

    let mut changed_map = record.clone();
    changed_map.map = "deck = [9, 9, 9]".into();
    assert!(refusal(&ruleset, &changed_map).contains("map does not match"));

    let mut other_ruleset = record.clone();
    other_ruleset.ruleset_hash = host::ContentHash("00".repeat(32));
    assert!(refusal(&ruleset, &other_ruleset).contains("ruleset hash"));

    let mut changed_checkpoint = record.clone();
    changed_checkpoint.checkpoints[0].spectator_view = serde_json::json!({"round": 99});
    assert!(refusal(&ruleset, &changed_checkpoint).contains("checkpoint"));

    let mut truncated = record.clone();
    truncated.actions.pop();
    assert!(refusal(&ruleset, &truncated).contains("does not replay"));
}

/// A session parked between moves (its instance freed, its checkpoints kept compressed) plays on
/// exactly as one that never was, and its snapshot, checkpoints included, reads back as the same
/// JSON a running session writes.
#[test]
fn a_parked_session_plays_on_as_if_it_never_stopped() {
    let ruleset = fixture_wasm();
    let mut running = ruleset.new_game(spec(3, 9)).unwrap();
    let mut parked = ruleset.new_game(spec(3, 9)).unwrap();
    let mut bots: Vec<_> = (0..3)
        .map(|s| BotKind::Random.create(&[9; 32], s))
        .collect();
    while let Some(decision) = running.pending().unwrap().into_iter().next() {
        let action = bots[decision.seat as usize]
            .decide(&mut running, &decision)
            .unwrap();
        parked.park().unwrap();
        assert!(parked.is_parked());
        let applied = running.apply(decision.seat, &action);
        assert_eq!(
            parked.apply(decision.seat, &action).is_ok(),
            applied.is_ok()
        );
        assert!(!parked.is_parked(), "the next call restored it");
    }
    assert!(parked.is_over().unwrap());
    assert_eq!(parked.record().unwrap(), running.record().unwrap());
    parked.park().unwrap();
    let snapshot = parked.snapshot().unwrap();
    let json = serde_json::to_string(&snapshot).unwrap();
    assert_eq!(
        json,
        serde_json::to_string(&running.snapshot().unwrap()).unwrap()
    );
    let read_back: host::SessionSnapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(read_back, snapshot);
}
