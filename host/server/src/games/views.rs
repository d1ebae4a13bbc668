//! Views: what each viewer sees of a game (view, board, log) at the current version or an earlier
//! one, cached per version, and the rulesets' catalogues.

use super::*;
use tenka_game::record::RecordedAction;
use tenka_game::session::GameSpec;

/// The cache of computed views and past boards under one byte budget, and the rulesets'
/// catalogues. Each game keeps its own views ([`LiveGame`]); this counts their bytes.
pub(super) struct ViewCache {
    /// Bytes held by every game's cached views and past boards.
    bytes: AtomicUsize,
    /// [`HubConfig::view_cache_bytes`].
    budget: usize,
    /// Catalogues by (ruleset hash, language): a catalogue never changes within a version.
    catalogues: Mutex<HashMap<(String, String), Catalogue>>,
}

impl ViewCache {
    pub(super) fn new(budget: usize) -> ViewCache {
        ViewCache {
            bytes: AtomicUsize::new(0),
            budget,
            catalogues: Mutex::new(HashMap::new()),
        }
    }

    fn catalogue(&self, key: &(String, String)) -> Option<Catalogue> {
        self.catalogues
            .lock()
            .ok()
            .and_then(|cached| cached.get(key).cloned())
    }

    fn keep_catalogue(&self, key: (String, String), pairs: Catalogue) {
        if let Ok(mut cached) = self.catalogues.lock() {
            cached.insert(key, pairs);
        }
    }

    /// Keeps `view` in `game`'s cache of current views if the byte budget allows, replacing the
    /// viewer's older one and dropping views of older versions.
    fn keep(&self, game: &LiveGame, viewer: Viewer, view: &Arc<ViewData>) {
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
        self.bytes.fetch_sub(freed, Ordering::Relaxed);
        if self.reserve(view.bytes) {
            views.insert(viewer, view.clone());
        }
    }

    /// Keeps a past board of a finished game if the byte budget allows.
    fn keep_past(&self, game: &LiveGame, viewer: Viewer, at: u64, board: &Arc<ViewData>) {
        if let Ok(mut past) = game.past_boards.lock()
            && past.len() < PAST_BOARDS_KEPT
            && self.reserve(board.bytes)
        {
            past.insert((viewer, at), board.clone());
        }
    }

    /// Counts `bytes` against the budget; false (nothing counted) when they do not fit.
    fn reserve(&self, bytes: usize) -> bool {
        self.bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                (held + bytes <= self.budget).then_some(held + bytes)
            })
            .is_ok()
    }

    /// Drops every cached view and past board of `game`, giving their bytes back.
    pub(super) fn forget(&self, game: &LiveGame) {
        let mut freed = 0;
        if let Ok(mut views) = game.views.lock() {
            freed += views.values().map(|view| view.bytes).sum::<usize>();
            views.clear();
        }
        if let Ok(mut past) = game.past_boards.lock() {
            freed += past.values().map(|view| view.bytes).sum::<usize>();
            past.clear();
        }
        self.bytes.fetch_sub(freed, Ordering::Relaxed);
    }

    /// The bytes cached views and past boards hold now.
    pub(super) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

impl Hub {
    /// A ruleset version's catalogue in `language`, asked of the ruleset once per version and
    /// language. Languages the ruleset does not list get an empty catalogue without running it.
    pub async fn catalogue(
        &self,
        ruleset: &Arc<LoadedRuleset>,
        language: &str,
    ) -> LiveResult<Catalogue> {
        if !is_language_tag(language) {
            return Err(GameError::Invalid(format!(
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
        if let Some(found) = self.views.catalogue(&key) {
            return Ok(found);
        }
        let asked = ruleset.clone();
        let language = key.1.clone();
        let pairs = Arc::new(
            self.blocking(move || calls::catalogue(&asked, &language))
                .await?,
        );
        self.views.keep_catalogue(key, pairs.clone());
        Ok(pairs)
    }

    /// The bytes cached views and past boards hold now.
    pub fn cached_view_bytes(&self) -> usize {
        self.views.bytes()
    }

    /// What `viewer` sees now.
    pub async fn view(&self, game: &Arc<LiveGame>, viewer: Viewer) -> LiveResult<Arc<ViewData>> {
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
        game.ask_result(|reply| Command::View { viewer, reply })
            .await
    }

    /// The board and view as `viewer` saw them after the first `at` actions, for the replay
    /// viewer. Only for finished games: by then every secret is out, and a running game's past
    /// could still hide something its present does not (a plan not yet played).
    pub async fn view_at(
        &self,
        game: &Arc<LiveGame>,
        viewer: Viewer,
        at: u64,
    ) -> LiveResult<Arc<ViewData>> {
        if let Some(board) = game
            .past_boards
            .lock()
            .ok()
            .and_then(|past| past.get(&(viewer, at)).cloned())
        {
            return Ok(board);
        }
        // The owner only copies what the replay needs: the replay itself runs on a session of
        // its own, so the live game stays free meanwhile.
        let (spec, replayed) = game
            .ask_result(|reply| Command::PastMoves { at, reply })
            .await?;
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
        let (state_json, parts) = computed.map_err(GameError::from)?;
        let board = Arc::new(ViewData::new(at, Vec::new(), state_json, parts, None));
        self.views.keep_past(game, viewer, at, &board);
        Ok(board)
    }

    /// The game's full record; only for finished games (it holds every secret, the seed too).
    pub async fn record(&self, game: &Arc<LiveGame>) -> LiveResult<serde_json::Value> {
        game.ask_result(|reply| Command::Record { reply }).await
    }
}

impl Owner {
    /// [`Hub::view`], answered by the game's owner.
    pub(super) async fn view(
        &mut self,
        hub: &Hub,
        game: &LiveGame,
        viewer: Viewer,
    ) -> LiveResult<Arc<ViewData>> {
        self.ensure_loaded(hub, game).await?;
        let version = self.version;
        // Computed once per viewer and version: a request queued behind another that computed
        // this very view takes that one.
        if let Some(view) = game.cached_view(viewer, version) {
            return Ok(view);
        }
        let computed = self
            .call(hub, game, move |session| {
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
        let (pending, state_json, parts, result) = computed?;
        let view = Arc::new(ViewData::new(version, pending, state_json, parts, result));
        hub.views.keep(game, viewer, &view);
        Ok(view)
    }

    /// The setup and first `at` actions of a finished game, for [`Hub::view_at`].
    pub(super) async fn past_moves(
        &mut self,
        hub: &Hub,
        game: &LiveGame,
        at: u64,
    ) -> LiveResult<(GameSpec, Vec<RecordedAction>)> {
        self.ensure_loaded(hub, game).await?;
        if !game.standing().finished {
            return Err(GameError::NotYet(
                "past boards are shown once the game is over".to_owned(),
            ));
        }
        let session = self.session.as_ref().context("the game is not loaded")?;
        let Some(replayed) = session.actions().get(..at as usize) else {
            return Err(GameError::Invalid(format!("the game has no version {at}")));
        };
        Ok((session.spec().clone(), replayed.to_vec()))
    }

    /// [`Hub::record`], answered by the game's owner.
    pub(super) async fn record(
        &mut self,
        hub: &Hub,
        game: &LiveGame,
    ) -> LiveResult<serde_json::Value> {
        self.ensure_loaded(hub, game).await?;
        if !game.standing().finished {
            return Err(GameError::NotYet(
                "the record of a running game would reveal its secrets; it is available when the game ends".to_owned(),
            ));
        }
        let record = self.call(hub, game, |session| session.record()).await??;
        Ok(serde_json::to_value(&record).context("failed to encode a record")?)
    }
}
