//! The rules of Goofspiel: the state of a game, what each seat is asked and what its answer does.
//!
//! Every seat holds the same cards, 1 to the deck size. A prize deck of the same cards is
//! shuffled (by the host: `table` is the only source of chance) and turned up one at a time; for
//! each prize every seat bids one card from its hand, in secret and all at once. When the last
//! bid is in, the bids are shown: the highest bid takes the prize (the lowest, in the variant),
//! a tie for it takes nothing and the prize is set aside, and every bid card is spent. After the
//! last prize, the most points (the sum of the prizes taken) wins.
//!
//! The hidden information: a seat's bid, until every seat has bid, and the order of the prize
//! deck. `board` shows no seat another's bid and nobody the deck; [`determinize`] redraws both
//! for the search bots.

use std::ops::RangeInclusive;

use sdk::{
    Action, Choice, ChooseDecision, DecisionKind, FromOptions, GameResult, Log, Message,
    OptionSpec, Options, PendingDecision, Placing, Rejection, Salt, Seat, Table, TableExt,
};
use serde::{Deserialize, Serialize};

/// How many seats a game takes.
pub const SEATS: RangeInclusive<u32> = 2..=4;

/// The settings a game is played with: its options, read once when it starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// The cards of each hand and of the prize deck: 1 to this.
    pub cards: u8,
    /// Whether the lowest bid takes the prize instead of the highest.
    pub lowest_wins: bool,
}

impl FromOptions for Settings {
    fn schema() -> Vec<OptionSpec> {
        vec![
            OptionSpec::integer("cards", 3, 13, 13),
            OptionSpec::boolean("lowest-wins", false),
        ]
    }

    fn from_options(options: &Options) -> Settings {
        Settings {
            cards: options.integer("cards") as u8,
            lowest_wins: options.boolean("lowest-wins"),
        }
    }
}

/// What happened, in the terms of the rules; `tell` words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `seat` bid `card` for `prize`: the card for the seat alone, the bid for everyone.
    Bid { seat: Seat, card: u8, prize: u8 },
    /// Every bid is in: what each seat bid for `prize`, and who took it.
    Shown {
        prize: u8,
        bids: Vec<u8>,
        taker: Option<Seat>,
    },
    /// The next prize is turned up; `left` more lie face down.
    Prize { prize: u8, left: u32 },
}

/// A game in progress: everything the rules need, and nothing else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The options it is played with.
    pub settings: Settings,
    /// Each seat's cards, lowest first, a bid not yet shown included (so that the hands, which
    /// everyone sees, do not give a bid away).
    pub hands: Vec<Vec<u8>>,
    /// This prize's bids so far, each seen by its own seat alone.
    pub bids: Vec<Option<u8>>,
    /// The prize deck, face down: the next prize is the last card.
    pub deck: Vec<u8>,
    /// The prize on offer; `None` once the game is over.
    pub prize: Option<u8>,
    /// The prizes each seat took.
    pub won: Vec<Vec<u8>>,
    /// The prizes set aside after a tie.
    pub set_aside: Vec<u8>,
    /// The last prize bid for, with each seat's bid and who took it: shown until the next.
    pub last: Option<Shown>,
}

/// A prize once every bid for it is shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shown {
    /// The prize.
    pub prize: u8,
    /// Each seat's bid.
    pub bids: Vec<u8>,
    /// The seat that took it, if a single seat made the best bid.
    pub taker: Option<Seat>,
}

impl State {
    /// A new game: the hands dealt, the prize deck shuffled from `table` and its first card up.
    pub fn new(seats: u32, settings: Settings, table: &mut dyn Table) -> State {
        let cards: Vec<u8> = (1..=settings.cards).collect();
        let mut deck = cards.clone();
        table.shuffle(&mut deck);
        let prize = deck.pop();
        State {
            settings,
            hands: vec![cards; seats as usize],
            bids: vec![None; seats as usize],
            deck,
            prize,
            won: vec![Vec::new(); seats as usize],
            set_aside: Vec::new(),
            last: None,
        }
    }

    /// How many seats play.
    pub fn seats(&self) -> u32 {
        self.hands.len() as u32
    }

    /// A seat's points: the sum of the prizes it took.
    pub fn points(&self, seat: Seat) -> u32 {
        self.won[seat as usize]
            .iter()
            .map(|&card| u32::from(card))
            .sum()
    }

    /// Which of `bids` takes the prize: the one seat with the best bid, or none on a tie.
    fn taker(&self, bids: &[u8]) -> Option<Seat> {
        let best = if self.settings.lowest_wins {
            bids.iter().min()
        } else {
            bids.iter().max()
        }?;
        let mut best_seats = (0..).zip(bids).filter(|(_, bid)| *bid == best);
        let (seat, _) = best_seats.next()?;
        best_seats.next().is_none().then_some(seat)
    }
}

/// The decisions the game waits for: every seat that has not bid for the prize on offer, at
/// once. Each is private: on a shared device the next player takes it before seeing a hand.
pub fn pending(state: &State) -> Vec<PendingDecision> {
    let Some(prize) = state.prize else {
        return Vec::new();
    };
    (0..state.seats())
        .filter(|&seat| state.bids[seat as usize].is_none())
        .map(|seat| {
            let choices = state.hands[seat as usize]
                .iter()
                .map(|&card| {
                    Choice::new(
                        format!("card-{card}"),
                        Message::new("choice.card").number("card", card),
                    )
                })
                .collect();
            let kind = DecisionKind::Choose(ChooseDecision {
                choices,
                min: 1,
                max: 1,
            });
            let prompt = Message::new("prompt.bid").number("prize", prize);
            PendingDecision::new(seat, prompt, kind).private()
        })
        .collect()
}

/// Applies `seat`'s bid. The SDK has checked that the seat is asked and that the answer picks
/// one card of its hand; the last bid shows them all and turns up the next prize.
pub fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    _table: &mut dyn Table,
    log: &mut Log<Outcome>,
) -> Result<(), Rejection> {
    let (Action::Choose(picks), Some(prize)) = (action, state.prize) else {
        return Err(Rejection::Malformed("bid one card of your hand".into()));
    };
    let card = state.hands[seat as usize][picks[0] as usize];
    state.bids[seat as usize] = Some(card);
    log.push(&(), Outcome::Bid { seat, card, prize });
    let Some(bids) = state.bids.iter().copied().collect::<Option<Vec<u8>>>() else {
        return Ok(());
    };
    let taker = state.taker(&bids);
    for (hand, bid) in state.hands.iter_mut().zip(&bids) {
        hand.retain(|card| card != bid);
    }
    match taker {
        Some(seat) => state.won[seat as usize].push(prize),
        None => state.set_aside.push(prize),
    }
    state.bids = vec![None; bids.len()];
    state.last = Some(Shown {
        prize,
        bids: bids.clone(),
        taker,
    });
    log.push(&(), Outcome::Shown { prize, bids, taker });
    state.prize = state.deck.pop();
    if let Some(prize) = state.prize {
        let left = state.deck.len() as u32;
        log.push(&(), Outcome::Prize { prize, left });
    }
    Ok(())
}

/// The result once the last prize is taken: by points, seats with as many sharing a place.
pub fn result(state: &State) -> Option<GameResult> {
    if state.prize.is_some() {
        return None;
    }
    let scores = (0..state.seats()).map(|seat| (seat, i64::from(state.points(seat)), Vec::new()));
    let placings = Placing::ranked(scores);
    let winners: Vec<&Placing> = placings.iter().filter(|p| p.rank == 1).collect();
    let summary = match winners.as_slice() {
        [winner] => Message::new("result.win")
            .seat("seat", winner.seat)
            .number("points", winner.score),
        _ => Message::new("result.shared").number("points", winners[0].score),
    };
    Some(GameResult {
        placings,
        breakdown: Vec::new(),
        summary,
    })
}

/// The game as `seat` might imagine it, for the search bots: the prize deck in an order drawn
/// from `table`, and each bid `seat` has not seen replaced by a card of that hand at random.
pub fn determinize(state: &State, seat: Seat, table: &mut dyn Table) -> State {
    let mut imagined = state.clone();
    table.shuffle(&mut imagined.deck);
    for other in (0..state.seats()).filter(|&other| other != seat) {
        let other = other as usize;
        if imagined.bids[other].is_some() {
            let hand = &imagined.hands[other];
            imagined.bids[other] = Some(hand[table.pick_index(hand.len())]);
        }
    }
    imagined
}

/// What a player bids without thinking ahead, for the bots' playouts: a card as high in the hand
/// as the prize is among the prizes still to come (as low, when the lowest bid wins), give or
/// take one card by `salt`.
pub fn rollout_action(state: &State, seat: Seat, salt: u64) -> Option<Action> {
    let prize = state.prize?;
    let hand = &state.hands[seat as usize];
    if state.bids[seat as usize].is_some() || hand.is_empty() {
        return None;
    }
    let below = state.deck.iter().filter(|&&card| card < prize).count();
    let share = below as f64 / (state.deck.len() + 1) as f64;
    let share = if state.settings.lowest_wins {
        1.0 - share
    } else {
        share
    };
    let aim = (share * hand.len() as f64) as usize;
    let nudge = Salt::new(salt).pick_index(3);
    let pick = (aim + nudge).saturating_sub(1).min(hand.len() - 1);
    Some(Action::Choose(vec![pick as u32]))
}
