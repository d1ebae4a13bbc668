//! A ruleset drawing huge boards: the sanitiser's work is capped, the board refused cleanly, and
//! a well-behaved game's moves keep their pace meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::server_support::{HUGE_BOARD, TempDir, TestApp, answer_rng, random_answer};

fn percentile(timings: &[Duration], per_cent: usize) -> Duration {
    let mut sorted = timings.to_vec();
    sorted.sort();
    sorted[(sorted.len() * per_cent / 100).min(sorted.len() - 1)]
}

/// Plays `moves` moves of a fresh well-behaved game (new ones as games end); each move's time.
async fn play(app: &TestApp, moves: usize, seed: u8) -> Vec<Duration> {
    let mut rng = answer_rng(seed);
    let mut timings = Vec::new();
    let (mut game, mut tokens) = app
        .create(&[None, Some("random")], json!({ "rounds": 50 }))
        .await;
    while timings.len() < moves {
        let started = Instant::now();
        let view = app.wait_for_turn(&game, &tokens[0].1).await;
        if view["status"] == "finished" {
            (game, tokens) = app
                .create(&[None, Some("random")], json!({ "rounds": 50 }))
                .await;
            continue;
        }
        let body = json!({ "version": view["version"], "action": random_answer(&view, &mut rng) });
        let (status, answer) = app
            .call(
                "POST",
                &format!("/api/games/{game}/actions"),
                Some(&tokens[0].1),
                Some(body),
            )
            .await;
        // The bot may move in between (both seats can be pending at once): look again.
        if status == StatusCode::CONFLICT {
            continue;
        }
        assert_eq!(status, StatusCode::OK, "{answer}");
        timings.push(started.elapsed());
    }
    timings
}

fn board_text(view: &Value) -> usize {
    view["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part["svg"].as_str().unwrap_or_default().len())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn regression_a_huge_board_was_sanitised_for_every_viewer() {
    let dir = TempDir::new("huge-board");
    let app = Arc::new(TestApp::start(&dir.0).await);
    let raw = crate::server_support::twisted::huge_board().len();
    let (huge, huge_tokens) = app
        .create_game(&HUGE_BOARD, &[None, None], json!({ "rounds": 50 }))
        .await;

    let started = Instant::now();
    let (status, view) = app.view(&huge, None).await;
    let first_view = started.elapsed();
    assert_eq!(status, StatusCode::OK, "{view}");
    assert!(!view["parts"].as_array().unwrap().is_empty());
    assert_eq!(
        board_text(&view),
        0,
        "a board of {raw} bytes was sanitised and sent instead of refused"
    );
    // The game itself goes on: its seats still see their decisions and can move.
    let seat_view = app.wait_for_turn(&huge, &huge_tokens[0].1).await;
    assert_eq!(board_text(&seat_view), 0);
    assert!(!seat_view["pending"].as_array().unwrap().is_empty());

    let quiet = play(&app, 60, 1).await;
    // Meanwhile viewers of the huge game ask for its board as every seat and as spectators, and
    // its seats move so that each version is drawn anew.
    let stop = Arc::new(AtomicBool::new(false));
    let huge_views = Arc::new(AtomicUsize::new(0));
    let mut viewers = Vec::new();
    for viewer in 0..3 {
        let (app, huge, tokens, stop, huge_views) = (
            app.clone(),
            huge.clone(),
            huge_tokens.clone(),
            stop.clone(),
            huge_views.clone(),
        );
        viewers.push(tokio::spawn(async move {
            let mut rng = answer_rng(10 + viewer);
            while !stop.load(Ordering::Relaxed) {
                let token = tokens.get(usize::from(viewer)).map(|(_, token)| token.as_str());
                let (status, view) = app
                    .view(&huge, token).await;
                assert_eq!(status, StatusCode::OK, "{view}");
                huge_views.fetch_add(1, Ordering::Relaxed);
                if token.is_some() && !view["pending"].as_array().unwrap().is_empty() {
                    let body = json!({ "version": view["version"], "action": random_answer(&view, &mut rng) });
                    let _ = app
                        .call("POST", &format!("/api/games/{huge}/actions"), token, Some(body))
                        .await;
                }
            }
        }));
    }
    let attacked = play(&app, 60, 2).await;
    stop.store(true, Ordering::Relaxed);
    for viewer in viewers {
        viewer.await.unwrap();
    }
    println!(
        "huge board: {raw} bytes drawn per view, first view refused in {first_view:?}; \
         {} views of it during the run; well-behaved game p50 {:?} p99 {:?} alone, \
         p50 {:?} p99 {:?} beside it",
        huge_views.load(Ordering::Relaxed),
        percentile(&quiet, 50),
        percentile(&quiet, 99),
        percentile(&attacked, 50),
        percentile(&attacked, 99),
    );
}
