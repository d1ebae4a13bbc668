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

use anyhow::{Result, anyhow, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use wasmtime::Store;
use wasmtime::component::ResourceAny;

use sdk::{
    Action, BoardPart, Event, GameResult, OptionSetting, PendingDecision, PreviewNote, Rejection,
    Seat, Setup, Viewer,
};

use crate::native::NativeGame;
use crate::record::{Checkpoint, CompactCheckpoint, GameRecord, RecordedAction};
use crate::runtime::bindings::Instance;
use crate::runtime::{
    CapacityExhausted, FailureCause, LoadedRuleset, RulesetFailure, RulesetKind, StoreState,
    call_failed, capacity_exhausted, deadline_ticks, describe_failure, failure_of, set_call_budget,
};
use crate::table::{GameTable, Seed, TableState, TowerDrop, commitment};

/// How often (in applied actions) the session takes a new recovery point.
const RECOVERY_INTERVAL: u64 = 32;

/// How often (in applied actions) the record keeps a spectator checkpoint; one is also kept
/// when the game ends and after every public `milestone.` event (see [`MILESTONE_PREFIX`]).
pub const CHECKPOINT_INTERVAL: u64 = 25;

/// The key namespace of the public events that ask for a checkpoint in the record (a scoring
/// round, the end of a year), as the contract documents for `event`.
pub const MILESTONE_PREFIX: &str = "milestone.";

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
    fn setup(&self) -> Setup {
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
    /// The ruleset trapped, ran out of fuel or memory, or misbehaved (the game is unchanged);
    /// or the host had no room for the game's instance. Tell them apart with
    /// [`SessionError::ruleset_failure`] and [`SessionError::capacity_exhausted`].
    #[error("{0:#}")]
    Ruleset(anyhow::Error),
    /// The game could not be created from its setup.
    #[error("{0}")]
    Setup(sdk::SetupError),
}

impl SessionError {
    /// The ruleset's failure (which call, which limit or fault), when the ruleset is to blame.
    pub fn ruleset_failure(&self) -> Option<&RulesetFailure> {
        match self {
            SessionError::Ruleset(error) => failure_of(error),
            _ => None,
        }
    }

    /// The capacity error, when the host's instance pool is full: nothing is wrong with the
    /// game or the request (a server answers 503 and the game is still good).
    pub fn capacity_exhausted(&self) -> Option<&CapacityExhausted> {
        match self {
            SessionError::Ruleset(error) => capacity_exhausted(error),
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

impl From<anyhow::Error> for SessionError {
    fn from(error: anyhow::Error) -> Self {
        SessionError::Ruleset(error)
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
    pub ruleset_hash: crate::runtime::ContentHash,
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
    game: Vec<u8>,
    table: GameTable,
}

/// One game of a component, in its own store.
pub(crate) struct WasmGame {
    store: Store<StoreState>,
    instance: Instance,
    game: ResourceAny,
}

impl WasmGame {
    fn call<R>(
        &mut self,
        ruleset: &LoadedRuleset,
        call: &str,
        f: impl FnOnce(&Instance, &mut Store<StoreState>, ResourceAny) -> wasmtime::Result<R>,
    ) -> Result<R> {
        call_in(
            &mut self.store,
            &self.instance,
            ruleset,
            call,
            |guest, store| f(guest, store, self.game),
        )
    }
}

fn call_in<R>(
    store: &mut Store<StoreState>,
    instance: &Instance,
    ruleset: &LoadedRuleset,
    call: &str,
    f: impl FnOnce(&Instance, &mut Store<StoreState>) -> wasmtime::Result<R>,
) -> Result<R> {
    if !store.data().shared_budget {
        set_call_budget(store, &ruleset.limits)?;
    }
    store.data_mut().start_call();
    let outcome = f(instance, store);
    outcome
        .map_err(|error| describe_failure(&ruleset.info().id, call, error, store, &ruleset.limits))
}

/// How the calls of a new backend are budgeted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Budget {
    /// Each call gets its own fuel and deadline.
    PerCall,
    /// Everything until [`Backend::end_shared_budget`] shares one recovery budget.
    Recovery,
}

enum Backend {
    Wasm(WasmGame),
    Native(NativeGame),
}

impl Backend {
    fn create(
        ruleset: &LoadedRuleset,
        spec: &GameSpec,
        table: GameTable,
    ) -> Result<Result<Backend, sdk::SetupError>> {
        let setup = spec.setup();
        let id = &ruleset.info().id;
        match &ruleset.kind {
            RulesetKind::Native(native) => Ok(NativeGame::create(
                native.as_ref(),
                id,
                &setup,
                spec.position.as_deref(),
                table,
            )?
            .map(Backend::Native)),
            RulesetKind::Wasm(wasm) => {
                let (mut store, instance) = wasm.instantiate(id, table, &ruleset.limits)?;
                let created = call_in(&mut store, &instance, ruleset, "create", |guest, store| {
                    guest.create(store, &setup, spec.position.as_deref())
                })?;
                Ok(created.map(|game| {
                    Backend::Wasm(WasmGame {
                        store,
                        instance,
                        game,
                    })
                }))
            }
        }
    }

    fn restore(
        ruleset: &LoadedRuleset,
        bytes: &[u8],
        table: GameTable,
        budget: Budget,
    ) -> Result<Backend> {
        let id = &ruleset.info().id;
        match &ruleset.kind {
            RulesetKind::Native(native) => Ok(Backend::Native(NativeGame::restore(
                native.as_ref(),
                id,
                bytes,
                table,
            )?)),
            RulesetKind::Wasm(wasm) => {
                let (mut store, instance) = wasm.instantiate(id, table, &ruleset.limits)?;
                if budget == Budget::Recovery {
                    let limits = &ruleset.limits;
                    store
                        .set_fuel(limits.recovery_fuel)
                        .map_err(anyhow::Error::from)?;
                    store.set_epoch_deadline(deadline_ticks(limits.recovery_deadline));
                    store.data_mut().shared_budget = true;
                }
                let game = restore_in(&mut store, &instance, ruleset, bytes)?;
                Ok(Backend::Wasm(WasmGame {
                    store,
                    instance,
                    game,
                }))
            }
        }
    }

    /// Gives each call its own budget again, after a recovery.
    fn end_shared_budget(&mut self) {
        if let Backend::Wasm(wasm) = self {
            wasm.store.data_mut().shared_budget = false;
        }
    }

    fn table(&mut self) -> &mut GameTable {
        match self {
            Backend::Wasm(wasm) => &mut wasm.store.data_mut().table,
            Backend::Native(native) => &mut native.table,
        }
    }

    fn pending(&mut self, ruleset: &LoadedRuleset) -> Result<Vec<PendingDecision>> {
        let pending = match self {
            Backend::Wasm(wasm) => {
                wasm.call(ruleset, "pending", |g, s, game| g.pending(s, game))?
            }
            Backend::Native(native) => native.pending(&ruleset.info().id)?,
        };
        ruleset.check_items("pending", pending.len())?;
        for decision in &pending {
            let items = match &decision.kind {
                sdk::DecisionKind::Choose(c) => c.choices.len(),
                sdk::DecisionKind::Number(_) => 0,
                sdk::DecisionKind::Assign(a) => a.items.len() + a.slots.len(),
            };
            ruleset.check_items("pending", items)?;
        }
        Ok(pending)
    }

    fn apply(
        &mut self,
        ruleset: &LoadedRuleset,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<Event>, Rejection>> {
        let outcome = match self {
            Backend::Wasm(wasm) => wasm.call(ruleset, "apply", |g, s, game| {
                g.apply(s, game, seat, action)
            })?,
            Backend::Native(native) => native.apply(&ruleset.info().id, seat, action)?,
        };
        if let Ok(events) = &outcome {
            ruleset.check_items("apply", events.len())?;
        }
        Ok(outcome)
    }

    fn view(&mut self, ruleset: &LoadedRuleset, viewer: Viewer) -> Result<String> {
        let text = match self {
            Backend::Wasm(wasm) => {
                wasm.call(ruleset, "view", |g, s, game| g.view(s, game, viewer))?
            }
            Backend::Native(native) => native.view(&ruleset.info().id, viewer)?,
        };
        ruleset.check_bytes("view", text.len())?;
        Ok(text)
    }

    fn render(&mut self, ruleset: &LoadedRuleset, viewer: Viewer) -> Result<Vec<BoardPart>> {
        let parts = match self {
            Backend::Wasm(wasm) => {
                wasm.call(ruleset, "render", |g, s, game| g.render(s, game, viewer))?
            }
            Backend::Native(native) => native.render(&ruleset.info().id, viewer)?,
        };
        ruleset.check_items("render", parts.len())?;
        let bytes = parts
            .iter()
            .map(|part| part.id.len() + part.svg.len())
            .sum::<usize>();
        ruleset.check_bytes("render", bytes)?;
        Ok(parts)
    }

    fn preview(
        &mut self,
        ruleset: &LoadedRuleset,
        seat: Seat,
        action: &Action,
    ) -> Result<Result<Vec<PreviewNote>, Rejection>> {
        let outcome = match self {
            Backend::Wasm(wasm) => wasm.call(ruleset, "preview", |g, s, game| {
                g.preview(s, game, seat, action)
            })?,
            Backend::Native(native) => native.preview(&ruleset.info().id, seat, action)?,
        };
        if let Ok(notes) = &outcome {
            ruleset.check_items("preview", notes.len())?;
        }
        Ok(outcome)
    }

    /// The ruleset's estimate for `seat`, if it gives one in `0.0..=1.0`. The table is put back
    /// as it was afterwards: an estimate that drew from it (which the contract forbids) must
    /// not shift the game's random stream, or stored games would stop replaying.
    fn evaluate(&mut self, ruleset: &LoadedRuleset, seat: Seat) -> Result<Option<f64>> {
        let table = self.table().clone();
        let estimate = match self {
            Backend::Wasm(wasm) => {
                wasm.call(ruleset, "evaluate", |g, s, game| g.evaluate(s, game, seat))
            }
            Backend::Native(native) => native.evaluate(&ruleset.info().id, seat),
        };
        *self.table() = table;
        Ok(estimate?.filter(|value| (0.0..=1.0).contains(value)))
    }

    fn result(&mut self, ruleset: &LoadedRuleset) -> Result<Option<GameResult>> {
        let result = match self {
            Backend::Wasm(wasm) => wasm.call(ruleset, "final-result", |g, s, game| {
                g.final_result(s, game)
            })?,
            Backend::Native(native) => native.result(&ruleset.info().id)?,
        };
        if let Some(result) = &result {
            ruleset.check_items(
                "final-result",
                result.placings.len() + result.breakdown.len(),
            )?;
        }
        Ok(result)
    }

    fn snapshot(&mut self, ruleset: &LoadedRuleset) -> Result<Vec<u8>> {
        let bytes = match self {
            Backend::Wasm(wasm) => {
                wasm.call(ruleset, "snapshot", |g, s, game| g.snapshot(s, game))?
            }
            Backend::Native(native) => native.snapshot(&ruleset.info().id)?,
        };
        ruleset.check_bytes("snapshot", bytes.len())?;
        Ok(bytes)
    }

    /// A determinized copy, drawn from `table` (never the game's own), as snapshot bytes.
    fn determinize(
        &mut self,
        ruleset: &LoadedRuleset,
        seat: Seat,
        table: &mut GameTable,
    ) -> Result<Vec<u8>> {
        let bytes = match self {
            Backend::Wasm(wasm) => {
                std::mem::swap(&mut wasm.store.data_mut().table, table);
                let outcome = wasm.call(ruleset, "determinize", |g, s, game| {
                    let copy = g.determinize(&mut *s, game, seat)?;
                    let bytes = g.snapshot(&mut *s, copy);
                    copy.resource_drop(&mut *s)?;
                    bytes
                });
                std::mem::swap(&mut wasm.store.data_mut().table, table);
                outcome?
            }
            Backend::Native(native) => native.determinize(&ruleset.info().id, seat, table)?,
        };
        ruleset.check_bytes("snapshot", bytes.len())?;
        Ok(bytes)
    }

    /// Replaces the game with one restored from `bytes`, keeping the store.
    fn reload(&mut self, ruleset: &LoadedRuleset, bytes: &[u8], table: GameTable) -> Result<()> {
        match self {
            Backend::Wasm(wasm) => {
                wasm.store.data_mut().table = table;
                let game = restore_in(&mut wasm.store, &wasm.instance, ruleset, bytes)?;
                let old = std::mem::replace(&mut wasm.game, game);
                old.resource_drop(&mut wasm.store)
                    .map_err(anyhow::Error::from)?;
            }
            Backend::Native(native) => {
                let RulesetKind::Native(source) = &ruleset.kind else {
                    bail!("a native game belongs to a native ruleset");
                };
                *native = NativeGame::restore(source.as_ref(), &ruleset.info().id, bytes, table)?;
            }
        }
        Ok(())
    }
}

fn restore_in(
    store: &mut Store<StoreState>,
    instance: &Instance,
    ruleset: &LoadedRuleset,
    bytes: &[u8],
) -> Result<ResourceAny> {
    call_in(store, instance, ruleset, "restore", |guest, store| {
        guest.restore(store, bytes)
    })?
    .map_err(|e| {
        call_failed(
            &ruleset.info().id,
            "restore",
            FailureCause::Fault {
                detail: format!("it could not restore its snapshot: {e}"),
            },
        )
    })
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
    backend: Option<Backend>,
    spec: GameSpec,
    actions: Vec<RecordedAction>,
    checkpoints: Vec<CompactCheckpoint>,
    /// False for a session restored from a snapshot: its checkpoints before the snapshot are
    /// not known until the record asks for them and they are replayed.
    checkpoints_complete: bool,
    recovery: Option<RecoveryPoint>,
    version: u64,
    pending: Option<Vec<PendingDecision>>,
    /// A bot's determinized game: nothing recorded, nothing recovered.
    determinized: bool,
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

impl Session {
    /// Creates a game. Prefer [`LoadedRuleset::new_game`].
    pub fn new(ruleset: Arc<LoadedRuleset>, spec: GameSpec) -> Result<Session, SessionError> {
        let table = GameTable::new(&spec.seed);
        let backend = Backend::create(&ruleset, &spec, table)?.map_err(SessionError::Setup)?;
        let mut session = Session {
            ruleset,
            backend: Some(backend),
            spec,
            actions: Vec::new(),
            checkpoints: Vec::new(),
            checkpoints_complete: true,
            recovery: None,
            version: 0,
            pending: None,
            determinized: false,
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
            return Err(SessionError::Ruleset(anyhow!(
                "the snapshot is of ruleset {} ({}), not of the loaded {} ({})",
                snapshot.ruleset_id,
                snapshot.ruleset_hash,
                ruleset.info().id,
                ruleset.hash()
            )));
        }
        if history.len() as u64 != snapshot.version {
            return Err(SessionError::Ruleset(anyhow!(
                "the snapshot is of version {} but {} actions came with it",
                snapshot.version,
                history.len()
            )));
        }
        let backend = Backend::restore(
            &ruleset,
            &snapshot.game,
            GameTable::from_state(&snapshot.table),
            Budget::PerCall,
        )?;
        Ok(Session {
            ruleset,
            backend: Some(backend),
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
            determinized: false,
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

    /// Runs a call on the backend; on failure drops the backend and rebuilds the game from the
    /// recovery point, once, so the session is as it was before the call. A game whose rebuild
    /// failed answers that failure without running anything.
    fn with_backend<R>(
        &mut self,
        f: impl FnOnce(&mut Backend, &LoadedRuleset) -> Result<R>,
    ) -> Result<R> {
        if let Some(failure) = &self.failed {
            return Err(anyhow::Error::new(failure.clone()));
        }
        if self.backend.is_none() {
            if self.determinized {
                bail!("a determinized game cannot be rebuilt: determinize it again");
            }
            // Parked, or after a rebuild the host had no room for: restore it now.
            self.recover_or_fail()?;
        }
        let Some(backend) = self.backend.as_mut() else {
            bail!("the game has no backend");
        };
        let outcome = f(backend, &self.ruleset);
        if outcome.is_err() {
            self.backend = None;
            self.pending = None;
            if !self.determinized
                && let Err(error) = self.recover_or_fail()
            {
                tracing::error!(
                    "ruleset `{}`: recovery failed: {error:#}",
                    self.ruleset.info().id
                );
            }
        }
        outcome
    }

    /// Rebuilds the backend; a rebuild that fails for the ruleset's sake marks the game failed.
    /// A full instance pool only postpones the rebuild to the next call.
    fn recover_or_fail(&mut self) -> Result<()> {
        let Err(error) = self.recover() else {
            return Ok(());
        };
        if capacity_exhausted(&error).is_some() {
            return Err(error);
        }
        let mut failure = failure_of(&error)
            .cloned()
            .unwrap_or_else(|| RulesetFailure {
                ruleset: self.ruleset.info().id.clone(),
                call: "restore".to_owned(),
                cause: FailureCause::Fault {
                    detail: format!("{error:#}"),
                },
                game_failed: true,
            });
        failure.game_failed = true;
        self.failed = Some(failure.clone());
        Err(anyhow::Error::new(failure))
    }

    /// Restores the last recovery point and replays the actions since, all under one recovery
    /// budget (not a fresh budget per replayed call), then makes the rebuilt state the new
    /// recovery point so a ruleset failing again and again does not replay again and again.
    fn recover(&mut self) -> Result<()> {
        let Some(point) = &self.recovery else {
            bail!("the game has no recovery point to rebuild from");
        };
        let mut backend = Backend::restore(
            &self.ruleset,
            &point.game,
            GameTable::from_state(&point.table),
            Budget::Recovery,
        )?;
        let replayed = self.actions.len().saturating_sub(point.version as usize);
        for (index, recorded) in self.actions.iter().enumerate().skip(point.version as usize) {
            if let Err(rejection) = backend.apply(&self.ruleset, recorded.seat, &recorded.action)? {
                bail!(
                    "action {} was refused while rebuilding the game: {rejection}",
                    index + 1
                );
            }
            backend.table().take_drops();
        }
        let point = if replayed > 0 {
            let game = backend.snapshot(&self.ruleset)?;
            Some(RecoveryPoint {
                game,
                table: backend.table().state(),
                version: self.version,
            })
        } else {
            None
        };
        backend.end_shared_budget();
        if let Some(point) = point {
            self.recovery = Some(point);
        }
        self.backend = Some(backend);
        Ok(())
    }

    fn take_recovery_point(&mut self) -> Result<()> {
        let (game, table) = self.with_backend(|backend, ruleset| {
            let game = backend.snapshot(ruleset)?;
            Ok((game, backend.table().state()))
        })?;
        self.recovery = Some(RecoveryPoint {
            game,
            table,
            version: self.version,
        });
        Ok(())
    }

    fn checkpoint(&mut self, milestone: Option<sdk::Message>) -> Result<()> {
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
        if let Some(pending) = &self.pending {
            return Ok(pending.clone());
        }
        let pending = self.with_backend(|b, r| b.pending(r))?;
        self.pending = Some(pending.clone());
        Ok(pending)
    }

    /// Whether the game is over (no decision pending).
    pub fn is_over(&mut self) -> Result<bool, SessionError> {
        Ok(self.pending()?.is_empty())
    }

    /// Applies one seat's answer. The action `back` is refused here, before the ruleset sees
    /// it, unless the seat's decision offers a way back.
    pub fn apply(&mut self, seat: Seat, action: &Action) -> Result<Applied, SessionError> {
        if *action == Action::Back {
            let pending = self.pending()?;
            let decision = pending
                .iter()
                .find(|d| d.seat == seat)
                .ok_or(SessionError::Rejected(Rejection::NotYourTurn))?;
            sdk::check_answer(decision, action).map_err(SessionError::Rejected)?;
        }
        let outcome = self.with_backend(|backend, ruleset| {
            let before = backend.table().clone();
            backend.table().take_drops();
            match backend.apply(ruleset, seat, action)? {
                Ok(events) => Ok(Ok((events, backend.table().take_drops()))),
                Err(rejection) => {
                    *backend.table() = before;
                    Ok(Err(rejection))
                }
            }
        })?;
        let (events, tower) = outcome.map_err(SessionError::Rejected)?;
        self.version += 1;
        self.pending = None;
        if !self.determinized {
            self.actions.push(RecordedAction {
                seat,
                action: action.clone(),
            });
            if self.version.is_multiple_of(RECOVERY_INTERVAL) {
                // A failed snapshot keeps the older recovery point, which still works.
                if let Err(error) = self.take_recovery_point() {
                    tracing::warn!("no new recovery point: {error:#}");
                }
            }
            let milestone = events
                .iter()
                .find(|e| {
                    e.audience == sdk::Audience::Everyone
                        && e.text.key.starts_with(MILESTONE_PREFIX)
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
        }
        Ok(Applied {
            events,
            tower,
            version: self.version,
        })
    }

    /// The state as `viewer` may see it, as the ruleset's JSON.
    pub fn view(&mut self, viewer: Viewer) -> Result<String, SessionError> {
        Ok(self.with_backend(|b, r| b.view(r, viewer))?)
    }

    /// The board as `viewer` sees it, in parts, each SVG rebuilt from the host's allowlist
    /// ([`crate::svg_sanitizer`]): a ruleset's own text never reaches a browser. A part that is
    /// not SVG at all is shown empty (and logged), never a failed view.
    ///
    /// The board as a whole is held to [`crate::svg_sanitizer::MAX_BOARD_BYTES`] and
    /// [`crate::svg_sanitizer::MAX_BOARD_NODES`], the sanitiser's share of the game's budget:
    /// a board beyond either is shown empty, every part of it.
    pub fn render(&mut self, viewer: Viewer) -> Result<Vec<BoardPart>, SessionError> {
        use crate::svg_sanitizer::{BoardBudget, SvgRefused};
        let mut parts = self.with_backend(|b, r| b.render(r, viewer))?;
        let mut budget = BoardBudget::new();
        let mut too_large = false;
        for part in &mut parts {
            let drawn = std::mem::take(&mut part.svg);
            if too_large {
                continue;
            }
            match budget.sanitize(&drawn) {
                Ok(clean) => part.svg = clean,
                Err(refused) => {
                    tracing::warn!(
                        "ruleset `{}`, part `{}`: {refused}",
                        self.ruleset.info().id,
                        part.id
                    );
                    too_large =
                        matches!(refused, SvgRefused::TooLong(_) | SvgRefused::TooManyNodes);
                }
            }
        }
        if too_large {
            for part in &mut parts {
                part.svg.clear();
            }
        }
        Ok(parts)
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
        let decision = pending
            .iter()
            .find(|d| d.seat == seat)
            .ok_or(SessionError::Rejected(Rejection::NotYourTurn))?;
        if *action == Action::Back {
            // Going back costs nothing and skips nothing: no ruleset call to make.
            sdk::check_answer(decision, action).map_err(SessionError::Rejected)?;
            return Ok(Vec::new());
        }
        sdk::check_draft_shape(&decision.kind, action).map_err(SessionError::Rejected)?;
        self.with_backend(|b, r| b.preview(r, seat, action))?
            .map_err(SessionError::Rejected)
    }

    /// The ruleset's heuristic estimate of the position for `seat`: its expected share of the
    /// win in `0.0..=1.0`, or none when the ruleset gives none (every component built before
    /// contract 0.3.0, and any value outside that range). Changes nothing.
    pub fn evaluate(&mut self, seat: Seat) -> Result<Option<f64>, SessionError> {
        Ok(self.with_backend(|b, r| b.evaluate(r, seat))?)
    }

    /// The result, once the game is over.
    pub fn result(&mut self) -> Result<Option<GameResult>, SessionError> {
        Ok(self.with_backend(|b, r| b.result(r))?)
    }

    /// The cubes lodged in the tower: the host's secret, for tests and for the end of a game.
    pub fn tower_contents(&mut self) -> Result<Vec<sdk::CubeCount>, SessionError> {
        Ok(self.with_backend(|b, _| Ok(b.table().tower().contents()))?)
    }

    /// Frees the game's instance and keeps its state as a recovery point of the current
    /// version, so an idle game costs its snapshot rather than a whole instance. The next call
    /// restores it transparently, exactly as a recovery would (with nothing to replay); nothing
    /// else about the session changes. Parking a parked session does nothing.
    pub fn park(&mut self) -> Result<(), SessionError> {
        if self.determinized || self.backend.is_none() || self.failed.is_some() {
            return Ok(());
        }
        if self.recovery.as_ref().map(|point| point.version) != Some(self.version) {
            self.take_recovery_point()?;
        }
        self.backend = None;
        Ok(())
    }

    /// Whether the session holds no instance now: parked, or waiting for room to rebuild.
    pub fn is_parked(&self) -> bool {
        self.backend.is_none()
    }

    /// The game's position, to store and reload with [`Session::restore`] (with the spec and
    /// the actions so far, which the caller keeps).
    pub fn snapshot(&mut self) -> Result<SessionSnapshot, SessionError> {
        let (game, table) = self.with_backend(|backend, ruleset| {
            let game = backend.snapshot(ruleset)?;
            Ok((game, backend.table().state()))
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
        if self.checkpoints_complete || self.determinized {
            return Ok(());
        }
        let mut replay = Session::new(self.ruleset.clone(), self.spec.clone())?;
        for (index, recorded) in self.actions.iter().enumerate() {
            replay
                .apply(recorded.seat, &recorded.action)
                .map_err(|error| match error {
                    SessionError::Rejected(rejection) => SessionError::Ruleset(anyhow!(
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
    pub fn determinize(&mut self, seat: Seat, seed: &Seed) -> Result<Determinized, SessionError> {
        Ok(self.with_backend(|backend, ruleset| {
            let mut table = backend.table().scratch(seed);
            let game = backend.determinize(ruleset, seat, &mut table)?;
            Ok(Determinized { game, table })
        })?)
    }

    /// A session playing a determinized game. Nothing of it is recorded; a failed call leaves it
    /// unusable until [`Session::replace_determinized`].
    pub fn from_determinized(
        ruleset: Arc<LoadedRuleset>,
        determinized: Determinized,
    ) -> Result<Session, SessionError> {
        let backend = Backend::restore(
            &ruleset,
            &determinized.game,
            determinized.table,
            Budget::PerCall,
        )?;
        Ok(Session {
            ruleset,
            backend: Some(backend),
            spec: GameSpec {
                map_toml: String::new(),
                options: Vec::new(),
                seats: 0,
                seed: [0; 32],
                position: None,
            },
            actions: Vec::new(),
            checkpoints: Vec::new(),
            checkpoints_complete: true,
            recovery: None,
            version: 0,
            pending: None,
            determinized: true,
            failed: None,
        })
    }

    /// Replaces a determinized session's game with another determinized game, reusing its instance.
    pub fn replace_determinized(&mut self, determinized: Determinized) -> Result<(), SessionError> {
        if !self.determinized {
            return Err(SessionError::Ruleset(anyhow!(
                "only a determinized game can be replaced"
            )));
        }
        self.pending = None;
        self.version = 0;
        self.failed = None;
        let reloaded = match self.backend.as_mut() {
            Some(backend) => backend.reload(&self.ruleset, &determinized.game, determinized.table),
            None => Backend::restore(
                &self.ruleset,
                &determinized.game,
                determinized.table,
                Budget::PerCall,
            )
            .map(|b| {
                self.backend = Some(b);
            }),
        };
        if reloaded.is_err() {
            self.backend = None;
        }
        Ok(reloaded?)
    }
}
