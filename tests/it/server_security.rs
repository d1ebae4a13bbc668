//! The game server against hostile rulesets and hostile clients: what a ruleset draws is rebuilt
//! before a browser sees it, every answer carries the security headers, and a failure never
//! leaves a game in memory apart from what is stored.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::server_support::{
    EARLY_RESULT, FAILING_RENDER, FAILS_AFTER_MOVE, HOSTILE_BOARD, TempDir, TestApp, twisted,
};

/// Every piece of every attack of `support/twisted.rs`'s hostile board that must not survive.
const ATTACK_MARKS: [&str; 10] = [
    "127.0.0.2",
    "javascript:",
    "script",
    "onload",
    "image-set",
    "srcset",
    ":host",
    "position",
    "foreignObject",
    "\\",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_ruleset_svg_reached_the_players_page_as_the_ruleset_wrote_it() {
    let dir = TempDir::new("security-svg");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app
        .create_game(&HOSTILE_BOARD, &[None, Some("random")], json!({}))
        .await;
    let seat_token = tokens[0].1.as_str();
    for token in [None, Some(seat_token)] {
        let (status, view) = app.view(&game, token).await;
        assert_eq!(status, StatusCode::OK, "{view}");
        let svg = view["parts"][0]["svg"].as_str().unwrap();
        for mark in ATTACK_MARKS {
            assert!(!svg.contains(mark), "`{mark}` reached the page: {svg}");
        }
        // What is harmless stays: the board is still a board.
        assert!(svg.contains(r##"fill="url(#kept)""##), "{svg}");
        assert!(svg.contains(".kept{fill:blue}"), "{svg}");
        assert!(svg.contains(r#"data-msg="plan.prompt""#), "{svg}");
    }
    // The map preview is drawn by the same ruleset and cleaned the same way.
    let (status, preview) = app
        .call(
            "GET",
            &format!(
                "/api/rulesets/{}/maps/{}",
                HOSTILE_BOARD.id, HOSTILE_BOARD.map
            ),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let svg = preview["svg"].as_str().unwrap();
    for mark in ATTACK_MARKS {
        assert!(
            !svg.contains(mark),
            "`{mark}` reached the map preview: {svg}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_responses_had_no_content_security_policy_or_security_headers() {
    let dir = TempDir::new("security-headers");
    let app = TestApp::start(&dir.0).await;
    for uri in [
        "/api/rulesets",
        "/api/no-such-endpoint",
        "/",
        "/api/games/nope/view",
    ] {
        let request = axum::http::Request::builder()
            .uri(uri)
            .body(axum::body::Body::empty())
            .unwrap();
        let response = tower::ServiceExt::oneshot(app.router.clone(), request)
            .await
            .unwrap();
        let headers = response.headers();
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        let csp = header("content-security-policy");
        for directive in [
            "default-src 'none'",
            "script-src 'self'",
            "frame-ancestors 'none'",
            "object-src 'none'",
            "base-uri 'none'",
        ] {
            assert!(
                csp.contains(directive),
                "{uri}: CSP lacks {directive}: {csp}"
            );
        }
        assert!(!csp.contains("unsafe-eval"), "{uri}: {csp}");
        assert_eq!(header("x-content-type-options"), "nosniff", "{uri}");
        assert_eq!(header("x-frame-options"), "DENY", "{uri}");
        assert_eq!(header("referrer-policy"), "no-referrer", "{uri}");
        if uri.starts_with("/api") {
            assert_eq!(header("cache-control"), "no-store", "{uri}");
        }
    }
}

/// Waits until `seat` of a secret-draw game is asked to plan, and plans a number of its own.
async fn plan_when_asked(app: &TestApp, game: &str, seat: u32, token: &str) -> (StatusCode, Value) {
    let view = app.wait_for_turn(game, token).await;
    app.act(
        game,
        token,
        &view["version"],
        json!({ "choose": [seat % 3] }),
    )
    .await
}

/// How many actions the secret-draw game in `view` has applied: two seats plan each round.
fn applied_actions(view: &Value) -> u64 {
    let round = view["state"]["round"].as_u64().unwrap();
    let planned = view["state"]["planned"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|planned| planned.as_bool() == Some(true))
        .count() as u64;
    2 * round + planned
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_failed_bot_move_left_the_game_in_memory_ahead_of_the_database() {
    let dir = TempDir::new("security-bot-ahead");
    let app = TestApp::start(&dir.0).await;
    // The bot's first move is applied by the ruleset, then the ruleset fails (once).
    twisted::FAIL_AFTER_FIRST_MOVE.store(true, Ordering::SeqCst);
    let (game, tokens) = app
        .create_game(&FAILS_AFTER_MOVE, &[None, Some("random")], json!({}))
        .await;
    let token = tokens[0].1.as_str();
    let deadline = Instant::now() + Duration::from_secs(30);
    while twisted::FAIL_AFTER_FIRST_MOVE.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the bot never moved");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;

    // The person plans against the version the server reports.
    let view = app.wait_for_turn(&game, token).await;
    let (status, body) = app
        .act(&game, token, &view["version"], json!({ "choose": [0] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // Once the bot has caught up, the game in memory holds exactly the stored actions.
    let view = app
        .view_until(&game, "the game got there", |view| {
            view["waiting_for"] == json!([0]) || view["status"] == "finished"
        })
        .await;
    let (status, log) = app
        .call("GET", &format!("/api/games/{game}/log"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{log}");
    let stored = log.as_array().unwrap().len() as u64;
    assert_eq!(view["version"].as_u64(), Some(stored), "{view}");
    assert_eq!(
        applied_actions(&view),
        stored,
        "the game in memory applied {} actions, the database holds {stored}: {view}",
        applied_actions(&view)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_the_seed_was_revealed_when_the_ruleset_claimed_a_result_before_the_end() {
    let dir = TempDir::new("security-early-result");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app
        .create_game(&EARLY_RESULT, &[None, None], json!({ "rounds": 1 }))
        .await;
    let (status, view) = app.view(&game, None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(view["status"], "active");
    assert!(view.get("seed").is_none(), "the seed leaked: {view}");
    assert!(view.get("result").is_none(), "{view}");

    // Once the game really is over, the seed is revealed and matches its commitment.
    for (seat, token) in &tokens {
        let (status, body) = plan_when_asked(&app, &game, *seat, token).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let view = app
        .view_until(&game, "the game got there", |view| {
            view["status"] == "finished"
        })
        .await;
    let seed = hex::decode(view["seed"].as_str().expect("the seed is revealed")).unwrap();
    let commitment = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(&seed))
    };
    assert_eq!(view["seed_commitment"].as_str(), Some(commitment.as_str()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_stored_move_was_answered_500_when_a_later_step_failed() {
    let dir = TempDir::new("security-after-commit");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app
        .create_game(
            &crate::server_support::RULESET,
            &[None, None],
            json!({ "rounds": 1 }),
        )
        .await;
    // The database refuses to mark the game finished, as a full disk or a lost connection would.
    sqlx::query(
        "CREATE TRIGGER refuse_finish BEFORE UPDATE OF finished_at ON games \
         BEGIN SELECT RAISE(ABORT, 'the disk is full'); END",
    )
    .execute(app.state.hub.storage().pool())
    .await
    .unwrap();
    let (first, last) = (&tokens[0], &tokens[1]);
    let (status, body) = plan_when_asked(&app, &game, first.0, &first.1).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The move that ends the game is stored with the game marked finished, in one commit: the
    // database refusing the mark refuses the move, and the answer says so. What was answered
    // stored is stored; what was refused left nothing behind.
    let (status, body) = plan_when_asked(&app, &game, last.0, &last.1).await;
    assert!(status.is_server_error(), "{status}: {body}");
    assert!(
        !body.to_string().contains("the disk is full"),
        "the database's own words stay in the log: {body}"
    );
    let (_, log) = app
        .call("GET", &format!("/api/games/{game}/log"), None, None)
        .await;
    assert_eq!(
        log.as_array().unwrap().len(),
        1,
        "only the first move is stored"
    );

    // Once the database accepts writes again, the same move ends the game.
    sqlx::query("DROP TRIGGER refuse_finish")
        .execute(app.state.hub.storage().pool())
        .await
        .unwrap();
    let (status, body) = plan_when_asked(&app, &game, last.0, &last.1).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["version"], 2, "{body}");
    let view = app
        .view_until(&game, "the game got there", |view| {
            view["status"] == "finished"
        })
        .await;
    assert_eq!(view["version"], 2);
    let stored = app.state.hub.storage().game(&game).await.unwrap().unwrap();
    assert!(stored.finished_at.is_some(), "the game is marked finished");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_bad_query_and_path_parameters_answered_plain_text() {
    let dir = TempDir::new("security-bad-params");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app.create(&[None, None], json!({})).await;
    let token = tokens[0].1.as_str();
    for (method, uri, body) in [
        ("GET", format!("/api/games/{game}/view?since=abc"), None),
        ("GET", format!("/api/games/{game}/log?since=-1"), None),
        ("GET", format!("/api/games/{game}/view?at=1e9"), None),
        (
            "GET",
            format!(
                "/api/rulesets/{}/catalogue/en?version=a&x=1",
                crate::server_support::RULESET.id
            ),
            None,
        ),
        (
            "POST",
            format!("/api/games/{game}/seats/not-a-number/bot"),
            Some(json!({ "bot": "random" })),
        ),
        (
            "POST",
            format!("/api/games/{game}/seats/99999999999/bot"),
            Some(json!({ "bot": "random" })),
        ),
    ] {
        let (status, answer) = app.call(method, &uri, Some(token), body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {answer}");
        assert_eq!(answer["error"], "bad-request", "{uri}: {answer}");
        assert!(
            answer["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{uri}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_seat_names_took_control_bidirectional_and_empty_text() {
    let dir = TempDir::new("security-names");
    let app = TestApp::start(&dir.0).await;
    let ruleset = crate::server_support::RULESET;
    for name in [
        "",
        "   ",
        "evil\u{202E}nimda",
        "a\u{2066}b",
        "bell\u{7}",
        "new\nline",
        "zero\u{200B}width",
        "\u{FEFF}bom",
        &"x".repeat(65),
    ] {
        let (status, body) = app
            .post_game(
                json!({ "ruleset": ruleset.id, "map": ruleset.map, "seats": [
                    { "kind": "human", "name": name }, { "kind": "human" }
                ] }),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{name:?}: {body}");
        assert_eq!(body["error"], "bad-request", "{name:?}: {body}");
    }
    let (game, tokens) = app.create(&[None, None], json!({})).await;
    for name in ["", "\u{202E}x", "tab\there"] {
        let (status, body) = app
            .call(
                "POST",
                &format!("/api/games/{game}/claim"),
                Some(&tokens[0].1),
                Some(json!({ "name": name })),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{name:?}: {body}");
    }
    // Names in any script, with their accents, are welcome; surrounding spaces are trimmed.
    let (status, body) = app
        .call(
            "POST",
            &format!("/api/games/{game}/claim"),
            Some(&tokens[0].1),
            Some(json!({ "name": "  Tokugawa Ieyasu 徳川家康 — Ștefan  " })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["name"], "Tokugawa Ieyasu 徳川家康 — Ștefan");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_an_overlong_static_path_answered_500() {
    let dir = TempDir::new("security-long-path");
    let app = TestApp::start(&dir.0).await;
    for uri in [
        format!("/{}", "a".repeat(300)),
        format!("/src/{}.js", "b".repeat(256)),
        format!("/api/games/{}", "c".repeat(4000)),
    ] {
        let (status, body) = app.call("GET", &uri, None, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_ruleset_failing_to_draw_answered_a_bare_internal_error() {
    let dir = TempDir::new("security-render-fails");
    let app = TestApp::start(&dir.0).await;
    let (game, _) = app
        .create_game(&FAILING_RENDER, &[None, None], json!({}))
        .await;
    let (status, body) = app.view(&game, None).await;
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    assert_eq!(body["error"], "ruleset-failed", "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("`render`") && message.contains(FAILING_RENDER.id),
        "the message names the ruleset and the call: {message}"
    );
    assert!(
        !message.contains("on purpose"),
        "the ruleset's own words stay in the log: {message}"
    );

    // Other games of the same server answer as ever.
    let (other, _) = app.create(&[None, None], json!({})).await;
    let (status, _) = app.view(&other, None).await;
    assert_eq!(status, StatusCode::OK);
}

/// A create-game request from `address`, as a real connection would carry it.
fn create_from(address: &str) -> axum::http::Request<axum::body::Body> {
    let ruleset = crate::server_support::RULESET;
    let mut request = axum::http::Request::builder()
        .method("POST")
        .uri("/api/games")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(
            json!({ "ruleset": ruleset.id, "map": ruleset.map, "seats": [{ "kind": "human" }, { "kind": "human" }] })
                .to_string(),
        ))
        .unwrap();
    let address: std::net::SocketAddr = address.parse().unwrap();
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(address));
    request
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_one_client_could_create_games_and_send_requests_without_limit() {
    let dir = TempDir::new("security-rate");
    let app = TestApp::start_configured(&dir.0, None, |_, server| {
        server.rate_limits = Some(host::server::limits::RateLimits {
            requests_per_second: 1000,
            request_burst: 1000,
            actions_per_second: 2,
            games_per_minute: 5,
        });
    })
    .await;
    for _ in 0..5 {
        let (status, body) = app.send(create_from("192.0.2.10:5000")).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, body) = app.send(create_from("192.0.2.10:5001")).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(body["error"], "rate-limited");
    assert!(
        body["retry_after"].as_u64().is_some_and(|s| s >= 1),
        "{body}"
    );
    // Another address, and another host of the same IPv6 /64 counted as one client, are apart.
    let (status, _) = app.send(create_from("192.0.2.11:5000")).await;
    assert_eq!(status, StatusCode::CREATED);
    for port in 0..5 {
        let (status, _) = app
            .send(create_from(&format!("[2001:db8::{port}]:5000")))
            .await;
        assert_eq!(status, StatusCode::CREATED);
    }
    let (status, _) = app.send(create_from("[2001:db8::ff]:5000")).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    // Nothing refused was stored.
    assert_eq!(
        app.state.hub.storage().game_ids().await.unwrap().len(),
        5 + 1 + 5
    );

    // A seat's actions are limited by its token, whatever address they come from.
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 50 })).await;
    let mut limited = false;
    for _ in 0..20 {
        let (_, view) = app.view(&game, Some(&tokens[0].1)).await;
        let (status, _) = app
            .act(
                &game,
                &tokens[0].1,
                &view["version"],
                json!({ "choose": [7] }),
            )
            .await;
        if status == StatusCode::TOO_MANY_REQUESTS {
            limited = true;
            break;
        }
    }
    assert!(limited, "a flood of actions for one seat is slowed down");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_unbounded_live_games_exhausted_the_process() {
    let dir = TempDir::new("security-live-cap");
    let app = TestApp::start_configured(&dir.0, None, |hub, _| hub.max_live_games = 3).await;
    let mut games = Vec::new();
    for _ in 0..6 {
        // At the cap, the least recently used game nobody watches leaves memory for the new one.
        let (game, tokens) = app.create(&[None, None], json!({})).await;
        games.push((game, tokens));
        assert!(app.state.hub.live_games() <= 3);
    }
    // Every game still answers: an unloaded one comes back from the database.
    for (game, tokens) in &games {
        let view = app.wait_for_turn(game, &tokens[0].1).await;
        assert_eq!(view["version"], 0);
        assert!(app.state.hub.live_games() <= 3);
    }
    // When every game in memory is watched, the server says it is busy rather than grow.
    let mut watching = Vec::new();
    for (game, _) in games.iter().rev().take(3) {
        watching.push(app.state.hub.game(game).await.unwrap().subscribe());
    }
    let two_people = json!({ "ruleset": crate::server_support::RULESET.id, "map": "square", "seats": [{ "kind": "human" }, { "kind": "human" }] });
    let (status, body) = app.post_game(two_people.clone()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["error"], "busy");
    assert_eq!(
        app.state.hub.storage().game_ids().await.unwrap().len(),
        6,
        "a refused game is not stored"
    );
    drop(watching);
    let (status, _) = app.post_game(two_people).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "room again once nobody watches"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_cached_views_grew_without_bound() {
    let dir = TempDir::new("security-view-budget");
    // Room for about three views of the hostile board; three games of five viewers want fifteen.
    let budget = 2 * 1024;
    let app = TestApp::start_configured(&dir.0, None, |hub, _| hub.view_cache_bytes = budget).await;
    let mut viewers = Vec::new();
    for _ in 0..3 {
        let (game, tokens) = app
            .create_game(&HOSTILE_BOARD, &[None, None, None, None], json!({}))
            .await;
        viewers.extend(
            tokens
                .into_iter()
                .map(|(_, token)| (game.clone(), Some(token))),
        );
        viewers.push((game, None));
    }
    for _ in 0..2 {
        for (game, token) in &viewers {
            let (status, view) = app.view(game, token.as_deref()).await;
            assert_eq!(status, StatusCode::OK);
            assert!(
                view["parts"][0]["svg"]
                    .as_str()
                    .is_some_and(|svg| svg.contains("<svg"))
            );
            assert!(
                app.state.hub.cached_view_bytes() <= budget,
                "{} bytes cached over a budget of {budget}",
                app.state.hub.cached_view_bytes()
            );
        }
    }
    assert!(app.state.hub.cached_view_bytes() > 0, "what fits is cached");
}

/// The p-th percentile of `samples` (sorted in place).
fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_well_behaved_game_keeps_answering_while_others_are_attacked() {
    let dir = TempDir::new("security-p99");
    let app = std::sync::Arc::new(TestApp::start(&dir.0).await);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut attackers = Vec::new();
    // Four Shogun games of five search bots think as hard as they may.
    for _ in 0..4 {
        app.create_game(
            &crate::server_support::SHOGUN,
            &[Some("search"); 5],
            json!({}),
        )
        .await;
    }
    // A ruleset failing in every drawing is asked for its board over and over, and the replay
    // viewer and the catalogue are hammered.
    let (failing, _) = app
        .create_game(&FAILING_RENDER, &[None, None], json!({}))
        .await;
    for uri in [
        format!("/api/games/{failing}/view"),
        format!(
            "/api/rulesets/{}/catalogue/en",
            crate::server_support::RULESET.id
        ),
        format!("/api/games/{failing}/view?at=0"),
    ] {
        let (app, stop) = (app.clone(), stop.clone());
        attackers.push(tokio::spawn(async move {
            let mut sent = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let (status, _) = app.call("GET", &uri, None, None).await;
                assert!(status != StatusCode::OK || !uri.ends_with("/view"), "{uri}");
                sent += 1;
            }
            sent
        }));
    }

    // Meanwhile two people play a game of their own.
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 50 })).await;
    let mut times = Vec::new();
    for turn in 0..100 {
        let (seat, token) = &tokens[turn % 2];
        let started = Instant::now();
        let (status, body) = plan_when_asked(&app, &game, *seat, token).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        times.push(started.elapsed());
    }
    stop.store(true, Ordering::Relaxed);
    let mut attacks = 0;
    for attacker in attackers {
        attacks += attacker.await.unwrap();
    }
    let p50 = percentile(&mut times, 0.5);
    let p99 = percentile(&mut times, 0.99);
    println!(
        "a person's view-and-move under attack ({attacks} hostile requests, 20 search bots): \
         p50 {p50:?}, p99 {p99:?}"
    );
}

/// Every hostile component behind the HTTP server: for each misbehaviour and each export it can
/// misbehave in, the requests that reach it answer `ruleset-failed` naming the export (or `busy`),
/// never a bare internal error, within the request deadline; a game of a well-behaved ruleset on
/// the same server answers after every one of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_components_behind_the_server_fail_only_their_own_requests() {
    use crate::runtime_support::hostile_component;
    let dir = TempDir::new("security-hostile-http");
    let runtime = crate::server_support::runtime();
    let features = [
        "endless-loop",
        "memory-bomb",
        "trap",
        "deep-recursion",
        "panic",
        "huge-output",
    ];
    for feature in features {
        runtime.load_file(&hostile_component(feature)).unwrap();
    }
    // A snapshot after every action and no idle time, so evicting the sessions makes the next
    // request restore the game from its snapshot.
    let app = TestApp::start_on(&dir.0, None, runtime, |hub, _| {
        hub.snapshot_every = 1;
        hub.idle_after = Duration::ZERO;
    })
    .await;
    let (bystander, bystander_tokens) = app.create(&[None, None], json!({ "rounds": 50 })).await;
    let mut bystander_times = Vec::new();
    let mut failures = 0;
    for feature in features {
        for export in ["create", "pending", "view", "render", "restore"] {
            // `create` and `restore` return nothing that could be too large.
            if feature == "huge-output" && ["create", "restore"].contains(&export) {
                continue;
            }
            let what = format!("{feature} in {export}");
            let (status, created) = app
                .post_game(json!({
                    "ruleset": format!("hostile-{feature}"),
                    "map_toml": format!("misbehave-in = \"{export}\"\n"),
                    "seats": [{ "kind": "human", "creator": true }, { "kind": "human" }],
                }))
                .await;
            let mut answers = vec![(status, created.clone())];
            if status == StatusCode::CREATED {
                let game = created["id"].as_str().unwrap().to_owned();
                let token = created["seats"][0]["token"].as_str().unwrap().to_owned();
                // Naming the arming number makes the chosen export misbehave from then on.
                answers.push(app.act(&game, &token, 0, json!({ "number": 8 })).await);
                // Eviction skips a game whose state is still held (its snapshot being written
                // after the answer): it is tried until the game is out of memory.
                let evicted = Instant::now();
                while app.state.hub.in_memory(&game) {
                    assert!(
                        evicted.elapsed() < Duration::from_secs(30),
                        "{what}: the game was never evicted"
                    );
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    app.state.hub.evict_idle().await;
                }
                for _ in 0..2 {
                    answers.push(app.view(&game, Some(&token)).await);
                }
            }
            let failed: Vec<&(StatusCode, Value)> = answers
                .iter()
                .filter(|(status, _)| !status.is_success())
                .collect();
            assert!(
                !failed.is_empty(),
                "{what}: some request reached the misbehaviour: {answers:?}"
            );
            for (status, body) in failed {
                failures += 1;
                assert_ne!(body["error"], "internal", "{what}: {body}");
                if body["error"] == "ruleset-failed" {
                    assert_eq!(*status, StatusCode::INTERNAL_SERVER_ERROR);
                    let message = body["message"].as_str().unwrap();
                    assert!(
                        message.contains(&format!("hostile-{feature}")),
                        "{what}: {message}"
                    );
                } else {
                    assert!(
                        ["busy", "bad-setup", "ruleset-unavailable"]
                            .contains(&body["error"].as_str().unwrap_or("")),
                        "{what}: {status} {body}"
                    );
                }
            }
            // The well-behaved game answers at once.
            let started = Instant::now();
            let view = app.wait_for_turn(&bystander, &bystander_tokens[0].1).await;
            assert_eq!(view["status"], "active");
            bystander_times.push(started.elapsed());
        }
    }
    let p99 = percentile(&mut bystander_times, 0.99);
    println!(
        "hostile components behind the server: {failures} failed requests, all named; \
         a well-behaved game's view after each: p50 {:?}, p99 {p99:?}",
        percentile(&mut bystander_times, 0.5)
    );
}
