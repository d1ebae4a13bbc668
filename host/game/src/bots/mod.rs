//! Bots that play any ruleset through the contract alone.
//!
//! - [`RandomBot`] answers every decision with a random legal action.
//! - [`SearchBot`] is a determinized Monte Carlo search: for each candidate action it determinizes
//!   the game as its seat could believe it to be, plays it out at random to the end, and keeps
//!   the action whose playouts place its seat best. It is kept as it was: stored games and API
//!   clients name it.
//! - [`InfoSetBot`] is an information-set Monte Carlo tree search, played at three levels
//!   ([`BotKind::Easy`], [`BotKind::Normal`], [`BotKind::Hard`]).
//!
//! Each bot has a random stream of its own, derived from the game's seed and its seat, so a bot's
//! choices never touch the game's randomness and a simulation is reproducible.

pub mod arena;
mod ismcts;
mod random;
mod search;

use anyhow::{Result, bail};

use sdk::{Action, PendingDecision};

pub use ismcts::{InfoSetBot, InfoSetSettings};
pub use random::RandomBot;
pub use search::{SearchBot, SearchSettings};

use crate::session::{Session, SessionError};
use tenka_runtime::table::{Seed, derive_seed};

// The levels' budgets are spaced so that each level is a step a player notices: with an
// estimate cutting the playouts short, strength grows slowly with iterations, and at the larger
// tables of the shipped games a hard level at four times normal's budget (800 against 200) won
// barely more than half of its comparisons with normal. Twelve times is a clear step
// (BENCHMARKS.md, "The levels spaced apart").

/// Iterations per decision of the easy level.
pub const EASY_ITERATIONS: usize = 16;
/// Iterations per decision of the normal level.
pub const NORMAL_ITERATIONS: usize = 64;
/// Iterations per decision of the hard level.
pub const HARD_ITERATIONS: usize = 800;
/// Where playouts run to the end, the hard level goes on past its iterations until it has
/// played this many actions (see [`InfoSetSettings::min_actions`]): in the smallest example
/// game, whose iterations are a few actions each, 800 left the bot blind to a fork now and
/// then, and it lost one game in a few hundred to the search bot.
pub const HARD_MIN_ACTIONS: u64 = 40_000;

/// The one answer `kind` allows, if it allows a single one: no bot needs to think about it.
pub fn only_answer(kind: &sdk::DecisionKind) -> Option<Action> {
    ismcts::enumerate(kind, 1).and_then(|all| all.into_iter().next())
}

/// A player that answers decisions.
pub trait Bot: Send {
    /// The bot's name, as the command line spells it.
    fn name(&self) -> &'static str;

    /// Answers `decision`, one of `session`'s pending decisions. The bot may only use what the
    /// decision's seat may know: its view, and games determinized with [`Session::determinize`].
    fn decide(&mut self, session: &mut Session, decision: &PendingDecision) -> Result<Action>;

    /// Its next [`Bot::decide`] stops thinking at `deadline` (after at least one look), however
    /// long its own think time: a server's bot whose turn came while it waited for a thinking
    /// slot has spent part of its time already. Bots that do not search ignore it.
    fn think_until(&mut self, _deadline: std::time::Instant) {}
}

/// The kinds of bot, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BotKind {
    /// [`RandomBot`].
    Random,
    /// [`SearchBot`] with default settings (the first search bot, kept for the games and
    /// clients that name it).
    Search,
    /// [`InfoSetBot`] with a small budget and a softmax over its results: it makes a weaker
    /// player's mistakes, mostly near misses, and still plays the rules sensibly.
    Easy,
    /// [`InfoSetBot`] with a moderate budget.
    Normal,
    /// [`InfoSetBot`] with the largest budget.
    Hard,
}

impl std::str::FromStr for BotKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "random" => Ok(BotKind::Random),
            "search" => Ok(BotKind::Search),
            "easy" => Ok(BotKind::Easy),
            "normal" => Ok(BotKind::Normal),
            "hard" => Ok(BotKind::Hard),
            other => Err(format!(
                "unknown bot `{other}`: use one of {}",
                BotKind::ALL.map(BotKind::name).join(", ")
            )),
        }
    }
}

impl BotKind {
    /// Every kind, weakest first (the old search bot before the levels).
    pub const ALL: [BotKind; 5] = [
        BotKind::Random,
        BotKind::Search,
        BotKind::Easy,
        BotKind::Normal,
        BotKind::Hard,
    ];

    /// The kind's name, as the command line, the API and stored games spell it.
    pub fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Search => "search",
            BotKind::Easy => "easy",
            BotKind::Normal => "normal",
            BotKind::Hard => "hard",
        }
    }

    /// The search settings of a level, or `None` for a kind that is not a level.
    pub fn level_settings(self) -> Option<InfoSetSettings> {
        match self {
            BotKind::Random | BotKind::Search => None,
            BotKind::Easy => Some(InfoSetSettings {
                temperature: Some(0.08),
                ..InfoSetSettings::level("easy", EASY_ITERATIONS)
            }),
            BotKind::Normal => Some(InfoSetSettings::level("normal", NORMAL_ITERATIONS)),
            BotKind::Hard => Some(InfoSetSettings {
                min_actions: HARD_MIN_ACTIONS,
                ..InfoSetSettings::level("hard", HARD_ITERATIONS)
            }),
        }
    }

    /// A bot of this kind for `seat` of the game seeded with `game_seed`. It thinks as long as
    /// its settings say, whatever the clock: its moves depend on the seed alone.
    pub fn create(self, game_seed: &Seed, seat: u32) -> Box<dyn Bot> {
        self.create_thinking(game_seed, seat, None)
    }

    /// [`BotKind::create`], with a search bot stopping to think after `think_time` (a server's
    /// bots, whose turns people wait for; their moves then depend on the machine's speed too).
    pub fn create_thinking(
        self,
        game_seed: &Seed,
        seat: u32,
        think_time: Option<std::time::Duration>,
    ) -> Box<dyn Bot> {
        let seed = derive_seed(game_seed, "bot", u64::from(seat));
        match self {
            BotKind::Random => Box::new(RandomBot::new(&seed)),
            BotKind::Search => Box::new(SearchBot::new(
                seat,
                &seed,
                SearchSettings {
                    think_time,
                    ..SearchSettings::default()
                },
            )),
            level => {
                let settings = level
                    .level_settings()
                    .unwrap_or_else(|| InfoSetSettings::level("normal", NORMAL_ITERATIONS));
                Box::new(InfoSetBot::new(
                    seat,
                    &seed,
                    InfoSetSettings {
                        think_time,
                        ..settings
                    },
                ))
            }
        }
    }
}

/// Plays a game to its end with one bot per seat, answering the first pending decision each
/// step. Returns the number of actions applied. Fails if the game does not end within
/// `max_actions` or a bot keeps proposing refused actions.
pub fn play_out(session: &mut Session, bots: &mut [Box<dyn Bot>], max_actions: u64) -> Result<u64> {
    play_out_observed(session, bots, max_actions, |_, _| {})
}

/// [`play_out`], showing `observe` each seat that acted and what its action did (the events
/// and tower drops), for statistics over whole games.
pub fn play_out_observed(
    session: &mut Session,
    bots: &mut [Box<dyn Bot>],
    max_actions: u64,
    mut observe: impl FnMut(sdk::Seat, &crate::session::Applied),
) -> Result<u64> {
    let mut applied = 0;
    loop {
        let pending = session.pending()?;
        let Some(decision) = pending.into_iter().next() else {
            return Ok(applied);
        };
        if applied >= max_actions {
            bail!("the game did not end within {max_actions} actions");
        }
        let Some(bot) = bots.get_mut(decision.seat as usize) else {
            bail!("seat {} has no bot", decision.seat);
        };
        let mut attempts = 0;
        loop {
            let action = bot.decide(session, &decision)?;
            match session.apply(decision.seat, &action) {
                Ok(outcome) => {
                    observe(decision.seat, &outcome);
                    break;
                }
                // A random legal shape can still break a rule; another try usually fits.
                Err(SessionError::Rejected(rejection)) if attempts < 50 => {
                    attempts += 1;
                    tracing::debug!("bot {} refused: {rejection}", bot.name());
                }
                Err(error) => return Err(error.into()),
            }
        }
        applied += 1;
    }
}
