//! Game records: everything needed to replay a finished game bit-for-bit, as JSON, and the check
//! that a record really replays to what it claims.
//!
//! A record holds the ruleset's hash, the map text and its hash, the options, the seat count, the
//! seed's commitment and (once the game is over) the seed, and every action in order. It also
//! keeps checkpoints so a reader can follow the game without running it, chosen by a rule that
//! works for any ruleset: the spectator view after every [`CHECKPOINT_INTERVAL`] actions, after
//! every public `milestone.` event (a scoring round, say, whose view carries the score breakdown)
//! and at the end of the game. The final result carries the score breakdown.
//!
//! `Session::replay` (in [`crate::replay`]) runs a record again and refuses it if anything
//! differs: the hashes, the seed's commitment, an action the rules reject, a checkpoint or the
//! result.

use anyhow::Result;
use serde::{Deserialize, Serialize};

use sdk::{Action, GameResult, OptionSetting, Seat};
use tenka_runtime::ContentHash;

/// How often (in applied actions) the record keeps a spectator checkpoint; one is also kept
/// when the game ends and after every public `milestone.` event (see [`MILESTONE_PREFIX`]).
pub const CHECKPOINT_INTERVAL: u64 = 25;

/// The key namespace of the public events that ask for a checkpoint in the record (a scoring
/// round, the end of a year), as the contract documents for `event`.
pub const MILESTONE_PREFIX: &str = "milestone.";

/// One applied action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedAction {
    /// Who acted.
    pub seat: Seat,
    /// The answer.
    pub action: Action,
}

/// The public state at one point of the game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// How many actions had been applied.
    pub after_action: u64,
    /// The spectator view (the ruleset's JSON; a string if it was not JSON).
    pub spectator_view: serde_json::Value,
    /// The ruleset's `milestone.` event that asked for this checkpoint, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub milestone: Option<sdk::Message>,
}

/// A checkpoint with its view kept as compressed JSON text, as live sessions and their snapshots
/// hold them: a parsed view takes several times the memory of its text, the text several times
/// its deflated bytes (checkpoints can be most of what a parked session keeps), and a server
/// keeps thousands of sessions. Serialized, it is the same JSON as a
/// [`Checkpoint`], so stored snapshots read the same either way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompactCheckpoint {
    /// How many actions had been applied.
    pub after_action: u64,
    /// The spectator view.
    pub spectator_view: DeflatedJson,
    /// The ruleset's `milestone.` event that asked for this checkpoint, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub milestone: Option<sdk::Message>,
}

impl CompactCheckpoint {
    /// The checkpoint with its view parsed, as records carry it.
    pub fn expand(&self) -> Checkpoint {
        Checkpoint {
            after_action: self.after_action,
            // Always valid JSON: it was written from a JSON value or read as one.
            spectator_view: serde_json::from_str(&self.spectator_view.text())
                .unwrap_or(serde_json::Value::Null),
            milestone: self.milestone.clone(),
        }
    }
}

impl From<Checkpoint> for CompactCheckpoint {
    fn from(checkpoint: Checkpoint) -> CompactCheckpoint {
        CompactCheckpoint {
            after_action: checkpoint.after_action,
            spectator_view: DeflatedJson::new(&checkpoint.spectator_view.to_string()),
            milestone: checkpoint.milestone,
        }
    }
}

/// Compact JSON text kept deflated; serialized and deserialized as the JSON value itself.
#[derive(Clone, PartialEq, Eq)]
pub struct DeflatedJson(Box<[u8]>);

impl DeflatedJson {
    /// How hard to compress: checkpoints are written a few times a game, read rarely.
    const LEVEL: u8 = 1;

    /// Keeps `json`, which must be valid JSON text.
    pub fn new(json: &str) -> DeflatedJson {
        DeflatedJson(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), Self::LEVEL).into())
    }

    /// The JSON text.
    pub fn text(&self) -> String {
        // Only ever inflates what `new` deflated from a `str`.
        miniz_oxide::inflate::decompress_to_vec(&self.0)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .unwrap_or_else(|| "null".to_owned())
    }
}

impl std::fmt::Debug for DeflatedJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeflatedJson({} bytes)", self.0.len())
    }
}

impl Serialize for DeflatedJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw = serde_json::value::RawValue::from_string(self.text())
            .map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for DeflatedJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<serde_json::value::RawValue>::deserialize(deserializer)?;
        Ok(DeflatedJson::new(raw.get()))
    }
}

/// A game's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The record format's version.
    pub format: u32,
    /// The ruleset's id.
    pub ruleset_id: String,
    /// The ruleset's own version.
    pub ruleset_version: String,
    /// The SHA-256 of the ruleset's component.
    pub ruleset_hash: ContentHash,
    /// The contract version the host ran it under.
    pub contract_version: String,
    /// The SHA-256 of the map text.
    pub map_hash: String,
    /// The map as TOML text.
    pub map: String,
    /// Options that differ from their defaults.
    pub options: Vec<OptionSetting>,
    /// How many seats.
    pub seats: u32,
    /// The position file the game started from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    /// SHA-256 of the seed, known from the start.
    pub seed_commitment: String,
    /// The seed, as hex, revealed when the game is over.
    pub seed: Option<String>,
    /// Every action, in order.
    pub actions: Vec<RecordedAction>,
    /// Spectator checkpoints.
    pub checkpoints: Vec<Checkpoint>,
    /// The result, once the game is over.
    pub result: Option<GameResult>,
}

impl GameRecord {
    /// The current record format.
    pub const FORMAT: u32 = 1;

    /// Reads a record from JSON.
    pub fn from_json(text: &str) -> Result<GameRecord> {
        Ok(serde_json::from_str(text)?)
    }

    /// The record as pretty JSON.
    pub fn to_json(&self) -> Result<String> {
        Ok(serde_json::to_string_pretty(self)?)
    }
}
