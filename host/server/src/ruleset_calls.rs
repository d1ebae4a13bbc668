//! The narrow seam between the server and the runtime: every call the server makes into a
//! ruleset goes through here. All of these functions run ruleset code (WebAssembly): call them
//! on the blocking pool, never on the async reactor.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use sdk::{Action, Diagnostic, PendingDecision, RulesetInfo};
use serde_json::Value;

use super::storage::{StoredAction, StoredGame};
use tenka_game::bots::{Bot, BotKind};
use tenka_game::record::RecordedAction;
use tenka_game::session::{Applied, GameSpec, NewGame, SessionError, SessionSnapshot};
use tenka_runtime::CallError;
use tenka_runtime::table::TowerDrop;

pub use tenka_game::session::Session;
pub use tenka_runtime::{LoadedRuleset, Runtime};

/// Every loaded ruleset.
pub fn rulesets(runtime: &Runtime) -> Vec<Arc<LoadedRuleset>> {
    runtime.rulesets()
}

/// The ruleset's description.
pub fn info(ruleset: &LoadedRuleset) -> RulesetInfo {
    ruleset.info().clone()
}

/// The ruleset's content hash, as text.
pub fn ruleset_hash(ruleset: &LoadedRuleset) -> String {
    ruleset.hash().0
}

/// Checks a map; a failing ruleset is reported as one error diagnostic.
pub fn validate_map(ruleset: &LoadedRuleset, toml: &str) -> Vec<Diagnostic> {
    ruleset.validate_map(toml).unwrap_or_else(|error| {
        // The failure's details (a wasm backtrace) are for the server's log, not for clients.
        tracing::warn!("{error:#}");
        vec![Diagnostic::error(
            0,
            0,
            "the ruleset failed while checking the map",
        )]
    })
}

/// A catalogue as (key, template) pairs; empty when the ruleset fails to give one.
pub fn catalogue(ruleset: &LoadedRuleset, language: &str) -> Vec<(String, String)> {
    ruleset.catalogue(language).unwrap_or_else(|error| {
        tracing::warn!("catalogue {language} of {}: {error:#}", ruleset.info().id);
        Vec::new()
    })
}

/// What the map editor may change in the ruleset's maps, checked; `None` when the ruleset
/// describes nothing or something refused (logged).
pub fn map_editor(ruleset: &LoadedRuleset) -> Option<tenka_game::editor::Schema> {
    tenka_game::editor::schema_of(ruleset)
}

/// Starts a game from its stored setup, with the session's own error.
pub fn start_session(
    ruleset: &Arc<LoadedRuleset>,
    game: &StoredGame,
    seats: u32,
) -> Result<Session, SessionError> {
    ruleset.new_game(stored_spec(game, seats)?)
}

/// How a stored game was created.
fn stored_spec(game: &StoredGame, seats: u32) -> Result<GameSpec, SessionError> {
    let options = serde_json::from_str(&game.options_json).map_err(|error| {
        SessionError::Mismatch(format!("stored options are unreadable: {error}"))
    })?;
    Ok(GameSpec {
        map_toml: game.map_toml.clone(),
        options,
        seats,
        seed: game.seed,
        position: None,
    })
}

/// Rebuilds a session from stored snapshot bytes and the stored actions up to the snapshot's
/// version (the actions table is the record; a snapshot holds no history). Snapshots stored
/// before they lost their history read the same: their extra fields are ignored.
pub fn restore(
    ruleset: &Arc<LoadedRuleset>,
    game: &StoredGame,
    seats: u32,
    bytes: &[u8],
    history: &[StoredAction],
) -> anyhow::Result<Session> {
    let snapshot: SessionSnapshot =
        serde_json::from_slice(bytes).context("a stored snapshot is unreadable")?;
    let history = history
        .iter()
        .map(recorded)
        .collect::<anyhow::Result<Vec<_>>>()?;
    let spec = stored_spec(game, seats).map_err(into_anyhow)?;
    Session::restore(ruleset.clone(), spec, snapshot, history).map_err(into_anyhow)
}

/// A stored action as the record holds it.
fn recorded(action: &StoredAction) -> anyhow::Result<RecordedAction> {
    let parsed: Action = serde_json::from_str(&action.action_json)
        .with_context(|| format!("stored action {} is unreadable", action.seq))?;
    Ok(RecordedAction {
        seat: action.seat,
        action: parsed,
    })
}

/// A session's snapshot as bytes to store.
pub fn snapshot(session: &mut Session) -> anyhow::Result<Vec<u8>> {
    let snapshot = session.snapshot().map_err(into_anyhow)?;
    serde_json::to_vec(&snapshot).context("failed to encode a snapshot")
}

/// Re-applies a stored action while loading or catching up.
pub fn replay_action(session: &mut Session, action: &StoredAction) -> anyhow::Result<()> {
    let parsed = recorded(action)?;
    session
        .apply(parsed.seat, &parsed.action)
        .map_err(into_anyhow)
        .with_context(|| format!("stored action {} does not replay", action.seq))?;
    Ok(())
}

/// A session error as an `anyhow::Error` that keeps a ruleset's typed failure (which export,
/// which limit, or a full host) for the HTTP layer's conversion to find.
pub fn into_anyhow(error: SessionError) -> anyhow::Error {
    match error {
        SessionError::Failed(failure) => anyhow::Error::new(CallError::Failed(failure)),
        SessionError::Capacity(full) => anyhow::Error::new(CallError::Capacity(full)),
        other => anyhow::anyhow!("{other}"),
    }
}

/// Tower drops as they are stored and shown: what went in and what came out, never what stays.
pub fn tower_log(drops: &[TowerDrop]) -> Value {
    serde_json::to_value(drops).unwrap_or(Value::Array(Vec::new()))
}

/// A new bot by name for a seat of a game, thinking at most `think_time` per move.
pub fn new_bot(
    name: &str,
    game: &StoredGame,
    seat: u32,
    think_time: Duration,
) -> anyhow::Result<Box<dyn Bot>> {
    let kind: BotKind = name
        .parse()
        .map_err(|error: String| anyhow::anyhow!(error))?;
    Ok(kind.create_thinking(&game.seed, seat, Some(think_time)))
}

/// How often a bot may propose an action the rules refuse before it gives up for now.
const BOT_ATTEMPTS: usize = 50;

/// Lets a bot answer `decision` and applies its answer. A random legal shape can still break a
/// rule: the bot tries again a bounded number of times.
pub fn bot_move(
    session: &mut Session,
    bot: &mut dyn Bot,
    decision: &PendingDecision,
) -> anyhow::Result<(Action, Applied)> {
    for _ in 0..BOT_ATTEMPTS {
        let action = bot.decide(session, decision)?;
        match session.apply(decision.seat, &action) {
            Ok(applied) => return Ok((action, applied)),
            Err(SessionError::Rejected(_)) => continue,
            Err(error) => return Err(anyhow::anyhow!("{error}")),
        }
    }
    anyhow::bail!(
        "bot `{}` found no acceptable action in {BOT_ATTEMPTS} tries",
        bot.name()
    )
}

/// The ruleset's view text as JSON (a ruleset's view is a JSON document; anything else is shown
/// as a string).
pub fn view_json(text: String) -> Value {
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

/// The public commitment to a seed.
pub fn seed_commitment(seed: &[u8; 32]) -> String {
    tenka_runtime::table::commitment(seed)
}
