//! Residency: which games are in memory and which of them hold a running instance, parking the
//! least recently used when there are more than the server runs at once, and dropping idle
//! games from memory. [`Residency`] owns the table of live games.

use super::*;

/// The table of games in memory and the count of those holding a running instance.
pub(super) struct Residency {
    games: Mutex<HashMap<String, Arc<LiveGame>>>,
    /// How many games are marked running (`LiveGame::running`).
    running_games: AtomicUsize,
    /// A parking task is running.
    parking: AtomicBool,
    /// Itself, for the parking task a crowded runtime starts.
    myself: Weak<Residency>,
    /// [`HubConfig::max_running_games`].
    max_running_games: usize,
    /// [`HubConfig::max_live_games`].
    max_live_games: usize,
}

impl Residency {
    pub(super) fn new(config: &HubConfig) -> Arc<Residency> {
        Arc::new_cyclic(|myself| Residency {
            games: Mutex::new(HashMap::new()),
            running_games: AtomicUsize::new(0),
            parking: AtomicBool::new(false),
            myself: myself.clone(),
            max_running_games: config.max_running_games,
            max_live_games: config.max_live_games,
        })
    }

    /// The game `id`, if it is in memory.
    pub(super) fn get(&self, id: &str) -> Option<Arc<LiveGame>> {
        self.games
            .lock()
            .ok()
            .and_then(|games| games.get(id).cloned())
    }

    /// Every game in memory.
    pub(super) fn all(&self) -> Vec<Arc<LiveGame>> {
        self.games
            .lock()
            .map(|games| games.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Takes game `id` out of the table.
    pub(super) fn remove(&self, id: &str) {
        if let Ok(mut games) = self.games.lock() {
            games.remove(id);
        }
    }

    /// How many games played by bots alone that `creator` started are in memory and running.
    pub(super) fn running_bot_games(&self, creator: &str) -> usize {
        self.games.lock().map_or(0, |games| {
            games
                .values()
                .filter(|game| game.creator.as_deref() == Some(creator))
                .filter(|game| !game.standing().finished && game.bots_only())
                .count()
        })
    }

    /// Marks a game's session as holding an instance and, when more games run than
    /// [`HubConfig::max_running_games`], starts parking the least recently used.
    pub(super) fn note_running(&self, game: &LiveGame) {
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
            while let Some(residency) = myself.upgrade() {
                let parked = residency.park_least_recent().await;
                if !residency.crowded() {
                    residency.parking.store(false, Ordering::Release);
                    // A game counted between the look and the release started no round.
                    if !residency.crowded() || residency.parking.swap(true, Ordering::AcqRel) {
                        return;
                    }
                }
                drop(residency);
                if parked == 0 {
                    // Every candidate was in use; their calls end soon.
                    tokio::time::sleep(PARK_RETRY).await;
                }
            }
        });
    }

    /// Whether more games are counted running than [`HubConfig::max_running_games`].
    fn crowded(&self) -> bool {
        self.running_games.load(Ordering::Relaxed) > self.max_running_games
    }

    /// Marks a game's session as holding no instance (parked, dropped or unloaded).
    pub(super) fn note_stopped(&self, game: &LiveGame) {
        if game.running.swap(false, Ordering::Relaxed) {
            self.running_games.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Parks the sessions of the least recently used running games until an eighth of
    /// [`HubConfig::max_running_games`] is free again, so the scan over all games runs once
    /// per that many loads, not for each. A game in use (its owner busy) is skipped for the
    /// next least recent: it is not idle. Returns how many games stopped counting as running.
    pub(super) async fn park_least_recent(&self) -> usize {
        let cap = self.max_running_games.max(1);
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
            if game.busy() {
                continue;
            }
            game.ask(|reply| Command::Park { reply }).await;
            self.note_stopped(&game);
            stopped += 1;
        }
        stopped
    }

    /// Adds a game to the table of games in memory, making room first. Another task may have
    /// added the same game meanwhile: that one wins.
    /// Answers the game admitted and the games unloaded to make room for it.
    pub(super) fn admit(
        &self,
        game: Arc<LiveGame>,
    ) -> LiveResult<(Arc<LiveGame>, Vec<Arc<LiveGame>>)> {
        let (admitted, evicted) = {
            let mut games = self
                .games
                .lock()
                .map_err(|_| anyhow::anyhow!("the game table is poisoned"))?;
            if let Some(existing) = games.get(game.id()) {
                return Ok((existing.clone(), Vec::new()));
            }
            let evicted = self.make_room(&mut games)?;
            games.insert(game.id().to_owned(), game.clone());
            (game, evicted)
        };
        Ok((admitted, evicted))
    }

    /// Unloads the least recently used games nobody watches until one more fits under
    /// [`HubConfig::max_live_games`], and a sixty-fourth of it more while at it, so that at the
    /// cap the scan over every game in memory (under the table's lock) runs once per that many
    /// new games rather than for each; busy when every game in memory is in use.
    fn make_room(
        &self,
        games: &mut HashMap<String, Arc<LiveGame>>,
    ) -> LiveResult<Vec<Arc<LiveGame>>> {
        let cap = self.max_live_games.max(1);
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
            return Err(GameError::Busy(
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

    /// Makes room for one more game before it is created ([`Residency::make_room`]), answering
    /// the games unloaded.
    pub(super) fn make_room_for_one(&self) -> LiveResult<Vec<Arc<LiveGame>>> {
        let mut games = self
            .games
            .lock()
            .map_err(|_| anyhow::anyhow!("the game table is poisoned"))?;
        self.make_room(&mut games)
    }

    /// How many games are in memory.
    pub(super) fn live_games(&self) -> usize {
        self.games.lock().map_or(0, |games| games.len())
    }

    /// Whether game `id` is in memory (evicting it made its next request read it back).
    pub(super) fn in_memory(&self, id: &str) -> bool {
        self.games.lock().is_ok_and(|games| games.contains_key(id))
    }

    /// The number of games in memory and how many of them hold a running instance (the others
    /// are parked or not loaded).
    pub(super) async fn loaded(&self) -> (usize, usize) {
        let games = self.all();
        let mut sessions = 0;
        for game in &games {
            if game
                .ask(|reply| Command::HoldsInstance { reply })
                .await
                .unwrap_or(false)
            {
                sessions += 1;
            }
        }
        (games.len(), sessions)
    }
}

impl Hub {
    /// Adds a game to the table of games in memory, making room first. Another task may have
    /// added the same game meanwhile: that one wins.
    pub(super) fn admit(&self, game: Arc<LiveGame>) -> LiveResult<Arc<LiveGame>> {
        let (admitted, evicted) = self.residency.admit(game)?;
        for game in evicted {
            self.unloaded(&game);
        }
        Ok(admitted)
    }

    /// Lets go of what a game taken out of memory held: its cached views and its place among
    /// the running games.
    pub(super) fn unloaded(&self, game: &LiveGame) {
        self.views.forget(game);
        self.residency.note_stopped(game);
    }

    /// How many games are in memory.
    pub fn live_games(&self) -> usize {
        self.residency.live_games()
    }

    /// Whether game `id` is in memory (evicting it made its next request read it back).
    pub fn in_memory(&self, id: &str) -> bool {
        self.residency.in_memory(id)
    }

    /// The number of games in memory and how many of them hold a running instance (the others
    /// are parked or not loaded).
    pub async fn loaded(&self) -> (usize, usize) {
        self.residency.loaded().await
    }

    /// Drops the sessions of games idle for longer than the configured time, and forgets idle
    /// games nobody is subscribed to, so memory follows the games in use.
    pub async fn evict_idle(&self) {
        let cutoff = now_millis() - self.config.idle_after.as_millis() as i64;
        let games = self.residency.all();
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
            if !game.busy() {
                game.ask(|reply| Command::Unload { reply }).await;
            }
            self.views.forget(&game);
            if game.updates.receiver_count() == 0 {
                self.residency.remove(game.id());
            }
        }
    }
}

impl Owner {
    /// Parks the session ([`Command::Park`]); a session that fails to park is dropped, to be
    /// rebuilt from storage on next use.
    pub(super) async fn park(&mut self, hub: &Hub, game: &LiveGame) -> bool {
        if self.session.is_none() {
            return true;
        }
        let parked = match self.call(hub, game, |session| session.park()).await {
            Ok(Ok(())) => true,
            Ok(Err(error)) => {
                tracing::warn!("game {}: parking failed: {error}", game.id());
                false
            }
            Err(error) => {
                tracing::warn!("game {}: parking failed: {error:#}", game.id());
                false
            }
        };
        if !parked {
            self.session = None;
        }
        hub.residency.note_stopped(game);
        parked
    }
}
