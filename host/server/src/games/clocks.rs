//! Table clocks in play: each move brings its game's clock up to date in the move's own commit,
//! a seat handed to a bot or taken back stops or starts its clock, and the timer task acts on
//! an expiry by handing the seat out of time to the table's bot, claimed so that of several
//! server processes exactly one does.

use super::*;
use crate::clocks::Pace;
use crate::storage::ClockRow;

/// A timed table's clock before a move, with what settling it after the move needs.
pub(super) struct ClockTick {
    clock: TableClock,
    /// When the move was made.
    now: i64,
    /// The seats bots play: their clocks do not run.
    bots: Vec<Seat>,
}

/// The seats among `waiting` (those that owe an answer) played by a person: their clocks run.
fn running(waiting: Vec<Seat>, bots: &[Seat]) -> Vec<Seat> {
    let mut seats = waiting;
    seats.retain(|seat| !bots.contains(seat));
    seats
}

/// The seats bots play now.
fn bot_seats(seats: &[StoredSeat]) -> Vec<Seat> {
    seats
        .iter()
        .filter(|seat| seat.bot.is_some())
        .map(|seat| seat.seat)
        .collect()
}

impl ClockTick {
    /// The clock after `mover` answered, the game now waiting for `pending`; its version is
    /// the one the move's commit gives the stored clock.
    pub(super) fn after(mut self, mover: Seat, pending: &[PendingDecision]) -> Option<TableClock> {
        let running = running(waiting_seats(pending), &self.bots);
        self.clock.settle(self.now, Some(mover), &running);
        self.clock.version += 1;
        Some(self.clock)
    }
}

/// A new table's clock, started at `now` for the seats the first decision waits for.
pub(super) fn started(
    clock: TableClock,
    now: i64,
    seats: &[StoredSeat],
    pending: &[PendingDecision],
) -> TableClock {
    let mut clock = clock;
    clock.settle(
        now,
        None,
        &running(waiting_seats(pending), &bot_seats(seats)),
    );
    clock
}

/// A new table's clock as stored with its game.
pub(super) fn row(clock: &TableClock) -> ClockRow {
    ClockRow {
        pace_json: clock.pace_json(),
        state_json: clock.state_json(),
        deadline: clock.deadline(),
    }
}

impl LiveGame {
    /// The table's clock as last stored; `None` for an untimed game.
    pub fn clock(&self) -> Option<TableClock> {
        self.clock.lock().ok().and_then(|clock| clock.clone())
    }

    /// The table's pace; `None` for an untimed game.
    pub fn pace(&self) -> Option<Pace> {
        self.clock().map(|clock| clock.pace)
    }

    pub(super) fn set_clock(&self, clock: Option<TableClock>) {
        if let Ok(mut current) = self.clock.lock() {
            *current = clock;
        }
    }
}

/// The table clocks' keeper: the time source, the timer of every timed game's earliest
/// deadline, and the stored clocks.
pub(super) struct TableClocks {
    storage: Storage,
    /// Where table clocks read the time ([`HubConfig::clock`]).
    clock: Arc<dyn Clock>,
    /// Every timed game's earliest deadline, for the timer task.
    timers: Arc<Timers>,
    /// How many clock expiries this process claimed and acted on.
    expiries: AtomicUsize,
}

impl TableClocks {
    pub(super) fn new(storage: Storage, clock: Arc<dyn Clock>) -> TableClocks {
        TableClocks {
            storage,
            clock,
            timers: Arc::default(),
            expiries: AtomicUsize::new(0),
        }
    }

    /// The time as the table clocks read it.
    pub(super) fn now_millis(&self) -> i64 {
        self.clock.now_millis()
    }

    /// A game's clock as stored, if it is timed.
    pub(super) async fn stored(&self, id: &str) -> anyhow::Result<Option<TableClock>> {
        self.storage
            .clock(id)
            .await?
            .map(|(pace, state, version)| TableClock::from_stored(&pace, &state, version))
            .transpose()
    }

    /// The clock a move of `game` settles, as it is before the move.
    pub(super) fn tick(&self, game: &LiveGame) -> Option<ClockTick> {
        Some(ClockTick {
            clock: game.clock()?,
            now: self.clock.now_millis(),
            bots: bot_seats(&game.seats()),
        })
    }

    /// Sets the timer to the game's earliest deadline (none once it is over).
    pub(super) fn arm(&self, game: &LiveGame) {
        let deadline = game
            .clock()
            .filter(|_| !game.standing().finished)
            .and_then(|clock| clock.deadline());
        self.timers.arm(game.id(), deadline);
    }

    /// Reads a timed game's clock again after another process changed the game.
    pub(super) async fn refresh(&self, game: &LiveGame) {
        if game.clock().is_none() {
            return;
        }
        match self.stored(game.id()).await {
            Ok(clock) => {
                game.set_clock(clock);
                self.arm(game);
            }
            Err(error) => tracing::warn!("game {}: {error:#}", game.id()),
        }
    }
}

impl Hub {
    /// The time as the table clocks read it.
    pub fn now_millis(&self) -> i64 {
        self.clocks.now_millis()
    }

    /// How many clock expiries this process claimed and acted on.
    pub fn expiries_claimed(&self) -> usize {
        self.clocks.expiries.load(Ordering::Relaxed)
    }

    /// Starts the timer task (when there is a runtime to run it on): it first arms every
    /// deadline stored (a restart neither stops nor resets a clock), then acts on each expiry.
    pub(super) fn start_timer(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (timers, clock, hub) = (
            self.clocks.timers.clone(),
            self.clocks.clock.clone(),
            Arc::downgrade(self),
        );
        runtime.spawn(async move {
            let stored = match hub.upgrade() {
                Some(hub) => hub.storage.clock_deadlines().await,
                None => return,
            };
            match stored {
                Ok(deadlines) => {
                    for (game, deadline) in deadlines {
                        timers.arm(&game, Some(deadline));
                    }
                }
                Err(error) => tracing::warn!("clocks are not running: {error:#}"),
            }
            timers
                .run(clock, |game| {
                    let Some(hub) = hub.upgrade() else {
                        return false;
                    };
                    tokio::spawn(async move { hub.expire(&game).await });
                    true
                })
                .await;
        });
    }

    /// Acts on a timer that fired for game `id`, in the game's owner ([`Owner::expire`]).
    pub(super) async fn expire(self: &Arc<Self>, id: &str) {
        match self.game(id).await {
            Ok(game) => {
                game.ask(|reply| Command::Expire { reply }).await;
            }
            Err(error) => tracing::warn!("game {id}: a clock's expiry: {error}"),
        }
    }
}

impl Owner {
    /// After `seat` was handed to a bot or (`returned`) back to its person: the seat's clock
    /// stops or starts, and is stored. The owner answers no move meanwhile, so no move settles
    /// the clock at the same time.
    pub(super) async fn seat_clock_changed(
        &mut self,
        hub: &Hub,
        game: &Arc<LiveGame>,
        seat: Seat,
        returned: bool,
    ) -> anyhow::Result<()> {
        if game.clock().is_none() {
            return Ok(());
        }
        self.ensure_loaded(hub, game).await?;
        let Some(mut clock) = hub.clocks.stored(game.id()).await? else {
            return Ok(());
        };
        if returned {
            clock.returned(seat);
        }
        let standing = game.standing();
        let running = if standing.finished {
            Vec::new()
        } else {
            running(standing.waiting_for, &bot_seats(&game.seats()))
        };
        clock.settle(hub.clocks.now_millis(), None, &running);
        let write = ClockWrite {
            state_json: clock.state_json(),
            deadline: clock.deadline(),
        };
        clock.version = hub.storage().save_clock(game.id(), &write).await?;
        game.set_clock(Some(clock));
        hub.clocks.arm(game);
        Ok(())
    }

    /// Acts on a timer that fired: each running seat whose time is up is handed to the table's
    /// bot. The expiry is claimed against the stored clock's version, in the transaction that
    /// hands the seats over: of several processes (or a move racing the timer) exactly one
    /// changes anything.
    pub(super) async fn expire(&mut self, hub: &Arc<Hub>, game: &Arc<LiveGame>) {
        let id = game.id();
        if let Err(error) = self.ensure_loaded(hub, game).await {
            tracing::warn!("game {id}: a clock's expiry: {error:#}");
            return;
        }
        // The stored clock is the truth: another process may have moved or claimed meanwhile.
        let clock = match hub.clocks.stored(id).await {
            Ok(Some(clock)) => clock,
            Ok(None) => return,
            Err(error) => {
                tracing::warn!("game {id}: a clock's expiry: {error:#}");
                return;
            }
        };
        // A clock another process wrote since this one last looked may come with seats it
        // handed over.
        let changed = game.clock().map(|known| known.version) != Some(clock.version);
        game.set_clock(Some(clock.clone()));
        let expired = clock.expired(hub.clocks.now_millis());
        if expired.is_empty() || game.standing().finished {
            if changed && let Err(error) = hub.reload_seats(game).await {
                tracing::warn!("game {id}: {error}");
            }
            hub.clocks.arm(game);
            return;
        }
        let mut next = clock.clone();
        next.time_out(&expired);
        let write = ClockWrite {
            state_json: next.state_json(),
            deadline: next.deadline(),
        };
        let claimed = hub
            .storage()
            .claim_expiry(id, clock.version, &write, &expired, &next.pace.bot)
            .await;
        match claimed {
            Ok(true) => {
                next.version = clock.version + 1;
                let bot = next.pace.bot.clone();
                game.set_clock(Some(next));
                hub.clocks.expiries.fetch_add(1, Ordering::Relaxed);
                tracing::info!(
                    "game {id}: seats {expired:?} ran out of time and are played by a bot"
                );
                // The seats as the claim stored them, so a replaced token stops working at once.
                match hub.storage().seats(id).await {
                    Ok(seats) => game.set_seats(seats),
                    Err(error) => tracing::warn!("game {id}: {error:#}"),
                }
                let standing = game.standing();
                let change = DurableChange {
                    version: standing.version,
                    kind: ChangeKind::TimedOut {
                        seats: expired.clone(),
                        bot,
                    },
                    waiting_for: standing.waiting_for,
                };
                hub.after_durable_change(game, &change).await;
            }
            // Another process (or a move) changed the clock first: look again from what it
            // stored, seats included (the winner may have handed them over).
            Ok(false) => {
                hub.clocks.refresh(game).await;
                if let Err(error) = hub.reload_seats(game).await {
                    tracing::warn!("game {id}: {error}");
                }
            }
            Err(error) => {
                // Tried again in a while, not at once: the database may be down.
                tracing::warn!("game {id}: a clock's expiry: {error:#}");
                let retry = hub.clocks.now_millis() + 1_000;
                hub.clocks.timers.arm(id, Some(retry));
                return;
            }
        }
        hub.clocks.arm(game);
    }
}
