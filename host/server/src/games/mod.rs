//! Live games: which games are in memory, how an action gets from a request into the ruleset and
//! onto disk, and how bots and other server processes move games along.
//!
//! A game in memory is a [`LiveGame`]: a cheap handle with its stored setup, seats and public
//! standing, and the mailbox of its owner (`owner::Owner`), a task that alone holds the
//! running [`Session`] and answers typed commands one at a time. So one game's calls run one
//! after another while any number of games run side by side. Every ruleset call runs in one of
//! the hub's bounded call slots ([`CallSlots`]), never on the async reactor. Idle sessions are
//! parked or dropped and rebuilt on next use from the newest snapshot plus the actions after it.
//!
//! [`Hub`] is the registry of handles, with parts that each own their state: `Residency`
//! (`residency.rs`) decides which games are in memory and which hold a running instance;
//! `ViewCache` (`views.rs`) keeps computed views under a byte budget; `BotRunner`
//! (`bots.rs`) paces bots and hands out their thinking slots; `TableClocks` (`clocks.rs`)
//! keeps the timers. `moves.rs` applies and commits moves; `following.rs` catches up with other
//! server processes. The layer answers in its own [`GameError`]; only the HTTP layer turns it
//! into a response.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use anyhow::Context as _;
use sdk::{Action, BoardPart, Event, GameResult, PendingDecision, PreviewNote, Seat, Viewer};
use tokio::sync::{broadcast, mpsc};

mod bots;
mod clocks;
mod error;
mod following;
mod moves;
mod owner;
mod residency;
mod views;

use bots::BotRunner;
use clocks::TableClocks;
use owner::{BotTurn, Command, Owner};
pub use owner::{ChangeKind, DurableChange};
use residency::Residency;
use views::ViewCache;

pub use error::{GameError, LiveResult};

use super::clocks::{Clock, SystemClock, TableClock, Timers};
use super::fair::FairSlots;
use super::ruleset_calls::{self as calls, LoadedRuleset, Runtime, Session};
use super::slots::CallSlots;
use super::storage::{
    ClockWrite, DatabaseKind, Insert, NewCredentials, Queued, Storage, StoredAction, StoredGame,
    StoredSeat, WriteQueue, now_millis,
};
use tenka_game::session::{Applied, SessionError};

/// How the hub runs games.
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// How long a bot waits before it acts, so people can follow the game.
    pub bot_pace: Duration,
    /// A snapshot is stored every this many actions.
    pub snapshot_every: u64,
    /// A game's session is dropped from memory after this long without use.
    pub idle_after: Duration,
    /// How many games keep a running instance at most. Past it, the least recently used are
    /// parked: their instance is freed and their state kept as a snapshot in memory, restored
    /// on their next call as a recovery would, with nothing to replay. Keep it well under the
    /// runtime's `PoolLimits::instances`, which bots' determinized games and stateless calls share.
    pub max_running_games: usize,
    /// How many games the process holds in memory at most. At the cap, the least recently used
    /// game nobody watches is unloaded to make room; when every game is watched, loading or
    /// creating another is refused as busy (and nothing else slows down).
    pub max_live_games: usize,
    /// How many bytes of computed views and boards are kept across all games; beyond it views
    /// are computed for each request instead of cached.
    pub view_cache_bytes: usize,
    /// How many ruleset calls run at once on the blocking pool; further calls wait their turn,
    /// first come first served, instead of taking every thread.
    pub ruleset_calls: usize,
    /// How many search-bot moves are thought about at once, so bots never take every call slot
    /// and people's moves stay quick.
    pub bot_moves: usize,
    /// How long a search bot may think about one move.
    pub bot_think_time: Duration,
    /// How long bots wait before each move in a game played by bots alone that nobody watches
    /// (no live stream open): such a game needs no pace people can follow, and it should not
    /// take the bots' thinking slots from games people play.
    pub unwatched_bot_pace: Duration,
    /// How many games played by bots alone one client address may have running at once.
    pub bot_games_per_creator: usize,
    /// Where table clocks read the time: the system clock, or a manual one in tests.
    pub clock: Arc<dyn Clock>,
}

impl Default for HubConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        HubConfig {
            bot_pace: Duration::from_millis(300),
            snapshot_every: 32,
            idle_after: Duration::from_secs(300),
            max_running_games: 1_024,
            max_live_games: 20_000,
            view_cache_bytes: 256 << 20,
            ruleset_calls: (cores * 4).max(4),
            bot_moves: (cores / 2).max(1),
            bot_think_time: Duration::from_secs(2),
            unwatched_bot_pace: Duration::from_secs(2),
            bot_games_per_creator: 4,
            clock: Arc::new(SystemClock),
        }
    }
}

/// What changed in a game, sent to its live subscribers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Update {
    /// The game reached this version.
    Version(u64),
    /// A seat was claimed or handed to a bot or back.
    Seats,
}

/// Since which version each seat's pending decision has been unchanged.
///
/// A client answers the decision it saw at some version. Other seats' independent steps (bots
/// placing at the same time, say) move the game's version on without touching that decision;
/// the answer is still an answer to the decision pending now, so it is accepted. It is stale
/// only when the seat's own decision changed after the version the client saw: the seat acted,
/// the decision went away and came back, or its content (prompt, choices, bounds) changed.
#[derive(Default)]
pub(super) struct DecisionAges {
    /// The version these ages were last brought up to date at.
    version: u64,
    /// For each seat with a pending decision: the version since which it has been unchanged, and
    /// a digest of the seat's decisions.
    seats: HashMap<Seat, (u64, u64)>,
}

impl DecisionAges {
    /// Brings the ages up to `version`, whose pending decisions are `pending`. `mover` is the
    /// seat whose action led to `version` from the version last seen, when it is known: its
    /// decision is new even if it reads the same (the same question, asked again). When the
    /// game moved on by an unknown number of steps (replayed after a reload, caught up with
    /// another process), every decision counts as new.
    fn update(&mut self, version: u64, pending: &[PendingDecision], mover: Option<Seat>) {
        let known_step = mover.is_some() && version == self.version + 1;
        let same_version = version == self.version && !self.seats.is_empty();
        let mut digests: HashMap<Seat, std::collections::hash_map::DefaultHasher> = HashMap::new();
        for decision in pending {
            let hasher = digests.entry(decision.seat).or_default();
            std::hash::Hash::hash(&serde_json::to_string(decision).unwrap_or_default(), hasher);
        }
        let seats = digests
            .into_iter()
            .map(|(seat, hasher)| {
                let digest = std::hash::Hasher::finish(&hasher);
                let may_be_unchanged = (known_step && mover != Some(seat)) || same_version;
                let since = match self.seats.get(&seat) {
                    Some((since, before)) if may_be_unchanged && *before == digest => *since,
                    _ => version,
                };
                (seat, (since, digest))
            })
            .collect();
        self.seats = seats;
        self.version = version;
    }

    /// Whether an answer of `seat` made against `seen` is an answer to the decision pending
    /// now at `current`.
    fn answers_current(&self, seat: Seat, seen: u64, current: u64) -> bool {
        seen <= current
            && self.version == current
            && self
                .seats
                .get(&seat)
                .is_some_and(|(since, _)| *since <= seen)
    }
}

/// Where a game stands: public facts readable without waiting for its session. (Not a
/// ruleset's `sdk::Summary`, the pause it shows after a season.)
#[derive(Clone, Debug, Default)]
pub struct Standing {
    /// The game's version (its number of actions).
    pub version: u64,
    /// Whether the game is over.
    pub finished: bool,
    /// The seats that have a pending decision.
    pub waiting_for: Vec<Seat>,
}

/// What a viewer sees of a game at one version, computed once per version and viewer.
#[derive(Clone, Debug)]
pub struct ViewData {
    /// The version this view is of.
    pub version: u64,
    /// The viewer's own pending decisions.
    pub pending: Vec<PendingDecision>,
    /// The ruleset's JSON view for this viewer.
    pub state: serde_json::Value,
    /// The board for this viewer, in parts, each SVG already sanitized.
    pub parts: Vec<BoardPart>,
    /// The result, once the game is over.
    pub result: Option<GameResult>,
    /// About how many bytes the view takes (its drawing and state), for the cache's budget.
    bytes: usize,
}

impl ViewData {
    fn new(
        version: u64,
        pending: Vec<PendingDecision>,
        state_text: String,
        parts: Vec<BoardPart>,
        result: Option<GameResult>,
    ) -> ViewData {
        let drawing: usize = parts
            .iter()
            .map(|part| part.id.len() + part.svg.len())
            .sum();
        ViewData {
            bytes: 2 * state_text.len() + drawing,
            version,
            pending,
            state: calls::view_json(state_text),
            parts,
            result,
        }
    }
}

/// The seats that owe an answer in `pending`, each once, in order.
fn waiting_seats(pending: &[PendingDecision]) -> Vec<Seat> {
    let mut seats: Vec<Seat> = pending.iter().map(|decision| decision.seat).collect();
    seats.sort_unstable();
    seats.dedup();
    seats
}

/// Sets the public standing from the decisions `game` is waiting for at `version`; true if that
/// finished a game the summary had as running.
fn summarize(game: &LiveGame, version: u64, pending: &[PendingDecision]) -> bool {
    let over = pending.is_empty();
    let waiting_for = waiting_seats(pending);
    let was_finished = game.standing().finished;
    // Read by the bot runner without asking the owner: a hint, checked again by the owner.
    let bots = game.bot_seats();
    let forced = owner::first_for_bots(pending, &bots)
        .is_some_and(|decision| tenka_game::bots::only_answer(&decision.kind).is_some());
    game.bot_move_forced.store(forced, Ordering::Relaxed);
    game.set_standing(Standing {
        version,
        finished: over,
        waiting_for,
    });
    over && !was_finished
}

/// What the blocking call that applies an action also does, so a move takes one trip to the
/// blocking pool: it asks the decisions the game waits for next, queues the action for the
/// database writer (from this thread rather than from the reactor: a thread hand-off fewer per
/// move; marked as ending the game when nothing is left to decide, so the end is stored in the
/// same commit) and, every few actions, takes a snapshot.
struct AfterApply {
    /// The seat that acted.
    seat: Seat,
    /// The bot that chose the action, when one did.
    bot: Option<String>,
    stored: anyhow::Result<Queued<Insert>>,
    pending: Result<Vec<PendingDecision>, tenka_game::session::SessionError>,
    snapshot: Option<anyhow::Result<Vec<u8>>>,
    /// The table's clock as the action leaves it (timed tables).
    clock: Option<TableClock>,
}

/// Where and as what an applied action is stored.
struct ActionWrite {
    queue: WriteQueue,
    game_id: String,
    seq: u64,
    seat: Seat,
    action_json: String,
    /// A timed table's clock before the action, brought up to date with it.
    clock: Option<clocks::ClockTick>,
    /// The bot that chose the action, when one did.
    bot: Option<String>,
}

impl ActionWrite {
    /// Queues the action with what it produced, and the clock as it leaves it.
    fn queue(
        self,
        applied: &Applied,
        ends_game: bool,
        clock: Option<&TableClock>,
    ) -> anyhow::Result<Queued<Insert>> {
        let record = StoredAction {
            seq: self.seq,
            seat: self.seat,
            action_json: self.action_json,
            events_json: serde_json::to_string(&applied.events)
                .context("failed to encode events")?,
            tower_json: serde_json::to_string(&calls::tower_log(&applied.tower))
                .context("failed to encode tower drops")?,
            bot: self.bot,
        };
        let clock = clock.map(|clock| ClockWrite {
            state_json: clock.state_json(),
            deadline: clock.deadline(),
        });
        self.queue
            .queue_timed_action(&self.game_id, record, ends_game, clock)
    }
}

impl AfterApply {
    /// Asks `session`, which has just applied the action `write` describes, with `applied` as
    /// its outcome. A game the action ended is parked in the same trip: it needs no running
    /// instance any more, and finished games must not crowd out the instances of games still
    /// being played.
    fn of(
        session: &mut Session,
        applied: &Applied,
        mut write: ActionWrite,
        snapshot_every: u64,
    ) -> AfterApply {
        let version = write.seq;
        let seat = write.seat;
        let bot = write.bot.clone();
        let pending = session.pending();
        let ends_game = matches!(&pending, Ok(decisions) if decisions.is_empty());
        let clock = write
            .clock
            .take()
            .and_then(|tick| tick.after(seat, pending.as_ref().ok()?));
        let stored = write.queue(applied, ends_game, clock.as_ref());
        let snapshot = version
            .is_multiple_of(snapshot_every.max(1))
            .then(|| calls::snapshot(session));
        if ends_game && let Err(error) = session.park() {
            tracing::warn!("a finished game stays running: parking failed: {error}");
        }
        AfterApply {
            seat,
            bot,
            stored,
            pending,
            snapshot,
            clock,
        }
    }
}

/// How long the parker waits when every game it could park was in use.
const PARK_RETRY: Duration = Duration::from_millis(10);

/// How many commands wait for a game's owner before their senders wait too.
const OWNER_MAILBOX: usize = 64;

/// How many past boards (the replay viewer's) each game keeps.
const PAST_BOARDS_KEPT: usize = 64;

/// Who runs a game's bots right now.
#[derive(Default)]
struct BotSchedule {
    /// A bot task is running for this game.
    running: bool,
    /// Something changed since the running task last looked.
    dirty: bool,
}

/// A game the server holds in memory.
pub struct LiveGame {
    /// The stored setup (with the secret seed: never sent to clients before the end).
    pub stored: StoredGame,
    /// The ruleset the game runs on.
    pub ruleset: Arc<LoadedRuleset>,
    seats: RwLock<Vec<StoredSeat>>,
    standing: RwLock<Standing>,
    /// The mailbox of the task that owns the game's session (`owner::Owner`).
    owner: mpsc::Sender<Command>,
    /// The owner is answering a command now: the game is in use, not idle.
    busy: AtomicBool,
    /// Whether the decision the game's bots answer next had a single answer when the standing
    /// was last set, so the bot runner can skip a thinking slot without asking the owner.
    bot_move_forced: AtomicBool,
    updates: broadcast::Sender<Update>,
    views: Mutex<HashMap<Viewer, Arc<ViewData>>>,
    /// Boards of a finished game after a given number of actions, by viewer.
    past_boards: Mutex<HashMap<(Viewer, u64), Arc<ViewData>>>,
    bots: Mutex<BotSchedule>,
    last_used: AtomicI64,
    /// Whether the session was last seen holding an instance: a hint for choosing what to
    /// park.
    running: AtomicBool,
    /// Who created the game (a client address), while this process knows it: the key its bots
    /// take their turns under. A game loaded from storage has none and takes turns as itself.
    creator: Option<String>,
    /// A timed table's clock as last stored; `None` for an untimed game.
    clock: Mutex<Option<TableClock>>,
}

impl LiveGame {
    /// The game's id.
    pub fn id(&self) -> &str {
        &self.stored.id
    }

    /// The view `viewer` was last given, if it is of `version`.
    fn cached_view(&self, viewer: Viewer, version: u64) -> Option<Arc<ViewData>> {
        self.views
            .lock()
            .ok()
            .and_then(|views| views.get(&viewer).cloned())
            .filter(|view| view.version == version)
    }

    /// The seats as they are now.
    pub fn seats(&self) -> Vec<StoredSeat> {
        self.seats
            .read()
            .map(|seats| seats.clone())
            .unwrap_or_default()
    }

    /// The public standing as it is now.
    pub fn standing(&self) -> Standing {
        self.standing
            .read()
            .map(|standing| standing.clone())
            .unwrap_or_default()
    }

    /// Subscribes to the game's changes.
    pub fn subscribe(&self) -> broadcast::Receiver<Update> {
        self.updates.subscribe()
    }

    /// The seat a token acts for, if any.
    pub fn seat_of_token(&self, token: &str) -> Option<Seat> {
        let hash = super::tokens::token_hash(token);
        self.seats()
            .iter()
            .find(|seat| seat.token_hash.as_deref() == Some(hash.as_str()))
            .map(|seat| seat.seat)
    }

    fn touch(&self) {
        self.last_used.store(now_millis(), Ordering::Relaxed);
    }

    fn publish(&self, update: Update) {
        // No subscriber is fine: nobody is watching.
        let _ = self.updates.send(update);
    }

    fn set_standing(&self, standing: Standing) {
        if let Ok(mut current) = self.standing.write() {
            *current = standing;
        }
    }

    /// A handle on a game, with its owner started (holding `session` when the game was just
    /// created).
    fn start(
        hub: &Arc<Hub>,
        stored: StoredGame,
        ruleset: Arc<LoadedRuleset>,
        seats: Vec<StoredSeat>,
        creator: Option<String>,
        session: Option<Session>,
    ) -> Arc<LiveGame> {
        let (owner, commands) = mpsc::channel(OWNER_MAILBOX);
        let game = Arc::new(LiveGame {
            creator,
            stored,
            ruleset,
            seats: RwLock::new(seats),
            standing: RwLock::new(Standing::default()),
            owner,
            busy: AtomicBool::new(false),
            bot_move_forced: AtomicBool::new(false),
            updates: broadcast::channel(64).0,
            views: Mutex::new(HashMap::new()),
            past_boards: Mutex::new(HashMap::new()),
            bots: Mutex::new(BotSchedule::default()),
            last_used: AtomicI64::new(now_millis()),
            running: AtomicBool::new(false),
            clock: Mutex::new(None),
        });
        Owner::spawn(
            Arc::downgrade(hub),
            Arc::downgrade(&game),
            session,
            commands,
        );
        game
    }

    fn set_busy(&self, busy: bool) {
        self.busy.store(busy, Ordering::Relaxed);
    }

    /// Whether the game's owner is answering a command now.
    fn busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }

    /// Whether bots play every seat now.
    fn bots_only(&self) -> bool {
        self.seats().iter().all(|seat| seat.bot.is_some())
    }

    /// Whether someone follows the game live.
    fn watched(&self) -> bool {
        self.updates.receiver_count() > 0
    }

    /// The key the game's bots take their turns for a thinking slot under.
    fn turn_key(&self) -> &str {
        self.creator.as_deref().unwrap_or(&self.stored.id)
    }

    /// Whether the game may be unloaded now: nobody watches it and no bot task runs.
    fn unloadable(&self) -> bool {
        self.updates.receiver_count() == 0
            && self
                .bots
                .lock()
                .map(|schedule| !schedule.running)
                .unwrap_or(false)
    }
}

/// What an accepted action produced.
#[derive(Clone, Debug)]
pub struct Submitted {
    /// The game's new version.
    pub version: u64,
    /// Every event the action produced, with audiences (filter before showing).
    pub events: Vec<Event>,
}

/// All games of one server process: a registry of live games' handles, with the parts that
/// keep them (residency, the view cache, the bot runner, the table clocks' timers) each owning
/// its own state.
pub struct Hub {
    storage: Storage,
    runtime: Arc<Runtime>,
    config: HubConfig,
    /// Which games are in memory and which hold a running instance.
    residency: Arc<Residency>,
    /// Computed views under a byte budget, and catalogues.
    views: ViewCache,
    /// Who plays the seats bots hold.
    bots: Arc<BotRunner>,
    /// The component hashes this process has made sure are kept in the database.
    kept_components: Mutex<HashSet<String>>,
    /// Slots for ruleset calls on the blocking pool ([`HubConfig::ruleset_calls`]).
    calls: CallSlots,
    /// The table clocks: their timers and the stored clocks.
    clocks: TableClocks,
    /// Told once a move has finished a game and is stored ([`Hub::on_game_finished`]).
    finished: std::sync::OnceLock<GameFinished>,
}

/// What the server does with a game a stored move finished (rate it): set by the layer above,
/// so the live games never name what listens.
pub type GameFinished = Box<dyn Fn(Arc<Hub>, Arc<LiveGame>) + Send + Sync>;

/// One ruleset version's messages in one language, as (key, template) pairs.
type Catalogue = Arc<Vec<(String, String)>>;

/// A language tag as catalogues are asked for: `en`, `pt-BR`; anything else names none.
fn is_language_tag(language: &str) -> bool {
    (2..=16).contains(&language.len())
        && language
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
}

impl Hub {
    /// A hub over a database and a runtime with the rulesets loaded.
    pub fn new(storage: Storage, runtime: Arc<Runtime>, config: HubConfig) -> Arc<Hub> {
        let hub = Arc::new(Hub {
            residency: Residency::new(&config),
            views: ViewCache::new(config.view_cache_bytes),
            bots: BotRunner::new(&config),
            clocks: TableClocks::new(storage.clone(), config.clock.clone()),
            storage,
            runtime,
            calls: CallSlots::new(config.ruleset_calls),
            config,
            kept_components: Mutex::new(HashSet::new()),
            finished: std::sync::OnceLock::new(),
        });
        hub.start_timer();
        hub
    }

    /// Sets what is done with each game a stored move finishes; the first call wins.
    pub fn on_game_finished(&self, hook: GameFinished) {
        if self.finished.set(hook).is_err() {
            tracing::warn!("a second game-finished hook was ignored");
        }
    }

    /// Runs ruleset work on the blocking pool once a call slot is free ([`CallSlots::run`]).
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> anyhow::Result<T> {
        self.calls.run(work).await
    }

    /// The slots ruleset work takes, for work outside the hub (the catalogue's reloads).
    pub fn call_slots(&self) -> CallSlots {
        self.calls.clone()
    }

    /// The slots bots think in ([`HubConfig::bot_moves`]): how many are free, and a way for an
    /// operator's tool or a test to hold one.
    pub fn bot_slots(&self) -> &Arc<FairSlots> {
        self.bots.slots()
    }

    /// The exact ruleset version a stored game was started on: loaded already, or read back
    /// from the components the database keeps (after its file was replaced or the server
    /// restarted with a newer one).
    async fn pinned_ruleset(&self, stored: &StoredGame) -> LiveResult<Arc<LoadedRuleset>> {
        if let Some(ruleset) = self.runtime.ruleset_version(&stored.ruleset_hash) {
            return Ok(ruleset);
        }
        let unavailable = || {
            GameError::Unavailable(format!(
                "game {} was started on version {} of ruleset `{}`, which this server no longer has",
                stored.id,
                short_hash(&stored.ruleset_hash),
                stored.ruleset_id
            ))
        };
        let bytes = self
            .storage
            .component(&stored.ruleset_hash)
            .await?
            .ok_or_else(unavailable)?;
        let runtime = self.runtime.clone();
        let ruleset = self
            .blocking(move || runtime.load_version(&bytes))
            .await
            .context("loading a kept ruleset version failed")?
            .context("a kept ruleset version does not load")?;
        if ruleset.hash().0 != stored.ruleset_hash {
            return Err(unavailable());
        }
        tracing::info!(
            "loaded kept version {} of ruleset `{}` for game {}",
            short_hash(&stored.ruleset_hash),
            stored.ruleset_id,
            stored.id
        );
        Ok(ruleset)
    }

    /// Makes sure the database keeps the component a new game runs on, so the game can go on
    /// after the component's file changes. Once per version and process.
    async fn keep_component(&self, ruleset: &LoadedRuleset) -> LiveResult<()> {
        let Some(bytes) = ruleset.component_bytes() else {
            return Ok(());
        };
        let hash = ruleset.hash().0;
        let known = self
            .kept_components
            .lock()
            .map(|kept| kept.contains(&hash))
            .unwrap_or(false);
        if !known {
            self.storage
                .keep_component(&hash, &ruleset.info().id, bytes)
                .await?;
            if let Ok(mut kept) = self.kept_components.lock() {
                kept.insert(hash);
            }
        }
        Ok(())
    }

    /// What follows every change that is durably stored, an action or a seat handed over: the
    /// one place to hang what the change owes others. The seats that owe an answer now are in
    /// `change`. It tells the game's subscribers and the other server processes, and wakes the
    /// game's bots.
    pub(super) async fn after_durable_change(
        self: &Arc<Self>,
        game: &Arc<LiveGame>,
        change: &DurableChange,
    ) {
        let (update, payload) = match change.kind {
            ChangeKind::Moved { .. } => (
                Update::Version(change.version),
                format!("{}:{}", game.id(), change.version),
            ),
            ChangeKind::HandedOver { .. } | ChangeKind::TimedOut { .. } => {
                (Update::Seats, format!("{}:seats", game.id()))
            }
        };
        game.publish(update);
        crate::notices::observe(&self.storage, self.now_millis(), game.sighting());
        if matches!(change.kind, ChangeKind::Moved { .. })
            && game.standing().finished
            && let Some(finished) = self.finished.get()
        {
            finished(self.clone(), game.clone());
        }
        if let Err(error) = self.storage.notify(&payload).await {
            tracing::warn!("{error:#}");
        }
        self.bots.schedule(game);
    }

    /// The database.
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The runtime with the loaded rulesets.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    /// The game with this id, loading its setup from storage if it is not in memory.
    pub async fn game(self: &Arc<Self>, id: &str) -> LiveResult<Arc<LiveGame>> {
        if let Some(game) = self.residency.get(id) {
            if !game.owner_stopped() {
                game.touch();
                return Ok(game);
            }
            // An owner that stopped (a bug) is replaced: the game is read back from storage.
            tracing::error!("game {id}: its owner stopped; reloading it");
            self.residency.remove(id);
            self.unloaded(&game);
        }
        let unknown = || GameError::NotFound(format!("there is no game `{id}`"));
        // Ids are short hex strings; anything else cannot name a game.
        if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(unknown());
        }
        let stored = self.storage.game(id).await?.ok_or_else(unknown)?;
        let ruleset = self.pinned_ruleset(&stored).await?;
        let seats = self.storage.seats(id).await?;
        let version = self.storage.version(id).await?;
        let finished = stored.finished_at.is_some();
        let clock = self.clocks.stored(id).await?;
        let game = LiveGame::start(self, stored, ruleset, seats, None, None);
        game.set_clock(clock);
        game.set_standing(Standing {
            version,
            finished,
            waiting_for: Vec::new(),
        });
        let game = self.admit(game)?;
        self.clocks.arm(&game);
        // A game loaded for the first time may be waiting for its bots (after a restart).
        self.bots.schedule(&game);
        Ok(game)
    }

    /// Starts a new game: checks the setup by creating the session, then stores it with the
    /// digests of its host token and invites.
    /// `creator` is the client address that asks, if known: a game played by bots alone is
    /// refused past [`HubConfig::bot_games_per_creator`] of its running games.
    pub async fn create(
        self: &Arc<Self>,
        stored: StoredGame,
        seats: Vec<StoredSeat>,
        credentials: &NewCredentials,
        creator: Option<String>,
    ) -> LiveResult<Arc<LiveGame>> {
        self.create_timed(stored, seats, credentials, creator, None)
            .await
    }

    /// [`Hub::create`] with a table clock (`None`: untimed), stored with the game.
    pub async fn create_timed(
        self: &Arc<Self>,
        stored: StoredGame,
        seats: Vec<StoredSeat>,
        credentials: &NewCredentials,
        creator: Option<String>,
        clock: Option<TableClock>,
    ) -> LiveResult<Arc<LiveGame>> {
        if let Some(creator) = &creator
            && seats.iter().all(|seat| seat.bot.is_some())
        {
            let running = self.residency.running_bot_games(creator);
            let cap = self.config.bot_games_per_creator;
            if running >= cap {
                return Err(GameError::Conflict(format!(
                    "this address already has {running} games played by bots alone running (at \
                     most {cap}); wait for one to end, or take a seat in the next one"
                )));
            }
        }
        // By hash: the version the catalogue offered, even if a newer one was loaded since.
        let ruleset = self
            .runtime
            .ruleset_version(&stored.ruleset_hash)
            .ok_or_else(|| {
                GameError::NotFound(format!("there is no ruleset `{}`", stored.ruleset_id))
            })?;
        self.keep_component(&ruleset).await?;
        let spec_game = stored.clone();
        let spec_ruleset = ruleset.clone();
        let seat_count = seats.len() as u32;
        // Room first: a server at its cap refuses before running or storing anything.
        let evicted = self.residency.make_room_for_one()?;
        for game in evicted {
            self.unloaded(&game);
        }
        // The clocks start with the game: the seats that owe the first answer run from now. A
        // timed game asks them in the same trip that starts it.
        let timed = clock.is_some();
        let (session, pending) = self
            .blocking(move || {
                let mut session = calls::start_session(&spec_ruleset, &spec_game, seat_count)
                    .map_err(|error| match error {
                        SessionError::Setup(error) => GameError::Setup(error.to_string()),
                        SessionError::Rejected(rejection) => {
                            GameError::Setup(rejection.to_string())
                        }
                        other => GameError::from(other),
                    })?;
                let pending = if timed {
                    Some(session.pending().map_err(calls::into_anyhow)?)
                } else {
                    None
                };
                Ok::<_, GameError>((session, pending))
            })
            .await
            .context("starting a game failed")??;
        let clock = match (clock, pending) {
            (Some(clock), Some(pending)) => {
                let now = self.clocks.now_millis();
                Some(clocks::started(clock, now, &seats, &pending))
            }
            _ => None,
        };
        self.storage
            .create_timed_game(
                &stored,
                &seats,
                credentials,
                clock.as_ref().map(clocks::row),
            )
            .await?;
        let game = LiveGame::start(self, stored, ruleset, seats, creator, Some(session));
        game.set_clock(clock);
        game.ask_result(|reply| Command::Standing { reply }).await?;
        self.clocks.arm(&game);
        let game = self.admit(game)?;
        self.bots.schedule(&game);
        Ok(game)
    }
}

/// The first twelve digits of a hash, as the API and logs show versions.
pub fn short_hash(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
