//! A seat's answer as a typed move. Each choice of a pending decision carries the move it
//! stands for (an `sdk::Offer`, built in [`crate::decide`]), so an answer is read into moves
//! through the offer, never parsed back from an id.
//!
//! The contract carries answers as indices into the choices a decision offered; the ids of those
//! choices are what a client, a stored game and a test see. [`Move::choice_id`] writes an id
//! from the same enum, so the two cannot drift.

use sdk::{Choice, Message};

use crate::data::{Board, ProvinceId};
use crate::state::{CardRef, Plan};

/// Which province card a seat takes in the draft.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DraftTake {
    /// The face-up card at this index (0 or 1).
    FaceUp(usize),
    /// The top card of the deck, unseen.
    Blind,
}

/// One seat's answer to its pending decision, in the terms of the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Move {
    /// The draft: take a province card.
    Take(DraftTake),
    /// The draft: place a group of this many armies on the card just taken.
    Group(u32),
    /// Planning: the seat's secret plan.
    Plan(Plan),
    /// Planning: a card of the seat's hand, placed into a slot (an item of the planning offer;
    /// the placed cards make the [`Move::Plan`]).
    Card(CardRef),
    /// The specials: take the special card on this space (counted from 0).
    TakeSpecial(usize),
    /// Deploy/Move 1: move armies on to this own province.
    MoveTo(ProvinceId),
    /// Deploy/Move 1: leave the armies where they were deployed.
    NoMove,
    /// Battle/Move: send armies to this province (a move into an own one, else a battle).
    Target(ProvinceId),
    /// After a target: how many armies go.
    Armies(u32),
    /// Whether to use the special card's bonus (armies deployed, attack or defence cube).
    Bonus(bool),
    /// Winter: the province whose revolt comes next.
    Revolt(ProvinceId),
    /// From the count back to the choice of a target.
    Back,
}

impl Move {
    /// The id of the choice that answers with this move; `None` for the moves that are not
    /// answered by a choice (a plan and its cards, a count, going back).
    pub fn choice_id(&self, board: &Board) -> Option<String> {
        Some(match self {
            Move::Take(DraftTake::FaceUp(i)) => format!("face-up:{i}"),
            Move::Take(DraftTake::Blind) => "blind".into(),
            Move::Group(armies) => format!("group:{armies}"),
            Move::TakeSpecial(space) => format!("space:{}", space + 1),
            Move::MoveTo(p) | Move::Target(p) | Move::Revolt(p) => {
                format!("province:{}", board.provinces[*p].id)
            }
            Move::NoMove => "no-move".into(),
            Move::Bonus(true) => "bonus:take".into(),
            Move::Bonus(false) => "bonus:decline".into(),
            Move::Plan(_) | Move::Card(_) | Move::Armies(_) | Move::Back => return None,
        })
    }

    /// The choice that answers with this move, shown with `label`.
    pub fn choice(&self, board: &Board, label: Message) -> Choice {
        Choice::new(self.choice_id(board).unwrap_or_default(), label)
    }
}
