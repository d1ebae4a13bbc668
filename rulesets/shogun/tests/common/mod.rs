//! Helpers shared by the rule tests: games from position files, answers by choice id, cubes.
#![allow(
    dead_code,
    unused_imports,
    reason = "each test file uses a different part of the helpers"
)]

use sdk::testing::ScriptedTable;
use sdk::{Action, CubeCount, CubeOwner, Event, Game, OptionValue, Options, Ruleset, Setup};
use shogun::data::SUN_MAP;
use shogun::outcome::Outcome;
use shogun::{Shogun, ShogunGame};

pub use sdk::testing::choice_ids;

/// Options of a game: the defaults with `settings` changed.
pub fn options(settings: &[(&str, OptionValue)]) -> Options {
    sdk::testing::options::<Shogun>(settings)
}

/// The option settings of a game on the beginner's setup, or of the standard one.
pub fn setup_options(beginner: bool) -> Vec<(&'static str, OptionValue)> {
    if beginner {
        vec![("setup", OptionValue::Choice("beginner".into()))]
    } else {
        Vec::new()
    }
}

/// The setup of a sun-side game with this many seats.
pub fn setup(seats: u32, map: &str) -> Setup {
    Setup {
        map: map.into(),
        options: Vec::new(),
        seats,
    }
}

/// Reads a position file of `tests/positions`.
pub fn position_text(name: &str) -> String {
    let path = format!("{}/tests/positions/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A sun-side game started from a position text.
pub fn from_text(seats: u32, text: &str, table: &mut ScriptedTable) -> ShogunGame {
    Shogun::create_from_position(&setup(seats, SUN_MAP), &options(&[]), text, table)
        .unwrap_or_else(|e| panic!("position refused: {e}"))
}

/// A sun-side game started from a position file.
pub fn from_file(seats: u32, name: &str, table: &mut ScriptedTable) -> ShogunGame {
    from_text(seats, &position_text(name), table)
}

/// The answer of `seat` that picks the choice with this id.
pub fn choice(game: &ShogunGame, seat: u32, id: &str) -> Action {
    sdk::testing::pick(game, seat, &[id])
}

/// Applies an answer that must be accepted.
pub fn act(
    game: &mut ShogunGame,
    seat: u32,
    action: Action,
    table: &mut ScriptedTable,
) -> Vec<Event> {
    game.apply(seat, &action, table)
        .unwrap_or_else(|e| panic!("refused: {e:?}"))
}

/// Applies an answer that must be accepted; returns what happened, as the rules report it.
pub fn act_told(
    game: &mut ShogunGame,
    seat: u32,
    action: Action,
    table: &mut ScriptedTable,
) -> Vec<Outcome> {
    shogun::decide::play(&mut game.state, seat, &action, table)
        .unwrap_or_else(|e| panic!("refused: {e:?}"))
        .outcomes()
        .to_vec()
}

/// Answers `seat`'s choose decision with the choice of this id; returns what happened.
pub fn pick_told(
    game: &mut ShogunGame,
    seat: u32,
    id: &str,
    table: &mut ScriptedTable,
) -> Vec<Outcome> {
    let action = choice(game, seat, id);
    act_told(game, seat, action, table)
}

/// Cubes of a seat.
pub fn cubes(seat: u32, count: u32) -> CubeCount {
    CubeCount {
        owner: CubeOwner::Seat(seat),
        count,
    }
}

/// Farmer cubes.
pub fn farmers(count: u32) -> CubeCount {
    CubeCount {
        owner: CubeOwner::Neutral("farmer".into()),
        count,
    }
}

/// How many cubes of `owner` a recorded drop put in.
pub fn dropped(table: &ScriptedTable, drop: usize, owner: &CubeOwner) -> u32 {
    table.drops[drop]
        .dropped
        .iter()
        .filter(|c| &c.owner == owner)
        .map(|c| c.count)
        .sum()
}

/// A province's index on the sun side.
pub fn province(game: &ShogunGame, id: &str) -> usize {
    game.state
        .board
        .province_by_id(id)
        .unwrap_or_else(|| panic!("no province {id}"))
}

/// Answers `seat`'s choose decision with the choice of this id.
pub fn pick(game: &mut ShogunGame, seat: u32, id: &str, table: &mut ScriptedTable) -> Vec<Event> {
    let action = choice(game, seat, id);
    act(game, seat, action, table)
}

/// The points of an SVG path made of absolute `M`, `L` and `Q` commands, in order.
pub fn path_points(d: &str) -> Vec<(f32, f32)> {
    d.split(|c: char| c.is_ascii_alphabetic() || c == ' ')
        .filter_map(|pair| {
            let (x, y) = pair.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}
