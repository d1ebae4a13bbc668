//! Live games: which games are in memory, how an action gets from a request into the ruleset and
//! onto disk, and how bots and other server processes move games along.
//!
//! A game in memory is a [`LiveGame`]: its stored setup and seats plus, while it is in use, the
//! running [`Session`]. All ruleset calls (WebAssembly) run on the blocking thread pool through
//! `spawn_blocking`, never on the async reactor; a game's session is guarded by an async mutex, so
//! one game's calls run one at a time while any number of games run side by side. Idle sessions
//! are dropped and rebuilt on next use from the newest snapshot plus the actions after it.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use anyhow::Context as _;
use sdk::{Action, BoardPart, Event, GameResult, PendingDecision, PreviewNote, Seat, Viewer};
use tokio::sync::broadcast;

use super::error::{AppError, AppResult};
use super::fair::FairSlots;
use super::ruleset_calls::{self as calls, LoadedRuleset, Runtime, Session};
use super::slots::CallSlots;
use super::storage::{
    DatabaseKind, Insert, NewCredentials, Queued, Storage, StoredAction, StoredGame, StoredSeat,
    WriteQueue, now_millis,
};
use tenka_game::bots::Bot;
use tenka_game::session::Applied;

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

/// The state of one game that only its session lock holder may touch.
struct GameState {
    /// The running game; `None` while evicted or after a fault (rebuilt on next use).
    session: Option<Session>,
    /// The number of stored actions the session has applied.
    version: u64,
    /// The bots playing seats of this game, each with its own random stream.
    bots: HashMap<Seat, Box<dyn Bot>>,
    /// Since when each seat's pending decision has been what it is now, so an answer to it is
    /// not refused as stale because other seats moved meanwhile.
    decisions: DecisionAges,
}

/// Since which version each seat's pending decision has been unchanged.
///
/// A client answers the decision it saw at some version. Other seats' independent steps (bots
/// placing at the same time, say) move the game's version on without touching that decision;
/// the answer is still an answer to the decision pending now, so it is accepted. It is stale
/// only when the seat's own decision changed after the version the client saw: the seat acted,
/// the decision went away and came back, or its content (prompt, choices, bounds) changed.
#[derive(Default)]
struct DecisionAges {
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

/// Sets the public standing from the decisions `game` is waiting for at `version`; true if that
/// finished a game the summary had as running.
fn summarize(game: &LiveGame, version: u64, pending: &[PendingDecision]) -> bool {
    let over = pending.is_empty();
    let mut waiting_for: Vec<Seat> = pending.iter().map(|decision| decision.seat).collect();
    waiting_for.sort_unstable();
    waiting_for.dedup();
    let was_finished = game.standing().finished;
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
    stored: anyhow::Result<Queued<Insert>>,
    pending: Result<Vec<PendingDecision>, tenka_game::session::SessionError>,
    snapshot: Option<anyhow::Result<Vec<u8>>>,
}

/// Where and as what an applied action is stored.
struct ActionWrite {
    queue: WriteQueue,
    game_id: String,
    seq: u64,
    seat: Seat,
    action_json: String,
}

impl ActionWrite {
    /// Queues the action with what it produced.
    fn queue(self, applied: &Applied, ends_game: bool) -> anyhow::Result<Queued<Insert>> {
        let record = StoredAction {
            seq: self.seq,
            seat: self.seat,
            action_json: self.action_json,
            events_json: serde_json::to_string(&applied.events)
                .context("failed to encode events")?,
            tower_json: serde_json::to_string(&calls::tower_log(&applied.tower))
                .context("failed to encode tower drops")?,
        };
        self.queue.queue_action(&self.game_id, record, ends_game)
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
        write: ActionWrite,
        snapshot_every: u64,
    ) -> AfterApply {
        let version = write.seq;
        let seat = write.seat;
        let pending = session.pending();
        let ends_game = matches!(&pending, Ok(decisions) if decisions.is_empty());
        let stored = write.queue(applied, ends_game);
        let snapshot = version
            .is_multiple_of(snapshot_every.max(1))
            .then(|| calls::snapshot(session));
        if ends_game && let Err(error) = session.park() {
            tracing::warn!("a finished game stays running: parking failed: {error}");
        }
        AfterApply {
            seat,
            stored,
            pending,
            snapshot,
        }
    }
}

/// How long the parker waits when every game it could park was in use.
const PARK_RETRY: Duration = Duration::from_millis(10);

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
    state: tokio::sync::Mutex<GameState>,
    updates: broadcast::Sender<Update>,
    views: Mutex<HashMap<Viewer, Arc<ViewData>>>,
    /// Boards of a finished game after a given number of actions, by viewer.
    past_boards: Mutex<HashMap<(Viewer, u64), Arc<ViewData>>>,
    bots: Mutex<BotSchedule>,
    last_used: AtomicI64,
    /// Whether the session was last seen holding an instance: a hint for choosing what to
    /// park, checked under the state lock before parking.
    running: AtomicBool,
    /// Who created the game (a client address), while this process knows it: the key its bots
    /// take their turns under. A game loaded from storage has none and takes turns as itself.
    creator: Option<String>,
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

    fn new(
        stored: StoredGame,
        ruleset: Arc<LoadedRuleset>,
        seats: Vec<StoredSeat>,
        creator: Option<String>,
    ) -> LiveGame {
        LiveGame {
            creator,
            stored,
            ruleset,
            seats: RwLock::new(seats),
            standing: RwLock::new(Standing::default()),
            state: tokio::sync::Mutex::new(GameState {
                session: None,
                version: 0,
                bots: HashMap::new(),
                decisions: DecisionAges::default(),
            }),
            updates: broadcast::channel(64).0,
            views: Mutex::new(HashMap::new()),
            past_boards: Mutex::new(HashMap::new()),
            bots: Mutex::new(BotSchedule::default()),
            last_used: AtomicI64::new(now_millis()),
            running: AtomicBool::new(false),
        }
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

/// All games of one server process.
pub struct Hub {
    storage: Storage,
    runtime: Arc<Runtime>,
    config: HubConfig,
    games: Mutex<HashMap<String, Arc<LiveGame>>>,
    /// The component hashes this process has made sure are kept in the database.
    kept_components: Mutex<HashSet<String>>,
    /// Slots for ruleset calls on the blocking pool ([`HubConfig::ruleset_calls`]).
    calls: CallSlots,
    /// Slots for bots thinking ([`HubConfig::bot_moves`]), handed out in turn by creator.
    bot_moves: Arc<FairSlots>,
    /// Bytes held by every game's cached views and past boards.
    cached_bytes: AtomicUsize,
    /// Catalogues by (ruleset hash, language): a catalogue never changes within a version.
    catalogues: Mutex<HashMap<(String, String), Catalogue>>,
    /// The hub itself, for the parking task a crowded runtime starts.
    myself: Weak<Hub>,
    /// A parking task is running.
    parking: AtomicBool,
    /// How many games are marked running (`LiveGame::running`).
    running_games: AtomicUsize,
}

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
        Arc::new_cyclic(|myself| Hub {
            myself: myself.clone(),
            parking: AtomicBool::new(false),
            running_games: AtomicUsize::new(0),
            storage,
            runtime,
            calls: CallSlots::new(config.ruleset_calls),
            bot_moves: FairSlots::new(config.bot_moves),
            config,
            games: Mutex::new(HashMap::new()),
            kept_components: Mutex::new(HashSet::new()),
            cached_bytes: AtomicUsize::new(0),
            catalogues: Mutex::new(HashMap::new()),
        })
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

    /// Runs `work` with the session on the blocking pool and gives the session back. A panic
    /// inside the ruleset glue loses the session (it is rebuilt from storage on next use), never
    /// the server.
    async fn with_session<T: Send + 'static>(
        &self,
        game: &LiveGame,
        state: &mut GameState,
        work: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> anyhow::Result<T> {
        let mut session = state.session.take().context("the game is not loaded")?;
        let (session, output) = self
            .blocking(move || {
                let output = work(&mut session);
                (session, output)
            })
            .await?;
        self.put_back(game, state, session);
        Ok(output)
    }

    /// Gives a session back to its game after a call on the blocking pool, which may have
    /// restored a parked one (counted as running again, it can be parked again) or parked a
    /// running one (a finished game's).
    fn put_back(&self, game: &LiveGame, state: &mut GameState, session: Session) {
        let running = !session.is_parked();
        state.session = Some(session);
        if running {
            self.note_running(game);
        } else {
            self.note_stopped(game);
        }
    }

    /// Marks a game's session as holding an instance and, when more games run than
    /// [`HubConfig::max_running_games`], starts parking the least recently used.
    fn note_running(&self, game: &LiveGame) {
        // Read first: on every call the game is usually marked already, and a read does not
        // take the cache line from the other cores.
        if !game.running.load(Ordering::Relaxed) && !game.running.swap(true, Ordering::Relaxed) {
            self.running_games.fetch_add(1, Ordering::Relaxed);
        }
        if !self.crowded() || self.parking.swap(true, Ordering::AcqRel) {
            return;
        }
        let myself = self.myself.clone();
        tokio::spawn(async move {
            // Weak between rounds, so a hub being shut down is not kept alive by its parker.
            while let Some(hub) = myself.upgrade() {
                let parked = hub.park_least_recent().await;
                if !hub.crowded() {
                    hub.parking.store(false, Ordering::Release);
                    // A game counted between the look and the release started no round.
                    if !hub.crowded() || hub.parking.swap(true, Ordering::AcqRel) {
                        return;
                    }
                }
                drop(hub);
                if parked == 0 {
                    // Every candidate was in use; their calls end soon.
                    tokio::time::sleep(PARK_RETRY).await;
                }
            }
        });
    }

    /// Whether more games are counted running than [`HubConfig::max_running_games`].
    fn crowded(&self) -> bool {
        self.running_games.load(Ordering::Relaxed) > self.config.max_running_games
    }

    /// Lets go of what a game taken out of memory held: its cached views and its place among
    /// the running games.
    fn unloaded(&self, game: &LiveGame) {
        self.forget_views(game);
        self.note_stopped(game);
    }

    /// Marks a game's session as holding no instance (parked, dropped or unloaded).
    fn note_stopped(&self, game: &LiveGame) {
        if game.running.swap(false, Ordering::Relaxed) {
            self.running_games.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Parks the sessions of the least recently used running games until an eighth of
    /// [`HubConfig::max_running_games`] is free again, so the scan over all games runs once
    /// per that many loads, not for each. A game in use (its state locked) is skipped for the
    /// next least recent: it is not idle. Returns how many games stopped counting as running.
    async fn park_least_recent(&self) -> usize {
        let cap = self.config.max_running_games.max(1);
        let target = cap - cap / 8;
        let mut running: Vec<(i64, Arc<LiveGame>)> = match self.games.lock() {
            Ok(games) => games
                .values()
                .filter(|game| game.running.load(Ordering::Relaxed))
                .map(|game| (game.last_used.load(Ordering::Relaxed), game.clone()))
                .collect(),
            Err(_) => return 0,
        };
        // The count follows the games in the table: one unloaded while in use, marked running
        // again by the call that held it, is no longer counted.
        self.running_games.store(running.len(), Ordering::Relaxed);
        let excess = running.len().saturating_sub(target);
        running.sort_unstable_by_key(|(last_used, _)| *last_used);
        let mut stopped = 0;
        for (_, game) in running {
            if stopped == excess {
                break;
            }
            let Ok(mut state) = game.state.try_lock() else {
                continue;
            };
            if let Some(mut session) = state.session.take() {
                let parked = self
                    .blocking(move || {
                        let parked = session.park();
                        (session, parked)
                    })
                    .await;
                match parked {
                    Ok((session, Ok(()))) => state.session = Some(session),
                    // The session is dropped: it is rebuilt from storage on next use.
                    Ok((_, Err(error))) => {
                        tracing::warn!("game {}: parking failed: {error}", game.id())
                    }
                    Err(error) => tracing::warn!("game {}: parking failed: {error:#}", game.id()),
                }
            }
            self.note_stopped(&game);
            stopped += 1;
        }
        stopped
    }

    /// A ruleset version's catalogue in `language`, asked of the ruleset once per version and
    /// language. Languages the ruleset does not list get an empty catalogue without running it.
    pub async fn catalogue(
        &self,
        ruleset: &Arc<LoadedRuleset>,
        language: &str,
    ) -> AppResult<Catalogue> {
        if !is_language_tag(language) {
            return Err(AppError::BadRequest(format!(
                "`{}` is not a language tag",
                language.chars().take(32).collect::<String>()
            )));
        }
        if !ruleset
            .info()
            .languages
            .iter()
            .any(|listed| listed == language)
        {
            return Ok(Arc::new(Vec::new()));
        }
        let key = (ruleset.hash().0, language.to_owned());
        if let Some(found) = self
            .catalogues
            .lock()
            .ok()
            .and_then(|cached| cached.get(&key).cloned())
        {
            return Ok(found);
        }
        let asked = ruleset.clone();
        let language = key.1.clone();
        let pairs = Arc::new(
            self.blocking(move || calls::catalogue(&asked, &language))
                .await?,
        );
        if let Ok(mut cached) = self.catalogues.lock() {
            cached.insert(key, pairs.clone());
        }
        Ok(pairs)
    }

    /// Keeps `view` in `game`'s cache of current views if the byte budget allows, replacing the
    /// viewer's older one and dropping views of older versions.
    fn cache_view(&self, game: &LiveGame, viewer: Viewer, view: &Arc<ViewData>) {
        let Ok(mut views) = game.views.lock() else {
            return;
        };
        let mut freed = 0;
        views.retain(|cached_viewer, cached| {
            let keep = cached.version == view.version && *cached_viewer != viewer;
            if !keep {
                freed += cached.bytes;
            }
            keep
        });
        self.cached_bytes.fetch_sub(freed, Ordering::Relaxed);
        if self.reserve_cache(view.bytes) {
            views.insert(viewer, view.clone());
        }
    }

    /// Counts `bytes` against the cache budget; false (nothing counted) when they do not fit.
    fn reserve_cache(&self, bytes: usize) -> bool {
        self.cached_bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                (held + bytes <= self.config.view_cache_bytes).then_some(held + bytes)
            })
            .is_ok()
    }

    /// Drops every cached view and past board of `game`, giving their bytes back.
    fn forget_views(&self, game: &LiveGame) {
        let mut freed = 0;
        if let Ok(mut views) = game.views.lock() {
            freed += views.values().map(|view| view.bytes).sum::<usize>();
            views.clear();
        }
        if let Ok(mut past) = game.past_boards.lock() {
            freed += past.values().map(|view| view.bytes).sum::<usize>();
            past.clear();
        }
        self.cached_bytes.fetch_sub(freed, Ordering::Relaxed);
    }

    /// The bytes cached views and past boards hold now.
    pub fn cached_view_bytes(&self) -> usize {
        self.cached_bytes.load(Ordering::Relaxed)
    }

    /// Adds a game to the table of games in memory, making room first. Another task may have
    /// added the same game meanwhile: that one wins.
    fn admit(&self, game: Arc<LiveGame>) -> AppResult<Arc<LiveGame>> {
        let (admitted, evicted) = {
            let mut games = self
                .games
                .lock()
                .map_err(|_| anyhow::anyhow!("the game table is poisoned"))?;
            if let Some(existing) = games.get(game.id()) {
                return Ok(existing.clone());
            }
            let evicted = self.make_room(&mut games)?;
            games.insert(game.id().to_owned(), game.clone());
            (game, evicted)
        };
        for game in evicted {
            self.unloaded(&game);
        }
        Ok(admitted)
    }

    /// Unloads the least recently used games nobody watches until one more fits under
    /// [`HubConfig::max_live_games`], and a sixty-fourth of it more while at it, so that at the
    /// cap the scan over every game in memory (under the table's lock) runs once per that many
    /// new games rather than for each; busy when every game in memory is in use.
    fn make_room(
        &self,
        games: &mut HashMap<String, Arc<LiveGame>>,
    ) -> AppResult<Vec<Arc<LiveGame>>> {
        let cap = self.config.max_live_games.max(1);
        if games.len() < cap {
            return Ok(Vec::new());
        }
        // Borrowed ids: this runs over every game in memory.
        let mut idle: Vec<(i64, &String)> = games
            .iter()
            .filter(|(_, live)| live.unloadable())
            .map(|(id, live)| (live.last_used.load(Ordering::Relaxed), id))
            .collect();
        let excess = games.len() + 1 - cap;
        // Refuse before unloading anything: a game taken out of the table here would otherwise
        // leave with its cached views still counted against the budget.
        if idle.len() < excess {
            return Err(AppError::Busy(
                "the server holds as many games as it may right now; try again in a minute"
                    .to_owned(),
            ));
        }
        let unloading = (excess + cap / 64).min(idle.len());
        // Only the least recently used matter: select them instead of sorting all.
        if unloading < idle.len() {
            idle.select_nth_unstable(unloading - 1);
            idle.truncate(unloading);
        }
        let unload: Vec<String> = idle.into_iter().map(|(_, id)| id.clone()).collect();
        Ok(unload
            .into_iter()
            .filter_map(|id| games.remove(&id))
            .collect())
    }

    /// How many games are in memory.
    pub fn live_games(&self) -> usize {
        self.games.lock().map_or(0, |games| games.len())
    }

    /// Whether game `id` is in memory (evicting it made its next request read it back).
    pub fn in_memory(&self, id: &str) -> bool {
        self.games.lock().is_ok_and(|games| games.contains_key(id))
    }

    /// The exact ruleset version a stored game was started on: loaded already, or read back
    /// from the components the database keeps (after its file was replaced or the server
    /// restarted with a newer one).
    async fn pinned_ruleset(&self, stored: &StoredGame) -> AppResult<Arc<LoadedRuleset>> {
        if let Some(ruleset) = self.runtime.ruleset_version(&stored.ruleset_hash) {
            return Ok(ruleset);
        }
        let unavailable = || {
            AppError::Unavailable(format!(
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
    async fn keep_component(&self, ruleset: &LoadedRuleset) -> AppResult<()> {
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

    /// The database.
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The runtime with the loaded rulesets.
    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    /// The game with this id, loading its setup from storage if it is not in memory.
    pub async fn game(self: &Arc<Self>, id: &str) -> AppResult<Arc<LiveGame>> {
        if let Some(game) = self
            .games
            .lock()
            .ok()
            .and_then(|games| games.get(id).cloned())
        {
            game.touch();
            return Ok(game);
        }
        let unknown = || AppError::NotFound(format!("there is no game `{id}`"));
        // Ids are short hex strings; anything else cannot name a game.
        if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(unknown());
        }
        let stored = self.storage.game(id).await?.ok_or_else(unknown)?;
        let ruleset = self.pinned_ruleset(&stored).await?;
        let seats = self.storage.seats(id).await?;
        let version = self.storage.version(id).await?;
        let finished = stored.finished_at.is_some();
        let game = LiveGame::new(stored, ruleset, seats, None);
        game.set_standing(Standing {
            version,
            finished,
            waiting_for: Vec::new(),
        });
        let game = self.admit(Arc::new(game))?;
        // A game loaded for the first time may be waiting for its bots (after a restart).
        self.schedule_bots(&game);
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
    ) -> AppResult<Arc<LiveGame>> {
        if let Some(creator) = &creator
            && seats.iter().all(|seat| seat.bot.is_some())
        {
            let running = self.running_bot_games(creator);
            let cap = self.config.bot_games_per_creator;
            if running >= cap {
                return Err(AppError::Conflict(format!(
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
                AppError::NotFound(format!("there is no ruleset `{}`", stored.ruleset_id))
            })?;
        self.keep_component(&ruleset).await?;
        let spec_game = stored.clone();
        let spec_ruleset = ruleset.clone();
        let seat_count = seats.len() as u32;
        // Room first: a server at its cap refuses before running or storing anything.
        let evicted = {
            let mut games = self
                .games
                .lock()
                .map_err(|_| anyhow::anyhow!("the game table is poisoned"))?;
            self.make_room(&mut games)?
        };
        for game in evicted {
            self.unloaded(&game);
        }
        let session = self
            .blocking(move || calls::start(&spec_ruleset, &spec_game, seat_count))
            .await
            .context("starting a game failed")??;
        self.storage
            .create_game_with(&stored, &seats, credentials)
            .await?;
        let game = Arc::new(LiveGame::new(stored, ruleset, seats, creator));
        {
            let mut state = game.state.lock().await;
            state.session = Some(session);
            self.refresh_standing(&game, &mut state).await?;
        }
        let game = self.admit(game)?;
        self.schedule_bots(&game);
        Ok(game)
    }

    /// How many games played by bots alone that `creator` started are in memory and running.
    fn running_bot_games(&self, creator: &str) -> usize {
        self.games.lock().map_or(0, |games| {
            games
                .values()
                .filter(|game| game.creator.as_deref() == Some(creator))
                .filter(|game| !game.standing().finished && game.bots_only())
                .count()
        })
    }

    /// Makes sure the session is in memory and up to date with storage.
    async fn ensure_loaded(&self, game: &LiveGame, state: &mut GameState) -> anyhow::Result<()> {
        if state.session.is_none() {
            // Every action: those up to the snapshot are the restored session's history (a
            // snapshot holds none), those after it are replayed.
            let snapshot = self.storage.latest_snapshot(game.id()).await?;
            let from = snapshot.as_ref().map_or(0, |(seq, _)| *seq);
            let mut actions = self.storage.actions_since(game.id(), 0).await?;
            let after = actions.split_off(actions.partition_point(|a| a.seq <= from));
            let ruleset = game.ruleset.clone();
            let stored = game.stored.clone();
            let seat_count = game.seats().len() as u32;
            let (session, version) = self
                .blocking(move || {
                    let mut session = match snapshot {
                        Some((_, bytes)) => {
                            calls::restore(&ruleset, &stored, seat_count, &bytes, &actions)?
                        }
                        None => calls::start_session(&ruleset, &stored, seat_count)
                            .map_err(calls::into_anyhow)?,
                    };
                    let mut version = from;
                    for action in &after {
                        calls::replay_action(&mut session, action)?;
                        version = action.seq;
                    }
                    anyhow::Ok((session, version))
                })
                .await
                .context("loading a game failed")?
                .with_context(|| format!("failed to load game {}", game.id()))?;
            state.session = Some(session);
            state.version = version;
            // Who is waiting is known only once the game runs.
            self.refresh_standing(game, state).await?;
        } else if self.storage.kind() == DatabaseKind::Postgres {
            // Other processes may have moved the game on; one process on SQLite never needs to.
            self.catch_up(game, state).await?;
        }
        Ok(())
    }

    /// Applies the actions another process stored since the session's version.
    async fn catch_up(&self, game: &LiveGame, state: &mut GameState) -> anyhow::Result<bool> {
        let actions = self.storage.actions_since(game.id(), state.version).await?;
        if actions.is_empty() {
            return Ok(false);
        }
        let last = actions.last().map_or(state.version, |action| action.seq);
        let replayed = self
            .with_session(game, state, move |session| {
                actions
                    .iter()
                    .try_for_each(|action| calls::replay_action(session, action))
            })
            .await;
        match replayed {
            Ok(Ok(())) => {
                state.version = last;
                // Whoever noticed first, the standing and the subscribers learn of it now.
                self.refresh_standing(game, state).await?;
                game.publish(Update::Version(last));
                Ok(true)
            }
            Ok(Err(error)) | Err(error) => {
                state.session = None;
                Err(error)
            }
        }
    }

    /// Recomputes the public standing after a change.
    async fn refresh_standing(&self, game: &LiveGame, state: &mut GameState) -> anyhow::Result<()> {
        let pending = self
            .with_session(game, state, |session| session.pending())
            .await?
            .map_err(calls::into_anyhow)?;
        state.decisions.update(state.version, &pending, None);
        if summarize(game, state.version, &pending) {
            // The action that ended it marked the game finished when it was stored; a game
            // stored by an older version of the server may have missed that second write.
            self.storage.mark_finished(game.id()).await?;
        }
        Ok(())
    }

    /// Applies one seat's action against `expected` version, stores it, and tells everyone.
    ///
    /// The move runs in a task of its own, so it runs to its end even when the request that
    /// asked for it is dropped (the client gone): an action applied is queued for storage from
    /// the blocking pool, and once stored it must also be published and its bots woken.
    pub async fn submit(
        self: &Arc<Self>,
        game: &Arc<LiveGame>,
        seat: Seat,
        expected: u64,
        action: Action,
    ) -> AppResult<Submitted> {
        let (hub, game) = (self.clone(), game.clone());
        tokio::spawn(async move { hub.submit_to_the_end(&game, seat, expected, action).await })
            .await
            .map_err(|error| anyhow::anyhow!("a move stopped halfway: {error}"))?
    }

    /// [`Hub::submit`], in its own task.
    async fn submit_to_the_end(
        self: &Arc<Self>,
        game: &Arc<LiveGame>,
        seat: Seat,
        expected: u64,
        action: Action,
    ) -> AppResult<Submitted> {
        let mut state = game.state.lock().await;
        self.ensure_loaded(game, &mut state).await?;
        if expected != state.version
            && !state
                .decisions
                .answers_current(seat, expected, state.version)
        {
            return Err(AppError::Stale {
                version: state.version,
            });
        }
        let submitted = self.apply_locked(game, &mut state, seat, action).await?;
        drop(state);
        self.after_change(game, submitted.version).await;
        Ok(submitted)
    }

    /// What `action` would do if `seat` sent it now ([`Session::preview`]); changes nothing.
    pub async fn preview(
        &self,
        game: &Arc<LiveGame>,
        seat: Seat,
        action: Action,
    ) -> AppResult<Vec<PreviewNote>> {
        let mut state = game.state.lock().await;
        self.ensure_loaded(game, &mut state).await?;
        let previewed = self
            .with_session(game, &mut state, move |session| {
                session.preview(seat, &action)
            })
            .await?;
        // A read, like a view: a failed call was already recovered inside the session.
        previewed.map_err(|error| calls::classify(error).0)
    }

    /// The heart of every change: apply in the ruleset, store, then publish. The caller holds the
    /// game's lock and has loaded the session.
    async fn apply_locked(
        &self,
        game: &Arc<LiveGame>,
        state: &mut GameState,
        seat: Seat,
        action: Action,
    ) -> AppResult<Submitted> {
        let write = ActionWrite {
            queue: self.storage.write_queue(),
            game_id: game.id().to_owned(),
            seq: state.version + 1,
            seat,
            action_json: serde_json::to_string(&action).context("failed to encode an action")?,
        };
        let every = self.config.snapshot_every;
        // One trip to the blocking pool per move: the action, its write queued, then what the
        // game asks next and (every few actions) a snapshot, while the session is at hand.
        let applied = self
            .with_session(game, state, move |session| {
                let applied = session.apply(seat, &action)?;
                let after = AfterApply::of(session, &applied, write, every);
                Ok::<_, tenka_game::session::SessionError>((applied, after))
            })
            .await?;
        let applied = match applied {
            Ok(applied) => applied,
            Err(error) => {
                let (error, keep_session) = calls::classify(error);
                if !keep_session {
                    // A trap may leave the ruleset's memory half-written: rebuild from storage.
                    state.session = None;
                }
                return Err(error);
            }
        };
        self.commit(game, state, applied).await
    }

    /// Waits for an action the session has just applied to be stored; on a lost race or a failed
    /// write the session (which ran ahead of storage) is dropped and rebuilt from what is stored.
    ///
    /// The caller holds the game's lock until this returns, so nothing reads the session's
    /// new state (no view, no other move) before the action is durable or the session dropped.
    async fn commit(
        &self,
        game: &Arc<LiveGame>,
        state: &mut GameState,
        (applied, after): (Applied, AfterApply),
    ) -> AppResult<Submitted> {
        let seq = state.version + 1;
        let inserted = match after.stored {
            Ok(queued) => queued.durable().await,
            Err(error) => Err(error),
        };
        match inserted {
            Ok(Insert::Stored) => {}
            Ok(Insert::Conflict) => {
                // Another process took this version first: our session ran ahead of storage.
                state.session = None;
                self.ensure_loaded(game, state).await?;
                self.refresh_standing(game, state).await?;
                return Err(AppError::Stale {
                    version: state.version,
                });
            }
            Err(error) => {
                state.session = None;
                return Err(error.into());
            }
        }
        state.version = seq;
        match after.snapshot {
            Some(Ok(bytes)) => {
                // Stored in the background: a snapshot only makes loading faster, and it is
                // of a version that is durable already.
                let storage = self.storage.clone();
                let id = game.id().to_owned();
                tokio::spawn(async move {
                    if let Err(error) = storage.save_snapshot(&id, seq, &bytes).await {
                        tracing::warn!("game {id}: {error:#}");
                    }
                });
            }
            Some(Err(error)) => tracing::warn!("game {}: no snapshot: {error:#}", game.id()),
            None => {}
        }
        // The action is stored (an action that ended the game marked it finished in the same
        // commit): from here on the move stands, whatever fails. A ruleset failing to say what
        // the game waits for next is logged, the session is rebuilt from storage on next use,
        // and the mover still hears "accepted".
        if let Err(error) = after.pending.map(|pending| {
            state.decisions.update(seq, &pending, Some(after.seat));
            summarize(game, seq, &pending)
        }) {
            let error = calls::into_anyhow(error);
            tracing::warn!("game {}: after storing action {seq}: {error:#}", game.id());
            state.session = None;
            let mut standing = game.standing();
            standing.version = seq;
            game.set_standing(standing);
        }
        Ok(Submitted {
            version: seq,
            events: applied.events,
        })
    }

    /// Publishes a change locally and to other processes, and wakes the bots.
    async fn after_change(self: &Arc<Self>, game: &Arc<LiveGame>, version: u64) {
        game.publish(Update::Version(version));
        if let Err(error) = self
            .storage
            .notify(&format!("{}:{version}", game.id()))
            .await
        {
            tracing::warn!("{error:#}");
        }
        self.schedule_bots(game);
    }

    /// What `viewer` sees now.
    pub async fn view(&self, game: &Arc<LiveGame>, viewer: Viewer) -> AppResult<Arc<ViewData>> {
        let mut version = game.standing().version;
        if self.storage.kind() == DatabaseKind::Postgres {
            // Another process may have moved the game on and its notification may have been
            // lost (a listener reconnecting misses what was sent meanwhile): the database, not
            // the standing, says which version is current. Loading below catches up.
            version = version.max(self.storage.version(game.id()).await?);
        }
        if let Some(view) = game.cached_view(viewer, version) {
            return Ok(view);
        }
        let mut state = game.state.lock().await;
        self.ensure_loaded(game, &mut state).await?;
        let version = state.version;
        // Computed once per viewer and version: a request that waited for the lock while
        // another computed this very view takes that one.
        if let Some(view) = game.cached_view(viewer, version) {
            return Ok(view);
        }
        let computed = self
            .with_session(game, &mut state, move |session| {
                let pending: Vec<PendingDecision> = session
                    .pending()?
                    .into_iter()
                    .filter(|decision| viewer.is(decision.seat))
                    .collect();
                let state = session.view(viewer)?;
                let parts = session.render(viewer)?;
                let result = session.result()?;
                Ok::<_, tenka_game::session::SessionError>((pending, state, parts, result))
            })
            .await?;
        let (pending, state_json, parts, result) = match computed {
            Ok(computed) => computed,
            Err(error) => return Err(calls::classify(error).0),
        };
        let view = Arc::new(ViewData::new(version, pending, state_json, parts, result));
        self.cache_view(game, viewer, &view);
        Ok(view)
    }

    /// The board and view as `viewer` saw them after the first `at` actions, for the replay
    /// viewer. Only for finished games: by then every secret is out, and a running game's past
    /// could still hide something its present does not (a plan not yet played).
    pub async fn view_at(
        &self,
        game: &Arc<LiveGame>,
        viewer: Viewer,
        at: u64,
    ) -> AppResult<Arc<ViewData>> {
        if let Some(board) = game
            .past_boards
            .lock()
            .ok()
            .and_then(|past| past.get(&(viewer, at)).cloned())
        {
            return Ok(board);
        }
        // Under the game's lock only long enough to copy what the replay needs: the replay itself
        // runs on a session of its own, so the live game stays free meanwhile.
        let (spec, replayed) = {
            let mut state = game.state.lock().await;
            self.ensure_loaded(game, &mut state).await?;
            if !game.standing().finished {
                return Err(AppError::Forbidden(
                    "past boards are shown once the game is over".to_owned(),
                ));
            }
            let session = state.session.as_ref().context("the game is not loaded")?;
            let Some(replayed) = session.actions().get(..at as usize) else {
                return Err(AppError::BadRequest(format!(
                    "the game has no version {at}"
                )));
            };
            (session.spec().clone(), replayed.to_vec())
        };
        let ruleset = game.ruleset.clone();
        let computed = self
            .blocking(move || {
                let mut past = Session::new(ruleset, spec)?;
                for recorded in &replayed {
                    past.apply(recorded.seat, &recorded.action)?;
                }
                Ok::<_, tenka_game::session::SessionError>((
                    past.view(viewer)?,
                    past.render(viewer)?,
                ))
            })
            .await?;
        let (state_json, parts) = computed.map_err(|error| calls::classify(error).0)?;
        let board = Arc::new(ViewData::new(at, Vec::new(), state_json, parts, None));
        if let Ok(mut past) = game.past_boards.lock()
            && past.len() < PAST_BOARDS_KEPT
            && self.reserve_cache(board.bytes)
        {
            past.insert((viewer, at), board.clone());
        }
        Ok(board)
    }

    /// The game's full record; only for finished games (it holds every secret, the seed too).
    pub async fn record(&self, game: &Arc<LiveGame>) -> AppResult<serde_json::Value> {
        let mut state = game.state.lock().await;
        self.ensure_loaded(game, &mut state).await?;
        let over = game.standing().finished;
        if !over {
            return Err(AppError::Forbidden(
                "the record of a running game would reveal its secrets; it is available when the game ends".to_owned(),
            ));
        }
        let record = self
            .with_session(game, &mut state, |session| session.record())
            .await?
            .map_err(|error| calls::classify(error).0)?;
        Ok(serde_json::to_value(&record).context("failed to encode a record")?)
    }

    /// Hands a seat to a bot or back to its person.
    pub async fn set_bot(
        self: &Arc<Self>,
        game: &Arc<LiveGame>,
        seat: Seat,
        bot: Option<String>,
    ) -> AppResult<()> {
        self.storage
            .set_seat_bot(game.id(), seat, bot.as_deref())
            .await?;
        if let Ok(mut seats) = game.seats.write()
            && let Some(stored) = seats.iter_mut().find(|stored| stored.seat == seat)
        {
            stored.bot = bot;
        }
        self.seats_changed(game).await;
        Ok(())
    }

    /// Reads a game's seats again after the database changed them (a seat claimed, an invite
    /// exchanged, a seat reopened), so a replaced token stops working at once, and tells the
    /// game's subscribers and the other server processes.
    pub async fn reload_seats(self: &Arc<Self>, game: &Arc<LiveGame>) -> AppResult<()> {
        let seats = self.storage.seats(game.id()).await?;
        if let Ok(mut current) = game.seats.write() {
            *current = seats;
        }
        self.seats_changed(game).await;
        Ok(())
    }

    async fn seats_changed(self: &Arc<Self>, game: &Arc<LiveGame>) {
        game.publish(Update::Seats);
        if let Err(error) = self.storage.notify(&format!("{}:seats", game.id())).await {
            tracing::warn!("{error:#}");
        }
        self.schedule_bots(game);
    }

    /// Another process changed a game: catch up if it is in memory and tell its subscribers.
    pub async fn remote_change(self: &Arc<Self>, payload: &str) {
        let Some((id, what)) = payload.split_once(':') else {
            return;
        };
        let Some(game) = self
            .games
            .lock()
            .ok()
            .and_then(|games| games.get(id).cloned())
        else {
            return;
        };
        if what == "seats" {
            match self.storage.seats(id).await {
                Ok(seats) => {
                    if let Ok(mut current) = game.seats.write() {
                        *current = seats;
                    }
                    game.publish(Update::Seats);
                }
                Err(error) => tracing::warn!("game {id}: {error:#}"),
            }
            return;
        }
        let Ok(seq) = what.parse::<u64>() else { return };
        let mut state = game.state.lock().await;
        if state.version >= seq && state.session.is_some() {
            return;
        }
        let result = if state.session.is_some() {
            self.catch_up(&game, &mut state).await.map(|_| ())
        } else {
            // Not loaded: only the public standing needs the new version.
            self.storage.version(id).await.map(|version| {
                let mut standing = game.standing();
                standing.version = version;
                game.set_standing(standing);
            })
        };
        let result = match result {
            Ok(()) if state.session.is_some() => self.refresh_standing(&game, &mut state).await,
            other => other,
        };
        let version = game.standing().version;
        drop(state);
        match result {
            Ok(()) => game.publish(Update::Version(version)),
            Err(error) => tracing::warn!("game {id}: failed to catch up: {error:#}"),
        }
    }

    /// Catches every game in memory up with the database: what a change listener does after it
    /// reconnected, since the notifications sent meanwhile are lost.
    pub async fn resync(self: &Arc<Self>) {
        let games: Vec<Arc<LiveGame>> = match self.games.lock() {
            Ok(games) => games.values().cloned().collect(),
            Err(_) => return,
        };
        for game in games {
            self.remote_change(&format!("{}:seats", game.id())).await;
            match self.storage.version(game.id()).await {
                Ok(stored) if stored > game.standing().version => {
                    self.remote_change(&format!("{}:{stored}", game.id())).await;
                }
                Ok(_) => {}
                Err(error) => tracing::warn!("game {}: {error:#}", game.id()),
            }
        }
    }

    /// Lets the game's bots act, one task per game at a time, after the configured pace.
    pub fn schedule_bots(self: &Arc<Self>, game: &Arc<LiveGame>) {
        let standing = game.standing();
        if standing.finished {
            return;
        }
        {
            let Ok(mut schedule) = game.bots.lock() else {
                return;
            };
            schedule.dirty = true;
            if schedule.running {
                return;
            }
            schedule.running = true;
        }
        let hub = self.clone();
        let game = game.clone();
        tokio::spawn(async move {
            loop {
                if let Ok(mut schedule) = game.bots.lock() {
                    schedule.dirty = false;
                }
                hub.run_bots(&game).await;
                let Ok(mut schedule) = game.bots.lock() else {
                    return;
                };
                if !schedule.dirty {
                    schedule.running = false;
                    return;
                }
            }
        });
    }

    /// Plays bot moves while a bot seat has a pending decision.
    async fn run_bots(self: &Arc<Self>, game: &Arc<LiveGame>) {
        loop {
            let bots: HashMap<Seat, String> = game
                .seats()
                .into_iter()
                .filter_map(|seat| seat.bot.map(|bot| (seat.seat, bot)))
                .collect();
            let standing = game.standing();
            if bots.is_empty()
                || standing.finished
                || !standing
                    .waiting_for
                    .iter()
                    .any(|seat| bots.contains_key(seat))
            {
                // The standing of a game not loaded yet is empty; look once more after loading.
                if standing.waiting_for.is_empty() && !standing.finished && !bots.is_empty() {
                    let mut state = game.state.lock().await;
                    if state.session.is_none() {
                        if let Err(error) = self.ensure_loaded(game, &mut state).await {
                            tracing::warn!("game {}: {error:#}", game.id());
                            return;
                        }
                        if let Err(error) = self.refresh_standing(game, &mut state).await {
                            tracing::warn!("game {}: {error:#}", game.id());
                            return;
                        }
                        continue;
                    }
                }
                return;
            }
            // A game of bots alone that nobody watches goes at a slower pace: nobody follows it,
            // and its moves would take thinking slots from games people play.
            let pace = if game.bots_only() && !game.watched() {
                self.config.bot_pace.max(self.config.unwatched_bot_pace)
            } else {
                self.config.bot_pace
            };
            if !pace.is_zero() {
                tokio::time::sleep(pace).await;
            }
            let mut state = game.state.lock().await;
            if let Err(error) = self.ensure_loaded(game, &mut state).await {
                tracing::warn!("game {}: bots cannot play: {error:#}", game.id());
                return;
            }
            // A seat may have been taken back from its bot while this task waited.
            let bots: HashMap<Seat, String> = game
                .seats()
                .into_iter()
                .filter_map(|seat| seat.bot.map(|bot| (seat.seat, bot)))
                .collect();
            // The seat's bot, created on first use and kept: it has a random stream of its own.
            // Known after every apply: only a freshly loaded session needs the trip.
            let cached = state
                .session
                .as_ref()
                .and_then(Session::cached_pending)
                .map(<[PendingDecision]>::to_vec);
            let pending = match cached {
                Some(pending) => Ok(Ok(pending)),
                None => {
                    self.with_session(game, &mut state, |session| session.pending())
                        .await
                }
            };
            let Some(decision) = (match pending {
                Ok(Ok(pending)) => pending
                    .into_iter()
                    .find(|decision| bots.contains_key(&decision.seat)),
                Ok(Err(error)) => {
                    tracing::warn!("game {}: {error}", game.id());
                    None
                }
                Err(error) => {
                    tracing::warn!("game {}: {error:#}", game.id());
                    None
                }
            }) else {
                if let Err(error) = self.refresh_standing(game, &mut state).await {
                    tracing::warn!("game {}: {error:#}", game.id());
                }
                return;
            };
            let seat = decision.seat;
            let bot = match state.bots.remove(&seat) {
                Some(bot) if Some(bot.name()) == bots.get(&seat).map(String::as_str) => bot,
                _ => match calls::new_bot(
                    &bots[&seat],
                    &game.stored,
                    seat,
                    self.config.bot_think_time,
                ) {
                    Ok(bot) => bot,
                    Err(error) => {
                        tracing::warn!("game {}: {error:#}", game.id());
                        return;
                    }
                },
            };
            let Some(mut session) = state.session.take() else {
                return;
            };
            // A thinking bot thinks only in one of its few slots, so bots never hold every call
            // slot; a random bot's move costs what a person's does.
            // Slots are handed out in turn by creator: one client's many games never keep
            // another table's bot waiting for more than one move of each other creator.
            let _thinking = if bot.name() == "random" {
                None
            } else {
                Some(self.bot_moves.acquire(game.turn_key()).await)
            };
            let every = self.config.snapshot_every;
            let (queue, game_id, seq) = (
                self.storage.write_queue(),
                game.id().to_owned(),
                state.version + 1,
            );
            let moved = self
                .blocking(move || {
                    let mut bot = bot;
                    let outcome = calls::bot_move(&mut session, bot.as_mut(), &decision).and_then(
                        |(action, applied)| {
                            let write = ActionWrite {
                                queue,
                                game_id,
                                seq,
                                seat,
                                action_json: serde_json::to_string(&action)
                                    .context("failed to encode an action")?,
                            };
                            let after = AfterApply::of(&mut session, &applied, write, every);
                            Ok((applied, after))
                        },
                    );
                    (session, bot, outcome)
                })
                .await;
            let (session, bot, outcome) = match moved {
                Ok(moved) => moved,
                Err(error) => {
                    tracing::warn!("game {}: a bot failed: {error:#}", game.id());
                    return;
                }
            };
            state.bots.insert(seat, bot);
            let applied = match outcome {
                Ok(moved) => moved,
                Err(error) => {
                    // A failed call may have failed after the ruleset applied the move (the
                    // session then runs ahead of what is stored), exactly as a person's failed
                    // move may: drop the session, as that path does, so the next use rebuilds it
                    // from storage. Stop until the next change.
                    tracing::warn!("game {}: a bot failed: {error:#}", game.id());
                    return;
                }
            };
            self.put_back(game, &mut state, session);
            match self.commit(game, &mut state, applied).await {
                Ok(submitted) => {
                    drop(state);
                    game.publish(Update::Version(submitted.version));
                    if let Err(error) = self
                        .storage
                        .notify(&format!("{}:{}", game.id(), submitted.version))
                        .await
                    {
                        tracing::warn!("{error:#}");
                    }
                }
                // Another process moved first; look again with the fresh state.
                Err(AppError::Stale { .. }) => {}
                Err(error) => {
                    tracing::warn!("game {}: a bot's move failed: {error}", game.id());
                    return;
                }
            }
        }
    }

    /// Drops the sessions of games idle for longer than the configured time, and forgets idle
    /// games nobody is subscribed to, so memory follows the games in use.
    pub async fn evict_idle(&self) {
        let cutoff = now_millis() - self.config.idle_after.as_millis() as i64;
        let games: Vec<Arc<LiveGame>> = match self.games.lock() {
            Ok(games) => games.values().cloned().collect(),
            Err(_) => return,
        };
        for game in games {
            if game.last_used.load(Ordering::Relaxed) >= cutoff {
                continue;
            }
            let busy = game
                .bots
                .lock()
                .map(|schedule| schedule.running)
                .unwrap_or(true);
            if busy {
                continue;
            }
            if let Ok(mut state) = game.state.try_lock() {
                state.session = None;
                self.note_stopped(&game);
            }
            self.forget_views(&game);
            if game.updates.receiver_count() == 0
                && let Ok(mut games) = self.games.lock()
            {
                games.remove(game.id());
            }
        }
    }

    /// The number of games in memory and how many of them hold a running instance (the others
    /// are parked or not loaded).
    pub async fn loaded(&self) -> (usize, usize) {
        let games: Vec<Arc<LiveGame>> = match self.games.lock() {
            Ok(games) => games.values().cloned().collect(),
            Err(_) => return (0, 0),
        };
        let mut sessions = 0;
        for game in &games {
            let state = game.state.lock().await;
            if state
                .session
                .as_ref()
                .is_some_and(|session| !session.is_parked())
            {
                sessions += 1;
            }
        }
        (games.len(), sessions)
    }
}

/// The first twelve digits of a hash, as the API and logs show versions.
pub fn short_hash(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}
