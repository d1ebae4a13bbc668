//! `random_action` answers every decision with an action of its shape, and can pick any choice.
#![cfg(feature = "testing")]

use sdk::testing::SeededTable;
use sdk::{
    Action, AssignDecision, AssignItem, AssignSlot, Choice, ChooseDecision, DecisionKind, Message,
    NumberDecision, check_action_shape, random_action,
};

fn item(i: u32) -> AssignItem {
    AssignItem {
        id: format!("item-{i}"),
        label: Message::new("item"),
    }
}

#[test]
fn every_random_action_fits_its_decision() {
    let mut table = SeededTable::new([9; 32]);
    let decisions = [
        DecisionKind::Choose(ChooseDecision {
            choices: (0..6)
                .map(|i| Choice::new(i.to_string(), Message::new("c")))
                .collect(),
            min: 1,
            max: 3,
        }),
        DecisionKind::Number(NumberDecision { min: -3, max: 4 }),
        DecisionKind::Number(NumberDecision {
            min: i64::MIN,
            max: i64::MAX,
        }),
        // A tight assignment: slot 0 accepts only item 2, slot 1 only items 2 and 3, so a greedy
        // fill in the wrong order would strand slot 0.
        DecisionKind::Assign(AssignDecision {
            items: (0..4).map(item).collect(),
            slots: vec![
                AssignSlot {
                    id: "a".into(),
                    label: Message::new("s"),
                    accepts: vec![2],
                },
                AssignSlot {
                    id: "b".into(),
                    label: Message::new("s"),
                    accepts: vec![2, 3],
                },
                AssignSlot {
                    id: "c".into(),
                    label: Message::new("s"),
                    accepts: vec![],
                },
            ],
            min_placements: 3,
        }),
    ];
    for _ in 0..500 {
        for decision in &decisions {
            let action = random_action(decision, &mut table);
            assert_eq!(
                check_action_shape(decision, &action),
                Ok(()),
                "{action:?} for {decision:?}"
            );
        }
    }
}

#[test]
fn choose_covers_every_choice() {
    let mut table = SeededTable::new([1; 32]);
    let decision = DecisionKind::Choose(ChooseDecision {
        choices: (0..5)
            .map(|i| Choice::new(i.to_string(), Message::new("c")))
            .collect(),
        min: 1,
        max: 1,
    });
    let mut seen = [false; 5];
    for _ in 0..200 {
        let Action::Choose(picks) = random_action(&decision, &mut table) else {
            unreachable!()
        };
        seen[picks[0] as usize] = true;
    }
    assert!(seen.iter().all(|s| *s), "{seen:?}");
}
