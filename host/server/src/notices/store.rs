//! The notices' tables (`migrations/*/20261129070000_notices.sql`): each account's settings,
//! each game's [`Mark`], the page's notices, the mail outbox and its one-time links. Only the
//! notices module writes them.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Context as _;
use sdk::Seat;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sqlx::Row as _;

use super::{Change, Kind, Mark, Sighting, changes, reminder_time};
use crate::storage::Storage;

/// An account's notice settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Where mails go; none: no mail.
    #[serde(default)]
    pub email: Option<String>,
    /// Mails at all (a one-click unsubscribe turns this off).
    pub mail: bool,
    /// Mail when it is the account's turn (turn-based and untimed tables).
    pub your_turn: bool,
    /// Mail when a player is replaced by a bot or takes the seat back.
    pub replaced: bool,
    /// Mail when a game ends.
    pub ended: bool,
    /// Mail before a turn-based seat's time runs out.
    pub reminders: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            email: None,
            mail: true,
            your_turn: true,
            replaced: true,
            ended: true,
            reminders: true,
        }
    }
}

impl Settings {
    /// Whether a mail of `kind` goes out under these settings.
    pub fn mails(&self, kind: Kind) -> bool {
        self.email.is_some()
            && self.mail
            && match kind {
                Kind::YourTurn => self.your_turn,
                Kind::Replaced | Kind::Returned => self.replaced,
                Kind::Ended => self.ended,
                Kind::Reminder => self.reminders,
            }
    }
}

fn flag(value: bool) -> i64 {
    i64::from(value)
}

/// An account's settings (the defaults, without an address, when it never saved any).
pub async fn settings(storage: &Storage, account: &str) -> anyhow::Result<Settings> {
    let row = sqlx::query(
        "SELECT email, mail, your_turn, replaced, ended, reminders FROM notice_settings \
         WHERE account_id = $1",
    )
    .bind(account)
    .fetch_optional(storage.pool())
    .await
    .context("failed to read notice settings")?;
    let Some(row) = row else {
        return Ok(Settings::default());
    };
    let on = |index: usize| -> anyhow::Result<bool> { Ok(row.try_get::<i64, _>(index)? != 0) };
    Ok(Settings {
        email: row.try_get(0)?,
        mail: on(1)?,
        your_turn: on(2)?,
        replaced: on(3)?,
        ended: on(4)?,
        reminders: on(5)?,
    })
}

/// The language an account's mails are written in (`None`: not chosen, or the account is gone).
/// Read here rather than through the accounts module, which sits above the live games and so
/// above the notices.
pub async fn account_language(storage: &Storage, account: &str) -> anyhow::Result<Option<String>> {
    let row = sqlx::query("SELECT language FROM accounts WHERE id = $1")
        .bind(account)
        .fetch_optional(storage.pool())
        .await
        .context("failed to read an account's language")?;
    Ok(match row {
        Some(row) => row.try_get(0)?,
        None => None,
    })
}

/// Stores an account's settings.
pub async fn save_settings(
    storage: &Storage,
    account: &str,
    settings: &Settings,
    now: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "INSERT INTO notice_settings \
         (account_id, email, mail, your_turn, replaced, ended, reminders, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (account_id) DO UPDATE SET \
         email = excluded.email, mail = excluded.mail, your_turn = excluded.your_turn, \
         replaced = excluded.replaced, ended = excluded.ended, reminders = excluded.reminders, \
         updated_at = excluded.updated_at",
    )
    .bind(account)
    .bind(&settings.email)
    .bind(flag(settings.mail))
    .bind(flag(settings.your_turn))
    .bind(flag(settings.replaced))
    .bind(flag(settings.ended))
    .bind(flag(settings.reminders))
    .bind(now)
    .execute(storage.pool())
    .await
    .context("failed to store notice settings")?;
    Ok(())
}

/// Turns every mail of an account off (the one-click unsubscribe).
pub async fn unsubscribe(storage: &Storage, account: &str, now: i64) -> anyhow::Result<bool> {
    let exists = sqlx::query("SELECT 1 FROM accounts WHERE id = $1")
        .bind(account)
        .fetch_optional(storage.pool())
        .await
        .context("failed to read an account")?
        .is_some();
    if !exists {
        return Ok(false);
    }
    let mut settings = settings(storage, account).await?;
    settings.mail = false;
    save_settings(storage, account, &settings, now).await?;
    Ok(true)
}

/// The seats of a game attached to accounts: (seat, account).
async fn table_accounts(storage: &Storage, game: &str) -> anyhow::Result<Vec<(Seat, String)>> {
    let rows =
        sqlx::query("SELECT seat, account_id FROM account_seats WHERE game_id = $1 ORDER BY seat")
            .bind(game)
            .fetch_all(storage.pool())
            .await
            .context("failed to read a game's accounts")?;
    rows.iter()
        .map(|row| Ok((u32::try_from(row.try_get::<i64, _>(0)?)?, row.try_get(1)?)))
        .collect()
}

/// A game's stored mark and its generation.
async fn stored_mark(storage: &Storage, game: &str) -> anyhow::Result<Option<(i64, Mark)>> {
    let row = sqlx::query("SELECT generation, mark_json FROM notice_marks WHERE game_id = $1")
        .bind(game)
        .fetch_optional(storage.pool())
        .await
        .context("failed to read a notice mark")?;
    row.map(|row| {
        let mark: Mark = serde_json::from_str(&row.try_get::<String, _>(1)?)?;
        Ok((row.try_get(0)?, mark))
    })
    .transpose()
}

/// A notice addressed to an account, with the key that keeps it from being written twice.
struct Addressed {
    account: String,
    kind: Kind,
    seat: Option<Seat>,
    dedupe: String,
}

/// The notices `found` makes for the accounts at the table, at mark generation `generation`.
fn address(
    game: &str,
    generation: i64,
    found: &[Change],
    accounts: &[(Seat, String)],
) -> Vec<Addressed> {
    let everyone: BTreeSet<&String> = accounts.iter().map(|(_, account)| account).collect();
    let owner = |seat: Seat| {
        accounts
            .iter()
            .find(|(owned, _)| *owned == seat)
            .map(|(_, account)| account)
    };
    let mut notices = Vec::new();
    for change in found {
        let kind = change.kind.as_str();
        let seat_part = change.seat.map_or("-".to_owned(), |seat| seat.to_string());
        let to: Vec<&String> = match (change.kind, change.seat) {
            (Kind::YourTurn, Some(seat)) => owner(seat).into_iter().collect(),
            (Kind::Returned, Some(seat)) => everyone
                .iter()
                .copied()
                .filter(|account| Some(*account) != owner(seat))
                .collect(),
            _ => everyone.iter().copied().collect(),
        };
        for account in to {
            notices.push(Addressed {
                account: account.clone(),
                kind: change.kind,
                seat: change.seat,
                dedupe: format!("{kind}:{game}:{seat_part}:{generation}:{account}"),
            });
        }
    }
    notices
}

/// Looks at a game now ([`super::observe`]): claims the change from the stored mark and writes
/// its notices, mails and reminders in one transaction. Tries again when another process
/// claimed a change first.
pub async fn observe(storage: &Storage, now: i64, seen: &Sighting) -> anyhow::Result<()> {
    let game = seen.game.as_str();
    let accounts = table_accounts(storage, game).await?;
    if accounts.is_empty() {
        return Ok(());
    }
    let mut wanted = BTreeMap::new();
    for (_, account) in &accounts {
        if !wanted.contains_key(account) {
            wanted.insert(account.clone(), settings(storage, account).await?);
        }
    }
    let pace = seen.clock.as_ref().map(|clock| clock.pace.kind.as_str());
    for _ in 0..3 {
        let after = seen.mark.clone();
        let stored = stored_mark(storage, game).await?;
        if stored.as_ref().is_some_and(|(_, mark)| *mark == after) {
            return Ok(());
        }
        let found = changes(stored.as_ref().map(|(_, mark)| mark), &after);
        if stored
            .as_ref()
            .is_some_and(|(_, before)| after.version < before.version)
        {
            return Ok(());
        }
        let mut tx = storage.pool().begin().await?;
        let mark_json = serde_json::to_string(&after)?;
        let (claimed, generation) = match &stored {
            None => (
                sqlx::query(
                    "INSERT INTO notice_marks (game_id, generation, mark_json) VALUES ($1, 0, $2) \
                     ON CONFLICT (game_id) DO NOTHING",
                )
                .bind(game)
                .bind(&mark_json)
                .execute(&mut *tx)
                .await?
                .rows_affected(),
                0,
            ),
            Some((seen, _)) => (
                sqlx::query(
                    "UPDATE notice_marks SET generation = generation + 1, mark_json = $1 \
                     WHERE game_id = $2 AND generation = $3",
                )
                .bind(&mark_json)
                .bind(game)
                .bind(seen)
                .execute(&mut *tx)
                .await?
                .rows_affected(),
                seen + 1,
            ),
        };
        if claimed != 1 {
            // Another process wrote a newer look first: look again from it.
            drop(tx);
            continue;
        }
        let mut mails = 0;
        for notice in address(game, generation, &found, &accounts) {
            sqlx::query(
                "INSERT INTO account_notices (account_id, game_id, seat, kind, dedupe, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (dedupe) DO NOTHING",
            )
            .bind(&notice.account)
            .bind(game)
            .bind(notice.seat.map(i64::from))
            .bind(notice.kind.as_str())
            .bind(&notice.dedupe)
            .bind(now)
            .execute(&mut *tx)
            .await
            .context("failed to store a notice")?;
            // A live table's turns come seconds apart: the page tells them, not the mail.
            let live_turn = notice.kind == Kind::YourTurn && pace == Some("live");
            if !live_turn
                && wanted
                    .get(&notice.account)
                    .is_some_and(|s| s.mails(notice.kind))
            {
                mails += queue_mail(&mut tx, &notice, game, "{}", now, now).await?;
            }
        }
        // Reminders for every person's seat whose turn-based clock runs, once per turn (keyed
        // by when its clock started).
        if let Some(clock) = seen.clock.as_ref().filter(|_| !after.finished) {
            for (seat, account) in &accounts {
                let Some((since, at)) = reminder_time(clock, *seat) else {
                    continue;
                };
                if !after.waiting.contains(seat)
                    || after.bots.contains(seat)
                    || !wanted.get(account).is_some_and(|s| s.mails(Kind::Reminder))
                {
                    continue;
                }
                let notice = Addressed {
                    account: account.clone(),
                    kind: Kind::Reminder,
                    seat: Some(*seat),
                    dedupe: format!("reminder:{game}:{seat}:{since}:{account}"),
                };
                let check = json!({ "since": since }).to_string();
                mails += queue_mail(&mut tx, &notice, game, &check, at.max(now), now).await?;
            }
        }
        tx.commit().await.context("failed to commit notices")?;
        if mails > 0 {
            super::mailer::wake();
        }
        return Ok(());
    }
    Ok(())
}

/// Queues one mail (once: a second with the same key is ignored); how many were queued.
async fn queue_mail(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    notice: &Addressed,
    game: &str,
    check_json: &str,
    not_before: i64,
    now: i64,
) -> anyhow::Result<u64> {
    Ok(sqlx::query(
        "INSERT INTO mail_outbox (dedupe, account_id, game_id, seat, kind, check_json, state, \
         not_before, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8) \
         ON CONFLICT (dedupe) DO NOTHING",
    )
    .bind(format!("mail:{}", notice.dedupe))
    .bind(&notice.account)
    .bind(game)
    .bind(notice.seat.map(i64::from))
    .bind(notice.kind.as_str())
    .bind(check_json)
    .bind(not_before)
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("failed to queue a mail")?
    .rows_affected())
}

/// A notice as the page reads it.
#[derive(Clone, Debug, Serialize)]
pub struct PageNotice {
    pub id: i64,
    pub game: String,
    pub seat: Option<u32>,
    pub kind: String,
    pub created_at: i64,
    pub seen: bool,
}

/// An account's newest notices (at most `limit`), newest first, and how many are unseen.
pub async fn page_notices(
    storage: &Storage,
    account: &str,
    limit: u32,
) -> anyhow::Result<(Vec<PageNotice>, i64)> {
    let rows = sqlx::query(
        "SELECT id, game_id, seat, kind, created_at, seen FROM account_notices \
         WHERE account_id = $1 ORDER BY id DESC LIMIT $2",
    )
    .bind(account)
    .bind(i64::from(limit))
    .fetch_all(storage.pool())
    .await
    .context("failed to read notices")?;
    let notices = rows
        .iter()
        .map(|row| {
            Ok(PageNotice {
                id: row.try_get(0)?,
                game: row.try_get(1)?,
                seat: row
                    .try_get::<Option<i64>, _>(2)?
                    .map(u32::try_from)
                    .transpose()?,
                kind: row.try_get(3)?,
                created_at: row.try_get(4)?,
                seen: row.try_get::<i64, _>(5)? != 0,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let unseen: i64 =
        sqlx::query("SELECT COUNT(*) FROM account_notices WHERE account_id = $1 AND seen = 0")
            .bind(account)
            .fetch_one(storage.pool())
            .await
            .context("failed to count notices")?
            .try_get(0)?;
    Ok((notices, unseen))
}

/// Marks an account's notices up to `up_to` seen (of one game only, when given).
pub async fn mark_seen(
    storage: &Storage,
    account: &str,
    up_to: i64,
    game: Option<&str>,
) -> anyhow::Result<u64> {
    let query = match game {
        Some(_) => {
            "UPDATE account_notices SET seen = 1 WHERE account_id = $1 AND id <= $2 AND seen = 0 \
             AND game_id = $3"
        }
        None => {
            "UPDATE account_notices SET seen = 1 WHERE account_id = $1 AND id <= $2 AND seen = 0"
        }
    };
    let mut query = sqlx::query(query).bind(account).bind(up_to);
    if let Some(game) = game {
        query = query.bind(game);
    }
    Ok(query
        .execute(storage.pool())
        .await
        .context("failed to mark notices seen")?
        .rows_affected())
}

/// A mail claimed for sending.
#[derive(Clone, Debug)]
pub struct OutgoingMail {
    pub id: i64,
    pub account: String,
    pub game: String,
    pub seat: Option<u32>,
    pub kind: Kind,
    pub check_json: String,
    pub attempts: i64,
}

/// The ids of mails due at `now` on the tables' clock (queued and due), or claimed by a sender
/// whose lease ran out by `wall_now`, the wall clock's time.
///
/// A lease measures how long a sender may take, so it runs on the wall clock, not on the
/// tables' clock that reminders are due on: a tables' clock moved on (a test's, or the wall
/// clock set forward) must not let another sender take a mail that is being sent.
pub async fn due_mails(
    storage: &Storage,
    now: i64,
    wall_now: i64,
    limit: u32,
) -> anyhow::Result<Vec<i64>> {
    let rows = sqlx::query(
        "SELECT id FROM mail_outbox WHERE (state = 'queued' AND not_before <= $1) \
         OR (state = 'sending' AND lease_until < $2) ORDER BY not_before, id LIMIT $3",
    )
    .bind(now)
    .bind(wall_now)
    .bind(i64::from(limit))
    .fetch_all(storage.pool())
    .await
    .context("failed to read due mails")?;
    rows.iter().map(|row| Ok(row.try_get(0)?)).collect()
}

/// When the next queued mail is due, if any.
pub async fn next_due(storage: &Storage) -> anyhow::Result<Option<i64>> {
    let row = sqlx::query("SELECT MIN(not_before) FROM mail_outbox WHERE state = 'queued'")
        .fetch_one(storage.pool())
        .await
        .context("failed to read the next mail's time")?;
    Ok(row.try_get::<Option<i64>, _>(0)?)
}

/// Claims mail `id` for sending for `lease_ms` of the wall clock from `wall_now` (see
/// [`due_mails`]); the mail for the one sender that did.
pub async fn claim_mail(
    storage: &Storage,
    id: i64,
    now: i64,
    wall_now: i64,
    lease_ms: i64,
) -> anyhow::Result<Option<OutgoingMail>> {
    let claimed = sqlx::query(
        "UPDATE mail_outbox SET state = 'sending', lease_until = $1, attempts = attempts + 1 \
         WHERE id = $2 AND ((state = 'queued' AND not_before <= $3) \
         OR (state = 'sending' AND lease_until < $4))",
    )
    .bind(wall_now.saturating_add(lease_ms))
    .bind(id)
    .bind(now)
    .bind(wall_now)
    .execute(storage.pool())
    .await
    .context("failed to claim a mail")?
    .rows_affected();
    if claimed != 1 {
        return Ok(None);
    }
    let row = sqlx::query(
        "SELECT account_id, game_id, seat, kind, check_json, attempts FROM mail_outbox \
         WHERE id = $1",
    )
    .bind(id)
    .fetch_one(storage.pool())
    .await
    .context("failed to read a claimed mail")?;
    let kind: String = row.try_get(3)?;
    Ok(Some(OutgoingMail {
        id,
        account: row.try_get(0)?,
        game: row.try_get(1)?,
        seat: row
            .try_get::<Option<i64>, _>(2)?
            .map(u32::try_from)
            .transpose()?,
        kind: Kind::parse(&kind).with_context(|| format!("a mail of unknown kind `{kind}`"))?,
        check_json: row.try_get(4)?,
        attempts: row.try_get(5)?,
    }))
}

/// Ends a claimed mail: `sent`, `dropped` (no longer wanted) or `failed` (given up), or back to
/// `queued` for another try at `retry_at`. Only the sender's own claim: once another sender
/// took the mail over (its lease ran out), the outcome is that sender's to record.
pub async fn finish_mail(
    storage: &Storage,
    mail: &OutgoingMail,
    state: &str,
    now: i64,
    retry_at: Option<i64>,
    error: Option<&str>,
) -> anyhow::Result<()> {
    sqlx::query(
        "UPDATE mail_outbox SET state = $1, lease_until = NULL, sent_at = $2, \
         not_before = COALESCE($3, not_before), last_error = COALESCE($4, last_error) \
         WHERE id = $5 AND state = 'sending' AND attempts = $6",
    )
    .bind(state)
    .bind((state == "sent").then_some(now))
    .bind(retry_at)
    .bind(error)
    .bind(mail.id)
    .bind(mail.attempts)
    .execute(storage.pool())
    .await
    .context("failed to record a mail's outcome")?;
    Ok(())
}

/// The mails in each state (`queued`, `sending`, `sent`, `failed`, `dropped`).
pub async fn mail_counts(storage: &Storage) -> anyhow::Result<BTreeMap<String, i64>> {
    let rows = sqlx::query("SELECT state, COUNT(*) FROM mail_outbox GROUP BY state")
        .fetch_all(storage.pool())
        .await
        .context("failed to count mails")?;
    rows.iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect()
}

/// The stored mark of a game, for checking a mail is still due when it is sent.
pub async fn mark_of(storage: &Storage, game: &str) -> anyhow::Result<Option<Mark>> {
    Ok(stored_mark(storage, game).await?.map(|(_, mark)| mark))
}
