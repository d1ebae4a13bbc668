//! Properties of the SDK's action-shape checks (`check_action_shape`, `check_draft_shape`,
//! `check_answer`),
//! which stand between every client's answer and every ruleset: over decisions and actions of
//! any shape, they never panic, accept exactly the answers the contract allows, and accept every
//! answer `random_action` makes (what random bots send).

use proptest::prelude::*;
use sdk::{
    Action, AssignDecision, AssignItem, AssignSlot, Choice, ChooseDecision, CubeCount,
    DecisionKind, LogLevel, Message, NumberDecision, PendingDecision, Rejection, Table, TowerShelf,
    check_action_shape, check_answer, check_draft_shape, random_action,
};

/// A table whose random numbers are drawn by proptest, so a failing case shrinks.
struct DrawnTable {
    draws: Vec<u64>,
    next: usize,
}

impl Table for DrawnTable {
    fn next_u64(&mut self) -> u64 {
        let draw = self.draws.get(self.next % self.draws.len().max(1)).copied();
        self.next += 1;
        draw.unwrap_or(0)
    }

    fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }

    fn configure_tower(&mut self, _shelves: &[TowerShelf]) -> Result<(), String> {
        Ok(())
    }

    fn drop_cubes(&mut self, cubes: &[CubeCount]) -> Vec<CubeCount> {
        cubes.to_vec()
    }

    fn log(&mut self, _level: LogLevel, _line: &str) {}
}

fn label() -> Message {
    Message::new("label")
}

fn choose_decision() -> impl Strategy<Value = ChooseDecision> {
    (0usize..6, 0u32..5, 0u32..5).prop_map(|(choices, min, extra)| ChooseDecision {
        choices: (0..choices)
            .map(|index| Choice::new(index.to_string(), label()))
            .collect(),
        min,
        max: min + extra,
    })
}

fn number_decision() -> impl Strategy<Value = NumberDecision> {
    (any::<i64>(), any::<i64>()).prop_map(|(a, b)| NumberDecision {
        min: a.min(b),
        max: a.max(b),
    })
}

fn assign_decision() -> impl Strategy<Value = AssignDecision> {
    (
        0usize..5,
        prop::collection::vec(prop::collection::vec(0u32..6, 0..3), 0..5),
        0u32..4,
    )
        .prop_map(|(items, slots, min_placements)| AssignDecision {
            items: (0..items)
                .map(|index| AssignItem {
                    id: index.to_string(),
                    label: label(),
                })
                .collect(),
            slots: slots
                .into_iter()
                .enumerate()
                .map(|(index, accepts)| AssignSlot {
                    id: index.to_string(),
                    label: label(),
                    accepts,
                })
                .collect(),
            min_placements,
        })
}

fn decision() -> impl Strategy<Value = DecisionKind> {
    prop_oneof![
        choose_decision().prop_map(DecisionKind::Choose),
        number_decision().prop_map(DecisionKind::Number),
        assign_decision().prop_map(DecisionKind::Assign),
    ]
}

/// Actions of every kind, with indices a little past what the decisions have and sometimes far
/// past (a hostile client's `u32::MAX`).
fn action() -> impl Strategy<Value = Action> {
    let index = prop_oneof![8 => 0u32..8, 1 => Just(u32::MAX)];
    prop_oneof![
        prop::collection::vec(index.clone(), 0..6).prop_map(Action::Choose),
        any::<i64>().prop_map(Action::Number),
        prop::collection::vec((index.clone(), index), 0..6).prop_map(Action::Assign),
        Just(Action::Back),
    ]
}

fn distinct<T: PartialEq>(values: &[T]) -> bool {
    values
        .iter()
        .enumerate()
        .all(|(i, value)| !values[..i].contains(value))
}

/// What the contract allows, written from its text rather than from the SDK's code: whether
/// `action` answers `decision`, counting the minimum only for a complete answer.
fn allowed(decision: &DecisionKind, action: &Action, complete: bool) -> bool {
    match (decision, action) {
        (DecisionKind::Choose(choose), Action::Choose(picks)) => {
            let count = picks.len() as u32;
            (!complete || count >= choose.min)
                && count <= choose.max
                && picks
                    .iter()
                    .all(|&pick| (pick as usize) < choose.choices.len())
                && distinct(picks)
        }
        (DecisionKind::Number(range), Action::Number(n)) => (range.min..=range.max).contains(n),
        (DecisionKind::Assign(assign), Action::Assign(placements)) => {
            let slots: Vec<u32> = placements.iter().map(|(slot, _)| *slot).collect();
            let items: Vec<u32> = placements.iter().map(|(_, item)| *item).collect();
            (!complete || placements.len() as u32 >= assign.min_placements)
                && placements.iter().all(|&(slot, item)| {
                    (item as usize) < assign.items.len()
                        && assign
                            .slots
                            .get(slot as usize)
                            .is_some_and(|spec| spec.accepts(item))
                })
                && distinct(&slots)
                && distinct(&items)
        }
        _ => false,
    }
}

/// Whether some answer to `decision` is complete (a random bot can only be asked to answer
/// those).
fn answerable(decision: &DecisionKind) -> bool {
    match decision {
        DecisionKind::Choose(choose) => choose.min as usize <= choose.choices.len(),
        DecisionKind::Number(_) => true,
        // Whether a matching of `min_placements` exists: small enough to try every plan.
        DecisionKind::Assign(assign) => {
            fn best(assign: &AssignDecision, slot: usize, used: &mut Vec<bool>) -> u32 {
                if slot == assign.slots.len() {
                    return 0;
                }
                let mut most = best(assign, slot + 1, used);
                for item in 0..assign.items.len() {
                    if !used[item] && assign.slots[slot].accepts(item as u32) {
                        used[item] = true;
                        most = most.max(1 + best(assign, slot + 1, used));
                        used[item] = false;
                    }
                }
                most
            }
            best(assign, 0, &mut vec![false; assign.items.len()]) >= assign.min_placements
        }
    }
}

proptest! {
    #[test]
    fn a_complete_answer_is_accepted_exactly_when_the_contract_allows_it(
        decision in decision(),
        action in action(),
    ) {
        let checked = check_action_shape(&decision, &action);
        prop_assert_eq!(checked.is_ok(), allowed(&decision, &action, true), "{:?}", checked);
        if let Err(rejection) = checked {
            // A shape error is the client's: always `malformed`, never blamed on the turn.
            prop_assert!(matches!(rejection, Rejection::Malformed(_)));
        }
    }

    #[test]
    fn a_draft_is_accepted_exactly_when_only_the_minimum_is_missing(
        decision in decision(),
        action in action(),
    ) {
        let checked = check_draft_shape(&decision, &action);
        prop_assert_eq!(checked.is_ok(), allowed(&decision, &action, false), "{:?}", checked);
        // Whatever is complete is also a fine draft.
        if check_action_shape(&decision, &action).is_ok() {
            prop_assert!(checked.is_ok());
        }
    }

    #[test]
    fn back_is_accepted_exactly_where_the_decision_offers_it(
        kind in decision(),
        action in action(),
        offers_back in any::<bool>(),
    ) {
        let decision = PendingDecision {
            seat: 0,
            prompt: label(),
            kind: kind.clone(),
            private: false,
            back: offers_back.then(|| Message::new("back.target")),
        };
        let checked = check_answer(&decision, &action);
        let expected = if action == Action::Back {
            offers_back
        } else {
            allowed(&kind, &action, true)
        };
        prop_assert_eq!(checked.is_ok(), expected, "{:?}", checked);
        if let Err(rejection) = checked {
            prop_assert!(matches!(rejection, Rejection::Malformed(_)));
        }
    }

    #[test]
    fn a_random_answer_always_fits_its_decision(
        decision in decision().prop_filter("has a complete answer", answerable),
        draws in prop::collection::vec(any::<u64>(), 1..32),
    ) {
        let mut table = DrawnTable { draws, next: 0 };
        let action = random_action(&decision, &mut table);
        prop_assert_eq!(check_action_shape(&decision, &action), Ok(()), "{:?}", action);
    }
}
