//! What a viewer may know: the JSON view, and the search bot's determinization.
//!
//! A seat sees its own blocks and hand. Of the opponent it sees how many blocks stand in each
//! area, in the reinforcement box and in the bag, and the identity only of blocks shown right now
//! (deployed in the battle under way, shown for a muster A, declared as a leader) or standing in
//! the box. Spectators see both sides as an opponent would.

use sdk::{GameResult, Message, Placing, ScoreLine, Table, TableExt, Viewer};
use serde_json::{Value, json};

use crate::state::*;

/// Whether a viewer may see which block `b` is right now.
pub fn identity_visible(state: &State, viewer: Viewer, b: usize) -> bool {
    let side = state.board.blocks[b].side;
    viewer.is(side as u32) || state.blocks[b].shown || state.blocks[b].place == Place::Box
}

fn block_json(state: &State, b: usize) -> Value {
    let def = &state.board.blocks[b];
    json!({
        "id": def.id,
        "side": def.side,
        "clan": state.board.clans[def.clan].id,
        "mon": def.mon,
        "leader": def.leader,
        "symbol": def.symbol,
        "commander": def.commander,
        "any_card": def.any_card,
        "shown": state.blocks[b].shown,
    })
}

fn card_json(state: &State, c: usize) -> Value {
    let def = &state.board.cards[c];
    json!({
        "index": c,
        "clan": def.clan.map(|c| state.board.clans[c].id.clone()),
        "number": def.number,
        "kind": def.kind,
    })
}

fn step_name(step: &Step) -> &'static str {
    match step {
        Step::ReinforceDiscard { .. } => "reinforce",
        Step::Bid { .. } => "bid",
        Step::ChooseFirst { .. } => "choose-first",
        Step::MoveLevel | Step::MoveDiscard { .. } => "movement-level",
        Step::MoveMenu
        | Step::MoveBlocks { .. }
        | Step::MoveDest { .. }
        | Step::MoveLeader { .. }
        | Step::MoveMarch { .. } => "movement",
        Step::MusterPick
        | Step::MusterBlocks { .. }
        | Step::MusterOne
        | Step::MusterWhere { .. } => "muster",
        Step::CombatPick => "combat",
        Step::Battle => "battle",
        Step::Over => "over",
    }
}

/// The view of one viewer as JSON.
pub fn view(state: &State, viewer: Viewer) -> Value {
    let areas: Vec<Value> = state
        .board
        .areas
        .iter()
        .enumerate()
        .map(|(a, area)| {
            let mut sides = Vec::new();
            for side in 0..2 {
                let blocks: Vec<usize> = state.blocks_in(a, side).collect();
                let visible: Vec<Value> = blocks
                    .iter()
                    .filter(|&&b| identity_visible(state, viewer, b))
                    .map(|&b| block_json(state, b))
                    .collect();
                sides.push(json!({ "count": blocks.len(), "blocks": visible }));
            }
            json!({
                "id": area.id,
                "control": state.control[a],
                "sides": sides,
            })
        })
        .collect();
    let sides: Vec<Value> = (0..2usize)
        .map(|side| {
            let own = viewer.is(side as u32);
            let reserve = state.blocks_at(Place::Reserve, side);
            let hand: Vec<Value> = state.hands[side]
                .iter()
                .filter(|h| own || h.known)
                .map(|h| card_json(state, h.card))
                .collect();
            let (castles, resources) = state.holdings(side);
            json!({
                "hand_size": state.hands[side].len(),
                "hand": hand,
                "deck_size": state.decks[side].len(),
                "discards": state.discards[side].iter().map(|&c| card_json(state, c)).collect::<Vec<_>>(),
                "reserve_size": reserve.len(),
                "reserve": if own { reserve.iter().map(|&b| block_json(state, b)).collect::<Vec<_>>() } else { Vec::new() },
                "bag_size": state.blocks_at(Place::Bag, side).len(),
                "box": state.blocks_at(Place::Box, side).iter().map(|&b| block_json(state, b)).collect::<Vec<_>>(),
                "eliminated": state.blocks_at(Place::Eliminated, side).iter().map(|&b| block_json(state, b)).collect::<Vec<_>>(),
                "castles": castles,
                "resources": resources,
                "points": state.points(side),
                "bid_placed": matches!(state.step, Step::Bid { bids } if bids[side].is_some()),
                "last_bid": state.last_bids[side].map(|c| card_json(state, c)),
            })
        })
        .collect();
    let battle = state.battle.as_ref().map(|b| {
        json!({
            "area": state.board.areas[b.area].id,
            "attacker": b.attacker,
            "siege": b.siege,
            "impact": b.impact,
            "deployed": b.deployed.iter().map(|d| json!({
                "block": block_json(state, d.block),
                "for_side": d.for_side,
                "impact": d.impact,
                "turned": d.turned,
                "card": d.card.map(|c| card_json(state, c)),
            })).collect::<Vec<_>>(),
        })
    });
    json!({
        "board": state.board.id,
        "week": state.week,
        "weeks": state.board.weeks(),
        "turn": if state.turn == 0 { "A" } else { "B" },
        "first": state.first,
        "active": state.active(),
        "step": step_name(&state.step),
        "areas": areas,
        "sides": sides,
        "disks_lost": state.disks_lost,
        "battle": battle,
        "winner": state.ending.map(|(side, _)| side),
    })
}

/// A copy of the game as `seat` could believe it to be: what it has seen is kept, the rest of
/// the opponent's hidden facts redrawn with the host's randomness. Blocks the seat does not know
/// trade identities among their places (map, reinforcement box, bag); the opponent's unseen hand
/// cards (and a bid not yet revealed) are redealt from those cards and its draw pile.
pub fn determinize(state: &State, seat: usize, table: &mut dyn Table) -> State {
    let mut out = state.clone();
    let opponent = other(seat);
    let unknown: Vec<usize> = (0..state.blocks.len())
        .filter(|&b| {
            let block = &state.blocks[b];
            state.board.blocks[b].side == opponent
                && !block.shown
                && !block.known
                && matches!(block.place, Place::Area(_) | Place::Reserve | Place::Bag)
        })
        .collect();
    let mut identities = unknown.clone();
    table.shuffle(&mut identities);
    for (slot, &identity) in unknown.iter().zip(&identities) {
        out.blocks[identity] = state.blocks[*slot].clone();
    }
    let mut pool: Vec<usize> = state.decks[opponent].clone();
    let hidden_hand: Vec<usize> = (0..state.hands[opponent].len())
        .filter(|&i| !state.hands[opponent][i].known)
        .collect();
    pool.extend(hidden_hand.iter().map(|&i| state.hands[opponent][i].card));
    let hidden_bid = match &state.step {
        Step::Bid { bids } => bids[opponent],
        _ => None,
    };
    pool.extend(hidden_bid);
    table.shuffle(&mut pool);
    for &i in &hidden_hand {
        out.hands[opponent][i].card = pool.pop().expect("as many cards as taken");
    }
    if let (Some(_), Step::Bid { bids }) = (hidden_bid, &mut out.step) {
        bids[opponent] = pool.pop();
    }
    out.decks[opponent] = pool;
    out
}

/// The result of a finished game: the winner first; the score is the points at the end.
pub fn result(state: &State) -> Option<GameResult> {
    let (winner, ending) = state.ending?;
    let placings = [winner, other(winner)]
        .into_iter()
        .enumerate()
        .map(|(i, side)| Placing {
            seat: side as u32,
            rank: i as u32 + 1,
            score: i64::from(state.points(side)),
            tie_breaks: Vec::new(),
        })
        .collect();
    let breakdown = (0..2)
        .flat_map(|side| {
            let (castles, resources) = state.holdings(side);
            [
                ScoreLine {
                    seat: side as u32,
                    label: Message::new("score.castles"),
                    points: 2 * i64::from(castles),
                },
                ScoreLine {
                    seat: side as u32,
                    label: Message::new("score.resources"),
                    points: i64::from(resources),
                },
            ]
        })
        .collect();
    let summary = Message::new(match ending {
        Ending::Commander => "result.commander",
        Ending::Disk => "result.disk",
        Ending::Points => "result.points",
    })
    .seat("side", winner as u32)
    .number("points", i64::from(state.points(winner)));
    Some(GameResult {
        placings,
        breakdown,
        summary,
    })
}
