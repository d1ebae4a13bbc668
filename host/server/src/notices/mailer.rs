//! The mail sender: a background task that takes due mails from the outbox, claims each one (an
//! update conditional on its state, so of several server processes exactly one sends it), makes
//! its text and links, and hands it to the operator's SMTP relay. A mail that fails is tried
//! again later, [`MAX_ATTEMPTS`] times in all, then marked failed (the health page counts them).
//! A mail no longer wanted when its time comes (the address removed, mails turned off, the turn
//! a reminder was for already played) is dropped.
//!
//! Exactly once, with one exception SMTP itself leaves open: a process killed after the relay
//! accepted a mail but before it stored that, sends it again when its lease runs out.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context as _;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Mailbox, Message};
use lettre::{AsyncSmtpTransport, AsyncTransport as _, Tokio1Executor};

use super::store::{self, OutgoingMail};
use super::{Kind, links, wording};
use crate::clocks::{Clock, TableClock};
use crate::storage::{Storage, now_millis};

/// How often the sender looks at the outbox even when nothing woke it (mails queued by another
/// server process, retries), in real time.
const POLL: Duration = Duration::from_secs(5);

/// How long a claim lasts on the wall clock before another sender may take the mail (a crashed
/// sender's).
const LEASE_MS: i64 = 5 * 60_000;

/// Tries per mail before it is marked failed.
pub const MAX_ATTEMPTS: i64 = 5;

/// The first retry's delay; each next one doubles it.
const FIRST_RETRY_MS: i64 = 60_000;

/// Wakes the senders of this process: a mail was queued.
static QUEUED: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Tells the senders a mail was queued.
pub fn wake() {
    QUEUED.notify_waiters();
}

/// The sender's settings (`tenka serve --smtp-url ... --mail-from ... --public-url ...`).
#[derive(Clone, Debug)]
pub struct MailSettings {
    /// The relay: `smtp://host:port` (plain, for a relay on the same machine or network),
    /// `smtp://host:587?tls=required` (STARTTLS) or `smtps://host:465`, with `user:password@`
    /// when the relay wants them.
    pub smtp_url: String,
    /// The sender address (`Tenka <tenka@example.org>`).
    pub from: String,
    /// The server's public address, for links (`https://play.example.org`).
    pub public_url: String,
}

/// A running sender's figures.
#[derive(Debug, Default)]
pub struct MailerStats {
    /// Mails this process handed to the relay.
    pub sent: AtomicU64,
}

/// The mail sender.
pub struct Mailer {
    storage: Storage,
    clock: Arc<dyn Clock>,
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    public_url: String,
    stats: Arc<MailerStats>,
}

impl Mailer {
    /// A sender with these settings; refuses a relay URL or sender address it cannot use.
    pub fn new(
        storage: Storage,
        clock: Arc<dyn Clock>,
        settings: &MailSettings,
    ) -> anyhow::Result<Mailer> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&settings.smtp_url)
            .context(
                "--smtp-url is not a relay URL lettre can use (smtp://host:port, smtps://...)",
            )?
            .timeout(Some(Duration::from_secs(30)))
            .build();
        let from: Mailbox = settings
            .from
            .parse()
            .with_context(|| format!("--mail-from is not an address: `{}`", settings.from))?;
        let public_url = settings.public_url.trim_end_matches('/').to_owned();
        anyhow::ensure!(
            public_url.starts_with("http://") || public_url.starts_with("https://"),
            "--public-url must start with http:// or https://, not `{public_url}`"
        );
        Ok(Mailer {
            storage,
            clock,
            transport,
            from,
            public_url,
            stats: Arc::default(),
        })
    }

    /// The sender's figures.
    pub fn stats(&self) -> Arc<MailerStats> {
        self.stats.clone()
    }

    /// Runs the sender in a task of its own, for as long as the process lives.
    pub fn spawn(self) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move { self.run().await })
    }

    async fn run(self) {
        loop {
            // Registered before looking, so a mail queued while this one looks still wakes it.
            let queued = QUEUED.notified();
            let next = match self.send_due().await {
                Ok(next) => next,
                Err(error) => {
                    tracing::warn!("mail: {error:#}");
                    None
                }
            };
            let clock_due = match next {
                Some(at) => self.clock.sleep_until(at),
                None => Box::pin(std::future::pending()),
            };
            tokio::select! {
                () = queued => {}
                () = clock_due => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }

    /// Sends every mail due now; when the next queued one is due.
    async fn send_due(&self) -> anyhow::Result<Option<i64>> {
        loop {
            let now = self.clock.now_millis();
            let due = store::due_mails(&self.storage, now, now_millis(), 32).await?;
            if due.is_empty() {
                return store::next_due(&self.storage).await;
            }
            for id in due {
                let now = self.clock.now_millis();
                let claimed =
                    store::claim_mail(&self.storage, id, now, now_millis(), LEASE_MS).await?;
                let Some(mail) = claimed else {
                    continue;
                };
                self.send_one(mail).await?;
            }
        }
    }

    /// Sends one claimed mail, or drops it, or leaves it for another try.
    async fn send_one(&self, mail: OutgoingMail) -> anyhow::Result<()> {
        let now = self.clock.now_millis();
        let message = match self.message(&mail, now).await {
            Ok(Some(message)) => message,
            Ok(None) => {
                return store::finish_mail(&self.storage, &mail, "dropped", now, None, None).await;
            }
            Err(error) => {
                let error = format!("{error:#}");
                return store::finish_mail(&self.storage, &mail, "failed", now, None, Some(&error))
                    .await;
            }
        };
        match self.transport.send(message).await {
            Ok(_) => {
                self.stats.sent.fetch_add(1, Ordering::Relaxed);
                store::finish_mail(&self.storage, &mail, "sent", now, None, None).await
            }
            Err(error) => {
                let error = error.to_string();
                tracing::warn!("mail {}: the relay refused or failed: {error}", mail.id);
                if mail.attempts >= MAX_ATTEMPTS {
                    store::finish_mail(&self.storage, &mail, "failed", now, None, Some(&error))
                        .await
                } else {
                    let retry = now + FIRST_RETRY_MS * (1 << (mail.attempts - 1).clamp(0, 10));
                    store::finish_mail(
                        &self.storage,
                        &mail,
                        "queued",
                        now,
                        Some(retry),
                        Some(&error),
                    )
                    .await
                }
            }
        }
    }

    /// Whether a mail is still wanted when its time comes.
    async fn still_due(&self, mail: &OutgoingMail) -> anyhow::Result<bool> {
        let mark = store::mark_of(&self.storage, &mail.game).await?;
        let seat = mail.seat;
        let waiting = |mark: &super::Mark| {
            !mark.finished
                && seat
                    .is_some_and(|seat| mark.waiting.contains(&seat) && !mark.bots.contains(&seat))
        };
        Ok(match mail.kind {
            Kind::YourTurn => mark.as_ref().is_none_or(waiting),
            Kind::Reminder => {
                let since =
                    serde_json::from_str::<serde_json::Value>(&mail.check_json)?["since"].as_i64();
                let clock = self
                    .storage
                    .clock(&mail.game)
                    .await?
                    .map(|(pace, state, version)| TableClock::from_stored(&pace, &state, version))
                    .transpose()?;
                let running_since = clock.and_then(|clock| {
                    clock
                        .seats
                        .get(seat? as usize)
                        .and_then(|seat_clock| seat_clock.since)
                });
                mark.as_ref().is_some_and(waiting) && since.is_some() && running_since == since
            }
            Kind::Replaced | Kind::Returned | Kind::Ended => true,
        })
    }

    /// The mail to send, or `None` when it is no longer wanted.
    async fn message(&self, mail: &OutgoingMail, now: i64) -> anyhow::Result<Option<Message>> {
        let settings = store::settings(&self.storage, &mail.account).await?;
        let Some(address) = settings.email.clone().filter(|_| settings.mails(mail.kind)) else {
            return Ok(None);
        };
        if !self.still_due(mail).await? {
            return Ok(None);
        }
        let to: Mailbox = address
            .parse()
            .with_context(|| format!("the account's address is not one: `{address}`"))?;
        let game = self
            .storage
            .game(&mail.game)
            .await?
            .context("the mail's game is gone")?;
        let key = links::unsubscribe_key(&self.storage).await?;
        let unsubscribe = format!(
            "{}{}",
            self.public_url,
            links::unsubscribe_path(&key, &mail.account)
        );
        let open = format!(
            "{}{}",
            self.public_url,
            links::new_sign_in_link(&self.storage, &mail.account, &mail.game, mail.seat, now)
                .await?
        );
        let language = store::account_language(&self.storage, &mail.account)
            .await?
            .unwrap_or_default();
        let my_games = format!("{}/#/my-games", self.public_url);
        let text = wording::mail_text(
            &language,
            &wording::MailFacts {
                kind: mail.kind,
                ruleset: &game.ruleset_id,
                game: &game.id,
                seat: mail.seat,
                open: &open,
                hours: links::SIGN_IN_LINK_HOURS,
                my_games: &my_games,
                unsubscribe: &unsubscribe,
            },
        );
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(text.subject)
            .header(ContentType::TEXT_PLAIN)
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe"),
                format!("<{unsubscribe}>"),
            ))
            .raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                "List-Unsubscribe=One-Click".to_owned(),
            ))
            .body(text.body)
            .context("failed to build a mail")?;
        Ok(Some(message))
    }
}
