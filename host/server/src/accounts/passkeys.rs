//! Passkeys (WebAuthn) through webauthn-rs: a signed-in account adds one; anyone signs in with
//! one (a discoverable credential the browser offers, or the passkeys of a named account); and
//! an account may be made with a passkey instead of a password.
//!
//! Each ceremony has two requests. The first (`.../start`) stores the challenge's state in the
//! database under the digest of a random ceremony id and answers the browser's options with
//! that id; the second (`.../finish`) takes the ceremony (deleting it, so a challenge is
//! answered once, and only within [`CEREMONY_SECONDS`]) and lets webauthn-rs verify the
//! browser's answer against it: the origin, the relying-party id, the challenge, the signature,
//! user verification and the signature counter (a counter that does not grow is refused as a
//! cloned authenticator). Any server process on the database may finish a ceremony another one
//! started. A refused finish changes nothing but spending its ceremony.
//!
//! The relying party is the host of `--public-url` when given, else the host the request names
//! (`Host`): WebAuthn takes no IP address as relying-party id, so such a server is opened as
//! `http://localhost:PORT` (a secure context) or by its name. Both `http` and `https` origins of
//! that host are accepted: a browser does WebAuthn only in a secure context, so a plain `http`
//! origin other than `localhost` never produces an answer.
//!
//! The WebAuthn user handle of an account is its id (16 random bytes), so a discoverable
//! passkey names its account; the answer is still checked to belong to the passkey's account.
//! Starts are rate-limited as password sign-ins are: per client address, and per account name
//! (a named sign-in at its start, a discoverable one when its passkey names the account).

use axum::Json;
use axum::extract::State;
use axum::http::{Extensions, HeaderMap, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};
use webauthn_rs::prelude::{
    DiscoverableAuthentication, Passkey, PasskeyAuthentication, PasskeyRegistration,
    PublicKeyCredential, RegisterPublicKeyCredential, Url, Uuid, Webauthn, WebauthnBuilder,
};

use super::passkey_store::{self, Ceremony, Created, StoredPasskey};
use super::sessions::{self, SignedIn, SignedInChange};
use super::store::{self, Account};
use super::{AccountSettings, address_of, end_presented_session, passwords, signed_in, take};
use crate::AppState;
use crate::error::{AppError, AppJson, AppPath, AppResult};
use crate::storage::now_millis;
use crate::tokens;

/// How long a ceremony may take between its two requests.
pub const CEREMONY_SECONDS: i64 = 300;

/// The most passkeys one account may have.
pub const MAX_PASSKEYS: usize = 16;

/// The name the relying party shows in the browser's passkey dialog.
const RP_NAME: &str = "Tenka";

/// Checks `--public-url` once at start.
///
/// A public address that is no URL, or not http(s), stops the server. One that is an IP address
/// is a fine address for mail links (a test relay, a home network) but no relying party: the
/// server starts, says so, and its passkey routes answer why (400) instead
/// (regression_ip_public_url_stopped_the_server: a test server with mail links on 127.0.0.1
/// would not start once passkeys came).
pub fn check_public_url(public_url: &str) -> anyhow::Result<()> {
    let url = Url::parse(public_url)
        .map_err(|error| anyhow::anyhow!("--public-url `{public_url}` is not a URL: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        anyhow::bail!("--public-url `{public_url}` is not an http or https address");
    }
    if let Err(error) = relying_party_of(public_url) {
        tracing::warn!(
            "passkeys are off on this server: --public-url {public_url} cannot be their relying \
             party ({error}); mail links still use it"
        );
    }
    Ok(())
}

/// The relying party of an origin `scheme://host[:port]`.
fn relying_party_of(origin: &str) -> Result<Webauthn, String> {
    let url = Url::parse(origin).map_err(|error| format!("`{origin}` is not a URL: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("`{origin}` is not an http or https address"));
    }
    // `domain` is none for an IP address.
    let Some(domain) = url.domain() else {
        return Err(
            "passkeys need the server's name, not an IP address: open it as \
             http://localhost:PORT or by its domain name, or start it with --public-url"
                .to_owned(),
        );
    };
    let rp_id = domain.to_ascii_lowercase();
    let mut other = url.clone();
    let other_scheme = if url.scheme() == "https" {
        "http"
    } else {
        "https"
    };
    other
        .set_scheme(other_scheme)
        .map_err(|()| format!("`{origin}` has no other scheme"))?;
    WebauthnBuilder::new(&rp_id, &url)
        .and_then(|builder| {
            builder
                .append_allowed_origin(&other)
                .rp_name(RP_NAME)
                .build()
        })
        .map_err(|error| format!("`{origin}` is no relying party: {error}"))
}

/// The relying party of a request: `--public-url`'s host, else the request's `Host`.
fn relying_party(settings: &AccountSettings, headers: &HeaderMap) -> AppResult<Webauthn> {
    let origin = match &settings.public_url {
        Some(public_url) => public_url.trim_end_matches('/').to_owned(),
        None => {
            let host = headers
                .get(header::HOST)
                .and_then(|value| value.to_str().ok())
                .filter(|host| !host.is_empty() && host.len() <= 255)
                .filter(|host| {
                    host.bytes()
                        .all(|byte| byte.is_ascii_alphanumeric() || b".-:[]".contains(&byte))
                })
                .ok_or_else(|| {
                    AppError::BadRequest(
                        "passkeys need the request's Host: the server's name".to_owned(),
                    )
                })?;
            let scheme = if settings.secure_cookies {
                "https"
            } else {
                "http"
            };
            format!("{scheme}://{host}")
        }
    };
    relying_party_of(&origin).map_err(AppError::BadRequest)
}

/// The WebAuthn user handle of an account: its id's 16 bytes.
fn user_handle(account_id: &str) -> AppResult<Uuid> {
    hex::decode(account_id)
        .ok()
        .and_then(|bytes| Uuid::from_slice(&bytes).ok())
        .ok_or_else(|| {
            AppError::Internal(anyhow::anyhow!(
                "account id `{account_id}` is no user handle"
            ))
        })
}

/// The account id a user handle names.
fn account_of_handle(handle: &[u8]) -> String {
    hex::encode(handle)
}

/// A credential id as stored: base64url without padding, as browsers show it.
fn credential_key(raw: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(raw.len().div_ceil(3) * 4);
    for chunk in raw.chunks(3) {
        let bytes = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let joined = u32::from_be_bytes([0, bytes[0], bytes[1], bytes[2]]);
        for index in 0..=chunk.len() {
            let sextet = (joined >> (18 - 6 * index)) & 63;
            out.push(char::from(ALPHABET[sextet as usize]));
        }
    }
    out
}

fn to_json<T: serde::Serialize>(value: &T) -> AppResult<String> {
    serde_json::to_string(value).map_err(|error| AppError::Internal(error.into()))
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> AppResult<T> {
    serde_json::from_str(text).map_err(|error| AppError::Internal(error.into()))
}

/// Stores a new ceremony; its id for the browser.
async fn new_ceremony(state: &AppState, ceremony: Ceremony) -> AppResult<String> {
    let id = tokens::new_token()?;
    let now = now_millis();
    passkey_store::start_ceremony(
        state.hub.storage(),
        &tokens::token_hash(&id),
        &ceremony,
        now,
        now + CEREMONY_SECONDS * 1000,
    )
    .await?;
    Ok(id)
}

/// The refusal of a ceremony id that is unknown, used, expired or of another kind or account.
fn no_ceremony() -> AppError {
    AppError::Forbidden(
        "this passkey ceremony is unknown, used already or expired: start again".to_owned(),
    )
}

/// Takes the ceremony `id` names if it is of one of `kinds`; spent either way.
async fn take_ceremony(state: &AppState, id: &str, kinds: &[&str]) -> AppResult<Ceremony> {
    if id.is_empty() || id.len() > 128 {
        return Err(no_ceremony());
    }
    passkey_store::take_ceremony(state.hub.storage(), &tokens::token_hash(id), now_millis())
        .await?
        .filter(|ceremony| kinds.contains(&ceremony.kind.as_str()))
        .ok_or_else(no_ceremony)
}

/// Creation options for the browser: a discoverable credential (so it signs in without a
/// name) verified by the user.
fn creation_options(options: &impl serde::Serialize) -> AppResult<Value> {
    let mut options =
        serde_json::to_value(options).map_err(|error| AppError::Internal(error.into()))?;
    let selection = &mut options["publicKey"]["authenticatorSelection"];
    selection["residentKey"] = json!("required");
    selection["requireResidentKey"] = json!(true);
    selection["userVerification"] = json!("required");
    Ok(options)
}

/// Request options for the browser: a plain (modal) request, not the conditional one
/// webauthn-rs prepares for an autofill field.
fn request_options(options: &impl serde::Serialize) -> AppResult<Value> {
    let mut options =
        serde_json::to_value(options).map_err(|error| AppError::Internal(error.into()))?;
    if let Some(object) = options.as_object_mut() {
        object.remove("mediation");
    }
    Ok(options)
}

/// The stored passkeys of an account, parsed.
async fn account_passkeys(
    state: &AppState,
    account_id: &str,
) -> AppResult<Vec<(StoredPasskey, Passkey)>> {
    passkey_store::passkeys_of(state.hub.storage(), account_id)
        .await?
        .into_iter()
        .map(|stored| {
            let passkey = from_json(&stored.passkey_json)?;
            Ok((stored, passkey))
        })
        .collect()
}

/// `POST /api/accounts/passkeys/sign-up` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignUpStart {
    pub name: String,
    /// The language of the page (mails are written in it); else the request's.
    #[serde(default)]
    pub language: Option<String>,
}

/// `POST /api/accounts/passkeys/sign-up`: starts making an account with a passkey instead of a
/// password. Nothing is stored but the ceremony until the browser's answer is verified.
pub async fn sign_up_start(
    State(state): State<AppState>,
    extensions: Extensions,
    headers: HeaderMap,
    AppJson(request): AppJson<SignUpStart>,
) -> AppResult<Json<Value>> {
    let name = passwords::account_name(&request.name)?;
    let language = super::request_language(request.language.as_deref(), &headers)?;
    let webauthn = relying_party(state.accounts.settings(), &headers)?;
    take(state.accounts.per_address.as_ref(), address_of(&extensions))?;
    if store::account_for_sign_in(state.hub.storage(), &passwords::name_key(&name))
        .await?
        .is_some()
    {
        return Err(name_taken());
    }
    let account_id = tokens::new_token()?[..32].to_owned();
    let (options, registration) = webauthn
        .start_passkey_registration(user_handle(&account_id)?, &name, &name, None)
        .map_err(|error| AppError::Internal(anyhow::anyhow!("passkey registration: {error}")))?;
    let ceremony = new_ceremony(
        &state,
        Ceremony {
            kind: "sign-up".to_owned(),
            account_id: Some(account_id),
            name: Some(name),
            language: Some(language.to_owned()),
            state_json: to_json(&registration)?,
        },
    )
    .await?;
    Ok(Json(
        json!({ "ceremony": ceremony, "options": creation_options(&options)? }),
    ))
}

fn name_taken() -> AppError {
    AppError::Conflict("this account name is taken; choose another".to_owned())
}

/// `.../finish` body of a registration.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistrationFinish {
    pub ceremony: String,
    pub credential: RegisterPublicKeyCredential,
}

/// Verifies a registration answer against its ceremony's state.
fn verified_registration(
    webauthn: &Webauthn,
    ceremony: &Ceremony,
    credential: &RegisterPublicKeyCredential,
) -> AppResult<Passkey> {
    let registration: PasskeyRegistration = from_json(&ceremony.state_json)?;
    webauthn
        .finish_passkey_registration(credential, &registration)
        .map_err(|error| {
            tracing::info!("a passkey registration was refused: {error}");
            AppError::Forbidden(format!("the passkey was not accepted: {error}"))
        })
}

/// `POST /api/accounts/passkeys/sign-up/finish`: verifies the new passkey, creates the account
/// (without a password) with it and signs this browser in.
pub async fn sign_up_finish(
    State(state): State<AppState>,
    headers: HeaderMap,
    AppJson(request): AppJson<RegistrationFinish>,
) -> AppResult<Response> {
    let webauthn = relying_party(state.accounts.settings(), &headers)?;
    let ceremony = take_ceremony(&state, &request.ceremony, &["sign-up"]).await?;
    let passkey = verified_registration(&webauthn, &ceremony, &request.credential)?;
    let (Some(account_id), Some(name)) = (ceremony.account_id.clone(), ceremony.name.clone())
    else {
        return Err(no_ceremony());
    };
    let accounts = state.accounts.clone();
    let account = Account {
        id: account_id,
        name,
        created_at: now_millis(),
    };
    let session = tokens::new_token()?;
    let created = passkey_store::create_account_with_passkey(
        state.hub.storage(),
        &account,
        &passwords::name_key(&account.name),
        ceremony.language.as_deref(),
        (&credential_key(passkey.cred_id()), &to_json(&passkey)?),
        (
            &sessions::session_hash(&session),
            account.created_at + accounts.session_seconds() * 1000,
        ),
    )
    .await?;
    match created {
        Created::Created => {}
        Created::NameTaken => return Err(name_taken()),
        Created::CredentialTaken => return Err(credential_taken()),
    }
    end_presented_session(&state, &headers).await?;
    tracing::info!("account {} created with a passkey", account.id);
    Ok(signed_in(
        &accounts,
        StatusCode::CREATED,
        &account,
        &session,
    ))
}

fn credential_taken() -> AppError {
    AppError::Conflict("this passkey is registered already".to_owned())
}

/// `POST /api/me/passkeys/start`: starts adding a passkey to the signed-in account.
pub async fn add_start(
    State(state): State<AppState>,
    headers: HeaderMap,
    SignedInChange(signed_in): SignedInChange,
) -> AppResult<Json<Value>> {
    let webauthn = relying_party(state.accounts.settings(), &headers)?;
    let account = &signed_in.account;
    let existing = account_passkeys(&state, &account.id).await?;
    if existing.len() >= MAX_PASSKEYS {
        return Err(AppError::Conflict(format!(
            "an account has at most {MAX_PASSKEYS} passkeys; remove one first"
        )));
    }
    let exclude = existing
        .iter()
        .map(|(_, passkey)| passkey.cred_id().clone())
        .collect::<Vec<_>>();
    let (options, registration) = webauthn
        .start_passkey_registration(
            user_handle(&account.id)?,
            &account.name,
            &account.name,
            Some(exclude),
        )
        .map_err(|error| AppError::Internal(anyhow::anyhow!("passkey registration: {error}")))?;
    let ceremony = new_ceremony(
        &state,
        Ceremony {
            kind: "add".to_owned(),
            account_id: Some(account.id.clone()),
            name: None,
            language: None,
            state_json: to_json(&registration)?,
        },
    )
    .await?;
    Ok(Json(
        json!({ "ceremony": ceremony, "options": creation_options(&options)? }),
    ))
}

/// `POST /api/me/passkeys/finish`: verifies the new passkey and adds it to the account that
/// started the ceremony (and only to it).
pub async fn add_finish(
    State(state): State<AppState>,
    headers: HeaderMap,
    SignedInChange(signed_in): SignedInChange,
    AppJson(request): AppJson<RegistrationFinish>,
) -> AppResult<(StatusCode, Json<Value>)> {
    let webauthn = relying_party(state.accounts.settings(), &headers)?;
    let ceremony = take_ceremony(&state, &request.ceremony, &["add"]).await?;
    if ceremony.account_id.as_deref() != Some(signed_in.account.id.as_str()) {
        return Err(no_ceremony());
    }
    let passkey = verified_registration(&webauthn, &ceremony, &request.credential)?;
    let id = credential_key(passkey.cred_id());
    let now = now_millis();
    if !passkey_store::add_passkey(
        state.hub.storage(),
        &signed_in.account.id,
        &id,
        &to_json(&passkey)?,
        now,
    )
    .await?
    {
        return Err(credential_taken());
    }
    tracing::info!("account {} added a passkey", signed_in.account.id);
    Ok((
        StatusCode::CREATED,
        Json(json!({ "id": id, "created_at": now, "last_used_at": null })),
    ))
}

/// `GET /api/me/passkeys`: the account's passkeys (ids and times; the keys stay here) and
/// whether it has a password.
pub async fn list(State(state): State<AppState>, signed_in: SignedIn) -> AppResult<Json<Value>> {
    let storage = state.hub.storage();
    let passkeys = passkey_store::passkeys_of(storage, &signed_in.account.id).await?;
    Ok(Json(json!({
        "passkeys": passkeys.iter().map(|stored| json!({
            "id": stored.credential_id,
            "created_at": stored.created_at,
            "last_used_at": stored.last_used_at,
        })).collect::<Vec<_>>(),
        "has_password": passkey_store::extras(storage, &signed_in.account.id).await?.has_password,
    })))
}

/// `DELETE /api/me/passkeys/{id}`: removes one of the account's passkeys, unless it is the
/// account's last way to sign in.
pub async fn remove(
    State(state): State<AppState>,
    SignedInChange(signed_in): SignedInChange,
    AppPath(id): AppPath<String>,
) -> AppResult<Json<Value>> {
    if id.len() > 1400 {
        return Err(AppError::NotFound(
            "the account has no such passkey".to_owned(),
        ));
    }
    match passkey_store::remove_passkey(state.hub.storage(), &signed_in.account.id, &id).await? {
        None => Err(AppError::NotFound(
            "the account has no such passkey".to_owned(),
        )),
        Some(false) => Err(AppError::Conflict(
            "this is the account's last way to sign in: add another passkey first".to_owned(),
        )),
        Some(true) => Ok(Json(json!({ "removed": id }))),
    }
}

/// `POST /api/accounts/passkeys/sign-in` body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignInStart {
    /// The account to sign in to; none: any passkey the browser holds for this server.
    #[serde(default)]
    pub name: Option<String>,
}

/// `POST /api/accounts/passkeys/sign-in`: starts signing in with a passkey: the named account's
/// passkeys, or (without a name, or for a name of no account with passkeys, which is not told
/// apart) any discoverable passkey the browser holds for this server.
pub async fn sign_in_start(
    State(state): State<AppState>,
    extensions: Extensions,
    headers: HeaderMap,
    AppJson(request): AppJson<SignInStart>,
) -> AppResult<Json<Value>> {
    let webauthn = relying_party(state.accounts.settings(), &headers)?;
    let name = request
        .name
        .as_deref()
        .map(passwords::account_name)
        .transpose()?;
    let accounts = state.accounts.clone();
    take(accounts.per_address.as_ref(), address_of(&extensions))?;
    let mut named = None;
    if let Some(name) = &name {
        let key = passwords::name_key(name);
        take(accounts.per_account.as_ref(), key.clone())?;
        if let Some((account, _)) = store::account_for_sign_in(state.hub.storage(), &key).await? {
            let passkeys = account_passkeys(&state, &account.id).await?;
            if !passkeys.is_empty() {
                named = Some((account, passkeys));
            }
        }
    }
    let (options, ceremony) = match named {
        Some((account, passkeys)) => {
            let keys = passkeys
                .into_iter()
                .map(|(_, passkey)| passkey)
                .collect::<Vec<_>>();
            let (options, authentication) = webauthn
                .start_passkey_authentication(&keys)
                .map_err(|error| AppError::Internal(anyhow::anyhow!("passkey sign-in: {error}")))?;
            let ceremony = Ceremony {
                kind: "sign-in-named".to_owned(),
                account_id: Some(account.id),
                name: None,
                language: None,
                state_json: to_json(&authentication)?,
            };
            (request_options(&options)?, ceremony)
        }
        None => {
            let (options, authentication) = webauthn
                .start_discoverable_authentication()
                .map_err(|error| AppError::Internal(anyhow::anyhow!("passkey sign-in: {error}")))?;
            let ceremony = Ceremony {
                kind: "sign-in".to_owned(),
                account_id: None,
                name: None,
                language: None,
                state_json: to_json(&authentication)?,
            };
            (request_options(&options)?, ceremony)
        }
    };
    let ceremony = new_ceremony(&state, ceremony).await?;
    Ok(Json(json!({ "ceremony": ceremony, "options": options })))
}

/// `POST /api/accounts/passkeys/sign-in/finish` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssertionFinish {
    pub ceremony: String,
    pub credential: PublicKeyCredential,
}

fn not_accepted(why: &str) -> AppError {
    AppError::Forbidden(format!("the passkey was not accepted: {why}"))
}

/// `POST /api/accounts/passkeys/sign-in/finish`: verifies the browser's answer and signs it in
/// to the passkey's account with a new session.
pub async fn sign_in_finish(
    State(state): State<AppState>,
    headers: HeaderMap,
    AppJson(request): AppJson<AssertionFinish>,
) -> AppResult<Response> {
    let webauthn = relying_party(state.accounts.settings(), &headers)?;
    let ceremony = take_ceremony(&state, &request.ceremony, &["sign-in", "sign-in-named"]).await?;
    let credential = &request.credential;
    let storage = state.hub.storage();
    let key = credential_key(credential.get_credential_id());
    let Some(stored) = passkey_store::passkey(storage, &key).await? else {
        return Err(not_accepted(
            "this passkey is not registered on this server",
        ));
    };
    // The passkey must be the named account's, and the account the authenticator names (a
    // discoverable passkey's user handle) must be the passkey's.
    let named_elsewhere = ceremony
        .account_id
        .as_ref()
        .is_some_and(|account| *account != stored.account_id);
    let handle_elsewhere = credential
        .get_user_unique_id()
        .is_some_and(|handle| account_of_handle(handle) != stored.account_id);
    if named_elsewhere || handle_elsewhere {
        tracing::info!("a passkey answer for another account was refused");
        return Err(not_accepted("this passkey belongs to another account"));
    }
    let Some(account) = store_account(&state, &stored.account_id).await? else {
        return Err(not_accepted("its account is gone"));
    };
    if ceremony.account_id.is_none() {
        take(
            state.accounts.per_account.as_ref(),
            passwords::name_key(&account.name),
        )?;
    }
    let mut passkey: Passkey = from_json(&stored.passkey_json)?;
    let result = if ceremony.kind == "sign-in-named" {
        let authentication: PasskeyAuthentication = from_json(&ceremony.state_json)?;
        webauthn.finish_passkey_authentication(credential, &authentication)
    } else {
        let authentication: DiscoverableAuthentication = from_json(&ceremony.state_json)?;
        webauthn.finish_discoverable_authentication_v2(credential, authentication, &passkey)
    };
    let result = result.map_err(|error| {
        tracing::info!(
            "a passkey sign-in to account {} was refused: {error}",
            account.id
        );
        not_accepted(&error.to_string())
    })?;
    passkey.update_credential(&result);
    let now = now_millis();
    if !passkey_store::passkey_used(
        storage,
        &key,
        &stored.passkey_json,
        &to_json(&passkey)?,
        now,
    )
    .await?
    {
        return Err(AppError::Conflict(
            "this passkey signed in at the same moment elsewhere: try again".to_owned(),
        ));
    }
    end_presented_session(&state, &headers).await?;
    let session = tokens::new_token()?;
    let accounts = state.accounts.clone();
    store::start_session(
        storage,
        &account.id,
        &sessions::session_hash(&session),
        now + accounts.session_seconds() * 1000,
    )
    .await?;
    tracing::info!("account {} signed in with a passkey", account.id);
    Ok(signed_in(&accounts, StatusCode::OK, &account, &session))
}

/// The account of an id.
async fn store_account(state: &AppState, account_id: &str) -> AppResult<Option<Account>> {
    Ok(store::account(state.hub.storage(), account_id).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_ip_public_url_stopped_the_server() {
        // An IP address serves mail links; only passkeys are off.
        assert!(check_public_url("http://127.0.0.1:8080").is_ok());
        assert!(check_public_url("https://play.example.org").is_ok());
        // A public address that is no http(s) URL is a mistake that stops the server.
        assert!(check_public_url("play.example.org").is_err());
        assert!(check_public_url("ftp://play.example.org").is_err());
    }

    #[test]
    fn credential_ids_are_base64url_without_padding() {
        assert_eq!(credential_key(b""), "");
        assert_eq!(credential_key(b"f"), "Zg");
        assert_eq!(credential_key(b"fo"), "Zm8");
        assert_eq!(credential_key(b"foo"), "Zm9v");
        assert_eq!(credential_key(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn an_ip_address_is_no_relying_party_and_a_name_is() {
        assert!(relying_party_of("http://127.0.0.1:8080").is_err());
        assert!(relying_party_of("http://[::1]:8080").is_err());
        assert!(relying_party_of("ftp://localhost").is_err());
        assert!(relying_party_of("http://localhost:8080").is_ok());
        assert!(relying_party_of("https://play.example.org").is_ok());
    }

    #[test]
    fn a_user_handle_is_the_account_id() {
        let id = "0123456789abcdef0123456789abcdef";
        let handle = user_handle(id).unwrap();
        assert_eq!(account_of_handle(handle.as_bytes()), id);
        assert!(user_handle("not hex").is_err());
    }
}
