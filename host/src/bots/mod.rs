//! Bots that play any ruleset through the contract alone.
//!
//! - [`RandomBot`] answers every decision with a random legal action.
//! - [`SearchBot`] is a determinized Monte Carlo search: for each candidate action it imagines
//!   the game as its seat could believe it to be, plays it out at random to the end, and keeps
//!   the action whose playouts place its seat best.
//!
//! Each bot has a random stream of its own, derived from the game's seed and its seat, so a bot's
//! choices never touch the game's randomness and a simulation is reproducible.

mod random;
mod search;

use anyhow::{Result, bail};

use sdk::{Action, PendingDecision};

pub use random::RandomBot;
pub use search::{SearchBot, SearchSettings};

use crate::session::{Session, SessionError};
use crate::table::{Seed, derive_seed};

/// A player that answers decisions.
pub trait Bot: Send {
    /// The bot's name, as the command line spells it.
    fn name(&self) -> &'static str;

    /// Answers `decision`, one of `session`'s pending decisions. The bot may only use what the
    /// decision's seat may know: its view, and games imagined with [`Session::imagine`].
    fn decide(&mut self, session: &mut Session, decision: &PendingDecision) -> Result<Action>;
}

/// The kinds of bot, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BotKind {
    /// [`RandomBot`].
    Random,
    /// [`SearchBot`] with default settings.
    Search,
}

impl std::str::FromStr for BotKind {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "random" => Ok(BotKind::Random),
            "search" => Ok(BotKind::Search),
            other => Err(format!("unknown bot `{other}`: use random or search")),
        }
    }
}

impl BotKind {
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
