//! What each seat is asked, in words: every decision is a `choose`, a list of labelled choices,
//! each with a detail saying its consequence and the [`Act`] it stands for, which
//! [`crate::decide`] carries out. Which choices exist is the rules' business ([`crate::movement`],
//! [`crate::combat`]); this module words them.

use sdk::{Choice, Message, Offer, Seat};

use crate::combat;
use crate::data::CardKind;
use crate::movement::{self, Route, movable, movable_counts, movement_left, muster_options};
use crate::names;
use crate::state::*;
use crate::tell::kind_key;

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

/// A public question of `seat` answered by exactly one choice, private or not.
fn ask_one(seat: Side, prompt: Message, choices: Vec<(Choice, Act)>, private: bool) -> Offer<Act> {
    Offer::choose_one(seat as Seat, prompt, choices).private(private)
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
pub fn asks(state: &State) -> Vec<Offer<Act>> {
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
                Offer::choose(
                    s as Seat,
                    Message::new("prompt.reinforce-discard").number("cards", k as i64),
                    choices,
                    k as u32,
                    k as u32,
                )
                .private(true)
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
                ask_one(s, Message::new("prompt.bid"), choices, true)
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
            vec![ask_one(
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
            vec![ask_one(
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
            vec![
                Offer::choose(active as Seat, Message::new(prompt), choices, min, max)
                    .private(true),
            ]
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
            vec![ask_one(active, Message::new("prompt.move"), choices, false)]
        }
        Step::MoveBlocks { area } => {
            let blocks = movable(state, *area);
            let mut choices = vec![all_choice(blocks.len())];
            choices.extend(
                blocks
                    .iter()
                    .map(|&b| block_choice(state, b, block_detail(state, b))),
            );
            vec![
                Offer::choose(
                    active as Seat,
                    Message::new("prompt.move-blocks").arg("area", names::area(state, *area)),
                    choices,
                    1,
                    blocks.len() as u32,
                )
                .private(true),
            ]
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
            vec![ask_one(
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
            vec![ask_one(
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
            vec![ask_one(active, Message::new("prompt.march"), choices, true)]
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
            vec![ask_one(
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
            vec![
                Offer::choose(
                    active as Seat,
                    Message::new("prompt.muster-blocks").arg("area", names::area(state, *area)),
                    choices,
                    1,
                    blocks.len() as u32,
                )
                .private(true),
            ]
        }
        Step::MusterOne => {
            let choices = state
                .blocks_at(Place::Reserve, active)
                .into_iter()
                .map(|b| block_choice(state, b, block_detail(state, b)))
                .collect();
            vec![ask_one(
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
            vec![ask_one(
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
            vec![ask_one(
                active,
                Message::new("prompt.combat"),
                choices,
                false,
            )]
        }
        Step::Battle => battle_asks(state),
    }
}

fn battle_asks(state: &State) -> Vec<Offer<Act>> {
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
            vec![ask_one(
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
            vec![
                Offer::choose(
                    side as Seat,
                    Message::new("prompt.opening"),
                    choices,
                    0,
                    leaders.len() as u32,
                )
                .private(true),
            ]
        }
        Stage::Deploy(side) => {
            let mut choices: Vec<(Choice, Act)> = combat::deploy_cards(state, side)
                .into_iter()
                .map(|c| {
                    let kind = state.board.cards[c].kind;
                    card_choice(
                        state,
                        c,
                        Message::new("detail.deploy-card").key("kind", kind_key(kind)),
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
            vec![ask_one(
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
            vec![
                Offer::choose(
                    side as Seat,
                    Message::new("prompt.deploy-blocks"),
                    choices,
                    1,
                    max as u32,
                )
                .private(true),
            ]
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
            vec![ask_one(
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
            vec![
                Offer::choose(
                    side as Seat,
                    Message::new("prompt.casualties").number("blocks", i64::from(owed)),
                    choices,
                    owed,
                    owed,
                )
                .private(true),
            ]
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
            vec![ask_one(
                side,
                Message::new("prompt.retreat"),
                choices,
                false,
            )]
        }
    }
}
