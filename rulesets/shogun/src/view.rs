//! What one viewer may see ([`view`]) and a copy with the rest redrawn ([`determinize`]).
//!
//! Secrets: other seats' plans and bids before they are revealed, face-down action cards, the
//! order of the event deck and the draft deck, and the tower's contents (only its per-owner
//! counts are public, as they follow from what went in and what came out).

use sdk::{GameResult, Message, Placing, Seat, Table, TableExt, Viewer};
use serde_json::{Value, json};

use crate::state::{CardRef, Phase, Plan, Stage, State};

fn card_json(state: &State, card: Option<CardRef>) -> Value {
    match card {
        None => Value::Null,
        Some(CardRef::Province(p)) => json!({"province": state.board.provinces[p].id}),
        Some(CardRef::Chest(v)) => json!({"chest": v}),
    }
}

/// How many action spaces (in layout order) have had their cards revealed.
pub fn actions_played(state: &State) -> usize {
    match state.phase {
        Phase::Actions { step, .. } => step + 1,
        _ => 0,
    }
}

/// The state as `viewer` may see it.
pub fn view(state: &State, viewer: Viewer) -> Value {
    let cards = state.board.cards();
    let played = actions_played(state);
    let players: Vec<Value> = state
        .players
        .iter()
        .enumerate()
        .map(|(s, p)| {
            let seat = s as Seat;
            let plan = state.plans[s].as_ref().map(|plan| {
                let own = viewer.is(seat);
                let actions: Vec<Value> = cards
                    .actions
                    .iter()
                    .enumerate()
                    .map(|(a, card)| {
                        let position = state
                            .action_layout
                            .iter()
                            .position(|&x| x == a)
                            .unwrap_or(usize::MAX);
                        let content = plan.actions[a];
                        // Until its action is played, another seat's card is "hidden" even
                        // where the space is empty: this list is keyed by action card, so an
                        // empty entry would tell which action a face-down space holds.
                        let shown = if own || position < played {
                            card_json(state, content)
                        } else {
                            json!("hidden")
                        };
                        json!({"action": card.id, "card": shown})
                    })
                    .collect();
                // Whether the bid space holds a card at all is part of the bid: hidden too.
                let bid = if own || state.bids_revealed {
                    card_json(state, plan.bid)
                } else {
                    json!("hidden")
                };
                json!({"actions": actions, "bid": bid})
            });
            json!({
                "seat": seat,
                "chests": p.chests,
                "rice": p.rice,
                "vp": p.vp,
                "supply": p.supply,
                "in_tower": p.in_tower,
                "tray": p.tray,
                "province_cards": state.provinces_of(seat).len(),
                "planned": state.plans[s].is_some(),
                "plan": plan,
                "special": state.special_of(seat).map(|i| cards.specials[i].id.clone()),
            })
        })
        .collect();
    let provinces: Vec<Value> = state
        .provinces
        .iter()
        .enumerate()
        .map(|(p, prov)| {
            json!({
                "id": state.board.provinces[p].id,
                "in_play": state.in_play(p),
                "owner": prov.owner,
                "armies": prov.armies,
                "castle": prov.castle,
                "temple": prov.temple,
                "theatre": prov.theatre,
                "revolts": prov.revolts,
            })
        })
        .collect();
    let action_cards: Vec<Value> = state
        .action_layout
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            if i < state.actions_revealed {
                json!(cards.actions[a].id)
            } else {
                Value::Null
            }
        })
        .collect();
    let specials: Vec<Value> = state
        .special_layout
        .iter()
        .enumerate()
        .map(|(i, &s)| json!({"space": i + 1, "special": cards.specials[s].id, "holder": state.special_holder[i]}))
        .collect();
    let draft = state.draft.as_ref().map(|d| {
        json!({
            "face_up": d.face_up.iter().map(|&p| state.board.provinces[p].id.clone()).collect::<Vec<_>>(),
            "deck": d.deck.len(),
            "groups": d.groups,
            "first": d.first,
        })
    });
    json!({
        "map": state.board.id,
        "seats": state.seats,
        "year": state.year,
        "season": state.season,
        "phase": phase_json(state),
        "players": players,
        "provinces": provinces,
        "farmer_supply": state.farmer_supply,
        "farmers_in_tower": state.farmers_in_tower,
        "tray_farmers": state.tray_farmers,
        "events_face_up": state.year_events.iter().map(|&e| cards.events[e].id.clone()).collect::<Vec<_>>(),
        "current_event": state.current_event.map(|e| cards.events[e].id.clone()),
        "event_deck": state.event_deck.len(),
        "action_cards": action_cards,
        "specials": specials,
        "bid_order": state.bid_order,
        "turn_order": state.turn_order,
        "draft": draft,
        "score_lines": state.score_lines,
    })
}

fn phase_json(state: &State) -> Value {
    match &state.phase {
        Phase::Draft => json!({"name": "draft"}),
        Phase::Planning => json!({"name": "planning"}),
        Phase::Specials { next } => json!({"name": "specials", "next": next}),
        Phase::Actions { step, turn, stage } => {
            let stage = match stage {
                Stage::Ready => "ready",
                Stage::MoveTarget { .. } => "move-target",
                Stage::MoveCount { .. } => "move-count",
                Stage::BattleTarget { .. } => "battle-target",
                Stage::BattleCount { .. } => "battle-count",
                Stage::RecruitBonus { .. } => "recruit-bonus",
                Stage::AttackBonus { .. } => "attack-bonus",
                Stage::DefenceBonus { .. } => "defence-bonus",
            };
            json!({"name": "actions", "step": step, "turn": turn, "stage": stage})
        }
        Phase::Winter { turn, queue, .. } => json!({
            "name": "winter",
            "turn": turn,
            "revolts": queue.iter().map(|&p| state.board.provinces[p].id.clone()).collect::<Vec<_>>(),
        }),
        Phase::Over => json!({"name": "over"}),
    }
}

/// A copy of the game where everything `seat` cannot know is redrawn from `table`.
pub fn determinize(state: &State, seat: Seat, table: &mut dyn Table) -> State {
    let mut copy = state.clone();
    table.shuffle(&mut copy.event_deck);
    // Face-down action cards: any order of the cards not yet shown.
    let shown = copy.actions_revealed.min(copy.action_layout.len());
    table.shuffle(&mut copy.action_layout[shown..]);
    if let Some(draft) = copy.draft.as_mut() {
        table.shuffle(&mut draft.deck);
    }
    let played = actions_played(state);
    for other in 0..copy.seats {
        if other == seat {
            continue;
        }
        let Some(plan) = copy.plans[other as usize].clone() else {
            continue;
        };
        copy.plans[other as usize] = Some(redraw_plan(&copy, state, other, &plan, played, table));
    }
    copy
}

/// Keeps what `other` has shown of its plan and deals the rest of its cards at random over the
/// hidden filled spaces (which spaces hold a card is public).
fn redraw_plan(
    copy: &State,
    original: &State,
    other: Seat,
    plan: &Plan,
    played: usize,
    table: &mut dyn Table,
) -> Plan {
    let mut new_plan = plan.clone();
    let mut shown: Vec<CardRef> = Vec::new();
    let mut hidden_slots: Vec<Option<usize>> = Vec::new();
    for (a, card) in plan.actions.iter().enumerate() {
        let position = original
            .action_layout
            .iter()
            .position(|&x| x == a)
            .unwrap_or(usize::MAX);
        match card {
            Some(c) if position < played => shown.push(*c),
            Some(_) => hidden_slots.push(Some(a)),
            None => {}
        }
    }
    let bid_hidden = !original.bids_revealed && plan.bid.is_some();
    if let Some(bid) = plan.bid.filter(|_| !bid_hidden) {
        shown.push(bid);
    }
    if bid_hidden {
        // The bid first, so it can still get an affordable card.
        hidden_slots.insert(0, None);
    }
    // The pool: the cards the seat held when planning, minus those shown. Province cards lost
    // since planning still count, as they were placed before.
    let mut pool: Vec<CardRef> = (0..copy.provinces.len())
        .filter(|&p| {
            original.provinces[p].owner == Some(other)
                || plan.actions.contains(&Some(CardRef::Province(p)))
                || plan.bid == Some(CardRef::Province(p))
        })
        .map(CardRef::Province)
        .chain((0..5).map(CardRef::Chest))
        .filter(|c| !shown.contains(c))
        .collect();
    table.shuffle(&mut pool);
    let chests = original.players[other as usize].chests;
    for slot in hidden_slots {
        let pick = match slot {
            // A hidden bid must be affordable: a province card or a chest card the seat can pay.
            None => pool.iter().position(|c| match c {
                CardRef::Province(_) => true,
                CardRef::Chest(v) => *v <= chests,
            }),
            Some(_) => (!pool.is_empty()).then_some(0),
        };
        let card = pick.map(|i| pool.remove(i));
        match slot {
            Some(a) => new_plan.actions[a] = card,
            None => new_plan.bid = card.or(plan.bid),
        }
    }
    new_plan
}

/// The result of a finished game: most VP first, then most chests (decision 27); seats equal on
/// both share the place.
pub fn result(state: &State) -> Option<GameResult> {
    if !state.is_over() {
        return None;
    }
    let placings = Placing::ranked((0..state.seats).map(|seat| {
        let p = &state.players[seat as usize];
        (seat, i64::from(p.vp), vec![i64::from(p.chests)])
    }));
    let winners: Vec<&Placing> = placings.iter().filter(|p| p.rank == 1).collect();
    let summary = if winners.len() > 1 {
        Message::new("summary.shared")
            .number("vp", winners[0].score)
            .number("chests", winners[0].tie_breaks[0])
    } else if placings.len() > 1 && placings[1].score == placings[0].score {
        Message::new("summary.chests")
            .seat("player", placings[0].seat)
            .number("vp", placings[0].score)
    } else {
        Message::new("summary.vp")
            .seat("player", placings[0].seat)
            .number("vp", placings[0].score)
    };
    Some(GameResult {
        placings,
        breakdown: state.score_lines.clone(),
        summary,
    })
}
