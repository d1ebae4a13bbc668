//! A game session: one game of one ruleset, its table, and everything needed to replay it.
//!
//! Each session of a component has a store and an instance of its own, so a ruleset that traps,
//! loops or exhausts memory in one game harms no other game. A failed call leaves the session
//! as it was before the call: the poisoned instance is dropped and the game rebuilt, once, from
//! its last recovery point (a snapshot plus the actions applied since), the whole rebuild under
//! one bounded fuel and time budget. A rebuild that fails marks the game failed: every later
//! call answers that failure at once instead of trying again. A rejected action changes
//! nothing either, the random stream and the tower included, so a replay never diverges.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use sdk::{
    Action, BoardPart, Event, GameResult, OptionSetting, PendingDecision, PreviewNote, Rejection,
    Seat, Setup, Viewer,
};
use tenka_runtime::table::{GameTable, Seed, TableState, TowerDrop, commitment};
use tenka_runtime::{
    Budget, CallError, CapacityExhausted, ContentHash, FailureCause, LoadedRuleset, RulesetFailure,
    RunningGame,
};

use crate::record::{Checkpoint, CompactCheckpoint, GameRecord, RecordedAction};

/// How often (in applied actions) the session takes a new recovery point.
const RECOVERY_INTERVAL: u64 = 32;

pub use crate::record::{CHECKPOINT_INTERVAL, MILESTONE_PREFIX};

/// Serialises a seed as 64 hex digits.
pub mod seed_hex {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the seed as hex.
    pub fn serialize<S: Serializer>(seed: &[u8; 32], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&hex::encode(seed))
    }

    /// Reads a seed from hex.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[u8; 32], D::Error> {
        let text = String::deserialize(deserializer)?;
        super::parse_seed(&text).map_err(serde::de::Error::custom)
    }
}

/// Reads a seed written as 64 hex digits.
pub fn parse_seed(text: &str) -> Result<Seed, String> {
    let bytes = hex::decode(text.trim()).map_err(|e| format!("a seed is 64 hex digits: {e}"))?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| format!("a seed is 32 bytes, not {}", b.len()))
}

/// Everything a new game is made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSpec {
    /// The map as TOML text.
    pub map_toml: String,
    /// Options that differ from their defaults.
    pub options: Vec<OptionSetting>,
    /// How many seats.
    pub seats: u32,
    /// The seed of the game's random stream and tower.
    #[serde(with = "seed_hex")]
    pub seed: Seed,
    /// A position file to start from, instead of the normal setup.
    #[serde(default)]
    pub position: Option<String>,
}

impl GameSpec {
    pub(crate) fn setup(&self) -> Setup {
        Setup {
            map: self.map_toml.clone(),
            options: self.options.clone(),
            seats: self.seats,
        }
    }
}

/// Why a session call failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The action was refused by the rules: the client's fault; the game is unchanged.
    #[error("{0}")]
    Rejected(Rejection),
    /// The ruleset trapped, ran out of fuel or memory, or misbehaved; the game is unchanged
    /// (rebuilt from its recovery point), or failed for good when it could not be rebuilt.
    #[error("{0}")]
    Failed(RulesetFailure),
    /// The host had no room for the game's instance: nothing is wrong with the game or the
    /// request (a server answers 503 and the game is still good).
    #[error("{0}")]
    Capacity(CapacityExhausted),
    /// The game could not be created from its setup.
    #[error("{0}")]
    Setup(sdk::SetupError),
    /// What the caller handed over does not belong to this game: a snapshot of another ruleset
    /// or version, a record that does not replay, options that cannot be read.
    #[error("{0}")]
    Mismatch(String),
}

impl SessionError {
    /// The ruleset's failure (which call, which limit or fault), when the ruleset is to blame.
    pub fn ruleset_failure(&self) -> Option<&RulesetFailure> {
        match self {
            SessionError::Failed(failure) => Some(failure),
            _ => None,
        }
    }

    /// The capacity error, when the host's instance pool is full.
    pub fn capacity_exhausted(&self) -> Option<&CapacityExhausted> {
        match self {
            SessionError::Capacity(full) => Some(full),
            _ => None,
        }
    }

    /// Whether the game is failed for good: it could not be rebuilt after a failure, and every
    /// call answers this error without running the ruleset again.
    pub fn is_game_failed(&self) -> bool {
        self.ruleset_failure()
            .is_some_and(|failure| failure.game_failed)
    }
}

impl From<CallError> for SessionError {
    fn from(error: CallError) -> Self {
        match error {
            CallError::Failed(failure) => SessionError::Failed(failure),
            CallError::Capacity(full) => SessionError::Capacity(full),
        }
    }
}

/// Starts games: `ruleset.new_game(spec)` for any `Arc<LoadedRuleset>`.
pub trait NewGame {
    /// Starts a game of this ruleset.
    fn new_game(&self, spec: GameSpec) -> Result<Session, SessionError>;
}

impl NewGame for Arc<LoadedRuleset> {
    fn new_game(&self, spec: GameSpec) -> Result<Session, SessionError> {
        Session::new(self.clone(), spec)
    }
}

/// What one applied action did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Applied {
    /// The events, each with its audience.
    pub events: Vec<Event>,
    /// The drops through the battle tower the action caused.
    pub tower: Vec<TowerDrop>,
    /// The session's version after the action (the number of actions applied).
    pub version: u64,
}

/// A game's position, to store and reload without replaying every action: the game's bytes,
/// its table and its version, and nothing of its history. The history is the caller's (a
/// server's actions table, a simulation's list) and is handed back to [`Session::restore`], so a
/// snapshot stays the same size however long the game has run.
///
/// Snapshots written before this shape also held the spec, every action and the record's
/// checkpoints; those fields are ignored when read, so older stored snapshots keep loading.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionSnapshot {
    /// The ruleset's id.
    pub ruleset_id: String,
    /// The ruleset's hash; a snapshot loads only into the same ruleset.
    pub ruleset_hash: ContentHash,
    /// The game's own snapshot bytes.
    pub game: Vec<u8>,
    /// The table: random stream position and tower.
    pub table: TableState,
    /// The number of actions applied.
    pub version: u64,
}

/// A determinized copy of a game: what one seat could believe it to be (everything it cannot know
/// redrawn), with its own table. What search bots play on.
pub struct Determinized {
    pub(crate) game: Vec<u8>,
    pub(crate) table: GameTable,
    /// The real game's seats.
    pub(crate) seats: u32,
}

/// The point a failed call rolls back to: a snapshot and the table as it was then.
struct RecoveryPoint {
    game: Vec<u8>,
    table: TableState,
    version: u64,
}

/// One game in progress. `Send`, not `Sync`: one caller at a time.
pub struct Session {
    ruleset: Arc<LoadedRuleset>,
    /// The running game; `None` while parked, or after a failure until it is rebuilt.
    running: Option<Box<dyn RunningGame>>,
    spec: GameSpec,
    actions: Vec<RecordedAction>,
    checkpoints: Vec<CompactCheckpoint>,
    /// False for a session restored from a snapshot: its checkpoints before the snapshot are
    /// not known until the record asks for them and they are replayed.
    checkpoints_complete: bool,
    recovery: Option<RecoveryPoint>,
    version: u64,
    pending: Option<Vec<PendingDecision>>,
    /// Set when the game could not be rebuilt after a failure: every call answers it.
    failed: Option<RulesetFailure>,
}

// The session is moved between threads by servers and simulations; it is never shared.
const _: () = {
    const fn assert_send<T: Send>() {}
    assert_send::<Session>();
};

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("ruleset", &self.ruleset.info().id)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// A failure the session itself found in a ruleset's behaviour (a recorded action refused
/// while rebuilding), named as the ruleset's failure of `call`.
fn fault(ruleset: &LoadedRuleset, call: &str, detail: String) -> CallError {
    CallError::Failed(RulesetFailure {
        ruleset: ruleset.info().id.clone(),
        call: call.to_owned(),
        cause: FailureCause::Fault { detail },
        game_failed: false,
    })
}

impl Session {
    /// Creates a game. Prefer `ruleset.new_game(spec)` ([`NewGame`]).
    pub fn new(ruleset: Arc<LoadedRuleset>, spec: GameSpec) -> Result<Session, SessionError> {
        let table = GameTable::new(&spec.seed);
        let running = ruleset
            .start(&spec.setup(), spec.position.as_deref(), table)?
            .map_err(SessionError::Setup)?;
        let mut session = Session {
            ruleset,
            running: Some(running),
            spec,
            actions: Vec::new(),
            checkpoints: Vec::new(),
            checkpoints_complete: true,
            recovery: None,
            version: 0,
            pending: None,
            failed: None,
        };
        session.take_recovery_point()?;
        if session.is_over()? {
            session.checkpoint(None)?;
        }
        Ok(session)
    }

    /// Reloads a session from its snapshot, without replaying its actions: `spec` is how the
    /// game was created and `history` every action applied up to the snapshot's version, oldest
    /// first (the record keeps them; the ruleset is not asked to replay them). The record's
    /// checkpoints before the snapshot are rebuilt only if the record is asked for.
    pub fn restore(
        ruleset: Arc<LoadedRuleset>,
        spec: GameSpec,
        snapshot: SessionSnapshot,
        history: Vec<RecordedAction>,
    ) -> Result<Session, SessionError> {
        if snapshot.ruleset_hash != ruleset.hash() {
            return Err(SessionError::Mismatch(format!(
                "the snapshot is of ruleset {} ({}), not of the loaded {} ({})",
                snapshot.ruleset_id,
                snapshot.ruleset_hash,
                ruleset.info().id,
                ruleset.hash()
            )));
        }
        if history.len() as u64 != snapshot.version {
            return Err(SessionError::Mismatch(format!(
                "the snapshot is of version {} but {} actions came with it",
                snapshot.version,
                history.len()
            )));
        }
        let running = ruleset.resume(
            &snapshot.game,
            GameTable::from_state(&snapshot.table),
            Budget::PerCall,
        )?;
        Ok(Session {
            ruleset,
            running: Some(running),
            spec,
            actions: history,
            checkpoints: Vec::new(),
            checkpoints_complete: snapshot.version == 0,
            recovery: Some(RecoveryPoint {
                game: snapshot.game,
                table: snapshot.table,
                version: snapshot.version,
            }),
            version: snapshot.version,
            pending: None,
            failed: None,
        })
    }

    /// The ruleset this game is of.
    pub fn ruleset(&self) -> &Arc<LoadedRuleset> {
        &self.ruleset
    }

    /// How the game was created.
    pub fn spec(&self) -> &GameSpec {
        &self.spec
    }

    /// The number of actions applied so far.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The public commitment to the game's seed.
    pub fn seed_commitment(&self) -> String {
        commitment(&self.spec.seed)
    }

    /// Every action applied so far, oldest first.
    pub fn actions(&self) -> &[RecordedAction] {
        &self.actions
    }

    /// Runs a call on the running game; on failure drops it and rebuilds the game from the
    /// recovery point, once, so the session is as it was before the call. A game whose rebuild
    /// failed answers that failure without running anything.
    fn with_game<R>(
        &mut self,
        f: impl FnOnce(&mut dyn RunningGame) -> Result<R, CallError>,
    ) -> Result<R, CallError> {
        if let Some(failure) = &self.failed {
            return Err(CallError::Failed(failure.clone()));
        }
        // Parked, or after a rebuild the host had no room for: restore it now.
        let running = match &mut self.running {
            Some(running) => running,
            None => {
                self.recover_or_fail()?;
                self.running
                    .as_mut()
                    .expect("a game recovered has a running game")
            }
        };
        let outcome = f(running.as_mut());
        if outcome.is_err() {
            self.running = None;
            self.pending = None;
            if let Err(error) = self.recover_or_fail() {
                tracing::error!(
                    "ruleset `{}`: recovery failed: {error}",
                    self.ruleset.info().id
                );
            }
        }
        outcome
    }

    /// Rebuilds the running game; a rebuild that fails for the ruleset's sake marks the game
    /// failed. A full instance pool only postpones the rebuild to the next call.
    fn recover_or_fail(&mut self) -> Result<(), CallError> {
        match self.recover() {
            Ok(()) => Ok(()),
            Err(CallError::Capacity(full)) => Err(CallError::Capacity(full)),
            Err(CallError::Failed(mut failure)) => {
                failure.game_failed = true;
                self.failed = Some(failure.clone());
                Err(CallError::Failed(failure))
            }
        }
    }

    /// Restores the last recovery point and replays the actions since, all under one recovery
    /// budget (not a fresh budget per replayed call), then makes the rebuilt state the new
    /// recovery point so a ruleset failing again and again does not replay again and again.
    fn recover(&mut self) -> Result<(), CallError> {
        let point = self
            .recovery
            .as_ref()
            .expect("a session takes its first recovery point when it is created");
        let mut running = self.ruleset.resume(
            &point.game,
            GameTable::from_state(&point.table),
            Budget::Recovery,
        )?;
        let replayed = self.actions.len().saturating_sub(point.version as usize);
        for (index, recorded) in self.actions.iter().enumerate().skip(point.version as usize) {
            if let Err(rejection) = running.apply(recorded.seat, &recorded.action)? {
                return Err(fault(
                    &self.ruleset,
                    "restore",
                    format!(
                        "action {} was refused while rebuilding the game: {rejection}",
                        index + 1
                    ),
                ));
            }
            running.table().take_drops();
        }
        let point = if replayed > 0 {
            let game = running.snapshot()?;
            Some(RecoveryPoint {
                game,
                table: running.table().state(),
                version: self.version,
            })
        } else {
            None
        };
        running.end_shared_budget();
        if let Some(point) = point {
            self.recovery = Some(point);
        }
        self.running = Some(running);
        Ok(())
    }

    fn take_recovery_point(&mut self) -> Result<(), CallError> {
        let (game, table) = self.with_game(|running| {
            let game = running.snapshot()?;
            Ok((game, running.table().state()))
        })?;
        self.recovery = Some(RecoveryPoint {
            game,
            table,
            version: self.version,
        });
        Ok(())
    }

    fn checkpoint(&mut self, milestone: Option<sdk::Message>) -> Result<(), SessionError> {
        if let Some(last) = self.checkpoints.last_mut()
            && last.after_action == self.version
        {
            last.milestone = last.milestone.take().or(milestone);
            return Ok(());
        }
        let view = self.view(Viewer::Spectator)?;
        let spectator_view = serde_json::from_str(&view).unwrap_or(serde_json::Value::String(view));
        self.checkpoints.push(CompactCheckpoint::from(Checkpoint {
            after_action: self.version,
            spectator_view,
            milestone,
        }));
        Ok(())
    }

    /// The decisions the game waits for, when they are known without asking the ruleset (they
    /// are, after every apply): callers on an async reactor can read them without a trip to a
    /// blocking thread.
    pub fn cached_pending(&self) -> Option<&[PendingDecision]> {
        self.pending.as_deref()
    }

    /// The decisions the game waits for; empty once it is over.
    pub fn pending(&mut self) -> Result<Vec<PendingDecision>, SessionError> {
        pending_once(
            self,
            |session| &mut session.pending,
            |session| Ok(session.with_game(|game| game.pending())?),
        )
    }

    /// Whether the game is over (no decision pending).
    pub fn is_over(&mut self) -> Result<bool, SessionError> {
        Ok(self.pending()?.is_empty())
    }

    /// Applies one seat's answer. The action `back` is refused here, before the ruleset sees
    /// it, unless the seat's decision offers a way back.
    pub fn apply(&mut self, seat: Seat, action: &Action) -> Result<Applied, SessionError> {
        if *action == Action::Back {
            refuse_back_without_a_way(&self.pending()?, seat, action)?;
        }
        let (events, tower) = self
            .with_game(|game| apply_keeping_the_table(game, seat, action))?
            .map_err(SessionError::Rejected)?;
        self.version += 1;
        self.pending = None;
        self.actions.push(RecordedAction {
            seat,
            action: action.clone(),
        });
        if self.version.is_multiple_of(RECOVERY_INTERVAL) {
            // A failed snapshot keeps the older recovery point, which still works.
            if let Err(error) = self.take_recovery_point() {
                tracing::warn!("no new recovery point: {error}");
            }
        }
        let milestone = events
            .iter()
            .find(|e| {
                e.audience == sdk::Audience::Everyone && e.text.key.starts_with(MILESTONE_PREFIX)
            })
            .map(|e| e.text.clone());
        // A restored session's checkpoints are all replayed when the record asks for
        // them: drawing some now would be thrown away then.
        if self.checkpoints_complete
            && (milestone.is_some()
                || self.version.is_multiple_of(CHECKPOINT_INTERVAL)
                || self.is_over()?)
        {
            self.checkpoint(milestone)?;
        }
        Ok(Applied {
            events,
            tower,
            version: self.version,
        })
    }

    /// The state as `viewer` may see it, as the ruleset's JSON.
    pub fn view(&mut self, viewer: Viewer) -> Result<String, SessionError> {
        Ok(self.with_game(|game| game.view(viewer))?)
    }

    /// The board as `viewer` sees it, in parts, each SVG rebuilt from the host's allowlist
    /// ([`tenka_runtime::svg_sanitizer`]): a ruleset's own text never reaches a browser. A part
    /// that is not SVG at all is shown empty (and logged), never a failed view.
    ///
    /// The board as a whole is held to [`tenka_runtime::svg_sanitizer::MAX_BOARD_BYTES`] and
    /// [`tenka_runtime::svg_sanitizer::MAX_BOARD_NODES`], the sanitiser's share of the game's
    /// budget: a board beyond either is shown empty, every part of it.
    pub fn render(&mut self, viewer: Viewer) -> Result<Vec<BoardPart>, SessionError> {
        let parts = self.with_game(|game| game.render(viewer))?;
        Ok(tenka_runtime::svg_sanitizer::sanitize_board(
            &self.ruleset.info().id,
            parts,
        ))
    }

    /// What `action` would do if `seat` sent it now; changes nothing. The draft's shape is
    /// checked here first (it may pick or place fewer than the minimum), so a malformed draft
    /// never reaches the ruleset.
    pub fn preview(
        &mut self,
        seat: Seat,
        action: &Action,
    ) -> Result<Vec<PreviewNote>, SessionError> {
        let pending = self.pending()?;
        let decision = decision_of(&pending, seat)?;
        if *action == Action::Back {
            // Going back costs nothing and skips nothing: no ruleset call to make.
            sdk::check_answer(decision, action).map_err(SessionError::Rejected)?;
            return Ok(Vec::new());
        }
        sdk::check_draft_shape(&decision.kind, action).map_err(SessionError::Rejected)?;
        self.with_game(|game| game.preview(seat, action))?
            .map_err(SessionError::Rejected)
    }

    /// The ruleset's heuristic estimate of the position for `seat`: its expected share of the
    /// win in `0.0..=1.0`, or none when the ruleset gives none (every component built before
    /// contract 0.3.0, and any value outside that range). Changes nothing.
    pub fn evaluate(&mut self, seat: Seat) -> Result<Option<f64>, SessionError> {
        Ok(self.with_game(|game| evaluate_keeping_the_table(game, seat))?)
    }

    /// The result, once the game is over.
    pub fn result(&mut self) -> Result<Option<GameResult>, SessionError> {
        Ok(self.with_game(|game| game.result())?)
    }

    /// The cubes lodged in the tower: the host's secret, for tests and for the end of a game.
    pub fn tower_contents(&mut self) -> Result<Vec<sdk::CubeCount>, SessionError> {
        Ok(self.with_game(|game| Ok(game.table().tower().contents()))?)
    }

    /// Frees the game's instance and keeps its state as a recovery point of the current
    /// version, so an idle game costs its snapshot rather than a whole instance. The next call
    /// restores it transparently, exactly as a recovery would (with nothing to replay); nothing
    /// else about the session changes. Parking a parked session does nothing.
    pub fn park(&mut self) -> Result<(), SessionError> {
        if self.running.is_none() || self.failed.is_some() {
            return Ok(());
        }
        if self.recovery.as_ref().map(|point| point.version) != Some(self.version) {
            self.take_recovery_point()?;
        }
        self.running = None;
        Ok(())
    }

    /// Whether the session holds no instance now: parked, or waiting for room to rebuild.
    pub fn is_parked(&self) -> bool {
        self.running.is_none()
    }

    /// The game's position, to store and reload with [`Session::restore`] (with the spec and
    /// the actions so far, which the caller keeps).
    pub fn snapshot(&mut self) -> Result<SessionSnapshot, SessionError> {
        let (game, table) = self.with_game(|running| {
            let game = running.snapshot()?;
            Ok((game, running.table().state()))
        })?;
        Ok(SessionSnapshot {
            ruleset_id: self.ruleset.info().id.clone(),
            ruleset_hash: self.ruleset.hash(),
            game,
            table,
            version: self.version,
        })
    }

    /// The record's checkpoints so far (replayed first if the session was restored from a
    /// snapshot, which keeps none).
    pub fn checkpoints(&mut self) -> Result<Vec<Checkpoint>, SessionError> {
        self.complete_checkpoints()?;
        Ok(self
            .checkpoints
            .iter()
            .map(CompactCheckpoint::expand)
            .collect())
    }

    /// Replays the game from its start on a session of its own to rebuild the checkpoints a
    /// restored session does not hold. The replayed game must reach this one's version: a
    /// ruleset that now refuses a recorded action is a failure, never a shorter record.
    fn complete_checkpoints(&mut self) -> Result<(), SessionError> {
        if self.checkpoints_complete {
            return Ok(());
        }
        let mut replay = Session::new(self.ruleset.clone(), self.spec.clone())?;
        for (index, recorded) in self.actions.iter().enumerate() {
            replay
                .apply(recorded.seat, &recorded.action)
                .map_err(|error| match error {
                    SessionError::Rejected(rejection) => SessionError::Mismatch(format!(
                        "action {} was refused while rebuilding the record: {rejection}",
                        index + 1
                    )),
                    other => other,
                })?;
        }
        self.checkpoints = replay.checkpoints;
        self.checkpoints_complete = true;
        Ok(())
    }

    /// The game's record. The seed is in it only once the game is over.
    pub fn record(&mut self) -> Result<GameRecord, SessionError> {
        let result = self.result()?;
        let over = self.is_over()?;
        let checkpoints = self.checkpoints()?;
        Ok(GameRecord {
            format: GameRecord::FORMAT,
            ruleset_id: self.ruleset.info().id.clone(),
            ruleset_version: self.ruleset.info().version.clone(),
            ruleset_hash: self.ruleset.hash(),
            contract_version: sdk::CONTRACT_VERSION.to_owned(),
            map_hash: hex::encode(Sha256::digest(self.spec.map_toml.as_bytes())),
            map: self.spec.map_toml.clone(),
            options: self.spec.options.clone(),
            seats: self.spec.seats,
            position: self.spec.position.clone(),
            seed_commitment: self.seed_commitment(),
            seed: over.then(|| hex::encode(self.spec.seed)),
            actions: self.actions.clone(),
            checkpoints,
            result,
        })
    }

    /// The game as `seat` could believe it to be: everything the seat cannot know redrawn by the
    /// ruleset, with a table of its own (the tower's counts per owner kept, their shelves
    /// reshuffled, and a random stream from `seed`). The real game and its table are untouched.
    /// Bots play it as a [`crate::scratch::ScratchGame`].
    pub fn determinize(&mut self, seat: Seat, seed: &Seed) -> Result<Determinized, SessionError> {
        let seats = self.spec.seats;
        Ok(self.with_game(|running| determinize(running, seat, seed, seats))?)
    }
}

/// The decisions `game` waits for: asked of the ruleset once per position and kept in
/// `cache(game)` until a change clears it (a session and a bot's scratch game keep them alike).
pub(crate) fn pending_once<G>(
    game: &mut G,
    cache: fn(&mut G) -> &mut Option<Vec<PendingDecision>>,
    ask: fn(&mut G) -> Result<Vec<PendingDecision>, SessionError>,
) -> Result<Vec<PendingDecision>, SessionError> {
    if let Some(pending) = cache(game) {
        return Ok(pending.clone());
    }
    let pending = ask(game)?;
    *cache(game) = Some(pending.clone());
    Ok(pending)
}

/// `seat`'s pending decision, or the rejection of a seat that has none.
fn decision_of(pending: &[PendingDecision], seat: Seat) -> Result<&PendingDecision, SessionError> {
    pending
        .iter()
        .find(|d| d.seat == seat)
        .ok_or(SessionError::Rejected(Rejection::NotYourTurn))
}

/// Refuses the action `back` before any ruleset sees it, unless `seat`'s decision offers a way
/// back: a session and a bot's scratch game check it alike.
pub(crate) fn refuse_back_without_a_way(
    pending: &[PendingDecision],
    seat: Seat,
    action: &Action,
) -> Result<(), SessionError> {
    sdk::check_answer(decision_of(pending, seat)?, action).map_err(SessionError::Rejected)
}

/// What an accepted action did: its events and the tower's drops.
type AppliedHere = (Vec<Event>, Vec<TowerDrop>);

/// Applies an action; a rejected one leaves the table (random stream, tower) as it was, so a
/// replay never diverges. The events and the tower's drops of an accepted one.
pub(crate) fn apply_keeping_the_table(
    game: &mut dyn RunningGame,
    seat: Seat,
    action: &Action,
) -> Result<Result<AppliedHere, Rejection>, CallError> {
    let before = game.table().clone();
    game.table().take_drops();
    match game.apply(seat, action)? {
        Ok(events) => Ok(Ok((events, game.table().take_drops()))),
        Err(rejection) => {
            *game.table() = before;
            Ok(Err(rejection))
        }
    }
}

/// The ruleset's estimate for `seat`, if it gives one in `0.0..=1.0`. The table is put back as
/// it was afterwards: an estimate that drew from it (which the contract forbids) must not shift
/// the game's random stream, or stored games would stop replaying.
pub(crate) fn evaluate_keeping_the_table(
    game: &mut dyn RunningGame,
    seat: Seat,
) -> Result<Option<f64>, CallError> {
    let table = game.table().clone();
    let estimate = game.evaluate(seat);
    *game.table() = table;
    Ok(estimate?.filter(|value| (0.0..=1.0).contains(value)))
}

/// A determinized copy of `game` (of `seats` seats) for `seat`, drawn from a scratch table
/// seeded by `seed`.
fn determinize(
    game: &mut dyn RunningGame,
    seat: Seat,
    seed: &Seed,
    seats: u32,
) -> Result<Determinized, CallError> {
    let mut table = game.table().scratch(seed);
    let bytes = game.determinize(seat, &mut table)?;
    Ok(Determinized {
        game: bytes,
        table,
        seats,
    })
}
