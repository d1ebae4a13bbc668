//! What the rules report: typed outcomes, one per step a player can follow. The rules
//! ([`crate::engine`], [`crate::decide`]) say *what* happened; [`crate::tell`] alone says it in
//! words (catalogue messages).

use sdk::Seat;

use crate::data::Colour;
use crate::state::{Layer, ScoreSheet, Square};

/// One thing that happened, in the terms of the rules: seats, cards, squares and counts; no
/// text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A seat played a card into the trick.
    CardPlayed { seat: Seat, card: u8 },
    /// A seat put a resource on the card it played, which now counts `value` in the trick.
    ResourcePlayed {
        seat: Seat,
        colour: Colour,
        value: u32,
    },
    /// A seat put no resource on the card it played.
    NoResource { seat: Seat, card: u8 },
    /// The trick is complete: the new player order starts with `first`.
    NewOrder { first: Seat },
    /// A seat took a card from the trick.
    CardTaken { seat: Seat, card: u8 },
    /// 2 players: a seat chose its duel card; only it learns which.
    DuelCommitted { seat: Seat, card: u8 },
    /// 2 players: both duel cards shown (seat 0's first), and who won.
    DuelRevealed { cards: [u8; 2], winner: Seat },
    /// 2 players: the duel's loser answered whether it pays the fee.
    FeeAnswered { seat: Seat, winner: Seat, pay: bool },
    /// 2 players: the loser paid the fee.
    FeePaid { seat: Seat },
    /// 2 players: a seat took a pair of cards.
    PairTaken { seat: Seat, cards: [u8; 2] },
    /// 2 players: a seat chose the card it keeps, not yet shown.
    KeepChosen { seat: Seat },
    /// 2 players: a seat keeps `card` and discards the other of its pair.
    Kept { seat: Seat, card: u8, discarded: u8 },
    /// A placement went back one step.
    PlacingBack { seat: Seat, card: u8 },
    /// A placement turned the card this many quarter turns.
    PlacingRotated { seat: Seat, card: u8, rotation: u8 },
    /// A placement chose the card's top-left square.
    PlacingPosition {
        seat: Seat,
        card: u8,
        origin: Square,
    },
    /// A seat laid its card, with what that did to the resources.
    Placed {
        seat: Seat,
        card: u8,
        layer: Layer,
        resources: PlacementOutcome,
    },
    /// A seat's card fits nowhere and is discarded.
    Unplaceable { seat: Seat, card: u8 },
    /// New hands were dealt.
    NewHands,
    /// Every hand went `step` seats on (1: to the left).
    HandsPassed { step: u32 },
    /// A new round began.
    Round { round: u8 },
    /// The game was scored, one sheet per seat, and is over.
    Scored { sheets: Vec<ScoreSheet> },
}

/// What placing a card did to the resources.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlacementOutcome {
    /// Resources put on the new production squares.
    pub gained: Vec<Colour>,
    /// New production squares left empty because the pool ran out of their colour.
    pub short: Vec<Colour>,
    /// Resources covered and so returned to the pool.
    pub discarded: Vec<Colour>,
}

/// What the rules report during one call: the outcomes in order, and the events that tell them
/// (worded by [`crate::tell`], through `sdk::Tell`).
pub type Log = sdk::Log<Outcome>;
