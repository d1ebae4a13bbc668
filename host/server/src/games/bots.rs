//! Bots: seats played by bots, their thinking scheduled fairly between games' creators, in the bot
//! slots. The runner paces and takes slots; the game's owner makes the move.

use super::*;
use tenka_game::bots::only_answer;

impl Hub {
    /// Hands a seat to a bot or back to its person.
    pub async fn set_bot(
        &self,
        game: &Arc<LiveGame>,
        seat: Seat,
        bot: Option<String>,
    ) -> LiveResult<()> {
        game.ask_result(|reply| Command::HandOver { seat, bot, reply })
            .await
    }
}

/// Plays the seats bots hold: one task per game at a time, paced, thinking in the bot slots
/// handed out in turn by creator. The moves themselves are made by each game's owner.
pub(super) struct BotRunner {
    /// Slots for bots thinking ([`HubConfig::bot_moves`]), handed out in turn by creator.
    slots: Arc<FairSlots>,
    /// [`HubConfig::bot_pace`].
    pace: Duration,
    /// [`HubConfig::unwatched_bot_pace`].
    unwatched_pace: Duration,
}

impl BotRunner {
    pub(super) fn new(config: &HubConfig) -> Arc<BotRunner> {
        Arc::new(BotRunner {
            slots: FairSlots::new(config.bot_moves),
            pace: config.bot_pace,
            unwatched_pace: config.unwatched_bot_pace,
        })
    }

    /// The slots bots think in.
    pub(super) fn slots(&self) -> &Arc<FairSlots> {
        &self.slots
    }

    /// Lets the game's bots act, one task per game at a time, after the configured pace.
    pub(super) fn schedule(self: &Arc<Self>, game: &Arc<LiveGame>) {
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
        let runner = self.clone();
        let game = game.clone();
        tokio::spawn(async move {
            loop {
                if let Ok(mut schedule) = game.bots.lock() {
                    schedule.dirty = false;
                }
                runner.run(&game).await;
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
    async fn run(&self, game: &Arc<LiveGame>) {
        // Set once a move thought forced turned out not to be: from then on every move of this
        // run waits for a slot, so a game that keeps changing under the look cannot loop.
        let mut always_slot = false;
        loop {
            let bots = game.bot_seats();
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
                    match game.ask_result(|reply| Command::Load { reply }).await {
                        Ok(true) => continue,
                        Ok(false) => {}
                        Err(error) => tracing::warn!("game {}: {error:#}", game.id()),
                    }
                }
                return;
            }
            // A game of bots alone that nobody watches goes at a slower pace: nobody follows it,
            // and its moves would take thinking slots from games people play.
            let pace = if game.bots_only() && !game.watched() {
                self.pace.max(self.unwatched_pace)
            } else {
                self.pace
            };
            if !pace.is_zero() {
                tokio::time::sleep(pace).await;
            }
            // The bot's time runs from here: a wait for a thinking slot is part of it, so a
            // bot's move comes within its think time (and a little) however many bots queue.
            let turn_started = std::time::Instant::now();
            // A thinking bot thinks only in one of its few slots, so bots never hold every call
            // slot; a random bot's move costs what a person's does. The slot is taken before the
            // move is sent to the game's owner: a bot that waited for a slot inside the owner
            // kept the game's people waiting too (their moves, and views not yet computed).
            // Slots are handed out in turn by creator: one client's many games never keep
            // another table's bot waiting for more than one move of each other creator.
            let thinks = game
                .seats()
                .iter()
                .any(|seat| seat.bot.as_deref().is_some_and(|bot| bot != "random"));
            // A decision with a single answer needs no thought: its move takes no slot, so a
            // forced step never queues behind other tables' thinking bots.
            let forced = thinks && !always_slot && game.bot_move_forced.load(Ordering::Relaxed);
            let thinking = if thinks && !forced {
                Some(self.slots.acquire(game.turn_key()).await)
            } else {
                None
            };
            let in_slot = !thinks || thinking.is_some();
            let turn = game
                .ask(|reply| Command::BotMove {
                    turn_started,
                    in_slot,
                    reply,
                })
                .await
                .unwrap_or(BotTurn::Stop);
            drop(thinking);
            match turn {
                BotTurn::Again => {}
                BotTurn::NeedSlot => always_slot = true,
                BotTurn::Stop => return,
            }
        }
    }
}

impl LiveGame {
    /// The seats bots play now, with their bots' names.
    pub(super) fn bot_seats(&self) -> HashMap<Seat, String> {
        self.seats()
            .into_iter()
            .filter_map(|seat| seat.bot.map(|bot| (seat.seat, bot)))
            .collect()
    }
}

impl Owner {
    /// One bot move: the first pending decision a bot plays, answered by its bot (created on
    /// first use and kept: it has a random stream of its own), applied and stored.
    pub(super) async fn bot_move(
        &mut self,
        hub: &Arc<Hub>,
        game: &Arc<LiveGame>,
        turn_started: std::time::Instant,
        in_slot: bool,
    ) -> BotTurn {
        if let Err(error) = self.ensure_loaded(hub, game).await {
            tracing::warn!("game {}: bots cannot play: {error:#}", game.id());
            return BotTurn::Stop;
        }
        // A seat may have been taken back from its bot while the runner waited.
        let bots = game.bot_seats();
        // Known after every apply: only a freshly loaded session needs the trip.
        let cached = self
            .session
            .as_ref()
            .and_then(Session::cached_pending)
            .map(<[PendingDecision]>::to_vec);
        let pending = match cached {
            Some(pending) => Ok(Ok(pending)),
            None => self.call(hub, game, |session| session.pending()).await,
        };
        let decision = match pending {
            Ok(Ok(pending)) => owner::first_for_bots(&pending, &bots).cloned(),
            Ok(Err(error)) => {
                tracing::warn!("game {}: {error}", game.id());
                None
            }
            Err(error) => {
                tracing::warn!("game {}: {error:#}", game.id());
                None
            }
        };
        let Some(decision) = decision else {
            if let Err(error) = self.refresh_standing(hub, game).await {
                tracing::warn!("game {}: {error:#}", game.id());
            }
            return BotTurn::Stop;
        };
        if !in_slot && only_answer(&decision.kind).is_none() {
            // The game moved on between the look and the move: think in a slot.
            return BotTurn::NeedSlot;
        }
        let seat = decision.seat;
        let think_time = hub.config.bot_think_time;
        let mut bot = match self.bots.remove(&seat) {
            Some(bot) if Some(bot.name()) == bots.get(&seat).map(String::as_str) => bot,
            _ => match calls::new_bot(&bots[&seat], &game.stored, seat, think_time) {
                Ok(bot) => bot,
                Err(error) => {
                    tracing::warn!("game {}: {error:#}", game.id());
                    return BotTurn::Stop;
                }
            },
        };
        bot.think_until(turn_started + think_time);
        let write = ActionWrite {
            queue: hub.storage().write_queue(),
            game_id: game.id().to_owned(),
            seq: self.version + 1,
            seat,
            action_json: String::new(),
            clock: hub.clocks.tick(game),
            bot: Some(bot.name().to_owned()),
        };
        let every = hub.config.snapshot_every;
        let moved = self
            .call(hub, game, move |session| {
                let outcome = calls::bot_move(session, bot.as_mut(), &decision).and_then(
                    |(action, applied)| {
                        let write = ActionWrite {
                            action_json: serde_json::to_string(&action)
                                .context("failed to encode an action")?,
                            ..write
                        };
                        let after = AfterApply::of(session, &applied, write, every);
                        Ok((applied, after))
                    },
                );
                (bot, outcome)
            })
            .await;
        let (bot, outcome) = match moved {
            Ok(moved) => moved,
            Err(error) => {
                tracing::warn!("game {}: a bot failed: {error:#}", game.id());
                return BotTurn::Stop;
            }
        };
        self.bots.insert(seat, bot);
        let applied = match outcome {
            Ok(applied) => applied,
            Err(error) => {
                // A failed call may have failed after the ruleset applied the move (the session
                // then runs ahead of what is stored), exactly as a person's failed move may:
                // drop the session, as that path does, so the next use rebuilds it from
                // storage. Stop until the next change.
                self.session = None;
                hub.residency.note_stopped(game);
                tracing::warn!("game {}: a bot failed: {error:#}", game.id());
                return BotTurn::Stop;
            }
        };
        match self.commit(hub, game, applied).await {
            // Stored, or another process moved first: look again with the fresh state.
            Ok(_) | Err(GameError::Stale { .. }) => BotTurn::Again,
            Err(error) => {
                tracing::warn!("game {}: a bot's move failed: {error}", game.id());
                BotTurn::Stop
            }
        }
    }

    /// [`Hub::set_bot`], answered by the game's owner: the seat is stored as handed over, its
    /// clock stops (a bot's) or runs again (a person's), and everyone hears of it.
    pub(super) async fn hand_over(
        &mut self,
        hub: &Arc<Hub>,
        game: &Arc<LiveGame>,
        seat: Seat,
        bot: Option<String>,
    ) -> LiveResult<()> {
        hub.storage()
            .set_seat_bot(game.id(), seat, bot.as_deref())
            .await?;
        if let Ok(mut seats) = game.seats.write()
            && let Some(stored) = seats.iter_mut().find(|stored| stored.seat == seat)
        {
            stored.bot = bot.clone();
        }
        // A seat a bot plays has no running clock; one given back to its person runs again.
        if let Err(error) = self
            .seat_clock_changed(hub, game, seat, bot.is_none())
            .await
        {
            tracing::warn!("game {}: a seat's clock: {error:#}", game.id());
        }
        let standing = game.standing();
        let change = DurableChange {
            version: standing.version,
            kind: ChangeKind::HandedOver { seat, bot },
            waiting_for: standing.waiting_for,
        };
        hub.after_durable_change(game, &change).await;
        Ok(())
    }
}
