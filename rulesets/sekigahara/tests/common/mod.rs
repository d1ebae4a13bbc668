//! Shared helpers: the small test board, new games, random play.
#![allow(
    dead_code,
    unused_imports,
    reason = "each test file uses a part of the helpers"
)]

use sdk::testing::SeededTable;
use sdk::{OptionValue, Options};
use sekigahara::outcome::Log;
use sekigahara::{Sekigahara, SekigaharaGame};

pub const SMALL: &str = include_str!("../maps/small.toml");

pub fn table(seed: u64) -> SeededTable {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    SeededTable::new(bytes)
}

pub fn options(settings: &[(&str, OptionValue)]) -> Options {
    sdk::testing::options::<Sekigahara>(settings)
}

pub fn new_game(map: &str, table: &mut SeededTable) -> SekigaharaGame {
    sdk::testing::new_game::<Sekigahara>(2, map, &[], table)
}

use sdk::{Event, Game};
use sekigahara::state::{Place, State, Step};

pub use sdk::testing::choice_ids;

/// A position on the small board: every block in its bag, no cards in hand, week 1, seat 0
/// first and about to choose its movement level.
pub fn empty_position(seed: u64) -> (SekigaharaGame, SeededTable) {
    let mut table = table(seed);
    let mut game = new_game(SMALL, &mut table);
    let state = &mut game.state;
    for block in &mut state.blocks {
        if block.place != Place::Box {
            block.place = Place::Bag;
        }
    }
    for side in 0..2 {
        let cards: Vec<usize> = state.hands[side].drain(..).map(|h| h.card).collect();
        state.decks[side].extend(cards);
    }
    state.first = 0;
    state.phase = 0;
    sekigahara::engine::start_movement(state);
    sekigahara::engine::update_control(state, &mut Log::new());
    (game, table)
}

pub fn area(state: &State, id: &str) -> usize {
    state
        .board
        .area_index(id)
        .unwrap_or_else(|| panic!("no area {id}"))
}

pub fn block(state: &State, id: &str) -> usize {
    state
        .board
        .block_index(id)
        .unwrap_or_else(|| panic!("no block {id}"))
}

/// Puts blocks in an area.
pub fn put(state: &mut State, ids: &[&str], place: &str) {
    let a = area(state, place);
    for id in ids {
        let b = block(state, id);
        state.blocks[b].place = Place::Area(a);
    }
    sekigahara::engine::update_control(state, &mut Log::new());
}

/// Puts blocks in their side's reinforcement box.
pub fn reserve(state: &mut State, ids: &[&str]) {
    for id in ids {
        let b = block(state, id);
        state.blocks[b].place = Place::Reserve;
    }
}

/// Gives a side cards from its deck: the first of each (clan id or "challenge", kind) asked.
pub fn give(state: &mut State, side: usize, wanted: &[(&str, &str)]) -> Vec<usize> {
    let mut given = Vec::new();
    for (clan, kind) in wanted {
        let i = state.decks[side]
            .iter()
            .position(|&c| {
                let def = &state.board.cards[c];
                let clan_ok = match def.clan {
                    None => *clan == "challenge",
                    Some(k) => state.board.clans[k].id == *clan,
                };
                let kind_ok = format!("{:?}", def.kind).to_lowercase() == kind.replace('-', "");
                clan_ok && kind_ok
            })
            .unwrap_or_else(|| panic!("no {clan} {kind} card left"));
        let card = state.decks[side].swap_remove(i);
        state.hands[side].push(sekigahara::state::HandCard { card, known: false });
        given.push(card);
    }
    given
}

/// Answers the seat's decision with the choices of these ids.
pub fn answer(
    game: &mut SekigaharaGame,
    table: &mut SeededTable,
    seat: u32,
    ids: &[&str],
) -> Vec<Event> {
    let action = sdk::testing::pick(game, seat, ids);
    game.apply(seat, &action, table)
        .unwrap_or_else(|e| panic!("refused: {e:?}"))
}

pub fn card_id(card: usize) -> String {
    format!("card-{card}")
}

pub fn block_id(state: &State, id: &str) -> String {
    format!("block-{}", block(state, id))
}

pub fn is_step(state: &State, step: &Step) -> bool {
    std::mem::discriminant(&state.step) == std::mem::discriminant(step)
}
