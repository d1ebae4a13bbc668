//! The random-legal bot.

use anyhow::Result;

use sdk::{Action, PendingDecision};

use super::Bot;
use crate::session::Session;
use tenka_runtime::table::{GameTable, Seed};

/// Answers every decision with [`sdk::random_action`] from its own random stream.
pub struct RandomBot {
    table: GameTable,
}

impl RandomBot {
    /// A bot whose choices come from `seed`.
    pub fn new(seed: &Seed) -> RandomBot {
        let mut table = GameTable::new(seed);
        table.log_enabled = false;
        RandomBot { table }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &'static str {
        "random"
    }

    fn decide(&mut self, _session: &mut Session, decision: &PendingDecision) -> Result<Action> {
        Ok(sdk::random_action(&decision.kind, &mut self.table))
    }
}
