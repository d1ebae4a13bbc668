//! Combat: battles and sieges, deployment by cards with Impact, loyalty challenges, casualties,
//! retreat and card replenishment.

use sdk::Table;

use crate::data::{CardKind, DiskEffect};
use crate::engine::{check_instant_win, discard, eliminate, lose_disk, replenish, update_control};
use crate::movement::overruns;
use crate::outcome::{Log, Outcome};
use crate::state::*;

/// Starts the combat in a contested area, declared by the active side.
pub fn start(state: &mut State, area: usize, log: &mut Log) {
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
    log.push(state, Outcome::BattleStarted { attacker, area });
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

/// Deploys blocks with a card (or leaders free with none).
pub fn deploy(state: &mut State, side: Side, card: Option<usize>, blocks: &[usize], log: &mut Log) {
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
        log.push(
            state,
            Outcome::Deployed {
                side,
                block: blk,
                with_card: card.is_some(),
                base,
                clan,
                special,
                impact: total,
                running,
            },
        );
    }
    battle_mut(state).last = last;
}

/// After a deployment by `deployer`: the other side may challenge, else play goes on.
pub fn after_deploy(state: &mut State, deployer: Side, table: &mut dyn Table, log: &mut Log) {
    let free = battle(state)
        .last
        .iter()
        .all(|&i| battle(state).deployed[i].card.is_none());
    if !free && !challenge_cards(state, other(deployer)).is_empty() {
        battle_mut(state).stage = Stage::Challenge(other(deployer));
        return;
    }
    next_actor(state, deployer, table, log);
}

/// Resolves a loyalty challenge by `challenger` against the last deployment.
pub fn challenge(state: &mut State, challenger: Side, table: &mut dyn Table, log: &mut Log) {
    let deployer = other(challenger);
    let lc = challenge_cards(state, challenger)[0];
    discard(state, challenger, lc);
    let last = battle(state).last.clone();
    let first_block = battle(state).deployed[last[0]].block;
    // One card that could have deployed the (first) block refutes the challenge.
    let refute = state.hands[deployer]
        .iter()
        .position(|h| card_fits(state, h.card, first_block));
    if let Some(i) = refute {
        state.hands[deployer][i].known = true;
        let card = state.hands[deployer][i].card;
        log.push(
            state,
            Outcome::ChallengeRefuted {
                challenger,
                side: deployer,
                card,
            },
        );
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
            log.push(
                state,
                Outcome::BlockTurned {
                    challenger,
                    block: blk,
                    impact: gained,
                    running,
                },
            );
        }
    }
    next_actor(state, deployer, table, log);
}

/// Who acts after `actor`: the attacker's first card, then the side with less Impact (the
/// attacker on a tie) or, in the alternating variant, the other side.
pub fn next_actor(state: &mut State, actor: Side, table: &mut dyn Table, log: &mut Log) {
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
    to_deploy(state, next, table, log);
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
pub fn to_deploy(state: &mut State, side: Side, table: &mut dyn Table, log: &mut Log) {
    if deploy_cards(state, side).is_empty() {
        return pass(state, side, table, log);
    }
    battle_mut(state).stage = Stage::Deploy(side);
}

/// A side passes (or cannot deploy): the attacker's first pass lets the defender act; any other
/// pass ends the deployment.
pub fn pass(state: &mut State, side: Side, table: &mut dyn Table, log: &mut Log) {
    let b = battle(state);
    if !b.first_done && side == b.attacker {
        log.push(state, Outcome::Passed { side });
        battle_mut(state).first_done = true;
        let defender = other(side);
        if deploy_cards(state, defender).is_empty() {
            resolve(state, table, log);
        } else {
            battle_mut(state).stage = Stage::Deploy(defender);
        }
        return;
    }
    log.push(state, Outcome::Passed { side });
    resolve(state, table, log);
}

/// The end of deployment: the winner, the losses owed, then casualties.
pub fn resolve(state: &mut State, table: &mut dyn Table, log: &mut Log) {
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
    log.push(
        state,
        Outcome::BattleWon {
            side: winner,
            area,
            impact,
        },
    );
    next_casualties(state, table, log);
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
pub fn next_casualties(state: &mut State, table: &mut dyn Table, log: &mut Log) {
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
                lose_disk(state, d, log);
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
                    lose_disk(state, d, log);
                }
                battle_mut(state).owed[side] = 0;
                break;
            };
            if tier.len() as u32 <= owed {
                let tier = tier.clone();
                take_losses(state, side, &tier, log);
            } else {
                battle_mut(state).stage = Stage::Casualties(side, owed);
                return;
            }
        }
    }
    retreat_or_finish(state, table, log);
}

/// Eliminates chosen casualties.
pub fn take_losses(state: &mut State, side: Side, blocks: &[usize], log: &mut Log) {
    for &blk in blocks {
        log.push(state, Outcome::Casualty { side, block: blk });
        eliminate(state, blk);
        let b = battle_mut(state);
        b.owed[side] = b.owed[side].saturating_sub(1);
        b.lost[side] += 1;
    }
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

fn retreat_or_finish(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    let b = battle(state);
    let loser = other(b.winner.expect("resolved"));
    let area = b.area;
    let (siege, attacker) = (b.siege, b.attacker);
    if state.count_in(area, loser) == 0 {
        return finish(state, table, log);
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
        log.push(
            state,
            Outcome::Refuge {
                side: loser,
                blocks: survivors,
                area,
            },
        );
        finish(state, table, log);
        return;
    }
    let options = retreat_areas(state, loser);
    if !state.settings.retreat || options.is_empty() {
        let survivors: Vec<usize> = state.blocks_in(area, loser).collect();
        for blk in survivors {
            log.push(
                state,
                Outcome::NoRetreat {
                    side: loser,
                    block: blk,
                },
            );
            eliminate(state, blk);
            battle_mut(state).lost[loser] += 1;
        }
        finish(state, table, log);
        return;
    }
    if options.len() == 1 {
        return retreat(state, options[0], table, log);
    }
    battle_mut(state).stage = Stage::Retreat(loser);
}

/// The loser's survivors retreat to `to`.
pub fn retreat(state: &mut State, to: usize, table: &mut dyn Table, log: &mut Log) {
    let b = battle(state);
    let loser = other(b.winner.expect("resolved"));
    let from = b.area;
    let survivors: Vec<usize> = state.blocks_in(from, loser).collect();
    if overruns(state, loser, to, survivors.len()) {
        crate::movement::overrun(state, loser, to, table, log);
    }
    for &blk in &survivors {
        let block = &mut state.blocks[blk];
        block.place = Place::Area(to);
        block.shown = false;
        block.known = false;
    }
    log.push(
        state,
        Outcome::Retreated {
            side: loser,
            blocks: survivors.len(),
            from,
            to,
        },
    );
    finish(state, table, log);
}

/// Closes the battle: cards to the discards, revealed blocks hidden again, replacement cards,
/// control, the instant win.
pub fn finish(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    let b = state.battle.take().expect("a battle is under way");
    for side in 0..2 {
        state.discards[side].extend(b.cards[side].iter().copied());
    }
    for d in &b.deployed {
        state.blocks[d.block].shown = false;
    }
    for side in 0..2 {
        replenish(state, side, b.lost[side], table, log);
    }
    update_control(state, log);
    check_instant_win(state, log);
    if state.ending.is_none() {
        state.step = Step::CombatPick;
    }
}
