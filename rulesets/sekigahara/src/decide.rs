//! What each seat is asked, and how its answer applies. Every decision is a `choose`: a list of
//! labelled choices, each with a detail saying its consequence, and an [`Act`] per choice that
//! `apply` carries out.

use sdk::{
    Action, Choice, ChooseDecision, DecisionKind, Event, Message, PendingDecision, Rejection, Seat,
    Table,
};

use crate::combat;
use crate::data::CardKind;
use crate::engine::{self, advance, discard};
use crate::movement::{self, Route};
use crate::names;
use crate::state::*;

/// What a choice does.
#[derive(Clone, Debug, PartialEq)]
pub enum Act {
    Card(usize),
    First(Side),
    Level(Level),
    Stack(usize),
    MoreStack,
    Muster,
    EndMovement,
    Block(usize),
    /// Every block offered (the default of "which blocks go").
    AllBlocks,
    Dest(Route),
    Stay,
    Leader(usize),
    MusterA(usize, usize),
    MusterB,
    Area(usize),
    Withdraw(bool),
    Pass,
    Challenge(bool),
}

/// One pending question.
pub struct Ask {
    pub seat: Side,
    pub prompt: Message,
    pub choices: Vec<(Choice, Act)>,
    pub min: u32,
    pub max: u32,
    pub private: bool,
}

impl Ask {
    fn one(seat: Side, prompt: Message, choices: Vec<(Choice, Act)>, private: bool) -> Ask {
        Ask {
            seat,
            prompt,
            choices,
            min: 1,
            max: 1,
            private,
        }
    }

    /// The contract's form.
    pub fn pending(&self) -> PendingDecision {
        PendingDecision {
            seat: self.seat as Seat,
            prompt: self.prompt.clone(),
            private: self.private,
            kind: DecisionKind::Choose(ChooseDecision {
                choices: self.choices.iter().map(|(c, _)| c.clone()).collect(),
                min: self.min,
                max: self.max,
            }),
            back: None,
        }
    }
}

fn card_choice(state: &State, card: usize, detail: Message) -> (Choice, Act) {
    (
        Choice::new(format!("card-{card}"), names::card(state, card)).with_detail(detail),
        Act::Card(card),
    )
}

fn block_choice(state: &State, b: usize, detail: Message) -> (Choice, Act) {
    (
        Choice::new(format!("block-{b}"), names::block(state, b)).with_detail(detail),
        Act::Block(b),
    )
}

fn area_choice(state: &State, a: usize, label_key: &str, detail: Message) -> (Choice, Act) {
    (
        Choice::new(
            names::place_key(state, a),
            Message::new(label_key).arg("area", names::area(state, a)),
        )
        .with_detail(detail),
        Act::Area(a),
    )
}

/// "All of them": the default answer of a decision that picks blocks from a place.
fn all_choice(blocks: usize) -> (Choice, Act) {
    (
        Choice::new(
            "all",
            Message::new("choice.all").number("blocks", blocks as i64),
        )
        .with_detail(Message::new("detail.all")),
        Act::AllBlocks,
    )
}

fn block_detail(state: &State, b: usize) -> Message {
    let def = &state.board.blocks[b];
    Message::new("detail.block")
        .arg("clan", names::clan(state, def.clan))
        .number("mon", i64::from(def.mon))
        .key(
            "symbol",
            match def.symbol {
                Some(crate::data::Symbol::Gun) => "symbol.gun",
                Some(crate::data::Symbol::Cavalry) => "symbol.cavalry",
                None if def.leader => "symbol.leader",
                None => "symbol.none",
            },
        )
}

/// Blocks of the active side in an area that may still move this phase.
pub fn movable(state: &State, area: usize) -> Vec<usize> {
    let side = state.active();
    state
        .blocks_in(area, side)
        .filter(|&b| !state.blocks[b].moved)
        .collect()
}

/// How many blocks of the active side may still move, per area, in one pass.
fn movable_counts(state: &State) -> Vec<usize> {
    let side = state.active();
    let mut counts = vec![0; state.board.areas.len()];
    for (b, block) in state.blocks.iter().enumerate() {
        if let Place::Area(a) = block.place
            && !block.moved
            && state.board.blocks[b].side == side
        {
            counts[a] += 1;
        }
    }
    counts
}

/// How many more stacks may start moving, and whether the muster is still open.
fn movement_left(state: &State) -> (bool, bool) {
    let m = &state.movement;
    let (stacks, muster) = match m.level {
        Some(Level::Minimal) => (m.activations < 1, m.activations < 1),
        Some(Level::Limited) => (m.activations < 3, m.activations < 3),
        Some(Level::Full) => (true, true),
        _ => (false, false),
    };
    (stacks, muster && !m.mustered)
}

fn muster_options(state: &State) -> (Vec<(usize, usize)>, bool) {
    let side = state.active();
    let reserve = state.blocks_at(Place::Reserve, side);
    if reserve.is_empty() {
        return (Vec::new(), false);
    }
    let counts = state.counts();
    let allowed = |a: usize| counts[a][other(side)] == 0 || state.movement.battles.contains(&a);
    let mut a_options = Vec::new();
    for (a, area) in state.board.areas.iter().enumerate() {
        for &c in &area.muster {
            if state.board.clans[c].side == side
                && reserve.iter().any(|&b| state.board.blocks[b].clan == c)
                && allowed(a)
            {
                a_options.push((c, a));
            }
        }
    }
    // Muster A options in clan order, as the clans are listed.
    a_options.sort_unstable();
    let b_option = !movement::friendly_musters(state, side).is_empty();
    (a_options, b_option)
}

fn route_detail(route: &Route) -> Message {
    let key = if route.battle {
        "detail.route-battle"
    } else if !route.overruns.is_empty() {
        "detail.route-overrun"
    } else {
        "detail.route"
    };
    Message::new(key)
        .number("steps", route.roads.len() as i64)
        .number("speed", route.speed as i64)
        .number("highway", i64::from(route.highway))
        .number("leader", i64::from(route.needs_leader))
        .number("castle", i64::from(route.free_leadership))
        .number("march", i64::from(route.needs_march))
        .number("overruns", route.overruns.len() as i64)
}

/// Every question open now.
pub fn asks(state: &State) -> Vec<Ask> {
    let active = state.active();
    match &state.step {
        Step::Over => Vec::new(),
        Step::ReinforceDiscard { done } => (0..2)
            .filter(|&s| !done[s])
            .map(|s| {
                let k = state.hands[s].len() / 2;
                let choices = state.hands[s]
                    .iter()
                    .map(|h| card_choice(state, h.card, Message::new("detail.discard")))
                    .collect();
                Ask {
                    seat: s,
                    prompt: Message::new("prompt.reinforce-discard").number("cards", k as i64),
                    choices,
                    min: k as u32,
                    max: k as u32,
                    private: true,
                }
            })
            .collect(),
        Step::Bid { bids } => (0..2)
            .filter(|&s| bids[s].is_none() && !state.hands[s].is_empty())
            .map(|s| {
                let choices = state.hands[s]
                    .iter()
                    .map(|h| {
                        card_choice(
                            state,
                            h.card,
                            Message::new("detail.bid")
                                .number("n", i64::from(state.board.cards[h.card].number)),
                        )
                    })
                    .collect();
                Ask::one(s, Message::new("prompt.bid"), choices, true)
            })
            .collect(),
        Step::ChooseFirst { chooser } => {
            let choices = [*chooser, other(*chooser)]
                .into_iter()
                .map(|s| {
                    (
                        Choice::new(
                            format!("first-{s}"),
                            Message::new("choice.first").seat("side", s as u32),
                        )
                        .with_detail(Message::new("detail.first").seat("side", s as u32)),
                        Act::First(s),
                    )
                })
                .collect();
            vec![Ask::one(
                *chooser,
                Message::new("prompt.first"),
                choices,
                false,
            )]
        }
        Step::MoveLevel => {
            let hand = state.hands[active].len();
            let mut choices = vec![
                (
                    Choice::new("none", Message::new("level.none"))
                        .with_detail(Message::new("detail.level-none")),
                    Act::Level(Level::None),
                ),
                (
                    Choice::new("minimal", Message::new("level.minimal"))
                        .with_detail(Message::new("detail.level-minimal")),
                    Act::Level(Level::Minimal),
                ),
            ];
            if hand >= 1 {
                choices.push((
                    Choice::new("limited", Message::new("level.limited"))
                        .with_detail(Message::new("detail.level-limited")),
                    Act::Level(Level::Limited),
                ));
            }
            if hand >= 2 {
                choices.push((
                    Choice::new("full", Message::new("level.full"))
                        .with_detail(Message::new("detail.level-full")),
                    Act::Level(Level::Full),
                ));
            }
            vec![Ask::one(
                active,
                Message::new("prompt.level"),
                choices,
                false,
            )]
        }
        Step::MoveDiscard { level } => {
            let (min, max, prompt) = match level {
                Level::Limited => (1, 1, "prompt.discard-limited"),
                Level::Full => (2, 2, "prompt.discard-full"),
                _ => (0, state.hands[active].len() as u32, "prompt.discard-swap"),
            };
            let choices = state.hands[active]
                .iter()
                .map(|h| card_choice(state, h.card, Message::new("detail.discard")))
                .collect();
            vec![Ask {
                seat: active,
                prompt: Message::new(prompt),
                choices,
                min,
                max,
                private: true,
            }]
        }
        Step::MoveMenu => {
            let (stacks, muster) = movement_left(state);
            let mut choices = Vec::new();
            if let Some((area, _)) = state.movement.current
                && !movable(state, area).is_empty()
            {
                choices.push((
                    Choice::new(
                        "more",
                        Message::new("choice.more").arg("area", names::area(state, area)),
                    )
                    .with_detail(
                        Message::new("detail.more")
                            .number("blocks", movable(state, area).len() as i64),
                    ),
                    Act::MoreStack,
                ));
            }
            if stacks {
                for (a, &blocks) in movable_counts(state).iter().enumerate() {
                    if blocks == 0 || state.movement.current.is_some_and(|(c, _)| c == a) {
                        continue;
                    }
                    let (choice, _) = area_choice(
                        state,
                        a,
                        "choice.stack",
                        Message::new("detail.stack").number("blocks", blocks as i64),
                    );
                    choices.push((choice, Act::Stack(a)));
                }
            }
            let muster_open = muster && {
                let (a_options, b_option) = muster_options(state);
                !a_options.is_empty() || b_option
            };
            if muster_open {
                choices.push((
                    Choice::new("muster", Message::new("choice.muster")).with_detail(
                        Message::new("detail.muster").number(
                            "blocks",
                            state.blocks_at(Place::Reserve, active).len() as i64,
                        ),
                    ),
                    Act::Muster,
                ));
            }
            choices.push((
                Choice::new("end", Message::new("choice.end-movement"))
                    .with_detail(Message::new("detail.end-movement")),
                Act::EndMovement,
            ));
            vec![Ask::one(
                active,
                Message::new("prompt.move"),
                choices,
                false,
            )]
        }
        Step::MoveBlocks { area } => {
            let blocks = movable(state, *area);
            let mut choices = vec![all_choice(blocks.len())];
            choices.extend(
                blocks
                    .iter()
                    .map(|&b| block_choice(state, b, block_detail(state, b))),
            );
            vec![Ask {
                seat: active,
                prompt: Message::new("prompt.move-blocks").arg("area", names::area(state, *area)),
                choices,
                min: 1,
                max: blocks.len() as u32,
                private: true,
            }]
        }
        Step::MoveDest { area, blocks } => {
            let mut choices: Vec<(Choice, Act)> = movement::routes(state, active, *area, blocks)
                .into_iter()
                .map(|route| {
                    let (choice, _) =
                        area_choice(state, route.dest, "choice.dest", route_detail(&route));
                    (choice, Act::Dest(route))
                })
                .collect();
            choices.push((
                Choice::new("stay", Message::new("choice.stay"))
                    .with_detail(Message::new("detail.stay")),
                Act::Stay,
            ));
            vec![Ask::one(
                active,
                Message::new("prompt.dest")
                    .number("blocks", blocks.len() as i64)
                    .arg("area", names::area(state, *area)),
                choices,
                false,
            )]
        }
        Step::MoveLeader { blocks, .. } => {
            let choices = blocks
                .iter()
                .filter(|&&b| state.board.blocks[b].leader)
                .map(|&b| {
                    let (c, _) = block_choice(state, b, Message::new("detail.declare"));
                    (c, Act::Leader(b))
                })
                .collect();
            vec![Ask::one(
                active,
                Message::new("prompt.declare"),
                choices,
                true,
            )]
        }
        Step::MoveMarch { .. } => {
            let choices = state.hands[active]
                .iter()
                .map(|h| card_choice(state, h.card, Message::new("detail.march")))
                .collect();
            vec![Ask::one(
                active,
                Message::new("prompt.march"),
                choices,
                true,
            )]
        }
        Step::MusterPick => {
            let (a_options, b_option) = muster_options(state);
            let mut choices: Vec<(Choice, Act)> = a_options
                .into_iter()
                .map(|(c, a)| {
                    let n = state
                        .blocks_at(Place::Reserve, active)
                        .into_iter()
                        .filter(|&b| state.board.blocks[b].clan == c)
                        .count();
                    (
                        Choice::new(
                            format!("a-{}-{}", state.board.clans[c].id, state.board.areas[a].id),
                            Message::new("choice.muster-a")
                                .arg("clan", names::clan(state, c))
                                .arg("area", names::area(state, a)),
                        )
                        .with_detail(Message::new("detail.muster-a").number("blocks", n as i64)),
                        Act::MusterA(c, a),
                    )
                })
                .collect();
            if b_option {
                choices.push((
                    Choice::new("b", Message::new("choice.muster-b"))
                        .with_detail(Message::new("detail.muster-b")),
                    Act::MusterB,
                ));
            }
            vec![Ask::one(
                active,
                Message::new("prompt.muster"),
                choices,
                true,
            )]
        }
        Step::MusterBlocks { clan, area } => {
            let blocks: Vec<usize> = state
                .blocks_at(Place::Reserve, active)
                .into_iter()
                .filter(|&b| state.board.blocks[b].clan == *clan)
                .collect();
            let mut choices = vec![all_choice(blocks.len())];
            choices.extend(
                blocks
                    .iter()
                    .map(|&b| block_choice(state, b, block_detail(state, b))),
            );
            vec![Ask {
                seat: active,
                prompt: Message::new("prompt.muster-blocks").arg("area", names::area(state, *area)),
                choices,
                min: 1,
                max: blocks.len() as u32,
                private: true,
            }]
        }
        Step::MusterOne => {
            let choices = state
                .blocks_at(Place::Reserve, active)
                .into_iter()
                .map(|b| block_choice(state, b, block_detail(state, b)))
                .collect();
            vec![Ask::one(
                active,
                Message::new("prompt.muster-one"),
                choices,
                true,
            )]
        }
        Step::MusterWhere { .. } => {
            let choices = movement::friendly_musters(state, active)
                .into_iter()
                .map(|a| {
                    area_choice(
                        state,
                        a,
                        "choice.muster-where",
                        Message::new("detail.muster-where"),
                    )
                })
                .collect();
            vec![Ask::one(
                active,
                Message::new("prompt.muster-where"),
                choices,
                false,
            )]
        }
        Step::CombatPick => {
            let choices = state
                .to_fight()
                .into_iter()
                .map(|a| {
                    area_choice(
                        state,
                        a,
                        "choice.combat",
                        Message::new("detail.combat")
                            .number("own", state.count_in(a, active) as i64)
                            .number("enemy", state.count_in(a, other(active)) as i64),
                    )
                })
                .collect();
            vec![Ask::one(
                active,
                Message::new("prompt.combat"),
                choices,
                false,
            )]
        }
        Step::Battle => battle_asks(state),
    }
}

fn battle_asks(state: &State) -> Vec<Ask> {
    let Some(battle) = &state.battle else {
        return Vec::new();
    };
    let area = battle.area;
    match battle.stage {
        Stage::SiegeChoice => {
            let defender = other(battle.attacker);
            let choices = vec![
                (
                    Choice::new("battle", Message::new("choice.fight"))
                        .with_detail(Message::new("detail.fight")),
                    Act::Withdraw(false),
                ),
                (
                    Choice::new("siege", Message::new("choice.withdraw"))
                        .with_detail(Message::new("detail.withdraw")),
                    Act::Withdraw(true),
                ),
            ];
            vec![Ask::one(
                defender,
                Message::new("prompt.siege").arg("area", names::area(state, area)),
                choices,
                false,
            )]
        }
        Stage::Opening(side) => {
            let leaders = combat::opening_leaders(state, side);
            let choices = leaders
                .iter()
                .map(|&b| {
                    let (base, clan, special) = combat::impact_of(state, side, b, None);
                    block_choice(
                        state,
                        b,
                        Message::new("detail.deploy").number("impact", base + clan + special),
                    )
                })
                .collect();
            vec![Ask {
                seat: side,
                prompt: Message::new("prompt.opening"),
                choices,
                min: 0,
                max: leaders.len() as u32,
                private: true,
            }]
        }
        Stage::Deploy(side) => {
            let mut choices: Vec<(Choice, Act)> = combat::deploy_cards(state, side)
                .into_iter()
                .map(|c| {
                    let kind = state.board.cards[c].kind;
                    card_choice(
                        state,
                        c,
                        Message::new("detail.deploy-card").key("kind", combat::kind_key(kind)),
                    )
                })
                .collect();
            choices.push((
                Choice::new("pass", Message::new("choice.pass")).with_detail(Message::new(
                    if battle.first_done || side != battle.attacker {
                        "detail.pass-end"
                    } else {
                        "detail.pass-first"
                    },
                )),
                Act::Pass,
            ));
            vec![Ask::one(
                side,
                Message::new("prompt.deploy")
                    .number("own", i64::from(battle.impact[side]))
                    .number("other", i64::from(battle.impact[other(side)])),
                choices,
                true,
            )]
        }
        Stage::DeployBlocks(side, card) => {
            let blocks: Vec<usize> = combat::undeployed(state, side)
                .into_iter()
                .filter(|&b| combat::card_fits(state, card, b))
                .collect();
            let max = if state.board.cards[card].kind == CardKind::Double {
                2.min(blocks.len())
            } else {
                1
            };
            let choices = blocks
                .iter()
                .map(|&b| {
                    let (base, clan, special) = combat::impact_of(state, side, b, Some(card));
                    block_choice(
                        state,
                        b,
                        Message::new("detail.deploy-block")
                            .number("base", base)
                            .number("clan", clan)
                            .number("special", special)
                            .number("impact", base + clan + special),
                    )
                })
                .collect();
            vec![Ask {
                seat: side,
                prompt: Message::new("prompt.deploy-blocks"),
                choices,
                min: 1,
                max: max as u32,
                private: true,
            }]
        }
        Stage::Challenge(side) => {
            let choices = vec![
                (
                    Choice::new("challenge", Message::new("choice.challenge"))
                        .with_detail(Message::new("detail.challenge")),
                    Act::Challenge(true),
                ),
                (
                    Choice::new("accept", Message::new("choice.no-challenge"))
                        .with_detail(Message::new("detail.no-challenge")),
                    Act::Challenge(false),
                ),
            ];
            vec![Ask::one(
                side,
                Message::new("prompt.challenge"),
                choices,
                true,
            )]
        }
        Stage::Casualties(side, owed) => {
            let tiers = combat::casualty_tiers(state, side);
            let tier = tiers
                .into_iter()
                .find(|t| !t.is_empty())
                .unwrap_or_default();
            let choices = tier
                .iter()
                .map(|&b| block_choice(state, b, block_detail(state, b)))
                .collect();
            vec![Ask {
                seat: side,
                prompt: Message::new("prompt.casualties").number("blocks", i64::from(owed)),
                choices,
                min: owed,
                max: owed,
                private: true,
            }]
        }
        Stage::Retreat(side) => {
            let choices = combat::retreat_areas(state, side)
                .into_iter()
                .map(|a| {
                    area_choice(
                        state,
                        a,
                        "choice.retreat",
                        Message::new("detail.retreat")
                            .number("enemy", state.count_in(a, other(side)) as i64),
                    )
                })
                .collect();
            vec![Ask::one(
                side,
                Message::new("prompt.retreat"),
                choices,
                false,
            )]
        }
    }
}

/// The contract's pending decisions.
pub fn pending(state: &State) -> Vec<PendingDecision> {
    asks(state).iter().map(Ask::pending).collect()
}

/// The acts an answer picks, checked against the open question of the seat.
pub fn picked(state: &State, seat: Seat, action: &Action) -> Result<Vec<Act>, Rejection> {
    let ask = asks(state)
        .into_iter()
        .find(|a| a.seat as Seat == seat)
        .ok_or(Rejection::NotYourTurn)?;
    let Action::Choose(picks) = action else {
        return Err(Rejection::Malformed(
            "choose from the listed choices".into(),
        ));
    };
    let mut acts = Vec::new();
    for &p in picks {
        let (_, act) = ask
            .choices
            .get(p as usize)
            .ok_or_else(|| Rejection::Malformed("no such choice".into()))?;
        acts.push(act.clone());
    }
    Ok(acts)
}

/// Applies an answer.
pub fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    table: &mut dyn Table,
) -> Result<Vec<Event>, Rejection> {
    let acts = picked(state, seat, action)?;
    let side = seat as usize;
    let mut events = Vec::new();
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
            events.push(Event::public(
                Message::new("event.reinforce-discard")
                    .seat("side", side as u32)
                    .number("cards", acts.len() as i64),
            ));
            state.step = Step::ReinforceDiscard { done };
        }
        Step::Bid { mut bids } => {
            let card = cards(&acts)[0];
            if let Some(i) = state.hands[side].iter().position(|h| h.card == card) {
                state.hands[side].remove(i);
            }
            bids[side] = Some(card);
            events.push(Event::public(
                Message::new("event.bid-placed").seat("side", side as u32),
            ));
            state.step = Step::Bid { bids };
        }
        Step::ChooseFirst { .. } => {
            let Act::First(first) = acts[0] else {
                unreachable!()
            };
            state.first = first;
            state.phase = 0;
            events.push(Event::public(
                Message::new("event.first")
                    .seat("side", first as u32)
                    .number("week", i64::from(state.week)),
            ));
            engine::start_movement(state);
        }
        Step::MoveLevel => {
            let Act::Level(level) = acts[0] else {
                unreachable!()
            };
            state.movement.level = Some(level);
            events.push(Event::public(
                Message::new("event.level")
                    .seat("side", side as u32)
                    .key("level", level_key(level)),
            ));
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
            events.push(Event::public(
                Message::new("event.movement-cards")
                    .seat("side", side as u32)
                    .number("cards", picked.len() as i64),
            ));
            if level == Level::None {
                engine::draw_cards(state, side, picked.len(), table);
            }
            events.extend(movement::box_arrivals(state, side, picked.len(), table));
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
                events.push(Event::public(
                    Message::new("event.activate-more")
                        .seat("side", side as u32)
                        .arg("area", names::area(state, area)),
                ));
                state.step = Step::MoveBlocks { area };
            }
            Act::Stack(area) => {
                let id = state.movement.activations;
                state.movement.activations += 1;
                state.movement.current = Some((area, id));
                events.push(Event::public(
                    Message::new("event.activate")
                        .seat("side", side as u32)
                        .arg("area", names::area(state, area)),
                ));
                state.step = Step::MoveBlocks { area };
            }
            Act::Muster => {
                state.movement.current = None;
                if state.movement.level != Some(Level::Full) {
                    state.movement.activations += 1;
                }
                events.push(Event::public(
                    Message::new("event.muster-start").seat("side", side as u32),
                ));
                state.step = Step::MusterPick;
            }
            Act::EndMovement => {
                events.push(Event::public(
                    Message::new("event.movement-end").seat("side", side as u32),
                ));
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
            events.push(Event::public(
                Message::new("event.set-out")
                    .seat("side", side as u32)
                    .number("blocks", blocks.len() as i64)
                    .arg("area", names::area(state, area)),
            ));
            state.step = Step::MoveDest { area, blocks };
        }
        Step::MoveDest { area, blocks } => match &acts[0] {
            Act::Stay => {
                for &b in &blocks {
                    state.blocks[b].moved = true;
                }
                events.push(Event::public(
                    Message::new("event.stay")
                        .seat("side", side as u32)
                        .number("blocks", blocks.len() as i64)
                        .arg("area", names::area(state, area)),
                ));
                state.step = Step::MoveMenu;
            }
            Act::Dest(route) => {
                let march = route.needs_march;
                if route.needs_leader || march {
                    events.push(planned(state, side, area, route.dest));
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
                    events.extend(finish_move(state, &blocks, route.dest, None, None, table)?);
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
                events.push(planned(state, side, from, dest));
                state.step = Step::MoveMarch {
                    blocks,
                    dest,
                    leader: Some(leader),
                };
            } else {
                events.extend(finish_move(
                    state,
                    &blocks,
                    dest,
                    Some(leader),
                    None,
                    table,
                )?);
            }
        }
        Step::MoveMarch {
            blocks,
            dest,
            leader,
        } => {
            let card = cards(&acts)[0];
            events.extend(finish_move(
                state,
                &blocks,
                dest,
                leader,
                Some(card),
                table,
            )?);
        }
        Step::MusterPick => match acts[0] {
            Act::MusterA(clan, area) => {
                events.push(Event::public(
                    Message::new("event.muster-a-chosen")
                        .seat("side", side as u32)
                        .arg("clan", names::clan(state, clan))
                        .arg("area", names::area(state, area)),
                ));
                state.step = Step::MusterBlocks { clan, area };
            }
            Act::MusterB => {
                events.push(Event::public(
                    Message::new("event.muster-b-chosen").seat("side", side as u32),
                ));
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
            events.extend(movement::muster(state, side, &blocks, area, true, table));
            state.step = Step::MoveMenu;
        }
        Step::MusterOne => {
            events.push(Event::public(
                Message::new("event.muster-b-block").seat("side", side as u32),
            ));
            state.step = Step::MusterWhere {
                block: blocks(&acts)[0],
            };
        }
        Step::MusterWhere { block } => {
            let Act::Area(area) = acts[0] else {
                unreachable!()
            };
            events.extend(movement::muster(state, side, &[block], area, false, table));
            state.step = Step::MoveMenu;
        }
        Step::CombatPick => {
            let Act::Area(area) = acts[0] else {
                unreachable!()
            };
            events.extend(combat::start(state, area));
            events.extend(skip_empty_openings(state, table));
        }
        Step::Battle => events.extend(apply_battle(state, side, &acts, table)),
        Step::Over => return Err(Rejection::NotYourTurn),
    }
    events.extend(advance(state, table));
    Ok(events)
}

/// A move whose route is chosen and whose leader or forced-march card is still to come.
fn planned(state: &State, side: Side, from: usize, to: usize) -> Event {
    Event::public(
        Message::new("event.move-planned")
            .seat("side", side as u32)
            .arg("from", names::area(state, from))
            .arg("to", names::area(state, to)),
    )
}

fn blocks_or_leader(acts: &[Act]) -> usize {
    match acts[0] {
        Act::Leader(b) | Act::Block(b) => b,
        _ => unreachable!(),
    }
}

fn level_key(level: Level) -> &'static str {
    match level {
        Level::None => "level.none",
        Level::Minimal => "level.minimal",
        Level::Limited => "level.limited",
        Level::Full => "level.full",
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
) -> Result<Vec<Event>, Rejection> {
    let side = state.active();
    let (area, _) = state.movement.current.expect("a stack is moving");
    let route = movement::routes(state, side, area, blocks)
        .into_iter()
        .find(|r| r.dest == dest)
        .ok_or_else(|| Rejection::Illegal(Message::new("reject.route")))?;
    let events = movement::move_group(state, side, blocks, &route, leader, march, table);
    state.step = Step::MoveMenu;
    Ok(events)
}

/// Skips opening deployments for sides without leaders in the battle.
fn skip_empty_openings(state: &mut State, table: &mut dyn Table) -> Vec<Event> {
    let mut events = Vec::new();
    loop {
        let Some(battle) = &state.battle else {
            return events;
        };
        match battle.stage {
            Stage::Opening(side) if combat::opening_leaders(state, side).is_empty() => {
                events.extend(after_opening(state, side, table));
            }
            _ => return events,
        }
    }
}

fn after_opening(state: &mut State, side: Side, table: &mut dyn Table) -> Vec<Event> {
    let attacker = state.battle.as_ref().expect("battle").attacker;
    if side == attacker {
        state.battle.as_mut().expect("battle").stage = Stage::Opening(other(attacker));
        Vec::new()
    } else {
        combat::to_deploy(state, attacker, table)
    }
}

fn apply_battle(state: &mut State, side: Side, acts: &[Act], table: &mut dyn Table) -> Vec<Event> {
    let stage = state.battle.as_ref().expect("battle").stage.clone();
    let area = state.battle.as_ref().expect("battle").area;
    let blocks: Vec<usize> = acts
        .iter()
        .filter_map(|a| match a {
            Act::Block(b) => Some(*b),
            _ => None,
        })
        .collect();
    let mut events = Vec::new();
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
            events.push(Event::public(
                Message::new(if withdraw {
                    "event.siege"
                } else {
                    "event.field-battle"
                })
                .seat("side", side as u32)
                .arg("area", names::area(state, area)),
            ));
        }
        Stage::Opening(s) => {
            if blocks.is_empty() {
                events.push(Event::public(
                    Message::new("event.no-leader").seat("side", s as u32),
                ));
            }
            events.extend(combat::deploy(state, s, None, &blocks));
            events.extend(after_opening(state, s, table));
        }
        Stage::Deploy(s) => match acts[0] {
            Act::Pass => events.extend(combat::pass(state, s, table)),
            Act::Card(card) => {
                // The card is played face up (seed 8.2.3): told now, its blocks next.
                events.push(combat::card_played(state, s, card));
                state.battle.as_mut().expect("battle").stage = Stage::DeployBlocks(s, card);
            }
            _ => unreachable!(),
        },
        Stage::DeployBlocks(s, card) => {
            events.extend(combat::deploy(state, s, Some(card), &blocks));
            events.extend(combat::after_deploy(state, s, table));
        }
        Stage::Challenge(s) => {
            if matches!(acts[0], Act::Challenge(true)) {
                events.extend(combat::challenge(state, s, table));
            } else {
                events.push(Event::public(
                    Message::new("event.no-challenge").seat("side", s as u32),
                ));
                events.extend(combat::next_actor(state, other(s), table));
            }
        }
        Stage::Casualties(s, _) => {
            events.extend(combat::take_losses(state, s, &blocks));
            events.extend(combat::next_casualties(state, table));
        }
        Stage::Retreat(_) => {
            let Act::Area(to) = acts[0] else {
                unreachable!()
            };
            events.extend(combat::retreat(state, to, table));
        }
    }
    events.extend(skip_empty_openings(state, table));
    // Every step of a combat names its area, so the map marks where it is fought while the
    // step is told (the templates need not show it).
    let place = names::area(state, area);
    for event in &mut events {
        if !event.text.args.iter().any(|(name, _)| name == "area") {
            event.text.args.push(("area".to_string(), place.clone()));
        }
    }
    events
}
