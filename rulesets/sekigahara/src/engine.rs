//! The rules as functions over the state: setup, the weekly sequence, cards, control and the
//! end of the game. Movement is in [`crate::movement`], combat in [`crate::combat`].

use sdk::{Table, TableExt};

use crate::data::{AreaKind, Board, DiskEffect, Start};
use crate::outcome::{Log, Outcome, WeekLine};
use crate::state::*;

/// Cards drawn each week and dealt at the start.
pub const HAND: usize = 5;

/// Sets up a game: blocks on their areas, random blocks in each reinforcement box (4 unless the
/// board says otherwise), the rest in
/// the bags, the box blocks in their box, 5 cards each.
pub fn new_game(board: Board, settings: Settings, table: &mut dyn Table) -> State {
    let blocks = board
        .blocks
        .iter()
        .map(|b| BlockState {
            place: match b.start {
                Start::Area(a) => Place::Area(a),
                Start::Bag => Place::Bag,
                Start::Box => Place::Box,
            },
            shown: false,
            // The starting positions are printed in the board file: the opponent knows which
            // block stands where until it moves. The box is face up.
            known: b.start != Start::Bag,
            moved: false,
        })
        .collect();
    let control = board
        .areas
        .iter()
        .map(|a| match a.kind {
            AreaKind::Plain => None,
            _ => a.owner,
        })
        .collect();
    let decks = [0, 1].map(|side| {
        (0..board.cards.len())
            .filter(|&c| board.cards[c].side == side)
            .collect()
    });
    let disks = board.disks.len();
    let roads = board.roads.len();
    let mut state = State {
        board: std::sync::Arc::new(board),
        settings,
        week: 1,
        turn: 0,
        first: 0,
        phase: 0,
        blocks,
        hands: [Vec::new(), Vec::new()],
        decks,
        discards: [Vec::new(), Vec::new()],
        control,
        disks_lost: vec![false; disks],
        last_bids: [None, None],
        step: Step::Bid { bids: [None, None] },
        movement: Movement {
            roads: vec![None; roads],
            ..Movement::default()
        },
        battle: None,
        fallen: [false, false],
        ending: None,
    };
    for side in 0..2 {
        for _ in 0..state.board.starting_reinforcements {
            draw_block(&mut state, side, table);
        }
        draw_cards(&mut state, side, HAND, table);
    }
    update_control(&mut state, &mut Log::new());
    state
}

/// Draws one block from a side's bag into its reinforcement box; false when the bag is empty.
pub fn draw_block(state: &mut State, side: Side, table: &mut dyn Table) -> bool {
    let bag = state.blocks_at(Place::Bag, side);
    if bag.is_empty() {
        return false;
    }
    let b = bag[table.pick_index(bag.len())];
    state.blocks[b].place = Place::Reserve;
    state.blocks[b].known = false;
    true
}

/// Draws cards into a hand at random from the draw pile, refilling it from the discards when
/// the settings allow. Returns how many were drawn.
pub fn draw_cards(state: &mut State, side: Side, n: usize, table: &mut dyn Table) -> usize {
    let mut drawn = 0;
    for _ in 0..n {
        if state.decks[side].is_empty() && state.settings.reshuffle {
            state.decks[side] = std::mem::take(&mut state.discards[side]);
        }
        if state.decks[side].is_empty() {
            break;
        }
        let i = table.pick_index(state.decks[side].len());
        let card = state.decks[side].swap_remove(i);
        state.hands[side].push(HandCard { card, known: false });
        drawn += 1;
    }
    drawn
}

/// Moves a card from a hand to the discards.
pub fn discard(state: &mut State, side: Side, card: usize) {
    if let Some(i) = state.hands[side].iter().position(|h| h.card == card) {
        state.hands[side].remove(i);
        state.discards[side].push(card);
    }
}

/// Eliminates a block; a commander's elimination is recorded for the end of the game.
pub fn eliminate(state: &mut State, b: usize) {
    state.blocks[b].place = Place::Eliminated;
    state.blocks[b].shown = false;
    state.blocks[b].moved = false;
    if state.board.blocks[b].commander {
        state.fallen[state.board.blocks[b].side] = true;
    }
}

/// Recomputes control: a castle belongs to the side alone in it, keeps its controller while
/// contested and reverts to its original owner when empty; a resource area belongs to the last
/// side alone in it. A castle that changes hands loses its disk.
pub fn update_control(state: &mut State, log: &mut Log) {
    let counts = state.counts();
    for (a, count) in counts.iter().enumerate() {
        let area = &state.board.areas[a];
        let (kind, owner, disk) = (area.kind, area.owner, area.disk);
        let present = [count[0] > 0, count[1] > 0];
        let alone = match present {
            [true, false] => Some(0),
            [false, true] => Some(1),
            _ => None,
        };
        match kind {
            AreaKind::Plain => {}
            AreaKind::Castle => {
                let now = match present {
                    [false, false] => owner,
                    [true, true] => state.control[a],
                    _ => alone,
                };
                state.control[a] = now;
                if let (Some(d), Some(holder)) = (disk, now)
                    && Some(holder) != owner
                    && !state.disks_lost[d]
                {
                    lose_disk(state, d, log);
                }
            }
            AreaKind::Resource | AreaKind::Capital => {
                if alone.is_some() {
                    state.control[a] = alone;
                }
            }
        }
    }
}

/// A disk is lost; one whose loss ends the game makes its side fall.
pub fn lose_disk(state: &mut State, d: usize, log: &mut Log) {
    state.disks_lost[d] = true;
    let disk = &state.board.disks[d];
    let area = disk.area;
    let side = state.board.areas[area].owner.unwrap_or(0);
    if disk.effect == DiskEffect::LossEndsGame {
        state.fallen[side] = true;
    }
    log.push(state, Outcome::DiskLost { disk: d, area });
}

/// Ends the game when a side has fallen: its opponent wins; both at once, the tie winner.
pub fn check_instant_win(state: &mut State, log: &mut Log) {
    if state.ending.is_some() {
        return;
    }
    let winner = match state.fallen {
        [true, true] => state.tie_winner(),
        [true, false] => 1,
        [false, true] => 0,
        [false, false] => return,
    };
    let reason = if (0..state.board.blocks.len()).any(|b| {
        state.board.blocks[b].commander
            && state.board.blocks[b].side == other(winner)
            && state.blocks[b].place == Place::Eliminated
    }) {
        Ending::Commander
    } else {
        Ending::Disk
    };
    state.ending = Some((winner, reason));
    state.step = Step::Over;
    state.battle = None;
    log.push(
        state,
        Outcome::WonAtOnce {
            side: winner,
            reason,
        },
    );
}

/// Starts a movement phase for the active side.
pub fn start_movement(state: &mut State) {
    state.movement = Movement {
        roads: vec![None; state.board.roads.len()],
        ..Movement::default()
    };
    for b in &mut state.blocks {
        b.moved = false;
    }
    state.step = Step::MoveLevel;
}

/// Runs the game forward past every point that needs no decision.
pub fn advance(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    check_instant_win(state, log);
    loop {
        if state.ending.is_some() {
            state.step = Step::Over;
            return;
        }
        match &state.step {
            Step::ReinforceDiscard { done } => {
                let mut done = *done;
                for (side, done) in done.iter_mut().enumerate() {
                    if state.hands[side].len() / 2 == 0 {
                        *done = true;
                    }
                }
                if done == [true, true] {
                    reinforce(state, table, log);
                    state.step = Step::Bid { bids: [None, None] };
                } else {
                    state.step = Step::ReinforceDiscard { done };
                    return;
                }
            }
            Step::Bid { bids } => {
                let mut bids = *bids;
                // A side without cards bids nothing.
                let ready: Vec<bool> = (0..2)
                    .map(|s| bids[s].is_some() || state.hands[s].is_empty())
                    .collect();
                if !(ready[0] && ready[1]) {
                    return;
                }
                let number = |s: usize, bids: &[Option<usize>; 2]| {
                    bids[s].map_or(0, |c| state.board.cards[c].number)
                };
                let (n0, n1) = (number(0, &bids), number(1, &bids));
                let winner = if n0 == n1 {
                    state.tie_winner()
                } else if n0 > n1 {
                    0
                } else {
                    1
                };
                log.push(
                    state,
                    Outcome::Bids {
                        winner,
                        numbers: [n0, n1],
                    },
                );
                state.last_bids = bids;
                for (s, bid) in bids.iter_mut().enumerate() {
                    if let Some(card) = bid.take() {
                        state.discards[s].push(card);
                    }
                }
                state.step = Step::ChooseFirst { chooser: winner };
                return;
            }
            Step::CombatPick => {
                let contested = state.to_fight();
                if contested.is_empty() {
                    end_phase(state, table, log);
                    continue;
                }
                return;
            }
            Step::Over => return,
            _ => return,
        }
    }
}

/// The reinforcement step (weeks 2 on): draw 5 cards (+1 for most castles), blocks from the bag
/// by the track (+1 for most resource areas, both on a tie).
fn reinforce(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    let holdings = [state.holdings(0), state.holdings(1)];
    let track = state
        .board
        .track
        .get(state.week as usize - 2)
        .copied()
        .unwrap_or(0) as usize;
    for side in 0..2 {
        let extra_card = holdings[side].0 > holdings[other(side)].0;
        let extra_block = holdings[side].1 >= holdings[other(side)].1;
        let cards = draw_cards(state, side, HAND + usize::from(extra_card), table);
        let mut blocks = 0;
        let mut drawn = Vec::new();
        for _ in 0..track + usize::from(extra_block) {
            let before = state.blocks_at(Place::Reserve, side);
            if draw_block(state, side, table) {
                blocks += 1;
                drawn.extend(
                    state
                        .blocks_at(Place::Reserve, side)
                        .into_iter()
                        .filter(|b| !before.contains(b)),
                );
            }
        }
        for block in drawn {
            log.push(state, Outcome::Drawn { side, block });
        }
        log.push(
            state,
            Outcome::Reinforced {
                side,
                cards,
                blocks,
            },
        );
    }
}

/// Ends a combat phase: the next phase, turn or week, or the end of the game.
pub fn end_phase(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    match state.phase {
        1 => {
            state.phase = 2;
            start_movement(state);
        }
        _ => {
            state.phase = 0;
            if state.turn == 0 {
                state.turn = 1;
                start_movement(state);
            } else {
                log.push(state, week_summary(state));
                if state.week >= state.board.weeks() {
                    final_scoring(state, log);
                } else {
                    state.week += 1;
                    state.turn = 0;
                    state.step = Step::ReinforceDiscard {
                        done: [false, false],
                    };
                    advance(state, table, log);
                }
            }
        }
    }
}

fn week_summary(state: &State) -> Outcome {
    let line = |side: Side| {
        let (castles, resources) = state.holdings(side);
        WeekLine {
            castles,
            resources,
            points: state.points(side),
            on_map: (0..state.blocks.len())
                .filter(|&b| {
                    state.board.blocks[b].side == side
                        && matches!(state.blocks[b].place, Place::Area(_))
                })
                .count(),
        }
    };
    Outcome::WeekEnded {
        week: state.week,
        sides: [line(0), line(1)],
    }
}

fn final_scoring(state: &mut State, log: &mut Log) {
    let (p0, p1) = (state.points(0), state.points(1));
    let winner = if p0 == p1 {
        state.tie_winner()
    } else if p0 > p1 {
        0
    } else {
        1
    };
    state.ending = Some((winner, Ending::Points));
    state.step = Step::Over;
    log.push(
        state,
        Outcome::WonOnPoints {
            side: winner,
            points: [p0, p1],
        },
    );
}

/// Draws replacement cards for blocks lost in a battle or an overrun: 1 per 2 blocks.
pub fn replenish(state: &mut State, side: Side, lost: u32, table: &mut dyn Table, log: &mut Log) {
    let n = (lost / 2) as usize;
    if n == 0 {
        return;
    }
    let drawn = draw_cards(state, side, n, table);
    log.push(state, Outcome::Replenished { side, cards: drawn });
}
