//! A game record replayed and checked: the record's claims (hashes, the seed's commitment, every
//! action, every checkpoint, the result) against what the ruleset does with them now.

use std::sync::Arc;

use anyhow::{Result, bail};
use sha2::{Digest, Sha256};

use tenka_runtime::LoadedRuleset;
use tenka_runtime::table::commitment;

use crate::record::GameRecord;
use crate::session::{GameSpec, Session, SessionError, parse_seed};

/// Why a record was refused.
fn tampered(what: String) -> SessionError {
    SessionError::Mismatch(format!("the record does not replay: {what}"))
}

impl Session {
    /// Replays a finished game's record and checks that everything it claims comes out the same.
    /// Returns the replayed session; any difference is an error saying what differs.
    pub fn replay(
        ruleset: Arc<LoadedRuleset>,
        record: &GameRecord,
    ) -> Result<Session, SessionError> {
        check_header(&ruleset, record).map_err(|e| tampered(format!("{e:#}")))?;
        let Some(seed_hex) = &record.seed else {
            return Err(tampered(
                "it has no seed (the seed is revealed only when the game is over)".into(),
            ));
        };
        let seed = parse_seed(seed_hex).map_err(tampered)?;
        if commitment(&seed) != record.seed_commitment {
            return Err(tampered(
                "the seed does not match the seed commitment".into(),
            ));
        }
        let spec = GameSpec {
            map_toml: record.map.clone(),
            options: record.options.clone(),
            seats: record.seats,
            seed,
            position: record.position.clone(),
        };
        let mut session = Session::new(ruleset, spec)?;
        for (index, recorded) in record.actions.iter().enumerate() {
            match session.apply(recorded.seat, &recorded.action) {
                Ok(_) => {}
                Err(SessionError::Rejected(rejection)) => {
                    return Err(tampered(format!(
                        "action {} (seat {}) is refused by the rules: {rejection}",
                        index + 1,
                        recorded.seat
                    )));
                }
                Err(other) => return Err(other),
            }
        }
        let replayed = session.record()?;
        if replayed.checkpoints != record.checkpoints {
            let first = replayed
                .checkpoints
                .iter()
                .zip(&record.checkpoints)
                .find(|(a, b)| a != b)
                .map_or_else(
                    || {
                        format!(
                            "{} checkpoints instead of {}",
                            replayed.checkpoints.len(),
                            record.checkpoints.len()
                        )
                    },
                    |(a, _)| format!("the checkpoint after action {} differs", a.after_action),
                );
            return Err(tampered(first));
        }
        if replayed.result != record.result {
            return Err(tampered("the result differs".into()));
        }
        if replayed.result.is_none() {
            return Err(tampered(
                "the game is not over after its last action".into(),
            ));
        }
        Ok(session)
    }
}

fn check_header(ruleset: &LoadedRuleset, record: &GameRecord) -> Result<()> {
    if record.format != GameRecord::FORMAT {
        bail!(
            "record format {} is not {}",
            record.format,
            GameRecord::FORMAT
        );
    }
    if record.ruleset_id != ruleset.info().id {
        bail!(
            "it is of ruleset `{}`, not `{}`",
            record.ruleset_id,
            ruleset.info().id
        );
    }
    if record.ruleset_hash != ruleset.hash() {
        bail!(
            "it was played with ruleset hash {}, but the loaded `{}` has hash {}",
            record.ruleset_hash,
            ruleset.info().id,
            ruleset.hash()
        );
    }
    let map_hash = hex::encode(Sha256::digest(record.map.as_bytes()));
    if map_hash != record.map_hash {
        bail!("the map does not match its hash");
    }
    Ok(())
}
