//! A seat's answer to its own pending decision is accepted while other seats' independent steps
//! move the game on (bots planning at the same time), and refused as stale only when the seat's
//! own decision changed after the version the client saw.

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::server_support::{TempDir, TestApp};

/// The game's version as listed.
async fn version(app: &TestApp, game: &str) -> u64 {
    let (status, body) = app.game(game).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["version"].as_u64().unwrap()
}

/// Waits until the game reaches `target`.
async fn wait_for_version(app: &TestApp, game: &str, target: u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while version(app, game).await < target {
        assert!(
            Instant::now() < deadline,
            "the bots never moved to {target}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_own_answers_were_refused_as_stale_while_bots_moved() {
    let dir = TempDir::new("own-answers");
    // Bots wait a little before each move, so the person's view is taken before they move and
    // the answer is sent after.
    let app = TestApp::start_configured(&dir.0, None, |hub, _| {
        hub.bot_pace = Duration::from_millis(40);
    })
    .await;
    let (game, tokens) = app
        .create(
            &[None, Some("random"), Some("random")],
            json!({ "rounds": 4 }),
        )
        .await;
    let token = tokens[0].1.as_str();
    let mut stale = 0;
    let mut seen_round_start = 0;
    for round in 0..4u64 {
        // What the person sees at the start of the round, before either bot planned.
        let (status, view) = app.view(&game, Some(token)).await;
        assert_eq!(status, StatusCode::OK, "{view}");
        let seen = view["version"].as_u64().unwrap();
        assert_eq!(view["pending"].as_array().unwrap().len(), 1, "{view}");
        // Both bots plan while the person thinks.
        wait_for_version(&app, &game, 3 * round + 2).await;
        if round > 0 {
            // An answer against a version from before the person's own decision last changed
            // (the previous round, when the person had already answered) is still stale.
            let (status, body) = app
                .act(&game, token, seen_round_start + 1, json!({ "choose": [0] }))
                .await;
            assert_eq!(status, StatusCode::CONFLICT, "{body}");
            assert_eq!(body["error"], "stale");
            assert_eq!(body["version"], 3 * round + 2);
        }
        let (status, body) = app.act(&game, token, seen, json!({ "choose": [1] })).await;
        match status {
            StatusCode::OK => assert_eq!(body["version"], 3 * round + 3, "{body}"),
            StatusCode::CONFLICT => stale += 1,
            other => panic!("unexpected {other}: {body}"),
        }
        seen_round_start = 3 * round;
        if stale > 0 {
            break;
        }
    }
    assert_eq!(stale, 0, "the person's own answers were refused as stale");
    let (_, view) = app.view(&game, Some(token)).await;
    assert_eq!(view["status"], "finished", "{view}");
    // The answers stood as sent: every round the person planned 2 (choice 1).
    let (_, log) = app
        .call("GET", &format!("/api/games/{game}/log"), Some(token), None)
        .await;
    let own: Vec<&Value> = log
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["seat"] == 0)
        .collect();
    assert_eq!(own.len(), 4, "{log}");
}
