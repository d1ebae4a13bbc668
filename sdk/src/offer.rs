//! Decisions built once, answers decoded once: each choice of a pending decision paired with the
//! ruleset's own move.
//!
//! A ruleset that implements [`Play`] says what each seat is offered as [`Offer`]s, each choice
//! carrying the move (the ruleset's type `M`) it stands for. The SDK turns an offer into the
//! contract's [`PendingDecision`] and reads an [`Action`] back into an [`Answer`] of moves: the
//! shape is checked once and the picked indices become moves, so the rules never parse a choice
//! id and never build their decisions a second time to apply an answer.
//!
//! The wire and the stored games are unchanged: actions still pick choices by index, so a ruleset
//! that moves to offers keeps replaying its stored games as long as it offers its choices in the
//! same order.

use crate::{
    Action, AssignDecision, Choice, ChooseDecision, DecisionKind, Event, Message, NumberDecision,
    PendingDecision, Rejection, Seat, Table, check_answer, check_draft_shape,
};

/// What a seat is asked, with the rules' own move behind each possible answer.
#[derive(Clone, Debug)]
pub struct Offer<M> {
    /// Who decides.
    pub seat: Seat,
    /// What is asked.
    pub prompt: Message,
    /// Whether answering shows the seat what others may not see (see [`PendingDecision`]).
    pub private: bool,
    /// The way back to the step before, when there is one: its label and the move it means.
    pub back: Option<(Message, M)>,
    /// How it is answered, and the move of each answer.
    pub kind: OfferKind<M>,
}

/// The shape of an [`Offer`], with its moves.
#[derive(Clone, Debug)]
pub enum OfferKind<M> {
    /// Pick between `min` and `max` of the listed choices; each stands for its move.
    Choose {
        choices: Vec<(Choice, M)>,
        min: u32,
        max: u32,
    },
    /// Pick a number in the range; `to_move` says which move it is.
    Number {
        range: NumberDecision,
        to_move: fn(i64) -> M,
    },
    /// Place items into slots; `items[i]` is the move of placing the decision's item `i`.
    Assign {
        decision: AssignDecision,
        items: Vec<M>,
    },
}

/// A seat's answer read through its [`Offer`]: the moves it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer<M> {
    /// The moves of the picked choices, in the order they were picked.
    Chosen(Vec<M>),
    /// The move of the number given.
    Number(M),
    /// (slot index, move of the item placed there), in the order they were placed.
    Assigned(Vec<(u32, M)>),
    /// The move of the way back.
    Back(M),
}

impl<M> Answer<M> {
    /// The single move of an answer that picked exactly one choice, gave a number or went
    /// back; `None` for any other answer.
    pub fn single(self) -> Option<M> {
        match self {
            Answer::Chosen(mut moves) if moves.len() == 1 => moves.pop(),
            Answer::Number(m) | Answer::Back(m) => Some(m),
            _ => None,
        }
    }

    /// Every move of the answer in order: the picked choices, the number's, the placed items'
    /// (without their slots) or the way back's.
    pub fn into_moves(self) -> Vec<M> {
        match self {
            Answer::Chosen(moves) => moves,
            Answer::Number(m) | Answer::Back(m) => vec![m],
            Answer::Assigned(placed) => placed.into_iter().map(|(_, m)| m).collect(),
        }
    }
}

impl<M> Offer<M> {
    /// A public offer of `seat`, with no way back.
    pub fn public(seat: Seat, prompt: Message, kind: OfferKind<M>) -> Self {
        Offer {
            seat,
            prompt,
            private: false,
            back: None,
            kind,
        }
    }

    /// A public offer of `seat` to pick between `min` and `max` of `choices`.
    pub fn choose(
        seat: Seat,
        prompt: Message,
        choices: Vec<(Choice, M)>,
        min: u32,
        max: u32,
    ) -> Self {
        Offer::public(seat, prompt, OfferKind::Choose { choices, min, max })
    }

    /// A public offer of `seat` to pick exactly one of `choices`.
    pub fn choose_one(seat: Seat, prompt: Message, choices: Vec<(Choice, M)>) -> Self {
        Self::choose(seat, prompt, choices, 1, 1)
    }

    /// A public offer of `seat` to give a number in `range`, read by `to_move`.
    pub fn number(
        seat: Seat,
        prompt: Message,
        range: NumberDecision,
        to_move: fn(i64) -> M,
    ) -> Self {
        Offer::public(seat, prompt, OfferKind::Number { range, to_move })
    }

    /// A public offer of `seat` to place items into slots; `items[i]` is the move of the
    /// decision's item `i`, so there must be one per item.
    pub fn assign(seat: Seat, prompt: Message, decision: AssignDecision, items: Vec<M>) -> Self {
        debug_assert_eq!(decision.items.len(), items.len(), "one move per item");
        Offer::public(seat, prompt, OfferKind::Assign { decision, items })
    }

    /// The same offer, private or public.
    pub fn private(mut self, private: bool) -> Self {
        self.private = private;
        self
    }

    /// The same offer with a way back, labelled `label`, that answers with `to`.
    pub fn with_back(mut self, label: Message, to: M) -> Self {
        self.back = Some((label, to));
        self
    }

    /// The listed choices with their moves; empty for a number or an assignment.
    pub fn choices(&self) -> &[(Choice, M)] {
        match &self.kind {
            OfferKind::Choose { choices, .. } => choices,
            _ => &[],
        }
    }

    /// The listed choices with their moves, taken out of the offer; empty for a number or an
    /// assignment.
    pub fn into_choices(self) -> Vec<(Choice, M)> {
        match self.kind {
            OfferKind::Choose { choices, .. } => choices,
            _ => Vec::new(),
        }
    }

    /// The fewest and most picks of a choose offer; `None` for a number or an assignment.
    pub fn picks(&self) -> Option<(u32, u32)> {
        match &self.kind {
            OfferKind::Choose { min, max, .. } => Some((*min, *max)),
            _ => None,
        }
    }

    /// The contract's form of the offer, what clients see.
    pub fn decision(&self) -> PendingDecision {
        PendingDecision {
            seat: self.seat,
            prompt: self.prompt.clone(),
            kind: match &self.kind {
                OfferKind::Choose { choices, min, max } => DecisionKind::Choose(ChooseDecision {
                    choices: choices.iter().map(|(choice, _)| choice.clone()).collect(),
                    min: *min,
                    max: *max,
                }),
                OfferKind::Number { range, .. } => DecisionKind::Number(*range),
                OfferKind::Assign { decision, .. } => DecisionKind::Assign(decision.clone()),
            },
            private: self.private,
            back: self.back.as_ref().map(|(label, _)| label.clone()),
        }
    }

    /// The contract's form of the offer, without copying its texts.
    pub fn into_decision(self) -> PendingDecision {
        PendingDecision {
            seat: self.seat,
            prompt: self.prompt,
            kind: match self.kind {
                OfferKind::Choose { choices, min, max } => DecisionKind::Choose(ChooseDecision {
                    choices: choices.into_iter().map(|(choice, _)| choice).collect(),
                    min,
                    max,
                }),
                OfferKind::Number { range, .. } => DecisionKind::Number(range),
                OfferKind::Assign { decision, .. } => DecisionKind::Assign(decision),
            },
            private: self.private,
            back: self.back.map(|(label, _)| label),
        }
    }

    /// Checks that `action` answers this offer (as [`check_answer`] does the contract's form)
    /// and reads it into the moves it picks, consuming the offer so no move is copied.
    pub fn into_answer(self, action: &Action) -> Result<Answer<M>, Rejection> {
        self.read(action, Completeness::Complete)
    }

    /// Reads an answer still being composed, as [`Game::preview`](crate::Game::preview) gets
    /// it: as [`Offer::into_answer`], except that it may pick or place fewer than the minimum
    /// (checked by [`check_draft_shape`]).
    pub fn into_draft_answer(self, action: &Action) -> Result<Answer<M>, Rejection> {
        self.read(action, Completeness::Draft)
    }

    fn read(self, action: &Action, completeness: Completeness) -> Result<Answer<M>, Rejection> {
        let back = self.back.map(|(label, to)| (Some(label), Some(to)));
        let (back_label, back_move) = back.unwrap_or((None, None));
        let (kind, moves) = match self.kind {
            OfferKind::Choose { choices, min, max } => {
                let (choices, moves) = choices.into_iter().unzip();
                let choose = ChooseDecision { choices, min, max };
                (DecisionKind::Choose(choose), Moves::Listed(moves))
            }
            OfferKind::Number { range, to_move } => {
                (DecisionKind::Number(range), Moves::Number(to_move))
            }
            OfferKind::Assign { decision, items } => {
                (DecisionKind::Assign(decision), Moves::Listed(items))
            }
        };
        let decision = PendingDecision {
            seat: self.seat,
            prompt: self.prompt,
            kind,
            private: self.private,
            back: back_label,
        };
        match (completeness, action) {
            (Completeness::Draft, answer) if *answer != Action::Back => {
                check_draft_shape(&decision.kind, action)?;
            }
            _ => check_answer(&decision, action)?,
        }
        Ok(match (moves, action) {
            (_, Action::Back) => Answer::Back(back_move.expect("checked: a way back")),
            (Moves::Number(to_move), Action::Number(n)) => Answer::Number(to_move(*n)),
            (Moves::Listed(moves), Action::Choose(picks)) => {
                let mut moves = moves.into_iter().map(Some).collect::<Vec<_>>();
                // Checked: every pick exists and none is picked twice.
                let mut take = |index: u32| moves[index as usize].take().expect("picked once");
                Answer::Chosen(picks.iter().map(|&pick| take(pick)).collect())
            }
            (Moves::Listed(moves), Action::Assign(placements)) => {
                let mut moves = moves.into_iter().map(Some).collect::<Vec<_>>();
                // Checked: every item exists and none is placed twice.
                let mut take = |index: u32| moves[index as usize].take().expect("placed once");
                Answer::Assigned(
                    placements
                        .iter()
                        .map(|&(slot, item)| (slot, take(item)))
                        .collect(),
                )
            }
            _ => unreachable!("check_answer refuses an action of another shape"),
        })
    }
}

#[derive(Clone, Copy)]
enum Completeness {
    Complete,
    Draft,
}

/// The moves of an offer once its texts went into the contract's form.
enum Moves<M> {
    /// One per choice, or one per assignable item.
    Listed(Vec<M>),
    Number(fn(i64) -> M),
}

impl<M: Clone> Offer<M> {
    /// Checks that `action` answers this offer and reads it into the moves it picks.
    pub fn decode(&self, action: &Action) -> Result<Answer<M>, Rejection> {
        self.clone().into_answer(action)
    }
}

/// A game whose decisions are [`Offer`]s of its own moves. Implement it beside
/// [`Game`](crate::Game) and write [`decided_by_offers!`](crate::decided_by_offers) in the
/// game's `impl sdk::Game` (its `pending` and `apply` then call [`pending`] and [`answer`]):
/// each action builds the offers once and checks its shape once.
pub trait Play {
    /// One choice's meaning, in the terms of the rules.
    type Move;

    /// What each seat is asked now; an empty list means the game is over.
    fn offers(&self) -> Vec<Offer<Self::Move>>;

    /// What `seat` is asked now, if anything. The default looks through [`Play::offers`];
    /// override it when one seat's offer is cheaper to build alone.
    fn offer(&self, seat: Seat) -> Option<Offer<Self::Move>> {
        self.offers().into_iter().find(|offer| offer.seat == seat)
    }

    /// Carries out `seat`'s answer, already checked against its offer and read into moves.
    /// Return [`Rejection::Illegal`] for an answer that breaks a rule; the SDK restores the game.
    fn play(
        &mut self,
        seat: Seat,
        answer: Answer<Self::Move>,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection>;
}

/// The pending decisions of a [`Play`] game, for [`Game::pending`](crate::Game::pending).
pub fn pending<P: Play + ?Sized>(game: &P) -> Vec<PendingDecision> {
    game.offers()
        .into_iter()
        .map(Offer::into_decision)
        .collect()
}

/// Reads `seat`'s action through its offer and plays it, for [`Game::apply`](crate::Game::apply).
pub fn answer<P: Play + ?Sized>(
    game: &mut P,
    seat: Seat,
    action: &Action,
    table: &mut dyn Table,
) -> Result<Vec<Event>, Rejection> {
    let offer = game.offer(seat).ok_or(Rejection::NotYourTurn)?;
    let answer = offer.into_answer(action)?;
    game.play(seat, answer, table)
}

/// Writes [`Game::pending`](crate::Game::pending) and [`Game::apply`](crate::Game::apply) of a
/// game that implements [`Play`], inside its `impl sdk::Game` block, and sets
/// [`Game::APPLY_CHECKS_ANSWERS`](crate::Game::APPLY_CHECKS_ANSWERS): decisions from its offers,
/// answers read through them once.
///
/// A game that wraps its state in a struct, with [`Play`] implemented by the state, names the
/// field: `sdk::decided_by_offers!(state)`.
///
/// ```text
/// impl sdk::Game for MyGame {
///     sdk::decided_by_offers!();
///     // view, render, result, snapshot...
/// }
/// ```
#[macro_export]
macro_rules! decided_by_offers {
    () => {
        $crate::decided_by_offers!(@field);
    };
    ($field:ident) => {
        $crate::decided_by_offers!(@field $field);
    };
    (@field $($field:ident)?) => {
        const APPLY_CHECKS_ANSWERS: bool = true;

        fn pending(&self) -> ::std::vec::Vec<$crate::PendingDecision> {
            $crate::offer::pending(&(*self) $(.$field)?)
        }

        fn apply(
            &mut self,
            seat: $crate::Seat,
            action: &$crate::Action,
            table: &mut dyn $crate::Table,
        ) -> ::std::result::Result<::std::vec::Vec<$crate::Event>, $crate::Rejection> {
            $crate::offer::answer(&mut (*self) $(.$field)?, seat, action, table)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::{Answer, Offer, Play, answer, pending};
    use crate::{
        Action, AssignDecision, AssignItem, AssignSlot, Choice, DecisionKind, Event, Message,
        NumberDecision, Rejection, Seat, Table, check_answer,
    };

    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Move {
        Take(u8),
        Bid(i64),
        Undo,
    }

    fn choice(id: &str) -> Choice {
        Choice::new(id, Message::new(format!("choice.{id}")))
    }

    fn cards() -> Offer<Move> {
        Offer::choose(
            1,
            Message::new("prompt.take"),
            vec![
                (choice("a"), Move::Take(7)),
                (choice("b"), Move::Take(3)),
                (choice("c"), Move::Take(5)),
            ],
            1,
            2,
        )
    }

    #[test]
    fn the_decision_is_the_contract_form_of_the_offer() {
        let decision = cards()
            .private(true)
            .with_back(Message::new("back"), Move::Undo)
            .decision();
        assert_eq!(decision.seat, 1);
        assert!(decision.private);
        assert_eq!(decision.back, Some(Message::new("back")));
        let DecisionKind::Choose(choose) = &decision.kind else {
            panic!("a choose decision");
        };
        assert_eq!(
            choose
                .choices
                .iter()
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert_eq!((choose.min, choose.max), (1, 2));
        assert_eq!(cards().picks(), Some((1, 2)));
        assert_eq!(cards().choices()[2].1, Move::Take(5));
        assert_eq!(cards().into_decision(), cards().decision());
    }

    #[test]
    fn picks_become_moves_in_the_order_picked() {
        assert_eq!(
            cards().decode(&Action::Choose(vec![2, 0])),
            Ok(Answer::Chosen(vec![Move::Take(5), Move::Take(7)]))
        );
        assert_eq!(
            cards().decode(&Action::Choose(vec![1])).map(Answer::single),
            Ok(Some(Move::Take(3)))
        );
    }

    #[test]
    fn a_misshapen_answer_is_refused_as_check_answer_refuses_it() {
        for action in [
            Action::Choose(vec![]),
            Action::Choose(vec![0, 1, 2]),
            Action::Choose(vec![3]),
            Action::Choose(vec![1, 1]),
            Action::Number(1),
            Action::Back,
        ] {
            let refused = cards().decode(&action).expect_err("misshapen");
            assert_eq!(Err(refused), check_answer(&cards().decision(), &action));
        }
    }

    #[test]
    fn numbers_assignments_and_the_way_back_decode_to_their_moves() {
        let bid = Offer::number(
            0,
            Message::new("bid"),
            NumberDecision { min: 1, max: 9 },
            Move::Bid,
        )
        .with_back(Message::new("back"), Move::Undo);
        assert_eq!(
            bid.decode(&Action::Number(4)),
            Ok(Answer::Number(Move::Bid(4)))
        );
        assert_eq!(bid.decode(&Action::Back), Ok(Answer::Back(Move::Undo)));
        assert!(bid.decode(&Action::Number(10)).is_err());
        assert_eq!(
            cards().into_draft_answer(&Action::Choose(vec![])),
            Ok(Answer::Chosen(vec![])),
            "a draft may pick fewer than the minimum"
        );
        assert!(
            cards()
                .into_draft_answer(&Action::Choose(vec![0, 1, 2]))
                .is_err()
        );

        let item = |id: &str| AssignItem {
            id: id.into(),
            label: Message::new(id),
        };
        let decision = AssignDecision {
            items: vec![item("x"), item("y")],
            slots: vec![
                AssignSlot {
                    id: "left".into(),
                    label: Message::new("left"),
                    accepts: Vec::new(),
                },
                AssignSlot {
                    id: "right".into(),
                    label: Message::new("right"),
                    accepts: vec![1],
                },
            ],
            min_placements: 1,
        };
        let place = Offer::assign(
            0,
            Message::new("place"),
            decision,
            vec![Move::Take(1), Move::Take(2)],
        );
        assert_eq!(
            place.decode(&Action::Assign(vec![(1, 1), (0, 0)])),
            Ok(Answer::Assigned(vec![
                (1, Move::Take(2)),
                (0, Move::Take(1))
            ]))
        );
        assert_eq!(
            place
                .decode(&Action::Assign(vec![(0, 1)]))
                .map(Answer::into_moves),
            Ok(vec![Move::Take(2)])
        );
        assert!(
            place.decode(&Action::Assign(vec![(1, 0)])).is_err(),
            "the slot refuses it"
        );
    }

    /// A game that counts how often it builds its offers.
    #[derive(Default)]
    struct Counting {
        built: std::cell::Cell<u32>,
        taken: Vec<Move>,
    }

    impl Play for Counting {
        type Move = Move;
        fn offers(&self) -> Vec<Offer<Move>> {
            self.built.set(self.built.get() + 1);
            vec![cards()]
        }
        fn play(
            &mut self,
            _seat: Seat,
            answer: Answer<Move>,
            _table: &mut dyn Table,
        ) -> Result<Vec<Event>, Rejection> {
            self.taken.extend(answer.into_moves());
            Ok(Vec::new())
        }
    }

    struct NoTable;
    impl Table for NoTable {
        fn next_u64(&mut self) -> u64 {
            unreachable!("no chance in this game")
        }
        fn below(&mut self, _bound: u64) -> u64 {
            unreachable!("no chance in this game")
        }
        fn configure_tower(&mut self, _shelves: &[crate::TowerShelf]) -> Result<(), String> {
            unreachable!("no tower in this game")
        }
        fn drop_cubes(&mut self, _cubes: &[crate::CubeCount]) -> Vec<crate::CubeCount> {
            unreachable!("no tower in this game")
        }
        fn log(&mut self, _level: crate::LogLevel, _line: &str) {}
    }

    #[test]
    fn an_answer_builds_the_offers_once() {
        let mut game = Counting::default();
        assert_eq!(pending(&game).len(), 1);
        game.built.set(0);
        answer(&mut game, 1, &Action::Choose(vec![1]), &mut NoTable).expect("legal");
        assert_eq!(game.built.get(), 1);
        assert_eq!(game.taken, vec![Move::Take(3)]);
        assert_eq!(
            answer(&mut game, 0, &Action::Choose(vec![1]), &mut NoTable),
            Err(Rejection::NotYourTurn)
        );
    }
}
