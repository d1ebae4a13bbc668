//! Helpers shared by the tests: games with options, answers by choice id, card accounting.
#![allow(
    dead_code,
    unused_imports,
    reason = "each test file uses a different part of the helpers"
)]

use honshu::outcome::Outcome;
use honshu::state::{PROVINCE_CARD, Phase, State};
use honshu::{Honshu, HonshuGame};
use sdk::testing::ScriptedTable;
use sdk::{Action, Event, Game, OptionValue, Options, Ruleset, Setup};

pub use sdk::testing::choice_ids;

/// Options of a game: the defaults with `settings` changed.
pub fn options(settings: &[(&str, OptionValue)]) -> Options {
    sdk::testing::options::<Honshu>(settings)
}

/// A setup without a map, as the lobby makes it.
pub fn setup(seats: u32) -> Setup {
    Setup {
        map: String::new(),
        options: Vec::new(),
        seats,
    }
}

/// A new game with the shipped deck.
pub fn new_game(
    seats: u32,
    seed: u64,
    settings: &[(&str, OptionValue)],
) -> (HonshuGame, ScriptedTable) {
    let mut table = ScriptedTable::new(seed);
    let game = Honshu::create(&setup(seats), &options(settings), &mut table).expect("a new game");
    (game, table)
}

/// The action picking the choices with these ids.
pub fn action(game: &HonshuGame, seat: u32, ids: &[&str]) -> Action {
    sdk::testing::pick(game, seat, ids)
}

/// Answers `seat`'s decision with the choices of these ids.
pub fn answer(
    game: &mut HonshuGame,
    table: &mut ScriptedTable,
    seat: u32,
    ids: &[&str],
) -> Vec<Event> {
    let action = action(game, seat, ids);
    game.apply(seat, &action, table)
        .unwrap_or_else(|e| panic!("seat {seat} {ids:?} refused: {e}"))
}

/// Answers `seat`'s decision with the choices of these ids; returns what happened, as the rules
/// report it.
pub fn answer_told(game: &mut HonshuGame, seat: u32, ids: &[&str]) -> Vec<Outcome> {
    let action = action(game, seat, ids);
    honshu::decide::play(&mut game.state, seat, &action)
        .unwrap_or_else(|e| panic!("seat {seat} {ids:?} refused: {e}"))
        .outcomes()
        .to_vec()
}

/// Every map card's whereabouts, counted once each.
pub fn cards_accounted(state: &State) -> Vec<u8> {
    let mut cards: Vec<u8> = state.draw.clone();
    cards.extend(&state.discard);
    for player in &state.players {
        cards.extend(&player.hand);
        cards.extend(player.to_place);
        cards.extend(
            player
                .map
                .placed
                .iter()
                .map(|p| p.card)
                .filter(|&c| c != PROVINCE_CARD),
        );
    }
    cards.extend(state.cards_on_table());
    if let Phase::Duel { .. } = state.phase {
        // cards_on_table already lists the committed duel cards.
    }
    cards.sort_unstable();
    cards
}

/// Resources on maps, in the trick and in the pool.
pub fn resources_accounted(state: &State) -> u32 {
    let on_maps: u32 = state
        .players
        .iter()
        .map(|p| p.map.resources().iter().map(|&n| u32::from(n)).sum::<u32>())
        .sum();
    let in_trick: u32 = state
        .resources_in_trick()
        .iter()
        .map(|&n| u32::from(n))
        .sum();
    let pool: u32 = state.pool.iter().map(|&n| u32::from(n)).sum();
    on_maps + in_trick + pool
}

/// Places `seat`'s card: rotation, top-left square, layer.
pub fn place(
    game: &mut HonshuGame,
    table: &mut ScriptedTable,
    seat: u32,
    rotation: u8,
    at: (i32, i32),
    layer: &str,
) -> Vec<Event> {
    answer(game, table, seat, &[&format!("rotate:{rotation}")]);
    answer(game, table, seat, &[&format!("at:{},{}", at.0, at.1)]);
    answer(game, table, seat, &[layer])
}

/// Answers `decision` at random, trying again until the rules take an answer.
pub fn random_answer(
    game: &mut HonshuGame,
    table: &mut ScriptedTable,
    decision: &sdk::PendingDecision,
) {
    for _ in 0..50 {
        let action = sdk::random_action(&decision.kind, table);
        if game.apply(decision.seat, &action, table).is_ok() {
            return;
        }
    }
    panic!("no random answer fitted {decision:?}");
}
