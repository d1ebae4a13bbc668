//! The rules: pure functions over [`State`] that draw chance only from the [`Table`].
//!
//! [`advance`] runs the game forward until a seat has to decide something; `decide` turns a
//! seat's answer into a change of stage and calls [`advance`] again. What happens is reported as
//! typed [`Outcome`]s into a [`Log`]; [`crate::tell`] words them, so no catalogue key of the log
//! is written here.

use sdk::{CubeCount, CubeOwner, Message, ScoreLine, Seat, SetupError, Table, TableExt};

use crate::data::{ActionCard, ActionKind, Board, EventEffect, ProvinceId, SpecialEffect};
use crate::outcome::{BattleEnd, Log, Outcome, SkipReason};
use crate::state::{
    Battle, CardRef, DEFAULT_LODGE_CHANCE, DEFAULT_RELEASE_CHANCE, Draft, Phase, Player,
    ProvinceState, RevoltOutcome, Settings, Stage, State,
};

/// The name of the farmers' cubes in the battle tower.
pub const FARMER: &str = "farmer";

/// Builds a new game: board, players, tower loading, events, then the draft or the beginner setup.
pub fn new_game(
    board: Board,
    settings: Settings,
    seats: u32,
    table: &mut dyn Table,
) -> Result<(State, Log), SetupError> {
    let mut state = empty_state(board, settings, seats)?;
    let mut log = Log::new();
    configure_tower(&state, table);
    load_tower(&mut state, table, &mut log);
    let mut deck: Vec<usize> = (0..state.board.cards().events.len()).collect();
    table.shuffle(&mut deck);
    state.event_deck = deck;
    if state.settings.beginner_setup {
        beginner_setup(&mut state)?;
        start_year(&mut state, &mut log);
        start_season(&mut state, table, &mut log);
    } else {
        let mut deck: Vec<ProvinceId> = (0..state.provinces.len())
            .filter(|&p| state.in_play(p))
            .collect();
        table.shuffle(&mut deck);
        let groups = state.board.cards().groups_for(seats);
        let face_up: Vec<ProvinceId> = (0..2).filter_map(|_| deck.pop()).collect();
        let first = table.pick_index(seats as usize) as Seat;
        log.push(&state, Outcome::DraftFirst { seat: first });
        state.draft = Some(Draft {
            face_up,
            deck,
            groups: vec![groups; seats as usize],
            first,
            picks: 0,
            taken: None,
        });
        state.phase = Phase::Draft;
    }
    advance(&mut state, table, &mut log);
    Ok((state, log))
}

/// A state with every player at the start: chests, full supply, nothing on the board.
pub fn empty_state(board: Board, settings: Settings, seats: u32) -> Result<State, SetupError> {
    let cards = board.cards().clone();
    let chests = cards.starting_chests_for(seats).ok_or_else(|| {
        SetupError::SeatCount(format!(
            "the card set has no starting chests for {seats} players"
        ))
    })?;
    if cards.specials.len() < seats as usize {
        return Err(SetupError::SeatCount(format!(
            "the card set has {} special cards, fewer than {seats} seats",
            cards.specials.len()
        )));
    }
    let provinces = vec![ProvinceState::default(); board.provinces.len()];
    let player = Player {
        chests,
        rice: 0,
        vp: 0,
        supply: cards.cubes_per_player,
        in_tower: 0,
        tray: 0,
    };
    Ok(State {
        settings,
        seats,
        players: vec![player; seats as usize],
        provinces,
        farmer_supply: cards.farmers,
        farmers_in_tower: 0,
        tray_farmers: 0,
        year: 1,
        season: 0,
        event_deck: Vec::new(),
        year_events: Vec::new(),
        current_event: None,
        action_layout: (0..cards.actions.len()).collect(),
        actions_revealed: cards.actions.len().min(5),
        special_layout: (0..cards.specials.len()).collect(),
        special_holder: vec![None; cards.specials.len()],
        plans: vec![None; seats as usize],
        lost: vec![Vec::new(); seats as usize],
        bids_revealed: false,
        bid_order: Vec::new(),
        turn_order: (0..seats).collect(),
        draft: None,
        phase: Phase::Planning,
        score_lines: Vec::new(),
        winter_revolts: Vec::new(),
        board,
    })
}

/// The tower's shelves: each as the card data gives it, except that an option set away from its
/// default replaces that chance on every shelf (a house rule for the whole tower).
pub fn tower_shelves(state: &State) -> Vec<sdk::TowerShelf> {
    let settings = &state.settings;
    let chosen = |value: f64, default: f64, from_card: f64| {
        if value == default { from_card } else { value }
    };
    state
        .board
        .cards()
        .tower_shelves
        .iter()
        .map(|shelf| sdk::TowerShelf {
            lodge_chance: chosen(
                settings.tower_lodge_chance,
                DEFAULT_LODGE_CHANCE,
                shelf.lodge_chance,
            ),
            release_chance: chosen(
                settings.tower_release_chance,
                DEFAULT_RELEASE_CHANCE,
                shelf.release_chance,
            ),
        })
        .collect()
}

/// Sets the tower's shelves (allowed only before the first drop).
pub fn configure_tower(state: &State, table: &mut dyn Table) {
    if let Err(reason) = table.configure_tower(&tower_shelves(state)) {
        table.log(
            sdk::LogLevel::Warn,
            &format!("tower not configured: {reason}"),
        );
    }
}

/// Tower loading: cubes of every player and farmers go in; what comes out returns to supply.
fn load_tower(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    let cards = state.board.cards();
    let per_player = cards.tower_load_per_player;
    let farmers = cards.tower_load_farmers.min(state.farmer_supply);
    let mut added = vec![0; state.seats as usize];
    for (seat, player) in state.players.iter_mut().enumerate() {
        let n = per_player.min(player.supply);
        player.supply -= n;
        added[seat] = n;
    }
    state.farmer_supply -= farmers;
    let out = drop_cubes_without_tray(state, &added, farmers, table, log);
    for (seat, n) in out.seats.iter().enumerate() {
        state.players[seat].supply += n;
    }
    state.farmer_supply += out.farmers;
}

/// What came out of one drop.
#[derive(Debug, Default)]
pub struct CameOut {
    /// Per seat.
    pub seats: Vec<u32>,
    /// Farmers.
    pub farmers: u32,
    /// The index of the drop in this call, when cubes were dropped.
    pub drop: Option<u32>,
}

/// Drops cubes (already taken from wherever they were) plus everything in the tray. The tray
/// ends empty; the caller places every cube that came out.
fn drop_with_tray(
    state: &mut State,
    added: &[u32],
    farmers: u32,
    table: &mut dyn Table,
    log: &mut Log,
) -> CameOut {
    let mut all = added.to_vec();
    for (seat, player) in state.players.iter_mut().enumerate() {
        all[seat] += player.tray;
        player.tray = 0;
    }
    let all_farmers = farmers + state.tray_farmers;
    state.tray_farmers = 0;
    drop_cubes_without_tray(state, &all, all_farmers, table, log)
}

/// One drop through the host's tower, with the per-owner tower counts kept. What the host says
/// came out is capped at what can be in the tower, so a faulty host cannot create cubes.
fn drop_cubes_without_tray(
    state: &mut State,
    added: &[u32],
    farmers: u32,
    table: &mut dyn Table,
    log: &mut Log,
) -> CameOut {
    let mut cubes = Vec::new();
    for (seat, &n) in added.iter().enumerate() {
        if n > 0 {
            cubes.push(CubeCount {
                owner: CubeOwner::Seat(seat as Seat),
                count: n,
            });
        }
        state.players[seat].in_tower += n;
    }
    if farmers > 0 {
        cubes.push(CubeCount {
            owner: CubeOwner::Neutral(FARMER.into()),
            count: farmers,
        });
    }
    state.farmers_in_tower += farmers;
    let (came_out, drop) = if cubes.is_empty() {
        (Vec::new(), None)
    } else {
        (table.drop_cubes(&cubes), Some(log.count_drop()))
    };
    let mut out = CameOut {
        seats: vec![0; state.seats as usize],
        farmers: 0,
        drop,
    };
    for cube in came_out {
        match cube.owner {
            CubeOwner::Seat(s) if (s as usize) < out.seats.len() => {
                let player = &mut state.players[s as usize];
                let n = cube.count.min(player.in_tower);
                player.in_tower -= n;
                out.seats[s as usize] += n;
            }
            CubeOwner::Neutral(name) if name == FARMER => {
                let n = cube.count.min(state.farmers_in_tower);
                state.farmers_in_tower -= n;
                out.farmers += n;
            }
            other => table.log(
                sdk::LogLevel::Warn,
                &format!("unknown cube owner {other:?}"),
            ),
        }
    }
    out
}

fn beginner_setup(state: &mut State) -> Result<(), SetupError> {
    let setup: Vec<_> = state
        .board
        .cards()
        .beginner_setup_for(state.seats)
        .into_iter()
        .cloned()
        .collect();
    if setup.len() != state.seats as usize {
        return Err(SetupError::Position(format!(
            "the card set has no beginner setup for {} players",
            state.seats
        )));
    }
    for (seat, entry) in setup.iter().enumerate() {
        for placement in &entry.provinces {
            let p = state
                .board
                .province_by_id(&placement.province)
                .ok_or_else(|| {
                    SetupError::Position(format!(
                        "beginner setup: unknown province `{}`",
                        placement.province
                    ))
                })?;
            if !state.in_play(p) || state.provinces[p].owner.is_some() {
                return Err(SetupError::Position(format!(
                    "beginner setup: province `{}` is out of play or taken twice",
                    placement.province
                )));
            }
            let player = &mut state.players[seat];
            let n = placement.armies.min(player.supply);
            player.supply -= n;
            state.provinces[p] = ProvinceState {
                owner: Some(seat as Seat),
                armies: n,
                ..Default::default()
            };
        }
    }
    Ok(())
}

/// A new year: four events face up (the year's rice and revolt markers were reset at the end of
/// the year before).
pub fn start_year(state: &mut State, log: &mut Log) {
    state.year_events.clear();
    for _ in 0..4 {
        if let Some(e) = state.event_deck.pop() {
            state.year_events.push(e);
        }
    }
    log.push(state, Outcome::YearBegan { year: state.year });
}

/// A new season: action cards and special cards laid out, everyone plans.
pub fn start_season(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    let actions = state.board.cards().actions.len();
    let mut layout: Vec<usize> = (0..actions).collect();
    table.shuffle(&mut layout);
    state.action_layout = layout;
    state.actions_revealed = actions.min(5);
    let specials = state.board.cards().specials.len();
    let mut specials_layout: Vec<usize> = (0..specials).collect();
    table.shuffle(&mut specials_layout);
    state.special_layout = specials_layout;
    state.special_holder = vec![None; specials];
    state.plans = vec![None; state.seats as usize];
    state.lost = vec![Vec::new(); state.seats as usize];
    state.bids_revealed = false;
    state.bid_order.clear();
    state.current_event = None;
    state.phase = Phase::Planning;
    log.push(
        state,
        Outcome::SeasonBegan {
            year: state.year,
            season: state.season,
        },
    );
}

/// The effect of this season's event, or no effect when events are off or none is drawn.
pub fn event_effect(state: &State) -> EventEffect {
    match state.current_event {
        Some(e) if state.settings.events => state.board.cards().events[e].effect.clone(),
        _ => EventEffect::default(),
    }
}

/// The special effect a seat holds this season.
pub fn special_effect(state: &State, seat: Seat) -> SpecialEffect {
    state
        .special_of(seat)
        .map(|s| state.board.cards().specials[s].effect.clone())
        .unwrap_or_default()
}

/// Runs the game until a decision is needed or it is over.
pub fn advance(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    loop {
        match state.phase.clone() {
            Phase::Draft | Phase::Over => return,
            Phase::Planning => {
                if state.plans.iter().any(Option::is_none) {
                    return;
                }
                end_planning(state, table, log);
            }
            Phase::Specials { next } => {
                if next >= state.bid_order.len() {
                    settle_turn_order(state, log);
                    state.phase = Phase::Actions {
                        step: 0,
                        turn: 0,
                        stage: Stage::Ready,
                    };
                    continue;
                }
                let free: Vec<usize> = (0..state.special_holder.len())
                    .filter(|&s| state.special_holder[s].is_none())
                    .collect();
                if free.len() == 1 {
                    take_special(state, state.bid_order[next], free[0], log);
                    state.phase = Phase::Specials { next: next + 1 };
                    continue;
                }
                return;
            }
            Phase::Actions { step, turn, stage } => {
                if stage != Stage::Ready {
                    return;
                }
                if step >= state.action_layout.len() {
                    end_season(state, table, log);
                    continue;
                }
                if turn >= state.turn_order.len() {
                    if step + 5 < state.action_layout.len() && state.actions_revealed < step + 6 {
                        state.actions_revealed = step + 6;
                        let action = state.action_layout[step + 5];
                        log.push(
                            state,
                            Outcome::ActionRevealed {
                                action,
                                slot: step + 5,
                            },
                        );
                    }
                    state.phase = Phase::Actions {
                        step: step + 1,
                        turn: 0,
                        stage: Stage::Ready,
                    };
                    continue;
                }
                let seat = state.turn_order[turn];
                let stage = run_action(state, seat, state.action_layout[step], table, log);
                state.phase = phase_after(step, turn, stage);
            }
            Phase::Winter {
                turn,
                queue,
                extra,
                started,
            } => {
                if turn >= state.turn_order.len() {
                    end_winter(state, table, log);
                    continue;
                }
                let seat = state.turn_order[turn];
                if !started {
                    let (queue, extra) = winter_begin(state, seat, table, log);
                    state.phase = Phase::Winter {
                        turn,
                        queue,
                        extra,
                        started: true,
                    };
                    continue;
                }
                match queue.len() {
                    0 => {
                        state.phase = Phase::Winter {
                            turn: turn + 1,
                            queue: Vec::new(),
                            extra: 0,
                            started: false,
                        }
                    }
                    1 => {
                        let outcome = revolt(state, queue[0], extra, table, log);
                        state.winter_revolts.extend(outcome);
                        state.phase = Phase::Winter {
                            turn: turn + 1,
                            queue: Vec::new(),
                            extra: 0,
                            started: false,
                        };
                    }
                    _ => return,
                }
            }
        }
    }
}

/// The card a seat placed on an action card's space.
fn planned(state: &State, seat: Seat, action: usize) -> Option<CardRef> {
    state.plans[seat as usize]
        .as_ref()
        .and_then(|plan| plan.actions.get(action).copied().flatten())
}

/// Reveals the bids, draws the event, has the bids paid and ranks the bidders.
fn end_planning(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    state.bids_revealed = true;
    // The event: one of the year's face-up events, at random (decision 9).
    if !state.year_events.is_empty() {
        let i = table.pick_index(state.year_events.len());
        let event = state.year_events.remove(i);
        state.current_event = Some(event);
        log.push(state, Outcome::EventDrawn { event });
    }
    let mut ranked: Vec<(u32, Seat)> = Vec::new();
    let mut seats: Vec<Seat> = (0..state.seats).collect();
    table.shuffle(&mut seats);
    for seat in seats {
        let bid = state.plans[seat as usize].as_ref().and_then(|p| p.bid);
        let rank = bid_rank(bid);
        let told = match bid {
            Some(CardRef::Chest(v)) => {
                let paid = v.min(state.players[seat as usize].chests);
                state.players[seat as usize].chests -= paid;
                Some(CardRef::Chest(paid))
            }
            other => other,
        };
        log.push(state, Outcome::Bid { seat, bid: told });
        ranked.push((rank, seat));
    }
    // A stable sort keeps the random order among equal bids (decision 10).
    ranked.sort_by_key(|(rank, _)| *rank);
    state.bid_order = ranked.into_iter().map(|(_, s)| s).collect();
    state.phase = Phase::Specials { next: 0 };
}

/// Sort key of a bid, lower first: chests from 4 down to 1, then province cards, then 0 chests,
/// then no card.
pub fn bid_rank(bid: Option<CardRef>) -> u32 {
    match bid {
        Some(CardRef::Chest(v)) if v > 0 => 100 - v.min(99),
        Some(CardRef::Province(_)) => 200,
        Some(CardRef::Chest(_)) => 300,
        None => 400,
    }
}

/// A seat takes the special card on `space`.
pub fn take_special(state: &mut State, seat: Seat, space: usize, log: &mut Log) {
    state.special_holder[space] = Some(seat);
    let special = state.special_layout[space];
    log.push(
        state,
        Outcome::SpecialTaken {
            seat,
            space,
            special,
        },
    );
}

fn settle_turn_order(state: &mut State, log: &mut Log) {
    state.turn_order = state.special_holder.iter().filter_map(|h| *h).collect();
    for (position, seat) in state.turn_order.clone().into_iter().enumerate() {
        log.push(state, Outcome::TurnOrder { seat, position });
    }
}

fn skip(state: &State, log: &mut Log, seat: Seat, action: usize, reason: SkipReason) {
    log.push(
        state,
        Outcome::Skipped {
            seat,
            action,
            reason,
        },
    );
}

/// Pays for a recruit action and places its armies, or skips it in full when the chests or the
/// supply fall short (decision 12). Returns whether the armies were placed.
fn deploy(
    state: &mut State,
    log: &mut Log,
    seat: Seat,
    p: ProvinceId,
    action: usize,
    armies: u32,
) -> bool {
    let s = seat as usize;
    let cost = state.board.cards().actions[action].cost;
    if state.players[s].chests < cost {
        skip(state, log, seat, action, SkipReason::NoChests);
        return false;
    }
    if state.players[s].supply < armies {
        skip(state, log, seat, action, SkipReason::NoArmies);
        return false;
    }
    state.players[s].chests -= cost;
    state.players[s].supply -= armies;
    state.provinces[p].armies += armies;
    log.push(
        state,
        Outcome::Deployed {
            seat,
            province: p,
            armies,
        },
    );
    true
}

/// Carries out one seat's planned action; returns the stage awaited (Ready when done).
fn run_action(
    state: &mut State,
    seat: Seat,
    action: usize,
    table: &mut dyn Table,
    log: &mut Log,
) -> Stage {
    let card = state.board.cards().actions[action].clone();
    let Some(CardRef::Province(p)) = planned(state, seat, action) else {
        return Stage::Ready;
    };
    // Decision 12: a province lost this season took its card off the planning board, so the
    // plan is void even when the province has been retaken since.
    if state.provinces[p].owner != Some(seat) || state.lost[seat as usize].contains(&p) {
        skip(state, log, seat, action, SkipReason::ProvinceLost);
        return Stage::Ready;
    }
    let effect = event_effect(state);
    let special = special_effect(state, seat);
    let s = seat as usize;
    match card.kind {
        ActionKind::BuildCastle | ActionKind::BuildTemple | ActionKind::BuildTheatre => {
            if let Some(reason) = build_obstacle(state, p, card.kind) {
                skip(state, log, seat, action, reason);
                return Stage::Ready;
            }
            if state.players[s].chests < card.cost {
                skip(state, log, seat, action, SkipReason::NoChests);
                return Stage::Ready;
            }
            state.players[s].chests -= card.cost;
            let prov = &mut state.provinces[p];
            match card.kind {
                ActionKind::BuildCastle => prov.castle = true,
                ActionKind::BuildTemple => prov.temple = true,
                _ => {
                    prov.theatre = true;
                    let removed = effect.theatre_removes_revolt.min(prov.revolts);
                    prov.revolts -= removed;
                    if removed > 0 {
                        log.push(
                            state,
                            Outcome::RevoltMarkersRemoved {
                                province: p,
                                markers: removed,
                            },
                        );
                    }
                }
            }
            log.push(
                state,
                Outcome::Built {
                    seat,
                    action,
                    province: p,
                },
            );
        }
        ActionKind::ConfiscateRice | ActionKind::CollectTaxes => {
            let rice = card.kind == ActionKind::ConfiscateRice;
            let info = &state.board.provinces[p];
            let (base, min, max, bonus) = if rice {
                (
                    info.rice,
                    effect.rice_min,
                    effect.rice_max,
                    special.rice_bonus,
                )
            } else {
                (info.tax, effect.tax_min, effect.tax_max, special.tax_bonus)
            };
            let mut gain = base;
            if let Some(max) = max {
                gain = gain.min(max);
            }
            if let Some(min) = min {
                gain = gain.max(min);
            }
            gain += bonus;
            let player = &mut state.players[s];
            if rice {
                player.rice += gain;
                if state.settings.rice_cap > 0 {
                    player.rice = player.rice.min(state.settings.rice_cap);
                }
                log.push(
                    state,
                    Outcome::RiceConfiscated {
                        seat,
                        province: p,
                        rice: gain,
                    },
                );
            } else {
                player.chests += gain;
                log.push(
                    state,
                    Outcome::TaxesCollected {
                        seat,
                        province: p,
                        chests: gain,
                    },
                );
            }
            // Decision 16: farmers rise where a marker already lies, one per marker.
            let markers = state.provinces[p].revolts;
            let kept = markers == 0 || revolt(state, p, 0, table, log).is_some_and(|r| r.kept);
            if kept {
                state.provinces[p].revolts += 1;
            }
        }
        ActionKind::Recruit5 | ActionKind::Recruit3 => {
            let (armies, bonus) = recruit_armies(state, seat, &card);
            let player = &state.players[s];
            // The special's bonus is optional: asked when it can be paid, and left out when the
            // supply holds only the event's number, so Deploy still happens ("puede", "kann").
            if bonus > 0 && player.chests >= card.cost && player.supply >= armies + bonus {
                return Stage::RecruitBonus { province: p };
            }
            deploy(state, log, seat, p, action, armies);
        }
        ActionKind::Recruit1Move => {
            let armies = card.armies.max(1);
            if !deploy(state, log, seat, p, action, armies) {
                return Stage::Ready;
            }
            if state.provinces[p].armies >= 2 && !move_targets(state, seat, p).is_empty() {
                return Stage::MoveTarget { from: p };
            }
        }
        ActionKind::BattleMove => {
            if state.provinces[p].armies < 2 {
                skip(state, log, seat, action, SkipReason::OneArmy);
                return Stage::Ready;
            }
            if battle_targets(state, seat, p).is_empty() {
                skip(state, log, seat, action, SkipReason::NoTarget);
                return Stage::Ready;
            }
            return Stage::BattleTarget { from: p };
        }
    }
    Stage::Ready
}

/// Why building `kind` in `p` would be skipped as the board stands, or `None` when it can be
/// built: the same check when the action runs and in a plan's preview.
pub fn build_obstacle(state: &State, p: ProvinceId, kind: ActionKind) -> Option<SkipReason> {
    let prov = &state.provinces[p];
    let already = match kind {
        ActionKind::BuildCastle => prov.castle,
        ActionKind::BuildTemple => prov.temple,
        _ => prov.theatre,
    };
    if already {
        Some(SkipReason::AlreadyBuilt)
    } else if prov.buildings() >= state.board.provinces[p].spaces {
        Some(SkipReason::NoSpace)
    } else {
        None
    }
}

/// The armies a Deploy card places under this season's event, and the bonus the seat's special
/// card may add to them (decision 15: after the event).
pub fn recruit_armies(state: &State, seat: Seat, card: &ActionCard) -> (u32, u32) {
    let effect = event_effect(state);
    if card.kind == ActionKind::Recruit5 {
        (
            effect.recruit_5.unwrap_or(card.armies),
            special_effect(state, seat).recruit_5_bonus,
        )
    } else {
        (effect.recruit_3.unwrap_or(card.armies), 0)
    }
}

/// Deploy after the seat answered whether to add its special card's bonus armies.
pub fn recruit_with_choice(
    state: &mut State,
    seat: Seat,
    action: usize,
    p: ProvinceId,
    take_bonus: bool,
    log: &mut Log,
) {
    let card = state.board.cards().actions[action].clone();
    let (armies, bonus) = recruit_armies(state, seat, &card);
    let armies = if take_bonus { armies + bonus } else { armies };
    deploy(state, log, seat, p, action, armies);
}

/// Cubes the attacker's special card can add from its supply; 0 when it has none to give.
pub fn attack_bonus_offer(state: &State, seat: Seat) -> u32 {
    special_effect(state, seat)
        .attack_bonus
        .min(state.players[seat as usize].supply)
}

/// Cubes the defender of `to` adds from its supply: without and with its special card's bonus.
/// The castle event's cube is not optional; the special's is ("puede", "kann", "poate").
pub fn defence_extra(state: &State, to: ProvinceId) -> (u32, u32) {
    let prov = &state.provinces[to];
    let Some(defender) = prov.owner else {
        return (0, 0);
    };
    let castle = if prov.castle {
        event_effect(state).castle_defender_bonus
    } else {
        0
    };
    let supply = state.players[defender as usize].supply;
    let bonus = special_effect(state, defender).defence_bonus;
    (castle.min(supply), (castle + bonus).min(supply))
}

/// A Battle/Move of `n` armies: a move into an own province, otherwise a battle, which first
/// asks the attacker and then the defender about their special cards where using one would
/// change the battle. Returns the stage awaited.
pub fn battle_or_move(
    state: &mut State,
    seat: Seat,
    from: ProvinceId,
    to: ProvinceId,
    n: u32,
    table: &mut dyn Table,
    log: &mut Log,
) -> Stage {
    if state.provinces[to].owner == Some(seat) {
        move_armies(state, seat, from, to, n, log);
        return Stage::Ready;
    }
    let battle = Battle {
        from,
        to,
        armies: n,
        attack_bonus: 0,
    };
    if attack_bonus_offer(state, seat) > 0 {
        return Stage::AttackBonus { battle };
    }
    battle_after_attack_bonus(state, seat, battle, table, log)
}

/// The battle once the attacker's bonus is settled: asks the defender, or fights.
pub fn battle_after_attack_bonus(
    state: &mut State,
    seat: Seat,
    battle: Battle,
    table: &mut dyn Table,
    log: &mut Log,
) -> Stage {
    let (without, with) = defence_extra(state, battle.to);
    if with > without {
        return Stage::DefenceBonus { battle };
    }
    attack(state, seat, battle, without, table, log);
    Stage::Ready
}

/// Own adjacent provinces a Deploy/Move 1 may move to.
pub fn move_targets(state: &State, seat: Seat, from: ProvinceId) -> Vec<ProvinceId> {
    state
        .board
        .neighbours(from)
        .iter()
        .copied()
        .filter(|&q| state.in_play(q) && state.provinces[q].owner == Some(seat))
        .collect()
}

/// Adjacent in-play provinces a Battle/Move may go to: own ones (a move), neutral ones and other
/// players' ones unless a temple protects them under this season's event.
pub fn battle_targets(state: &State, seat: Seat, from: ProvinceId) -> Vec<ProvinceId> {
    let protect = event_effect(state).temple_protection;
    state
        .board
        .neighbours(from)
        .iter()
        .copied()
        .filter(|&q| state.in_play(q))
        .filter(|&q| {
            let prov = &state.provinces[q];
            prov.owner == Some(seat) || !(protect && prov.temple && prov.owner.is_some())
        })
        .collect()
}

/// Moves armies between two own provinces.
pub fn move_armies(
    state: &mut State,
    seat: Seat,
    from: ProvinceId,
    to: ProvinceId,
    n: u32,
    log: &mut Log,
) {
    state.provinces[from].armies -= n;
    state.provinces[to].armies += n;
    log.push(
        state,
        Outcome::Moved {
            seat,
            from,
            to,
            armies: n,
        },
    );
}

/// Removes everything from a province and returns its card to the neutral pile (the event
/// that caused it says so).
fn devastate(state: &mut State, p: ProvinceId) {
    let prov = &mut state.provinces[p];
    if let Some(owner) = prov.owner {
        state.players[owner as usize].supply += prov.armies;
        state.lost[owner as usize].push(p);
    }
    *prov = ProvinceState::default();
}

/// Puts cubes of seats not taking part back in the tray.
fn leave_in_tray(state: &mut State, out: &CameOut, participants: &[Seat]) {
    for (seat, &n) in out.seats.iter().enumerate() {
        if !participants.contains(&(seat as Seat)) {
            state.players[seat].tray += n;
        }
    }
}

/// A Battle/Move into a province that is not the seat's own: a battle against its owner or
/// against the farmers of a neutral province. `battle.attack_bonus` and `defence_extra` are the
/// cubes each side adds from its supply, as chosen. The battle is one event: who attacks where
/// from where, what went in, what came out, who won and what stays, tied to its drop.
pub fn attack(
    state: &mut State,
    seat: Seat,
    battle: Battle,
    defence_extra: u32,
    table: &mut dyn Table,
    log: &mut Log,
) {
    let Battle {
        from,
        to,
        armies: n,
        attack_bonus,
    } = battle;
    let s = seat as usize;
    let effect = event_effect(state);
    state.provinces[from].armies -= n;
    let bonus = attack_bonus.min(state.players[s].supply);
    state.players[s].supply -= bonus;
    let mut added = vec![0; state.seats as usize];
    added[s] = n + bonus;
    let Some(defender) = state.provinces[to].owner else {
        // Against a neutral province: farmers from the general supply defend it.
        let farmers = effect.neutral_farmers.unwrap_or(1).min(state.farmer_supply);
        state.farmer_supply -= farmers;
        let out = drop_with_tray(state, &added, farmers, table, log);
        leave_in_tray(state, &out, &[seat]);
        let (a, f) = (out.seats[s], out.farmers);
        state.farmer_supply += f;
        let won = a > f;
        if won {
            state.players[s].supply += f;
            state.provinces[to] = ProvinceState {
                owner: Some(seat),
                armies: a - f,
                ..Default::default()
            };
        } else {
            state.players[s].supply += a;
        }
        let told = Outcome::NeutralBattle {
            seat,
            from,
            to,
            armies: n + bonus,
            farmers,
            out: a,
            out_farmers: f,
            won,
        };
        log.push_with_drop(state, told, out.drop);
        return;
    };
    let d = defender as usize;
    let mut defending = state.provinces[to].armies;
    state.provinces[to].armies = 0;
    let extra = defence_extra.min(state.players[d].supply);
    state.players[d].supply -= extra;
    defending += extra;
    added[d] = defending;
    let farmers_count = state.provinces[to].revolts == 0;
    let out = drop_with_tray(state, &added, 0, table, log);
    leave_in_tray(state, &out, &[seat, defender]);
    let a = out.seats[s];
    let own = out.seats[d];
    let farmers = if farmers_count { out.farmers } else { 0 };
    if farmers_count {
        state.farmer_supply += out.farmers;
    } else {
        state.tray_farmers += out.farmers;
    }
    let total = own + farmers;
    let (end, left) = if a > total {
        state.players[d].supply += own;
        state.players[s].supply += total;
        state.lost[d].push(to);
        let prov = &mut state.provinces[to];
        prov.owner = Some(seat);
        prov.armies = a - total;
        (BattleEnd::Won, a - total)
    } else if total > a {
        state.players[s].supply += a;
        let absorbed = farmers.min(a);
        let lost = a - absorbed;
        state.players[d].supply += lost;
        state.provinces[to].armies = own - lost;
        if own - lost == 0 {
            devastate(state, to);
            (BattleEnd::Devastated, 0)
        } else {
            (BattleEnd::Held, own - lost)
        }
    } else {
        state.players[s].supply += a;
        state.players[d].supply += own;
        devastate(state, to);
        (BattleEnd::Devastated, 0)
    };
    let told = Outcome::Battle {
        seat,
        defender,
        from,
        to,
        armies: n + bonus,
        defending,
        out: a,
        out_defending: own,
        out_farmers: farmers,
        end,
        left,
    };
    log.push_with_drop(state, told, out.drop);
}

/// A revolt of `markers + extra` farmers in province `p`: one event with its drop. Returns how it
/// ended, or `None` for a province nobody holds.
pub fn revolt(
    state: &mut State,
    p: ProvinceId,
    extra: u32,
    table: &mut dyn Table,
    log: &mut Log,
) -> Option<RevoltOutcome> {
    let owner = state.provinces[p].owner?;
    let o = owner as usize;
    let farmers = (state.provinces[p].revolts + extra).min(state.farmer_supply);
    state.farmer_supply -= farmers;
    let mut added = vec![0; state.seats as usize];
    added[o] = state.provinces[p].armies;
    state.provinces[p].armies = 0;
    let out = drop_with_tray(state, &added, farmers, table, log);
    leave_in_tray(state, &out, &[owner]);
    let (own, f) = (out.seats[o], out.farmers);
    state.farmer_supply += f;
    let kept = f < own;
    if kept {
        state.players[o].supply += f;
        state.provinces[p].armies = own - f;
    } else {
        state.players[o].supply += own;
        devastate(state, p);
    }
    let told = Outcome::Revolt {
        province: p,
        owner,
        farmers,
        armies: added[o],
        out_farmers: f,
        out: own,
        kept,
    };
    log.push_with_drop(state, told, out.drop);
    Some(RevoltOutcome {
        province: p,
        owner,
        kept,
    })
}

fn end_season(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    log.push(
        state,
        Outcome::SeasonOver {
            year: state.year,
            season: state.season,
        },
    );
    state.current_event = None;
    state.special_holder = vec![None; state.special_layout.len()];
    state.plans = vec![None; state.seats as usize];
    if state.season < 2 {
        state.season += 1;
        start_season(state, table, log);
    } else {
        log.push(state, Outcome::WinterBegan { year: state.year });
        state.winter_revolts.clear();
        state.phase = Phase::Winter {
            turn: 0,
            queue: Vec::new(),
            extra: 0,
            started: false,
        };
    }
}

/// The winter card's rice loss: the one face-up event of the year not drawn.
pub fn winter_rice_loss(state: &State) -> u32 {
    state
        .year_events
        .first()
        .map_or(0, |&e| state.board.cards().events[e].winter_rice_loss)
}

/// Rice loss and the draw of revolting provinces for one seat.
fn winter_begin(
    state: &mut State,
    seat: Seat,
    table: &mut dyn Table,
    log: &mut Log,
) -> (Vec<ProvinceId>, u32) {
    let loss = winter_rice_loss(state);
    let player = &mut state.players[seat as usize];
    player.rice = player.rice.saturating_sub(loss);
    let rice = player.rice;
    let mut owned = state.provinces_of(seat);
    let shortfall = (owned.len() as u32).saturating_sub(rice);
    let (revolts, extra) = state.board.cards().provisions_for(shortfall);
    log.push(
        state,
        Outcome::WinterRice {
            seat,
            loss,
            rice,
            shortfall,
            revolts,
        },
    );
    // The left neighbour's blind draw is the host's random draw.
    table.shuffle(&mut owned);
    owned.truncate(revolts as usize);
    owned.sort_unstable();
    (owned, extra)
}

/// Resolves the revolt the seat chose to come next in winter.
pub fn winter_revolt(state: &mut State, p: ProvinceId, table: &mut dyn Table, log: &mut Log) {
    if let Phase::Winter {
        turn,
        mut queue,
        extra,
        started,
    } = state.phase.clone()
    {
        queue.retain(|&q| q != p);
        let outcome = revolt(state, p, extra, table, log);
        state.winter_revolts.extend(outcome);
        state.phase = Phase::Winter {
            turn,
            queue,
            extra,
            started,
        };
    }
}

fn end_winter(state: &mut State, table: &mut dyn Table, log: &mut Log) {
    let lines = score(state);
    for line in &lines {
        state.players[line.seat as usize].vp += line.points as u32;
    }
    for seat in 0..state.seats {
        let vp = state.players[seat as usize].vp;
        log.push(state, Outcome::Score { seat, vp });
    }
    // The summary of the winter is told before its lines join the game's score lines.
    let told = Outcome::WinterScored {
        year: state.year,
        lines: lines.clone(),
        loss: winter_rice_loss(state),
    };
    log.push(state, told);
    state.score_lines.extend(lines);
    if state.year >= state.settings.years {
        state.phase = Phase::Over;
        log.push(state, Outcome::GameOver);
        return;
    }
    // Decision 26: rice to 0, revolt markers removed, 4 new events.
    state.year += 1;
    state.season = 0;
    for player in &mut state.players {
        player.rice = 0;
    }
    for prov in &mut state.provinces {
        prov.revolts = 0;
    }
    start_year(state, log);
    start_season(state, table, log);
}

/// Whether a province has one type of building.
type BuildingTest = fn(&ProvinceState) -> bool;

/// The winter score of the board as it stands (decision 25): 1 per province, 1 per building and
/// the region majorities per building type.
pub fn score(state: &State) -> Vec<ScoreLine> {
    let year = i64::from(state.year);
    let mut lines = Vec::new();
    for seat in 0..state.seats {
        let owned = state.provinces_of(seat);
        lines.push(ScoreLine {
            seat,
            label: Message::new("score.provinces").number("year", year),
            points: owned.len() as i64,
        });
        let buildings: u32 = owned.iter().map(|&p| state.provinces[p].buildings()).sum();
        lines.push(ScoreLine {
            seat,
            label: Message::new("score.buildings").number("year", year),
            points: i64::from(buildings),
        });
    }
    let kinds: [(&str, i64, BuildingTest); 3] = [
        ("score.castles", 3, |p| p.castle),
        ("score.temples", 2, |p| p.temple),
        ("score.theatres", 1, |p| p.theatre),
    ];
    for r in 0..state.board.regions.len() {
        let in_region: Vec<ProvinceId> = state
            .board
            .provinces_in_region(r)
            .into_iter()
            .filter(|&p| state.in_play(p))
            .collect();
        for (key, points, has) in kinds {
            let counts: Vec<u32> = (0..state.seats)
                .map(|seat| {
                    in_region
                        .iter()
                        .filter(|&&p| {
                            state.provinces[p].owner == Some(seat) && has(&state.provinces[p])
                        })
                        .count() as u32
                })
                .collect();
            let best = counts.iter().copied().max().unwrap_or(0);
            if best == 0 {
                continue;
            }
            let leaders: Vec<Seat> = (0..state.seats)
                .filter(|&s| counts[s as usize] == best)
                .collect();
            let award = if leaders.len() > 1 {
                points - 1
            } else {
                points
            };
            if award <= 0 {
                continue;
            }
            for seat in leaders {
                lines.push(ScoreLine {
                    seat,
                    label: Message::new(key)
                        .arg("region", state.board.region_arg(r))
                        .number("year", year),
                    points: award,
                });
            }
        }
    }
    lines
}

/// The draft: the seat whose turn it is.
pub fn drafter(draft: &Draft, seats: u32) -> Seat {
    (draft.first + draft.picks) % seats
}

/// The draft: places a group of `armies` on the card taken and moves on.
pub fn draft_place(state: &mut State, armies: u32, table: &mut dyn Table, log: &mut Log) {
    let seats = state.seats;
    let Some(draft) = state.draft.as_mut() else {
        return;
    };
    let seat = drafter(draft, seats);
    let Some(p) = draft.taken.take() else { return };
    if let Some(i) = draft.groups[seat as usize]
        .iter()
        .position(|&g| g == armies)
    {
        draft.groups[seat as usize].remove(i);
    }
    draft.picks += 1;
    let done = draft.groups.iter().all(Vec::is_empty);
    let player = &mut state.players[seat as usize];
    let n = armies.min(player.supply);
    player.supply -= n;
    state.provinces[p] = ProvinceState {
        owner: Some(seat),
        armies: n,
        ..Default::default()
    };
    log.push(
        state,
        Outcome::Claimed {
            seat,
            province: p,
            armies: n,
        },
    );
    if done {
        state.draft = None;
        start_year(state, log);
        start_season(state, table, log);
    }
}

/// The phase after a step of the acting seat's action: its next stage, or the next seat's turn.
pub(crate) fn phase_after(step: usize, turn: usize, stage: Stage) -> Phase {
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
