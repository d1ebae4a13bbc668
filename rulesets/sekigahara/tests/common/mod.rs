//! Shared helpers: the small test board, new games, random play.
#![allow(dead_code, reason = "each test file uses a part of the helpers")]

use sdk::testing::SeededTable;
use sdk::{OptionSetting, OptionValue, Options, Ruleset, Setup};
use sekigahara::{Sekigahara, SekigaharaGame};

pub const SMALL: &str = include_str!("../maps/small.toml");

pub fn table(seed: u64) -> SeededTable {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    SeededTable::new(bytes)
}

pub fn options(settings: &[(&str, OptionValue)]) -> Options {
    let settings: Vec<OptionSetting> = settings
        .iter()
        .map(|(name, value)| OptionSetting {
            name: (*name).to_string(),
            value: value.clone(),
        })
        .collect();
    Options::resolve(&Sekigahara::info().options, &settings).expect("options fit")
}

pub fn new_game(map: &str, table: &mut SeededTable) -> SekigaharaGame {
    let setup = Setup {
        map: map.to_string(),
        options: Vec::new(),
        seats: 2,
    };
    Sekigahara::create(&setup, &options(&[]), table).expect("the board reads")
}
