//! A running game: one trait for every way a ruleset runs, so nothing above the runtime knows
//! whether a game is a component (of any contract version) or a native ruleset in a test.
//!
//! Every call checks what the ruleset returned against its output limits and answers a typed
//! [`CallError`] when the call gave no answer. A rejected action is an answer
//! (`Ok(Err(Rejection))`), never an error. After a `CallError::Failed` the running game is
//! unusable (its instance may be poisoned): drop it and rebuild the game from a snapshot, as
//! `tenka-game`'s session does.

use sdk::{
    Action, BoardPart, Event, GameResult, PendingDecision, PreviewNote, Rejection, Seat, Viewer,
};

use crate::failure::CallError;
use crate::table::GameTable;

/// How the calls of a game being started or resumed are budgeted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Each call gets its own fuel and deadline.
    PerCall,
    /// Everything until [`RunningGame::end_shared_budget`] shares one budget: a game rebuilt
    /// after a failure replays its actions under the ruleset's recovery fuel and deadline, not a
    /// fresh budget per replayed call.
    Recovery,
}

/// One game running in the runtime, with its table. Started and resumed by
/// [`crate::LoadedRuleset::start`] and [`crate::LoadedRuleset::resume`]; implemented by the
/// component adapter (`component.rs`) and the native adapter (`native.rs`). `Send`, not `Sync`: one caller at a time.
pub trait RunningGame: Send {
    /// The game's table: its random stream, battle tower and log.
    fn table(&mut self) -> &mut GameTable;
    /// The decisions the game waits for; empty once it is over.
    fn pending(&mut self) -> Result<Vec<PendingDecision>, CallError>;
    /// Applies `seat`'s answer: the events it caused, or the ruleset's rejection.
    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<Event>, Rejection>, CallError>;
    /// The state as `viewer` may see it, as the ruleset's JSON.
    fn view(&mut self, viewer: Viewer) -> Result<String, CallError>;
    /// The board as `viewer` sees it, as the ruleset drew it (not yet sanitised).
    fn render(&mut self, viewer: Viewer) -> Result<Vec<BoardPart>, CallError>;
    /// What `action` would do if `seat` sent it now; changes nothing.
    fn preview(
        &mut self,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<PreviewNote>, Rejection>, CallError>;
    /// The ruleset's estimate for `seat`, as it returned it (unchecked range).
    fn evaluate(&mut self, seat: Seat) -> Result<Option<f64>, CallError>;
    /// The ruleset's quick answer to `seat`'s pending decision (its rollout policy), as it
    /// returned it: not yet checked against the decision.
    fn rollout_action(&mut self, seat: Seat, salt: u64) -> Result<Option<Action>, CallError>;
    /// The result, once the game is over.
    fn result(&mut self) -> Result<Option<GameResult>, CallError>;
    /// The game's own snapshot bytes.
    fn snapshot(&mut self) -> Result<Vec<u8>, CallError>;
    /// A determinized copy for `seat`, drawn from `table` (never the game's own), as snapshot
    /// bytes.
    fn determinize(&mut self, seat: Seat, table: &mut GameTable) -> Result<Vec<u8>, CallError>;
    /// Replaces the game with one restored from `bytes` and `table`, keeping the instance.
    fn reload(&mut self, bytes: &[u8], table: GameTable) -> Result<(), CallError>;
    /// Gives each call its own budget again, after a game resumed with [`Budget::Recovery`].
    fn end_shared_budget(&mut self);
}
