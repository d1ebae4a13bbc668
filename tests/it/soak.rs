//! The soak of issue 33 in small (the benchmark plays a thousand games: `cargo xtask bench
//! --soak`): ten turn-based games of the test ruleset on two real server processes over one
//! PostgreSQL database and one simulated clock, people answering through the HTTP API or
//! vanishing; every game finishes, no table stalls, each expiry is acted on once, each mail is
//! sent once.

use serde_json::json;

use crate::server_support::{RULESET, TempDir, write_maps};
use crate::soak_driver::{SoakConfig, run};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_turn_based_games_on_two_servers_finish_with_each_expiry_and_mail_once() {
    let dir = TempDir::new("soak");
    let config = SoakConfig {
        games: 10,
        server_binary: env!("CARGO_BIN_EXE_tenka-test-server").into(),
        rulesets_dir: None,
        maps_dir: write_maps(&dir.0),
        ruleset: RULESET.id.to_owned(),
        map: Some(RULESET.map.to_owned()),
        options: json!({ "rounds": 3 }),
        seats: 3,
        vanish_share: 0.4,
        move_hours: 4,
        accounts_per_seat: 2,
        clients: 2,
        seed: 33,
        work_dir: dir.0.clone(),
    };
    let report = run(&config).await.unwrap();
    assert!(report.passed(), "{}\n{report:#?}", report.failures());
    assert_eq!((report.finished, report.seats), (10, 30));
    assert!(report.vanished_seats > 0, "{report:#?}");
    assert!(
        report.mails_by_kind.get("replaced").is_some_and(|n| *n > 0),
        "{report:#?}"
    );
    for kind in ["ended", "reminder"] {
        assert!(
            report.mails_by_kind.get(kind).is_some_and(|n| *n > 0),
            "{report:#?}"
        );
    }
}

/// A mail being sent when the tables' clock jumped an hour (a simulated clock, or the wall
/// clock set forward) had its lease overtaken: the other server process took it and sent it
/// again. The lease runs on the wall clock now, and only the claim that holds a mail records
/// its outcome.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_clock_moved_on_past_a_mails_lease_let_another_sender_send_it_again() {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use host::server::clocks::{Clock as _, ManualClock};
    use host::server::notices::store;
    use host::server::storage::now_millis;
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    const LEASE_MS: i64 = 300_000;
    let dir = TempDir::new("soak-lease");
    let clock = ManualClock::new(1_795_000_000_000);
    let app = crate::clocks::start(&dir.0, &clock).await;
    let (game, tokens) = crate::clocks::create(
        &app,
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 0 }),
    )
    .await;
    // An account holds the second seat and asks for its turns by mail.
    let send = |method: &str, uri: &str, cookie: Option<(&str, &str)>, body: serde_json::Value| {
        let mut request = Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json");
        if let Some((cookie, csrf)) = cookie {
            request = request
                .header("cookie", cookie)
                .header("x-csrf-token", csrf);
        }
        let request = request.body(Body::from(body.to_string())).unwrap();
        let router = app.router.clone();
        async move {
            let response = router.oneshot(request).await.unwrap();
            let (status, headers) = (response.status(), response.headers().clone());
            let bytes = response.into_body().collect().await.unwrap().to_bytes();
            let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
            (status, headers, body)
        }
    };
    let body = json!({ "name": "eiko", "password": "a long enough password" });
    let (status, headers, account) = send("POST", "/api/accounts", None, body).await;
    assert_eq!(status, StatusCode::CREATED, "{account}");
    let cookie = headers["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap();
    let session = Some((cookie, account["csrf_token"].as_str().unwrap()));
    let body = json!({ "seats": [{ "game": game, "token": tokens[1] }] });
    let (status, _, attached) = send("POST", "/api/me/seats", session, body).await;
    assert_eq!(status, StatusCode::OK, "{attached}");
    let body = json!({ "email": "eiko@example.test", "mail": true, "your_turn": true,
        "replaced": true, "ended": true, "reminders": true });
    let (status, _, settings) = send("PUT", "/api/me/notice-settings", session, body).await;
    assert_eq!(status, StatusCode::OK, "{settings}");
    // The first seat plans: the second seat's "your turn" mail is queued.
    assert_eq!(
        crate::clocks::answer(&app, &game, &tokens[0]).await,
        StatusCode::OK
    );
    let storage = app.state.hub.storage();
    let waited = std::time::Instant::now();
    let due = loop {
        // The notices are written once the move is stored, a moment after it is answered.
        let due = store::due_mails(storage, clock.now_millis(), now_millis(), 10)
            .await
            .unwrap();
        if !due.is_empty() || waited.elapsed() > std::time::Duration::from_secs(30) {
            break due;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert_eq!(due.len(), 1, "{due:?}");

    // One sender claims it; the tables' clock moves on an hour while it sends.
    let first = store::claim_mail(storage, due[0], clock.now_millis(), now_millis(), LEASE_MS)
        .await
        .unwrap()
        .expect("the first sender claims the mail");
    clock.advance(std::time::Duration::from_secs(3600));
    let now = clock.now_millis();
    assert_eq!(
        store::due_mails(storage, now, now_millis(), 10)
            .await
            .unwrap(),
        Vec::<i64>::new(),
        "a mail being sent is not due again while its lease runs"
    );
    let second = store::claim_mail(storage, due[0], now, now_millis(), LEASE_MS)
        .await
        .unwrap();
    assert!(second.is_none(), "no other sender takes it: {second:?}");

    // Once the lease has run out on the wall clock (the sender crashed), another takes it over;
    // the first sender's outcome no longer counts.
    let later = now_millis() + LEASE_MS + 1;
    let taken = store::claim_mail(storage, due[0], now, later, LEASE_MS)
        .await
        .unwrap()
        .expect("a sender takes over a mail whose lease ran out");
    store::finish_mail(storage, &first, "dropped", now, None, None)
        .await
        .unwrap();
    store::finish_mail(storage, &taken, "sent", now, None, None)
        .await
        .unwrap();
    let counts = store::mail_counts(storage).await.unwrap();
    assert_eq!(counts.get("sent"), Some(&1), "{counts:?}");
    assert_eq!(counts.get("dropped"), None, "{counts:?}");
}
