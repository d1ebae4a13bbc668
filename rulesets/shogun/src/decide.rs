//! What each seat is asked ([`pending`]) and how its answer changes the game ([`apply`]).
//!
//! Every decision is rebuilt from the state. Its choice ids are written by [`Move::choice_id`],
//! and `apply` reads an answer once into a [`Move`] ([`Move::decode`]) before playing it, so it
//! never trusts an index beyond the SDK's shape check nor parses an id twice.

use sdk::{
    Action, AssignDecision, AssignItem, AssignSlot, Choice, ChooseDecision, DecisionKind, Event,
    Message, NumberDecision, PendingDecision, Rejection, Seat, Table,
};

use crate::data::ProvinceId;
use crate::engine;
use crate::moves::{DraftTake, Move};
use crate::outcome::{Log, Outcome};
use crate::state::{CardRef, Phase, Plan, Stage, State};

fn choose(choices: Vec<Choice>) -> DecisionKind {
    DecisionKind::Choose(ChooseDecision {
        choices,
        min: 1,
        max: 1,
    })
}

/// Whether to use a special card's bonus: the prompt names the card and the province, each choice
/// says how many armies it makes.
fn bonus_decision(
    state: &State,
    seat: Seat,
    p: ProvinceId,
    without: u32,
    with: u32,
) -> PendingDecision {
    let special = state
        .special_of(seat)
        .map(|s| state.board.cards().specials[s].name.clone())
        .unwrap_or_default();
    PendingDecision {
        private: false,
        seat,
        prompt: Message::new("prompt.special-bonus")
            .key("special", special)
            .arg("province", state.province_arg(p)),
        kind: choose(vec![
            Move::Bonus(true).choice(
                &state.board,
                Message::new("choice.bonus-take").number("armies", with),
            ),
            Move::Bonus(false).choice(
                &state.board,
                Message::new("choice.bonus-decline").number("armies", without),
            ),
        ]),
        back: None,
    }
}

/// The choice of a move to a province ([`Move::MoveTo`], [`Move::Target`], [`Move::Revolt`]),
/// labelled with the province's name.
fn province_choice(state: &State, mv: Move, p: ProvinceId) -> Choice {
    mv.choice(&state.board, state.province_label(p))
}

/// A province `seat` may send armies to (`to` makes the move of a target), with what is there:
/// its own armies (a move), or the owner and the armies defending it, or the farmers defending a
/// neutral province (an attack).
pub fn target_choice(
    state: &State,
    seat: Seat,
    q: ProvinceId,
    to: fn(ProvinceId) -> Move,
) -> Choice {
    let here = &state.provinces[q];
    let detail = match here.owner {
        Some(owner) if owner == seat => {
            Message::new("choice.detail-move").number("armies", here.armies)
        }
        Some(owner) => Message::new("choice.detail-attack-player")
            .seat("owner", owner)
            .number("armies", here.armies),
        None => Message::new("choice.detail-attack-neutral").number(
            "farmers",
            engine::event_effect(state)
                .neutral_farmers
                .unwrap_or(1)
                .min(state.farmer_supply),
        ),
    };
    province_choice(state, to(q), q).with_detail(detail)
}

/// A province card of the draft, with its region and values.
fn draft_detail(state: &State, p: ProvinceId) -> Message {
    let info = &state.board.provinces[p];
    Message::new("choice.detail-province")
        .arg("region", state.board.region_arg(info.region))
        .number("tax", info.tax)
        .number("rice", info.rice)
        .number("spaces", info.spaces)
}

/// The items of a seat's planning decision: its province cards, then its chest cards 0 to 4.
pub fn plan_items(state: &State, seat: Seat) -> Vec<CardRef> {
    let mut items: Vec<CardRef> = state
        .provinces_of(seat)
        .into_iter()
        .map(CardRef::Province)
        .collect();
    items.extend((0..5).map(CardRef::Chest));
    items
}

fn card_item(state: &State, card: CardRef) -> AssignItem {
    match card {
        CardRef::Province(p) => AssignItem {
            id: format!("province:{}", state.board.provinces[p].id),
            label: state.province_label(p),
        },
        CardRef::Chest(v) => AssignItem {
            id: format!("chest:{v}"),
            label: Message::new("card.chest").number("chests", v),
        },
    }
}

/// The planning decision of one seat: 10 action spaces and the bid space.
pub fn planning_decision(state: &State, seat: Seat) -> AssignDecision {
    let items = plan_items(state, seat);
    let chests = state.players[seat as usize].chests;
    let mut slots: Vec<AssignSlot> = state
        .board
        .cards()
        .actions
        .iter()
        .map(|a| AssignSlot {
            id: format!("action:{}", a.id),
            label: Message::new(a.name.clone()),
            accepts: Vec::new(),
        })
        .collect();
    let bid_accepts: Vec<u32> = items
        .iter()
        .enumerate()
        .filter(|(_, card)| match card {
            CardRef::Province(_) => true,
            CardRef::Chest(v) => *v <= chests,
        })
        .map(|(i, _)| i as u32)
        .collect();
    slots.push(AssignSlot {
        id: "bid".into(),
        label: Message::new("slot.bid"),
        accepts: bid_accepts,
    });
    let min_placements = slots.len().min(items.len()) as u32;
    AssignDecision {
        items: items.iter().map(|&c| card_item(state, c)).collect(),
        slots,
        min_placements,
    }
}

/// The plan that (slot, item) placements of `seat`'s planning decision make; the placements are
/// already checked against the decision's shape.
pub fn plan_from(state: &State, seat: Seat, placements: &[(u32, u32)]) -> Plan {
    let items = plan_items(state, seat);
    let actions = state.board.cards().actions.len();
    let mut plan = Plan {
        actions: vec![None; actions],
        bid: None,
    };
    for &(slot, item) in placements {
        let Some(&card) = items.get(item as usize) else {
            continue;
        };
        if (slot as usize) < actions {
            plan.actions[slot as usize] = Some(card);
        } else {
            plan.bid = Some(card);
        }
    }
    plan
}

/// What `seat`'s answer would do, without doing it. Only a plan has something to say (its cost
/// and what would be skipped); an answer may be incomplete (fewer placements than the minimum)
/// but must otherwise fit the decision's shape.
pub fn preview(
    state: &State,
    seat: Seat,
    action: &Action,
) -> Result<Vec<crate::preview::Note>, Rejection> {
    let decisions = pending(state);
    let decision = decisions
        .iter()
        .find(|d| d.seat == seat)
        .ok_or(Rejection::NotYourTurn)?;
    match (&decision.kind, action) {
        (DecisionKind::Assign(assign), Action::Assign(placements)) => {
            // The shape of a complete answer, with the minimum lowered to what is placed.
            let mut relaxed = assign.clone();
            relaxed.min_placements = relaxed.min_placements.min(placements.len() as u32);
            sdk::check_action_shape(&DecisionKind::Assign(relaxed), action)?;
            let plan = plan_from(state, seat, placements);
            Ok(crate::preview::plan_notes(
                state,
                seat,
                &plan,
                placements.len(),
                assign.min_placements as usize,
            ))
        }
        // A choice not yet made says nothing; a complete one must fit the shape.
        (DecisionKind::Choose(_), Action::Choose(picks)) if picks.is_empty() => Ok(Vec::new()),
        // Going back changes nothing but the step.
        (_, Action::Back) => sdk::check_answer(decision, action).map(|()| Vec::new()),
        (kind, action) => {
            sdk::check_action_shape(kind, action)?;
            Ok(Vec::new())
        }
    }
}

/// Every decision the game waits for.
pub fn pending(state: &State) -> Vec<PendingDecision> {
    match &state.phase {
        Phase::Over => Vec::new(),
        Phase::Draft => {
            let Some(draft) = &state.draft else {
                return Vec::new();
            };
            let seat = engine::drafter(draft, state.seats);
            if let Some(taken) = draft.taken {
                let mut sizes = draft.groups[seat as usize].clone();
                sizes.sort_unstable_by(|a, b| b.cmp(a));
                sizes.dedup();
                let choices = sizes
                    .into_iter()
                    .map(|n| {
                        Move::Group(n).choice(
                            &state.board,
                            Message::new("choice.group").number("armies", n),
                        )
                    })
                    .collect();
                vec![PendingDecision {
                    private: false,
                    seat,
                    prompt: Message::new("prompt.draft-group")
                        .arg("province", state.province_arg(taken)),
                    kind: choose(choices),
                    back: None,
                }]
            } else {
                let mut choices: Vec<Choice> = draft
                    .face_up
                    .iter()
                    .enumerate()
                    .map(|(i, &p)| {
                        Move::Take(DraftTake::FaceUp(i))
                            .choice(
                                &state.board,
                                Message::new("choice.face-up")
                                    .arg("province", state.province_arg(p)),
                            )
                            .with_detail(draft_detail(state, p))
                    })
                    .collect();
                if !draft.deck.is_empty() {
                    choices.push(
                        Move::Take(DraftTake::Blind)
                            .choice(&state.board, Message::new("choice.blind"))
                            .with_detail(
                                Message::new("choice.detail-deck")
                                    .number("cards", draft.deck.len() as i64),
                            ),
                    );
                }
                vec![PendingDecision {
                    private: false,
                    seat,
                    prompt: Message::new("prompt.draft-card"),
                    kind: choose(choices),
                    back: None,
                }]
            }
        }
        Phase::Planning => (0..state.seats)
            .filter(|&s| state.plans[s as usize].is_none())
            .map(|seat| PendingDecision {
                // Answering shows the seat its hand and its plan.
                private: true,
                seat,
                prompt: Message::new("prompt.plan"),
                kind: DecisionKind::Assign(planning_decision(state, seat)),
                back: None,
            })
            .collect(),
        Phase::Specials { next } => {
            let Some(&seat) = state.bid_order.get(*next) else {
                return Vec::new();
            };
            let choices = (0..state.special_holder.len())
                .filter(|&space| state.special_holder[space].is_none())
                .map(|space| {
                    Move::TakeSpecial(space)
                        .choice(
                            &state.board,
                            Message::new("choice.special")
                                .key(
                                    "special",
                                    state.board.cards().specials[state.special_layout[space]]
                                        .name
                                        .clone(),
                                )
                                .number("space", space as i64 + 1),
                        )
                        .with_detail(
                            // The turn order is the order of the taken spaces, so a space's number
                            // is a position only once every lower space is taken: say how many are.
                            Message::new("choice.detail-special")
                                .number("space", space as i64 + 1)
                                .number(
                                    "before",
                                    state.special_holder[..space]
                                        .iter()
                                        .filter(|holder| holder.is_some())
                                        .count() as i64,
                                ),
                        )
                })
                .collect();
            vec![PendingDecision {
                private: false,
                seat,
                prompt: Message::new("prompt.special"),
                kind: choose(choices),
                back: None,
            }]
        }
        Phase::Actions { step, turn, stage } => {
            let Some(&seat) = state.turn_order.get(*turn) else {
                return Vec::new();
            };
            match *stage {
                Stage::Ready => Vec::new(),
                Stage::RecruitBonus { province } => {
                    let Some(&action) = state.action_layout.get(*step) else {
                        return Vec::new();
                    };
                    let card = &state.board.cards().actions[action];
                    let (armies, bonus) = engine::recruit_armies(state, seat, card);
                    vec![bonus_decision(
                        state,
                        seat,
                        province,
                        armies,
                        armies + bonus,
                    )]
                }
                Stage::AttackBonus { battle } => {
                    let bonus = engine::attack_bonus_offer(state, seat);
                    vec![bonus_decision(
                        state,
                        seat,
                        battle.to,
                        battle.armies,
                        battle.armies + bonus,
                    )]
                }
                Stage::DefenceBonus { battle } => {
                    let Some(defender) = state.provinces[battle.to].owner else {
                        return Vec::new();
                    };
                    let armies = state.provinces[battle.to].armies;
                    let (without, with) = engine::defence_extra(state, battle.to);
                    vec![bonus_decision(
                        state,
                        defender,
                        battle.to,
                        armies + without,
                        armies + with,
                    )]
                }
                Stage::MoveTarget { from } => {
                    let mut choices: Vec<Choice> = engine::move_targets(state, seat, from)
                        .into_iter()
                        .map(|q| target_choice(state, seat, q, Move::MoveTo))
                        .collect();
                    choices.push(Move::NoMove.choice(&state.board, Message::new("choice.no-move")));
                    vec![PendingDecision {
                        private: false,
                        seat,
                        prompt: Message::new("prompt.move-target")
                            .arg("province", state.province_arg(from)),
                        kind: choose(choices),
                        back: None,
                    }]
                }
                Stage::BattleTarget { from } => {
                    let choices = engine::battle_targets(state, seat, from)
                        .into_iter()
                        .map(|q| target_choice(state, seat, q, Move::Target))
                        .collect();
                    vec![PendingDecision {
                        private: false,
                        seat,
                        prompt: Message::new("prompt.battle-target")
                            .arg("province", state.province_arg(from)),
                        kind: choose(choices),
                        back: None,
                    }]
                }
                Stage::MoveCount { from, to } | Stage::BattleCount { from, to } => {
                    // The target and the count are one decision: until the count is sent, the
                    // seat may go back and choose another target. (The origin was fixed by the
                    // revealed plan or the deployment, so the target step has no way back.)
                    let back = match stage {
                        Stage::MoveCount { .. } => "back.move-target",
                        _ => "back.battle-target",
                    };
                    vec![PendingDecision {
                        private: false,
                        seat,
                        prompt: Message::new("prompt.armies")
                            .arg("from", state.province_arg(from))
                            .arg("to", state.province_arg(to)),
                        kind: DecisionKind::Number(NumberDecision {
                            min: 1,
                            max: i64::from(state.provinces[from].armies) - 1,
                        }),
                        back: Some(Message::new(back)),
                    }]
                }
            }
        }
        Phase::Winter {
            turn,
            queue,
            started,
            ..
        } => {
            if !*started || queue.len() < 2 {
                return Vec::new();
            }
            let Some(&seat) = state.turn_order.get(*turn) else {
                return Vec::new();
            };
            let extra = match &state.phase {
                Phase::Winter { extra, .. } => *extra,
                _ => 0,
            };
            let choices = queue
                .iter()
                .map(|&q| {
                    let here = &state.provinces[q];
                    province_choice(state, Move::Revolt(q), q).with_detail(
                        Message::new("choice.detail-revolt")
                            .number("farmers", (here.revolts + extra).min(state.farmer_supply))
                            .number("armies", here.armies),
                    )
                })
                .collect();
            vec![PendingDecision {
                private: false,
                seat,
                prompt: Message::new("prompt.revolt-order"),
                kind: choose(choices),
                back: None,
            }]
        }
    }
}

/// Applies one seat's answer and runs the game on to the next decision; returns the events that
/// tell what happened.
pub fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    table: &mut dyn Table,
) -> Result<Vec<Event>, Rejection> {
    play(state, seat, action, table).map(Log::into_events)
}

/// Applies one seat's answer and runs the game on to the next decision; returns what happened,
/// as outcomes and as the events that tell them.
pub fn play(
    state: &mut State,
    seat: Seat,
    action: &Action,
    table: &mut dyn Table,
) -> Result<Log, Rejection> {
    let mv = Move::decode(state, seat, action)?;
    play_move(state, seat, mv, table)
}

/// Plays a move [`Move::decode`] found in the pending decision of `seat`, then runs the game on
/// to the next decision.
fn play_move(
    state: &mut State,
    seat: Seat,
    mv: Move,
    table: &mut dyn Table,
) -> Result<Log, Rejection> {
    let mut log = Log::new();
    let misfit = || Rejection::Malformed("the move does not fit the decision".into());
    match (state.phase.clone(), mv) {
        (Phase::Over, _) => return Err(Rejection::NotYourTurn),
        (Phase::Actions { .. }, Move::Back) => return go_back(state, seat),
        (Phase::Draft, Move::Group(armies)) => {
            engine::draft_place(state, armies, table, &mut log);
            engine::advance(state, table, &mut log);
            return Ok(log);
        }
        (Phase::Draft, Move::Take(take)) => {
            let draft = state.draft.as_mut().ok_or(Rejection::NotYourTurn)?;
            match take {
                DraftTake::Blind => {
                    let p = draft
                        .deck
                        .pop()
                        .ok_or_else(|| Rejection::Malformed("the deck is empty".into()))?;
                    draft.taken = Some(p);
                    log.push(state, Outcome::DrewBlind { seat, province: p });
                }
                DraftTake::FaceUp(i) => {
                    if i >= draft.face_up.len() {
                        return Err(misfit());
                    }
                    let p = draft.face_up.remove(i);
                    if let Some(next) = draft.deck.pop() {
                        draft.face_up.insert(i, next);
                    }
                    draft.taken = Some(p);
                    log.push(state, Outcome::TookFaceUp { seat, province: p });
                }
            }
        }
        (Phase::Planning, Move::Plan(plan)) => {
            state.plans[seat as usize] = Some(plan);
            log.push(state, Outcome::Planned { seat });
        }
        (Phase::Specials { next }, Move::TakeSpecial(space)) => {
            engine::take_special(state, seat, space, &mut log);
            state.phase = Phase::Specials { next: next + 1 };
        }
        (Phase::Actions { step, turn, stage }, mv) => {
            let next_turn = Phase::Actions {
                step,
                turn: turn + 1,
                stage: Stage::Ready,
            };
            match (stage, mv) {
                (Stage::MoveTarget { from }, Move::NoMove) => {
                    state.phase = next_turn;
                    log.push(state, Outcome::MoveDeclined { seat, from });
                }
                (Stage::MoveTarget { from }, Move::MoveTo(to)) => {
                    if state.provinces[from].armies == 2 {
                        engine::move_armies(state, seat, from, to, 1, &mut log);
                        state.phase = next_turn;
                    } else {
                        state.phase = Phase::Actions {
                            step,
                            turn,
                            stage: Stage::MoveCount { from, to },
                        };
                    }
                }
                (Stage::BattleTarget { from }, Move::Target(to)) => {
                    if state.provinces[from].armies == 2 {
                        let stage =
                            engine::battle_or_move(state, seat, from, to, 1, table, &mut log);
                        state.phase = then(step, turn, stage);
                    } else {
                        state.phase = Phase::Actions {
                            step,
                            turn,
                            stage: Stage::BattleCount { from, to },
                        };
                    }
                }
                (Stage::MoveCount { from, to }, Move::Armies(n)) => {
                    engine::move_armies(state, seat, from, to, n, &mut log);
                    state.phase = next_turn;
                }
                (Stage::BattleCount { from, to }, Move::Armies(n)) => {
                    let stage = engine::battle_or_move(state, seat, from, to, n, table, &mut log);
                    state.phase = then(step, turn, stage);
                }
                (Stage::RecruitBonus { province }, Move::Bonus(take)) => {
                    let card = state.action_layout[step];
                    engine::recruit_with_choice(state, seat, card, province, take, &mut log);
                    state.phase = next_turn;
                }
                (Stage::AttackBonus { mut battle }, Move::Bonus(take)) => {
                    if take {
                        battle.attack_bonus = engine::attack_bonus_offer(state, seat);
                    }
                    let stage =
                        engine::battle_after_attack_bonus(state, seat, battle, table, &mut log);
                    state.phase = then(step, turn, stage);
                }
                (Stage::DefenceBonus { battle }, Move::Bonus(take)) => {
                    // `seat` is the defender answering; the attacker is the seat whose turn it is.
                    let attacker = state.turn_order[turn];
                    let (without, with) = engine::defence_extra(state, battle.to);
                    let extra = if take { with } else { without };
                    engine::attack(state, attacker, battle, extra, table, &mut log);
                    state.phase = next_turn;
                }
                _ => return Err(misfit()),
            }
        }
        (Phase::Winter { .. }, Move::Revolt(p)) => {
            engine::winter_revolt(state, p, table, &mut log);
        }
        _ => return Err(misfit()),
    }
    if log.is_empty()
        && let Some(told) = step_told(state, seat)
    {
        log.push(state, told);
    }
    engine::advance(state, table, &mut log);
    Ok(log)
}

/// Goes back from a count to the target step before it: the target is forgotten and nothing
/// else changes (no armies moved, no randomness used). Only the count steps offer it, and
/// `apply` has checked that the seat's decision does.
fn go_back(state: &mut State, seat: Seat) -> Result<Log, Rejection> {
    let Phase::Actions { step, turn, stage } = state.phase else {
        return Err(Rejection::Malformed("nothing to go back to".into()));
    };
    let (stage, from) = match stage {
        Stage::MoveCount { from, .. } => (Stage::MoveTarget { from }, from),
        Stage::BattleCount { from, .. } => (Stage::BattleTarget { from }, from),
        _ => return Err(Rejection::Malformed("nothing to go back to".into())),
    };
    state.phase = Phase::Actions { step, turn, stage };
    let mut log = Log::new();
    log.push(state, Outcome::TargetWithdrawn { seat, from });
    Ok(log)
}

/// What an answer that settled nothing yet did (a target chosen, armies counted before a bonus
/// is asked for), told from the stage it led to, so that every answer has an event that the
/// story can show: without one, clients could only say that a seat "made a move". (A declined
/// move is told where it is played.)
fn step_told(state: &State, seat: Seat) -> Option<Outcome> {
    let Phase::Actions { stage, .. } = &state.phase else {
        return None;
    };
    match *stage {
        Stage::MoveCount { from, to } => Some(Outcome::MoveChosen { seat, from, to }),
        Stage::BattleCount { from, to } => Some(Outcome::TargetChosen { seat, from, to }),
        Stage::AttackBonus { battle } => Some(Outcome::BattleArmies { seat, battle }),
        Stage::DefenceBonus { battle } => {
            let defender = state.provinces[battle.to].owner?;
            Some(Outcome::DefenceAsked {
                seat,
                defender,
                battle,
            })
        }
        _ => None,
    }
}

/// The phase after a step of the acting seat's action: its next stage, or the next seat's turn.
fn then(step: usize, turn: usize, stage: Stage) -> Phase {
    match stage {
        Stage::Ready => Phase::Actions {
            step,
            turn: turn + 1,
            stage: Stage::Ready,
        },
        waiting => Phase::Actions {
            step,
            turn,
            stage: waiting,
        },
    }
}

impl Move {
    /// The move `seat` answered with `action`, checked against the decision pending for it.
    pub fn decode(state: &State, seat: Seat, action: &Action) -> Result<Move, Rejection> {
        let decisions = pending(state);
        let decision = decisions
            .iter()
            .find(|d| d.seat == seat)
            .ok_or(Rejection::NotYourTurn)?;
        // The SDK checks shapes too; checking here keeps native callers of the rules just as safe.
        sdk::check_answer(decision, action)?;
        match (&decision.kind, action) {
            (_, Action::Back) => Ok(Move::Back),
            (DecisionKind::Assign(_), Action::Assign(placements))
                if state.phase == Phase::Planning =>
            {
                Ok(Move::Plan(plan_from(state, seat, placements)))
            }
            (DecisionKind::Number(_), Action::Number(n)) if *n >= 1 => Ok(Move::Armies(*n as u32)),
            (DecisionKind::Number(_), _) => Err(Rejection::Malformed(
                "expected a number of at least 1".into(),
            )),
            (DecisionKind::Choose(c), Action::Choose(picks)) if picks.len() == 1 => {
                let id = &c.choices[picks[0] as usize].id;
                Move::from_choice_id(state, id)
                    .filter(|mv| mv.choice_id(&state.board).as_deref() == Some(id.as_str()))
                    .ok_or_else(|| Rejection::Malformed(format!("`{id}` is not a choice here")))
            }
            (DecisionKind::Choose(_), _) => Err(Rejection::Malformed("expected one choice".into())),
            _ => Err(Rejection::Malformed(
                "the answer does not fit the decision".into(),
            )),
        }
    }
}
