//! Sekigahara for 2 players: a card-driven block wargame of 1600.
pub mod data;
