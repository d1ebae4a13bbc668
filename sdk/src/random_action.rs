//! A random legal answer to any decision: what a random bot plays, and what property tests use
//! to drive a ruleset through thousands of games.

use crate::{Action, AssignDecision, DecisionKind, Table, TableExt};

/// A uniformly chosen legal action for a decision of any kind.
///
/// - `choose`: a random number of picks between `min` and `max`, then that many distinct choices.
/// - `number`: a uniform number in the range.
/// - `assign`: as many placements as the slots and items allow (a maximum matching built in a
///   random order), so the answer always meets `min_placements` when any answer can.
pub fn random_action(kind: &DecisionKind, table: &mut dyn Table) -> Action {
    match kind {
        DecisionKind::Choose(choose) => {
            let available = choose.choices.len() as u32;
            let max = choose.max.min(available);
            let min = choose.min.min(max);
            let count = min + table.below(u64::from(max - min) + 1) as u32;
            let mut indices: Vec<u32> = (0..available).collect();
            // A partial Fisher-Yates: the first `count` entries end up a uniform sample.
            for i in 0..count as usize {
                let j = i + table.pick_index(indices.len() - i);
                indices.swap(i, j);
            }
            indices.truncate(count as usize);
            Action::Choose(indices)
        }
        DecisionKind::Number(range) => {
            let span = range.max.abs_diff(range.min);
            let offset = if span == u64::MAX {
                table.next_u64()
            } else {
                table.below(span + 1)
            };
            Action::Number(range.min.wrapping_add(offset as i64))
        }
        DecisionKind::Assign(assign) => Action::Assign(random_matching(assign, table)),
    }
}

/// A maximum matching of slots to items (Kuhn's augmenting paths), with slots and candidate
/// items visited in random order so every maximal plan can come up.
fn random_matching(assign: &AssignDecision, table: &mut dyn Table) -> Vec<(u32, u32)> {
    let items = assign.items.len();
    let mut slot_order: Vec<usize> = (0..assign.slots.len()).collect();
    table.shuffle(&mut slot_order);
    let candidates: Vec<Vec<usize>> = assign
        .slots
        .iter()
        .map(|slot| {
            let mut list: Vec<usize> = (0..items).filter(|&i| slot.accepts(i as u32)).collect();
            table.shuffle(&mut list);
            list
        })
        .collect();
    let mut slot_of_item: Vec<Option<usize>> = vec![None; items];
    for &slot in &slot_order {
        let mut visited = vec![false; items];
        augment(slot, &candidates, &mut slot_of_item, &mut visited);
    }
    let mut placements: Vec<(u32, u32)> = slot_of_item
        .iter()
        .enumerate()
        .filter_map(|(item, slot)| slot.map(|slot| (slot as u32, item as u32)))
        .collect();
    placements.sort_unstable();
    placements
}

fn augment(
    slot: usize,
    candidates: &[Vec<usize>],
    slot_of_item: &mut [Option<usize>],
    visited: &mut [bool],
) -> bool {
    for &item in &candidates[slot] {
        if visited[item] {
            continue;
        }
        visited[item] = true;
        let free = match slot_of_item[item] {
            None => true,
            Some(other) => augment(other, candidates, slot_of_item, visited),
        };
        if free {
            slot_of_item[item] = Some(slot);
            return true;
        }
    }
    false
}
