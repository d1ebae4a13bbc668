//! Moves and commits: a seat's answer applied in a call slot, written durably, then published to
//! every viewer.

use super::*;

impl Hub {
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
    ) -> LiveResult<Submitted> {
        let (hub, game) = (self.clone(), game.clone());
        tokio::spawn(async move { hub.submit_to_the_end(&game, seat, expected, action).await })
            .await
            .map_err(|error| anyhow::anyhow!("a move stopped halfway: {error}"))?
    }

    /// [`Hub::submit`], in its own task.
    pub(super) async fn submit_to_the_end(
        self: &Arc<Self>,
        game: &Arc<LiveGame>,
        seat: Seat,
        expected: u64,
        action: Action,
    ) -> LiveResult<Submitted> {
        let mut state = game.state.lock().await;
        self.ensure_loaded(game, &mut state).await?;
        if expected != state.version
            && !state
                .decisions
                .answers_current(seat, expected, state.version)
        {
            return Err(GameError::Stale {
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
    ) -> LiveResult<Vec<PreviewNote>> {
        let mut state = game.state.lock().await;
        self.ensure_loaded(game, &mut state).await?;
        let previewed = self
            .with_session(game, &mut state, move |session| {
                session.preview(seat, &action)
            })
            .await?;
        // A read, like a view: a failed call was already recovered inside the session.
        previewed.map_err(|error| GameError::from(error))
    }

    /// The heart of every change: apply in the ruleset, store, then publish. The caller holds the
    /// game's lock and has loaded the session.
    pub(super) async fn apply_locked(
        &self,
        game: &Arc<LiveGame>,
        state: &mut GameState,
        seat: Seat,
        action: Action,
    ) -> LiveResult<Submitted> {
        let write = ActionWrite {
            queue: self.storage.write_queue(),
            game_id: game.id().to_owned(),
            seq: state.version + 1,
            seat,
            action_json: serde_json::to_string(&action).context("failed to encode an action")?,
            clock: self.clock_tick(game),
            bot: None,
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
                let (error, keep_session) = GameError::from_session(error);
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
    pub(super) async fn commit(
        &self,
        game: &Arc<LiveGame>,
        state: &mut GameState,
        (applied, after): (Applied, AfterApply),
    ) -> LiveResult<Submitted> {
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
                self.refresh_clock(game).await;
                return Err(GameError::Stale {
                    version: state.version,
                });
            }
            Err(error) => {
                state.session = None;
                return Err(error.into());
            }
        }
        state.version = seq;
        if let Some(clock) = after.clock {
            game.set_clock(Some(clock));
        }
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
        let summarized = after.pending.map(|pending| {
            state.decisions.update(seq, &pending, Some(after.seat));
            summarize(game, seq, &pending)
        });
        self.arm_clock(game);
        if let Err(error) = summarized {
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
    pub(super) async fn after_change(self: &Arc<Self>, game: &Arc<LiveGame>, version: u64) {
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
}
