//! Who is asking: the game a request names, and the seat, viewer or host it speaks for, as axum
//! extractors. A handler that takes [`Acting`] cannot forget to check the seat's token; one that
//! takes [`Hosting`] cannot forget the host's.
//!
//! Tokens come only from `Authorization: Bearer <token>`, never from the URL: a URL ends up in
//! logs, proxies and browser history (the event stream uses a ticket instead).

use std::sync::Arc;

use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use sdk::{Seat, Viewer};

use super::AppState;
use super::error::{AppError, AppResult};
use super::games::LiveGame;
use super::moves::seat_holding;
use super::tokens;

/// The token a request carries: `Authorization: Bearer <token>`.
pub(super) fn request_token(headers: &HeaderMap) -> AppResult<Option<&str>> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| AppError::BadRequest("the Authorization header is not text".to_owned()))?;
    let token = value.strip_prefix("Bearer ").ok_or_else(|| {
        AppError::BadRequest("the Authorization header must be `Bearer <token>`".to_owned())
    })?;
    Ok(Some(token.trim()))
}

/// The viewer a request reads as: the token's seat, or a spectator without a token. A token that
/// belongs to no seat of this game is refused rather than silently downgraded.
pub(super) async fn viewer_of(
    state: &AppState,
    game: &Arc<LiveGame>,
    headers: &HeaderMap,
) -> AppResult<Viewer> {
    match request_token(headers)? {
        None => Ok(Viewer::Spectator),
        Some(token) => seat_holding(state, game, &tokens::token_hash(token))
            .await
            .map(Viewer::Seat),
    }
}

/// The seat a request acts for; acting needs a token.
pub(super) async fn seat_of(
    state: &AppState,
    game: &Arc<LiveGame>,
    headers: &HeaderMap,
) -> AppResult<Seat> {
    match viewer_of(state, game, headers).await? {
        Viewer::Seat(seat) => Ok(seat),
        Viewer::Spectator => Err(AppError::Forbidden(
            "acting needs the seat's token: `Authorization: Bearer <token>`".to_owned(),
        )),
    }
}

/// Checks that the request carries the game's host token (the creator's credential).
pub(super) async fn require_host(
    state: &AppState,
    game: &LiveGame,
    headers: &HeaderMap,
) -> AppResult<()> {
    let token = request_token(headers)?.ok_or_else(|| {
        AppError::Forbidden(
            "managing invites needs the game's host token: `Authorization: Bearer <host_token>`"
                .to_owned(),
        )
    })?;
    match state.hub.storage().host_token_hash(game.id()).await? {
        Some(hash) if hash == tokens::token_hash(token) => Ok(()),
        Some(_) => Err(AppError::Forbidden(
            "this is not the game's host token".to_owned(),
        )),
        None => Err(AppError::Forbidden(
            "this game was created before invites existed and has no host token".to_owned(),
        )),
    }
}

/// The game a request's path names (`/api/games/{id}/...`), loaded.
pub struct TheGame(pub Arc<LiveGame>);

impl FromRequestParts<AppState> for TheGame {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> AppResult<Self> {
        let params = RawPathParams::from_request_parts(parts, state)
            .await
            .map_err(|rejection| AppError::BadRequest(rejection.body_text()))?;
        let id = params
            .iter()
            .find(|(name, _)| *name == "id")
            .map(|(_, value)| value.to_owned())
            .ok_or_else(|| AppError::Internal(anyhow::anyhow!("a game route without `{{id}}`")))?;
        Ok(TheGame(state.hub.game(&id).await?))
    }
}

/// A request that reads a game: the game and the viewer its token makes it (a spectator
/// without one).
pub struct Viewing {
    pub game: Arc<LiveGame>,
    pub viewer: Viewer,
}

impl FromRequestParts<AppState> for Viewing {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> AppResult<Self> {
        let TheGame(game) = TheGame::from_request_parts(parts, state).await?;
        let viewer = viewer_of(state, &game, &parts.headers).await?;
        Ok(Viewing { game, viewer })
    }
}

/// A request that acts for a seat: the game and the seat whose token it carries.
pub struct Acting {
    pub game: Arc<LiveGame>,
    pub seat: Seat,
}

impl FromRequestParts<AppState> for Acting {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> AppResult<Self> {
        let TheGame(game) = TheGame::from_request_parts(parts, state).await?;
        let seat = seat_of(state, &game, &parts.headers).await?;
        Ok(Acting { game, seat })
    }
}

/// A request of the game's host (its creator), checked by the host token.
pub struct Hosting {
    pub game: Arc<LiveGame>,
}

impl FromRequestParts<AppState> for Hosting {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> AppResult<Self> {
        let TheGame(game) = TheGame::from_request_parts(parts, state).await?;
        require_host(state, &game, &parts.headers).await?;
        Ok(Hosting { game })
    }
}

/// A request of the server's operator, checked by the operator token `tenka serve` was given
/// (`--operator-token-file`, `TENKA_OPERATOR_TOKEN`). Without one, no request is the
/// operator's: what needs it is off.
pub struct Operator;

impl FromRequestParts<AppState> for Operator {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> AppResult<Self> {
        let Some(operator) = &state.config.operator_token else {
            return Err(AppError::Forbidden(
                "saving example maps is off on this server: it was started without an operator \
                 token"
                    .to_owned(),
            ));
        };
        let token = request_token(&parts.headers)?.ok_or_else(|| {
            AppError::Forbidden(
                "this needs the server's operator token: `Authorization: Bearer <token>`"
                    .to_owned(),
            )
        })?;
        if !operator.matches(token) {
            // Who tried, never what they sent.
            let client = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|info| info.0.ip().to_string())
                .unwrap_or_else(|| "in-process".to_owned());
            tracing::warn!("a wrong operator token was refused (client {client})");
            return Err(AppError::Forbidden(
                "this is not the server's operator token".to_owned(),
            ));
        }
        Ok(Operator)
    }
}
