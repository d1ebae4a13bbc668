//! Table clocks: a game's pace (live, turn-based or untimed), each seat's time, and the timer
//! that wakes at the earliest deadline.
//!
//! The host owns the clock; rulesets never see it, so every stored game still replays bit for
//! bit. A timed game's clock is stored with it (table `clocks`) and written in the same commit as
//! each move, with every deadline as an absolute time, so a restart neither stops nor resets it.
//! Only the seats that owe an answer run (at a simultaneous decision, each of them on its own
//! clock); a seat a bot plays does not run. Time is read through [`Clock`], the system clock in
//! production and a [`ManualClock`] in tests, so no test waits for real time to pass.

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sdk::Seat;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Where the server reads the time and waits for it.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Milliseconds since the Unix epoch.
    fn now_millis(&self) -> i64;
    /// Resolves once [`Clock::now_millis`] has reached `at` (or a little before it, for a wall
    /// clock that jumped: the caller looks at the time again).
    fn sleep_until(&self, at: i64) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>>;
}

/// The operating system's wall clock.
#[derive(Debug, Default)]
pub struct SystemClock;

/// The longest a timer sleeps on the wall clock before looking again, so that a clock set
/// forward (or a suspended machine) delays an expiry by at most this long.
const LONGEST_SLEEP: Duration = Duration::from_secs(30);

impl Clock for SystemClock {
    fn now_millis(&self) -> i64 {
        super::storage::now_millis()
    }

    fn sleep_until(&self, at: i64) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        let wait = u64::try_from(at.saturating_sub(self.now_millis())).unwrap_or(0);
        Box::pin(tokio::time::sleep(
            Duration::from_millis(wait).min(LONGEST_SLEEP),
        ))
    }
}

/// A clock that moves only when told to: tests advance it and every timer due wakes.
#[derive(Debug)]
pub struct ManualClock {
    now: AtomicI64,
    moved: tokio::sync::watch::Sender<i64>,
}

impl ManualClock {
    /// A clock showing `now` (milliseconds since the Unix epoch).
    pub fn new(now: i64) -> Arc<ManualClock> {
        Arc::new(ManualClock {
            now: AtomicI64::new(now),
            moved: tokio::sync::watch::channel(now).0,
        })
    }

    /// Moves the clock on by `by`.
    pub fn advance(&self, by: Duration) {
        let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        let now = self.now.fetch_add(by, Ordering::SeqCst) + by;
        self.moved.send_replace(now);
    }
}

impl Clock for ManualClock {
    fn now_millis(&self) -> i64 {
        self.now.load(Ordering::SeqCst)
    }

    fn sleep_until(&self, at: i64) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        let mut moved = self.moved.subscribe();
        Box::pin(async move {
            while *moved.borrow_and_update() < at {
                if moved.changed().await.is_err() {
                    // The clock is gone: it will never get there.
                    std::future::pending::<()>().await;
                }
            }
        })
    }
}

/// The wall clock moved on by an offset that only grows: the clock of `tenka serve
/// --test-clock`, so a browser test plays a turn-based table across days without waiting them.
/// Moving it on wakes every timer, which then reads the time again.
#[derive(Debug)]
pub struct ShiftedClock {
    offset: AtomicI64,
    moved: tokio::sync::watch::Sender<i64>,
}

impl ShiftedClock {
    /// The wall clock as it is (no offset yet).
    pub fn new() -> Arc<ShiftedClock> {
        Arc::new(ShiftedClock {
            offset: AtomicI64::new(0),
            moved: tokio::sync::watch::channel(0).0,
        })
    }

    /// Moves the clock on by `by`; the time it shows now.
    pub fn advance(&self, by: Duration) -> i64 {
        let by = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        let offset = self
            .offset
            .fetch_add(by, Ordering::SeqCst)
            .saturating_add(by);
        self.moved.send_replace(offset);
        self.now_millis()
    }
}

impl Clock for ShiftedClock {
    fn now_millis(&self) -> i64 {
        super::storage::now_millis().saturating_add(self.offset.load(Ordering::SeqCst))
    }

    fn sleep_until(&self, at: i64) -> Pin<Box<dyn Future<Output = ()> + Send + 'static>> {
        let mut moved = self.moved.subscribe();
        moved.mark_unchanged();
        let wait = u64::try_from(at.saturating_sub(self.now_millis())).unwrap_or(0);
        Box::pin(async move {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(wait).min(LONGEST_SLEEP)) => {}
                // Moved on: the caller looks at the time again.
                _ = moved.changed() => {}
            }
        })
    }
}

/// Bounds of the paces a table may choose; a request outside them is refused.
pub mod bounds {
    /// A live table's bank per player, in seconds.
    pub const BANK_SECONDS: std::ops::RangeInclusive<u64> = 30..=4 * 3600;
    /// A live table's increment per move, in seconds.
    pub const INCREMENT_SECONDS: std::ops::RangeInclusive<u64> = 0..=600;
    /// A turn-based table's time per move, in hours (one hour to two weeks).
    pub const MOVE_HOURS: std::ops::RangeInclusive<u64> = 1..=14 * 24;
    /// A turn-based table's bank of extra days.
    pub const EXTRA_DAYS: std::ops::RangeInclusive<u64> = 0..=30;
}

/// A table's pace as the creator asks for it (`POST /api/games`, field `pace`).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum PaceRequest {
    /// No clock: players take as long as they like (the default).
    Untimed,
    /// A bank of time per player plus an increment per move.
    Live {
        /// Each player's bank, in seconds.
        bank_seconds: u64,
        /// Added to a player's bank after each of their moves, in seconds.
        #[serde(default)]
        increment_seconds: u64,
        /// The bot that takes a seat out of time; default the table's level.
        #[serde(default)]
        bot: Option<String>,
    },
    /// A time per move plus a bank of extra days used when a move takes longer.
    TurnBased {
        /// The time each move may take, in hours.
        move_hours: u64,
        /// Extra days each player may spend over the moves' time, in all.
        #[serde(default)]
        extra_days: u64,
        /// The bot that takes a seat out of time; default the table's level.
        #[serde(default)]
        bot: Option<String>,
    },
}

/// A timed table's pace as stored, in milliseconds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pace {
    /// `live` or `turn-based`.
    pub kind: String,
    /// Each seat's bank at the start.
    pub bank_ms: i64,
    /// Added to a seat's bank after each of its moves.
    pub increment_ms: i64,
    /// The time each move may take before the bank is drawn on (turn-based; 0 when live).
    pub move_ms: i64,
    /// The bot that takes a seat out of time.
    pub bot: String,
}

/// A seat back from a bot after running out of time on a live table has at least this long.
pub const LIVE_RETURN_MS: i64 = 60_000;

impl PaceRequest {
    /// Checks the request against [`bounds`]; the stored pace of a timed table, `None` for an
    /// untimed one. `table_level` is the bot that takes a seat when the request names none;
    /// `bots` the names a bot may have.
    pub fn check(&self, table_level: &str, bots: &[&str]) -> Result<Option<Pace>, String> {
        let within = |name: &str, value: u64, range: &std::ops::RangeInclusive<u64>| {
            if range.contains(&value) {
                Ok(i64::try_from(value).unwrap_or(i64::MAX))
            } else {
                Err(format!(
                    "`pace.{name}` must be from {} to {}, not {value}",
                    range.start(),
                    range.end()
                ))
            }
        };
        let bot = |bot: &Option<String>| match bot {
            None => Ok(table_level.to_owned()),
            Some(bot) if bots.contains(&bot.as_str()) => Ok(bot.clone()),
            Some(bot) => Err(format!(
                "`pace.bot` names no bot: `{}`; use one of {bots:?}",
                bot.chars().take(32).collect::<String>()
            )),
        };
        Ok(Some(match self {
            PaceRequest::Untimed => return Ok(None),
            PaceRequest::Live {
                bank_seconds,
                increment_seconds,
                bot: chosen,
            } => Pace {
                kind: "live".to_owned(),
                bank_ms: within("bank_seconds", *bank_seconds, &bounds::BANK_SECONDS)? * 1000,
                increment_ms: within(
                    "increment_seconds",
                    *increment_seconds,
                    &bounds::INCREMENT_SECONDS,
                )? * 1000,
                move_ms: 0,
                bot: bot(chosen)?,
            },
            PaceRequest::TurnBased {
                move_hours,
                extra_days,
                bot: chosen,
            } => Pace {
                kind: "turn-based".to_owned(),
                bank_ms: within("extra_days", *extra_days, &bounds::EXTRA_DAYS)? * 86_400_000,
                increment_ms: 0,
                move_ms: within("move_hours", *move_hours, &bounds::MOVE_HOURS)? * 3_600_000,
                bot: bot(chosen)?,
            },
        }))
    }
}

/// One seat's clock.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatClock {
    /// The seat's bank, as of when it last stopped.
    pub bank_ms: i64,
    /// Since when the clock runs (it runs while the seat owes an answer and a person plays it).
    pub since: Option<i64>,
    /// The seat ran out of time and was handed to a bot.
    #[serde(default)]
    pub timed_out: bool,
}

/// A timed table's clock: the pace and every seat's time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableClock {
    /// The pace chosen at creation.
    pub pace: Pace,
    /// Each seat's clock, by seat number.
    pub seats: Vec<SeatClock>,
    /// How many times the stored clock was written: an expiry is claimed only against the
    /// version it saw, so of several server processes exactly one acts on it.
    pub version: i64,
}

impl TableClock {
    /// A new table's clock: every seat with a full bank, none running yet.
    pub fn new(pace: Pace, seats: u32) -> TableClock {
        TableClock {
            seats: vec![
                SeatClock {
                    bank_ms: pace.bank_ms,
                    since: None,
                    timed_out: false,
                };
                seats as usize
            ],
            pace,
            version: 0,
        }
    }

    /// A stored clock.
    pub fn from_stored(pace_json: &str, state_json: &str, version: i64) -> anyhow::Result<Self> {
        Ok(TableClock {
            pace: serde_json::from_str(pace_json)?,
            seats: serde_json::from_str(state_json)?,
            version,
        })
    }

    /// The seats' clocks as stored.
    pub fn state_json(&self) -> String {
        serde_json::to_string(&self.seats).unwrap_or_else(|_| "[]".to_owned())
    }

    /// The pace as stored.
    pub fn pace_json(&self) -> String {
        serde_json::to_string(&self.pace).unwrap_or_else(|_| "{}".to_owned())
    }

    /// When a running seat's time is up.
    fn seat_deadline(&self, clock: &SeatClock) -> Option<i64> {
        clock
            .since
            .map(|since| since + self.pace.move_ms + clock.bank_ms)
    }

    /// The earliest deadline of a running seat.
    pub fn deadline(&self) -> Option<i64> {
        self.seats
            .iter()
            .filter_map(|clock| self.seat_deadline(clock))
            .min()
    }

    /// Brings every seat's clock to `now`: `mover` has just answered (its time is charged and
    /// it gets the increment), `running` are the seats that owe an answer now with a person
    /// playing them. A seat that stops is charged what it used beyond the move's own time; a
    /// seat that starts runs from `now`; a mover that owes an answer again starts anew. The
    /// increment never takes a bank past its starting size, so quick moves do not pile up more
    /// time than the table began with (as the larger peers run their clocks).
    pub fn settle(&mut self, now: i64, mover: Option<Seat>, running: &[Seat]) {
        let (move_ms, increment_ms) = (self.pace.move_ms, self.pace.increment_ms);
        let most = self.pace.bank_ms;
        for (index, clock) in self.seats.iter_mut().enumerate() {
            let seat = index as Seat;
            let runs = running.contains(&seat);
            let moved = mover == Some(seat);
            if let Some(since) = clock.since
                && (!runs || moved)
            {
                let over = (now - since - move_ms).max(0);
                clock.bank_ms = (clock.bank_ms - over).max(0);
                if moved {
                    clock.bank_ms = (clock.bank_ms + increment_ms).min(most.max(clock.bank_ms));
                }
                clock.since = None;
            }
            if runs && clock.since.is_none() {
                clock.since = Some(now);
                clock.timed_out = false;
            }
        }
    }

    /// The running seats whose time is up at `now`.
    pub fn expired(&self, now: i64) -> Vec<Seat> {
        (self.seats.iter().enumerate())
            .filter(|(_, clock)| self.seat_deadline(clock).is_some_and(|at| at <= now))
            .map(|(index, _)| index as Seat)
            .collect()
    }

    /// Stops the clocks of `seats`, out of time: their banks are empty and a bot takes them.
    pub fn time_out(&mut self, seats: &[Seat]) {
        for &seat in seats {
            if let Some(clock) = self.seats.get_mut(seat as usize) {
                *clock = SeatClock {
                    bank_ms: 0,
                    since: None,
                    timed_out: true,
                };
            }
        }
    }

    /// A seat that ran out of time is played by its person again: on a live table it gets at
    /// least [`LIVE_RETURN_MS`], so it does not run out again at once.
    pub fn returned(&mut self, seat: Seat) {
        let live = self.pace.move_ms == 0;
        if let Some(clock) = self.seats.get_mut(seat as usize)
            && clock.timed_out
            && live
        {
            clock.bank_ms = clock
                .bank_ms
                .max(LIVE_RETURN_MS.max(self.pace.increment_ms));
        }
    }

    /// Each seat's clock as the API shows it at `now`.
    pub fn to_json(&self, now: i64) -> Value {
        let seats: Vec<Value> = (self.seats.iter().enumerate())
            .map(|(seat, clock)| {
                let deadline = self.seat_deadline(clock);
                let remaining = match deadline {
                    Some(at) => (at - now).max(0),
                    None => self.pace.move_ms + clock.bank_ms,
                };
                json!({
                    "seat": seat,
                    "remaining_ms": remaining,
                    "bank_ms": clock.bank_ms,
                    "running": clock.since.is_some(),
                    "deadline": deadline,
                    "timed_out": clock.timed_out,
                })
            })
            .collect();
        json!({ "now": now, "seats": seats })
    }
}

/// A stored pace as the API shows it; `untimed` when the game has none.
pub fn pace_json(pace: Option<&Pace>) -> Value {
    match pace {
        None => json!({ "kind": "untimed" }),
        Some(pace) if pace.kind == "live" => json!({
            "kind": "live",
            "bank_seconds": pace.bank_ms / 1000,
            "increment_seconds": pace.increment_ms / 1000,
            "bot": pace.bot,
        }),
        Some(pace) => json!({
            "kind": "turn-based",
            "move_hours": pace.move_ms / 3_600_000,
            "extra_days": pace.bank_ms / 86_400_000,
            "bot": pace.bot,
        }),
    }
}

/// Deadlines in time order, and the same by game.
type Deadlines = (BTreeSet<(i64, String)>, HashMap<String, i64>);

/// The deadlines the timer waits for: the earliest one of each game.
#[derive(Debug, Default)]
pub struct Timers {
    due: Mutex<Deadlines>,
    changed: tokio::sync::Notify,
}

impl Timers {
    /// Sets (or with `None` clears) a game's earliest deadline, and wakes the timer.
    pub fn arm(&self, game: &str, deadline: Option<i64>) {
        let Ok(mut due) = self.due.lock() else { return };
        let (by_time, by_game) = &mut *due;
        if by_game.get(game).copied() == deadline {
            return;
        }
        if let Some(before) = by_game.remove(game) {
            by_time.remove(&(before, game.to_owned()));
        }
        if let Some(at) = deadline {
            by_game.insert(game.to_owned(), at);
            by_time.insert((at, game.to_owned()));
        }
        drop(due);
        self.changed.notify_one();
    }

    /// The earliest deadline of all.
    fn earliest(&self) -> Option<i64> {
        self.due
            .lock()
            .ok()
            .and_then(|due| due.0.first().map(|(at, _)| *at))
    }

    /// Takes out the games whose deadline is at or before `now`.
    fn take_due(&self, now: i64) -> Vec<String> {
        let Ok(mut due) = self.due.lock() else {
            return Vec::new();
        };
        let mut games = Vec::new();
        while let Some((at, _)) = due.0.first()
            && *at <= now
        {
            if let Some((_, game)) = due.0.pop_first() {
                due.1.remove(&game);
                games.push(game);
            }
        }
        games
    }

    /// Waits for the earliest deadline (re-armed whenever a deadline changes) and calls `fire`
    /// with each game whose time has come, until `fire` answers false (the server is gone).
    pub async fn run(&self, clock: Arc<dyn Clock>, mut fire: impl FnMut(String) -> bool) {
        loop {
            match self.earliest() {
                None => self.changed.notified().await,
                Some(at) => {
                    tokio::select! {
                        () = clock.sleep_until(at) => {}
                        () = self.changed.notified() => continue,
                    }
                }
            }
            for game in self.take_due(clock.now_millis()) {
                if !fire(game) {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(bank: u64, increment: u64) -> Pace {
        PaceRequest::Live {
            bank_seconds: bank,
            increment_seconds: increment,
            bot: None,
        }
        .check("normal", &["normal"])
        .unwrap()
        .unwrap()
    }

    #[test]
    fn a_live_seat_is_charged_what_it_used_and_gets_its_increment() {
        let mut clock = TableClock::new(live(60, 5), 2);
        clock.settle(1_000, None, &[0]);
        assert_eq!(clock.deadline(), Some(61_000));
        clock.settle(11_000, Some(0), &[1]);
        assert_eq!(clock.seats[0].bank_ms, 55_000, "60 s - 10 s + 5 s");
        assert_eq!(clock.seats[0].since, None);
        assert_eq!(clock.seats[1].since, Some(11_000));
        assert_eq!(clock.expired(71_000), vec![1]);
        assert!(clock.expired(70_999).is_empty());
        // A quick move earns its increment only up to the bank the table started with.
        clock.settle(12_000, Some(1), &[0]);
        assert_eq!(clock.seats[1].bank_ms, 60_000, "59 s + 5 s, capped at 60 s");
    }

    #[test]
    fn a_turn_based_move_draws_on_the_bank_only_beyond_its_own_time() {
        let pace = PaceRequest::TurnBased {
            move_hours: 24,
            extra_days: 2,
            bot: Some("easy".to_owned()),
        }
        .check("normal", &["easy", "normal"])
        .unwrap()
        .unwrap();
        assert_eq!(pace.bot, "easy");
        let day = 86_400_000;
        let mut clock = TableClock::new(pace, 2);
        clock.settle(0, None, &[0, 1]);
        clock.settle(day / 2, Some(0), &[1]);
        assert_eq!(clock.seats[0].bank_ms, 2 * day, "inside the move's time");
        clock.settle(day + day / 2, Some(1), &[0]);
        assert_eq!(clock.seats[1].bank_ms, 2 * day - day / 2);
        assert_eq!(clock.deadline(), Some(day + day / 2 + day + 2 * day));
    }

    #[test]
    fn paces_out_of_bounds_are_refused() {
        let bots = ["normal"];
        for request in [
            PaceRequest::Live {
                bank_seconds: 0,
                increment_seconds: 0,
                bot: None,
            },
            PaceRequest::Live {
                bank_seconds: u64::MAX,
                increment_seconds: 0,
                bot: None,
            },
            PaceRequest::Live {
                bank_seconds: 60,
                increment_seconds: 601,
                bot: None,
            },
            PaceRequest::TurnBased {
                move_hours: 0,
                extra_days: 0,
                bot: None,
            },
            PaceRequest::TurnBased {
                move_hours: 24,
                extra_days: 31,
                bot: None,
            },
            PaceRequest::TurnBased {
                move_hours: 24,
                extra_days: 1,
                bot: Some("nobody".to_owned()),
            },
        ] {
            assert!(request.check("normal", &bots).is_err(), "{request:?}");
        }
        assert_eq!(PaceRequest::Untimed.check("normal", &bots), Ok(None));
    }

    /// Timers running on `clock`, the games they fire, and their task.
    fn running_timers(
        clock: Arc<dyn Clock>,
    ) -> (
        Arc<Timers>,
        tokio::sync::mpsc::UnboundedReceiver<String>,
        tokio::task::JoinHandle<()>,
    ) {
        let timers = Arc::new(Timers::default());
        let (fired, heard) = tokio::sync::mpsc::unbounded_channel();
        let task = {
            let timers = timers.clone();
            tokio::spawn(async move {
                timers
                    .run(clock, move |game| fired.send(game).is_ok())
                    .await;
            })
        };
        (timers, heard, task)
    }

    #[tokio::test]
    async fn the_timer_fires_a_game_once_its_deadline_has_come_on_the_manual_clock() {
        let clock = ManualClock::new(0);
        let (timers, mut heard, task) = running_timers(clock.clone());
        timers.arm("b", Some(2_000));
        timers.arm("a", Some(1_000));
        clock.advance(Duration::from_millis(999));
        tokio::task::yield_now().await;
        assert!(heard.try_recv().is_err(), "nothing is due yet");
        clock.advance(Duration::from_millis(1));
        assert_eq!(heard.recv().await.as_deref(), Some("a"));
        timers.arm("b", None);
        clock.advance(Duration::from_secs(5));
        tokio::task::yield_now().await;
        assert!(heard.try_recv().is_err(), "a cleared deadline never fires");
        task.abort();
    }

    #[tokio::test]
    async fn the_shifted_clock_fires_a_deadline_days_away_once_moved_on() {
        let clock = ShiftedClock::new();
        let start = clock.now_millis();
        let (timers, mut heard, task) = running_timers(clock.clone());
        timers.arm("later", Some(start + 3 * 86_400_000));
        tokio::task::yield_now().await;
        assert!(heard.try_recv().is_err(), "three days are not up");
        let now = clock.advance(Duration::from_secs(3 * 86_400));
        assert!(
            now >= start + 3 * 86_400_000,
            "the clock moved on by three days"
        );
        assert_eq!(heard.recv().await.as_deref(), Some("later"));
        task.abort();
    }
}
