//! Who holds which seat: the creator gets a host token, the tokens of the seats it plays and one
//! single-use invite code per other person's seat; a code is exchanged once for a fresh token;
//! the creator revokes or replaces invites of unclaimed seats; claiming gives a fresh token; the
//! event stream opens with a single-use ticket, never a token in the URL; games stored before
//! invites keep working; no secret reaches the server's log.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tower::ServiceExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::server_api::open_stream;
use crate::server_support::{RULESET, TempDir, TestApp, listed_entry, stored_game};

/// A created game: its id and the whole answer.
struct Created {
    id: String,
    body: Value,
}

impl Created {
    fn host(&self) -> &str {
        self.body["host_token"].as_str().expect("a host token")
    }

    fn token(&self, seat: usize) -> &str {
        self.body["seats"][seat]["token"]
            .as_str()
            .expect("a creator's seat has a token")
    }

    fn invite(&self, seat: usize) -> &str {
        self.body["seats"][seat]["invite"]
            .as_str()
            .expect("an invited seat has a code")
    }
}

/// Creates a game of the test ruleset with these seats (request JSON).
async fn create(app: &TestApp, seats: Value) -> Created {
    let (status, body) = app
        .post_game(json!({ "ruleset": RULESET.id, "map": RULESET.map, "options": { "rounds": 3 }, "seats": seats })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    Created {
        id: body["id"].as_str().unwrap().to_owned(),
        body,
    }
}

/// The viewer `token` reads game `id` as: `Ok(viewer)` or `Err(status)`.
async fn viewer(app: &TestApp, id: &str, token: &str) -> Result<Value, StatusCode> {
    let (status, view) = app.view(id, Some(token)).await;
    if status == StatusCode::OK {
        Ok(view["viewer"].clone())
    } else {
        assert_eq!(view["error"], "forbidden", "{view}");
        Err(status)
    }
}

async fn join(app: &TestApp, id: &str, body: Value) -> (StatusCode, Value) {
    app.call("POST", &format!("/api/games/{id}/join"), None, Some(body))
        .await
}

/// Every string anywhere in a JSON value.
fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(fields) => fields.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// The game's public seats.
async fn seats(app: &TestApp, id: &str) -> Value {
    let (status, game) = app.game(id).await;
    assert_eq!(status, StatusCode::OK);
    game["seats"].clone()
}

/// Finding 3 of issue 10: creating a game answered every seat's token, so the creator could act
/// for every person it invited, for good. Made of requests the old server accepted too (two
/// people, nobody marked as the creator), it failed there on its first assertion.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_the_creator_held_every_seats_token() {
    let dir = TempDir::new("invites-regression");
    let app = TestApp::start(&dir.0).await;
    let created = create(&app, json!([{ "kind": "human" }, { "kind": "human" }])).await;

    // Nothing the creator was given acts for a seat it does not play.
    for secret in strings(&created.body) {
        assert!(
            viewer(&app, &created.id, &secret).await.is_err(),
            "the creator's answer holds a secret that acts for a seat: {}",
            created.body
        );
    }

    // Each person exchanges their invite for a token of their own.
    let mut tokens = Vec::new();
    for seat in 0..2 {
        let (status, joined) = join(
            &app,
            &created.id,
            json!({ "code": created.invite(seat), "name": format!("Person {seat}") }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{joined}");
        assert_eq!(joined["seat"], seat);
        let token = joined["token"].as_str().unwrap().to_owned();
        assert_eq!(
            viewer(&app, &created.id, &token).await,
            Ok(json!({ "seat": seat }))
        );
        tokens.push(token);
    }
    // Still nothing the creator holds acts for either seat, and the codes are spent.
    for secret in strings(&created.body) {
        assert!(viewer(&app, &created.id, &secret).await.is_err());
    }
    for seat in 0..2 {
        let (status, body) = join(&app, &created.id, json!({ "code": created.invite(seat) })).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_creator_gets_tokens_only_for_its_own_seats_and_codes_for_the_others() {
    let dir = TempDir::new("invites-create");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([
            { "kind": "human", "creator": true, "name": "Host" },
            { "kind": "human", "name": "Guest" },
            { "kind": "bot", "bot": "random" },
            { "kind": "human", "creator": true }
        ]),
    )
    .await;
    let seats = created.body["seats"].as_array().unwrap();
    let has = |seat: usize, field: &str| seats[seat].get(field).is_some();
    assert!(has(0, "token") && !has(0, "invite"));
    assert!(!has(1, "token") && has(1, "invite"));
    assert!(!has(2, "token") && !has(2, "invite"));
    assert!(has(3, "token") && !has(3, "invite"));
    // Hot-seat: the creator plays seats 0 and 3, each with its own token.
    assert_eq!(
        viewer(&app, &created.id, created.token(0)).await,
        Ok(json!({ "seat": 0 }))
    );
    assert_eq!(
        viewer(&app, &created.id, created.token(3)).await,
        Ok(json!({ "seat": 3 }))
    );
    // Neither the host token nor an invite code acts for a seat.
    assert!(viewer(&app, &created.id, created.host()).await.is_err());
    assert!(viewer(&app, &created.id, created.invite(1)).await.is_err());
    // Every secret is long and distinct.
    let secrets = [
        created.host(),
        created.token(0),
        created.invite(1),
        created.token(3),
    ];
    for secret in secrets {
        assert!(secret.len() >= 32, "{secret}");
    }
    let distinct: std::collections::BTreeSet<_> = secrets.iter().collect();
    assert_eq!(distinct.len(), secrets.len());
    // The database keeps digests only.
    let db = std::fs::read(dir.0.join("data").join("tenka.db")).unwrap();
    let wal = std::fs::read(dir.0.join("data").join("tenka.db-wal")).unwrap_or_default();
    for secret in secrets {
        for bytes in [&db, &wal] {
            assert!(
                !bytes
                    .windows(secret.len())
                    .any(|window| window == secret.as_bytes()),
                "a secret is stored as it is"
            );
        }
    }
    // A seat name that could disguise itself is refused, and no game is made.
    let before = app.call("GET", "/api/games", None, None).await.1;
    for name in ["", " ", "a\u{1b}[2Jb", "\u{202e}gnp.exe"] {
        let (status, body) = create_raw(&app, json!([{ "kind": "human", "name": name }])).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("bad-request")),
            "{name:?}"
        );
    }
    assert_eq!(app.call("GET", "/api/games", None, None).await.1, before);
}

async fn create_raw(app: &TestApp, seats: Value) -> (StatusCode, Value) {
    let mut seats = seats.as_array().unwrap().clone();
    seats.push(json!({ "kind": "bot", "bot": "random" }));
    app.post_game(json!({ "ruleset": RULESET.id, "map": RULESET.map, "seats": seats }))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invite_code_is_exchanged_once_for_a_fresh_seat_token() {
    let dir = TempDir::new("invites-join");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human", "name": "Guest" }]),
    )
    .await;
    let code = created.invite(1);

    // Bad requests change nothing: the code stays open.
    for (body, status, error) in [
        (
            json!({ "code": code, "name": "" }),
            StatusCode::BAD_REQUEST,
            "bad-request",
        ),
        (
            json!({ "code": code, "name": "a\u{7}b" }),
            StatusCode::BAD_REQUEST,
            "bad-request",
        ),
        (
            json!({ "code": code, "name": "x".repeat(65) }),
            StatusCode::BAD_REQUEST,
            "bad-request",
        ),
        (
            json!({ "code": code, "extra": 1 }),
            StatusCode::BAD_REQUEST,
            "bad-request",
        ),
        (
            json!({ "name": "Bo" }),
            StatusCode::BAD_REQUEST,
            "bad-request",
        ),
        (
            json!({ "code": "not-a-code" }),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            json!({ "code": created.token(0) }),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        (
            json!({ "code": created.host() }),
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
    ] {
        let (got, answer) = join(&app, &created.id, body.clone()).await;
        assert_eq!(
            (got, answer["error"].as_str()),
            (status, Some(error)),
            "{body}: {answer}"
        );
    }
    let (status, _) = join(&app, "nosuchgame", json!({ "code": code })).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(seats(&app, &created.id).await[1]["claimed"], false);

    let (status, joined) = join(&app, &created.id, json!({ "code": code, "name": "Bo" })).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    assert_eq!(
        (&joined["seat"], &joined["name"]),
        (&json!(1), &json!("Bo"))
    );
    let token = joined["token"].as_str().unwrap();
    assert_ne!(token, code, "the token is fresh, not the code");
    assert_eq!(
        viewer(&app, &created.id, token).await,
        Ok(json!({ "seat": 1 }))
    );
    let public = seats(&app, &created.id).await;
    assert_eq!(
        (&public[1]["claimed"], &public[1]["name"]),
        (&json!(true), &json!("Bo"))
    );

    // Used up: a second exchange is refused and changes nothing.
    let (status, again) = join(&app, &created.id, json!({ "code": code, "name": "Eve" })).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{again}");
    assert_eq!(seats(&app, &created.id).await, public);
    assert_eq!(
        viewer(&app, &created.id, token).await,
        Ok(json!({ "seat": 1 }))
    );

    // Without a name the seat keeps the name the creator gave it.
    let other = create(
        &app,
        json!([{ "kind": "human" }, { "kind": "human", "name": "Cy" }]),
    )
    .await;
    let (status, joined) = join(&app, &other.id, json!({ "code": other.invite(1) })).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    assert_eq!(joined["name"], "Cy");
    // A code opens only its own game.
    let (status, _) = join(&app, &created.id, json!({ "code": other.invite(0) })).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_exchanges_of_one_code_at_once_give_the_seat_to_one_person() {
    let dir = TempDir::new("invites-race");
    let app = Arc::new(TestApp::start(&dir.0).await);
    let created = create(&app, json!([{ "kind": "human" }, { "kind": "human" }])).await;
    let code = created.invite(0).to_owned();
    let attempts: Vec<_> = (0..8)
        .map(|_| {
            let (app, id, code) = (app.clone(), created.id.clone(), code.clone());
            tokio::spawn(async move { join(&app, &id, json!({ "code": code })).await })
        })
        .collect();
    let mut winners = Vec::new();
    for attempt in attempts {
        let (status, body) = attempt.await.unwrap();
        match status {
            StatusCode::OK => winners.push(body["token"].as_str().unwrap().to_owned()),
            StatusCode::FORBIDDEN => {}
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one exchange wins");
    assert_eq!(
        viewer(&app, &created.id, &winners[0]).await,
        Ok(json!({ "seat": 0 }))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claiming_gives_the_seat_a_fresh_token_and_retires_the_old_one() {
    let dir = TempDir::new("invites-claim");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }]),
    )
    .await;
    let old = created.token(0);
    let claim = |token: String, name: &str| {
        let body = json!({ "name": name });
        let app = &app;
        let uri = format!("/api/games/{}/claim", created.id);
        async move { app.call("POST", &uri, Some(&token), Some(body)).await }
    };
    let (status, bad) = claim(old.to_owned(), " ").await;
    assert_eq!(
        (status, bad["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad-request"))
    );
    assert_eq!(
        viewer(&app, &created.id, old).await,
        Ok(json!({ "seat": 0 })),
        "a refused claim changes nothing"
    );

    let (status, claimed) = claim(old.to_owned(), " Ann ").await;
    assert_eq!(status, StatusCode::OK, "{claimed}");
    assert_eq!(
        (&claimed["seat"], &claimed["name"]),
        (&json!(0), &json!("Ann"))
    );
    let fresh = claimed["token"].as_str().unwrap().to_owned();
    assert_ne!(fresh, old);
    assert_eq!(
        viewer(&app, &created.id, &fresh).await,
        Ok(json!({ "seat": 0 }))
    );
    assert_eq!(
        viewer(&app, &created.id, old).await,
        Err(StatusCode::FORBIDDEN)
    );
    let (status, _) = app.act(&created.id, old, 0, json!({ "choose": [1] })).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "the old token cannot act");
    let (status, _) = claim(old.to_owned(), "Mallory").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "nor claim again");
    // The other seat is untouched; the holder of the new token may rename (and rotate) again.
    assert_eq!(
        viewer(&app, &created.id, created.token(1)).await,
        Ok(json!({ "seat": 1 }))
    );
    let (status, renamed) = claim(fresh.clone(), "Anne").await;
    assert_eq!(status, StatusCode::OK, "{renamed}");
    assert_eq!(seats(&app, &created.id).await[0]["name"], "Anne");
    // A claimed seat is its person's: the creator can no longer reopen it.
    let (status, refused) = app
        .call(
            "POST",
            &format!("/api/games/{}/seats/0/invite", created.id),
            Some(created.host()),
            None,
        )
        .await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (StatusCode::CONFLICT, Some("conflict"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_creator_revokes_and_reissues_invites_of_unclaimed_seats_only() {
    let dir = TempDir::new("invites-manage");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([
            { "kind": "human", "creator": true },
            { "kind": "human" },
            { "kind": "bot", "bot": "random" },
            { "kind": "human" }
        ]),
    )
    .await;
    let id = &created.id;
    let invite_uri = |seat: u32| format!("/api/games/{id}/seats/{seat}/invite");
    let list = |token: Option<String>| {
        let app = &app;
        let uri = format!("/api/games/{id}/invites");
        async move { app.call("GET", &uri, token.as_deref(), None).await }
    };
    let open = |listing: &Value| -> Vec<u64> {
        listing
            .as_array()
            .unwrap()
            .iter()
            .filter(|seat| seat["invite_open"] == true)
            .map(|seat| seat["seat"].as_u64().unwrap())
            .collect()
    };
    let (status, listing) = list(Some(created.host().to_owned())).await;
    assert_eq!(status, StatusCode::OK, "{listing}");
    assert_eq!(open(&listing), vec![1, 3]);

    // Only the host token manages invites; nothing changes otherwise.
    for token in [
        None,
        Some(created.token(0)),
        Some(created.invite(1)),
        Some("nonsense"),
    ] {
        for method in ["POST", "DELETE"] {
            let (status, body) = app.call(method, &invite_uri(1), token, None).await;
            assert_eq!(
                (status, body["error"].as_str()),
                (StatusCode::FORBIDDEN, Some("forbidden")),
                "{body}"
            );
        }
        let (status, _) = list(token.map(str::to_owned)).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    let host = Some(created.host());
    let (status, body) = app.call("POST", &invite_uri(2), host, None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("bad-request")),
        "a bot's seat"
    );
    let (status, body) = app.call("DELETE", &invite_uri(9), host, None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::NOT_FOUND, Some("not-found"))
    );
    let (status, body) = app
        .call(
            "POST",
            &format!("/api/games/{id}/seats/x/invite"),
            host,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(open(&list(host.map(str::to_owned)).await.1), vec![1, 3]);

    // Revoked: the link is dead, and revoking again is harmless.
    let (status, body) = app.call("DELETE", &invite_uri(1), host, None).await;
    assert_eq!(
        (status, &body),
        (StatusCode::OK, &json!({ "seat": 1, "invite": null }))
    );
    let (status, _) = app.call("DELETE", &invite_uri(1), host, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(open(&list(host.map(str::to_owned)).await.1), vec![3]);
    let (status, _) = join(&app, id, json!({ "code": created.invite(1) })).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a revoked code opens nothing"
    );

    // Reissued: a new code works; the one before it no longer does.
    let (status, first) = app.call("POST", &invite_uri(3), host, None).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let (status, second) = app.call("POST", &invite_uri(3), host, None).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    for code in [created.invite(3), first["invite"].as_str().unwrap()] {
        let (status, _) = join(&app, id, json!({ "code": code })).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }
    let (status, joined) = join(&app, id, json!({ "code": second["invite"], "name": "Dee" })).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    assert_eq!(joined["seat"], 3);
    // Claimed by exchanging the code: the seat is the person's for good.
    for method in ["POST", "DELETE"] {
        let (status, body) = app.call(method, &invite_uri(3), host, None).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::CONFLICT, Some("conflict")),
            "{body}"
        );
    }
    assert_eq!(
        viewer(&app, id, joined["token"].as_str().unwrap()).await,
        Ok(json!({ "seat": 3 }))
    );

    // The creator's own unclaimed seat can be given away: its token stops working.
    let (status, given) = app.call("POST", &invite_uri(0), host, None).await;
    assert_eq!(status, StatusCode::OK, "{given}");
    assert_eq!(
        viewer(&app, id, created.token(0)).await,
        Err(StatusCode::FORBIDDEN)
    );
    let (status, joined) = join(&app, id, json!({ "code": given["invite"] })).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    assert_eq!(joined["seat"], 0);
}

/// Reads a stream's frames until it ends or `wait` passes; whether it ended.
async fn stream_ends_within(body: &mut Body, wait: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => return false,
            Ok(None) => return true,
            Ok(Some(frame)) => {
                frame.unwrap();
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_opens_with_a_single_use_ticket_and_never_a_token_in_the_url() {
    let dir = TempDir::new("invites-stream");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }]),
    )
    .await;
    let id = &created.id;
    let token = created.token(0);

    // A token in the URL is refused, wherever it is put.
    for what in ["view", "log", "stream"] {
        let (status, body) = app
            .call(
                "GET",
                &format!("/api/games/{id}/{what}?token={token}"),
                None,
                None,
            )
            .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("bad-request")),
            "{what}: {body}"
        );
    }

    let ticket = |token: Option<String>| {
        let app = &app;
        let uri = format!("/api/games/{id}/stream-ticket");
        async move { app.call("POST", &uri, token.as_deref(), None).await }
    };
    for bad in [
        None,
        Some(created.host().to_owned()),
        Some("nonsense".to_owned()),
    ] {
        let (status, body) = ticket(bad).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::FORBIDDEN, Some("forbidden"))
        );
    }
    let (status, issued) = ticket(Some(token.to_owned())).await;
    assert_eq!(status, StatusCode::OK, "{issued}");
    assert_eq!(issued["expires_in"], 30);
    let first = issued["ticket"].as_str().unwrap().to_owned();
    assert_ne!(first, token);
    let get = |uri: String, token: Option<&str>| {
        let mut request = Request::get(uri);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        app.router
            .clone()
            .oneshot(request.body(Body::empty()).unwrap())
    };
    // Not on other endpoints, not with a token besides, not for another game.
    let (status, _) = app
        .call(
            "GET",
            &format!("/api/games/{id}/view?ticket={first}"),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let response = get(
        format!("/api/games/{id}/stream?ticket={first}"),
        Some(token),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let other = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human" }]),
    )
    .await;
    let response = get(
        format!("/api/games/{}/stream?ticket={first}", other.id),
        None,
    )
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);

    // Once, as the seat: the seat's own secret comes through.
    let (status, _) = app.act(id, token, 0, json!({ "choose": [1] })).await;
    assert_eq!(status, StatusCode::OK);
    let response = get(
        format!("/api/games/{id}/stream?since=0&ticket={first}"),
        None,
    )
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body();
    let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(frame.data_ref().unwrap()).into_owned();
    assert!(text.contains("secret-0-"), "{text}");
    let response = get(format!("/api/games/{id}/stream?ticket={first}"), None)
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::FORBIDDEN,
        "a ticket works once"
    );

    // An expired ticket opens nothing.
    let stale = "ab".repeat(32);
    app.state
        .hub
        .storage()
        .insert_stream_ticket(
            &hex::encode(Sha256::digest(stale.as_bytes())),
            id,
            &hex::encode(Sha256::digest(token.as_bytes())),
            host::server::storage::now_millis() - 1,
        )
        .await
        .unwrap();
    let response = get(format!("/api/games/{id}/stream?ticket={stale}"), None)
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);

    // A ticket issued for a token that was replaced before use opens nothing.
    let (_, unused) = ticket(Some(token.to_owned())).await;
    let (status, claimed) = app
        .call(
            "POST",
            &format!("/api/games/{id}/claim"),
            Some(token),
            Some(json!({ "name": "Ann" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let response = get(
        format!(
            "/api/games/{id}/stream?ticket={}",
            unused["ticket"].as_str().unwrap()
        ),
        None,
    )
    .await
    .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // Headers still work for clients that can send them.
    let response = get(format!("/api/games/{id}/stream"), claimed["token"].as_str())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seats_stream_ends_when_its_token_is_replaced() {
    let dir = TempDir::new("invites-stream-end");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }]),
    )
    .await;
    let mut seat1 = open_stream(&app, &created.id, Some(created.token(1)), 0).await;
    let mut spectator = open_stream(&app, &created.id, None, 0).await;
    assert!(!stream_ends_within(&mut seat1, Duration::from_millis(200)).await);
    // The creator gives seat 1 away: whoever follows it with the old token hears no more.
    let (status, _) = app
        .call(
            "POST",
            &format!("/api/games/{}/seats/1/invite", created.id),
            Some(created.host()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        stream_ends_within(&mut seat1, Duration::from_secs(5)).await,
        "the seat's stream ended"
    );
    assert!(
        !stream_ends_within(&mut spectator, Duration::from_millis(300)).await,
        "a spectator's goes on"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_stored_before_invites_keep_their_tokens_and_claiming_retires_them() {
    let dir = TempDir::new("invites-legacy");
    let app = TestApp::start(&dir.0).await;
    let rulesets = app.rulesets().await;
    let ruleset_hash = listed_entry(&rulesets, RULESET.id)["hash"]
        .as_str()
        .unwrap()
        .to_owned();
    // A game as the old server stored it: every human seat's token digest, no host token, no
    // invites. The creator's browser (and the old invite links) hold both tokens.
    let tokens = ["1".repeat(64), "2".repeat(64)];
    let id = "0123456789abcdef";
    let seats: Vec<_> = tokens
        .iter()
        .enumerate()
        .map(|(seat, token)| host::server::storage::StoredSeat {
            seat: seat as u32,
            kind: "human".to_owned(),
            name: format!("Player {}", seat + 1),
            token_hash: Some(hex::encode(Sha256::digest(token.as_bytes()))),
            bot: None,
            claimed: false,
        })
        .collect();
    let stored = stored_game(id, ruleset_hash, [9; 32]);
    app.state
        .hub
        .storage()
        .create_game(&stored, &seats)
        .await
        .unwrap();

    assert_eq!(viewer(&app, id, &tokens[0]).await, Ok(json!({ "seat": 0 })));
    assert_eq!(viewer(&app, id, &tokens[1]).await, Ok(json!({ "seat": 1 })));
    // It has no host token: invites cannot be managed, by anyone.
    let (status, body) = app
        .call(
            "GET",
            &format!("/api/games/{id}/invites"),
            Some(&tokens[0]),
            None,
        )
        .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::FORBIDDEN, Some("forbidden"))
    );
    // The person at seat 1 claims it: the token the creator also holds stops working.
    let (status, claimed) = app
        .call(
            "POST",
            &format!("/api/games/{id}/claim"),
            Some(&tokens[1]),
            Some(json!({ "name": "Bo" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{claimed}");
    assert_eq!(
        viewer(&app, id, &tokens[1]).await,
        Err(StatusCode::FORBIDDEN)
    );
    assert_eq!(
        viewer(&app, id, claimed["token"].as_str().unwrap()).await,
        Ok(json!({ "seat": 1 }))
    );
    // The game plays on with the tokens of both eras.
    let (status, _) = app.act(id, &tokens[0], 0, json!({ "choose": [1] })).await;
    assert_eq!(status, StatusCode::OK);
}

/// A writer that keeps everything logged while the test records, to search it for secrets.
/// Being the process's global subscriber, it would otherwise go on keeping what every later
/// test logs (gigabytes, once components compile).
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>, Arc<std::sync::atomic::AtomicBool>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.1.load(std::sync::atomic::Ordering::Relaxed) {
            self.0.lock().unwrap().extend_from_slice(bytes);
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Everything a whole invite round logs at the most verbose level, failures included, holds
/// none of the secrets involved. The capture is the process's global subscriber (no other test
/// sets one): a subscriber for one thread only misses events whose call sites another test's
/// thread registered first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_reaches_the_servers_log() {
    static CAPTURED: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    let captured = CAPTURED.get_or_init(|| {
        let captured = Captured::default();
        let writer = captured.clone();
        // The server's own crates at their most verbose; not the compiler's (cranelift traces
        // every function it compiles, and no secret passes through it).
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(
                "trace,cranelift=off,cranelift_codegen=off,wasmtime=off,wasmtime_cranelift=off,\
                 wasmtime_environ=off,regalloc2=off,wasmparser=off",
            ))
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish()
            .try_init()
            .expect("no other test sets the global subscriber");
        captured
    });
    captured.1.store(true, std::sync::atomic::Ordering::Relaxed);

    let dir = TempDir::new("invites-log");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human" }, { "kind": "human" }]),
    )
    .await;
    let id = &created.id;
    let mut secrets: Vec<String> = strings(&created.body)
        .into_iter()
        .filter(|text| text.len() >= 32)
        .collect();
    let (_, joined) = join(&app, id, json!({ "code": created.invite(1), "name": "Bo" })).await;
    let (_, again) = join(&app, id, json!({ "code": created.invite(1) })).await;
    assert_eq!(again["error"], "forbidden");
    let token = joined["token"].as_str().unwrap().to_owned();
    let (_, claimed) = app
        .call(
            "POST",
            &format!("/api/games/{id}/claim"),
            Some(created.token(0)),
            Some(json!({ "name": "Ann" })),
        )
        .await;
    let (status, reissued) = app
        .call(
            "POST",
            &format!("/api/games/{id}/seats/2/invite"),
            Some(created.host()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{reissued}");
    let (_, ticket) = app
        .call(
            "POST",
            &format!("/api/games/{id}/stream-ticket"),
            Some(&token),
            None,
        )
        .await;
    let ticket = ticket["ticket"].as_str().unwrap().to_owned();
    // A stream never ends by itself: open it, read its first update, let it go.
    let response = app
        .router
        .clone()
        .oneshot(
            Request::get(format!("/api/games/{id}/stream?ticket={ticket}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body();
    tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .unwrap();
    drop(body);
    let _ = app
        .call(
            "GET",
            &format!("/api/games/{id}/view?token={token}"),
            None,
            None,
        )
        .await;
    let _ = app.view(id, Some(created.token(0))).await;
    secrets.extend([token, ticket]);
    secrets.extend(
        strings(&claimed)
            .into_iter()
            .filter(|text| text.len() >= 32),
    );
    secrets.extend(
        strings(&reissued)
            .into_iter()
            .filter(|text| text.len() >= 32),
    );
    drop(app);

    captured
        .1
        .store(false, std::sync::atomic::Ordering::Relaxed);
    let log =
        String::from_utf8_lossy(&std::mem::take(&mut *captured.0.lock().unwrap())).into_owned();
    // The capture works: the server says what happened to the seats (without a secret).
    assert!(log.contains("seat 1 taken with its invite"), "{log}");
    assert!(log.contains("seat 2 has a new invite"), "{log}");
    assert!(log.contains("seat 0 claimed"), "{log}");
    for secret in &secrets {
        assert!(!log.contains(secret.as_str()), "a secret was logged");
    }
}

/// Finding 3 of issue 23: when the answer to a join was lost (a dropped connection, a server
/// killed after the commit), the code was spent (403), the creator could neither reissue nor
/// revoke the claimed seat's invite (409) nor hand it to a bot, and the game could never
/// finish. Now a retry with the same key gets the same token back, and the creator can reopen
/// the seat or hand it to a bot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_lost_answer_to_join_locked_the_seat_for_ever() {
    let dir = TempDir::new("invites-lost-join");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human", "name": "Ben" }]),
    )
    .await;
    let code = created.invite(1);
    let key = "retry-key-0123456789abcdef";
    let (status, joined) = join(
        &app,
        &created.id,
        json!({ "code": code, "name": "Ben", "idempotency_key": key }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let token = joined["token"].as_str().unwrap().to_owned();
    // The answer is lost; the browser retries with the same code and key: same seat, same token.
    let (status, again) = join(
        &app,
        &created.id,
        json!({ "code": code, "name": "Ben", "idempotency_key": key }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again, joined, "a retry gets the same answer");
    assert_eq!(
        viewer(&app, &created.id, &token).await,
        Ok(json!({ "seat": 1 }))
    );
    // Another key, or none, gets nothing: the code is spent.
    for body in [
        json!({ "code": code, "idempotency_key": "another-key-0123456789" }),
        json!({ "code": code }),
    ] {
        let (status, refused) = join(&app, &created.id, body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    }
    let (status, refused) = join(
        &app,
        &created.id,
        json!({ "code": code, "idempotency_key": "short" }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");

    // Say the retry never came: the creator reopens the claimed seat with a new invite; the
    // token given out stops working, and so does a late retry of the lost join.
    let reopen = format!("/api/games/{}/seats/1/reopen", created.id);
    let (status, refused) = app.call("POST", &reopen, Some(&token), None).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "only the host reopens: {refused}"
    );
    let (status, reopened) = app.call("POST", &reopen, Some(created.host()), None).await;
    assert_eq!(status, StatusCode::OK, "{reopened}");
    assert_eq!(
        viewer(&app, &created.id, &token).await,
        Err(StatusCode::FORBIDDEN)
    );
    let (status, _) = join(
        &app,
        &created.id,
        json!({ "code": code, "idempotency_key": key }),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "the old receipt opens nothing"
    );
    let seat = &seats(&app, &created.id).await[1];
    assert_eq!(seat["claimed"], false, "{seat}");
    let (status, rejoined) = join(
        &app,
        &created.id,
        json!({ "code": reopened["invite"], "name": "Ben" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{rejoined}");
    let fresh = rejoined["token"].as_str().unwrap();
    assert_eq!(
        viewer(&app, &created.id, fresh).await,
        Ok(json!({ "seat": 1 }))
    );
    // A bot's seat and a seat the game lacks cannot be reopened.
    let (status, _) = app
        .call(
            "POST",
            &format!("/api/games/{}/seats/7/reopen", created.id),
            Some(created.host()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// The creator hands a seat whose person does not move to a bot, so the game goes on; the
/// person takes it back with the seat's own token. Another seat's token cannot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_the_host_could_not_hand_a_stalled_seat_to_a_bot() {
    let dir = TempDir::new("invites-host-bot");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human", "name": "Ben" }]),
    )
    .await;
    let (status, joined) = join(&app, &created.id, json!({ "code": created.invite(1) })).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let ben = joined["token"].as_str().unwrap().to_owned();
    let bot = format!("/api/games/{}/seats/1/bot", created.id);
    let (status, _) = app
        .call(
            "POST",
            &bot,
            Some(created.token(0)),
            Some(json!({ "bot": "random" })),
        )
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a seat token acts only for its own seat"
    );
    let (status, handed) = app
        .call(
            "POST",
            &bot,
            Some(created.host()),
            Some(json!({ "bot": "random" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{handed}");
    // The game goes on: the creator plays all three rounds; the bot answers for Ben.
    for _ in 0..3 {
        let view = app.wait_for_turn(&created.id, created.token(0)).await;
        let (status, body) = app
            .act(
                &created.id,
                created.token(0),
                &view["version"],
                json!({ "choose": [0] }),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let view = app.wait_for_turn(&created.id, created.token(0)).await;
    assert_eq!(view["status"], "finished", "{view}");
    // The seat is still Ben's: his token reads as seat 1.
    assert_eq!(
        viewer(&app, &created.id, &ben).await,
        Ok(json!({ "seat": 1 }))
    );
}

/// A claim whose answer was lost, retried with the same key and the old token, gets the same
/// new token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_lost_answer_to_a_claim_locked_the_seat() {
    let dir = TempDir::new("invites-lost-claim");
    let app = TestApp::start(&dir.0).await;
    let created = create(
        &app,
        json!([{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }]),
    )
    .await;
    let old = created.token(1);
    let uri = format!("/api/games/{}/claim", created.id);
    let body = json!({ "name": "Cy", "idempotency_key": "claim-key-0123456789abcdef" });
    let (status, claimed) = app.call("POST", &uri, Some(old), Some(body.clone())).await;
    assert_eq!(status, StatusCode::OK, "{claimed}");
    let (status, again) = app.call("POST", &uri, Some(old), Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again, claimed);
    let (status, _) = app
        .call(
            "POST",
            &uri,
            Some(old),
            Some(json!({ "name": "Cy", "idempotency_key": "other-key-0123456789abcdef" })),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let token = claimed["token"].as_str().unwrap();
    assert_eq!(
        viewer(&app, &created.id, token).await,
        Ok(json!({ "seat": 1 }))
    );
}
