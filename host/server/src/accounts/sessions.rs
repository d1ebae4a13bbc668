//! Sessions: a random id in an `HttpOnly`, `SameSite=Strict` cookie (also `Secure` when the
//! server is told it runs behind HTTPS), stored only as its SHA-256; and the CSRF token every
//! state-changing request made with the cookie must echo in the `X-CSRF-Token` header.
//!
//! The CSRF token is derived from the session id (`SHA-256("tenka csrf\0" + id)`), so the
//! server stores nothing more and can tell it again (`GET /api/me`) after a page reload. Another
//! site can make a browser send the cookie, but can neither read the token (the API answers no
//! cross-origin reads) nor set the header on a form post; a cross-origin `fetch` with the header
//! needs a CORS preflight the server never grants. Requests authenticated by a seat token in
//! `Authorization` do not look at the cookie at all and work as before.

use axum::extract::FromRequestParts;
use axum::http::HeaderValue;
use axum::http::request::Parts;
use axum_extra::extract::cookie::CookieJar;
use sha2::{Digest, Sha256};

use super::store::{self, Account};
use crate::AppState;
use crate::error::{AppError, AppResult};
use crate::tokens;

/// The session cookie's name.
pub const COOKIE: &str = "tenka_session";

/// The header a state-changing request made with the cookie carries its CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The session id the request's cookie holds, if any (unchecked).
pub fn presented_session(parts: &Parts) -> Option<String> {
    CookieJar::from_headers(&parts.headers)
        .get(COOKIE)
        .map(|cookie| cookie.value().to_owned())
        .filter(|value| !value.is_empty() && value.len() <= 128)
}

/// The digest a session id is stored under.
pub fn session_hash(session: &str) -> String {
    tokens::token_hash(session)
}

/// The CSRF token of a session.
pub fn csrf_token(session: &str) -> String {
    hex::encode(
        Sha256::new()
            .chain_update(b"tenka csrf\0")
            .chain_update(session.as_bytes())
            .finalize(),
    )
}

/// The `Set-Cookie` value that gives the browser its session for `max_age_secs`: only sent to
/// `/api`, never readable by scripts, never sent by a request another site starts.
pub fn session_cookie(session: &str, secure: bool, max_age_secs: i64) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    // A session id is hex, so the value needs no quoting and the header is always valid.
    HeaderValue::from_str(&format!(
        "{COOKIE}={session}; Path=/api; Max-Age={max_age_secs}; HttpOnly; SameSite=Strict{secure}"
    ))
    .unwrap_or(HeaderValue::from_static(
        "tenka_session=; Path=/api; Max-Age=0",
    ))
}

/// The `Set-Cookie` value that makes the browser forget its session.
pub fn cleared_cookie(secure: bool) -> HeaderValue {
    session_cookie("", secure, 0)
}

/// A signed-in request: the account of the live session its cookie names. Enough for reading;
/// a change needs [`SignedInChange`].
pub struct SignedIn {
    pub account: Account,
    /// The session id's digest.
    pub session_hash: String,
    /// The session's CSRF token.
    pub csrf_token: String,
}

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> AppResult<Self> {
        let not_signed_in = || {
            AppError::Forbidden(
                "not signed in: sign in first (POST /api/accounts/sign-in)".to_owned(),
            )
        };
        let session = presented_session(parts).ok_or_else(not_signed_in)?;
        let hash = session_hash(&session);
        let account = store::session_account(state.hub.storage(), &hash)
            .await?
            .ok_or_else(not_signed_in)?;
        Ok(SignedIn {
            account,
            session_hash: hash,
            csrf_token: csrf_token(&session),
        })
    }
}

/// A signed-in request that changes something: the session's cookie and its CSRF token in
/// `X-CSRF-Token`. Checked before the handler runs, so a refused request changes nothing.
pub struct SignedInChange(pub SignedIn);

impl FromRequestParts<AppState> for SignedInChange {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> AppResult<Self> {
        let signed_in = SignedIn::from_request_parts(parts, state).await?;
        let given = parts
            .headers
            .get(CSRF_HEADER)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        if !same_secret(given, &signed_in.csrf_token) {
            return Err(AppError::Forbidden(
                "a change made with the session cookie needs the session's CSRF token in the \
                 `X-CSRF-Token` header (from sign-in or GET /api/me)"
                    .to_owned(),
            ));
        }
        Ok(SignedInChange(signed_in))
    }
}

/// Whether two secrets are equal, compared by digest in constant time.
fn same_secret(given: &str, expected: &str) -> bool {
    let given: [u8; 32] = Sha256::digest(given.as_bytes()).into();
    let expected: [u8; 32] = Sha256::digest(expected.as_bytes()).into();
    let difference = given
        .iter()
        .zip(expected.iter())
        .fold(0u8, |difference, (a, b)| difference | (a ^ b));
    std::hint::black_box(difference) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_http_only_strict_and_secure_when_asked() {
        let plain = session_cookie("abc", false, 60)
            .to_str()
            .unwrap()
            .to_owned();
        assert!(plain.contains("tenka_session=abc"), "{plain}");
        assert!(plain.contains("HttpOnly"), "{plain}");
        assert!(plain.contains("SameSite=Strict"), "{plain}");
        assert!(!plain.contains("Secure"), "{plain}");
        let secure = session_cookie("abc", true, 60).to_str().unwrap().to_owned();
        assert!(secure.contains("Secure"), "{secure}");
        assert!(
            cleared_cookie(false)
                .to_str()
                .unwrap()
                .contains("Max-Age=0")
        );
    }

    #[test]
    fn the_csrf_token_belongs_to_its_session() {
        assert_eq!(csrf_token("one"), csrf_token("one"));
        assert_ne!(csrf_token("one"), csrf_token("two"));
        assert_ne!(csrf_token("one"), "one");
        assert!(same_secret(&csrf_token("one"), &csrf_token("one")));
        assert!(!same_secret("", &csrf_token("one")));
    }
}
