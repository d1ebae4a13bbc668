//! The move socket: `GET /api/socket`, upgraded to a WebSocket, carries moves for any games the
//! client holds seats in, each answered on the same connection. For bots and clients that send
//! many moves: a move costs a message each way instead of an HTTP request, with the same checks,
//! limits and answers as `POST /api/games/{id}/actions`.
//!
//! Each text message is one move:
//! `{"id": 7, "game": "<game id>", "token": "<seat token>", "version": 3, "action": {...}}`.
//! Moves are answered one at a time, in the order sent, with the client's `id` echoed:
//! `{"id": 7, "version": 4, "events": [...]}` when the move is durable, or
//! `{"id": 7, "status": 409, "error": "stale", "message": "...", "version": 4}` with the status
//! and body `POST .../actions` would have answered. A message that cannot be read is answered
//! 400 with `"id": null` and the socket stays open; a binary message closes it. A socket quiet
//! for [`IDLE_AFTER`] is closed.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Extension;
use axum::extract::State;
use axum::extract::connect_info::ConnectInfo;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade, close_code};
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};

use super::connections::StreamSlot;
use super::error::AppError;
use super::moves::{self, SubmitAction};
use super::{AppState, BODY_LIMIT, REQUEST_DEADLINE, tokens};

/// How many bytes a socket reads from its connection at a time.
const SOCKET_READ_BUFFER: usize = 4 << 10;

/// How long a socket may stay without a message before the server closes it.
pub const IDLE_AFTER: Duration = Duration::from_secs(300);

/// One move on the socket.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SocketMove {
    /// The client's name for the move, echoed in its answer: a number or a string.
    id: Value,
    /// The game's id.
    game: String,
    /// The token of the seat that moves.
    token: String,
    /// The version the player saw when choosing.
    version: u64,
    /// The answer to the seat's pending decision.
    action: sdk::Action,
}

/// `GET /api/socket`: upgrades to the move socket.
pub async fn upgrade(
    State(state): State<AppState>,
    address: Option<Extension<ConnectInfo<SocketAddr>>>,
    slot: Option<Extension<StreamSlot>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, AppError> {
    // Refused in the API's one JSON error shape, like any other bad request.
    let upgrade = upgrade.map_err(|rejection| {
        AppError::BadRequest(format!(
            "the move socket is a WebSocket: {}",
            rejection.body_text()
        ))
    })?;
    let address = address.map(|Extension(ConnectInfo(address))| address.ip());
    Ok(upgrade
        // A move is a few hundred bytes. The WebSocket layer zeroes its whole read buffer before
        // each read of the connection (128 KiB by default, twice per move), and keeps it per
        // socket: 4 KiB reads any move in a call or two.
        .read_buffer_size(SOCKET_READ_BUFFER)
        .max_message_size(BODY_LIMIT)
        .on_upgrade(move |socket| async move {
            // The address's slot for this socket is held until the socket ends.
            let _slot = slot;
            serve(state, address, socket).await;
        }))
}

/// Answers the moves of one socket until the client leaves, goes quiet or breaks the protocol.
async fn serve(state: AppState, address: Option<std::net::IpAddr>, mut socket: WebSocket) {
    loop {
        let message = match tokio::time::timeout(IDLE_AFTER, socket.recv()).await {
            Err(_) => {
                let _ = socket.send(close(close_code::NORMAL, "idle")).await;
                return;
            }
            Ok(None | Some(Err(_))) => return,
            Ok(Some(Ok(message))) => message,
        };
        let answer = match message {
            Message::Text(text) => answer(&state, address, &text).await,
            Message::Binary(_) => {
                let _ = socket
                    .send(close(close_code::UNSUPPORTED, "moves are JSON text"))
                    .await;
                return;
            }
            // Pings are answered by the WebSocket layer itself.
            Message::Ping(_) | Message::Pong(_) => continue,
            Message::Close(_) => return,
        };
        if socket
            .send(Message::Text(answer.to_string().into()))
            .await
            .is_err()
        {
            return;
        }
    }
}

fn close(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.into(),
    }))
}

/// The answer to one message.
async fn answer(state: &AppState, address: Option<std::net::IpAddr>, text: &str) -> Value {
    let request = match serde_json::from_str::<SocketMove>(text) {
        Ok(request) => request,
        Err(error) => {
            return answer_with(
                Value::Null,
                Err(AppError::BadRequest(format!("this is not a move: {error}"))),
            );
        }
    };
    let id = request.id.clone();
    let moved = tokio::time::timeout(REQUEST_DEADLINE, play(state, address, request))
        .await
        // The move itself runs on to its end and is stored or not as it would have been.
        .unwrap_or_else(|_| Err(super::past_the_deadline()));
    answer_with(id, moved)
}

/// Plays one move, as `POST /api/games/{id}/actions` does.
async fn play(
    state: &AppState,
    address: Option<std::net::IpAddr>,
    request: SocketMove,
) -> Result<Value, AppError> {
    if !matches!(request.id, Value::Number(_) | Value::String(_)) {
        return Err(AppError::BadRequest(
            "a move's `id` is a number or a string".to_owned(),
        ));
    }
    let token_hash = tokens::token_hash(request.token.trim());
    state.limiter.admit_move(address, &token_hash)?;
    let game = state.hub.game(&request.game).await?;
    let seat = moves::seat_holding(state, &game, &token_hash).await?;
    let submitted = SubmitAction {
        version: request.version,
        action: request.action,
    };
    moves::act(state, &game, seat, submitted).await
}

/// `{"id", ...answer}`, or `{"id", "status", ...error body}`.
fn answer_with(id: Value, outcome: Result<Value, AppError>) -> Value {
    let (status, mut body) = match outcome {
        Ok(body) => (None, body),
        Err(error) => {
            let (status, body) = error.status_and_body();
            (Some(status.as_u16()), body)
        }
    };
    if let Value::Object(fields) = &mut body {
        if let Some(status) = status {
            fields.insert("status".to_owned(), json!(status));
        }
        fields.insert("id".to_owned(), id);
    }
    body
}
