//! Moves: a seat's answer sent to its game's owner, applied in a call slot, written durably, then
//! published to every viewer.

use super::*;

impl Hub {
    /// Applies one seat's action against `expected` version, stores it, and tells everyone.
    ///
    /// The game's owner runs the move to its end even when the request that asked for it is
    /// dropped (the client gone): an action applied is queued for storage from the blocking
    /// pool, and once stored it must also be published and its bots woken.
    pub async fn submit(
        &self,
        game: &Arc<LiveGame>,
        seat: Seat,
        expected: u64,
        action: Action,
    ) -> LiveResult<Submitted> {
        game.ask_result(|reply| Command::Submit {
            seat,
            expected,
            action,
            reply,
        })
        .await
    }

    /// What `action` would do if `seat` sent it now ([`Session::preview`]); changes nothing.
    pub async fn preview(
        &self,
        game: &Arc<LiveGame>,
        seat: Seat,
        action: Action,
    ) -> LiveResult<Vec<PreviewNote>> {
        game.ask_result(|reply| Command::Preview {
            seat,
            action,
            reply,
        })
        .await
    }
}

impl Owner {
    /// [`Hub::submit`], answered by the game's owner.
    pub(super) async fn submit(
        &mut self,
        hub: &Arc<Hub>,
        game: &Arc<LiveGame>,
        seat: Seat,
        expected: u64,
        action: Action,
    ) -> LiveResult<Submitted> {
        self.ensure_loaded(hub, game).await?;
        if expected != self.version && !self.decisions.answers_current(seat, expected, self.version)
        {
            return Err(GameError::Stale {
                version: self.version,
            });
        }
        self.apply(hub, game, seat, action).await
    }

    /// [`Hub::preview`], answered by the game's owner.
    pub(super) async fn preview(
        &mut self,
        hub: &Hub,
        game: &LiveGame,
        seat: Seat,
        action: Action,
    ) -> LiveResult<Vec<PreviewNote>> {
        self.ensure_loaded(hub, game).await?;
        let previewed = self
            .call(hub, game, move |session| session.preview(seat, &action))
            .await?;
        // A read, like a view: a failed call was already recovered inside the session.
        previewed.map_err(GameError::from)
    }
}

impl LiveGame {
    /// What the notices see of the game now (`crate::notices::observe`).
    pub fn sighting(&self) -> crate::notices::Sighting {
        let standing = self.standing();
        crate::notices::Sighting {
            game: self.id().to_owned(),
            mark: crate::notices::Mark::new(
                standing.version,
                standing.waiting_for,
                standing.finished,
                &self.seats(),
            ),
            clock: self.clock(),
        }
    }
}
