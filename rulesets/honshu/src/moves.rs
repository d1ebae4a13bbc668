//! A seat's answer as a typed move. Each choice of a pending decision carries the move it
//! stands for (an `sdk::Offer`, built in [`crate::decide`]), so an answer is read into moves
//! through the offer, never parsed back from an id.
//!
//! The contract carries answers as indices into the choices a decision offered; the ids of those
//! choices are what a client, a stored game and a test see. [`Move::choice_id`] writes an id
//! from the same enum, so the two cannot drift.

use crate::state::{Layer, Pair, Square};

/// One step of placing a card: the rotation, the position (the card's top-left square), then
/// over or under, which is the confirmation. Going back a step is no choice but the decision's
/// way back ([`Move::PlaceBack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Turn the card this many quarter turns clockwise.
    Rotate(u8),
    /// Put the card's top-left square here.
    At(Square),
    /// Lay the card over or under the map: the placement is done.
    Layer(Layer),
}

impl Step {
    /// The choice's id. Written by hand: it is built for every position of every placing seat,
    /// several times per action.
    pub fn id(self) -> String {
        match self {
            Step::Rotate(r) => {
                let mut id = String::with_capacity(8);
                id.push_str("rotate:");
                push_number(&mut id, i64::from(r));
                id
            }
            Step::At((x, y)) => {
                let mut id = String::with_capacity(16);
                id.push_str("at:");
                push_number(&mut id, i64::from(x));
                id.push(',');
                push_number(&mut id, i64::from(y));
                id
            }
            Step::Layer(Layer::Over) => "over".into(),
            Step::Layer(Layer::Under) => "under".into(),
        }
    }
}

/// Appends `n` in decimal, as `format!("{n}")` writes it.
fn push_number(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &digit in &digits[at..] {
        out.push(char::from(digit));
    }
}

/// One seat's answer to its pending decision, in the terms of the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Move {
    /// A trick of 3-5, or a duel of 2: play this card from the hand.
    Play(u8),
    /// A trick of 3-5: put the resource on this square on the card just played, or none.
    Resource(Option<Square>),
    /// After a trick of 3-5: take this card from it.
    Take(u8),
    /// 2 players: whether the duel's loser pays the fee to choose the pair.
    Fee(bool),
    /// 2 players: pay the fee with the resources on these two squares (each choice written as
    /// [`Move::Resource`] writes its square).
    PayFee(Vec<Square>),
    /// 2 players: the pair the chooser takes.
    Pair(Pair),
    /// 2 players: the card of its pair a seat keeps.
    Keep(u8),
    /// A step of placing the card taken.
    Place(Step),
    /// Undo the last step of placing the card taken (the decision's way back).
    PlaceBack,
}

impl Move {
    /// The id of the choice that answers with this move; `None` for a fee paid, which is two
    /// choices, and for going back, which is none.
    pub fn choice_id(&self) -> Option<String> {
        Some(match self {
            Move::Play(card) | Move::Take(card) | Move::Keep(card) => format!("card:{card}"),
            Move::Resource(None) => "resource:none".into(),
            Move::Resource(Some((x, y))) => format!("resource:{x},{y}"),
            Move::Fee(true) => "fee:pay".into(),
            Move::Fee(false) => "fee:decline".into(),
            Move::Pair(Pair::Revealed) => "pair:revealed".into(),
            Move::Pair(Pair::Played) => "pair:played".into(),
            Move::Place(step) => step.id(),
            Move::PayFee(_) | Move::PlaceBack => return None,
        })
    }
}
