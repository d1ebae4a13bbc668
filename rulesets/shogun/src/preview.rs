//! What a plan would do before it is sent: its running cost against the chests held and every
//! planned action that the rules would skip as the board stands, with the reason the engine itself
//! would give (the checks are the engine's own, so a preview and the season agree).
//!
//! A preview cannot know the season's event nor what the other seats do before an action runs, so
//! it judges the board and the chests as they are now; its warnings are what the player should look
//! at, not promises. Each province card goes to one space at most, so two actions never name one
//! province.

use sdk::{Message, Seat};

use crate::data::{ActionKind, ProvinceId};
use crate::engine;
use crate::state::{CardRef, Plan, State};

/// How much a note matters (mirrors the contract's note level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// What the plan does.
    Info,
    /// Something the player probably does not want.
    Warning,
}

/// One thing a preview says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// Info or warning.
    pub level: Level,
    /// The note.
    pub text: Message,
}

fn info(text: Message) -> Note {
    Note {
        level: Level::Info,
        text,
    }
}

fn warning(text: Message) -> Note {
    Note {
        level: Level::Warning,
        text,
    }
}

/// What a chest card on the bid space costs.
fn bid_cost(plan: &Plan) -> u32 {
    match plan.bid {
        Some(CardRef::Chest(v)) => v,
        _ => 0,
    }
}

/// The war chests the planned actions cost (the bid apart).
pub fn actions_cost(state: &State, plan: &Plan) -> u32 {
    let cards = &state.board.cards().actions;
    plan.actions
        .iter()
        .enumerate()
        .filter(|(_, card)| matches!(card, Some(CardRef::Province(_))))
        .map(|(i, _)| cards.get(i).map_or(0, |c| c.cost))
        .sum()
}

/// The notes on `seat`'s plan (complete or not): an info line with the running cost against the
/// chests held, a warning when it costs more, and a warning per planned action that would be
/// skipped with the engine's reason.
pub fn plan_notes(
    state: &State,
    seat: Seat,
    plan: &Plan,
    placed: usize,
    needed: usize,
) -> Vec<Note> {
    let cards = &state.board.cards().actions;
    let player = &state.players[seat as usize];
    let chests = player.chests;
    let bid = bid_cost(plan);
    let cost = actions_cost(state, plan) + bid;
    let mut notes = vec![info(
        Message::new("preview.cost")
            .number("cost", cost)
            .number("chests", chests),
    )];
    if cost > chests {
        notes.push(warning(
            Message::new("preview.over-budget")
                .number("cost", cost)
                .number("chests", chests),
        ));
    }
    if placed < needed {
        notes.push(info(
            Message::new("preview.unplaced").number("count", (needed - placed) as i64),
        ));
    }
    // What is left after the bid is paid (bids are paid before the first action).
    let available = chests.saturating_sub(bid);
    let skipped = |action: &str, province: ProvinceId, reason: &str| {
        warning(
            Message::new("preview.skipped")
                .key("action", action)
                .arg("province", state.province_arg(province))
                .key("reason", reason),
        )
    };
    for (i, card) in plan.actions.iter().enumerate() {
        let Some(action) = cards.get(i) else { continue };
        let p = match card {
            Some(CardRef::Province(p)) => *p,
            Some(CardRef::Chest(_)) => {
                notes.push(warning(
                    Message::new("preview.chest-on-action").key("action", action.name.clone()),
                ));
                continue;
            }
            None => continue,
        };
        if state.provinces[p].owner != Some(seat) || state.lost[seat as usize].contains(&p) {
            notes.push(skipped(&action.name, p, "reason.province-lost"));
            continue;
        }
        let reason = match action.kind {
            ActionKind::BuildCastle | ActionKind::BuildTemple | ActionKind::BuildTheatre => {
                engine::build_obstacle(state, p, action.kind).map(crate::tell::reason_key)
            }
            ActionKind::Recruit5 | ActionKind::Recruit3 | ActionKind::Recruit1Move
                if player.supply < action.armies.max(1) =>
            {
                Some("reason.no-armies")
            }
            ActionKind::BattleMove if state.provinces[p].armies < 2 => Some("reason.one-army"),
            ActionKind::BattleMove if engine::battle_targets(state, seat, p).is_empty() => {
                Some("reason.no-target")
            }
            _ => None,
        };
        let reason = reason.or((action.cost > available).then_some("reason.no-chests"));
        if let Some(reason) = reason {
            notes.push(skipped(&action.name, p, reason));
        }
    }
    notes
}

/// The notes as the contract carries them.
pub fn notes(notes: Vec<Note>) -> Vec<sdk::PreviewNote> {
    notes
        .into_iter()
        .map(|note| sdk::PreviewNote {
            level: match note.level {
                Level::Info => sdk::NoteLevel::Info,
                Level::Warning => sdk::NoteLevel::Warning,
            },
            text: note.text,
        })
        .collect()
}
