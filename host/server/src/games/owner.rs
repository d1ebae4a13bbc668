//! The owner of one live game: a task that alone holds the game's running session and answers
//! typed [`Command`]s one at a time, so one game's calls run one after another while any number
//! of games run side by side. Callers hold a [`LiveGame`], a cheap handle with the game's public
//! facts and the owner's mailbox; nothing else ever touches the session.
//!
//! The owner's work is written by job, as the hub's is: loading and committing here, a seat's
//! move and preview in `moves.rs`, views in `views.rs`, bots' moves in `bots.rs`, clocks in
//! `clocks.rs`, catching up with other processes in `following.rs`, parking in `residency.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Instant;

use anyhow::Context as _;
use sdk::{Action, PendingDecision, PreviewNote, Seat, Viewer};
use tokio::sync::{mpsc, oneshot};

use super::{
    ActionWrite, AfterApply, DecisionAges, Hub, LiveGame, LiveResult, Submitted, Update, ViewData,
    summarize,
};
use crate::ruleset_calls::{self as calls, Session};
use crate::storage::{DatabaseKind, Insert};
use tenka_game::bots::Bot;
use tenka_game::record::RecordedAction;
use tenka_game::session::{Applied, GameSpec};

/// Where an owner sends an answer.
pub(super) type Reply<T> = oneshot::Sender<T>;

/// What a live game's owner is asked to do.
pub(super) enum Command {
    /// A seat's answer against the version it saw: applied, stored, published.
    Submit {
        seat: Seat,
        expected: u64,
        action: Action,
        reply: Reply<LiveResult<Submitted>>,
    },
    /// What an action would do now; changes nothing.
    Preview {
        seat: Seat,
        action: Action,
        reply: Reply<LiveResult<Vec<PreviewNote>>>,
    },
    /// What a viewer sees now.
    View {
        viewer: Viewer,
        reply: Reply<LiveResult<Arc<ViewData>>>,
    },
    /// How the game was set up and its first `at` actions, for a past board of a finished game.
    PastMoves {
        at: u64,
        reply: Reply<LiveResult<(GameSpec, Vec<RecordedAction>)>>,
    },
    /// The full record of a finished game.
    Record {
        reply: Reply<LiveResult<serde_json::Value>>,
    },
    /// Recompute the public standing from the session just handed over at creation.
    Standing { reply: Reply<LiveResult<()>> },
    /// Load the session if it is not in memory; answers whether it loaded it now.
    Load { reply: Reply<LiveResult<bool>> },
    /// Hand a seat to a bot (`Some`) or back to its person (`None`).
    HandOver {
        seat: Seat,
        bot: Option<String>,
        reply: Reply<LiveResult<()>>,
    },
    /// Let a bot answer the first pending decision a bot plays.
    BotMove {
        /// When the bot's turn began: its think time runs from here.
        turn_started: Instant,
        /// Whether the runner holds a thinking slot for this move.
        in_slot: bool,
        reply: Reply<BotTurn>,
    },
    /// Act on the table clock's timer.
    Expire { reply: Reply<()> },
    /// Another process stored the game's version `seq`: catch up.
    Follow { seq: u64, reply: Reply<()> },
    /// Free the running instance, keeping the state as a parked snapshot; answers false when
    /// parking failed (the session is then dropped).
    Park { reply: Reply<bool> },
    /// Drop the session from memory (it is rebuilt from storage on next use).
    Unload { reply: Reply<()> },
    /// Whether the session is in memory and holds a running instance.
    HoldsInstance { reply: Reply<bool> },
}

/// How a bot's turn went.
pub(super) enum BotTurn {
    /// A move was stored, or another process moved first: look again.
    Again,
    /// The decision has more than one answer after all: think in a slot.
    NeedSlot,
    /// Nothing for the bots to do, or they cannot play now.
    Stop,
}

/// A change that is durably stored: an action (a seat's or a bot's) or a seat handed over.
#[derive(Clone, Debug)]
pub struct DurableChange {
    /// The game's version after the change.
    pub version: u64,
    /// What changed.
    pub kind: ChangeKind,
    /// The seats that owe an answer now (empty once the game is over, or when the ruleset
    /// failed to say).
    pub waiting_for: Vec<Seat>,
}

/// What a [`DurableChange`] was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// `seat` acted; `bot` names the bot that chose the action, if one did.
    Moved { seat: Seat, bot: Option<String> },
    /// `seat` was handed to `bot`, or back to its person (`None`).
    HandedOver { seat: Seat, bot: Option<String> },
    /// `seats` ran out of time and were handed to the table's `bot`.
    TimedOut { seats: Vec<Seat>, bot: String },
}

/// The state of one live game that only its owner touches.
pub(super) struct Owner {
    /// The running game; `None` while evicted or after a fault (rebuilt on next use).
    pub(super) session: Option<Session>,
    /// The number of stored actions the session has applied.
    pub(super) version: u64,
    /// The bots playing seats of this game, each with its own random stream.
    pub(super) bots: HashMap<Seat, Box<dyn Bot>>,
    /// Since when each seat's pending decision has been what it is now, so an answer to it is
    /// not refused as stale because other seats moved meanwhile.
    pub(super) decisions: DecisionAges,
}

impl Owner {
    /// Starts the owner of `game`, holding `session` if the game was just created.
    pub(super) fn spawn(
        hub: Weak<Hub>,
        game: Weak<LiveGame>,
        session: Option<Session>,
        commands: mpsc::Receiver<Command>,
    ) {
        let owner = Owner {
            session,
            version: 0,
            bots: HashMap::new(),
            decisions: DecisionAges::default(),
        };
        tokio::spawn(owner.run(hub, game, commands));
    }

    /// Answers commands until the game's handle is dropped (its last sender with it).
    async fn run(
        mut self,
        hub: Weak<Hub>,
        game: Weak<LiveGame>,
        mut commands: mpsc::Receiver<Command>,
    ) {
        while let Some(command) = commands.recv().await {
            let (Some(hub), Some(game)) = (hub.upgrade(), game.upgrade()) else {
                return;
            };
            game.set_busy(true);
            self.answer(&hub, &game, command).await;
            game.set_busy(false);
        }
    }

    async fn answer(&mut self, hub: &Arc<Hub>, game: &Arc<LiveGame>, command: Command) {
        // A caller that stopped waiting is fine: the command still ran to its end.
        match command {
            Command::Submit {
                seat,
                expected,
                action,
                reply,
            } => {
                let _ = reply.send(self.submit(hub, game, seat, expected, action).await);
            }
            Command::Preview {
                seat,
                action,
                reply,
            } => {
                let _ = reply.send(self.preview(hub, game, seat, action).await);
            }
            Command::View { viewer, reply } => {
                let _ = reply.send(self.view(hub, game, viewer).await);
            }
            Command::PastMoves { at, reply } => {
                let _ = reply.send(self.past_moves(hub, game, at).await);
            }
            Command::Record { reply } => {
                let _ = reply.send(self.record(hub, game).await);
            }
            Command::Standing { reply } => {
                let refreshed = self.refresh_standing(hub, game).await;
                let _ = reply.send(refreshed.map_err(Into::into));
            }
            Command::Load { reply } => {
                let loaded = self.session.is_none();
                let done = self.ensure_loaded(hub, game).await;
                let _ = reply.send(done.map(|()| loaded).map_err(Into::into));
            }
            Command::HandOver { seat, bot, reply } => {
                let _ = reply.send(self.hand_over(hub, game, seat, bot).await);
            }
            Command::BotMove {
                turn_started,
                in_slot,
                reply,
            } => {
                let _ = reply.send(self.bot_move(hub, game, turn_started, in_slot).await);
            }
            Command::Expire { reply } => {
                self.expire(hub, game).await;
                let _ = reply.send(());
            }
            Command::Follow { seq, reply } => {
                self.follow(hub, game, seq).await;
                let _ = reply.send(());
            }
            Command::Park { reply } => {
                let _ = reply.send(self.park(hub, game).await);
            }
            Command::Unload { reply } => {
                self.session = None;
                hub.residency.note_stopped(game);
                let _ = reply.send(());
            }
            Command::HoldsInstance { reply } => {
                let holds = self
                    .session
                    .as_ref()
                    .is_some_and(|session| !session.is_parked());
                let _ = reply.send(holds);
            }
        }
    }

    /// Runs `work` with the session in one of the hub's call slots and keeps the session again:
    /// the one place the session leaves its owner, because blocking work needs it by value. A
    /// panic inside the ruleset glue loses the session (it is rebuilt from storage on next use),
    /// never the server.
    pub(super) async fn call<T: Send + 'static>(
        &mut self,
        hub: &Hub,
        game: &LiveGame,
        work: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> anyhow::Result<T> {
        let mut session = self.session.take().context("the game is not loaded")?;
        let (session, output) = hub
            .blocking(move || {
                let output = work(&mut session);
                (session, output)
            })
            .await?;
        // A call may have restored a parked session (counted as running again, it can be
        // parked again) or parked a running one (a finished game's).
        if session.is_parked() {
            hub.residency.note_stopped(game);
        } else {
            hub.residency.note_running(game);
        }
        self.session = Some(session);
        Ok(output)
    }

    /// Makes sure the session is in memory and up to date with storage.
    pub(super) async fn ensure_loaded(&mut self, hub: &Hub, game: &LiveGame) -> anyhow::Result<()> {
        if self.session.is_none() {
            // Every action: those up to the snapshot are the restored session's history (a
            // snapshot holds none), those after it are replayed.
            let storage = hub.storage();
            let snapshot = storage.latest_snapshot(game.id()).await?;
            let from = snapshot.as_ref().map_or(0, |(seq, _)| *seq);
            let mut actions = storage.actions_since(game.id(), 0).await?;
            let after = actions.split_off(actions.partition_point(|a| a.seq <= from));
            let ruleset = game.ruleset.clone();
            let stored = game.stored.clone();
            let seat_count = game.seats().len() as u32;
            let (session, version) = hub
                .blocking(move || {
                    let mut session = match snapshot {
                        Some((_, bytes)) => {
                            calls::restore(&ruleset, &stored, seat_count, &bytes, &actions)?
                        }
                        None => calls::start_session(&ruleset, &stored, seat_count)
                            .map_err(calls::into_anyhow)?,
                    };
                    let mut version = from;
                    for action in &after {
                        calls::replay_action(&mut session, action)?;
                        version = action.seq;
                    }
                    anyhow::Ok((session, version))
                })
                .await
                .context("loading a game failed")?
                .with_context(|| format!("failed to load game {}", game.id()))?;
            self.session = Some(session);
            self.version = version;
            // Who is waiting is known only once the game runs.
            self.refresh_standing(hub, game).await?;
        } else if hub.storage().kind() == DatabaseKind::Postgres {
            // Other processes may have moved the game on; one process on SQLite never needs to.
            self.catch_up(hub, game).await?;
        }
        Ok(())
    }

    /// Applies the actions another process stored since the session's version.
    pub(super) async fn catch_up(&mut self, hub: &Hub, game: &LiveGame) -> anyhow::Result<bool> {
        let actions = hub.storage().actions_since(game.id(), self.version).await?;
        if actions.is_empty() {
            return Ok(false);
        }
        let last = actions.last().map_or(self.version, |action| action.seq);
        let replayed = self
            .call(hub, game, move |session| {
                actions
                    .iter()
                    .try_for_each(|action| calls::replay_action(session, action))
            })
            .await;
        match replayed {
            Ok(Ok(())) => {
                self.version = last;
                // Whoever noticed first, the standing and the subscribers learn of it now.
                self.refresh_standing(hub, game).await?;
                hub.clocks.refresh(game).await;
                game.publish(Update::Version(last));
                Ok(true)
            }
            Ok(Err(error)) | Err(error) => {
                self.session = None;
                Err(error)
            }
        }
    }

    /// Recomputes the public standing after a change.
    pub(super) async fn refresh_standing(
        &mut self,
        hub: &Hub,
        game: &LiveGame,
    ) -> anyhow::Result<()> {
        let pending = self
            .call(hub, game, |session| session.pending())
            .await?
            .map_err(calls::into_anyhow)?;
        self.decisions.update(self.version, &pending, None);
        if summarize(game, self.version, &pending) {
            // The action that ended it marked the game finished when it was stored; a game
            // stored by an older version of the server may have missed that second write.
            hub.storage().mark_finished(game.id()).await?;
        }
        Ok(())
    }

    /// Applies `action` of `seat` and stores it: the heart of every move, a seat's or a bot's.
    /// One trip to the blocking pool per move: the action, its write queued, then what the game
    /// asks next and (every few actions) a snapshot, while the session is at hand.
    pub(super) async fn apply(
        &mut self,
        hub: &Arc<Hub>,
        game: &Arc<LiveGame>,
        seat: Seat,
        action: Action,
    ) -> LiveResult<Submitted> {
        let write = ActionWrite {
            queue: hub.storage().write_queue(),
            game_id: game.id().to_owned(),
            seq: self.version + 1,
            seat,
            action_json: serde_json::to_string(&action).context("failed to encode an action")?,
            clock: hub.clocks.tick(game),
            bot: None,
        };
        let every = hub.config.snapshot_every;
        let applied = self
            .call(hub, game, move |session| {
                let applied = session.apply(seat, &action)?;
                let after = AfterApply::of(session, &applied, write, every);
                Ok::<_, tenka_game::session::SessionError>((applied, after))
            })
            .await?;
        let applied = match applied {
            Ok(applied) => applied,
            Err(error) => {
                let (error, keep_session) = super::GameError::from_session(error);
                if !keep_session {
                    // A trap may leave the ruleset's memory half-written: rebuild from storage.
                    self.session = None;
                }
                return Err(error);
            }
        };
        self.commit(hub, game, applied).await
    }

    /// Waits for an action the session has just applied to be stored; on a lost race or a failed
    /// write the session (which ran ahead of storage) is dropped and rebuilt from what is stored.
    /// Nothing reads the session's new state (no view, no other move) before the action is
    /// durable or the session dropped: the owner answers nothing else meanwhile.
    pub(super) async fn commit(
        &mut self,
        hub: &Arc<Hub>,
        game: &Arc<LiveGame>,
        (applied, after): (Applied, AfterApply),
    ) -> LiveResult<Submitted> {
        let seq = self.version + 1;
        let inserted = match after.stored {
            Ok(queued) => queued.durable().await,
            Err(error) => Err(error),
        };
        match inserted {
            Ok(Insert::Stored) => {}
            Ok(Insert::Conflict) => {
                // Another process took this version first: our session ran ahead of storage.
                self.session = None;
                self.ensure_loaded(hub, game).await?;
                self.refresh_standing(hub, game).await?;
                hub.clocks.refresh(game).await;
                return Err(super::GameError::Stale {
                    version: self.version,
                });
            }
            Err(error) => {
                self.session = None;
                return Err(error.into());
            }
        }
        self.version = seq;
        if let Some(clock) = after.clock {
            game.set_clock(Some(clock));
        }
        match after.snapshot {
            Some(Ok(bytes)) => {
                // Stored in the background: a snapshot only makes loading faster, and it is
                // of a version that is durable already.
                let storage = hub.storage().clone();
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
            self.decisions.update(seq, &pending, Some(after.seat));
            summarize(game, seq, &pending)
        });
        hub.clocks.arm(game);
        let waiting_for = match summarized {
            Ok(_) => game.standing().waiting_for,
            Err(error) => {
                let error = calls::into_anyhow(error);
                tracing::warn!("game {}: after storing action {seq}: {error:#}", game.id());
                self.session = None;
                let mut standing = game.standing();
                standing.version = seq;
                game.set_standing(standing);
                Vec::new()
            }
        };
        let change = DurableChange {
            version: seq,
            kind: ChangeKind::Moved {
                seat: after.seat,
                bot: after.bot,
            },
            waiting_for,
        };
        hub.after_durable_change(game, &change).await;
        Ok(Submitted {
            version: seq,
            events: applied.events,
        })
    }
}

/// What the owner answers a caller when it is gone (it stops only with its game's handle, or on
/// a bug).
fn owner_gone(game: &LiveGame) -> super::GameError {
    super::GameError::Internal(anyhow::anyhow!(
        "game {} has no owner to answer it",
        game.id()
    ))
}

impl LiveGame {
    /// Sends `command` (built around the reply channel) to the game's owner and waits for the
    /// answer. Dropping the waiting future leaves the command to run to its end.
    pub(super) async fn ask<T>(&self, command: impl FnOnce(Reply<T>) -> Command) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.owner.send(command(reply)).await.ok()?;
        answer.await.ok()
    }

    /// [`LiveGame::ask`] for commands that answer a result.
    pub(super) async fn ask_result<T>(
        &self,
        command: impl FnOnce(Reply<LiveResult<T>>) -> Command,
    ) -> LiveResult<T> {
        self.ask(command)
            .await
            .unwrap_or_else(|| Err(owner_gone(self)))
    }

    /// Whether the game's owner stopped (only a bug stops it while the handle lives).
    pub(super) fn owner_stopped(&self) -> bool {
        self.owner.is_closed()
    }
}

/// The seat a pending decision list asks first among `bots`.
pub(super) fn first_for_bots<'a>(
    pending: &'a [PendingDecision],
    bots: &HashMap<Seat, String>,
) -> Option<&'a PendingDecision> {
    pending
        .iter()
        .find(|decision| bots.contains_key(&decision.seat))
}
