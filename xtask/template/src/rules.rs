//! The rules: the state of a game, what each seat is asked and what its answer does.
//!
//! The template's placeholder game, to be replaced by yours: a pile of counters, the seats take
//! one to three of them in turn, and whoever takes the last one wins. It is legal and it ends,
//! so the crate builds, lists, simulates and plays in the browser before its first rule.

use std::ops::RangeInclusive;

use sdk::{
    Action, Choice, ChooseDecision, DecisionKind, FromOptions, GameResult, Log, Message,
    OptionSpec, Options, PendingDecision, Placing, Rejection, Salt, Seat, Table,
};
use serde::{Deserialize, Serialize};

/// How many seats a game takes.
pub const SEATS: RangeInclusive<u32> = 2..=4;

/// The settings a game is played with: its options, read once when it starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// The counters on the pile at the start.
    pub counters: u32,
    /// The most counters one turn may take.
    pub most_taken: u32,
}

impl FromOptions for Settings {
    fn schema() -> Vec<OptionSpec> {
        vec![
            OptionSpec::integer("counters", 5, 50, 15),
            OptionSpec::integer("most-taken", 2, 5, 3),
        ]
    }

    fn from_options(options: &Options) -> Settings {
        Settings {
            counters: options.integer("counters") as u32,
            most_taken: options.integer("most-taken") as u32,
        }
    }
}

/// What happened, in the terms of the rules; `tell` words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `seat` took `count` counters and `left` remain.
    Took { seat: Seat, count: u32, left: u32 },
    /// `seat` took the last counter.
    Won { seat: Seat },
}

/// A game in progress: everything the rules need, and nothing else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The options it is played with.
    pub settings: Settings,
    /// How many seats play.
    pub seats: u32,
    /// The counters still on the pile.
    pub left: u32,
    /// The seat whose turn it is.
    pub to_move: Seat,
    /// The seat that took the last counter, once the game is over.
    pub winner: Option<Seat>,
}

impl State {
    /// A new game. The placeholder game draws nothing at random; a game that deals or shuffles
    /// draws from `table`, its only source of chance.
    pub fn new(seats: u32, settings: Settings, _table: &mut dyn Table) -> State {
        State {
            left: settings.counters,
            settings,
            seats,
            to_move: 0,
            winner: None,
        }
    }

    /// The counters the seat to move may take: one to the most a turn may take, while they last.
    pub fn takes(&self) -> RangeInclusive<u32> {
        1..=self.settings.most_taken.min(self.left)
    }
}

/// The decisions the game waits for: the seat to move takes some counters. None once it is over.
pub fn pending(state: &State) -> Vec<PendingDecision> {
    if state.winner.is_some() {
        return Vec::new();
    }
    let choices = state
        .takes()
        .map(|count| {
            Choice::new(
                format!("take-{count}"),
                Message::new("choice.take").number("count", count),
            )
        })
        .collect();
    let kind = DecisionKind::Choose(ChooseDecision {
        choices,
        min: 1,
        max: 1,
    });
    let prompt = Message::new("prompt.take").number("left", state.left);
    vec![PendingDecision::new(state.to_move, prompt, kind)]
}

/// Applies `seat`'s answer. The SDK has checked that the seat is asked and that the answer picks
/// exactly one of the listed choices, so only the rules of the game are left to check.
pub fn apply(
    state: &mut State,
    seat: Seat,
    action: &Action,
    _table: &mut dyn Table,
    log: &mut Log<Outcome>,
) -> Result<(), Rejection> {
    let Action::Choose(picks) = action else {
        return Err(Rejection::Malformed("choose how many counters".into()));
    };
    let count = state
        .takes()
        .nth(picks[0] as usize)
        .expect("a listed choice");
    state.left -= count;
    log.push(
        &(),
        Outcome::Took {
            seat,
            count,
            left: state.left,
        },
    );
    if state.left == 0 {
        state.winner = Some(seat);
        log.push(&(), Outcome::Won { seat });
    } else {
        state.to_move = (seat + 1) % state.seats;
    }
    Ok(())
}

/// The result once the game is over: the seat that took the last counter first, the others
/// sharing second place.
pub fn result(state: &State) -> Option<GameResult> {
    let winner = state.winner?;
    let scores = (0..state.seats).map(|seat| (seat, i64::from(seat == winner), Vec::new()));
    Some(GameResult {
        placings: Placing::ranked(scores),
        breakdown: Vec::new(),
        summary: Message::new("result.win").seat("seat", winner),
    })
}

/// The game as `seat` might imagine it, everything it cannot know redrawn from `table`, for the
/// search bots. The placeholder game hides nothing: a copy.
pub fn determinize(state: &State, _seat: Seat, _table: &mut dyn Table) -> State {
    state.clone()
}

/// What a player who knows the game takes without thinking ahead, for the bots' playouts: leave
/// the next seat a multiple of one more than a turn may take when that can be done, else take
/// at random (the same `salt`, the same answer).
pub fn rollout_action(state: &State, seat: Seat, salt: u64) -> Option<Action> {
    if state.winner.is_some() || seat != state.to_move {
        return None;
    }
    let takes = state.takes();
    let best = state.left % (state.settings.most_taken + 1);
    let count = if takes.contains(&best) {
        best
    } else {
        let choices = takes.clone().count();
        takes.start() + Salt::new(salt).pick_index(choices) as u32
    };
    Some(Action::Choose(vec![count - takes.start()]))
}
