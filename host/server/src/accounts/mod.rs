//! Accounts, optional: a guest plays by invite link and seat token as before; a person may also
//! create an account (a name and a password, [`passwords`]) and sign in on any device
//! ([`sessions`]), attach the seats whose tokens the browser holds, and see them all in "My
//! games".
//!
//! A signed-in account acts for its seats through the seats' own tokens, never through the
//! cookie: `POST /api/me/games/{id}/seats/{seat}/token` gives the seat a fresh token and hands it
//! to this browser (the token the seat had stops working, as a claim does). So every game
//! request, the event stream and the move socket keep the one check they have (a bearer token,
//! which no other site can make a browser send), and the cookie authenticates only the
//! account's own routes, each change of which needs the session's CSRF token.
//!
//! Sign-ins (and sign-ups) are rate-limited per client address and per account name; password
//! hashing runs in bounded slots of its own. The password hash never leaves [`store`]: no
//! answer, log line or export carries it.

pub mod passkey_store;
pub mod passkeys;
pub mod passwords;
pub mod sessions;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{Extensions, HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sdk::Viewer;
use serde::Deserialize;
use serde_json::{Value, json};

use self::sessions::{SignedIn, SignedInChange};
use self::store::{Account, Attached};
use crate::AppState;
use crate::error::{AppError, AppJson, AppPath, AppResult};
use crate::limits::{self, KeyedBuckets, buckets};
use crate::slots::CallSlots;
use crate::storage::now_millis;
use crate::tokens;

/// Settings of the accounts (`tenka serve` options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountSettings {
    /// Mark the session cookie `Secure` (the server runs behind HTTPS).
    pub secure_cookies: bool,
    /// Sign-in and sign-up attempts one client address may make per minute (0: no limit).
    pub sign_ins_per_minute: u32,
    /// Sign-in attempts one account name may get per hour, from anywhere (0: no limit).
    pub sign_ins_per_account_per_hour: u32,
    /// How long a session lasts without signing in again.
    pub session_days: u32,
    /// The server's public address (`--public-url`): its host is the passkeys' relying party.
    /// Without it, the host each request names is.
    pub public_url: Option<String>,
}

impl Default for AccountSettings {
    fn default() -> Self {
        AccountSettings {
            secure_cookies: false,
            sign_ins_per_minute: 10,
            sign_ins_per_account_per_hour: 20,
            session_days: 30,
            public_url: None,
        }
    }
}

type Buckets = KeyedBuckets<String>;

/// The accounts' settings, sign-in buckets and hashing slots.
pub struct Accounts {
    settings: AccountSettings,
    per_address: Option<Buckets>,
    per_account: Option<Buckets>,
    /// Argon2 hashes at once (each takes 19 MiB and tens of milliseconds).
    hashing: CallSlots,
}

/// Password hashes computed at once.
const HASHING_SLOTS: usize = 2;

/// The most seats one request may attach.
pub const MAX_ATTACH: usize = 64;

/// The most games "My games" lists.
pub const MAX_MY_GAMES: u32 = 200;

impl Accounts {
    /// The accounts with these settings.
    pub fn new(settings: AccountSettings) -> Accounts {
        Accounts {
            per_address: buckets(
                Duration::from_secs(60),
                settings.sign_ins_per_minute,
                settings.sign_ins_per_minute,
            ),
            per_account: buckets(
                Duration::from_secs(3600),
                settings.sign_ins_per_account_per_hour,
                settings.sign_ins_per_account_per_hour,
            ),
            hashing: CallSlots::new(HASHING_SLOTS),
            settings,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &AccountSettings {
        &self.settings
    }

    /// Forgets buckets that are full again.
    pub fn forget_idle(&self) {
        for buckets in [&self.per_address, &self.per_account].into_iter().flatten() {
            buckets.retain_recent();
        }
    }

    fn session_seconds(&self) -> i64 {
        i64::from(self.settings.session_days.max(1)) * 86_400
    }
}

impl Default for Accounts {
    fn default() -> Self {
        Accounts::new(AccountSettings::default())
    }
}

/// Forgets full buckets every minute.
pub fn spawn_forgetting(accounts: Arc<Accounts>) {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(Duration::from_secs(60));
        loop {
            ticks.tick().await;
            accounts.forget_idle();
        }
    });
}

/// Takes one attempt from `buckets` for `key`, or refuses with how long to wait.
fn take(buckets: Option<&Buckets>, key: String) -> AppResult<()> {
    limits::take(buckets, &key).map_err(limits::over_the_limit)
}

/// The client address a request comes from (in-process callers share one).
fn address_of(extensions: &Extensions) -> String {
    limits::client_address(limits::peer_address(extensions)).to_string()
}

/// `POST /api/accounts` and `POST /api/accounts/sign-in` body. Its `Debug` hides the password.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    pub name: String,
    pub password: String,
    /// At sign-up: the page's language, which mails to the account are written in (else the
    /// request's `Accept-Language`). Ignored at sign-in.
    #[serde(default)]
    pub language: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        hiding_secret(f, "Credentials", ("name", &self.name), "password")
    }
}

/// A body's `Debug` with its secret left out, so no log line ever carries it.
fn hiding_secret(
    f: &mut std::fmt::Formatter<'_>,
    name: &str,
    (shown, value): (&str, &str),
    secret: &str,
) -> std::fmt::Result {
    f.debug_struct(name)
        .field(shown, &value)
        .field(secret, &"..")
        .finish()
}

/// The language of a new account: the one the page gives (one the UI offers, else 400), else
/// the first the request's `Accept-Language` names that the UI offers, else English.
fn request_language(given: Option<&str>, headers: &HeaderMap) -> AppResult<&'static str> {
    use crate::languages::{LANGUAGES, language_of};
    if let Some(given) = given {
        return language_of(given).ok_or_else(|| {
            AppError::BadRequest(format!("a language is one of {}", LANGUAGES.join(", ")))
        });
    }
    let accepted = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    Ok(accepted
        .split(',')
        .take(16)
        .filter_map(|tag| language_of(tag.split(';').next()?.trim().split('-').next()?))
        .next()
        .unwrap_or(LANGUAGES[0]))
}

fn account_json(account: &Account) -> Value {
    json!({ "id": account.id, "name": account.name, "created_at": account.created_at })
}

/// The answer that starts a session: the account, the CSRF token and the cookie.
fn signed_in(
    accounts: &Accounts,
    status: StatusCode,
    account: &Account,
    session: &str,
) -> Response {
    (
        status,
        [(
            header::SET_COOKIE,
            sessions::session_cookie(
                session,
                accounts.settings.secure_cookies,
                accounts.session_seconds(),
            ),
        )],
        Json(json!({
            "account": account_json(account),
            "csrf_token": sessions::csrf_token(session),
        })),
    )
        .into_response()
}

/// Ends the session the request's cookie names, if any: a browser that signs in or up gets a
/// new session, and the old one (whoever made it) is never promoted or kept.
async fn end_presented_session(state: &AppState, headers: &HeaderMap) -> AppResult<()> {
    let jar = axum_extra::extract::cookie::CookieJar::from_headers(headers);
    if let Some(cookie) = jar.get(sessions::COOKIE) {
        store::end_session(state.hub.storage(), &sessions::session_hash(cookie.value())).await?;
    }
    Ok(())
}

/// `POST /api/accounts`: creates an account and signs this browser in.
pub async fn sign_up(
    State(state): State<AppState>,
    extensions: Extensions,
    headers: HeaderMap,
    AppJson(credentials): AppJson<Credentials>,
) -> AppResult<Response> {
    let name = passwords::account_name(&credentials.name)?;
    passwords::new_password(&credentials.password)?;
    let language = request_language(credentials.language.as_deref(), &headers)?;
    let accounts = state.accounts.clone();
    take(accounts.per_address.as_ref(), address_of(&extensions))?;
    let password = credentials.password;
    let password_hash = accounts
        .hashing
        .run(move || passwords::hash(&password))
        .await
        .map_err(AppError::Internal)??;
    let account = Account {
        id: tokens::new_token()?[..32].to_owned(),
        name,
        created_at: now_millis(),
    };
    let session = tokens::new_token()?;
    let created = store::create_account(
        state.hub.storage(),
        &account,
        &passwords::name_key(&account.name),
        &password_hash,
        &sessions::session_hash(&session),
        account.created_at + accounts.session_seconds() * 1000,
    )
    .await?;
    if !created {
        return Err(AppError::Conflict(
            "this account name is taken; choose another".to_owned(),
        ));
    }
    passkey_store::set_language(state.hub.storage(), &account.id, language).await?;
    end_presented_session(&state, &headers).await?;
    tracing::info!("account {} created", account.id);
    Ok(signed_in(
        &accounts,
        StatusCode::CREATED,
        &account,
        &session,
    ))
}

/// `POST /api/accounts/sign-in`: signs this browser in with a new session.
pub async fn sign_in(
    State(state): State<AppState>,
    extensions: Extensions,
    headers: HeaderMap,
    AppJson(credentials): AppJson<Credentials>,
) -> AppResult<Response> {
    // A name that could not have been made is no account; its size is bounded either way.
    let name = passwords::account_name(&credentials.name)?;
    passwords::given_password(&credentials.password)?;
    let accounts = state.accounts.clone();
    let key = passwords::name_key(&name);
    take(accounts.per_address.as_ref(), address_of(&extensions))?;
    take(accounts.per_account.as_ref(), key.clone())?;
    let found = store::account_for_sign_in(state.hub.storage(), &key).await?;
    // An account made with a passkey has no password (an empty hash): it is checked against
    // the decoy, as a name of no account is, so it takes as long and fails alike.
    let (account, stored) = match found {
        Some((account, stored)) if !stored.is_empty() => (Some(account), Some(stored)),
        _ => (None, None),
    };
    let password = credentials.password;
    let matches = accounts
        .hashing
        .run(move || passwords::verify(&password, stored.as_deref()))
        .await
        .map_err(AppError::Internal)?;
    let Some(account) = account.filter(|_| matches) else {
        tracing::info!("a sign-in was refused (client {})", address_of(&extensions));
        return Err(AppError::Forbidden(
            "wrong account name or password".to_owned(),
        ));
    };
    end_presented_session(&state, &headers).await?;
    let session = tokens::new_token()?;
    store::start_session(
        state.hub.storage(),
        &account.id,
        &sessions::session_hash(&session),
        now_millis() + accounts.session_seconds() * 1000,
    )
    .await?;
    tracing::info!("account {} signed in", account.id);
    Ok(signed_in(&accounts, StatusCode::OK, &account, &session))
}

/// `POST /api/accounts/sign-out`: ends this session; the cookie is cleared.
pub async fn sign_out(
    State(state): State<AppState>,
    SignedInChange(signed_in): SignedInChange,
) -> AppResult<Response> {
    store::end_session(state.hub.storage(), &signed_in.session_hash).await?;
    Ok((
        [(
            header::SET_COOKIE,
            sessions::cleared_cookie(state.accounts.settings.secure_cookies),
        )],
        Json(json!({ "signed_out": true })),
    )
        .into_response())
}

/// `GET /api/me`: the signed-in account (with its language for mails) and its session's CSRF
/// token.
pub async fn me(State(state): State<AppState>, signed_in: SignedIn) -> AppResult<Json<Value>> {
    let mut account = account_json(&signed_in.account);
    account["language"] = json!(
        passkey_store::extras(state.hub.storage(), &signed_in.account.id)
            .await?
            .language
    );
    Ok(Json(json!({
        "account": account,
        "csrf_token": signed_in.csrf_token,
    })))
}

/// `PUT /api/me/language` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Language {
    pub language: String,
}

/// `PUT /api/me/language`: the language the account chose in the page; mails are written in it.
pub async fn set_language(
    State(state): State<AppState>,
    SignedInChange(signed_in): SignedInChange,
    AppJson(request): AppJson<Language>,
) -> AppResult<Json<Value>> {
    let language = request_language(Some(&request.language), &HeaderMap::new())?;
    passkey_store::set_language(state.hub.storage(), &signed_in.account.id, language).await?;
    Ok(Json(json!({ "language": language })))
}

/// `POST /api/me/seats` body: seat tokens the browser holds, by game.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttachSeats {
    pub seats: Vec<HeldSeat>,
}

/// A seat token the browser holds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeldSeat {
    pub game: String,
    pub token: String,
}

impl std::fmt::Debug for HeldSeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        hiding_secret(f, "HeldSeat", ("game", &self.game), "token")
    }
}

/// `POST /api/me/seats`: attaches the seats whose tokens the browser holds. Each token is
/// checked against its game; a token of no seat, or a seat another account has, is refused and
/// changes nothing. The answer says what became of each, in order.
pub async fn attach_seats(
    State(state): State<AppState>,
    SignedInChange(signed_in): SignedInChange,
    AppJson(request): AppJson<AttachSeats>,
) -> AppResult<Json<Value>> {
    if request.seats.len() > MAX_ATTACH {
        return Err(AppError::BadRequest(format!(
            "at most {MAX_ATTACH} seats at once"
        )));
    }
    if let Some(bad) = request
        .seats
        .iter()
        .find(|held| held.game.is_empty() || held.game.len() > 64 || held.token.len() > 128)
    {
        return Err(AppError::BadRequest(format!(
            "a game id has 1 to 64 characters and a token at most 128 (game `{}`)",
            bad.game.chars().take(64).collect::<String>()
        )));
    }
    let storage = state.hub.storage();
    let mut outcomes = Vec::with_capacity(request.seats.len());
    for held in &request.seats {
        let seat = storage
            .seat_of_token_hash(&held.game, &tokens::token_hash(held.token.trim()))
            .await?;
        let Some(seat) = seat else {
            outcomes.push(json!({ "game": held.game, "outcome": "refused", "message": "this token belongs to no seat of this game" }));
            continue;
        };
        let outcome = match store::attach_seat(storage, &signed_in.account.id, &held.game, seat)
            .await?
        {
            Attached::New => json!({ "game": held.game, "seat": seat, "outcome": "attached" }),
            Attached::Already => json!({ "game": held.game, "seat": seat, "outcome": "already" }),
            Attached::Elsewhere => {
                json!({ "game": held.game, "seat": seat, "outcome": "refused", "message": "this seat belongs to another account" })
            }
        };
        outcomes.push(outcome);
    }
    Ok(Json(json!({ "seats": outcomes })))
}

/// `GET /api/me/games`: the account's games, those waiting for one of its seats first (the
/// longest waiting first), then the running ones (the most recently moved first), then the
/// finished ones (the most recently finished first) with their results.
pub async fn my_games(
    State(state): State<AppState>,
    signed_in: SignedIn,
) -> AppResult<Json<Value>> {
    let storage = state.hub.storage();
    let attached = store::attached_seats(storage, &signed_in.account.id, MAX_MY_GAMES).await?;
    // (group, sort key, entry): 0 waiting, 1 running, 2 finished, 3 unavailable.
    let mut listed: Vec<(u8, i64, Value)> = Vec::with_capacity(attached.len());
    for seat in attached {
        let game = match state.hub.game(&seat.game_id).await {
            Ok(game) => game,
            Err(error) => {
                tracing::warn!("my games: game {}: {error}", seat.game_id);
                listed.push((
                    3,
                    0,
                    json!({ "id": seat.game_id, "seat": seat.seat, "status": "unavailable", "attached_at": seat.attached_at }),
                ));
                continue;
            }
        };
        let standing = game.standing();
        let seats = game.seats();
        let last_change = store::last_change(storage, game.id(), game.stored.created_at).await?;
        let mut entry = json!({
            "id": game.id(),
            "ruleset": game.stored.ruleset_id,
            "ruleset_hash": game.ruleset.hash().0,
            "map": game.stored.map_id,
            "variant": game.stored.variant,
            "seat": seat.seat,
            "seat_name": seats.iter().find(|stored| stored.seat == seat.seat).map(|stored| stored.name.clone()),
            "seats": seats.iter().map(|stored| json!({ "seat": stored.seat, "name": stored.name, "kind": stored.kind })).collect::<Vec<_>>(),
            "version": standing.version,
            "created_at": game.stored.created_at,
            "last_change": last_change,
            "attached_at": seat.attached_at,
            "pace": crate::clocks::pace_json(game.pace().as_ref()),
            "clocks": game.clock().map_or(Value::Null, |clock| clock.to_json(state.hub.now_millis())),
        });
        let (group, key) = if standing.finished {
            entry["status"] = json!("finished");
            let view = state.hub.view(&game, Viewer::Seat(seat.seat)).await?;
            entry["result"] = serde_json::to_value(&view.result)
                .map_err(|error| AppError::Internal(error.into()))?;
            (2, -last_change)
        } else if standing.waiting_for.contains(&seat.seat) {
            entry["status"] = json!("waiting");
            entry["waiting_since"] = json!(last_change);
            (0, last_change)
        } else {
            entry["status"] = json!("running");
            (1, -last_change)
        };
        listed.push((group, key, entry));
    }
    listed.sort_by_key(|entry| (entry.0, entry.1));
    Ok(Json(json!({
        "games": listed.into_iter().map(|(_, _, entry)| entry).collect::<Vec<_>>(),
    })))
}

/// `POST /api/me/games/{id}/seats/{seat}/token`: a fresh token for a seat attached to the
/// account, for this browser. The seat's earlier token stops working (on every other device
/// too, whose event streams end), as a claim does; a device signed in to the account gets the
/// seat back the same way.
pub async fn seat_token(
    State(state): State<AppState>,
    SignedInChange(signed_in): SignedInChange,
    AppPath((id, seat)): AppPath<(String, u32)>,
) -> AppResult<Json<Value>> {
    let not_yours =
        || AppError::NotFound("no seat of this account has this game and number".to_owned());
    if !store::owns_seat(state.hub.storage(), &signed_in.account.id, &id, seat).await? {
        return Err(not_yours());
    }
    let game = state.hub.game(&id).await?;
    let token = tokens::new_token()?;
    let replaced = store::replace_seat_token(
        state.hub.storage(),
        &signed_in.account.id,
        &id,
        seat,
        &tokens::token_hash(&token),
    )
    .await?;
    if !replaced {
        return Err(not_yours());
    }
    state.hub.reload_seats(&game).await?;
    tracing::info!(
        "game {id}: seat {seat} taken to a new device by account {}; its token was replaced",
        signed_in.account.id
    );
    let name = game
        .seats()
        .into_iter()
        .find(|stored| stored.seat == seat)
        .map(|stored| stored.name)
        .unwrap_or_default();
    Ok(Json(
        json!({ "game": id, "seat": seat, "name": name, "token": token }),
    ))
}
