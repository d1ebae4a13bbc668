//! The `/api` handlers. Each one checks who is asking (a seat's token or nobody, a spectator),
//! asks the [`Hub`](super::games::Hub) and shapes the answer as the API document says.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use sdk::{Action, Event, OptionKind, OptionSetting, OptionValue, Seat, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::broadcast::error::RecvError;

use super::AppState;
use super::asking::{Acting, Hosting, TheGame, Viewing, request_token, require_host, seat_of};
use super::clocks::{PaceRequest, TableClock, pace_json};
use super::error::{AppError, AppJson, AppPath as Path, AppQuery as Query, AppResult};
use super::games::{LiveGame, Update};
use super::moves::{
    SubmitAction, act, seat_for_token_hash, seat_holding, seat_with_token_hash, visible_events,
};
use super::offer::RulesetEntry;
use super::ruleset_calls::LoadedRuleset;
use super::storage::{
    InviteChange, NewCredentials, SeatReceipt, StoredAction, StoredGame, StoredSeat, now_millis,
};
use super::tokens;

/// The names bots answer to: a random player, the first search bot (kept for the games and
/// clients that name it) and the three levels of the information-set search.
pub const BOT_NAMES: [&str; 5] = ["random", "search", "easy", "normal", "hard"];

// ---------------------------------------------------------------------------------------------
// Rulesets
// ---------------------------------------------------------------------------------------------

/// `GET /api/rulesets`
pub async fn list_rulesets(State(state): State<AppState>) -> Json<Value> {
    // Whether the map editor may offer "Save as example": the server has an operator token
    // and the ruleset takes maps.
    let saving = state.config.operator_token.is_some();
    Json(Value::Array(
        state
            .offer
            .current()
            .rulesets
            .iter()
            .map(|entry| {
                let mut summary = entry.summary();
                let takes_maps = !entry.info.maps.is_empty() || !entry.maps.is_empty();
                summary["save_examples"] = Value::Bool(saving && takes_maps);
                summary
            })
            .collect(),
    ))
}

/// The ruleset with this id as the newest catalogue offers it.
pub(crate) fn ruleset_entry(state: &AppState, id: &str) -> AppResult<Arc<RulesetEntry>> {
    state
        .offer
        .current()
        .ruleset(id)
        .cloned()
        .ok_or_else(|| AppError::NotFound(format!("there is no ruleset `{id}`")))
}

/// The loaded component of a catalogue entry. A reload may have replaced it between the lookup
/// of the entry and this call: the client is told to try again.
pub(crate) fn loaded_ruleset(
    state: &AppState,
    entry: &RulesetEntry,
) -> AppResult<Arc<LoadedRuleset>> {
    state
        .hub
        .runtime()
        .ruleset_version(&entry.hash)
        .ok_or_else(|| {
            AppError::Unavailable(format!(
                "ruleset `{}` is being reloaded; try again",
                entry.info.id
            ))
        })
}

/// `GET /api/rulesets/{id}/catalogue/{lang}` query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueQuery {
    /// A loaded version's content hash (a game's `ruleset_hash`); the current version if absent.
    #[serde(default)]
    pub version: Option<String>,
}

/// `GET /api/rulesets/{id}/catalogue/{lang}`
pub async fn catalogue(
    State(state): State<AppState>,
    Path((id, language)): Path<(String, String)>,
    Query(query): Query<CatalogueQuery>,
) -> AppResult<Json<BTreeMap<String, String>>> {
    let runtime = state.hub.runtime();
    let ruleset = match &query.version {
        // Games pinned to an older version show that version's texts.
        Some(version) => runtime
            .ruleset_version(version)
            .filter(|ruleset| ruleset.info().id == id)
            .ok_or_else(|| {
                AppError::NotFound(format!("ruleset `{id}` has no loaded version `{version}`"))
            })?,
        None => {
            let entry = ruleset_entry(&state, &id)?;
            runtime
                .ruleset_version(&entry.hash)
                .ok_or_else(|| AppError::NotFound(format!("there is no ruleset `{id}`")))?
        }
    };
    let pairs = state.hub.catalogue(&ruleset, &language).await?;
    Ok(Json(pairs.iter().cloned().collect()))
}

/// `GET /api/rulesets/{id}/maps/{map}`
pub async fn map_preview(
    State(state): State<AppState>,
    Path((id, map)): Path<(String, String)>,
) -> AppResult<Json<Value>> {
    let entry = ruleset_entry(&state, &id)?;
    let map = entry
        .map(&map)
        .ok_or_else(|| AppError::NotFound(format!("ruleset `{id}` has no map `{map}`")))?;
    let (svg, board_error) = match &map.board {
        Ok(svg) => (Some(svg.as_ref()), None),
        Err(why) => (None, Some(why.as_str())),
    };
    Ok(Json(json!({
        "id": map.id,
        "name": map.name,
        "origin": map.origin,
        "toml": map.toml,
        "hash": map.hash,
        "valid": map.is_valid(),
        "diagnostics": map.diagnostics,
        "svg": svg,
        "board_error": board_error,
    })))
}

// ---------------------------------------------------------------------------------------------
// Games
// ---------------------------------------------------------------------------------------------

/// One seat in a create-game request.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SeatRequest {
    /// A person: the creator (`creator: true`, the seat's token is in the answer) or someone the
    /// creator invites (an invite code is in the answer).
    Human {
        /// The display name until the person claims the seat.
        #[serde(default)]
        name: Option<String>,
        /// Whether the creator plays this seat (on this device, hot-seat if several).
        #[serde(default)]
        creator: bool,
    },
    /// A server-side bot.
    Bot {
        /// Which bot: `random` or `search`.
        bot: String,
    },
}

/// The map id of a game whose ruleset takes no map.
pub const NO_MAP: &str = "none";

/// `POST /api/games` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    /// The ruleset's id.
    pub ruleset: String,
    /// A map the ruleset ships, by id; ignored when `map_toml` is given.
    #[serde(default)]
    pub map: Option<String>,
    /// A map of one's own, as TOML text.
    #[serde(default)]
    pub map_toml: Option<String>,
    /// A named variant whose options are the starting point.
    #[serde(default)]
    pub variant: Option<String>,
    /// Option values, by option name, overriding the variant's.
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    /// The seats, in order.
    pub seats: Vec<SeatRequest>,
    /// A fixed seed as 64 hex digits; accepted only when the server allows fixed seeds.
    #[serde(default)]
    pub seed: Option<String>,
    /// The table's pace: `untimed` (the default), `live` or `turn-based`.
    #[serde(default)]
    pub pace: Option<PaceRequest>,
    /// A rated table (timed paces only): its result moves the players' ratings, if every
    /// person's seat is attached to an account when it ends (see [`crate::ratings`]).
    #[serde(default)]
    pub rated: bool,
}

/// The bot a timed table hands a seat out of time to, unless its pace names one: the level of
/// the table's first bot, or `normal` at a table of people.
fn table_level(seats: &[SeatRequest]) -> &str {
    seats
        .iter()
        .find_map(|seat| match seat {
            SeatRequest::Bot { bot } if BOT_NAMES.contains(&bot.as_str()) => Some(bot.as_str()),
            _ => None,
        })
        .unwrap_or("normal")
}

/// Turns a plain JSON option value into the typed value its spec asks for.
pub(crate) fn option_value(kind: &OptionKind, name: &str, value: &Value) -> AppResult<OptionValue> {
    let wrong = |expected: &str| {
        AppError::BadRequest(format!("option `{name}` must be {expected}, not {value}"))
    };
    Ok(match kind {
        OptionKind::Boolean => {
            OptionValue::Boolean(value.as_bool().ok_or_else(|| wrong("true or false"))?)
        }
        OptionKind::Integer { .. } => {
            OptionValue::Integer(value.as_i64().ok_or_else(|| wrong("a whole number"))?)
        }
        OptionKind::Decimal { .. } => {
            OptionValue::Decimal(value.as_f64().ok_or_else(|| wrong("a number"))?)
        }
        OptionKind::Choice(_) => {
            OptionValue::Choice(value.as_str().ok_or_else(|| wrong("a name"))?.to_owned())
        }
    })
}

/// A seat's display name as every other player will see it: trimmed, 1 to 64 characters, and
/// free of control, bidirectional-override and invisible characters, which could make a name
/// look like another player's or reorder the text around it.
fn seat_name(raw: &str) -> AppResult<String> {
    let name = raw.trim();
    let invisible = |c: char| {
        c.is_control()
            || matches!(c,
                '\u{00AD}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{180E}'
                | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}'
                | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}')
    };
    if let Some(bad) = name.chars().find(|&c| invisible(c)) {
        return Err(AppError::BadRequest(format!(
            "a name may not contain the invisible or control character U+{:04X}",
            u32::from(bad)
        )));
    }
    let length = name.chars().count();
    if !(1..=64).contains(&length) {
        return Err(AppError::BadRequest(
            "a name has 1 to 64 visible characters".to_owned(),
        ));
    }
    Ok(name.to_owned())
}

/// A seat's public description.
fn seat_json(seat: &StoredSeat) -> Value {
    json!({
        "seat": seat.seat,
        "kind": seat.kind,
        "name": seat.name,
        "claimed": seat.claimed,
        "bot": seat.bot,
    })
}

/// A game's public description, as listed.
fn game_json(stored: &StoredGame, seats: &[StoredSeat], version: u64, finished: bool) -> Value {
    json!({
        "id": stored.id,
        "ruleset": stored.ruleset_id,
        "ruleset_hash": stored.ruleset_hash,
        "map": stored.map_id,
        "map_hash": stored.map_hash,
        "variant": stored.variant,
        "seats": seats.iter().map(seat_json).collect::<Vec<_>>(),
        "version": version,
        "status": if finished { "finished" } else { "active" },
        "created_at": stored.created_at,
    })
}

/// A game in memory as listed; its `ruleset_hash` is the version its session actually runs on.
fn live_game_json(game: &LiveGame) -> Value {
    let standing = game.standing();
    let mut json = game_json(
        &game.stored,
        &game.seats(),
        standing.version,
        standing.finished,
    );
    json["ruleset_hash"] = Value::from(game.ruleset.hash().0);
    json["pace"] = pace_json(game.pace().as_ref());
    json
}

/// Each seat's clock at a timed table, as of `now`; `null` for an untimed game.
fn clocks_json(game: &LiveGame, now: i64) -> Value {
    game.clock().map_or(Value::Null, |clock| clock.to_json(now))
}

/// The client a request comes from, as games' creators are told apart: an IPv4 address, or the
/// /64 network of an IPv6 one (one household or host); `None` for an in-process caller.
pub(crate) fn creator_of(extensions: &axum::http::Extensions) -> Option<String> {
    use std::net::IpAddr;
    let address = extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()?
        .0
        .ip();
    Some(match address {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                format!("{}/64", std::net::Ipv6Addr::from(segments))
            }
        },
        IpAddr::V4(v4) => v4.to_string(),
    })
}

/// `POST /api/games`
pub async fn create_game(
    State(state): State<AppState>,
    extensions: axum::http::Extensions,
    AppJson(request): AppJson<CreateGame>,
) -> AppResult<Response> {
    let entry = ruleset_entry(&state, &request.ruleset)?;
    let pace = match &request.pace {
        Some(pace) => pace
            .check(table_level(&request.seats), &BOT_NAMES)
            .map_err(AppError::BadRequest)?,
        None => None,
    };
    if request.rated && pace.is_none() {
        return Err(AppError::BadRequest(
            "a rated table needs a timed pace (`live` or `turn-based`)".to_owned(),
        ));
    }
    let seat_count = request.seats.len() as u32;
    if !(entry.info.min_seats..=entry.info.max_seats).contains(&seat_count) {
        return Err(AppError::BadRequest(format!(
            "`{}` is played by {} to {} seats, not {seat_count}",
            entry.info.id, entry.info.min_seats, entry.info.max_seats
        )));
    }
    let (map_id, map_toml) = match (&request.map_toml, &request.map) {
        (Some(toml), _) => ("custom".to_owned(), toml.clone()),
        (None, Some(id)) => {
            let map = entry.map(id).ok_or_else(|| {
                AppError::NotFound(format!("ruleset `{}` has no map `{id}`", entry.info.id))
            })?;
            (map.id.clone(), map.toml.clone())
        }
        // A ruleset that ships no map takes none (its board is all in its own data).
        (None, None) if entry.info.maps.is_empty() => (NO_MAP.to_owned(), String::new()),
        (None, None) => {
            return Err(AppError::BadRequest(
                "name a `map` or give a `map_toml`".to_owned(),
            ));
        }
    };
    let mut values: BTreeMap<String, Value> = BTreeMap::new();
    if let Some(variant) = &request.variant {
        let found = entry
            .variants
            .iter()
            .find(|candidate| &candidate.id == variant)
            .ok_or_else(|| AppError::NotFound(format!("there is no variant `{variant}`")))?;
        values.extend(found.options.clone());
    }
    values.extend(request.options.clone());
    let mut options = Vec::new();
    for (name, value) in &values {
        let spec = entry
            .info
            .options
            .iter()
            .find(|spec| &spec.name == name)
            .ok_or_else(|| AppError::BadRequest(format!("there is no option `{name}`")))?;
        options.push(OptionSetting {
            name: name.clone(),
            value: option_value(&spec.kind, name, value)?,
        });
    }
    let seed: [u8; 32] = match &request.seed {
        Some(seed) if state.config.allow_fixed_seeds => hex::decode(seed)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(|| AppError::BadRequest("`seed` must be 64 hex digits".to_owned()))?,
        Some(_) => {
            return Err(AppError::Forbidden(
                "this server does not accept fixed seeds".to_owned(),
            ));
        }
        None => tokens::random_bytes()?,
    };

    let id = tokens::new_game_id()?;
    // The creator gets a host token to manage invites, a token for each seat it plays itself
    // and an invite code for every other person's seat; no secret of a seat it does not play.
    let host_token = tokens::new_token()?;
    let mut credentials = NewCredentials {
        host_token_hash: Some(tokens::token_hash(&host_token)),
        invites: Vec::new(),
    };
    let mut seats = Vec::new();
    let mut issued = Vec::new();
    for (index, seat) in request.seats.iter().enumerate() {
        let number = index as u32;
        match seat {
            SeatRequest::Human { name, creator } => {
                let name = match name {
                    Some(name) => seat_name(name)?,
                    None => format!("Player {}", index + 1),
                };
                let secret = tokens::new_token()?;
                let token_hash = if *creator {
                    Some(tokens::token_hash(&secret))
                } else {
                    credentials
                        .invites
                        .push((number, tokens::token_hash(&secret)));
                    None
                };
                seats.push(StoredSeat {
                    seat: number,
                    kind: "human".to_owned(),
                    name: name.clone(),
                    token_hash,
                    bot: None,
                    claimed: false,
                });
                let mut entry = json!({ "seat": number, "kind": "human", "name": name });
                entry[if *creator { "token" } else { "invite" }] = Value::String(secret);
                issued.push(entry);
            }
            SeatRequest::Bot { bot } => {
                if !BOT_NAMES.contains(&bot.as_str()) {
                    return Err(AppError::BadRequest(format!(
                        "there is no bot `{bot}`; use one of {BOT_NAMES:?}"
                    )));
                }
                let name = format!("Bot {} ({bot})", index + 1);
                seats.push(StoredSeat {
                    seat: number,
                    kind: "bot".to_owned(),
                    name: name.clone(),
                    token_hash: None,
                    bot: Some(bot.clone()),
                    claimed: true,
                });
                issued.push(json!({ "seat": number, "kind": "bot", "name": name, "bot": bot }));
            }
        }
    }
    let stored = StoredGame {
        id: id.clone(),
        ruleset_id: entry.info.id.clone(),
        ruleset_hash: entry.hash.clone(),
        map_id,
        map_hash: hex::encode(Sha256::digest(map_toml.as_bytes())),
        map_toml,
        variant: request.variant.clone(),
        options_json: serde_json::to_string(&options).context("failed to encode options")?,
        seed,
        created_at: now_millis(),
        finished_at: None,
    };
    let clock = pace.map(|pace| TableClock::new(pace, seat_count));
    let game = state
        .hub
        .create_timed(stored, seats, &credentials, creator_of(&extensions), clock)
        .await?;
    if request.rated {
        crate::ratings::register(state.hub.storage(), &id, &entry.info.id, seat_count).await?;
    }
    let body = json!({
        "id": id,
        "version": game.standing().version,
        "host_token": host_token,
        "seats": issued,
        "spectator_url": format!("/#/watch/{id}"),
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /api/games`
pub async fn list_games(State(state): State<AppState>) -> AppResult<Json<Value>> {
    let listed = state.hub.storage().list_games(200).await?;
    let paces = state.hub.storage().newest_paces(200).await?;
    Ok(Json(Value::Array(
        listed
            .iter()
            .map(|(stored, seats, version)| {
                let mut json = game_json(stored, seats, *version, stored.finished_at.is_some());
                let pace = paces
                    .get(&stored.id)
                    .and_then(|pace| serde_json::from_str(pace).ok());
                json["pace"] = pace_json(pace.as_ref());
                json
            })
            .collect(),
    )))
}

/// `GET /api/games/{id}`
pub async fn get_game(
    State(state): State<AppState>,
    TheGame(game): TheGame,
) -> AppResult<Json<Value>> {
    let mut json = live_game_json(&game);
    json["clocks"] = clocks_json(&game, state.hub.now_millis());
    Ok(Json(json))
}

/// `POST /api/games/{id}/claim` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The name to show for the seat.
    pub name: String,
    /// A key the client made up for this claim and its retries: a retry with the same key (and
    /// the same old token) gets the same new token back for a while, so an answer lost on the
    /// way does not lock the seat.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// A client-chosen retry key as a join or claim accepts it: 16 to 128 visible ASCII characters.
fn retry_key(key: Option<&str>) -> AppResult<Option<&str>> {
    let Some(key) = key else { return Ok(None) };
    if !tokens::RETRY_KEY_LENGTH.contains(&key.len()) || !key.chars().all(|c| c.is_ascii_graphic())
    {
        return Err(AppError::BadRequest(format!(
            "`idempotency_key` has {} to {} visible ASCII characters",
            tokens::RETRY_KEY_LENGTH.start(),
            tokens::RETRY_KEY_LENGTH.end()
        )));
    }
    Ok(Some(key))
}

/// The receipt a join or claim spending `spent` under `key` leaves with its new `token`.
fn receipt_for(kind: &str, spent: &str, key: &str, token: &str) -> AppResult<SeatReceipt> {
    Ok(SeatReceipt {
        request_hash: tokens::receipt_hash(kind, spent),
        key_hash: tokens::token_hash(key),
        sealed_token: tokens::seal(token, spent, key)
            .ok_or_else(|| anyhow::anyhow!("a new token is not 64 hex digits"))?,
        expires_at: now_millis() + tokens::SEAT_RECEIPT_SECONDS * 1000,
    })
}

/// The token a join or claim that spent `spent` under `key` gave its seat, when the request is
/// retried after its answer was lost: only while the receipt lasts and the token is still the
/// seat's (a seat reopened since has a new holder).
async fn token_from_receipt(
    state: &AppState,
    game: &Arc<LiveGame>,
    kind: &str,
    spent: &str,
    key: &str,
) -> AppResult<Option<(Seat, String)>> {
    let Some((seat, sealed)) = state
        .hub
        .storage()
        .seat_receipt(
            game.id(),
            &tokens::receipt_hash(kind, spent),
            &tokens::token_hash(key),
        )
        .await?
    else {
        return Ok(None);
    };
    let Some(token) = tokens::seal(&sealed, spent, key) else {
        return Ok(None);
    };
    let holder = seat_for_token_hash(state, game, &tokens::token_hash(&token)).await?;
    Ok((holder == Some(seat)).then_some((seat, token)))
}

/// The name a seat shows now.
fn name_of(game: &LiveGame, seat: Seat) -> String {
    game.seats()
        .into_iter()
        .find(|stored| stored.seat == seat)
        .map(|stored| stored.name)
        .unwrap_or_default()
}

/// `POST /api/games/{id}/claim`: the holder of a seat's token takes the seat under a name and
/// gets a fresh token; the old one stops working, so whoever else saw it (the creator of a game
/// from before invites, an old invite link) can no longer act for the seat.
pub async fn claim(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    AppJson(claim): AppJson<Claim>,
) -> AppResult<Json<Value>> {
    let game = state.hub.game(&id).await?;
    let key = retry_key(claim.idempotency_key.as_deref())?;
    let old_token = request_token(&headers)?.unwrap_or_default().to_owned();
    let seat = match seat_of(&state, &game, &headers).await {
        Ok(seat) => seat,
        // A retry of a claim whose answer was lost: its old token is spent already.
        Err(refusal @ AppError::Forbidden(_)) => {
            let retried = match key {
                Some(key) if !old_token.is_empty() => {
                    token_from_receipt(&state, &game, "claim", &old_token, key).await?
                }
                _ => None,
            };
            let Some((seat, token)) = retried else {
                return Err(refusal);
            };
            return Ok(Json(
                json!({ "seat": seat, "name": name_of(&game, seat), "token": token }),
            ));
        }
        Err(error) => return Err(error),
    };
    let name = seat_name(&claim.name)?;
    let old_hash = tokens::token_hash(&old_token);
    let token = tokens::new_token()?;
    let receipt = key
        .map(|key| receipt_for("claim", &old_token, key, &token))
        .transpose()?;
    let claimed = state
        .hub
        .storage()
        .claim_with_new_token(
            game.id(),
            seat,
            &old_hash,
            &tokens::token_hash(&token),
            &name,
            receipt.as_ref(),
        )
        .await?;
    if !claimed {
        return Err(AppError::Forbidden(
            "this token was replaced meanwhile; it belongs to no seat any more".to_owned(),
        ));
    }
    state.hub.reload_seats(&game).await?;
    // An audit trail for the operator; never a secret.
    tracing::info!(
        "game {}: seat {seat} claimed; its token was replaced",
        game.id()
    );
    Ok(Json(json!({ "seat": seat, "name": name, "token": token })))
}

/// `POST /api/games/{id}/join` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Join {
    /// The invite code from the invite link. In the body, never in a URL.
    pub code: String,
    /// The name to show for the seat; the seat's name so far if absent.
    #[serde(default)]
    pub name: Option<String>,
    /// A key the client made up for this join and its retries: a retry with the same code and
    /// key gets the same seat token back for a while, so an answer lost on the way does not
    /// lock the seat.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// `POST /api/games/{id}/join`: exchanges an invite code, once, for the seat's own fresh token.
pub async fn join(
    State(state): State<AppState>,
    Path(id): Path<String>,
    AppJson(join): AppJson<Join>,
) -> AppResult<Json<Value>> {
    let game = state.hub.game(&id).await?;
    let name = join.name.as_deref().map(seat_name).transpose()?;
    let key = retry_key(join.idempotency_key.as_deref())?;
    let code = join.code.trim();
    let token = tokens::new_token()?;
    let receipt = key
        .map(|key| receipt_for("join", code, key, &token))
        .transpose()?;
    let redeemed = state
        .hub
        .storage()
        .redeem_invite(
            game.id(),
            &tokens::token_hash(code),
            &tokens::token_hash(&token),
            name.as_deref(),
            receipt.as_ref(),
        )
        .await?;
    let (seat, token) = match (redeemed, key) {
        (Some(seat), _) => {
            state.hub.reload_seats(&game).await?;
            tracing::info!("game {}: seat {seat} taken with its invite", game.id());
            (seat, token)
        }
        // A retry of a join whose answer was lost: the code is spent, the receipt answers.
        (None, Some(key)) => token_from_receipt(&state, &game, "join", code, key)
            .await?
            .ok_or_else(closed_invite)?,
        (None, None) => return Err(closed_invite()),
    };
    Ok(Json(
        json!({ "seat": seat, "name": name_of(&game, seat), "token": token }),
    ))
}

/// The answer to a join with a code that opens no seat.
fn closed_invite() -> AppError {
    AppError::Forbidden(
        "this invite is not open: it was used, revoked or never issued for this game".to_owned(),
    )
}

/// `GET /api/games/{id}/invites`: the seats as the creator manages them (host token).
pub async fn invites(
    State(state): State<AppState>,
    Hosting { game }: Hosting,
) -> AppResult<Json<Value>> {
    let open = state.hub.storage().open_invites(game.id()).await?;
    Ok(Json(Value::Array(
        game.seats()
            .iter()
            .map(|seat| {
                let mut json = seat_json(seat);
                json["invite_open"] = Value::Bool(open.contains(&seat.seat));
                json
            })
            .collect(),
    )))
}

/// The answer to an invite change that did not happen.
fn invite_refusal(change: InviteChange, seat: u32) -> AppError {
    match change {
        InviteChange::Changed => AppError::Internal(anyhow::anyhow!("an invite change was done")),
        InviteChange::NoSeat => AppError::NotFound(format!("the game has no seat {seat}")),
        InviteChange::BotSeat => AppError::BadRequest(format!(
            "seat {seat} is a bot's seat; nobody is invited to it"
        )),
        InviteChange::Claimed => AppError::Conflict(format!(
            "seat {seat} is claimed by a person; its invite can no longer change"
        )),
    }
}

/// `POST /api/games/{id}/seats/{seat}/invite`: a new invite code for an unclaimed person's seat
/// (host token). The seat's earlier invite is revoked, and a token someone holds for the seat
/// (the creator's own, say) stops working: the seat is open to whoever gets the new code.
pub async fn reissue_invite(
    State(state): State<AppState>,
    Path((id, seat)): Path<(String, u32)>,
    headers: HeaderMap,
) -> AppResult<Json<Value>> {
    new_invite(&state, &id, seat, &headers, NewInvite::Reissue).await
}

/// `DELETE /api/games/{id}/seats/{seat}/invite`: revokes an unclaimed seat's open invite (host
/// token); the seat waits for a new one.
pub async fn revoke_invite(
    State(state): State<AppState>,
    Hosting { game }: Hosting,
    Path((_, seat)): Path<(String, u32)>,
) -> AppResult<Json<Value>> {
    match state.hub.storage().revoke_invite(game.id(), seat).await? {
        InviteChange::Changed => {
            tracing::info!("game {}: seat {seat}'s invite was revoked", game.id());
            Ok(Json(json!({ "seat": seat, "invite": null })))
        }
        refused => Err(invite_refusal(refused, seat)),
    }
}

/// `POST /api/games/{id}/seats/{seat}/reopen`: reopens a person's seat, claimed or not, to a new
/// invite (host token): whoever held the seat's token can no longer act for it, and the new code
/// gives it to whoever gets it. The way back when a person lost the seat's token or never got it
/// (the answer to a join lost on the way). Who plays the seat meanwhile (a bot) does not change.
pub async fn reopen_seat(
    State(state): State<AppState>,
    Path((id, seat)): Path<(String, u32)>,
    headers: HeaderMap,
) -> AppResult<Json<Value>> {
    new_invite(&state, &id, seat, &headers, NewInvite::Reopen).await
}

/// What a new invite code for a seat replaces.
enum NewInvite {
    /// The seat's earlier invite (the seat is still unclaimed).
    Reissue,
    /// Whoever holds the seat: its token is retired.
    Reopen,
}

/// The host's new invite code for a seat: `reissue_invite` and `reopen_seat` differ only in what
/// the storage retires and what the log says.
async fn new_invite(
    state: &AppState,
    id: &str,
    seat: u32,
    headers: &HeaderMap,
    kind: NewInvite,
) -> AppResult<Json<Value>> {
    let game = state.hub.game(id).await?;
    require_host(state, &game, headers).await?;
    if game.standing().finished || game.stored.finished_at.is_some() {
        return Err(AppError::Conflict(
            "the game is over; nobody can join it".to_owned(),
        ));
    }
    let code = tokens::new_token()?;
    let code_hash = tokens::token_hash(&code);
    let storage = state.hub.storage();
    let change = match kind {
        NewInvite::Reissue => storage.reissue_invite(game.id(), seat, &code_hash).await?,
        NewInvite::Reopen => storage.reopen_seat(game.id(), seat, &code_hash).await?,
    };
    match change {
        InviteChange::Changed => {}
        refused => return Err(invite_refusal(refused, seat)),
    }
    state.hub.reload_seats(&game).await?;
    match kind {
        NewInvite::Reissue => tracing::info!(
            "game {}: seat {seat} has a new invite; earlier ones were revoked",
            game.id()
        ),
        NewInvite::Reopen => tracing::info!(
            "game {}: seat {seat} was reopened with a new invite; its token was retired",
            game.id()
        ),
    }
    Ok(Json(json!({ "seat": seat, "invite": code })))
}

/// Query of reading endpoints.
#[derive(Debug, Default, Deserialize)]
pub struct ReadQuery {
    /// Refused: a seat token in a URL ends up in logs. Named here only to say so clearly.
    #[serde(default)]
    pub token: Option<String>,
    /// `/stream` only: a ticket from `POST /stream-ticket`, for clients that cannot send headers.
    #[serde(default)]
    pub ticket: Option<String>,
    /// Only entries after this version.
    #[serde(default)]
    pub since: Option<u64>,
    /// For `/view` of a finished game: the board after this many actions (the replay viewer).
    #[serde(default)]
    pub at: Option<u64>,
}

impl ReadQuery {
    /// Refuses the secrets a URL must not carry here.
    fn check(&self, ticket_allowed: bool) -> AppResult<()> {
        if self.token.is_some() {
            return Err(AppError::BadRequest(
                "a seat token is not accepted in the URL (it would end up in logs): send \
                 `Authorization: Bearer <token>`, or open the stream with a ticket from \
                 `POST /api/games/{id}/stream-ticket`"
                    .to_owned(),
            ));
        }
        if self.ticket.is_some() && !ticket_allowed {
            return Err(AppError::BadRequest(
                "a stream ticket opens only `/stream`".to_owned(),
            ));
        }
        Ok(())
    }
}

/// `GET /api/games/{id}/view`
pub async fn view(
    State(state): State<AppState>,
    Query(query): Query<ReadQuery>,
    Viewing { game, viewer }: Viewing,
) -> AppResult<Json<Value>> {
    query.check(false)?;
    // The current view first: it loads a game that is not in memory (after a restart, say),
    // and only a loaded game has an up-to-date summary.
    let mut view = state.hub.view(&game, viewer).await?;
    let standing = game.standing();
    if let Some(at) = query.at.filter(|&at| at < standing.version) {
        view = state.hub.view_at(&game, viewer, at).await?;
    }
    let finished = standing.finished;
    let mut body = json!({
        "version": view.version,
        "viewer": viewer,
        "seats": game.seats().iter().map(seat_json).collect::<Vec<_>>(),
        "status": if finished { "finished" } else { "active" },
        "pending": view.pending,
        "waiting_for": standing.waiting_for,
        "state": view.state,
        "parts": view.parts,
        "seed_commitment": super::ruleset_calls::seed_commitment(&game.stored.seed),
        "pace": pace_json(game.pace().as_ref()),
        "clocks": clocks_json(&game, state.hub.now_millis()),
    });
    // The seed is revealed once the game is over (no decision pending), so players can check the
    // commitment; a ruleset that returns a result early reveals neither the result nor the seed.
    if finished && let Some(result) = &view.result {
        body["result"] = serde_json::to_value(result).context("failed to encode a result")?;
        body["seed"] = Value::String(hex::encode(game.stored.seed));
    }
    Ok(Json(body))
}

/// `POST /api/games/{id}/actions`
pub async fn submit_action(
    State(state): State<AppState>,
    Acting { game, seat }: Acting,
    AppJson(request): AppJson<SubmitAction>,
) -> AppResult<Json<Value>> {
    act(&state, &game, seat, request).await.map(Json)
}

/// `POST /api/games/{id}/preview` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviewAction {
    /// The answer being composed; it may pick or place fewer than the decision's minimum.
    pub action: Action,
}

/// `POST /api/games/{id}/preview`: what an answer would do, said by the ruleset before it is
/// sent (costs, steps that would be skipped). Changes nothing.
pub async fn preview_action(
    State(state): State<AppState>,
    Acting { game, seat }: Acting,
    AppJson(request): AppJson<PreviewAction>,
) -> AppResult<Json<Value>> {
    let notes = state.hub.preview(&game, seat, request.action).await?;
    Ok(Json(json!({ "notes": notes })))
}

/// One log entry as `viewer` may see it.
pub(crate) fn log_entry(action: &StoredAction, viewer: Viewer) -> AppResult<Value> {
    let events: Vec<Event> =
        serde_json::from_str(&action.events_json).context("a stored event list is unreadable")?;
    let tower: Value =
        serde_json::from_str(&action.tower_json).context("stored tower drops are unreadable")?;
    let mut entry = json!({
        "version": action.seq,
        "seat": action.seat,
        "events": visible_events(&events, viewer),
    });
    if tower.as_array().is_some_and(|drops| !drops.is_empty()) {
        entry["tower"] = tower;
    }
    if let Some(bot) = &action.bot {
        entry["bot"] = Value::String(bot.clone());
    }
    Ok(entry)
}

async fn log_since(
    state: &AppState,
    game: &LiveGame,
    since: u64,
    viewer: Viewer,
) -> AppResult<Vec<Value>> {
    let actions = state.hub.storage().actions_since(game.id(), since).await?;
    actions
        .iter()
        .map(|action| log_entry(action, viewer))
        .collect()
}

/// `GET /api/games/{id}/log`
pub async fn log(
    State(state): State<AppState>,
    Query(query): Query<ReadQuery>,
    Viewing { game, viewer }: Viewing,
) -> AppResult<Json<Value>> {
    query.check(false)?;
    let entries = log_since(&state, &game, query.since.unwrap_or(0), viewer).await?;
    Ok(Json(Value::Array(entries)))
}

/// An update pushed over the event stream.
#[derive(Serialize)]
struct StreamUpdate {
    version: u64,
    log: Vec<Value>,
    seats_changed: bool,
}

/// `POST /api/games/{id}/stream-ticket`: a ticket that opens the game's event stream once, as
/// the token's seat, within [`tokens::STREAM_TICKET_SECONDS`]. `EventSource` cannot send an
/// `Authorization` header; a ticket in its URL is worthless once used or expired, where a seat
/// token in a URL would stay valid in every log that recorded it.
pub async fn stream_ticket(
    State(state): State<AppState>,
    headers: HeaderMap,
    Acting { game, .. }: Acting,
) -> AppResult<Json<Value>> {
    let token_hash = tokens::token_hash(request_token(&headers)?.unwrap_or_default());
    let ticket = tokens::new_token()?;
    state
        .hub
        .storage()
        .insert_stream_ticket(
            &tokens::token_hash(&ticket),
            game.id(),
            &token_hash,
            now_millis() + tokens::STREAM_TICKET_SECONDS * 1000,
        )
        .await?;
    Ok(Json(
        json!({ "ticket": ticket, "expires_in": tokens::STREAM_TICKET_SECONDS }),
    ))
}

/// `GET /api/games/{id}/stream` (server-sent events). A reconnecting client passes `since` (or
/// its browser sends `Last-Event-ID`) and receives every entry it missed. A seat's stream ends
/// when the seat's token changes (claimed, or reopened by the creator): it was opened for the
/// old token, and the seat's next entries may be someone else's secrets.
pub async fn stream(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<ReadQuery>,
    headers: HeaderMap,
) -> AppResult<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>> {
    query.check(true)?;
    let game = state.hub.game(&id).await?;
    // The digest of the seat token the stream is opened for, if any.
    let token_hash = match (&query.ticket, request_token(&headers)?) {
        (Some(_), Some(_)) => {
            return Err(AppError::BadRequest(
                "send either a token or a ticket, not both".to_owned(),
            ));
        }
        (Some(ticket), None) => Some(
            state
                .hub
                .storage()
                .take_stream_ticket(&tokens::token_hash(ticket), game.id())
                .await?
                .ok_or_else(|| {
                    AppError::Forbidden(
                        "this stream ticket is unknown, used or expired; get a new one".to_owned(),
                    )
                })?,
        ),
        (None, Some(token)) => Some(tokens::token_hash(token)),
        (None, None) => None,
    };
    let viewer = match &token_hash {
        None => Viewer::Spectator,
        Some(hash) => Viewer::Seat(seat_holding(&state, &game, hash).await?),
    };
    let last_event_id = headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let since = query
        .since
        .into_iter()
        .chain(last_event_id)
        .max()
        .unwrap_or(0);
    // Subscribe before reading what is stored, so nothing falls between the two.
    let updates = game.subscribe();

    struct Cursor {
        state: AppState,
        game: Arc<LiveGame>,
        viewer: Viewer,
        token_hash: Option<String>,
        updates: tokio::sync::broadcast::Receiver<Update>,
        sent: u64,
        first: bool,
    }
    let cursor = Cursor {
        state,
        game,
        viewer,
        token_hash,
        updates,
        sent: since,
        first: true,
    };
    let events = futures_util::stream::unfold(cursor, |mut cursor| async move {
        loop {
            let seats_changed = if cursor.first {
                cursor.first = false;
                false
            } else {
                match cursor.updates.recv().await {
                    Ok(Update::Version(version)) if version <= cursor.sent => continue,
                    Ok(Update::Version(_)) | Err(RecvError::Lagged(_)) => false,
                    Ok(Update::Seats) => true,
                    Err(RecvError::Closed) => return None,
                }
            };
            if let (Viewer::Seat(seat), Some(hash)) = (cursor.viewer, &cursor.token_hash)
                && seat_with_token_hash(&cursor.game, hash) != Some(seat)
            {
                return None;
            }
            let log = match log_since(&cursor.state, &cursor.game, cursor.sent, cursor.viewer).await
            {
                Ok(log) => log,
                Err(error) => {
                    tracing::warn!("stream of game {}: {error}", cursor.game.id());
                    return None;
                }
            };
            if let Some(last) = log.last().and_then(|entry| entry["version"].as_u64()) {
                cursor.sent = last;
            }
            let version = cursor.sent;
            let update = StreamUpdate {
                version,
                log,
                seats_changed,
            };
            let event = SseEvent::default()
                .event("update")
                .id(version.to_string())
                .json_data(&update)
                .unwrap_or_else(|_| SseEvent::default().event("update").data("{}"));
            return Some((Ok(event), cursor));
        }
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// `POST /api/games/{id}/seats/{seat}/bot` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandToBot {
    /// The bot to hand the seat to; `null` takes it back.
    pub bot: Option<String>,
}

/// `POST /api/games/{id}/seats/{seat}/bot`
pub async fn hand_to_bot(
    State(state): State<AppState>,
    Path((id, seat)): Path<(String, u32)>,
    headers: HeaderMap,
    AppJson(request): AppJson<HandToBot>,
) -> AppResult<Json<Value>> {
    let game = state.hub.game(&id).await?;
    let token = request_token(&headers)?.ok_or_else(|| {
        AppError::Forbidden(
            "handing a seat to a bot needs the seat's token or the game's host token".to_owned(),
        )
    })?;
    let own = seat_for_token_hash(&state, &game, &tokens::token_hash(token)).await?;
    if own != Some(seat) {
        // The host may hand any person's seat to a bot (a player gone, a token lost) and give
        // it back to whoever holds the seat's token; a seat created for a bot stays a bot's.
        let host = require_host(&state, &game, &headers).await.is_ok();
        if !host {
            return Err(match own {
                Some(_) => AppError::Forbidden("a token acts only for its own seat".to_owned()),
                None => AppError::Forbidden(
                    "this token belongs to no seat of this game and is not its host token"
                        .to_owned(),
                ),
            });
        }
        match state
            .hub
            .storage()
            .seat_kind(game.id(), seat)
            .await?
            .as_deref()
        {
            None => return Err(AppError::NotFound(format!("the game has no seat {seat}"))),
            Some("human") => {}
            Some(_) if request.bot.is_none() => {
                return Err(AppError::BadRequest(format!(
                    "seat {seat} is a bot's seat from the start; nobody can take it back"
                )));
            }
            Some(_) => {}
        }
    }
    if let Some(bot) = &request.bot
        && !BOT_NAMES.contains(&bot.as_str())
    {
        return Err(AppError::BadRequest(format!(
            "there is no bot `{bot}`; use one of {BOT_NAMES:?}"
        )));
    }
    state.hub.set_bot(&game, seat, request.bot.clone()).await?;
    Ok(Json(json!({ "seat": seat, "bot": request.bot })))
}

/// `GET /api/games/{id}/record`
pub async fn record(
    State(state): State<AppState>,
    TheGame(game): TheGame,
) -> AppResult<Json<Value>> {
    Ok(Json(state.hub.record(&game).await?))
}

/// Any other `/api` path.
pub async fn unknown_api() -> AppError {
    AppError::NotFound("there is no such API endpoint".to_owned())
}
