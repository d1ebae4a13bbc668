//! A quick answer to a pending decision, as a player who knows the rules would give it without
//! thinking ahead (the contract's `rollout-action`). Search bots play these answers in their
//! playouts and weigh them first among the plans they try: a random plan puts a castle where no
//! space is left and sends a lone army to battle, and a season of such plans tells a search
//! little about the position it started from.
//!
//! The rules of thumb:
//! - A plan gives each action, in the order the actions run, the province where it does most:
//!   buildings where there is space and armies to keep them, rice where the winter would go
//!   hungry, taxes from rich provinces without revolt markers, armies to the frontier, battles
//!   from the strongest province against the weakest neighbour. An action with no good province,
//!   or no chests left to pay for it, gets a chest card instead. The bid is a small chest card.
//! - A battle goes against the neighbour it is likeliest to take for the most it gains, with every
//!   army that may go; a special card's bonus is always taken.
//! - Everything else (the claiming draft, the specials, the order of revolts) is left to chance.
//!
//! The salt varies each score a little, so a search sees several good plans rather than one.

use sdk::{Action, AssignDecision, Offer, OfferKind, Play as _, Salt, Seat};

use crate::data::{ActionKind, ProvinceId};
use crate::decide::plan_items;
use crate::engine;
use crate::moves::Move;
use crate::state::{CardRef, Phase, Stage, State};

/// How much the salt may add to a province's score for an action, in the scores' units (about
/// one tax chest or one army of margin).
const NOISE: f64 = 1.0;

/// The quick answer to `seat`'s pending decision, or none where chance answers as well.
pub fn rollout_action(state: &State, seat: Seat, salt: u64) -> Option<Action> {
    let offer = state.offer(seat)?;
    let mut salt = Salt::new(salt);
    match (&state.phase, &offer.kind) {
        (Phase::Planning, OfferKind::Assign { decision, .. }) => {
            Some(Action::Assign(plan(state, seat, decision, &mut salt)))
        }
        (Phase::Actions { stage, .. }, kind) => match (*stage, kind) {
            (Stage::BattleTarget { from }, _) => {
                let to = battle_target(state, seat, from, &mut salt)?;
                pick(&offer, &Move::Target(to))
            }
            (
                Stage::BattleCount { .. } | Stage::MoveCount { .. },
                OfferKind::Number { range, .. },
            ) => Some(Action::Number(range.max)),
            (
                Stage::RecruitBonus { .. } | Stage::AttackBonus { .. } | Stage::DefenceBonus { .. },
                _,
            ) => pick(&offer, &Move::Bonus(true)),
            _ => None,
        },
        _ => None,
    }
}

/// The answer that picks the choice of `mv`, if the offer has it.
fn pick(offer: &Offer<Move>, mv: &Move) -> Option<Action> {
    let index = offer
        .choices()
        .iter()
        .position(|(_, offered)| offered == mv)?;
    Some(Action::Choose(vec![index as u32]))
}

/// A plan as placements of `seat`'s planning `decision` (see the module's comment).
fn plan(state: &State, seat: Seat, decision: &AssignDecision, salt: &mut Salt) -> Vec<(u32, u32)> {
    let items = plan_items(state, seat);
    let actions = state.board.cards().actions.len();
    let bid_slot = actions as u32;
    let chests = state.players[seat as usize].chests;
    let chest_item = |value: u32| {
        items
            .iter()
            .position(|&card| card == CardRef::Chest(value))
            .map(|i| i as u32)
    };
    let mut used = vec![false; items.len()];
    let mut placements: Vec<(u32, u32)> = Vec::new();

    // The bid: a small chest card the seat can pay, 0 when it has none to spare.
    let bid = salt.below(u64::from(chests.min(2)) + 1) as u32;
    let mut budget = chests.saturating_sub(bid);
    if let Some(item) = chest_item(bid)
        && decision.slots[bid_slot as usize].accepts(item)
    {
        used[item as usize] = true;
        placements.push((bid_slot, item));
    }

    // The actions in the order they run, so the chests are spent as they will be.
    let mut order: Vec<usize> = state
        .action_layout
        .iter()
        .copied()
        .filter(|&a| a < actions)
        .collect();
    for a in 0..actions {
        if !order.contains(&a) {
            order.push(a);
        }
    }
    for action in order {
        let card = &state.board.cards().actions[action];
        if card.cost > budget {
            continue;
        }
        let mut best: Option<(f64, usize)> = None;
        for (i, &item) in items.iter().enumerate() {
            let CardRef::Province(p) = item else {
                continue;
            };
            if used[i] {
                continue;
            }
            let Some(score) = province_score(state, seat, p, card.kind) else {
                continue;
            };
            let score = score + NOISE * salt.below(1000) as f64 / 1000.0;
            if best.is_none_or(|(top, _)| score > top) {
                best = Some((score, i));
            }
        }
        if let Some((score, i)) = best
            && score > 0.0
        {
            used[i] = true;
            budget -= card.cost;
            placements.push((action as u32, i as u32));
        }
    }

    // The decision asks for as many placements as slots or items allow: the actions left get
    // the cards left, chest cards (which do nothing there) on the dearest actions, so a
    // province card that must be placed too lands where it costs least.
    let wanted = decision.min_placements as usize;
    let mut spare: Vec<usize> = (0..items.len()).filter(|&i| !used[i]).collect();
    spare.sort_by_key(|&i| matches!(items[i], CardRef::Province(_)));
    let mut open: Vec<usize> = (0..actions)
        .filter(|&slot| !placements.iter().any(|&(s, _)| s as usize == slot))
        .collect();
    open.sort_by_key(|&slot| std::cmp::Reverse(state.board.cards().actions[slot].cost));
    let mut forced = None;
    for (slot, i) in open.into_iter().zip(spare) {
        if placements.len() >= wanted {
            break;
        }
        let cost = state.board.cards().actions[slot].cost;
        if matches!(items[i], CardRef::Province(_)) && cost > budget {
            forced = Some(placements.len());
        } else if matches!(items[i], CardRef::Province(_)) {
            budget -= cost;
        }
        placements.push((slot as u32, i as u32));
    }
    // A province card that had to go on an action the chests cannot pay for goes on the bid
    // space instead (a bid of nothing), and the bid's chest card takes its action, which it
    // leaves undone.
    if let Some(index) = forced
        && let Some(bid_index) = placements.iter().position(|&(slot, _)| slot == bid_slot)
        && decision.slots[bid_slot as usize].accepts(placements[index].1)
    {
        let province = placements[index].1;
        placements[index].1 = placements[bid_index].1;
        placements[bid_index].1 = province;
    }
    placements
}

/// How much `seat` gains from the action `kind` on province `p`, roughly in victory points;
/// none where the action would be skipped or is plainly wasted.
fn province_score(state: &State, seat: Seat, p: ProvinceId, kind: ActionKind) -> Option<f64> {
    let here = &state.provinces[p];
    let info = &state.board.provinces[p];
    let armies = f64::from(here.armies);
    let threat = threat(state, seat, p);
    let frontier = frontier(state, seat, p) as f64;
    let player = &state.players[seat as usize];
    match kind {
        ActionKind::BuildCastle | ActionKind::BuildTemple | ActionKind::BuildTheatre => {
            if engine::build_obstacle(state, p, kind).is_some() {
                return None;
            }
            let guard = if kind == ActionKind::BuildCastle {
                0.3 * threat
            } else {
                0.0
            };
            Some(2.5 + 0.3 * armies.min(5.0) - 0.2 * threat + guard)
        }
        ActionKind::ConfiscateRice => {
            let provinces = state.provinces_of(seat).len() as u32;
            let hungry = player.rice < provinces;
            let worth = if hungry { 1.0 } else { 0.3 };
            Some(f64::from(info.rice) * worth - 1.5 * f64::from(here.revolts))
        }
        ActionKind::CollectTaxes => Some(0.8 * f64::from(info.tax) - 1.5 * f64::from(here.revolts)),
        ActionKind::Recruit5 | ActionKind::Recruit3 => {
            (player.supply > 0).then_some(1.0 + 0.4 * frontier + 0.1 * threat)
        }
        ActionKind::Recruit1Move => (player.supply > 0).then_some(0.5 + 0.2 * frontier),
        ActionKind::BattleMove => {
            if here.armies < 2 {
                return None;
            }
            let best = engine::battle_targets(state, seat, p)
                .into_iter()
                .filter(|&q| state.provinces[q].owner != Some(seat))
                .map(|q| target_score(state, seat, p, q))
                .fold(f64::NEG_INFINITY, f64::max);
            best.is_finite().then_some(best + 1.0)
        }
    }
}

/// Armies of other seats standing next to `p`.
fn threat(state: &State, seat: Seat, p: ProvinceId) -> f64 {
    state
        .board
        .neighbours(p)
        .iter()
        .filter(|&&q| state.in_play(q))
        .filter(|&&q| state.provinces[q].owner.is_some_and(|owner| owner != seat))
        .map(|&q| f64::from(state.provinces[q].armies))
        .sum()
}

/// In-play neighbours of `p` that `seat` does not hold.
fn frontier(state: &State, seat: Seat, p: ProvinceId) -> usize {
    state
        .board
        .neighbours(p)
        .iter()
        .filter(|&&q| state.in_play(q) && state.provinces[q].owner != Some(seat))
        .count()
}

/// What attacking `to` from `from` with every army but one is worth: the margin of armies over
/// defenders, plus what taking it gains (a province, its buildings).
fn target_score(state: &State, seat: Seat, from: ProvinceId, to: ProvinceId) -> f64 {
    let attackers = f64::from(state.provinces[from].armies.saturating_sub(1));
    let target = &state.provinces[to];
    match target.owner {
        Some(owner) if owner == seat => 0.0,
        Some(_) => {
            let defenders = f64::from(target.armies) + f64::from(u32::from(target.castle));
            attackers - 1.2 * defenders + 0.5 * f64::from(target.buildings()) + 1.0
        }
        None => {
            let farmers = engine::event_effect(state)
                .neutral_farmers
                .unwrap_or(1)
                .min(state.farmer_supply);
            attackers - f64::from(farmers) - 0.5
        }
    }
}

/// The neighbour of `from` to send armies to: the best target by [`target_score`], give or
/// take the salt, or a move to an own province when no battle is worth it.
fn battle_target(
    state: &State,
    seat: Seat,
    from: ProvinceId,
    salt: &mut Salt,
) -> Option<ProvinceId> {
    let targets = engine::battle_targets(state, seat, from);
    let scores: Vec<f64> = targets
        .iter()
        .map(|&q| target_score(state, seat, from, q) + 0.5 * salt.below(1000) as f64 / 1000.0)
        .collect();
    salt.best_of(&scores).map(|i| targets[i])
}
