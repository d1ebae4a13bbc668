//! How an answer applies: the acts a seat picked (read through its offer, [`crate::ask`]) carried
//! out by the rules, with what happened reported as typed outcomes in a [`Log`].

use sdk::{Answer, Event, Offer, Rejection, Seat, Table};

use crate::SekigaharaGame;
use crate::ask::Act;
use crate::combat;
use crate::engine::{self, advance, discard};
use crate::movement::{self, movable};
use crate::outcome::{Log, Outcome};
use crate::state::*;
use crate::tell;

/// Carries out `seat`'s answer, read through its offer into the acts it picked, and reports
/// what happened in `log`.
pub fn play(
    state: &mut State,
    seat: Seat,
    acts: Vec<Act>,
    table: &mut dyn Table,
    log: &mut Log,
) -> Result<(), Rejection> {
    let side = seat as usize;
    let cards = |acts: &[Act]| -> Vec<usize> {
        acts.iter()
            .filter_map(|a| match a {
                Act::Card(c) => Some(*c),
                _ => None,
            })
            .collect()
    };
    let blocks = |acts: &[Act]| -> Vec<usize> {
        acts.iter()
            .filter_map(|a| match a {
                Act::Block(b) => Some(*b),
                _ => None,
            })
            .collect()
    };
    match state.step.clone() {
        Step::ReinforceDiscard { mut done } => {
            for c in cards(&acts) {
                discard(state, side, c);
            }
            done[side] = true;
            log.push(
                state,
                Outcome::ReinforceDiscarded {
                    side,
                    cards: acts.len(),
                },
            );
            state.step = Step::ReinforceDiscard { done };
        }
        Step::Bid { mut bids } => {
            let card = cards(&acts)[0];
            if let Some(i) = state.hands[side].iter().position(|h| h.card == card) {
                state.hands[side].remove(i);
            }
            bids[side] = Some(card);
            log.push(state, Outcome::BidPlaced { side });
            state.step = Step::Bid { bids };
        }
        Step::ChooseFirst { .. } => {
            let Act::First(first) = acts[0] else {
                unreachable!()
            };
            state.first = first;
            state.phase = 0;
            log.push(
                state,
                Outcome::First {
                    side: first,
                    week: state.week,
                },
            );
            engine::start_movement(state);
        }
        Step::MoveLevel => {
            let Act::Level(level) = acts[0] else {
                unreachable!()
            };
            state.movement.level = Some(level);
            log.push(state, Outcome::LevelChosen { side, level });
            state.step = match level {
                Level::Minimal => Step::MoveMenu,
                _ => Step::MoveDiscard { level },
            };
        }
        Step::MoveDiscard { level } => {
            let picked = cards(&acts);
            for &c in &picked {
                discard(state, side, c);
            }
            log.push(
                state,
                Outcome::MovementCards {
                    side,
                    cards: picked.len(),
                },
            );
            if level == Level::None {
                engine::draw_cards(state, side, picked.len(), table);
            }
            movement::box_arrivals(state, side, picked.len(), table, log);
            state.step = if level == Level::None {
                end_movement(state)
            } else {
                Step::MoveMenu
            };
        }
        // Every answer tells what it did (a step told as "made a move" says nothing): the
        // steps that only open the next question name the place and the count, never which
        // blocks, which the opponent may not know.
        Step::MoveMenu => match acts[0] {
            Act::MoreStack => {
                let (area, _) = state.movement.current.expect("a stack is moving");
                log.push(state, Outcome::ActivatedMore { side, area });
                state.step = Step::MoveBlocks { area };
            }
            Act::Stack(area) => {
                let id = state.movement.activations;
                state.movement.activations += 1;
                state.movement.current = Some((area, id));
                log.push(state, Outcome::Activated { side, area });
                state.step = Step::MoveBlocks { area };
            }
            Act::Muster => {
                state.movement.current = None;
                if state.movement.level != Some(Level::Full) {
                    state.movement.activations += 1;
                }
                log.push(state, Outcome::MusterStarted { side });
                state.step = Step::MusterPick;
            }
            Act::EndMovement => {
                log.push(state, Outcome::MovementEnded { side });
                state.step = end_movement(state);
            }
            _ => unreachable!(),
        },
        Step::MoveBlocks { area } => {
            let blocks = if acts.contains(&Act::AllBlocks) {
                movable(state, area)
            } else {
                blocks(&acts)
            };
            log.push(
                state,
                Outcome::SetOut {
                    side,
                    blocks: blocks.len(),
                    area,
                },
            );
            state.step = Step::MoveDest { area, blocks };
        }
        Step::MoveDest { area, blocks } => match &acts[0] {
            Act::Stay => {
                for &b in &blocks {
                    state.blocks[b].moved = true;
                }
                log.push(
                    state,
                    Outcome::Stayed {
                        side,
                        blocks: blocks.len(),
                        area,
                    },
                );
                state.step = Step::MoveMenu;
            }
            Act::Dest(route) => {
                let march = route.needs_march;
                if route.needs_leader || march {
                    log.push(
                        state,
                        Outcome::MovePlanned {
                            side,
                            from: area,
                            to: route.dest,
                        },
                    );
                }
                if route.needs_leader {
                    state.step = Step::MoveLeader {
                        blocks,
                        dest: route.dest,
                        march,
                    };
                } else if march {
                    state.step = Step::MoveMarch {
                        blocks,
                        dest: route.dest,
                        leader: None,
                    };
                } else {
                    finish_move(state, &blocks, route.dest, None, None, table, log)?;
                }
            }
            _ => unreachable!(),
        },
        Step::MoveLeader {
            blocks,
            dest,
            march,
        } => {
            let leader = blocks_or_leader(&acts);
            if march {
                let from = state.movement.current.map_or(dest, |(area, _)| area);
                log.push(
                    state,
                    Outcome::MovePlanned {
                        side,
                        from,
                        to: dest,
                    },
                );
                state.step = Step::MoveMarch {
                    blocks,
                    dest,
                    leader: Some(leader),
                };
            } else {
                finish_move(state, &blocks, dest, Some(leader), None, table, log)?;
            }
        }
        Step::MoveMarch {
            blocks,
            dest,
            leader,
        } => {
            let card = cards(&acts)[0];
            finish_move(state, &blocks, dest, leader, Some(card), table, log)?;
        }
        Step::MusterPick => match acts[0] {
            Act::MusterA(clan, area) => {
                log.push(state, Outcome::MusterAChosen { side, clan, area });
                state.step = Step::MusterBlocks { clan, area };
            }
            Act::MusterB => {
                log.push(state, Outcome::MusterBChosen { side });
                state.step = Step::MusterOne;
            }
            _ => unreachable!(),
        },
        Step::MusterBlocks { clan, area } => {
            let blocks = if acts.contains(&Act::AllBlocks) {
                state
                    .blocks_at(Place::Reserve, side)
                    .into_iter()
                    .filter(|&b| state.board.blocks[b].clan == clan)
                    .collect()
            } else {
                blocks(&acts)
            };
            movement::muster(state, side, &blocks, area, true, table, log);
            state.step = Step::MoveMenu;
        }
        Step::MusterOne => {
            log.push(state, Outcome::MusterBBlock { side });
            state.step = Step::MusterWhere {
                block: blocks(&acts)[0],
            };
        }
        Step::MusterWhere { block } => {
            let Act::Area(area) = acts[0] else {
                unreachable!()
            };
            movement::muster(state, side, &[block], area, false, table, log);
            state.step = Step::MoveMenu;
        }
        Step::CombatPick => {
            let Act::Area(area) = acts[0] else {
                unreachable!()
            };
            combat::start(state, area, log);
            skip_empty_openings(state, table, log);
        }
        Step::Battle => {
            let area = state.battle.as_ref().expect("battle").area;
            let mut battle = Log::new();
            apply_battle(state, side, &acts, table, &mut battle);
            for (outcome, _) in battle.into_outcomes() {
                let outcome = Box::new(outcome);
                log.push(state, Outcome::InBattle { area, outcome });
            }
        }
        Step::Over => return Err(Rejection::NotYourTurn),
    }
    advance(state, table, log);
    Ok(())
}

fn blocks_or_leader(acts: &[Act]) -> usize {
    match acts[0] {
        Act::Leader(b) | Act::Block(b) => b,
        _ => unreachable!(),
    }
}

fn end_movement(state: &mut State) -> Step {
    state.phase += 1;
    state.movement.current = None;
    Step::CombatPick
}

fn finish_move(
    state: &mut State,
    blocks: &[usize],
    dest: usize,
    leader: Option<usize>,
    march: Option<usize>,
    table: &mut dyn Table,
    log: &mut Log,
) -> Result<(), Rejection> {
    let side = state.active();
    let (area, _) = state.movement.current.expect("a stack is moving");
    let route = movement::routes(state, side, area, blocks)
        .into_iter()
        .find(|r| r.dest == dest)
        .ok_or_else(tell::route_refused)?;
    let led = movement::Led { leader, march };
    movement::move_group(state, side, blocks, &route, led, table, log);
    state.step = Step::MoveMenu;
    Ok(())
}

/// Skips opening deployments for sides without leaders in the battle.
fn skip_empty_openings(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    loop {
        let Some(battle) = &state.battle else {
            return;
        };
        match battle.stage {
            Stage::Opening(side) if combat::opening_leaders(state, side).is_empty() => {
                after_opening(state, side, table, log);
            }
            _ => return,
        }
    }
}

fn after_opening(state: &mut State, side: Side, table: &mut dyn Table, log: &mut Log) {
    let attacker = state.battle.as_ref().expect("battle").attacker;
    if side == attacker {
        state.battle.as_mut().expect("battle").stage = Stage::Opening(other(attacker));
    } else {
        combat::to_deploy(state, attacker, table, log);
    }
}

fn apply_battle(state: &mut State, side: Side, acts: &[Act], table: &mut dyn Table, log: &mut Log) {
    let stage = state.battle.as_ref().expect("battle").stage.clone();
    let blocks: Vec<usize> = acts
        .iter()
        .filter_map(|a| match a {
            Act::Block(b) => Some(*b),
            _ => None,
        })
        .collect();
    match stage {
        Stage::SiegeChoice => {
            let withdraw = matches!(acts[0], Act::Withdraw(true));
            let bonus = state.settings.siege_bonus as i32;
            let b = state.battle.as_mut().expect("battle");
            b.siege = withdraw;
            if withdraw {
                // The walls fight for the besieged (completion 5's option; 0 by default).
                b.impact[side] += bonus;
            }
            let attacker = b.attacker;
            b.stage = Stage::Opening(attacker);
            let area = b.area;
            log.push(
                state,
                Outcome::SiegeAnswered {
                    side,
                    area,
                    withdraw,
                },
            );
        }
        Stage::Opening(s) => {
            if blocks.is_empty() {
                log.push(state, Outcome::NoLeader { side: s });
            }
            combat::deploy(state, s, None, &blocks, log);
            after_opening(state, s, table, log);
        }
        Stage::Deploy(s) => match acts[0] {
            Act::Pass => combat::pass(state, s, table, log),
            Act::Card(card) => {
                // The card is played face up (seed 8.2.3): told now, its blocks next.
                log.push(state, Outcome::CardPlayed { side: s, card });
                state.battle.as_mut().expect("battle").stage = Stage::DeployBlocks(s, card);
            }
            _ => unreachable!(),
        },
        Stage::DeployBlocks(s, card) => {
            combat::deploy(state, s, Some(card), &blocks, log);
            combat::after_deploy(state, s, table, log);
        }
        Stage::Challenge(s) => {
            if matches!(acts[0], Act::Challenge(true)) {
                combat::challenge(state, s, table, log);
            } else {
                log.push(state, Outcome::NoChallenge { side: s });
                combat::next_actor(state, other(s), table, log);
            }
        }
        Stage::Casualties(s, _) => {
            combat::take_losses(state, s, &blocks, log);
            combat::next_casualties(state, table, log);
        }
        Stage::Retreat(_) => {
            let Act::Area(to) = acts[0] else {
                unreachable!()
            };
            combat::retreat(state, to, table, log);
        }
    }
    skip_empty_openings(state, table, log);
}

/// Each seat is offered [`Act`]s ([`crate::ask`]); the acts it picks are carried out by [`play`].
impl sdk::Play for SekigaharaGame {
    type Move = Act;

    fn offers(&self) -> Vec<Offer<Act>> {
        crate::ask::asks(&self.state)
    }

    fn play(
        &mut self,
        seat: Seat,
        answer: Answer<Act>,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        let mut log = Log::new();
        play(&mut self.state, seat, answer.into_moves(), table, &mut log)?;
        Ok(log.into_events())
    }
}
