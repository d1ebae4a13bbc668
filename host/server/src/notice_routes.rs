//! The notices' HTTP routes: the page's notices and the account's settings (with the session
//! cookie; changes with its CSRF token), the one-click unsubscribe (signed, no session) and the
//! one-time sign-in link a mail carries.

use axum::Json;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::accounts::sessions::{self, SignedIn, SignedInChange};
use crate::accounts::store as accounts_store;
use crate::error::{AppError, AppJson, AppPath, AppResult};
use crate::notices::links::{self, Opened};
use crate::notices::store::{self, Settings};
use crate::tokens;

/// The most notices `GET /api/me/notices` lists.
pub const MAX_NOTICES: u32 = 50;

/// The longest email address taken (RFC 5321's path limit).
pub const MAX_EMAIL: usize = 254;

/// `GET /api/me/notices`: the account's newest notices and how many are unseen.
pub async fn list(State(state): State<AppState>, signed_in: SignedIn) -> AppResult<Json<Value>> {
    let (notices, unseen) =
        store::page_notices(state.hub.storage(), &signed_in.account.id, MAX_NOTICES).await?;
    Ok(Json(json!({ "notices": notices, "unseen": unseen })))
}

/// `POST /api/me/notices/seen` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seen {
    /// Every notice up to this id is seen.
    pub up_to: i64,
    /// Only the notices of this game.
    #[serde(default)]
    pub game: Option<String>,
}

/// `POST /api/me/notices/seen`: marks notices seen.
pub async fn seen(
    State(state): State<AppState>,
    SignedInChange(signed_in): SignedInChange,
    AppJson(request): AppJson<Seen>,
) -> AppResult<Json<Value>> {
    if request.game.as_ref().is_some_and(|game| game.len() > 64) {
        return Err(AppError::BadRequest(
            "a game id has at most 64 characters".to_owned(),
        ));
    }
    let marked = store::mark_seen(
        state.hub.storage(),
        &signed_in.account.id,
        request.up_to,
        request.game.as_deref(),
    )
    .await?;
    Ok(Json(json!({ "marked": marked })))
}

/// `GET /api/me/notice-settings`: the account's address and which notices it wants.
pub async fn settings(
    State(state): State<AppState>,
    signed_in: SignedIn,
) -> AppResult<Json<Settings>> {
    Ok(Json(
        store::settings(state.hub.storage(), &signed_in.account.id).await?,
    ))
}

/// `PUT /api/me/notice-settings`: stores the account's settings (an empty address removes it).
pub async fn save_settings(
    State(state): State<AppState>,
    SignedInChange(signed_in): SignedInChange,
    AppJson(mut request): AppJson<Settings>,
) -> AppResult<Json<Settings>> {
    request.email = match request.email.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(email) => Some(checked_email(email)?),
    };
    store::save_settings(
        state.hub.storage(),
        &signed_in.account.id,
        &request,
        state.hub.now_millis(),
    )
    .await?;
    Ok(Json(request))
}

/// An email address the server will send to, or a clear refusal.
fn checked_email(email: &str) -> AppResult<String> {
    if email.len() > MAX_EMAIL {
        return Err(AppError::BadRequest(format!(
            "an email address has at most {MAX_EMAIL} characters"
        )));
    }
    email
        .parse::<lettre::Address>()
        .map(|address| address.to_string())
        .map_err(|_| AppError::BadRequest("this is not an email address".to_owned()))
}

/// The unsubscribe link's query.
#[derive(Debug, Deserialize)]
pub struct UnsubscribeQuery {
    pub account: String,
    pub sig: String,
}

/// The account of an unsubscribe link whose signature holds, or a refusal.
async fn signed_account(
    state: &AppState,
    query: Result<Query<UnsubscribeQuery>, axum::extract::rejection::QueryRejection>,
) -> AppResult<String> {
    let refused = || AppError::Forbidden("this unsubscribe link is not valid".to_owned());
    let Ok(Query(query)) = query else {
        return Err(refused());
    };
    if query.account.is_empty()
        || query.account.len() > 64
        || query.sig.len() > 128
        || !query.account.bytes().all(|byte| byte.is_ascii_hexdigit())
    {
        return Err(refused());
    }
    let key = links::unsubscribe_key(state.hub.storage()).await?;
    if !links::unsubscribe_signature_holds(&key, &query.account, &query.sig) {
        tracing::info!("a forged or altered unsubscribe link was refused");
        return Err(refused());
    }
    Ok(query.account)
}

/// A small page of the server's own (the links a mail carries open outside the web client).
fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title} - Tenka</title>\
         <main><h1>{title}</h1>{body}</main></html>"
    ))
}

/// `GET /api/notices/unsubscribe`: a page with the one button that unsubscribes (a mail
/// scanner following the link changes nothing).
pub async fn unsubscribe_page(
    State(state): State<AppState>,
    query: Result<Query<UnsubscribeQuery>, axum::extract::rejection::QueryRejection>,
) -> AppResult<Html<String>> {
    let account = signed_account(&state, query).await?;
    let key = links::unsubscribe_key(state.hub.storage()).await?;
    let action = links::unsubscribe_path(&key, &account).replace('&', "&amp;");
    Ok(page(
        "Stop notices by mail",
        &format!(
            "<form method=\"post\" action=\"{action}\">\
             <input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\
             <button type=\"submit\">Stop all notices by mail</button></form>"
        ),
    ))
}

/// `POST /api/notices/unsubscribe`: RFC 8058's one-click unsubscribe (the mail program posts
/// `List-Unsubscribe=One-Click`), or the page's button. Needs no session: the signature is the
/// proof.
pub async fn unsubscribe(
    State(state): State<AppState>,
    query: Result<Query<UnsubscribeQuery>, axum::extract::rejection::QueryRejection>,
) -> AppResult<Response> {
    let account = signed_account(&state, query).await?;
    if !store::unsubscribe(state.hub.storage(), &account, state.hub.now_millis()).await? {
        return Err(AppError::NotFound("this account is gone".to_owned()));
    }
    tracing::info!("account {account} unsubscribed from notices by mail");
    Ok(page(
        "Unsubscribed",
        "<p>No more notices by mail. Turn them on again in your account's settings.</p>",
    )
    .into_response())
}

/// `GET /api/notices/open/{token}`: a page with the one button that uses the sign-in link (a
/// mail scanner following the link does not spend it).
pub async fn open_page(AppPath(token): AppPath<String>) -> AppResult<Html<String>> {
    if token.len() > 128 || !token.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return Err(AppError::NotFound("no such link".to_owned()));
    }
    Ok(page(
        "Open the game",
        &format!(
            "<form method=\"post\" action=\"/api/notices/open/{token}\">\
             <button type=\"submit\">Sign in and open the game</button></form>"
        ),
    ))
}

/// Whether a request comes from this server's own pages (or from no page at all): the sign-in
/// link's form must not be postable by another site, which could sign a browser in to an
/// account of its choosing. A browser's `Sec-Fetch-Site` (which no page can set) decides when
/// sent: the server's `Referrer-Policy: no-referrer` makes a browser send `Origin: null` with
/// the form of its own page, so the origin can only decide for a browser without it.
fn from_this_site(headers: &HeaderMap) -> bool {
    let site = headers
        .get("sec-fetch-site")
        .and_then(|value| value.to_str().ok());
    if let Some(site) = site {
        return site == "same-origin" || site == "none";
    }
    match (headers.get(header::ORIGIN), headers.get(header::HOST)) {
        (Some(origin), Some(host)) => {
            let origin = origin.to_str().unwrap_or_default();
            let host = host.to_str().unwrap_or_default();
            origin.split_once("://").map(|(_, rest)| rest) == Some(host)
        }
        (Some(_), None) => false,
        _ => true,
    }
}

/// Where the web client opens a game for its signed-in player: My games takes the seat to this
/// browser and opens the game at it (or the game's result, once it is over).
fn game_page(game: &str, seat: Option<u32>) -> String {
    match seat {
        Some(seat) => format!("/#/my-games?game={game}&seat={seat}"),
        None => format!("/#/my-games?game={game}"),
    }
}

/// A redirect to `to` (a path of this server), with `cookie` set if given.
fn see_other(to: &str, cookie: Option<HeaderValue>) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(location) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    if let Some(cookie) = cookie {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// `POST /api/notices/open/{token}`: uses a sign-in link once: a new session for its account,
/// then the game. A link used or too old leads to the game, where the player signs in.
pub async fn open(
    State(state): State<AppState>,
    headers: HeaderMap,
    AppPath(token): AppPath<String>,
) -> AppResult<Response> {
    if !from_this_site(&headers) {
        return Err(AppError::Forbidden(
            "a sign-in link opens only from its own page".to_owned(),
        ));
    }
    if token.len() > 128 {
        return Err(AppError::NotFound("no such link".to_owned()));
    }
    let storage = state.hub.storage();
    match links::use_sign_in_link(storage, &token, state.hub.now_millis()).await? {
        Opened::SignedIn {
            account,
            game,
            seat,
        } => {
            let session = tokens::new_token()?;
            let seconds = i64::from(state.accounts.settings().session_days.max(1)) * 86_400;
            accounts_store::start_session(
                storage,
                &account,
                &sessions::session_hash(&session),
                crate::storage::now_millis() + seconds * 1000,
            )
            .await?;
            tracing::info!("account {account} signed in by a mail's link");
            let cookie = sessions::session_cookie(
                &session,
                state.accounts.settings().secure_cookies,
                seconds,
            );
            Ok(see_other(&game_page(&game, seat), Some(cookie)))
        }
        Opened::Spent {
            game: Some(game),
            seat,
        } => Ok(see_other(&game_page(&game, seat), None)),
        Opened::Spent { game: None, .. } => Err(AppError::NotFound("no such link".to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn regression_sign_in_link_refused_its_own_page_in_a_browser() {
        // The server's no-referrer policy makes a browser post the link's own form with
        // `Origin: null`; the link was refused as another site's in every real browser.
        let own_form = headers(&[
            ("sec-fetch-site", "same-origin"),
            ("origin", "null"),
            ("host", "127.0.0.1:8080"),
        ]);
        assert!(from_this_site(&own_form));
    }

    #[test]
    fn another_sites_form_is_refused_whatever_its_origin_says() {
        for pairs in [
            &[("sec-fetch-site", "cross-site"), ("origin", "null")][..],
            &[
                ("sec-fetch-site", "same-site"),
                ("host", "play.example.org"),
            ][..],
            &[
                ("origin", "https://evil.example"),
                ("host", "play.example.org"),
            ][..],
            &[("origin", "null"), ("host", "play.example.org")][..],
        ] {
            assert!(!from_this_site(&headers(pairs)), "{pairs:?}");
        }
        assert!(from_this_site(&headers(&[
            ("origin", "https://play.example.org"),
            ("host", "play.example.org"),
        ])));
        assert!(
            from_this_site(&headers(&[])),
            "no page at all: a client of its own"
        );
    }
}
