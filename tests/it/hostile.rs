//! Hostile components: each misbehaviour fails only its own call, with a clear error naming the
//! export and the limit; the game is left as it was, the same runtime keeps running other games,
//! a game that cannot be rebuilt is failed rather than rebuilt again and again, a full instance
//! pool says so, and a component built for another contract is refused before it runs.

use host::NewGame as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use host::runtime::{FailureCause, RulesetFailure};
use host::{GameSpec, LoadedRuleset, Runtime, Session, SessionError};
use sdk::{Action, Viewer};

use crate::runtime_support::{
    FIXTURE, hostile_component, rulesets_dir, runtime, runtime_with, spec,
    with_extra_core_instances,
};

/// The trigger number of the hostile crate: applying it misbehaves.
const TRIGGER: i64 = 7;

/// The number that arms the export a hostile game's map names.
const ARM: i64 = 8;

/// The typed failure of a session error, or a test failure saying what came instead.
fn failure_of<T: std::fmt::Debug>(outcome: Result<T, SessionError>) -> RulesetFailure {
    match outcome {
        Err(error) => error
            .ruleset_failure()
            .cloned()
            .unwrap_or_else(|| panic!("expected a ruleset failure, got {error:#}")),
        Ok(value) => panic!("expected the call to fail, got {value:?}"),
    }
}

/// A hostile game whose map names `export` to misbehave in.
fn spec_misbehaving_in(export: &str, seed_byte: u8) -> GameSpec {
    GameSpec {
        map_toml: format!("misbehave-in = \"{export}\"\n"),
        ..spec(2, seed_byte)
    }
}

/// A runtime whose calls get less fuel than the default, so the loops of these tests end
/// quickly, with the fixture and the hostile component of `feature` loaded.
fn hostile_runtime(feature: &str) -> (Runtime, Arc<LoadedRuleset>, Arc<LoadedRuleset>) {
    let runtime = runtime_with(&format!("hostile-quick-{feature}"), |config| {
        // Flooding 200,000 entries takes more.
        if feature != "huge-output" {
            config.limits.fuel_per_call = 100_000_000;
            config.limits.recovery_fuel = 400_000_000;
        }
        config.limits.deadline = Duration::from_millis(500);
    });
    let (fixture, _) = runtime
        .load_file(&rulesets_dir().join(format!("{FIXTURE}.wasm")))
        .unwrap();
    let (hostile, _) = runtime.load_file(&hostile_component(feature)).unwrap();
    (runtime, fixture, hostile)
}

fn check_apply_failure(feature: &str, expected_cause: &str) {
    let runtime = runtime(&format!("hostile-{feature}"));
    let (fixture, _) = runtime
        .load_file(&rulesets_dir().join(format!("{FIXTURE}.wasm")))
        .unwrap();
    let (hostile, _) = runtime.load_file(&hostile_component(feature)).unwrap();
    let id = hostile.info().id.clone();

    // Another game of another ruleset is running in the same runtime.
    let mut bystander = fixture.new_game(spec(2, 5)).unwrap();
    let bystander_view = bystander.view(Viewer::Spectator).unwrap();

    let mut game = hostile.new_game(spec(2, 1)).unwrap();
    game.apply(0, &Action::Number(3)).unwrap();
    let pending = game.pending().unwrap();
    let view = game.view(Viewer::Spectator).unwrap();

    let outcome = game.apply(1, &Action::Number(TRIGGER));
    let error = match &outcome {
        Err(error @ SessionError::Failed(_)) => error.to_string(),
        other => panic!("{feature}: expected the call to fail, got {other:?}"),
    };
    let failure = failure_of(outcome);
    assert_eq!(failure.call, "apply");
    assert!(!failure.game_failed, "{feature}: the game is rebuilt");
    assert!(
        error.contains(&id),
        "{feature}: the error names the ruleset: {error}"
    );
    assert!(
        error.contains("`apply`"),
        "{feature}: the error names the call: {error}"
    );
    assert!(
        error.contains(expected_cause),
        "{feature}: the error says why: {error}"
    );

    // The game is as it was before the failed call, and goes on.
    assert_eq!(game.version(), 1);
    assert_eq!(game.pending().unwrap(), pending);
    assert_eq!(game.view(Viewer::Spectator).unwrap(), view);
    game.apply(1, &Action::Number(4)).unwrap();
    assert_eq!(game.view(Viewer::Spectator).unwrap(), "{\"named\":[3, 4]}");

    // The other game never noticed, and new games of both rulesets start.
    assert_eq!(bystander.view(Viewer::Spectator).unwrap(), bystander_view);
    assert!(!bystander.pending().unwrap().is_empty());
    assert!(hostile.new_game(spec(2, 2)).is_ok());
    assert!(fixture.new_game(spec(2, 2)).is_ok());
}

#[test]
fn an_endless_loop_runs_out_of_fuel_and_fails_only_its_call() {
    check_apply_failure("endless-loop", "fuel exhausted");
}

#[test]
fn a_memory_bomb_hits_the_memory_limit_and_fails_only_its_call() {
    check_apply_failure("memory-bomb", "memory limit of 64 MiB");
}

#[test]
fn a_trap_fails_only_its_call() {
    check_apply_failure("trap", "unreachable");
}

#[test]
fn a_deep_recursion_exhausts_the_call_stack_and_fails_only_its_call() {
    check_apply_failure("deep-recursion", "call stack exhausted");
}

#[test]
fn a_huge_output_is_refused_and_the_game_goes_on() {
    let runtime = runtime("hostile-huge-output");
    let (hostile, _) = runtime
        .load_file(&hostile_component("huge-output"))
        .unwrap();
    let mut game = hostile.new_game(spec(2, 1)).unwrap();
    let error = game.view(Viewer::Spectator).unwrap_err().to_string();
    assert!(
        error.contains("hostile-huge-output") && error.contains("`view`"),
        "{error}"
    );
    assert!(error.contains("more than the limit"), "{error}");
    game.apply(0, &Action::Number(1)).unwrap();
    game.apply(1, &Action::Number(2)).unwrap();
    assert_eq!(game.version(), 2);
}

#[test]
fn a_component_built_for_another_contract_is_refused_naming_both_versions() {
    let runtime = runtime("hostile-future");
    let error = format!(
        "{:#}",
        runtime
            .load_file(&hostile_component("future-contract"))
            .unwrap_err()
    );
    assert!(
        error.contains("9.0.0"),
        "names the component's version: {error}"
    );
    assert!(
        error.contains(sdk::CONTRACT_VERSION),
        "names the host's version: {error}"
    );
    assert!(
        error.contains("hostile-future-contract.wasm"),
        "names the file: {error}"
    );
    assert!(runtime.rulesets().is_empty(), "nothing was registered");

    // In a directory, the refused component is reported and the others still load.
    let reports = runtime
        .load_dir(hostile_component("trap").parent().unwrap())
        .unwrap();
    let hostile = crate::runtime_support::HOSTILE.len();
    assert_eq!(reports.len(), hostile);
    let refused: Vec<_> = reports.iter().filter(|r| r.error.is_some()).collect();
    assert_eq!(refused.len(), 1);
    assert!(refused[0].path.ends_with("hostile-future-contract.wasm"));
    assert_eq!(runtime.rulesets().len(), hostile - 1);
}

#[test]
fn bytes_that_are_not_a_component_are_refused_with_a_clear_error() {
    let runtime = runtime("hostile-garbage");
    let error = format!(
        "{:#}",
        runtime.load_bytes(b"\0asm garbage", None).unwrap_err()
    );
    assert!(
        error.contains("not a valid WebAssembly component"),
        "{error}"
    );
    let core_module = b"\0asm\x01\0\0\0";
    let error = format!("{:#}", runtime.load_bytes(core_module, None).unwrap_err());
    assert!(error.contains("tenka-contract"), "{error}");
}

/// The cause kind each misbehaviour is reported as.
fn expected_kind(feature: &str) -> &'static str {
    match feature {
        "endless-loop" => "fuel",
        "memory-bomb" => "memory",
        "trap" => "trap",
        "deep-recursion" => "stack-overflow",
        "panic" => "panic",
        "huge-output" => "output",
        "slow-host-calls" => "deadline",
        "forbidden-import" => "fault",
        other => panic!("no expectation for {other}"),
    }
}

/// Makes the hostile game misbehave in `export` and returns the failure, checking on the way
/// that a fixture game and a well-behaved game of the same hostile ruleset never notice.
fn misbehave_in(
    fixture: &Arc<LoadedRuleset>,
    hostile: &Arc<LoadedRuleset>,
    export: &str,
) -> RulesetFailure {
    let mut bystander = fixture.new_game(spec(2, 5)).unwrap();
    let bystander_view = bystander.view(Viewer::Spectator).unwrap();
    let mut sibling = hostile.new_game(spec_misbehaving_in("none", 6)).unwrap();
    sibling.apply(0, &Action::Number(ARM)).unwrap();

    let failure = match export {
        "create" => failure_of(hostile.new_game(spec_misbehaving_in("create", 1))),
        "restore" => {
            let mut game = hostile.new_game(spec_misbehaving_in("restore", 1)).unwrap();
            game.apply(0, &Action::Number(ARM)).unwrap();
            let snapshot = game.snapshot().unwrap();
            failure_of(Session::restore(
                hostile.clone(),
                game.spec().clone(),
                snapshot,
                game.actions().to_vec(),
            ))
        }
        "pending" => {
            let mut game = hostile.new_game(spec_misbehaving_in("pending", 1)).unwrap();
            // Applying asks for the next decisions too, which already misbehaves.
            let _ = game.apply(0, &Action::Number(ARM));
            failure_of(game.pending())
        }
        "view" | "render" => {
            let mut game = hostile.new_game(spec_misbehaving_in(export, 1)).unwrap();
            let before = game.render(Viewer::Spectator).unwrap();
            game.apply(0, &Action::Number(ARM)).unwrap();
            let failure = if export == "view" {
                failure_of(game.view(Viewer::Spectator))
            } else {
                failure_of(game.render(Viewer::Spectator))
            };
            // The game is still there: it was rebuilt, and what does not misbehave works.
            assert_eq!(game.version(), 1);
            if export == "view" {
                assert_eq!(game.render(Viewer::Spectator).unwrap(), before);
            }
            game.apply(1, &Action::Number(2)).unwrap();
            failure
        }
        other => panic!("no export {other}"),
    };

    // Nothing else noticed: another ruleset's game, a game of the same ruleset, new games.
    assert_eq!(bystander.view(Viewer::Spectator).unwrap(), bystander_view);
    bystander.pending().unwrap();
    assert_eq!(
        sibling.render(Viewer::Spectator).unwrap()[0].svg,
        // As every board reaches a server, rebuilt by the host's sanitizer.
        "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"
    );
    sibling.apply(1, &Action::Number(1)).unwrap();
    assert_eq!(sibling.version(), 2);
    assert!(fixture.new_game(spec(2, 9)).is_ok());
    assert!(hostile.new_game(spec(2, 9)).is_ok());
    failure
}

fn check_every_export(feature: &str, exports: &[&str]) {
    let (_runtime, fixture, hostile) = hostile_runtime(feature);
    for export in exports {
        let started = Instant::now();
        let failure = misbehave_in(&fixture, &hostile, export);
        assert_eq!(failure.call, *export, "{feature} in {export}: {failure}");
        assert_eq!(
            failure.cause.kind(),
            expected_kind(feature),
            "{feature} in {export}: {failure}"
        );
        assert!(
            failure.ruleset.starts_with("hostile-"),
            "{feature} in {export}: {failure}"
        );
        assert!(!failure.game_failed, "{feature} in {export}: {failure}");
        if feature == "panic" {
            let expected = format!("panics on purpose in `{export}`");
            assert!(failure.to_string().contains(&expected), "{failure}");
        }
        eprintln!("{feature} in {export}: {failure} ({:?})", started.elapsed());
    }
}

const EVERY_EXPORT: [&str; 5] = ["create", "restore", "pending", "view", "render"];

#[test]
fn an_endless_loop_in_any_export_runs_out_of_fuel() {
    check_every_export("endless-loop", &EVERY_EXPORT);
}

#[test]
fn a_memory_bomb_in_any_export_hits_the_memory_limit() {
    check_every_export("memory-bomb", &EVERY_EXPORT);
}

#[test]
fn a_trap_in_any_export_is_reported_as_a_trap() {
    check_every_export("trap", &EVERY_EXPORT);
}

#[test]
fn a_deep_recursion_in_any_export_exhausts_the_stack() {
    check_every_export("deep-recursion", &EVERY_EXPORT);
}

#[test]
fn a_panic_in_any_export_is_reported_as_a_panic() {
    check_every_export("panic", &EVERY_EXPORT);
}

#[test]
fn a_huge_output_of_any_export_is_refused() {
    // `create` and `restore` return no text or list to flood with.
    check_every_export("huge-output", &["pending", "view", "render"]);
    let (_runtime, _, hostile) = hostile_runtime("huge-output");
    let mut game = hostile.new_game(spec_misbehaving_in("none", 1)).unwrap();
    let failure = failure_of(game.apply(0, &Action::Number(TRIGGER)));
    assert_eq!(
        (failure.call.as_str(), failure.cause.kind()),
        ("apply", "output")
    );
}

/// Finding 5: fuel was the only limit on time, and a host call costs a few units of fuel however
/// long the host works on it, so a call could run for hours. The epoch deadline stops it.
#[test]
fn regression_finding5_a_call_fuel_cannot_stop_meets_the_wall_clock_deadline() {
    check_every_export("slow-host-calls", &["create"]);
    let (_runtime, fixture, hostile) = hostile_runtime("slow-host-calls");
    let mut bystander = fixture.new_game(spec(2, 5)).unwrap();
    let mut game = hostile.new_game(spec(2, 1)).unwrap();
    let started = Instant::now();
    let failure = failure_of(game.apply(0, &Action::Number(TRIGGER)));
    let took = started.elapsed();
    assert_eq!(
        failure.cause,
        FailureCause::Deadline { millis: 500 },
        "{failure}"
    );
    assert!(
        failure.to_string().contains("deadline exceeded"),
        "{failure}"
    );
    // The call's 500 ms and the rebuild, with room for a busy machine.
    assert!(took < Duration::from_secs(10), "took {took:?}");
    game.apply(0, &Action::Number(1)).unwrap();
    bystander.pending().unwrap();
}

/// Finding 5: each memory was checked alone, so a component with several memories could hold
/// far more than the limit. One budget now covers all of a game's memories and tables.
#[test]
fn regression_finding5_several_memories_share_one_budget() {
    let runtime = runtime("hostile-several-memories");
    let harmless = std::fs::read(hostile_component("trap")).unwrap();
    // One more memory of 63 MiB: under the 64 MiB limit alone, over it with the component's
    // own memory.
    let bytes = with_extra_core_instances(&harmless, Some(63 * 16), 1);
    // Loading instantiates the component once to read its description, and that fails.
    let error = runtime.load_bytes(&bytes, None).unwrap_err();
    let failure = host::runtime::failure_of(&error)
        .unwrap_or_else(|| panic!("expected a ruleset failure, got {error:#}"));
    assert_eq!(failure.call, "instantiate", "{failure}");
    assert_eq!(
        failure.cause,
        FailureCause::Memory { bytes: 64 << 20 },
        "{failure}"
    );

    // Two small memories are fine: the budget is on bytes.
    let bytes = with_extra_core_instances(&harmless, Some(16), 1);
    let (small, _) = runtime.load_bytes(&bytes, None).unwrap();
    let mut game = small.new_game(spec(2, 1)).unwrap();
    game.apply(0, &Action::Number(1)).unwrap();
}

/// Finding 5: nothing limited how many instances and memories one game's component creates.
#[test]
fn regression_finding5_instance_and_memory_counts_are_limited() {
    let runtime = runtime("hostile-many-instances");
    let harmless = std::fs::read(hostile_component("trap")).unwrap();
    for (what, bytes) in [
        ("instances", with_extra_core_instances(&harmless, None, 12)),
        ("memories", with_extra_core_instances(&harmless, Some(1), 3)),
    ] {
        // Refused when loaded: every module of a component is its own, so the pool checks
        // how many instances and memories it needs before any game runs.
        let error = format!("{:#}", runtime.load_bytes(&bytes, None).unwrap_err());
        let word = what.trim_end_matches('s');
        assert!(error.contains(word), "{what}: {error}");
        eprintln!("{what}: {error}");
    }
}

/// A ruleset calling a WASI function no ruleset may use (here the wall clock, which Rust's
/// standard library asks WASI for) fails the call as a fault naming the function, in every
/// export; the host's stubs fail with a typed error, so the class does not hang on wasmtime's
/// wording of an undefined import.
#[test]
fn a_call_to_a_forbidden_wasi_function_is_a_fault_naming_it() {
    check_every_export("forbidden-import", &EVERY_EXPORT);
    let (_runtime, _, hostile) = hostile_runtime("forbidden-import");
    let mut game = hostile.new_game(spec(2, 1)).unwrap();
    let failure = failure_of(game.apply(0, &Action::Number(TRIGGER)));
    assert_eq!(failure.call, "apply");
    let FailureCause::Fault { detail } = &failure.cause else {
        panic!("expected a fault, got {failure}");
    };
    assert!(
        detail.starts_with("it called `wasi:clocks/wall-clock@")
            && detail.ends_with("#now`, which a ruleset cannot use"),
        "{detail}"
    );
    assert!(!failure.to_string().contains("unknown import"), "{failure}");
    game.apply(0, &Action::Number(1)).unwrap();
}

/// Finding 5: a failure rebuilt the game with fresh fuel for each replayed call, and a rebuild
/// that failed was tried again on every later call. Now a rebuild runs once per failure under
/// one budget, and a game that cannot be rebuilt is failed: later calls answer at once.
#[test]
fn regression_finding5_a_game_that_cannot_be_rebuilt_is_failed_not_rebuilt_again() {
    let (_runtime, fixture, hostile) = hostile_runtime("endless-loop");
    let mut bystander = fixture.new_game(spec(2, 5)).unwrap();
    let mut game = hostile.new_game(spec_misbehaving_in("restore", 1)).unwrap();
    game.apply(0, &Action::Number(ARM)).unwrap();

    // The first failure is rebuilt from the start (not armed yet), and the rebuilt game, armed,
    // becomes the recovery point.
    let failure = failure_of(game.apply(1, &Action::Number(TRIGGER)));
    assert_eq!(
        (failure.call.as_str(), failure.game_failed),
        ("apply", false)
    );
    assert_eq!(
        game.view(Viewer::Spectator).unwrap(),
        format!("{{\"named\":[{ARM}]}}")
    );

    // The second failure needs that point restored, and restoring it loops: the game fails.
    let failure = failure_of(game.apply(1, &Action::Number(TRIGGER)));
    assert_eq!(failure.call, "apply");

    // Every later call answers the rebuild's failure at once, without running the ruleset.
    let started = Instant::now();
    for _ in 0..20 {
        let outcome = game.view(Viewer::Spectator);
        let error = outcome.unwrap_err();
        assert!(error.is_game_failed(), "{error:#}");
        let failure = error.ruleset_failure().unwrap();
        assert_eq!(failure.call, "restore");
        assert_eq!(failure.cause.kind(), "fuel");
        assert!(failure.to_string().contains("marked failed"), "{failure}");
    }
    let took = started.elapsed();
    // Each attempt to restore burns 400 million units of fuel; twenty take seconds.
    assert!(took < Duration::from_millis(200), "took {took:?}");
    bystander.pending().unwrap();
    assert!(hostile.new_game(spec(2, 2)).is_ok());
}

/// Finding 7: a panic was reported as a call to an unknown WASI import.
#[test]
fn regression_finding7_a_panic_is_reported_as_a_panic() {
    let (_runtime, _, hostile) = hostile_runtime("panic");
    let mut game = hostile.new_game(spec(2, 1)).unwrap();
    let failure = failure_of(game.apply(0, &Action::Number(TRIGGER)));
    assert_eq!(failure.call, "apply");
    assert!(
        matches!(failure.cause, FailureCause::Panic { .. }),
        "{failure}"
    );
    let text = failure.to_string();
    // The message and where it was raised, as the ruleset's panic hook wrote them.
    assert!(
        text.contains("it panicked: ")
            && text.contains("the hostile ruleset panics on purpose in `apply`")
            && text.contains("src/misbehave.rs:"),
        "{text}"
    );
    assert!(!text.contains("unknown import"), "{text}");
}

/// Finding 7: every live instance reserved its own address space and mappings, with no cap, so
/// about 16,000 games exhausted the process's mappings. Instances now come from a capped pool
/// and a full pool is a clear, typed error; freeing an instance makes room again.
#[test]
fn regression_finding7_a_full_instance_pool_says_so() {
    let runtime = runtime_with("hostile-full-pool", |config| {
        config.pool.instances = 3;
        config.pool.memories = 3;
        config.pool.tables = 6;
    });
    let (fixture, _) = runtime
        .load_file(&rulesets_dir().join(format!("{FIXTURE}.wasm")))
        .unwrap();
    let mut games: Vec<Session> = (0..3)
        .map(|seed| fixture.new_game(spec(2, seed)).unwrap())
        .collect();
    assert_eq!(runtime.live_instances(), 3);
    let error = fixture.new_game(spec(2, 9)).unwrap_err();
    let full = error
        .capacity_exhausted()
        .unwrap_or_else(|| panic!("expected a capacity error, got {error:#}"));
    assert!(full.to_string().contains("at capacity"), "{full}");
    assert!(error.ruleset_failure().is_none(), "not the ruleset's fault");
    // A stateless call needs an instance too, and says so the same way.
    let error = fixture.catalogue("en").unwrap_err();
    assert!(error.capacity().is_some(), "{error}");

    // The live games are unaffected, and a finished one makes room.
    for game in &mut games {
        game.pending().unwrap();
    }
    games.pop();
    assert!(fixture.new_game(spec(2, 9)).is_ok());
}

/// Plays a fixture game to its end with random bots; returns its spectator views after each
/// action and how long each action took.
fn play_fixture(fixture: &Arc<LoadedRuleset>, seed: u8) -> (Vec<String>, Vec<Duration>) {
    let mut game = fixture.new_game(spec(3, seed)).unwrap();
    let mut bots: Vec<_> = (0..3)
        .map(|seat| host::bots::BotKind::Random.create(&[seed; 32], seat))
        .collect();
    let (mut views, mut took) = (Vec::new(), Vec::new());
    while let Some(decision) = game.pending().unwrap().first().cloned() {
        let action = bots[decision.seat as usize]
            .decide(&mut game, &decision)
            .unwrap();
        let started = Instant::now();
        match game.apply(decision.seat, &action) {
            Ok(_) | Err(SessionError::Rejected(_)) => {}
            Err(error) => panic!("the fixture failed: {error:#}"),
        }
        took.push(started.elapsed());
        views.push(game.view(Viewer::Spectator).unwrap());
    }
    (views, took)
}

/// A hostile game failing again and again on one thread while other games play on another:
/// the other games play exactly as they do alone, and keep answering.
#[test]
fn other_games_play_on_while_a_hostile_game_fails_again_and_again() {
    use std::sync::atomic::{AtomicBool, Ordering};

    let (_runtime, fixture, hostile) = hostile_runtime("endless-loop");
    let alone: Vec<Vec<String>> = (0..16).map(|seed| play_fixture(&fixture, seed).0).collect();

    let stop = Arc::new(AtomicBool::new(false));
    let attacker = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut game = hostile.new_game(spec_misbehaving_in("render", 1)).unwrap();
            game.apply(0, &Action::Number(ARM)).unwrap();
            let mut failures = 0u32;
            while !stop.load(Ordering::Relaxed) {
                let failure = failure_of(game.render(Viewer::Spectator));
                assert_eq!(
                    (failure.call.as_str(), failure.cause.kind()),
                    ("render", "fuel")
                );
                failures += 1;
            }
            failures
        })
    };
    let mut took = Vec::new();
    for (seed, alone) in alone.iter().enumerate() {
        let (views, times) = play_fixture(&fixture, seed as u8);
        assert_eq!(&views, alone, "game {seed} played differently under attack");
        took.extend(times);
    }
    stop.store(true, Ordering::Relaxed);
    let failures = attacker.join().unwrap();
    took.sort();
    let p99 = took[took.len() * 99 / 100];
    eprintln!(
        "{} actions of other games while the hostile game failed {failures} times: p99 {p99:?}",
        took.len()
    );
    assert!(failures > 0, "the attack ran");
}
