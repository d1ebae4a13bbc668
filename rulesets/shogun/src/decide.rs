//! What each seat is asked (`sdk::Play` for [`State`]) and how its answer changes the game
//! ([`play`]).
//!
//! Every decision is rebuilt from the state as an `sdk::Offer` of [`Move`]s: each choice carries
//! the move it stands for (its id written by [`Move::choice_id`]), and an answer is read through
//! the offer into moves once, so the rules never parse a choice id back nor build the decision a
//! second time to apply it.

use sdk::{
    Action, Answer, AssignDecision, AssignItem, AssignSlot, Choice, Event, Message, NumberDecision,
    Offer, PendingDecision, Play as _, Rejection, Seat, Table,
};

use crate::data::ProvinceId;
use crate::engine;
use crate::moves::{DraftTake, Move};
use crate::outcome::{Log, Outcome};
use crate::state::{CardRef, Phase, Plan, Stage, State};

/// A choice paired with the move it stands for, labelled `label`.
fn offered(state: &State, mv: Move, label: Message) -> (Choice, Move) {
    (mv.choice(&state.board, label), mv)
}

/// Whether to use a special card's bonus: the prompt names the card and the province, each choice
/// says how many armies it makes.
fn bonus_offer(state: &State, seat: Seat, p: ProvinceId, without: u32, with: u32) -> Offer<Move> {
    let special = state
        .special_of(seat)
        .map(|s| state.board.cards().specials[s].name.clone())
        .unwrap_or_default();
    let prompt = Message::new("prompt.special-bonus")
        .key("special", special)
        .arg("province", state.province_arg(p));
    let take = Message::new("choice.bonus-take").number("armies", with);
    let decline = Message::new("choice.bonus-decline").number("armies", without);
    Offer::choose_one(
        seat,
        prompt,
        vec![
            offered(state, Move::Bonus(true), take),
            offered(state, Move::Bonus(false), decline),
        ],
    )
}

/// The choice of a move to a province ([`Move::MoveTo`], [`Move::Target`], [`Move::Revolt`]),
/// labelled with the province's name, with `detail`.
fn province_choice(state: &State, mv: Move, p: ProvinceId, detail: Message) -> (Choice, Move) {
    let (choice, mv) = offered(state, mv, state.province_label(p));
    (choice.with_detail(detail), mv)
}

/// A province `seat` may send armies to (`to` makes the move of a target), with what is there:
/// its own armies (a move), or the owner and the armies defending it, or the farmers defending a
/// neutral province (an attack).
pub fn target_choice(
    state: &State,
    seat: Seat,
    q: ProvinceId,
    to: fn(ProvinceId) -> Move,
) -> (Choice, Move) {
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
    province_choice(state, to(q), q, detail)
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

/// The planning offer of one seat: its cards, each the move of placing it, into 10 action
/// spaces and the bid space. Answering shows the seat its hand and its plan, so it is private.
fn planning_offer(state: &State, seat: Seat) -> Offer<Move> {
    let cards = plan_items(state, seat)
        .into_iter()
        .map(Move::Card)
        .collect();
    let decision = planning_decision(state, seat);
    Offer::assign(seat, Message::new("prompt.plan"), decision, cards).private(true)
}

/// The plan that (slot, item) placements of `seat`'s planning decision make; the placements are
/// already checked against the decision's shape.
pub fn plan_from(state: &State, seat: Seat, placements: &[(u32, u32)]) -> Plan {
    let items = plan_items(state, seat);
    let placed = placements
        .iter()
        .filter_map(|&(slot, item)| Some((slot, *items.get(item as usize)?)));
    plan_of(state, placed)
}

/// The plan that cards placed into slots of the planning decision make.
fn plan_of(state: &State, placed: impl IntoIterator<Item = (u32, CardRef)>) -> Plan {
    let actions = state.board.cards().actions.len();
    let mut plan = Plan {
        actions: vec![None; actions],
        bid: None,
    };
    for (slot, card) in placed {
        if (slot as usize) < actions {
            plan.actions[slot as usize] = Some(card);
        } else {
            plan.bid = Some(card);
        }
    }
    plan
}

/// The plan of an answer to a planning offer: its placed cards ([`Move::Card`]).
fn placed_plan(state: &State, placed: Vec<(u32, Move)>) -> Result<Plan, Rejection> {
    let cards = placed.into_iter().map(|(slot, mv)| match mv {
        Move::Card(card) => Ok((slot, card)),
        _ => Err(Rejection::Malformed("a plan places cards".into())),
    });
    Ok(plan_of(state, cards.collect::<Result<Vec<_>, _>>()?))
}

/// What `seat`'s answer would do, without doing it. Only a plan has something to say (its cost
/// and what would be skipped); an answer may be incomplete (fewer placements than the minimum)
/// but must otherwise fit the decision's shape.
pub fn preview(
    state: &State,
    seat: Seat,
    action: &Action,
) -> Result<Vec<crate::preview::Note>, Rejection> {
    let offer = state.offer(seat).ok_or(Rejection::NotYourTurn)?;
    let required = match &offer.kind {
        sdk::OfferKind::Assign { decision, .. } => decision.min_placements as usize,
        _ => 0,
    };
    match offer.into_draft_answer(action)? {
        Answer::Assigned(placed) => {
            let count = placed.len();
            let plan = placed_plan(state, placed)?;
            Ok(crate::preview::plan_notes(
                state, seat, &plan, count, required,
            ))
        }
        // A choice, a count or the way back changes nothing yet worth a note.
        _ => Ok(Vec::new()),
    }
}

/// Every decision the game waits for, in the contract's form.
pub fn pending(state: &State) -> Vec<PendingDecision> {
    sdk::offer::pending(state)
}

/// The choice of the special card on `space`, with how many spaces before it are taken.
fn special_choice(state: &State, space: usize) -> (Choice, Move) {
    let special = &state.board.cards().specials[state.special_layout[space]].name;
    let label = Message::new("choice.special")
        .key("special", special.clone())
        .number("space", space as i64 + 1);
    // The turn order is the order of the taken spaces, so a space's number is a position only
    // once every lower space is taken: say how many are.
    let before = state.special_holder[..space]
        .iter()
        .filter(|holder| holder.is_some())
        .count();
    let detail = Message::new("choice.detail-special")
        .number("space", space as i64 + 1)
        .number("before", before as i64);
    let (choice, mv) = offered(state, Move::TakeSpecial(space), label);
    (choice.with_detail(detail), mv)
}

/// Applies one seat's answer and runs the game on to the next decision; returns what happened,
/// as outcomes and as the events that tell them.
pub fn play(
    state: &mut State,
    seat: Seat,
    action: &Action,
    table: &mut dyn Table,
) -> Result<Log, Rejection> {
    let offer = state.offer(seat).ok_or(Rejection::NotYourTurn)?;
    let answer = offer.into_answer(action)?;
    play_answer(state, seat, answer, table)
}

/// Plays an answer read through the offer made to `seat`, then runs the game on to the next
/// decision.
fn play_answer(
    state: &mut State,
    seat: Seat,
    answer: Answer<Move>,
    table: &mut dyn Table,
) -> Result<Log, Rejection> {
    let mv = match answer {
        Answer::Assigned(placed) => Move::Plan(placed_plan(state, placed)?),
        answer => answer
            .single()
            .ok_or_else(|| Rejection::Malformed("one choice is expected".into()))?,
    };
    play_move(state, seat, mv, table)
}

/// Plays a move read through the offer made to `seat`, then runs the game on to the next
/// decision.
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
                        state.phase = engine::phase_after(step, turn, stage);
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
                    state.phase = engine::phase_after(step, turn, stage);
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
                    state.phase = engine::phase_after(step, turn, stage);
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

/// What each seat is asked, each choice with the [`Move`] it stands for, and how its answer is
/// played.
impl sdk::Play for State {
    type Move = Move;

    /// Every decision the game waits for.
    fn offers(&self) -> Vec<Offer<Move>> {
        let state = self;
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
                            let label = Message::new("choice.group").number("armies", n);
                            offered(state, Move::Group(n), label)
                        })
                        .collect();
                    let prompt = Message::new("prompt.draft-group")
                        .arg("province", state.province_arg(taken));
                    vec![Offer::choose_one(seat, prompt, choices)]
                } else {
                    let mut choices: Vec<(Choice, Move)> = draft
                        .face_up
                        .iter()
                        .enumerate()
                        .map(|(i, &p)| {
                            let label = Message::new("choice.face-up")
                                .arg("province", state.province_arg(p));
                            let (choice, mv) =
                                offered(state, Move::Take(DraftTake::FaceUp(i)), label);
                            (choice.with_detail(draft_detail(state, p)), mv)
                        })
                        .collect();
                    if !draft.deck.is_empty() {
                        let blind = Move::Take(DraftTake::Blind);
                        let (choice, mv) = offered(state, blind, Message::new("choice.blind"));
                        let detail = Message::new("choice.detail-deck")
                            .number("cards", draft.deck.len() as i64);
                        choices.push((choice.with_detail(detail), mv));
                    }
                    vec![Offer::choose_one(
                        seat,
                        Message::new("prompt.draft-card"),
                        choices,
                    )]
                }
            }
            Phase::Planning => (0..state.seats)
                .filter(|&s| state.plans[s as usize].is_none())
                .map(|seat| planning_offer(state, seat))
                .collect(),
            Phase::Specials { next } => {
                let Some(&seat) = state.bid_order.get(*next) else {
                    return Vec::new();
                };
                let choices = (0..state.special_holder.len())
                    .filter(|&space| state.special_holder[space].is_none())
                    .map(|space| special_choice(state, space))
                    .collect();
                vec![Offer::choose_one(
                    seat,
                    Message::new("prompt.special"),
                    choices,
                )]
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
                        vec![bonus_offer(state, seat, province, armies, armies + bonus)]
                    }
                    Stage::AttackBonus { battle } => {
                        let bonus = engine::attack_bonus_offer(state, seat);
                        vec![bonus_offer(
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
                        vec![bonus_offer(
                            state,
                            defender,
                            battle.to,
                            armies + without,
                            armies + with,
                        )]
                    }
                    Stage::MoveTarget { from } => {
                        let mut choices: Vec<(Choice, Move)> =
                            engine::move_targets(state, seat, from)
                                .into_iter()
                                .map(|q| target_choice(state, seat, q, Move::MoveTo))
                                .collect();
                        choices.push(offered(state, Move::NoMove, Message::new("choice.no-move")));
                        let prompt = Message::new("prompt.move-target")
                            .arg("province", state.province_arg(from));
                        vec![Offer::choose_one(seat, prompt, choices)]
                    }
                    Stage::BattleTarget { from } => {
                        let choices = engine::battle_targets(state, seat, from)
                            .into_iter()
                            .map(|q| target_choice(state, seat, q, Move::Target))
                            .collect();
                        let prompt = Message::new("prompt.battle-target")
                            .arg("province", state.province_arg(from));
                        vec![Offer::choose_one(seat, prompt, choices)]
                    }
                    Stage::MoveCount { from, to } | Stage::BattleCount { from, to } => {
                        // The target and the count are one decision: until the count is sent, the
                        // seat may go back and choose another target. (The origin was fixed by the
                        // revealed plan or the deployment, so the target step has no way back.)
                        let back = match stage {
                            Stage::MoveCount { .. } => "back.move-target",
                            _ => "back.battle-target",
                        };
                        let prompt = Message::new("prompt.armies")
                            .arg("from", state.province_arg(from))
                            .arg("to", state.province_arg(to));
                        let range = NumberDecision {
                            min: 1,
                            max: i64::from(state.provinces[from].armies) - 1,
                        };
                        // The range starts at 1, so the count fits a `u32`.
                        let count = Offer::number(seat, prompt, range, |n| Move::Armies(n as u32));
                        vec![count.with_back(Message::new(back), Move::Back)]
                    }
                }
            }
            Phase::Winter {
                turn,
                queue,
                started,
                extra,
                ..
            } => {
                if !*started || queue.len() < 2 {
                    return Vec::new();
                }
                let Some(&seat) = state.turn_order.get(*turn) else {
                    return Vec::new();
                };
                let choices = queue
                    .iter()
                    .map(|&q| {
                        let here = &state.provinces[q];
                        let detail = Message::new("choice.detail-revolt")
                            .number("farmers", (here.revolts + extra).min(state.farmer_supply))
                            .number("armies", here.armies);
                        province_choice(state, Move::Revolt(q), q, detail)
                    })
                    .collect();
                vec![Offer::choose_one(
                    seat,
                    Message::new("prompt.revolt-order"),
                    choices,
                )]
            }
        }
    }

    /// What `seat` is asked now, if anything: its offer alone (a planning seat's hand is not
    /// built for every other seat).
    fn offer(&self, seat: Seat) -> Option<Offer<Move>> {
        let state = self;
        if state.phase == Phase::Planning {
            let planned = state.plans.get(seat as usize)?;
            return planned.is_none().then(|| planning_offer(state, seat));
        }
        state.offers().into_iter().find(|offer| offer.seat == seat)
    }

    fn play(
        &mut self,
        seat: Seat,
        answer: Answer<Move>,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        play_answer(self, seat, answer, table).map(Log::into_events)
    }
}
