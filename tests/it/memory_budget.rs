//! One memory budget for every ruleset instance of a server together, so that games each within
//! their own budget cannot together make the machine swap (finding 4 of issue 23).

use crate::runtime_support::{hostile_component, runtime_with, spec, with_extra_core_instances};
use host::NewGame as _;

/// Finding 4 of issue 23: a hostile ruleset could keep about 55 MiB in every running game, and
/// nothing bounded all games together (1,024 running games by default: about 56 GiB). Here each
/// game of a component pins a 48 MiB memory from its start; with a budget of 160 MiB for all,
/// a third game is refused as the server being full (not as the ruleset failing), and a game
/// ended makes room again.
#[test]
fn regression_hostile_rulesets_could_pin_memory_in_every_running_game() {
    const BUDGET: usize = 160 << 20;
    let runtime = runtime_with("memory-budget", |config| {
        config.pool.ruleset_memory_bytes = BUDGET;
    });
    assert_eq!(
        runtime.games_that_fit(),
        2,
        "two games at their full 64 MiB fit in 160 MiB: the default cap on running games"
    );
    let harmless = std::fs::read(hostile_component("trap")).unwrap();
    let pinning = with_extra_core_instances(&harmless, Some(48 * 16), 1);
    let (ruleset, _) = runtime.load_bytes(&pinning, None).unwrap();
    let mut games = Vec::new();
    let mut refused = None;
    for seed in 0..8 {
        match ruleset.new_game(spec(2, seed)) {
            Ok(game) => games.push(game),
            Err(error) => {
                refused = Some(error);
                break;
            }
        }
        let used = runtime.memory_budget().used();
        assert!(used <= BUDGET, "the rulesets hold {used} bytes");
    }
    assert_eq!(games.len(), 2, "a third game does not fit beside two");
    assert!(
        runtime.memory_budget().used() >= 2 * (48 << 20),
        "the games' memories are counted"
    );
    let refused = refused.expect("a game was refused");
    assert!(
        refused.capacity_exhausted().is_some(),
        "the server is full; the ruleset did not fail: {refused}"
    );
    assert!(refused.ruleset_failure().is_none(), "{refused}");
    // A game that ends gives its memory back.
    drop(games.pop());
    let mut again = ruleset.new_game(spec(2, 20)).expect("room again");
    again.apply(0, &sdk::Action::Number(1)).unwrap();
    drop(games);
    drop(again);
    assert_eq!(
        runtime.memory_budget().used(),
        0,
        "every store gave its bytes back"
    );
}

/// The default budget is half the machine's memory, read from the system.
#[test]
fn the_default_budget_is_half_the_machines_memory() {
    let machine = host::runtime::machine_memory_bytes().expect("/proc/meminfo is readable");
    assert_eq!(
        host::runtime::default_ruleset_memory_bytes() as u64,
        machine / 2
    );
    assert_eq!(
        host::RuntimeConfig::default().pool.ruleset_memory_bytes as u64,
        machine / 2
    );
}
