//! One client's bot games cannot stall another table's bots: thinking slots are handed out in
//! turn by creator, a client address may run only a few games of bots alone, and games of bots
//! alone that nobody watches go at a slower pace (finding 2 of issue 23).

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::server_api::open_stream;
use crate::server_support::{RULESET, TempDir, TestApp};

/// Creates a game as a client at `address` would.
async fn create_from(
    app: &TestApp,
    address: &str,
    seats: Value,
    rounds: u32,
) -> (StatusCode, Value) {
    let body = json!({ "ruleset": RULESET.id, "map": RULESET.map, "options": { "rounds": rounds }, "seats": seats });
    app.post_from("/api/games", address, body).await
}

/// The version of a game in memory.
async fn version(app: &TestApp, game: &str) -> u64 {
    app.state.hub.game(game).await.unwrap().standing().version
}

/// Every move the games have made so far.
async fn moves(app: &TestApp, games: &[String]) -> u64 {
    let mut total = 0;
    for game in games {
        total += version(app, game).await;
    }
    total
}

/// Plays rounds of a game of one person and one search bot; for each round, how long the bot took
/// from the person's answer to its move, and how many moves of `others` happened meanwhile.
async fn bot_turns(
    app: &TestApp,
    game: &str,
    token: &str,
    rounds: u64,
    others: &[String],
) -> Vec<(Duration, u64)> {
    let mut turns = Vec::new();
    for _ in 0..rounds {
        let view = app.wait_for_turn(game, token).await;
        let seen = view["version"].as_u64().unwrap();
        let before = moves(app, others).await;
        let start = Instant::now();
        let (status, body) = app.act(game, token, seen, json!({ "choose": [0] })).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let answered = body["version"].as_u64().unwrap();
        // The round is complete; the bot plans the next one.
        while version(app, game).await <= answered {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the bot never moved"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        turns.push((start.elapsed(), moves(app, others).await - before));
    }
    turns
}

/// Finding 2 of issue 23: with 60 games of search bots from one address, a search bot in
/// someone else's game went from 0.32 s to 25 s per move, since thinking slots were handed out
/// first come, first served. Now each creator takes its turn: between a bot becoming ready and
/// its move, each other creator moves about once, however many games it started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_one_address_stalled_every_search_bot_on_the_server() {
    let dir = TempDir::new("bot-fairness");
    let app = TestApp::start_configured(&dir.0, None, |hub, _| {
        hub.bot_moves = 1;
        hub.bot_think_time = Duration::from_millis(20);
        // The schedule alone is under test here: no cap, no slower pace.
        hub.bot_games_per_creator = 1_000;
        hub.unwatched_bot_pace = Duration::ZERO;
    })
    .await;
    let (status, created) = create_from(
        &app,
        "192.0.2.1",
        json!([{ "kind": "human", "creator": true }, { "kind": "bot", "bot": "search" }]),
        12,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let game = created["id"].as_str().unwrap().to_owned();
    let token = created["seats"][0]["token"].as_str().unwrap().to_owned();

    let alone = bot_turns(&app, &game, &token, 4, &[]).await;

    let mut crowd = Vec::new();
    for _ in 0..60 {
        let (status, body) = create_from(
            &app,
            "198.51.100.7",
            json!([{ "kind": "bot", "bot": "search" }, { "kind": "bot", "bot": "search" }, { "kind": "bot", "bot": "search" }]),
            50,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        crowd.push(body["id"].as_str().unwrap().to_owned());
    }
    // Let the crowd fill the queue.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let crowded = bot_turns(&app, &game, &token, 4, &crowd).await;

    let millis = |turns: &[(Duration, u64)]| {
        turns
            .iter()
            .map(|(took, _)| took.as_millis())
            .collect::<Vec<_>>()
    };
    eprintln!(
        "bot fairness: the search bot's move took {:?} ms alone and {:?} ms beside 60 games of \
         search bots from another address; moves of those games meanwhile: {:?}",
        millis(&alone),
        millis(&crowded),
        crowded.iter().map(|(_, moved)| *moved).collect::<Vec<_>>()
    );
    // The crowd is not starved either: its bots keep moving. How far they got while the four
    // turns above were played depends on the machine's load (regression_crowd_check_raced_the_
    // machine_load: with the browser tests beside the Rust tests the crowd had made fewer than
    // 20 moves by then), so this waits, within a bound, for them to get there.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut crowd_moves = moves(&app, &crowd).await;
    while crowd_moves <= 20 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        crowd_moves = moves(&app, &crowd).await;
    }
    assert!(
        crowd_moves > 20,
        "the crowd's bots kept playing: {crowd_moves} moves in 60 s"
    );
    for (took, moved) in &crowded {
        // First come, first served let every one of the 60 games move first (60 and more);
        // in turn by creator it is about one, a few with the moves already under way.
        assert!(
            *moved <= 8,
            "the bot waited for {moved} moves of another address's games ({took:?})"
        );
    }
}

/// A client address may run only a few games of bots alone; a game with a person in it, or
/// another address's, is not refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_one_address_could_start_any_number_of_bot_games() {
    let dir = TempDir::new("bot-cap");
    let app = TestApp::start_configured(&dir.0, None, |hub, _| {
        hub.bot_games_per_creator = 2;
        // Slow enough that the games are still running when the third is asked for.
        hub.unwatched_bot_pace = Duration::from_secs(5);
    })
    .await;
    let bots = json!([{ "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }]);
    for _ in 0..2 {
        let (status, body) = create_from(&app, "203.0.113.5", bots.clone(), 50).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, refused) = create_from(&app, "203.0.113.5", bots.clone(), 50).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"], "conflict");
    assert!(
        refused["message"].as_str().unwrap().contains("bots alone"),
        "{refused}"
    );
    let (status, body) = create_from(
        &app,
        "203.0.113.5",
        json!([{ "kind": "human", "creator": true }, { "kind": "bot", "bot": "random" }]),
        50,
    )
    .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "a game with a person is fine: {body}"
    );
    let (status, body) = create_from(&app, "203.0.113.9", bots, 50).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "another address is fine: {body}"
    );
}

/// A game of bots alone that nobody watches goes at the slower pace; one that someone watches
/// at the normal pace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_unwatched_bot_games_ran_at_full_speed() {
    let dir = TempDir::new("bot-unwatched");
    let app = TestApp::start_configured(&dir.0, None, |hub, _| {
        hub.bot_pace = Duration::ZERO;
        hub.unwatched_bot_pace = Duration::from_millis(400);
    })
    .await;
    let bots = json!([{ "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }]);
    let (status, watched) = create_from(&app, "192.0.2.10", bots.clone(), 5).await;
    assert_eq!(status, StatusCode::CREATED, "{watched}");
    let watched = watched["id"].as_str().unwrap().to_owned();
    let _stream = open_stream(&app, &watched, None, 0).await;
    let (status, unwatched) = create_from(&app, "192.0.2.11", bots, 5).await;
    assert_eq!(status, StatusCode::CREATED, "{unwatched}");
    let unwatched = unwatched["id"].as_str().unwrap().to_owned();
    // The watched game's bots waited the slower pace once, before its stream opened.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let (fast, slow) = (
        version(&app, &watched).await,
        version(&app, &unwatched).await,
    );
    assert_eq!(fast, 10, "the watched game is over");
    assert!(
        slow <= 2,
        "the unwatched game went at {slow} moves in 0.7 s"
    );
}

/// A decision with a single answer waited for a thinking slot like any other: a bot's forced
/// step (tic-tac-toe's last free square) queued behind every other table's thinking bots. Now
/// it takes none, while a decision with a choice still waits for a slot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_bots_forced_step_waited_for_a_thinking_slot() {
    let dir = TempDir::new("bot-forced-step");
    let runtime = crate::server_support::runtime();
    runtime
        .register_native(sdk::native::adapt::<tictactoe::TicTacToe>())
        .unwrap();
    let app = TestApp::start_on(&dir.0, None, runtime, |hub, _| hub.bot_moves = 1).await;
    let (status, created) = app
        .post_game(json!({ "ruleset": "tictactoe", "seats": [{ "kind": "bot", "bot": "hard" }, { "kind": "human", "creator": true }] })).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let game = created["id"].as_str().unwrap().to_owned();
    let token = created["seats"][1]["token"].as_str().unwrap().to_owned();

    // The person (the second seat) always keeps the draw, so the hard bot's fifth mark is
    // the last free square.
    for turn in 0..4 {
        let view = app.wait_for_turn(&game, &token).await;
        assert_eq!(view["status"], "active", "{view}");
        let mut board = [0u8; 9];
        for (cell, mark) in view["state"]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            board[cell] = mark.as_u64().map_or(0, |seat| seat as u8 + 1);
        }
        let decision: sdk::PendingDecision =
            serde_json::from_value(view["pending"][0].clone()).unwrap();
        let sdk::DecisionKind::Choose(choose) = &decision.kind else {
            panic!("tic-tac-toe asks to choose a square");
        };
        let drawing = choose
            .choices
            .iter()
            .position(|choice| {
                let cell: usize = choice.id.parse().unwrap();
                board[cell] = 2;
                let keeps = -crate::bot_levels::minimax(&mut board, 1) >= 0;
                board[cell] = 0;
                keeps
            })
            .expect("the second player can always keep the draw");
        let seen = view["version"].as_u64().unwrap();
        // Every slot is held: at the first turn the bot's next mark has a choice and waits; at
        // the last it is forced and comes at once.
        let held = app.state.hub.bot_slots().acquire("another table").await;
        let (status, body) = app
            .act(&game, &token, seen, json!({ "choose": [drawing] }))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let answered = body["version"].as_u64().unwrap();
        if turn == 0 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            assert_eq!(
                version(&app, &game).await,
                answered,
                "a bot with a choice thought without a slot"
            );
        }
        if turn == 3 {
            let start = Instant::now();
            while !app.state.hub.game(&game).await.unwrap().standing().finished {
                assert!(
                    start.elapsed() < Duration::from_secs(30),
                    "the forced step waited for a slot"
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        drop(held);
    }
    let view = app.wait_for_turn(&game, &token).await;
    assert_eq!(view["status"], "finished", "{view}");
    assert!(
        view["state"]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .all(|mark| !mark.is_null()),
        "the game ended on the last square: {view}"
    );
}
