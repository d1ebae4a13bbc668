//! A seat's answer as a typed move: decoded once from the contract's [`Action`](sdk::Action), and the choice
//! ids of every pending decision built from the same enum, so the two cannot drift.
//!
//! The contract carries answers as indices into the choices a decision offered; the ids of those
//! choices are what a client, a stored game and a test see. [`Move::choice_id`] writes an id,
//! [`Move::decode`] (beside the decisions, in [`crate::decide`]) reads the answer back through
//! the choices the pending decision offered, and checks that the move it found writes that same
//! id again.

use sdk::{Choice, Message};

use crate::data::{Board, ProvinceId};
use crate::state::{Phase, Plan, Stage, State};

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
    /// answered by a choice (a plan, a count, going back).
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
            Move::Plan(_) | Move::Armies(_) | Move::Back => return None,
        })
    }

    /// The choice that answers with this move, shown with `label`.
    pub fn choice(&self, board: &Board, label: Message) -> Choice {
        Choice::new(self.choice_id(board).unwrap_or_default(), label)
    }

    /// The move a choice id names in the game's current phase and stage.
    pub(crate) fn from_choice_id(state: &State, id: &str) -> Option<Move> {
        let province = || {
            id.strip_prefix("province:")
                .and_then(|name| state.board.province_by_id(name))
        };
        let bonus = || match id {
            "bonus:take" => Some(Move::Bonus(true)),
            "bonus:decline" => Some(Move::Bonus(false)),
            _ => None,
        };
        match &state.phase {
            Phase::Draft => {
                if id == "blind" {
                    Some(Move::Take(DraftTake::Blind))
                } else if let Some(i) = id.strip_prefix("face-up:") {
                    i.parse().ok().map(|i| Move::Take(DraftTake::FaceUp(i)))
                } else {
                    id.strip_prefix("group:")?.parse().ok().map(Move::Group)
                }
            }
            Phase::Specials { .. } => {
                let space: usize = id.strip_prefix("space:")?.parse().ok()?;
                space.checked_sub(1).map(Move::TakeSpecial)
            }
            Phase::Actions { stage, .. } => match stage {
                Stage::MoveTarget { .. } if id == "no-move" => Some(Move::NoMove),
                Stage::MoveTarget { .. } => province().map(Move::MoveTo),
                Stage::BattleTarget { .. } => province().map(Move::Target),
                Stage::RecruitBonus { .. }
                | Stage::AttackBonus { .. }
                | Stage::DefenceBonus { .. } => bonus(),
                Stage::Ready | Stage::MoveCount { .. } | Stage::BattleCount { .. } => None,
            },
            Phase::Winter { .. } => province().map(Move::Revolt),
            Phase::Planning | Phase::Over => None,
        }
    }
}
