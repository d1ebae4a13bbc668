//! Bots: seats played by bots, their thinking scheduled fairly between games' creators, in the bot
//! slots.

use super::*;
use tenka_game::bots::only_answer;

impl Hub {
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

    /// Hands a seat to a bot or back to its person.
    pub async fn set_bot(
        self: &Arc<Self>,
        game: &Arc<LiveGame>,
        seat: Seat,
        bot: Option<String>,
    ) -> LiveResult<()> {
        self.storage
            .set_seat_bot(game.id(), seat, bot.as_deref())
            .await?;
        if let Ok(mut seats) = game.seats.write()
            && let Some(stored) = seats.iter_mut().find(|stored| stored.seat == seat)
        {
            stored.bot = bot.clone();
        }
        // A seat a bot plays has no running clock; one given back to its person runs again.
        if let Err(error) = self.seat_clock_changed(game, seat, bot.is_none()).await {
            tracing::warn!("game {}: a seat's clock: {error:#}", game.id());
        }
        self.seats_changed(game).await;
        Ok(())
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

    /// Whether the decision a bot of `bots` answers next has a single answer, as far as the
    /// game's cached pending decisions tell (unknown counts as not).
    async fn bot_decision_forced(
        &self,
        game: &Arc<LiveGame>,
        bots: &HashMap<Seat, String>,
    ) -> bool {
        let state = game.state.lock().await;
        state
            .session
            .as_ref()
            .and_then(Session::cached_pending)
            .and_then(|pending| {
                pending
                    .iter()
                    .find(|decision| bots.contains_key(&decision.seat))
            })
            .is_some_and(|decision| only_answer(&decision.kind).is_some())
    }

    /// Plays bot moves while a bot seat has a pending decision.
    pub(super) async fn run_bots(self: &Arc<Self>, game: &Arc<LiveGame>) {
        // Set once a move thought forced turned out not to be: from then on every move of this
        // run waits for a slot, so a game that keeps changing under the look cannot loop.
        let mut always_slot = false;
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
            // The bot's time runs from here: a wait for a thinking slot is part of it, so a
            // bot's move comes within its think time (and a little) however many bots queue.
            let turn_started = std::time::Instant::now();
            // A thinking bot thinks only in one of its few slots, so bots never hold every call
            // slot; a random bot's move costs what a person's does. The slot is taken before the
            // game's lock: a bot that waited for a slot holding the lock kept the game's people
            // waiting too (their moves, and views not yet computed).
            // Slots are handed out in turn by creator: one client's many games never keep
            // another table's bot waiting for more than one move of each other creator.
            let thinks = game
                .seats()
                .iter()
                .any(|seat| seat.bot.as_deref().is_some_and(|bot| bot != "random"));
            // A decision with a single answer needs no thought: its move takes no slot, so a
            // forced step never queues behind other tables' thinking bots.
            let forced = thinks && !always_slot && self.bot_decision_forced(game, &bots).await;
            let thinking = if thinks && !forced {
                Some(self.bot_moves.acquire(game.turn_key()).await)
            } else {
                None
            };
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
            if thinks && thinking.is_none() && only_answer(&decision.kind).is_none() {
                // The game moved on between the look and the lock: think in a slot.
                always_slot = true;
                continue;
            }
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
            let mut bot = bot;
            bot.think_until(turn_started + self.config.bot_think_time);
            let Some(mut session) = state.session.take() else {
                return;
            };
            let every = self.config.snapshot_every;
            let (queue, game_id, seq, clock) = (
                self.storage.write_queue(),
                game.id().to_owned(),
                state.version + 1,
                self.clock_tick(game),
            );
            let bot_name = bot.name().to_owned();
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
                                clock,
                                bot: Some(bot_name),
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
                Err(GameError::Stale { .. }) => {}
                Err(error) => {
                    tracing::warn!("game {}: a bot's move failed: {error}", game.id());
                    return;
                }
            }
        }
    }
}
