//! "Since your last move": the recap a seat gets on its return holds what its own live log and
//! board showed (nothing left out) and nothing of another seat's secrets (nothing added), and
//! it answers only the seat's own token.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::server_support::{TempDir, TestApp};

/// Plans the number `pick` (0, 1 or 2) for the seat of `token`; the version it made.
async fn plan(app: &TestApp, game: &str, token: &str, pick: u32) -> u64 {
    let view = app.wait_for_turn(game, token).await;
    let (status, body) = app
        .act(game, token, &view["version"], json!({ "choose": [pick] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["version"].as_u64().unwrap()
}

/// A GET as the seat of `token` (or a spectator), asserted OK.
async fn read(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let (status, body) = app.call("GET", path, token, None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recap_shows_what_the_seat_saw_live_and_nothing_of_another_seats_secrets() {
    let dir = TempDir::new("recap-secrets");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 4 })).await;
    let (first, second) = (&tokens[0].1, &tokens[1].1);

    // The first seat plans round 1 and leaves; the second plans rounds 1 and 2 meanwhile, and
    // while it does the first seat's live log and board are recorded as a browser sees them.
    let left_at = plan(&app, &game, first, 0).await;
    let mut live_boards = vec![read(&app, &format!("/api/games/{game}/view"), Some(first)).await];
    for pick in [2, 1] {
        plan(&app, &game, second, pick).await;
        live_boards.push(read(&app, &format!("/api/games/{game}/view"), Some(first)).await);
    }
    let live_log = read(
        &app,
        &format!("/api/games/{game}/log?since={left_at}"),
        Some(first),
    )
    .await;

    let recap = read(&app, &format!("/api/games/{game}/recap"), Some(first)).await;
    assert_eq!(recap["since"], left_at, "{recap}");
    assert_eq!(recap["version"], left_at + 2);
    // Nothing left out, nothing added: the entries are the seat's own live log since then.
    assert_eq!(recap["entries"], live_log, "{recap}");
    // Each board of the recap is the board the seat was shown live at that version.
    for (step, live) in live_boards.iter().enumerate() {
        let at = left_at + step as u64;
        let board = read(
            &app,
            &format!("/api/games/{game}/recap/board?at={at}"),
            Some(first),
        )
        .await;
        assert_eq!(board["version"], at);
        assert_eq!(board["parts"], live["parts"], "version {at}");
        assert_eq!(board["state"], live["state"], "version {at}");
        let text = board.to_string();
        assert!(!text.contains("secret-1-"), "another seat's secret: {text}");
        assert!(
            text.contains("secret-0-card"),
            "the seat's own card is shown"
        );
    }
    let text = recap.to_string();
    assert!(!text.contains("secret-1-"), "another seat's secret: {text}");
    assert!(
        live_log.to_string().contains("secret-1-") == text.contains("secret-1-"),
        "the live log has none either"
    );
    // The second seat, which just moved, has nothing to catch up on.
    let theirs = read(&app, &format!("/api/games/{game}/recap"), Some(second)).await;
    assert_eq!(theirs["entries"], json!([]), "{theirs}");
    assert_eq!(theirs["since"], left_at + 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recap_needs_the_seats_token_and_stays_within_the_seats_absence() {
    let dir = TempDir::new("recap-refusals");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 3 })).await;
    let (first, second) = (&tokens[0].1, &tokens[1].1);
    let left_at = plan(&app, &game, first, 1).await;
    plan(&app, &game, second, 1).await;

    for token in [None, Some("not-a-token")] {
        let (status, body) = app
            .call("GET", &format!("/api/games/{game}/recap"), token, None)
            .await;
        assert!(status.is_client_error(), "{token:?}: {status} {body}");
        let (status, _) = app
            .call(
                "GET",
                &format!("/api/games/{game}/recap/board?at={left_at}"),
                token,
                None,
            )
            .await;
        assert!(status.is_client_error(), "{token:?}: {status}");
    }
    // Before the seat's last move, or past the present: refused, with a reason.
    for at in [0, left_at + 2, u64::MAX] {
        let (status, body) = app
            .call(
                "GET",
                &format!("/api/games/{game}/recap/board?at={at}"),
                Some(first),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{at}: {body}");
    }
    let (status, _) = app
        .call(
            "GET",
            &format!("/api/games/{game}/recap/board?at=x"),
            Some(first),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_a_bot_made_for_the_seat_are_in_its_recap() {
    let dir = TempDir::new("recap-bot");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 2 })).await;
    let (first, second) = (&tokens[0].1, &tokens[1].1);
    let left_at = plan(&app, &game, first, 1).await;
    // The first seat hands itself to a bot and comes back once the game is over.
    let (status, body) = app
        .call(
            "POST",
            &format!("/api/games/{game}/seats/0/bot"),
            Some(first),
            Some(json!({ "bot": "random" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    plan(&app, &game, second, 0).await;
    plan(&app, &game, second, 0).await;
    app.wait_until_finished(&game).await;
    let recap = read(&app, &format!("/api/games/{game}/recap"), Some(first)).await;
    assert_eq!(
        recap["since"], left_at,
        "the bot's moves were not the person's: {recap}"
    );
    let entries = recap["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 3, "{recap}");
    assert!(
        entries
            .iter()
            .any(|entry| entry["seat"] == 0 && entry["bot"] == "random"),
        "{recap}"
    );
}
