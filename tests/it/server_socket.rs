//! The move socket (`GET /api/socket`): moves over a WebSocket are answered as
//! `POST /api/games/{id}/actions` answers them, with the same checks and limits, and stored the
//! same way; what cannot be read is refused without closing the socket or changing any game.

use std::net::SocketAddr;

use axum::http::StatusCode;
use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::server_support::{TempDir, TestApp, answer_rng, random_answer};

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Serves `app` on a local port, as `tenka serve` does (with the client's address known).
async fn serve(app: &TestApp) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = app.router.clone();
    tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    });
    address
}

async fn connect(address: SocketAddr) -> Socket {
    let (socket, _) = tokio_tungstenite::connect_async(format!("ws://{address}/api/socket"))
        .await
        .unwrap();
    socket
}

/// Sends `message` and reads the answer.
async fn ask(socket: &mut Socket, message: String) -> Value {
    socket.send(Message::text(message)).await.unwrap();
    loop {
        match socket.next().await.expect("the socket closed").unwrap() {
            Message::Text(text) => return serde_json::from_str(&text).unwrap(),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected message {other:?}"),
        }
    }
}

/// `GET path` (as `token`'s seat), which must succeed.
async fn get(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let (status, body) = app.call("GET", path, token, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// The game's version, as HTTP says it.
async fn version(app: &TestApp, game: &str) -> u64 {
    get(app, &format!("/api/games/{game}"), None).await["version"]
        .as_u64()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_on_the_socket_are_answered_and_stored_as_over_http() {
    let dir = TempDir::new("socket-moves");
    let app = TestApp::start(&dir.0).await;
    let address = serve(&app).await;
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 2 })).await;
    let mut socket = connect(address).await;
    let mut rng = answer_rng(7);

    // Play the whole game on one socket, whoever is asked; each answer echoes its id.
    let mut played = 0;
    loop {
        let mut mover = None;
        for (_, token) in &tokens {
            let view = get(&app, &format!("/api/games/{game}/view"), Some(token)).await;
            if view["pending"].as_array().is_some_and(|p| !p.is_empty()) {
                mover = Some((token.clone(), view));
                break;
            }
        }
        let Some((token, view)) = mover else { break };
        let seen = view["version"].as_u64().unwrap();
        let id = format!("move-{played}");
        let message = json!({
            "id": id, "game": game, "token": token, "version": seen,
            "action": random_answer(&view, &mut rng),
        });
        let answer = ask(&mut socket, message.to_string()).await;
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["version"], seen + 1, "{answer}");
        assert!(answer["events"].is_array(), "{answer}");
        assert_eq!(version(&app, &game).await, seen + 1);
        played += 1;

        // The same move again is stale, with the version to catch up to; nothing changes.
        let again = ask(&mut socket, message.to_string()).await;
        assert_eq!(again["id"], id, "{again}");
        assert_eq!(again["status"], 409, "{again}");
        assert_eq!(again["error"], "stale", "{again}");
        assert_eq!(again["version"], seen + 1, "{again}");
        assert_eq!(version(&app, &game).await, seen + 1);
    }
    assert!(played > 2, "only {played} moves were played");
    let record = get(&app, &format!("/api/games/{game}/record"), None).await;
    assert_eq!(record["actions"].as_array().unwrap().len(), played);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_moves_on_the_socket_get_clear_errors_change_nothing_and_keep_it_open() {
    let dir = TempDir::new("socket-errors");
    let app = TestApp::start(&dir.0).await;
    let address = serve(&app).await;
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 2 })).await;
    let mover = &tokens[0].1;
    let view = app.wait_for_turn(&game, mover).await;
    let action = random_answer(&view, &mut answer_rng(3));
    let mut socket = connect(address).await;
    let expect = |answer: Value, id: Value, status: u16, code: &str| {
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["status"], status, "{answer}");
        assert_eq!(answer["error"], code, "{answer}");
        assert!(
            answer["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{answer}"
        );
    };
    let message = |id: Value, game: &str, token: &str, action: &Value| {
        json!({ "id": id, "game": game, "token": token, "version": 0, "action": action })
            .to_string()
    };

    // Unreadable: not JSON, a wrong shape, an unknown field, an id that is neither a number
    // nor a string.
    for text in [
        "{not json".to_owned(),
        json!({ "id": 1, "game": game }).to_string(),
        json!({ "id": 1, "game": game, "token": mover, "version": 0, "action": action, "seat": 0 })
            .to_string(),
    ] {
        expect(
            ask(&mut socket, text).await,
            Value::Null,
            400,
            "bad-request",
        );
    }
    expect(
        ask(
            &mut socket,
            message(json!({ "a": 1 }), &game, mover, &action),
        )
        .await,
        json!({ "a": 1 }),
        400,
        "bad-request",
    );
    // No such game; a token of no seat; a malformed action for a seat that is asked.
    expect(
        ask(&mut socket, message(json!(2), "nosuchgame", mover, &action)).await,
        json!(2),
        404,
        "not-found",
    );
    expect(
        ask(
            &mut socket,
            message(json!(3), &game, "not-a-token", &action),
        )
        .await,
        json!(3),
        403,
        "forbidden",
    );
    let refused = ask(
        &mut socket,
        message(json!(5), &game, mover, &json!({ "choose": [99, 98, 97] })),
    )
    .await;
    assert_eq!(refused["id"], 5, "{refused}");
    assert!(
        (400..500).contains(&refused["status"].as_u64().unwrap()),
        "{refused}"
    );
    assert_eq!(
        version(&app, &game).await,
        0,
        "a refused move changed the game"
    );

    // The socket still plays: the right move is accepted, even spread over many reads of the
    // connection (the server reads 4 KiB at a time).
    let padded = message(json!(6), &game, mover, &action).replacen(
        '{',
        &format!("{{{}", " ".repeat(20_000)),
        1,
    );
    let answer = ask(&mut socket, padded).await;
    assert_eq!(answer["version"], 1, "{answer}");

    // A binary message closes the socket, saying why.
    socket.send(Message::binary(vec![1, 2, 3])).await.unwrap();
    match socket.next().await {
        Some(Ok(Message::Close(Some(frame)))) => assert_eq!(frame.code, CloseCode::Unsupported),
        other => panic!("expected a close frame, got {other:?}"),
    }

    // A message over the body limit closes the socket; the game is unchanged.
    let mut socket = connect(address).await;
    let huge = format!(
        "{{\"id\":1,\"game\":\"{game}\",\"token\":\"{mover}\",\"version\":1,\"action\":{{\"choose\":[{}0]}}}}",
        "0,".repeat(40_000)
    );
    let _ = socket.send(Message::text(huge)).await;
    loop {
        match socket.next().await {
            Some(Ok(Message::Text(text))) => panic!("an oversized move was answered: {text}"),
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
            Some(Ok(_)) => continue,
        }
    }
    assert_eq!(version(&app, &game).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_on_the_socket_count_against_the_seats_action_limit() {
    let dir = TempDir::new("socket-limits");
    let app = TestApp::start_configured(&dir.0, None, |_, server| {
        server.rate_limits = Some(host::server::limits::RateLimits {
            requests_per_second: 1_000,
            request_burst: 1_000,
            actions_per_second: 1,
            games_per_minute: 100,
        });
    })
    .await;
    let address = serve(&app).await;
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 2 })).await;
    let mut socket = connect(address).await;
    // Stale moves (version 99) cost an action each like any other: the burst is two.
    let mut answers = Vec::new();
    for id in 0..3 {
        let message = json!({
            "id": id, "game": game, "token": tokens[0].1, "version": 99,
            "action": { "choose": [0] },
        });
        answers.push(ask(&mut socket, message.to_string()).await);
    }
    assert_ne!(answers[0]["status"], 429, "{}", answers[0]);
    assert_ne!(answers[1]["status"], 429, "{}", answers[1]);
    assert_eq!(answers[2]["status"], 429, "{}", answers[2]);
    assert_eq!(answers[2]["error"], "rate-limited", "{}", answers[2]);
    assert!(answers[2]["retry_after"].as_u64().unwrap() >= 1);
    // Another seat has a bucket of its own.
    let message = json!({
        "id": 9, "game": game, "token": tokens[1].1, "version": 99,
        "action": { "choose": [0] },
    });
    assert_ne!(ask(&mut socket, message.to_string()).await["status"], 429);
}
