//! What each seat is asked ([`offers`]) and how its answer changes the game ([`play_move`]).
//!
//! Every decision is rebuilt from the state as an `sdk::Offer` of [`Move`]s: each choice carries
//! the move it stands for (its id written by [`Move::choice_id`]), so an answer is read once,
//! through the offer, into moves; no id is parsed back.
//!
//! Placing a card is three small decisions, each drawn on the seat's map: the rotation, the
//! position (the card's top-left square), then over or under, which is the confirmation. Until
//! the last, nothing is placed and the decision's way back undoes a step.

use sdk::{
    Action, Answer, Choice, Event, Message, MessageArg, Offer, PendingDecision, Rejection, Seat,
    Table,
};

use crate::HonshuGame;
use crate::data::{Colour, SQUARES, Terrain};
use crate::engine::{self, Grid};
use crate::moves::{Move, Step};
use crate::outcome::{Log, Outcome};
use crate::state::*;

fn choice(id: String, label: Message) -> Choice {
    Choice::new(id, label)
}

/// A map card as a choice: its number (its value in a trick), and what its six squares show.
fn card_choice(state: &State, card: u8) -> Choice {
    let layout = state.deck.card(card);
    let count = |wanted: fn(Terrain) -> bool| {
        layout.iter().filter(|&&terrain| wanted(terrain)).count() as i64
    };
    choice(
        Move::Play(card).choice_id().unwrap_or_default(),
        Message::new("choice.card").number("card", card),
    )
    .with_detail(numbers(
        "detail.card",
        &[
            ("town", count(|t| t == Terrain::Town)),
            ("forest", count(|t| t == Terrain::Forest)),
            ("lake", count(|t| t == Terrain::Lake)),
            ("production", count(|t| matches!(t, Terrain::Production(_)))),
            ("factory", count(|t| matches!(t, Terrain::Factory(_)))),
            ("fallow", count(|t| t == Terrain::Fallow)),
        ],
    ))
}

fn resource_choice(square: Square, colour: Colour) -> Choice {
    choice(
        Move::Resource(Some(square)).choice_id().unwrap_or_default(),
        Message::new("choice.resource")
            .key("colour", format!("colour.{}", colour.name()))
            .number("column", square.0)
            .number("row", square.1),
    )
}

/// The seat whose turn it is in a trick of 3-5 players.
fn trick_seat(state: &State, plays: &[Play], choosing_resource: bool) -> Seat {
    if choosing_resource {
        plays.last().map_or(state.order[0], |p| p.seat)
    } else {
        state.order[plays.len()]
    }
}

/// The colour later resources of a trick must match: the first one played.
fn lead_colour(plays: &[Play]) -> Option<Colour> {
    plays.iter().find_map(|p| p.resource.map(|(c, _)| c))
}

/// The resources `seat` may add to the card it just played.
fn playable_resources(state: &State, seat: Seat, plays: &[Play]) -> Vec<(Square, Colour)> {
    let lead = lead_colour(plays);
    state.players[seat as usize]
        .map
        .resource_squares()
        .into_iter()
        .filter(|(_, c)| lead.is_none_or(|lead| lead == *c))
        .collect()
}

/// The offer made to `seat`, if it has one.
pub fn offer_of(state: &State, seat: Seat) -> Option<Offer<Move>> {
    // Placing is simultaneous: build only this seat's step, not every seat's.
    if state.phase == Phase::Place {
        return placement_offer(state, seat);
    }
    offers(state).into_iter().find(|d| d.seat == seat)
}

/// The decision of `seat`, if it has one.
pub fn decision_of(state: &State, seat: Seat) -> Option<PendingDecision> {
    offer_of(state, seat).map(Offer::into_decision)
}

/// Every decision the game waits for.
pub fn pending(state: &State) -> Vec<PendingDecision> {
    offers(state)
        .into_iter()
        .map(Offer::into_decision)
        .collect()
}

/// Every offer the game waits on, each choice with its move.
pub fn offers(state: &State) -> Vec<Offer<Move>> {
    // Only a decision among the cards of a hand shows what others may not see.
    let one = |seat, prompt, choices| vec![Offer::choose_one(seat, prompt, choices)];
    let cards = |cards: &mut dyn Iterator<Item = u8>, mv: fn(u8) -> Move| -> Vec<(Choice, Move)> {
        cards.map(|c| (card_choice(state, c), mv(c))).collect()
    };
    match &state.phase {
        Phase::Trick {
            plays,
            choosing_resource,
        } => {
            let seat = trick_seat(state, plays, *choosing_resource);
            if *choosing_resource {
                let mut choices = vec![(
                    choice(
                        Move::Resource(None).choice_id().unwrap_or_default(),
                        Message::new("choice.no-resource"),
                    ),
                    Move::Resource(None),
                )];
                choices.extend(
                    playable_resources(state, seat, &plays[..plays.len() - 1])
                        .into_iter()
                        .map(|(s, c)| (resource_choice(s, c), Move::Resource(Some(s)))),
                );
                let card = plays.last().map_or(0, |p| p.card);
                one(
                    seat,
                    Message::new("prompt.resource").number("card", card),
                    choices,
                )
            } else {
                hand_offer(
                    state,
                    seat,
                    Message::new("prompt.play").number("round", state.round),
                )
            }
        }
        Phase::Pick { plays, next } => {
            let seat = state.order[*next];
            let choices = cards(&mut plays.iter().map(|p| p.card), Move::Take);
            one(seat, Message::new("prompt.pick"), choices)
        }
        Phase::Duel { committed, .. } => (0..2)
            .filter(|&s| committed[s as usize].is_none())
            .flat_map(|s| {
                hand_offer(
                    state,
                    s,
                    Message::new("prompt.duel").number("round", state.round),
                )
            })
            .collect(),
        Phase::Fee { winner, paying, .. } => {
            let loser = 1 - winner;
            if *paying {
                // Each square is picked as the resource it holds; the two make the fee paid.
                let choices = state.players[loser as usize]
                    .map
                    .resource_squares()
                    .into_iter()
                    .map(|(s, c)| (resource_choice(s, c), Move::Resource(Some(s))))
                    .collect();
                vec![Offer::choose(
                    loser,
                    Message::new("prompt.fee-pay"),
                    choices,
                    2,
                    2,
                )]
            } else {
                let fee = |pay: bool, key: &str| {
                    let mv = Move::Fee(pay);
                    (
                        choice(mv.choice_id().unwrap_or_default(), Message::new(key)),
                        mv,
                    )
                };
                let choices = vec![
                    fee(false, "choice.fee-decline"),
                    fee(true, "choice.fee-pay"),
                ];
                one(
                    loser,
                    Message::new("prompt.fee").seat("winner", *winner),
                    choices,
                )
            }
        }
        Phase::PairPick {
            revealed,
            played,
            chooser,
        } => {
            let pair = |pair: Pair, key: &str, cards: &[u8; 2]| {
                let mv = Move::Pair(pair);
                let label = Message::new(key)
                    .number("first", cards[0])
                    .number("second", cards[1]);
                (choice(mv.choice_id().unwrap_or_default(), label), mv)
            };
            let choices = vec![
                pair(Pair::Revealed, "choice.pair-revealed", revealed),
                pair(Pair::Played, "choice.pair-played", played),
            ];
            one(*chooser, Message::new("prompt.pair"), choices)
        }
        Phase::Keep { pairs, kept } => (0..2u32)
            .filter(|&s| kept[s as usize].is_none())
            .map(|s| {
                let choices = cards(&mut pairs[s as usize].iter().copied(), Move::Keep);
                Offer::choose_one(s, Message::new("prompt.keep"), choices)
            })
            .collect(),
        Phase::Place => (0..state.seats)
            .filter_map(|seat| placement_offer(state, seat))
            .collect(),
        Phase::Over => Vec::new(),
    }
}

fn hand_offer(state: &State, seat: Seat, prompt: Message) -> Vec<Offer<Move>> {
    let choices = state.players[seat as usize]
        .hand
        .iter()
        .map(|&c| (card_choice(state, c), Move::Play(c)))
        .collect();
    vec![Offer::choose_one(seat, prompt, choices).private(true)]
}

/// A message whose arguments are all numbers, built with each vector at its final size (the
/// same message as `Message::new(key).number(..)..`, with fewer allocations).
fn numbers(key: &str, args: &[(&str, i64)]) -> Message {
    Message {
        key: key.to_owned(),
        args: args
            .iter()
            .map(|&(name, value)| (name.to_owned(), MessageArg::Number(value)))
            .collect(),
    }
}

/// The choices of `seat`'s current placement step, in the order offered, with the card and the
/// map's grid; `None` if the seat places nothing. Both [`pending`] and [`apply`] read them, so
/// an index means the same in both, and `apply` builds no labels.
pub(crate) fn placement_steps(state: &State, seat: Seat) -> Option<(u8, Vec<Step>, Option<Grid>)> {
    let player = &state.players[seat as usize];
    let card = player.to_place?;
    let layout = state.deck.card(card);
    let grid = Grid::new(&player.map);
    let steps = match (player.draft.rotation, player.draft.origin) {
        (None, _) => grid
            .as_ref()
            .map_or_else(Vec::new, |g| g.legal_rotations(layout))
            .into_iter()
            .map(Step::Rotate)
            .collect(),
        (Some(rotation), None) => grid
            .as_ref()
            .map_or_else(Vec::new, |g| g.legal_origins(layout, rotation))
            .into_iter()
            .map(Step::At)
            .collect(),
        (Some(rotation), Some(origin)) => {
            let (over, under) = grid
                .as_ref()
                .map_or((false, false), |g| g.layers(layout, origin, rotation));
            [(over, Layer::Over), (under, Layer::Under)]
                .into_iter()
                .filter(|(legal, _)| *legal)
                .map(|(_, layer)| Step::Layer(layer))
                .collect()
        }
    };
    Some((card, steps, grid))
}

/// The current step of `seat`'s placement.
pub fn placement_decision(state: &State, seat: Seat) -> Option<PendingDecision> {
    placement_offer(state, seat).map(Offer::into_decision)
}

/// The current step of `seat`'s placement, each choice with its step.
pub fn placement_offer(state: &State, seat: Seat) -> Option<Offer<Move>> {
    let (card, steps, grid) = placement_steps(state, seat)?;
    let draft = state.players[seat as usize].draft;
    let overlap = |origin: Square, rotation: u8| {
        grid.as_ref()
            .map_or((0, 0), |g| g.overlap(origin, rotation))
    };
    let layers: Vec<Layer> = steps
        .iter()
        .filter_map(|step| match step {
            Step::Layer(layer) => Some(*layer),
            _ => None,
        })
        .collect();
    let prompt = match (draft.rotation, draft.origin) {
        (None, _) => Message::new("prompt.rotation").number("card", card),
        (Some(_), None) => Message::new("prompt.position").number("card", card),
        (Some(rotation), Some(origin)) => match layers[..] {
            // Only one way is allowed: say which, and why the other is not.
            [allowed] => {
                let other = match allowed {
                    Layer::Over => Layer::Under,
                    Layer::Under => Layer::Over,
                };
                let layout = state.deck.card(card);
                let map = &state.players[seat as usize].map;
                let reason = engine::placement_problem(map, layout, origin, rotation, other)
                    .unwrap_or("all-hidden");
                Message::new("prompt.confirm-one")
                    .number("card", card)
                    .key("layer", layer_key(allowed))
                    .key("reason", format!("illegal.{reason}"))
            }
            _ => Message::new("prompt.confirm").number("card", card),
        },
    };
    let choices = steps
        .into_iter()
        .map(|step| {
            let id = step.id();
            let (label, detail) = match step {
                Step::Rotate(r) => (
                    numbers("choice.rotation", &[("degrees", i64::from(r) * 90)]),
                    None,
                ),
                Step::At(s) => {
                    let (squares, _) = overlap(s, draft.rotation.unwrap_or(0));
                    (
                        numbers(
                            "choice.position",
                            &[("column", i64::from(s.0)), ("row", i64::from(s.1))],
                        ),
                        Some(numbers("detail.position", &[("squares", squares as i64)])),
                    )
                }
                Step::Layer(layer) => {
                    let (squares, resources) = overlap(
                        draft.origin.unwrap_or_default(),
                        draft.rotation.unwrap_or(0),
                    );
                    match layer {
                        Layer::Over => (
                            Message::new("choice.over"),
                            Some(numbers(
                                "detail.over",
                                &[("squares", squares as i64), ("resources", resources as i64)],
                            )),
                        ),
                        Layer::Under => (
                            Message::new("choice.under"),
                            Some(numbers(
                                "detail.under",
                                &[("visible", (SQUARES - squares) as i64)],
                            )),
                        ),
                    }
                }
            };
            (Choice { id, label, detail }, Move::Place(step))
        })
        .collect();
    let offer = Offer::choose_one(seat, prompt, choices);
    Some(match way_back(draft) {
        Some(label) => offer.with_back(label, Move::PlaceBack),
        None => offer,
    })
}

/// The label of the way back from the step `draft` has reached, once a step was taken. Going
/// back is the contract's way back, not a choice: a bot or a random answer never takes it.
/// Offered as a choice, it let the search bots go back and forth between a rotation and its
/// positions for hundreds of actions.
pub(crate) fn way_back(draft: Draft) -> Option<Message> {
    match (draft.rotation, draft.origin) {
        (None, _) => None,
        (Some(_), None) => Some(Message::new("back.rotation")),
        (Some(_), Some(_)) => Some(Message::new("back.position")),
    }
}

/// The catalogue key that names a layer in a sentence.
fn layer_key(layer: Layer) -> &'static str {
    match layer {
        Layer::Over => "layer.over",
        Layer::Under => "layer.under",
    }
}

fn illegal(key: &str) -> Rejection {
    Rejection::Illegal(Message::new(format!("illegal.{key}")))
}

/// Applies `seat`'s answer.
pub fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    _table: &mut dyn Table,
) -> Result<Vec<Event>, Rejection> {
    play(state, seat, action).map(Log::into_events)
}

/// Applies `seat`'s answer; returns what happened, as outcomes and as the events that tell them.
pub fn play(state: &mut State, seat: Seat, action: &Action) -> Result<Log, Rejection> {
    let offer = offer_of(state, seat).ok_or(Rejection::NotYourTurn)?;
    let mv = Move::of_answer(offer.into_answer(action)?)?;
    play_move(state, seat, mv)
}

/// Plays a move read through the offer made to `seat`.
pub fn play_move(state: &mut State, seat: Seat, mv: Move) -> Result<Log, Rejection> {
    let mut log = Log::new();
    let misfit = || Rejection::Malformed("the move does not fit the decision".into());
    match (state.phase.clone(), mv) {
        (Phase::Over, _) => return Err(Rejection::NotYourTurn),
        (Phase::Place, Move::Place(step)) => place_step(state, seat, step, &mut log)?,
        (Phase::Place, Move::PlaceBack) => place_back(state, seat, &mut log)?,
        (
            Phase::Trick {
                mut plays,
                choosing_resource: true,
            },
            Move::Resource(resource),
        ) => {
            if let Some(square) = resource {
                let cell = state.players[seat as usize]
                    .map
                    .cells
                    .get_mut(&square)
                    .ok_or_else(|| illegal("no-resource"))?;
                let colour = cell.resource.take().ok_or_else(|| illegal("no-resource"))?;
                if lead_colour(&plays).is_some_and(|lead| lead != colour) {
                    return Err(illegal("wrong-colour"));
                }
                let play = plays.last_mut().expect("a card was played");
                play.resource = Some((colour, square));
                log.push(
                    &(),
                    Outcome::ResourcePlayed {
                        seat,
                        colour,
                        value: play.value(),
                    },
                );
            } else {
                let card = plays.last().map_or(0, |p| p.card);
                log.push(&(), Outcome::NoResource { seat, card });
            }
            state.phase = Phase::Trick {
                plays,
                choosing_resource: false,
            };
            close_trick_if_done(state, &mut log);
        }
        (
            Phase::Trick {
                mut plays,
                choosing_resource: false,
            },
            Move::Play(card),
        ) => {
            take_from_hand(state, seat, card)?;
            plays.push(Play {
                seat,
                card,
                resource: None,
            });
            log.push(&(), Outcome::CardPlayed { seat, card });
            let may_add = !playable_resources(state, seat, &plays[..plays.len() - 1]).is_empty();
            state.phase = Phase::Trick {
                plays,
                choosing_resource: may_add,
            };
            close_trick_if_done(state, &mut log);
        }
        (Phase::Pick { mut plays, next }, Move::Take(card)) => {
            let at = plays
                .iter()
                .position(|p| p.card == card)
                .ok_or_else(|| illegal("not-in-trick"))?;
            let play = plays.remove(at);
            if let Some((colour, _)) = play.resource {
                state.pool[colour.index()] += 1;
            }
            state.players[seat as usize].to_place = Some(card);
            log.push(&(), Outcome::CardTaken { seat, card });
            if plays.is_empty() {
                engine::start_map_phase(state, &mut log);
            } else {
                state.phase = Phase::Pick {
                    plays,
                    next: next + 1,
                };
            }
        }
        (
            Phase::Duel {
                revealed,
                mut committed,
            },
            Move::Play(card),
        ) => {
            take_from_hand(state, seat, card)?;
            committed[seat as usize] = Some(card);
            log.push(&(), Outcome::DuelCommitted { seat, card });
            if let [Some(a), Some(b)] = committed {
                let played = [a, b];
                let winner: Seat = if a > b { 0 } else { 1 };
                log.push(
                    &(),
                    Outcome::DuelRevealed {
                        cards: played,
                        winner,
                    },
                );
                let loser = 1 - winner;
                let can_pay = state.players[loser as usize].map.resource_squares().len() >= 2;
                state.phase = if can_pay {
                    Phase::Fee {
                        revealed,
                        played,
                        winner,
                        paying: false,
                    }
                } else {
                    Phase::PairPick {
                        revealed,
                        played,
                        chooser: winner,
                    }
                };
            } else {
                state.phase = Phase::Duel {
                    revealed,
                    committed,
                };
            }
        }
        (
            Phase::Fee {
                revealed,
                played,
                winner,
                paying: false,
            },
            Move::Fee(pay),
        ) => {
            log.push(&(), Outcome::FeeAnswered { seat, winner, pay });
            state.phase = if pay {
                Phase::Fee {
                    revealed,
                    played,
                    winner,
                    paying: true,
                }
            } else {
                Phase::PairPick {
                    revealed,
                    played,
                    chooser: winner,
                }
            };
        }
        (
            Phase::Fee {
                revealed,
                played,
                paying: true,
                ..
            },
            Move::PayFee(squares),
        ) => {
            for square in squares {
                let colour = state.players[seat as usize]
                    .map
                    .cells
                    .get_mut(&square)
                    .and_then(|c| c.resource.take())
                    .ok_or_else(|| illegal("no-resource"))?;
                state.pool[colour.index()] += 1;
            }
            log.push(&(), Outcome::FeePaid { seat });
            state.phase = Phase::PairPick {
                revealed,
                played,
                chooser: seat,
            };
        }
        (
            Phase::PairPick {
                revealed,
                played,
                chooser,
            },
            Move::Pair(pair),
        ) => {
            let (mine, theirs) = match pair {
                Pair::Revealed => (revealed, played),
                Pair::Played => (played, revealed),
            };
            let mut pairs = [mine, theirs];
            if chooser == 1 {
                pairs.swap(0, 1);
            }
            log.push(
                &(),
                Outcome::PairTaken {
                    seat: chooser,
                    cards: mine,
                },
            );
            state.phase = Phase::Keep {
                pairs,
                kept: [None, None],
            };
        }
        (Phase::Keep { pairs, mut kept }, Move::Keep(card)) => {
            kept[seat as usize] = Some(card);
            if let [Some(a), Some(b)] = kept {
                for (s, (pair, keep)) in pairs.iter().zip([a, b]).enumerate() {
                    let other = if pair[0] == keep { pair[1] } else { pair[0] };
                    state.discard.push(other);
                    state.players[s].to_place = Some(keep);
                    log.push(
                        &(),
                        Outcome::Kept {
                            seat: s as Seat,
                            card: keep,
                            discarded: other,
                        },
                    );
                }
                engine::start_map_phase(state, &mut log);
            } else {
                log.push(&(), Outcome::KeepChosen { seat });
                state.phase = Phase::Keep { pairs, kept };
            }
        }
        _ => return Err(misfit()),
    }
    Ok(log)
}

fn take_from_hand(state: &mut State, seat: Seat, card: u8) -> Result<(), Rejection> {
    let hand = &mut state.players[seat as usize].hand;
    let at = hand
        .iter()
        .position(|&c| c == card)
        .ok_or_else(|| illegal("not-in-hand"))?;
    hand.remove(at);
    engine::forget_passed(state, card);
    Ok(())
}

/// When every seat has played into the trick, sets the new player order and starts picking.
fn close_trick_if_done(state: &mut State, log: &mut Log) {
    let Phase::Trick {
        plays,
        choosing_resource: false,
    } = &state.phase
    else {
        return;
    };
    if plays.len() < state.seats as usize {
        return;
    }
    let plays = plays.clone();
    state.order = engine::order_from_trick(&plays);
    log.push(
        &(),
        Outcome::NewOrder {
            first: state.order[0],
        },
    );
    state.phase = Phase::Pick { plays, next: 0 };
}

/// Undoes the last step of `seat`'s placement: the position if chosen, else the rotation.
fn place_back(state: &mut State, seat: Seat, log: &mut Log) -> Result<(), Rejection> {
    let player = &mut state.players[seat as usize];
    let card = player.to_place.ok_or(Rejection::NotYourTurn)?;
    if player.draft.origin.is_some() {
        player.draft.origin = None;
    } else {
        player.draft.rotation = None;
    }
    log.push(&(), Outcome::PlacingBack { seat, card });
    Ok(())
}

/// One step of a placement: a rotation, a position, or the confirming layer. Every step is
/// told, so that no answer shows as an empty caption; the steps before the confirmation are told
/// to the placing seat alone (see [`crate::tell`]).
fn place_step(state: &mut State, seat: Seat, step: Step, log: &mut Log) -> Result<(), Rejection> {
    let player = &mut state.players[seat as usize];
    let card = player.to_place.ok_or(Rejection::NotYourTurn)?;
    let layer = match step {
        Step::Rotate(rotation) => {
            player.draft.rotation = Some(rotation);
            log.push(
                &(),
                Outcome::PlacingRotated {
                    seat,
                    card,
                    rotation,
                },
            );
            return Ok(());
        }
        Step::At(origin) => {
            player.draft.origin = Some(origin);
            log.push(&(), Outcome::PlacingPosition { seat, card, origin });
            return Ok(());
        }
        Step::Layer(layer) => layer,
    };
    let (Some(rotation), Some(origin)) = (player.draft.rotation, player.draft.origin) else {
        return Err(Rejection::Malformed("the placement is not complete".into()));
    };
    let layout = *state.deck.card(card);
    let player = &mut state.players[seat as usize];
    if let Some(problem) = engine::placement_problem(&player.map, &layout, origin, rotation, layer)
    {
        return Err(illegal(problem));
    }
    let resources = engine::place_unchecked(
        &mut player.map,
        &mut state.pool,
        card,
        &layout,
        origin,
        rotation,
        layer,
    );
    player.to_place = None;
    player.draft = Draft::default();
    log.push(
        &(),
        Outcome::Placed {
            seat,
            card,
            layer,
            resources,
        },
    );
    engine::finish_map_phase_if_done(state, log);
    Ok(())
}

impl Move {
    /// The move an answer read through its offer stands for: its one move, or the two
    /// squares of a fee paid.
    pub fn of_answer(answer: Answer<Move>) -> Result<Move, Rejection> {
        let mut moves = answer.into_moves();
        match moves[..] {
            [_] => Ok(moves.remove(0)),
            _ => moves
                .into_iter()
                .map(|mv| match mv {
                    Move::Resource(Some(square)) => Ok(square),
                    _ => Err(Rejection::Malformed("one choice is expected".into())),
                })
                .collect::<Result<Vec<Square>, Rejection>>()
                .map(Move::PayFee),
        }
    }
}

/// Each seat is offered [`Move`]s ([`offers`]), played by [`play_move`].
impl sdk::Play for HonshuGame {
    type Move = Move;

    fn offers(&self) -> Vec<Offer<Move>> {
        offers(&self.state)
    }

    fn offer(&self, seat: Seat) -> Option<Offer<Move>> {
        offer_of(&self.state, seat)
    }

    fn play(
        &mut self,
        seat: Seat,
        answer: Answer<Move>,
        _: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        let mv = Move::of_answer(answer)?;
        play_move(&mut self.state, seat, mv).map(Log::into_events)
    }
}
