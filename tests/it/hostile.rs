//! Hostile components: each misbehaviour fails only its own call, with a clear error; the game
//! is left as it was, the same runtime keeps running other games, and a component built for
//! another contract is refused before it runs.

use host::SessionError;
use sdk::{Action, Viewer};

use crate::runtime_support::{FIXTURE, hostile_component, rulesets_dir, runtime, spec};

/// The trigger number of the hostile crate: applying it misbehaves.
const TRIGGER: i64 = 7;

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

    let error = match game.apply(1, &Action::Number(TRIGGER)) {
        Err(SessionError::Ruleset(error)) => format!("{error:#}"),
        other => panic!("{feature}: expected the call to fail, got {other:?}"),
    };
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
    assert_eq!(reports.len(), 5);
    let refused: Vec<_> = reports.iter().filter(|r| r.error.is_some()).collect();
    assert_eq!(refused.len(), 1);
    assert!(refused[0].path.ends_with("hostile-future-contract.wasm"));
    assert_eq!(runtime.rulesets().len(), 4);
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
