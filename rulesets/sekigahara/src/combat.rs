//! Combat: battles and sieges, deployment by cards with Impact, loyalty challenges, casualties,
//! retreat and card replenishment.

use sdk::{Event, Message, Table};

use crate::data::{CardKind, DiskEffect, Symbol};
use crate::engine::{check_instant_win, discard, eliminate, lose_disk, replenish, update_control};
use crate::movement::overruns;
use crate::names;
use crate::state::*;

/// Starts the combat in a contested area, declared by the active side.
pub fn start(state: &mut State, area: usize) -> Vec<Event> {
    let attacker = state.active();
    let defender = other(attacker);
    let castle = state.board.areas[area].is_castle() && state.control[area] == Some(defender);
    let may_withdraw =
        castle && state.count_in(area, defender) as u32 <= state.settings.siege_limit;
    state.movement.fought.push(area);
    state.battle = Some(Battle {
        area,
        attacker,
        siege: false,
        stage: if may_withdraw {
            Stage::SiegeChoice
        } else {
            Stage::Opening(attacker)
        },
        deployed: Vec::new(),
        cards: [Vec::new(), Vec::new()],
        impact: [0, 0],
        last: Vec::new(),
        first_done: false,
        last_actor: None,
        winner: None,
        owed: [0, 0],
        lost: [0, 0],
    });
    state.step = Step::Battle;
    vec![Event::public(
        Message::new("event.battle")
            .seat("attacker", attacker as u32)
            .arg("area", names::area(state, area)),
    )]
}

fn battle(state: &State) -> &Battle {
    state.battle.as_ref().expect("a battle is under way")
}

fn battle_mut(state: &mut State) -> &mut Battle {
    state.battle.as_mut().expect("a battle is under way")
}

/// Undeployed blocks of a side in the battle's area.
pub fn undeployed(state: &State, side: Side) -> Vec<usize> {
    let b = battle(state);
    state
        .blocks_in(b.area, side)
        .filter(|blk| !b.deployed.iter().any(|d| d.block == *blk))
        .collect()
}

/// Leaders a side may deploy free at the opening.
pub fn opening_leaders(state: &State, side: Side) -> Vec<usize> {
    undeployed(state, side)
        .into_iter()
        .filter(|&b| state.board.blocks[b].leader)
        .collect()
}

/// Whether a card may deploy a block.
pub fn card_fits(state: &State, card: usize, block: usize) -> bool {
    let c = &state.board.cards[card];
    let blk = &state.board.blocks[block];
    c.kind != CardKind::LoyaltyChallenge
        && c.side == blk.side
        && (c.clan == Some(blk.clan) || blk.any_card)
}

/// Cards of a side's hand that can deploy one of its undeployed blocks, in hand order.
pub fn deploy_cards(state: &State, side: Side) -> Vec<usize> {
    let blocks = undeployed(state, side);
    let used = &battle(state).cards[side];
    let mut seen = Vec::new();
    for h in &state.hands[side] {
        if used.contains(&h.card) || seen.contains(&h.card) {
            continue;
        }
        if blocks.iter().any(|&b| card_fits(state, h.card, b)) {
            seen.push(h.card);
        }
    }
    seen
}

/// Loyalty challenge cards in a hand.
pub fn challenge_cards(state: &State, side: Side) -> Vec<usize> {
    state.hands[side]
        .iter()
        .map(|h| h.card)
        .filter(|&c| state.board.cards[c].kind == CardKind::LoyaltyChallenge)
        .collect()
}

/// The Impact a block would add if deployed now: (base, clan bonus, special).
pub fn impact_of(state: &State, side: Side, block: usize, card: Option<usize>) -> (i32, i32, i32) {
    let b = battle(state);
    let def = &state.board.blocks[block];
    let on_side: Vec<usize> = b
        .deployed
        .iter()
        .filter(|d| d.for_side == side && !d.turned)
        .map(|d| d.block)
        .collect();
    let clan_bonus = on_side
        .iter()
        .filter(|&&o| state.board.blocks[o].clan == def.clan)
        .count() as i32;
    let sword = card.is_some_and(|c| state.board.cards[c].kind == CardKind::Sword);
    let special = match (sword, def.symbol) {
        (true, Some(symbol)) => {
            let same: i32 = on_side
                .iter()
                .filter(|&&o| state.board.blocks[o].symbol == Some(symbol))
                .count() as i32;
            2 + 2 * same
        }
        _ => 0,
    };
    (i32::from(def.mon), clan_bonus, special)
}

fn symbol_key(symbol: Option<Symbol>) -> &'static str {
    match symbol {
        Some(Symbol::Gun) => "symbol.gun",
        Some(Symbol::Cavalry) => "symbol.cavalry",
        None => "symbol.none",
    }
}

/// Deploys blocks with a card (or leaders free with none).
pub fn deploy(state: &mut State, side: Side, card: Option<usize>, blocks: &[usize]) -> Vec<Event> {
    let mut events = Vec::new();
    if let Some(c) = card {
        battle_mut(state).cards[side].push(c);
        if let Some(i) = state.hands[side].iter().position(|h| h.card == c) {
            state.hands[side].remove(i);
        }
    }
    let mut last = Vec::new();
    for &blk in blocks {
        let (base, clan, special) = impact_of(state, side, blk, card);
        let total = base + clan + special;
        let b = battle_mut(state);
        b.impact[side] += total;
        last.push(b.deployed.len());
        b.deployed.push(Deployed {
            block: blk,
            for_side: side,
            impact: total,
            card,
            special,
            turned: false,
        });
        let running = b.impact;
        state.blocks[blk].shown = true;
        state.blocks[blk].known = true;
        // A block without a symbol is told without one ("no symbol" said nothing useful).
        let key = match (card, state.board.blocks[blk].symbol) {
            (Some(_), Some(_)) => "event.deploy",
            (Some(_), None) => "event.deploy-plain",
            (None, _) => "event.deploy-leader",
        };
        let text = Message::new(key)
            .seat("side", side as u32)
            .arg("block", names::block_arg(state, blk))
            .key("symbol", symbol_key(state.board.blocks[blk].symbol))
            .number("base", base)
            .number("clan", clan)
            .number("special", special)
            .number("impact", total)
            .number("own", running[side])
            .number("other", running[other(side)]);
        events.push(Event::public(text));
    }
    battle_mut(state).last = last;
    events
}

/// The event of a card played face up to deploy (its blocks follow in the next step).
pub fn card_played(state: &State, side: Side, c: usize) -> Event {
    let def = &state.board.cards[c];
    let mut text = Message::new("event.card-played")
        .seat("side", side as u32)
        .number("n", i64::from(def.number))
        .key("kind", kind_key(def.kind));
    if let Some(clan) = def.clan {
        text = text.arg("clan", names::clan(state, clan));
    }
    Event::public(text)
}

/// The catalogue key of a card kind.
pub fn kind_key(kind: CardKind) -> &'static str {
    match kind {
        CardKind::Double => "kind.double",
        CardKind::Sword => "kind.sword",
        CardKind::Plain => "kind.plain",
        CardKind::LoyaltyChallenge => "kind.challenge",
    }
}

/// After a deployment by `deployer`: the other side may challenge, else play goes on.
pub fn after_deploy(state: &mut State, deployer: Side, table: &mut dyn Table) -> Vec<Event> {
    let free = battle(state)
        .last
        .iter()
        .all(|&i| battle(state).deployed[i].card.is_none());
    if !free && !challenge_cards(state, other(deployer)).is_empty() {
        battle_mut(state).stage = Stage::Challenge(other(deployer));
        return Vec::new();
    }
    next_actor(state, deployer, table)
}

/// Resolves a loyalty challenge by `challenger` against the last deployment.
pub fn challenge(state: &mut State, challenger: Side, table: &mut dyn Table) -> Vec<Event> {
    let deployer = other(challenger);
    let lc = challenge_cards(state, challenger)[0];
    discard(state, challenger, lc);
    let last = battle(state).last.clone();
    let first_block = battle(state).deployed[last[0]].block;
    // One card that could have deployed the (first) block refutes the challenge.
    let refute = state.hands[deployer]
        .iter()
        .position(|h| card_fits(state, h.card, first_block));
    let mut events = Vec::new();
    if let Some(i) = refute {
        state.hands[deployer][i].known = true;
        let card = state.hands[deployer][i].card;
        let def = &state.board.cards[card];
        let mut text = Message::new("event.challenge-refuted")
            .seat("challenger", challenger as u32)
            .seat("side", deployer as u32)
            .number("n", i64::from(def.number))
            .key("kind", kind_key(def.kind));
        if let Some(clan) = def.clan {
            text = text.arg("clan", names::clan(state, clan));
        }
        events.push(Event::public(text));
    } else {
        let bonus = state.settings.turned_clan_bonus;
        for &i in &last {
            let (blk, old, special) = {
                let d = &battle(state).deployed[i];
                (d.block, d.impact, d.special)
            };
            let clan = if bonus {
                battle(state)
                    .deployed
                    .iter()
                    .filter(|d| {
                        d.for_side == challenger
                            && state.board.blocks[d.block].clan == state.board.blocks[blk].clan
                    })
                    .count() as i32
            } else {
                0
            };
            let gained = i32::from(state.board.blocks[blk].mon) + special + clan;
            let b = battle_mut(state);
            b.impact[deployer] -= old;
            b.impact[challenger] += gained;
            b.deployed[i].for_side = challenger;
            b.deployed[i].impact = gained;
            b.deployed[i].turned = true;
            let running = b.impact;
            events.push(Event::public(
                Message::new("event.block-turned")
                    .seat("challenger", challenger as u32)
                    .arg("block", names::block_arg(state, blk))
                    .number("impact", gained)
                    .number("own", running[challenger])
                    .number("other", running[deployer]),
            ));
        }
    }
    events.extend(next_actor(state, deployer, table));
    events
}

/// Who acts after `actor`: the attacker's first card, then the side with less Impact (the
/// attacker on a tie) or, in the alternating variant, the other side.
pub fn next_actor(state: &mut State, actor: Side, table: &mut dyn Table) -> Vec<Event> {
    let lower = state.settings.initiative_lower_impact;
    let b = battle_mut(state);
    b.last_actor = Some(actor);
    let next = if !b.first_done {
        b.first_done = true;
        if lower {
            lower_side(b)
        } else {
            other(b.attacker)
        }
    } else if lower {
        lower_side(b)
    } else {
        other(actor)
    };
    to_deploy(state, next, table)
}

fn lower_side(b: &Battle) -> Side {
    let d = other(b.attacker);
    if b.impact[d] < b.impact[b.attacker] {
        d
    } else {
        b.attacker
    }
}

/// Asks `side` to deploy, or ends the battle when it cannot.
pub fn to_deploy(state: &mut State, side: Side, table: &mut dyn Table) -> Vec<Event> {
    if deploy_cards(state, side).is_empty() {
        return pass(state, side, table);
    }
    battle_mut(state).stage = Stage::Deploy(side);
    Vec::new()
}

/// A side passes (or cannot deploy): the attacker's first pass lets the defender act; any other
/// pass ends the deployment.
pub fn pass(state: &mut State, side: Side, table: &mut dyn Table) -> Vec<Event> {
    let b = battle(state);
    if !b.first_done && side == b.attacker {
        let mut events = vec![Event::public(
            Message::new("event.pass").seat("side", side as u32),
        )];
        battle_mut(state).first_done = true;
        let defender = other(side);
        if deploy_cards(state, defender).is_empty() {
            events.extend(resolve(state, table));
        } else {
            battle_mut(state).stage = Stage::Deploy(defender);
        }
        return events;
    }
    let mut events = vec![Event::public(
        Message::new("event.pass").seat("side", side as u32),
    )];
    events.extend(resolve(state, table));
    events
}

/// The end of deployment: the winner, the losses owed, then casualties.
pub fn resolve(state: &mut State, table: &mut dyn Table) -> Vec<Event> {
    let divisor = state.settings.casualty_divisor.max(1) as i32;
    let min_loss = state.settings.loser_min_loss;
    let b = battle_mut(state);
    let defender = other(b.attacker);
    let winner = if b.impact[b.attacker] > b.impact[defender] {
        b.attacker
    } else {
        defender
    };
    let loser = other(winner);
    b.winner = Some(winner);
    b.owed[loser] = ((b.impact[winner].max(0) / divisor) as u32).max(min_loss);
    b.owed[winner] = (b.impact[loser].max(0) / divisor) as u32;
    let impact = b.impact;
    let area = b.area;
    let events = vec![Event::public(
        Message::new("event.battle-won")
            .seat("side", winner as u32)
            .arg("area", names::area(state, area))
            .number("winner", impact[winner])
            .number("loser", impact[loser]),
    )];
    let mut events = events;
    events.extend(next_casualties(state, table));
    events
}

/// Casualty tiers of a side: deployed non-leaders, other non-leaders, then leaders.
pub fn casualty_tiers(state: &State, side: Side) -> [Vec<usize>; 3] {
    let b = battle(state);
    let mut tiers = [Vec::new(), Vec::new(), Vec::new()];
    for blk in state.blocks_in(b.area, side) {
        let def = &state.board.blocks[blk];
        let deployed = b.deployed.iter().any(|d| d.block == blk);
        let tier = if def.leader {
            2
        } else if deployed {
            0
        } else {
            1
        };
        tiers[tier].push(blk);
    }
    tiers
}

/// Takes the losses that need no choice; asks when a tier is only partly lost.
pub fn next_casualties(state: &mut State, table: &mut dyn Table) -> Vec<Event> {
    let mut events = Vec::new();
    let attacker = battle(state).attacker;
    for side in [attacker, other(attacker)] {
        let siege_side = battle(state).siege && side != attacker;
        // A disk that absorbs a siege loss takes the first one.
        if siege_side && battle(state).owed[side] > 0 {
            let area = battle(state).area;
            if let Some(d) = state.board.areas[area].disk
                && !state.disks_lost[d]
                && state.board.disks[d].effect == DiskEffect::AbsorbsSiegeLoss
            {
                battle_mut(state).owed[side] -= 1;
                events.extend(lose_disk(state, d));
            }
        }
        loop {
            let owed = battle(state).owed[side];
            if owed == 0 {
                break;
            }
            let tiers = casualty_tiers(state, side);
            let Some(tier) = tiers.iter().find(|t| !t.is_empty()) else {
                // Nothing left: a disk that is always the last loss goes now.
                let area = battle(state).area;
                if siege_side
                    && let Some(d) = state.board.areas[area].disk
                    && !state.disks_lost[d]
                    && state.board.disks[d].effect == DiskEffect::LossEndsGame
                {
                    events.extend(lose_disk(state, d));
                }
                battle_mut(state).owed[side] = 0;
                break;
            };
            if tier.len() as u32 <= owed {
                let tier = tier.clone();
                events.extend(take_losses(state, side, &tier));
            } else {
                battle_mut(state).stage = Stage::Casualties(side, owed);
                return events;
            }
        }
    }
    events.extend(retreat_or_finish(state, table));
    events
}

/// Eliminates chosen casualties.
pub fn take_losses(state: &mut State, side: Side, blocks: &[usize]) -> Vec<Event> {
    let mut events = Vec::new();
    for &blk in blocks {
        events.push(Event::public(
            Message::new("event.casualty")
                .seat("side", side as u32)
                .arg("block", names::block_arg(state, blk)),
        ));
        eliminate(state, blk);
        let b = battle_mut(state);
        b.owed[side] = b.owed[side].saturating_sub(1);
        b.lost[side] += 1;
    }
    events
}

/// Where the loser's survivors may retreat: adjacent areas without enemies, or whose enemies
/// they overrun.
pub fn retreat_areas(state: &State, side: Side) -> Vec<usize> {
    let b = battle(state);
    let survivors = state.count_in(b.area, side);
    state.board.areas[b.area]
        .roads
        .iter()
        .map(|&r| state.board.roads[r].other(b.area))
        .filter(|&a| state.count_in(a, other(side)) == 0 || overruns(state, side, a, survivors))
        .collect()
}

fn retreat_or_finish(state: &mut State, table: &mut dyn Table) -> Vec<Event> {
    let b = battle(state);
    let loser = other(b.winner.expect("resolved"));
    let area = b.area;
    let (siege, attacker) = (b.siege, b.attacker);
    if state.count_in(area, loser) == 0 {
        return finish(state, table);
    }
    // A castle's defender beaten in the field keeps the castle: its survivors go inside, and
    // the besiegers face them again in a later combat phase.
    if state.settings.castle_refuge
        && !siege
        && loser != attacker
        && state.board.areas[area].is_castle()
        && state.control[area] == Some(loser)
    {
        let survivors = state.count_in(area, loser);
        let mut events = vec![Event::public(
            Message::new("event.refuge")
                .seat("side", loser as u32)
                .number("blocks", survivors as i64)
                .arg("area", names::area(state, area)),
        )];
        events.extend(finish(state, table));
        return events;
    }
    let options = retreat_areas(state, loser);
    if !state.settings.retreat || options.is_empty() {
        let survivors: Vec<usize> = state.blocks_in(area, loser).collect();
        let mut events = Vec::new();
        for blk in survivors {
            events.push(Event::public(
                Message::new("event.no-retreat")
                    .seat("side", loser as u32)
                    .arg("block", names::block_arg(state, blk)),
            ));
            eliminate(state, blk);
            battle_mut(state).lost[loser] += 1;
        }
        events.extend(finish(state, table));
        return events;
    }
    if options.len() == 1 {
        return retreat(state, options[0], table);
    }
    battle_mut(state).stage = Stage::Retreat(loser);
    Vec::new()
}

/// The loser's survivors retreat to `to`.
pub fn retreat(state: &mut State, to: usize, table: &mut dyn Table) -> Vec<Event> {
    let b = battle(state);
    let loser = other(b.winner.expect("resolved"));
    let from = b.area;
    let survivors: Vec<usize> = state.blocks_in(from, loser).collect();
    let mut events = Vec::new();
    if overruns(state, loser, to, survivors.len()) {
        events.extend(crate::movement::overrun(state, loser, to, table));
    }
    for &blk in &survivors {
        let block = &mut state.blocks[blk];
        block.place = Place::Area(to);
        block.shown = false;
        block.known = false;
    }
    events.push(Event::public(
        Message::new("event.retreat")
            .seat("side", loser as u32)
            .number("blocks", survivors.len() as i64)
            .arg("from", names::area(state, from))
            .arg("to", names::area(state, to)),
    ));
    events.extend(finish(state, table));
    events
}

/// Closes the battle: cards to the discards, revealed blocks hidden again, replacement cards,
/// control, the instant win.
pub fn finish(state: &mut State, table: &mut dyn Table) -> Vec<Event> {
    let b = state.battle.take().expect("a battle is under way");
    for side in 0..2 {
        state.discards[side].extend(b.cards[side].iter().copied());
    }
    for d in &b.deployed {
        state.blocks[d.block].shown = false;
    }
    let mut events = Vec::new();
    for side in 0..2 {
        events.extend(replenish(state, side, b.lost[side], table));
    }
    events.extend(update_control(state));
    events.extend(check_instant_win(state));
    if state.ending.is_none() {
        state.step = Step::CombatPick;
    }
    events
}
