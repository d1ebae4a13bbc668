//! Notices for accounts' seats: "your turn", "a player was replaced by a bot" (or "took the seat
//! back"), "the game ended", and reminders before a turn-based seat's clock runs out. Shown in
//! the page (`GET /api/me/notices`: the title, a badge, the browser's notifications) and sent by
//! email to an address the account gives ([`mailer`]).
//!
//! Notices come from what a game looks like, not from the code paths that change it: after each
//! stored move or seat hand-over the hub calls [`observe`], which compares the game's standing
//! (its version, the seats owing an answer, the seats bots play, whether it is over) with the
//! [`Mark`] stored for it, and writes the notices the difference makes. The mark is replaced by
//! an update conditional on the generation read (as a clock's expiry is claimed), in the same
//! transaction as the notices and the mails it queues: of several server processes exactly one
//! writes them, and a change is never noticed twice.
//!
//! A notice says only what every seat may see: which game, which seat's turn, which seat a bot
//! took, that the game ended. Nothing of any seat's private information goes into a notice or a
//! mail.

pub mod links;
pub mod mailer;
pub mod store;
pub mod wording;

use std::collections::BTreeSet;

use sdk::Seat;
use serde::{Deserialize, Serialize};

use crate::clocks::TableClock;
use crate::storage::Storage;
use crate::storage::StoredSeat;

/// What a notice is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A seat of the account owes an answer.
    YourTurn,
    /// A person's seat is now played by a bot (handed over, or out of time).
    Replaced,
    /// A person took their seat back from a bot.
    Returned,
    /// The game is over.
    Ended,
    /// A turn-based seat's time is running out (mail only).
    Reminder,
}

impl Kind {
    /// The name stored and shown in the API.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::YourTurn => "your-turn",
            Kind::Replaced => "replaced",
            Kind::Returned => "returned",
            Kind::Ended => "ended",
            Kind::Reminder => "reminder",
        }
    }

    /// The kind of a stored name.
    pub fn parse(name: &str) -> Option<Kind> {
        [
            Kind::YourTurn,
            Kind::Replaced,
            Kind::Returned,
            Kind::Ended,
            Kind::Reminder,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == name)
    }
}

/// What the notices last saw of a game.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// The game's version (its number of actions).
    pub version: u64,
    /// The seats owing an answer.
    pub waiting: BTreeSet<Seat>,
    /// The people's seats a bot plays now.
    pub bots: BTreeSet<Seat>,
    /// Whether the game is over.
    pub finished: bool,
}

impl Mark {
    /// A game at `version`, waiting for `waiting`, over or not, with these seats.
    pub fn new(
        version: u64,
        waiting: impl IntoIterator<Item = Seat>,
        finished: bool,
        seats: &[StoredSeat],
    ) -> Mark {
        Mark {
            version,
            waiting: waiting.into_iter().collect(),
            bots: (seats.iter())
                .filter(|seat| seat.kind == "human" && seat.bot.is_some())
                .map(|seat| seat.seat)
                .collect(),
            finished,
        }
    }
}

/// What the games show the notices of one game at one moment.
#[derive(Clone, Debug)]
pub struct Sighting {
    /// The game's id.
    pub game: String,
    /// Where it stands.
    pub mark: Mark,
    /// Its clock, if timed.
    pub clock: Option<TableClock>,
}

/// One change between two marks, before it is addressed to accounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    pub kind: Kind,
    /// The seat it is about (none for the end of the game).
    pub seat: Option<Seat>,
}

/// The changes from `before` (none: the first look at the game) to `after`. A look older than
/// the mark stored (`after` of a lower version) changes nothing: a newer look was written.
pub fn changes(before: Option<&Mark>, after: &Mark) -> Vec<Change> {
    let empty = Mark::default();
    if before.is_some_and(|before| after.version < before.version) {
        return Vec::new();
    }
    let first = before.is_none();
    let before = before.unwrap_or(&empty);
    let mut found = Vec::new();
    let change = |kind, seat| Change { kind, seat };
    if !first {
        for &seat in after.bots.difference(&before.bots) {
            found.push(change(Kind::Replaced, Some(seat)));
        }
        for &seat in before.bots.difference(&after.bots) {
            found.push(change(Kind::Returned, Some(seat)));
        }
    }
    if after.finished {
        if !before.finished {
            found.push(change(Kind::Ended, None));
        }
        return found;
    }
    for &seat in &after.waiting {
        // A seat that owed an answer before still owes the same one (a simultaneous decision
        // others answered), and one a bot plays is no person's turn. A seat taken back from a
        // bot is its person's doing: they know.
        let back = before.bots.contains(&seat);
        if !before.waiting.contains(&seat) && !after.bots.contains(&seat) && !back {
            found.push(change(Kind::YourTurn, Some(seat)));
        }
    }
    found
}

/// When to remind the person of a running turn-based seat: when less than a quarter of the
/// seat's time (and at most twelve hours) is left. `None` when the seat's clock does not run or
/// the table is not turn-based.
pub fn reminder_time(clock: &TableClock, seat: Seat) -> Option<(i64, i64)> {
    if clock.pace.kind != "turn-based" {
        return None;
    }
    let seat_clock = clock.seats.get(seat as usize)?;
    let since = seat_clock.since?;
    let total = clock.pace.move_ms + seat_clock.bank_ms;
    let lead = (total / 4).min(REMINDER_LEAD_MS);
    Some((since, since + total - lead))
}

/// The most time left at which a reminder is sent.
pub const REMINDER_LEAD_MS: i64 = 12 * 3_600_000;

/// Looks at `game` after a move or a seat hand-over was stored and writes the notices (and
/// queues the mails) the change makes, in a task of its own: the mover's answer does not wait
/// for it. Cheap for games no account plays: one query.
pub fn observe(storage: &Storage, now: i64, seen: Sighting) {
    let storage = storage.clone();
    tokio::spawn(async move {
        if let Err(error) = store::observe(&storage, now, &seen).await {
            tracing::warn!("game {}: notices: {error:#}", seen.game);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(version: u64, waiting: &[Seat], bots: &[Seat], finished: bool) -> Mark {
        Mark {
            version,
            waiting: waiting.iter().copied().collect(),
            bots: bots.iter().copied().collect(),
            finished,
        }
    }

    fn kinds(found: &[Change]) -> Vec<(Kind, Option<Seat>)> {
        found
            .iter()
            .map(|change| (change.kind, change.seat))
            .collect()
    }

    #[test]
    fn a_seat_that_starts_owing_an_answer_is_told_once() {
        let first = mark(0, &[0], &[], false);
        assert_eq!(kinds(&changes(None, &first)), [(Kind::YourTurn, Some(0))]);
        let next = mark(1, &[1], &[], false);
        assert_eq!(
            kinds(&changes(Some(&first), &next)),
            [(Kind::YourTurn, Some(1))]
        );
        // A simultaneous decision: seat 1 still owes the answer it owed.
        let both = mark(2, &[0, 1], &[], false);
        let one_left = mark(3, &[1], &[], false);
        assert_eq!(kinds(&changes(Some(&both), &one_left)), []);
    }

    #[test]
    fn hand_overs_and_the_end_are_told_and_an_older_look_changes_nothing() {
        let before = mark(4, &[0], &[], false);
        let handed = mark(4, &[0], &[0], false);
        assert_eq!(
            kinds(&changes(Some(&before), &handed)),
            [(Kind::Replaced, Some(0))]
        );
        assert_eq!(
            kinds(&changes(Some(&handed), &before)),
            [(Kind::Returned, Some(0))],
            "taken back: no 'your turn' for the person who took it"
        );
        let over = mark(9, &[], &[0], true);
        assert_eq!(kinds(&changes(Some(&handed), &over)), [(Kind::Ended, None)]);
        assert_eq!(kinds(&changes(Some(&over), &before)), []);
    }
}
