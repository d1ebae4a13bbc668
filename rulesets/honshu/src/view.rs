//! What each viewer may know: the JSON view, and the determinized copies the search bot plays
//! on. Hands are secret (a seat knows only its own, plus the cards it passed that are still in
//! its neighbour's hand), as are the draw pile and a 2-player duel card not yet revealed.

use sdk::{GameResult, Message, Placing, ScoreLine, Seat, Table, TableExt, Viewer};
use serde_json::{Value, json};

use crate::state::*;

fn map_json(map: &PersonalMap) -> Value {
    let cells: Vec<Value> = map
        .cells
        .iter()
        .map(|(&(x, y), c)| {
            json!({
                "x": x, "y": y, "terrain": c.terrain.name(), "card": c.card,
                "resource": c.resource.map(|r| r.name()),
            })
        })
        .collect();
    let placed: Vec<Value> = map
        .placed
        .iter()
        .map(|p| {
            json!({
                "card": p.card, "x": p.origin.0, "y": p.origin.1, "rotation": p.rotation,
                "over": p.layer == Layer::Over,
            })
        })
        .collect();
    json!({ "cells": cells, "placed": placed })
}

/// The state as `viewer` may see it.
pub fn view(state: &State, viewer: Viewer) -> Value {
    let players: Vec<Value> = state
        .players
        .iter()
        .enumerate()
        .map(|(seat, p)| {
            let own = viewer.is(seat as Seat);
            let mut player = json!({
                "seat": seat,
                "hand_size": p.hand.len(),
                "map": map_json(&p.map),
                "to_place": p.to_place,
                "resources": p.map.resources(),
            });
            if own {
                player["hand"] = json!(p.hand);
                player["draft"] = json!({
                    "rotation": p.draft.rotation,
                    "origin": p.draft.origin.map(|(x, y)| [x, y]),
                });
            }
            player
        })
        .collect();
    let table = match &state.phase {
        Phase::Trick { plays, .. } | Phase::Pick { plays, .. } => json!({
            "plays": plays.iter().map(|p| json!({
                "seat": p.seat, "card": p.card, "value": p.value(),
                "resource": p.resource.map(|(c, _)| c.name()),
            })).collect::<Vec<_>>(),
        }),
        Phase::Duel {
            revealed,
            committed,
        } => json!({
            "revealed": revealed,
            // Each seat sees only its own card until both are in.
            "committed": committed.iter().enumerate().map(|(s, c)| {
                if viewer.is(s as Seat) { json!(c) } else { json!(c.is_some()) }
            }).collect::<Vec<_>>(),
        }),
        Phase::Fee {
            revealed,
            played,
            winner,
            ..
        } => json!({ "revealed": revealed, "played": played, "winner": winner }),
        Phase::PairPick {
            revealed,
            played,
            chooser,
        } => json!({ "revealed": revealed, "played": played, "chooser": chooser }),
        Phase::Keep { pairs, .. } => json!({ "pairs": pairs }),
        Phase::Place | Phase::Over => json!({}),
    };
    json!({
        "round": state.round,
        "phase": phase_name(&state.phase),
        "order": state.order,
        "pool": state.pool,
        "draw_size": state.draw.len(),
        "discard": state.discard,
        "scoring_card": state.scoring_card.map(|c| c.name()),
        "players": players,
        "table": table,
        "scores": state.scores.iter().map(|s| json!({
            "forests": s.forests, "town": s.town, "lakes": s.lakes, "factories": s.factories,
            "scoring_card": s.scoring_card, "total": s.total, "fallow": s.fallow,
        })).collect::<Vec<_>>(),
    })
}

/// The phase's name in views.
pub fn phase_name(phase: &Phase) -> &'static str {
    match phase {
        Phase::Trick { .. } => "trick",
        Phase::Pick { .. } => "pick",
        Phase::Duel { .. } => "duel",
        Phase::Fee { .. } => "fee",
        Phase::PairPick { .. } => "pair",
        Phase::Keep { .. } => "keep",
        Phase::Place => "place",
        Phase::Over => "over",
    }
}

/// A copy in which every card `seat` cannot know is redrawn: other hands (except the cards
/// `seat` passed that are still there), the draw pile, and an opponent's unrevealed duel card.
/// Hand sizes and everything public stay as they are.
pub fn determinize(state: &State, seat: Seat, table: &mut dyn Table) -> State {
    let mut copy = state.clone();
    let known = &state.players[seat as usize].passed;
    let mut unknown: Vec<u8> = copy.draw.clone();
    for (s, player) in copy.players.iter().enumerate() {
        if s as Seat != seat {
            unknown.extend(player.hand.iter().filter(|c| !known.contains(c)));
        }
    }
    let hidden_duel_card = match &copy.phase {
        Phase::Duel { committed, .. } => committed[1 - seat as usize],
        _ => None,
    };
    unknown.extend(hidden_duel_card);
    table.shuffle(&mut unknown);
    let mut deal = unknown.into_iter();
    for (s, player) in copy.players.iter_mut().enumerate() {
        if s as Seat == seat {
            continue;
        }
        for card in player.hand.iter_mut() {
            if !known.contains(card) {
                *card = deal.next().expect("as many cards as slots");
            }
        }
        player.hand.sort_unstable();
        // What this seat knows of the others' knowledge is not modelled: a seat never acts on it.
    }
    if let Phase::Duel { committed, .. } = &mut copy.phase
        && committed[1 - seat as usize].is_some()
    {
        committed[1 - seat as usize] = deal.next();
    }
    for card in copy.draw.iter_mut() {
        *card = deal.next().expect("as many cards as slots");
    }
    copy
}

/// The result of a finished game: most points first, then most visible fallow squares; seats
/// equal on both share the place.
pub fn result(state: &State) -> Option<GameResult> {
    if !state.is_over() {
        return None;
    }
    let placings = Placing::ranked((0..state.seats).map(|seat| {
        let sheet = &state.scores[seat as usize];
        (seat, sheet.total, vec![sheet.fallow])
    }));
    let mut breakdown = Vec::new();
    for (seat, sheet) in state.scores.iter().enumerate() {
        for (label, points) in sheet.lines() {
            breakdown.push(ScoreLine {
                seat: seat as Seat,
                label: Message::new(label),
                points,
            });
        }
    }
    let winners = placings.iter().filter(|p| p.rank == 1).count();
    let summary = if winners > 1 {
        Message::new("summary.shared").number("points", placings[0].score)
    } else if placings.len() > 1 && placings[1].score == placings[0].score {
        Message::new("summary.fallow")
            .seat("player", placings[0].seat)
            .number("points", placings[0].score)
    } else {
        Message::new("summary.points")
            .seat("player", placings[0].seat)
            .number("points", placings[0].score)
    };
    Some(GameResult {
        placings,
        breakdown,
        summary,
    })
}
