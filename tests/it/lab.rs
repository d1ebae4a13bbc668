//! The variant lab (`/api/lab`): a job plays its games to the end with figures that match them,
//! a cancelled job stops, the bounds refuse excess jobs, hostile requests are refused, and
//! people's moves are answered while a job runs.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use crate::server_support::{RULESET, SHOGUN, TempDir, TestApp, answer_rng};

/// A lab request from the client at `address`.
async fn start_from(app: &TestApp, address: &str, body: Value) -> (StatusCode, Value) {
    app.post_from("/api/lab", address, body).await
}

/// Polls the job until its status is no longer running; returns the last status.
async fn wait_until_done(app: &TestApp, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let (status, job) = app.call("GET", &format!("/api/lab/{id}"), None, None).await;
        assert_eq!(status, StatusCode::OK, "{job}");
        if job["status"] != "running" && job["status"] != "cancelling" {
            return job;
        }
        assert!(Instant::now() < deadline, "the job never ended: {job}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A job long enough to still run while the test does something else: Shogun's 200 games of
/// each rule set.
fn long_job() -> Value {
    json!({ "ruleset": SHOGUN.id, "players": 4, "games": 200, "seed": 1 })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_lab_job_runs_to_the_end_with_figures_that_match_its_games() {
    let dir = TempDir::new("lab-small");
    let app = TestApp::start(&dir.0).await;
    let (status, started) = start_from(
        &app,
        "192.0.2.1",
        json!({ "ruleset": RULESET.id, "players": 2, "games": 8, "options": { "rounds": 1 }, "seed": 42 }),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{started}");
    let id = started["id"].as_str().unwrap().to_owned();
    assert_eq!(started["games_total"], 16);
    let job = wait_until_done(&app, &id).await;
    assert_eq!(job["status"], "finished", "{job}");
    assert_eq!(job["games_done"], 16);
    assert_eq!(job["request"]["rules"], "standard rules with rounds");
    assert_eq!(job["request"]["baseline"], "standard rules");

    // The same plan played here gives the same figures: they are the games the job played.
    let ruleset = app.state.hub.runtime().ruleset(RULESET.id).unwrap();
    let plan = host::balance::Plan {
        ruleset,
        map_toml: RULESET.map_toml.to_owned(),
        map_label: RULESET.map.to_owned(),
        seats: 2,
        games: 8,
        seed: 42,
        bots: vec![host::bots::BotKind::Random],
        arms: vec![
            host::balance::Arm {
                label: "tested".to_owned(),
                options: vec![sdk::OptionSetting {
                    name: "rounds".to_owned(),
                    value: sdk::OptionValue::Integer(1),
                }],
            },
            host::balance::Arm {
                label: "baseline".to_owned(),
                options: Vec::new(),
            },
        ],
        jobs: 1,
    };
    let expected = host::balance::run(
        &plan,
        &|_, _| {},
        &AtomicBool::new(false),
        &|_, _, _| Ok(()),
    )
    .unwrap();
    let summary = &job["summary"];
    for (arm, played) in expected.arms.iter().enumerate() {
        let figures = &summary["arms"][arm];
        assert_eq!(figures["games"], played.games.len() as u64, "{figures}");
        assert_eq!(figures["failed"], 0, "{figures}");
        let actions: u64 = played.games.iter().map(|game| game.actions).sum();
        let mean_actions = figures["mean_actions"].as_f64().unwrap();
        assert!(
            (mean_actions - actions as f64 / 8.0).abs() < 1e-9,
            "{figures}"
        );
        for seat in 0..2 {
            let wins = played
                .games
                .iter()
                .filter(|game| game.ranks[seat] == 1)
                .count() as u64;
            let line = &figures["seats"][seat];
            assert_eq!(line["wins"], wins, "{line}");
            let rate = line["win_rate"].as_f64().unwrap();
            assert!((rate - wins as f64 / 8.0).abs() < 1e-9, "{line}");
            let (low, high) = (
                line["win_rate_low"].as_f64().unwrap(),
                line["win_rate_high"].as_f64().unwrap(),
            );
            assert!(low <= rate && rate <= high && high - low > 0.1, "{line}");
            let scores: i64 = played.games.iter().map(|game| game.scores[seat]).sum();
            let mean_score = line["mean_score"].as_f64().unwrap();
            assert!((mean_score - scores as f64 / 8.0).abs() < 1e-9, "{line}");
        }
    }
    // Each difference as a line of English and as data a client words in its own language.
    let lines = summary["differences"].as_array().unwrap();
    let findings = summary["findings"].as_array().unwrap();
    assert_eq!(lines.len(), findings.len(), "{summary}");
    for (line, finding) in lines.iter().zip(findings) {
        assert_eq!(&finding["line"], line, "{finding}");
        assert!(finding["measure"].is_string(), "{finding}");
        assert!(finding["p"].as_f64().unwrap() < 0.05, "{finding}");
        assert!(finding["tested"].is_number() && finding["baseline"].is_number());
    }

    // The report: a self-contained page under a policy that allows no script.
    let response = app
        .router
        .clone()
        .oneshot(
            Request::get(format!("/api/lab/{id}/report?download"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let headers = response.headers().clone();
    let policy = headers["content-security-policy"].to_str().unwrap();
    assert!(policy.starts_with("default-src 'none'"), "{policy}");
    assert!(!policy.contains("script-src"), "{policy}");
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment"),
        "a download is saved as a file"
    );
    let page = String::from_utf8(
        response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec(),
    )
    .unwrap();
    assert!(page.contains("<svg"), "the report draws its plots inline");
    assert!(!page.contains("<script"), "the report runs no script");
    assert!(page.contains("standard rules with rounds"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_is_answered_while_a_lab_job_runs_and_a_cancelled_job_stops() {
    let dir = TempDir::new("lab-cancel");
    let app = TestApp::start(&dir.0).await;
    let (status, started) = start_from(&app, "192.0.2.1", long_job()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{started}");
    let id = started["id"].as_str().unwrap().to_owned();

    // A person's game beside the job: their moves are answered while it runs.
    let (game, tokens) = app.create(&[None, Some("random")], json!({})).await;
    let token = &tokens[0].1;
    let mut rng = answer_rng(3);
    let mut answered = false;
    for _ in 0..20 {
        let view = app.wait_for_turn(&game, token).await;
        if view["status"] == "finished" {
            break;
        }
        let (status, answer) = app.act_randomly(&game, token, &view, &mut rng).await;
        assert!(
            [
                StatusCode::OK,
                StatusCode::UNPROCESSABLE_ENTITY,
                StatusCode::CONFLICT
            ]
            .contains(&status),
            "{status}: {answer}"
        );
        if status == StatusCode::OK {
            answered = true;
            break;
        }
    }
    assert!(answered, "a move was answered");
    let (_, during) = app.call("GET", &format!("/api/lab/{id}"), None, None).await;
    assert_eq!(
        during["status"], "running",
        "the job was still running when the move was answered: {during}"
    );

    let (status, cancelling) = app
        .call("DELETE", &format!("/api/lab/{id}"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{cancelling}");
    let job = wait_until_done(&app, &id).await;
    assert_eq!(job["status"], "cancelled", "{job}");
    let done = job["games_done"].as_u64().unwrap();
    assert!(done < 400, "the job stopped early: {job}");
    let counted: u64 = job["summary"]["arms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arm| arm["games"].as_u64().unwrap() + arm["failed"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, done, "the figures cover the games played: {job}");
    // It stays stopped, and its report covers what was played.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (_, later) = app.call("GET", &format!("/api/lab/{id}"), None, None).await;
    assert_eq!(later["games_done"].as_u64().unwrap(), done);
    assert_eq!(app.state.lab.running(), 0);
    let (status, _) = app
        .call("GET", &format!("/api/lab/{id}/report"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lab_limits_refuse_excess_jobs_and_change_nothing() {
    let dir = TempDir::new("lab-limits");
    let app = TestApp::start_configured(&dir.0, None, |_, server| {
        server.lab.jobs = 1;
        server.lab.jobs_per_address = 1;
    })
    .await;
    let (status, first) = start_from(&app, "192.0.2.1", long_job()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    let first = first["id"].as_str().unwrap().to_owned();

    // The same address again: 429, its own limit.
    let (status, refused) = start_from(&app, "192.0.2.1", long_job()).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{refused}");
    assert_eq!(refused["error"], "too-many-jobs");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("already runs")
    );
    // Another address: 503, the server's limit.
    let (status, refused) = start_from(&app, "192.0.2.2", long_job()).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{refused}");
    assert_eq!(refused["error"], "busy");
    assert!(refused["message"].as_str().unwrap().contains("lab job"));
    assert_eq!(app.state.lab.running(), 1, "nothing was started");

    // Once the first job is cancelled, the other address gets its turn.
    app.call("DELETE", &format!("/api/lab/{first}"), None, None)
        .await;
    wait_until_done(&app, &first).await;
    let (status, second) = start_from(&app, "192.0.2.2", long_job()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{second}");
    let second = second["id"].as_str().unwrap();
    app.call("DELETE", &format!("/api/lab/{second}"), None, None)
        .await;
    wait_until_done(&app, second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_lab_jobs_are_kept_a_bounded_number() {
    let dir = TempDir::new("lab-kept");
    let app = TestApp::start_configured(&dir.0, None, |_, server| {
        server.lab.kept = 2;
    })
    .await;
    let mut ids = Vec::new();
    for seed in 0..3 {
        let (status, job) = start_from(
            &app,
            "192.0.2.1",
            json!({ "ruleset": RULESET.id, "players": 2, "games": 1, "seed": seed }),
        )
        .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{job}");
        let id = job["id"].as_str().unwrap().to_owned();
        wait_until_done(&app, &id).await;
        ids.push(id);
    }
    let (status, _) = app
        .call("GET", &format!("/api/lab/{}", ids[0]), None, None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "the oldest was dropped");
    for id in &ids[1..] {
        let (status, job) = app.call("GET", &format!("/api/lab/{id}"), None, None).await;
        assert_eq!(status, StatusCode::OK, "{job}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_lab_requests_are_refused_with_a_clear_message() {
    let dir = TempDir::new("lab-hostile");
    let app = TestApp::start(&dir.0).await;
    let good = json!({ "ruleset": RULESET.id, "players": 2, "games": 2 });
    let with = |field: &str, value: Value| {
        let mut body = good.clone();
        body[field] = value;
        body
    };
    let cases = [
        (with("ruleset", json!("no-such-game")), "no ruleset"),
        (with("map", json!("atlantis")), "no map"),
        (with("variant", json!("nonsense")), "no variant"),
        (with("baseline", json!("nonsense")), "no variant"),
        (with("options", json!({ "colour": "red" })), "no option"),
        (with("options", json!({ "rounds": 500 })), "must be 1 to 50"),
        (
            with("options", json!({ "rounds": "many" })),
            "must be a whole number",
        ),
        (with("games", json!(0)), "1 to 200 games"),
        (with("games", json!(201)), "1 to 200 games"),
        (with("games", json!(-1)), "games"),
        (with("players", json!(99)), "players"),
        (with("bot", json!("cheater")), "no bot"),
        (with("surprise", json!(true)), "surprise"),
        (json!({ "ruleset": RULESET.id }), "players"),
    ];
    for (body, expected) in cases {
        let (status, refused) = start_from(&app, "192.0.2.1", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {refused}");
        assert_eq!(refused["error"], "bad-request");
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains(expected), "{body}: {message}");
    }
    assert_eq!(app.state.lab.running(), 0, "nothing was started");
    let (status, _) = app
        .call("GET", "/api/lab/0123456789abcdef", None, None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app
        .call("DELETE", "/api/lab/0123456789abcdef", None, None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app
        .call("GET", "/api/lab/0123456789abcdef/report", None, None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The request is still good: the refusals left the address free to start a job.
    let (status, job) = start_from(&app, "192.0.2.1", good).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    wait_until_done(&app, job["id"].as_str().unwrap()).await;
}
