//! The runtime: loading, the artifact cache, sessions, determinism, rejection and snapshots.

use host::NewGame as _;
use std::sync::Arc;

use host::bots::{BotKind, play_out};
use host::runtime::CacheOutcome;
use host::{LoadedRuleset, Runtime, RuntimeConfig, Session, SessionError};
use sdk::{Action, Viewer};

use crate::runtime_support::{FIXTURE, fixture_native, fixture_wasm, rulesets_dir, runtime, spec};

/// Plays a whole game with random bots and returns everything observable about it.
fn play(
    ruleset: &Arc<LoadedRuleset>,
    seats: u32,
    seed: u8,
) -> (Vec<String>, Option<sdk::GameResult>) {
    let mut session = ruleset
        .new_game(spec(seats, seed))
        .expect("the game starts");
    let mut bots: Vec<_> = (0..seats)
        .map(|s| BotKind::Random.create(&[seed; 32], s))
        .collect();
    let mut log = Vec::new();
    loop {
        let pending = session.pending().expect("pending");
        let Some(decision) = pending.first() else {
            break;
        };
        let action = bots[decision.seat as usize]
            .decide(&mut session, decision)
            .expect("a bot decides");
        match session.apply(decision.seat, &action) {
            Ok(applied) => log.push(format!(
                "{}:{action:?}:{:?}:{:?}",
                decision.seat, applied.events, applied.tower
            )),
            Err(SessionError::Rejected(r)) => log.push(format!("rejected {r}")),
            Err(other) => panic!("the fixture failed: {other}"),
        }
        log.push(session.view(Viewer::Spectator).expect("view"));
    }
    (log, session.result().expect("result"))
}

#[test]
fn a_seeded_game_replays_identically() {
    let ruleset = fixture_wasm();
    let first = play(&ruleset, 3, 7);
    let second = play(&ruleset, 3, 7);
    assert!(first.1.is_some(), "the game ends with a result");
    assert_eq!(
        first, second,
        "the same seed gives the same actions, events and result"
    );
    let others: Vec<_> = (8..12).map(|seed| play(&ruleset, 3, seed)).collect();
    assert!(
        others.iter().any(|other| other.0 != first.0),
        "other seeds play other games"
    );
}

#[test]
fn the_component_and_the_native_build_play_the_same_games() {
    let wasm = fixture_wasm();
    let native = fixture_native();
    assert_eq!(wasm.info(), native.info());
    for seed in 1..4 {
        assert_eq!(
            play(&wasm, 2 + u32::from(seed) % 3, seed),
            play(&native, 2 + u32::from(seed) % 3, seed)
        );
    }
}

#[test]
fn a_rejected_action_changes_nothing_not_even_the_random_stream() {
    let ruleset = fixture_wasm();
    // A bid cap of 6: one token is always a legal bid, two tokens above 6 together are not.
    // A hand limit of 6: after bidding one of eight tokens, drawing any is illegal, and the
    // fixture finds that out only after drawing from the random stream.
    let mut capped = spec(2, 3);
    capped.map_toml = "bid-cap = 6\nstart-tokens = 8\nhand-limit = 6\n".into();
    let mut rejected = ruleset.new_game(capped.clone()).unwrap();
    let mut direct = ruleset.new_game(capped).unwrap();
    let view = rejected.view(Viewer::Seat(0)).unwrap();
    let hand: Vec<u64> =
        serde_json::from_str::<serde_json::Value>(&view).unwrap()["seats"][0]["hand"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
    let mut by_value: Vec<usize> = (0..hand.len()).collect();
    by_value.sort_by_key(|i| std::cmp::Reverse(hand[*i]));
    let (a, b) = (by_value[0], by_value[1]);
    assert!(
        hand[a] + hand[b] > 6,
        "this seed deals two tokens above 6 together: {hand:?}"
    );
    match rejected.apply(0, &Action::Assign(vec![(0, a as u32), (1, b as u32)])) {
        Err(SessionError::Rejected(sdk::Rejection::Illegal(message))) => {
            assert_eq!(message.key, "illegal.bid-too-high")
        }
        other => panic!("expected an illegal-bid rejection, got {other:?}"),
    }
    assert_eq!(rejected.version(), 0);
    assert_eq!(rejected.view(Viewer::Seat(0)).unwrap(), view);
    // Both games bid one token each and, if someone won, take the first prize.
    for game in [&mut rejected, &mut direct] {
        game.apply(0, &Action::Assign(vec![(0, 0)])).unwrap();
        game.apply(1, &Action::Assign(vec![(0, 0)])).unwrap();
        let decision = game.pending().unwrap().remove(0);
        if matches!(decision.kind, sdk::DecisionKind::Choose(_)) {
            game.apply(decision.seat, &Action::Choose(vec![0])).unwrap();
        }
    }
    let drawer = rejected.pending().unwrap().remove(0).seat;
    let tower_before = rejected.tower_contents().unwrap();
    match rejected.apply(drawer, &Action::Number(2)) {
        Err(SessionError::Rejected(sdk::Rejection::Illegal(message))) => {
            assert_eq!(message.key, "illegal.hand-limit")
        }
        other => panic!("expected a hand-limit rejection, got {other:?}"),
    }
    assert_eq!(rejected.tower_contents().unwrap(), tower_before);
    // From here both games get the same actions and must stay identical, randomness included.
    let mut bots: Vec<_> = (0..2)
        .map(|s| BotKind::Random.create(&[3; 32], s))
        .collect();
    let mut bots_copy: Vec<_> = (0..2)
        .map(|s| BotKind::Random.create(&[3; 32], s))
        .collect();
    let a = play_out(&mut rejected, &mut bots, 10_000).unwrap();
    let b = play_out(&mut direct, &mut bots_copy, 10_000).unwrap();
    assert_eq!(a, b);
    assert_eq!(rejected.record().unwrap(), direct.record().unwrap());
}

#[test]
fn a_session_snapshot_reloads_and_plays_on_identically() {
    let ruleset = fixture_wasm();
    let mut original = ruleset.new_game(spec(3, 21)).unwrap();
    let mut bots: Vec<_> = (0..3)
        .map(|s| BotKind::Random.create(&[21; 32], s))
        .collect();
    for _ in 0..5 {
        let decision = original.pending().unwrap().remove(0);
        let action = bots[decision.seat as usize]
            .decide(&mut original, &decision)
            .unwrap();
        original.apply(decision.seat, &action).unwrap();
    }
    let snapshot = original.snapshot().unwrap();
    let json = serde_json::to_string(&snapshot).unwrap();
    let mut reloaded = Session::restore(
        ruleset.clone(),
        original.spec().clone(),
        serde_json::from_str(&json).unwrap(),
        original.actions().to_vec(),
    )
    .unwrap();
    assert_eq!(reloaded.version(), 5);
    assert_eq!(
        reloaded.view(Viewer::Seat(1)).unwrap(),
        original.view(Viewer::Seat(1)).unwrap()
    );
    assert_eq!(
        reloaded.tower_contents().unwrap(),
        original.tower_contents().unwrap()
    );
    let mut bots_copy: Vec<_> = (0..3)
        .map(|s| BotKind::Random.create(&[99; 32], s))
        .collect();
    let mut bots_again: Vec<_> = (0..3)
        .map(|s| BotKind::Random.create(&[99; 32], s))
        .collect();
    play_out(&mut original, &mut bots_copy, 10_000).unwrap();
    play_out(&mut reloaded, &mut bots_again, 10_000).unwrap();
    assert_eq!(original.record().unwrap(), reloaded.record().unwrap());
}

#[test]
fn maps_options_and_positions_are_checked_through_the_component() {
    let ruleset = fixture_wasm();
    let findings = ruleset
        .validate_map("start-tokens = 4\ndeck = [1, 99, 3]\n")
        .unwrap();
    assert!(
        findings
            .iter()
            .any(|d| d.is_error() && d.line == 2 && d.text.contains("99")),
        "{findings:?}"
    );
    let mut bad_map = spec(2, 1);
    bad_map.map_toml = "deck = [1]".into();
    assert!(matches!(
        ruleset.new_game(bad_map),
        Err(SessionError::Setup(sdk::SetupError::Map(_)))
    ));
    let mut bad_option = spec(2, 1);
    bad_option.options = vec![sdk::OptionSetting {
        name: "rounds".into(),
        value: sdk::OptionValue::Integer(99),
    }];
    assert!(
        matches!(ruleset.new_game(bad_option), Err(SessionError::Setup(sdk::SetupError::Option(name, _))) if name == "rounds")
    );
    assert!(matches!(
        ruleset.new_game(spec(9, 1)),
        Err(SessionError::Setup(sdk::SetupError::SeatCount(_)))
    ));
    let mut position = spec(2, 1);
    position.position = Some("round = 3\nscores = [5, 0]\nhands = [[6], [1, 1]]\n".into());
    let mut session = ruleset.new_game(position).unwrap();
    let view: serde_json::Value =
        serde_json::from_str(&session.view(Viewer::Spectator).unwrap()).unwrap();
    assert_eq!(view["round"], 3);
    assert_eq!(view["seats"][0]["score"], 5);
    assert_eq!(
        view["seats"][0]["hand"],
        serde_json::Value::Null,
        "a spectator sees no hand"
    );
    let catalogue = ruleset.catalogue("en").unwrap();
    assert!(catalogue.iter().any(|(key, _)| key == "prompt.bid"));
    assert!(ruleset.catalogue("xx").unwrap().is_empty());
}

#[test]
fn the_second_load_comes_from_the_cache_and_a_damaged_artifact_is_recompiled() {
    let runtime = runtime("cache");
    let cache_dir = runtime.config().cache_dir.clone().unwrap();
    // Each later load is a new process's: a runtime of its own over the same cache folder.
    let next_runtime = || {
        Runtime::new(RuntimeConfig {
            cache_dir: Some(cache_dir.clone()),
            ..RuntimeConfig::default()
        })
        .unwrap()
    };
    let path = rulesets_dir().join(format!("{FIXTURE}.wasm"));
    let (first, outcome) = runtime.load_file(&path).unwrap();
    assert_eq!(outcome, CacheOutcome::Miss);
    let (_, outcome) = next_runtime().load_file(&path).unwrap();
    assert_eq!(outcome, CacheOutcome::Hit);
    let artifact = std::fs::read_dir(&cache_dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "cwasm"))
        .expect("an artifact was written");
    let mut bytes = std::fs::read(&artifact).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&artifact, bytes).unwrap();
    let (reloaded, outcome) = next_runtime().load_file(&path).unwrap();
    assert_eq!(outcome, CacheOutcome::Recompiled);
    assert_eq!(reloaded.hash(), first.hash());
    // The recompiled ruleset works and the fresh artifact is trusted again.
    let mut session = reloaded.new_game(spec(2, 1)).unwrap();
    assert!(!session.pending().unwrap().is_empty());
    assert_eq!(
        next_runtime().load_file(&path).unwrap().1,
        CacheOutcome::Hit
    );
    // Within one runtime a version already loaded is not compiled or read from the cache again.
    assert_eq!(
        runtime.load_file(&path).unwrap().1,
        CacheOutcome::AlreadyLoaded
    );
}

/// An artifact is native code the host runs: a cache folder others may write is never used.
#[cfg(unix)]
#[test]
fn regression_the_artifact_cache_trusted_a_folder_anyone_could_write() {
    use std::os::unix::fs::PermissionsExt as _;
    let runtime = runtime("cache-shared");
    let cache_dir = runtime.config().cache_dir.clone().unwrap();
    let path = rulesets_dir().join(format!("{FIXTURE}.wasm"));
    assert_eq!(runtime.load_file(&path).unwrap().1, CacheOutcome::Miss);
    let next_runtime = || {
        Runtime::new(RuntimeConfig {
            cache_dir: Some(cache_dir.clone()),
            ..RuntimeConfig::default()
        })
        .unwrap()
    };
    std::fs::set_permissions(&cache_dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (loaded, outcome) = next_runtime().load_file(&path).unwrap();
    assert_eq!(
        outcome,
        CacheOutcome::Disabled,
        "a world-writable cache is not read"
    );
    assert!(
        !loaded
            .new_game(spec(2, 1))
            .unwrap()
            .pending()
            .unwrap()
            .is_empty()
    );
    // Private again, it is used again.
    std::fs::set_permissions(&cache_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        next_runtime().load_file(&path).unwrap().1,
        CacheOutcome::Hit
    );
}

#[test]
fn a_rulesets_directory_loads_and_lists_its_rulesets() {
    let runtime = runtime("dir");
    let reports = runtime.load_dir(rulesets_dir()).unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].ruleset_id.as_deref(), Some(FIXTURE));
    assert!(reports[0].error.is_none());
    let listed: Vec<String> = runtime
        .rulesets()
        .iter()
        .map(|r| r.info().id.clone())
        .collect();
    assert_eq!(listed, vec![FIXTURE.to_owned()]);
    assert!(runtime.ruleset("nope").is_none());
    assert!(
        runtime
            .load_dir(std::path::Path::new("no/such/dir"))
            .is_err()
    );
}

#[test]
fn a_built_component_declares_the_contract_and_imports_nothing_else() {
    let bytes = std::fs::read(rulesets_dir().join(format!("{FIXTURE}.wasm"))).unwrap();
    let (version, imports) = host::runtime::inspect_component(&bytes).unwrap();
    assert_eq!(version.as_deref(), Some(sdk::CONTRACT_VERSION));
    assert!(
        imports
            .iter()
            .any(|i| i.starts_with("tenka:ruleset/random@")),
        "{imports:?}"
    );
    assert!(
        imports
            .iter()
            .all(|i| i.starts_with("tenka:ruleset/") || i.starts_with("wasi:")),
        "{imports:?}"
    );
    assert!(host::runtime::check_component(&bytes).is_ok());
}

/// Measures the cost per action and per call of the sandbox's limits (fuel, the epoch deadline,
/// the pooled instances): run before and after a change to the runtime's configuration.
/// `cargo test --release -p tests --test it measure_call_costs -- --ignored --nocapture`
#[test]
#[ignore = "a measurement, not a check"]
fn measure_call_costs() {
    let ruleset = fixture_wasm();
    // Warm up: compile, fill the caches.
    play(&ruleset, 4, 1);
    let games = 200u8;
    let started = std::time::Instant::now();
    let mut actions = 0usize;
    for seed in 0..games {
        actions += play(&ruleset, 4, seed).0.len();
    }
    let per_action = started.elapsed().as_secs_f64() * 1e6 / actions as f64;
    let mut session = ruleset.new_game(spec(4, 3)).unwrap();
    let calls = 100_000u32;
    let started = std::time::Instant::now();
    for _ in 0..calls {
        std::hint::black_box(session.view(Viewer::Spectator).unwrap());
    }
    let per_view = started.elapsed().as_secs_f64() * 1e6 / f64::from(calls);
    let started = std::time::Instant::now();
    let created = 2_000u32;
    for seed in 0..created {
        std::hint::black_box(ruleset.new_game(spec(4, seed as u8)).unwrap());
    }
    let per_game = started.elapsed().as_secs_f64() * 1e6 / f64::from(created);
    println!(
        "{actions} actions in {games} games: {per_action:.1} µs per action (with the random bots' \
         decisions); {per_view:.2} µs per view call; {per_game:.1} µs per new game (instance, \
         create, recovery point)"
    );
}

/// Lines of /proc/self/maps (memory mappings; Linux allows `vm.max_map_count`, 65,530 by
/// default), and the process's address space and resident set, in MiB.
fn process_footprint() -> (usize, u64, u64) {
    let maps = std::fs::read_to_string("/proc/self/maps").map_or(0, |m| m.lines().count());
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|kib| kib.parse::<u64>().ok())
            .map_or(0, |kib| kib >> 10)
    };
    (maps, field("VmSize:"), field("VmRSS:"))
}

/// Measures how many live games one runtime holds and what each costs in mappings, address
/// space and memory: creates fixture games until the runtime refuses one (or
/// `TENKA_MEASURE_LIVE`, default 12,000, are alive).
/// `cargo test -p tests --test it measure_live_instances -- --ignored --nocapture`
#[test]
#[ignore = "a measurement, not a check"]
fn measure_live_instances() {
    let most: usize = std::env::var("TENKA_MEASURE_LIVE")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12_000);
    let runtime = runtime("measure-live");
    let (ruleset, _) = runtime
        .load_file(&rulesets_dir().join(format!("{FIXTURE}.wasm")))
        .unwrap();
    let before = process_footprint();
    println!("before: {before:?} (mappings, VmSize MiB, VmRSS MiB)");
    let mut games = Vec::new();
    let started = std::time::Instant::now();
    while games.len() < most {
        match ruleset.new_game(spec(2, games.len() as u8)) {
            Ok(game) => games.push(game),
            Err(error) => {
                println!("game {} refused: {error:#}", games.len() + 1);
                break;
            }
        }
        if games.len() % 2000 == 0 {
            let now = process_footprint();
            println!(
                "{} live games: {now:?}; per game {:.2} mappings, {:.1} MiB address space, {:.0} KiB resident",
                games.len(),
                (now.0 - before.0) as f64 / games.len() as f64,
                (now.1 - before.1) as f64 / games.len() as f64,
                (now.2 - before.2) as f64 * 1024.0 / games.len() as f64,
            );
        }
    }
    println!(
        "{} live games in {:?}; the runtime reports {} live instances",
        games.len(),
        started.elapsed(),
        runtime.live_instances()
    );
    // The games still play.
    for game in games.iter_mut().step_by(997) {
        game.pending().unwrap();
    }
}
