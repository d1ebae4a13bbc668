//! Following other processes: with PostgreSQL, changes another server process made reach this one
//! by LISTEN/NOTIFY and are caught up.

use super::*;

impl Hub {
    /// Reads a game's seats again after the database changed them (a seat claimed, an invite
    /// exchanged, a seat reopened), so a replaced token stops working at once, and tells the
    /// game's subscribers and the other server processes.
    pub async fn reload_seats(self: &Arc<Self>, game: &Arc<LiveGame>) -> LiveResult<()> {
        let seats = self.storage.seats(game.id()).await?;
        game.set_seats(seats);
        self.seats_changed(game).await;
        Ok(())
    }

    pub(super) async fn seats_changed(self: &Arc<Self>, game: &Arc<LiveGame>) {
        game.publish(Update::Seats);
        crate::notices::observe(&self.storage, self.now_millis(), game.sighting());
        if let Err(error) = self.storage.notify(&format!("{}:seats", game.id())).await {
            tracing::warn!("{error:#}");
        }
        self.bots.schedule(game);
    }

    /// Another process changed a game: catch up if it is in memory and tell its subscribers.
    pub async fn remote_change(self: &Arc<Self>, payload: &str) {
        let Some((id, what)) = payload.split_once(':') else {
            return;
        };
        let Some(game) = self.residency.get(id) else {
            return;
        };
        if what == "seats" {
            match self.storage.seats(id).await {
                Ok(seats) => {
                    game.set_seats(seats);
                    // A seat handed over may have stopped or started its clock.
                    self.clocks.refresh(&game).await;
                    game.publish(Update::Seats);
                }
                Err(error) => tracing::warn!("game {id}: {error:#}"),
            }
            return;
        }
        let Ok(seq) = what.parse::<u64>() else { return };
        game.ask(|reply| Command::Follow { seq, reply }).await;
    }

    /// Catches every game in memory up with the database: what a change listener does after it
    /// reconnected, since the notifications sent meanwhile are lost.
    pub async fn resync(self: &Arc<Self>) {
        let games = self.residency.all();
        for game in games {
            self.remote_change(&format!("{}:seats", game.id())).await;
            match self.storage.version(game.id()).await {
                Ok(stored) if stored > game.standing().version => {
                    self.remote_change(&format!("{}:{stored}", game.id())).await;
                }
                Ok(_) => {}
                Err(error) => tracing::warn!("game {}: {error:#}", game.id()),
            }
        }
    }
}

impl LiveGame {
    /// Replaces the seats with those read from storage.
    pub(super) fn set_seats(&self, seats: Vec<StoredSeat>) {
        if let Ok(mut current) = self.seats.write() {
            *current = seats;
        }
    }
}

impl Owner {
    /// Another process stored version `seq` of `game`: catch up if the session is in memory
    /// (else only the public standing needs the new version), and tell the subscribers.
    pub(super) async fn follow(&mut self, hub: &Hub, game: &LiveGame, seq: u64) {
        let id = game.id();
        if self.version >= seq && self.session.is_some() {
            return;
        }
        let result = if self.session.is_some() {
            self.catch_up(hub, game).await.map(|_| ())
        } else {
            hub.storage().version(id).await.map(|version| {
                let mut standing = game.standing();
                standing.version = version;
                game.set_standing(standing);
            })
        };
        let result = match result {
            Ok(()) if self.session.is_some() => self.refresh_standing(hub, game).await,
            other => other,
        };
        let version = game.standing().version;
        match result {
            Ok(()) => game.publish(Update::Version(version)),
            Err(error) => tracing::warn!("game {id}: failed to catch up: {error:#}"),
        }
    }
}
