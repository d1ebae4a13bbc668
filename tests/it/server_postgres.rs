//! Two server processes on one PostgreSQL database serve the same game consistently: actions
//! made through either reach the event streams of both, and a race on the same move is accepted
//! exactly once. The test installs Debian's `postgresql` if it is missing and runs a throw-away
//! cluster of its own.

use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use serde_json::{Value, json};

pub use crate::postgres::Cluster;
use crate::server_support::{
    RULESET, ServerProcess, TempDir, every_seat_token, http, http_act, http_view, listed_entry,
    read_stream, stored_game,
};

fn view(addr: &str, game: &str, token: &str) -> Value {
    let (status, view) = http_view(addr, game, Some(token)).unwrap();
    assert_eq!(status, 200, "{view}");
    view
}

fn versions_seen(updates: &[Value]) -> Vec<u64> {
    updates
        .iter()
        .flat_map(|update| {
            update["log"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|entry| entry["version"].as_u64())
        })
        .collect()
}

/// Ruleset components a game was started on are kept once per hash, byte for byte (the games
/// pinned to them load them back after their file is gone).
fn keeps_components_by_hash(url: &str) {
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let storage = host::server::storage::Storage::open(Some(url), Path::new("unused"))
            .await
            .unwrap();
        let bytes: Vec<u8> = (0..=255).collect();
        storage.keep_component("h1", "r", &bytes).await.unwrap();
        storage.keep_component("h1", "r", b"other").await.unwrap();
        assert_eq!(storage.component("h1").await.unwrap(), Some(bytes));
        assert_eq!(storage.component("h2").await.unwrap(), None);
    });
}

#[test]
fn two_servers_on_one_postgres_database_share_games_and_accept_a_raced_move_once() {
    let cluster = Cluster::start();
    keeps_components_by_hash(&cluster.url);
    let dirs = [TempDir::new("pg-a"), TempDir::new("pg-b")];
    let a = ServerProcess::start(&dirs[0].0, Some(&cluster.url));
    let b = ServerProcess::start(&dirs[1].0, Some(&cluster.url));

    let body = json!({ "ruleset": RULESET.id, "map": RULESET.map, "options": { "rounds": 4 }, "seats": [{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }, { "kind": "human", "creator": true }] });
    let (status, created) = http(&a.addr, "POST", "/api/games", None, Some(&body)).unwrap();
    assert_eq!(status, 201, "{created}");
    let game = created["id"].as_str().unwrap().to_owned();
    let tokens = every_seat_token(&created);
    // Server B knows the game made through A.
    assert_eq!(view(&b.addr, &game, &tokens[0])["version"], 0);

    // A spectator stream on each server.
    let total = 12; // 4 rounds of 3 seats
    let streams: Vec<_> = [&a.addr, &b.addr]
        .into_iter()
        .map(|addr| {
            let (addr, game) = (addr.clone(), game.clone());
            std::thread::spawn(move || {
                read_stream(
                    &addr,
                    &format!("/api/games/{game}/stream?since=0"),
                    Duration::from_secs(60),
                    |updates| versions_seen(updates).len() >= total,
                )
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));

    let servers = [&a.addr, &b.addr];
    let mut version = 0u64;
    let mut races = 0;
    while version < total as u64 {
        let round_start = version;
        for (seat, token) in tokens.iter().enumerate() {
            let action = json!({ "version": version, "action": { "choose": [seat as u32 % 3] } });
            if seat == 1 {
                // Seat 1 sends the same move through both servers at once.
                let barrier = Arc::new(Barrier::new(2));
                let racers: Vec<_> = servers
                    .iter()
                    .map(|addr| {
                        let (addr, game, token, action, barrier) = (
                            addr.to_string(),
                            game.clone(),
                            token.clone(),
                            action.clone(),
                            barrier.clone(),
                        );
                        std::thread::spawn(move || {
                            barrier.wait();
                            http_act(&addr, &game, &token, &action).unwrap()
                        })
                    })
                    .collect();
                let answers: Vec<(u16, Value)> = racers
                    .into_iter()
                    .map(|racer| racer.join().unwrap())
                    .collect();
                let accepted = answers.iter().filter(|(status, _)| *status == 200).count();
                assert_eq!(
                    accepted, 1,
                    "exactly one of the raced moves is accepted: {answers:?}"
                );
                assert!(
                    answers
                        .iter()
                        .all(|(status, _)| *status == 200 || *status == 409 || *status == 422),
                    "the loser is told the game moved on: {answers:?}"
                );
                races += 1;
            } else {
                // The others alternate between the servers.
                let addr = servers[(seat + round_start as usize) % 2];
                let (status, answer) = http_act(addr, &game, token, &action).unwrap();
                assert_eq!(status, 200, "{answer}");
            }
            version += 1;
            // Both servers agree on the version before the next move.
            for addr in servers {
                let deadline = std::time::Instant::now() + Duration::from_secs(10);
                while view(addr, &game, &tokens[0])["version"].as_u64() != Some(version) {
                    assert!(
                        std::time::Instant::now() < deadline,
                        "server {addr} never reached version {version}"
                    );
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
    }
    assert_eq!(races, 4);
    for stream in streams {
        let seen = versions_seen(&stream.join().unwrap());
        assert_eq!(
            seen,
            (1..=total as u64).collect::<Vec<_>>(),
            "each stream saw every action once, in order"
        );
    }
    let (_, log) = http(
        &b.addr,
        "GET",
        &format!("/api/games/{game}/log"),
        None,
        None,
    )
    .unwrap();
    assert_eq!(
        log.as_array().unwrap().len(),
        total,
        "no raced move was stored twice"
    );
    assert_eq!(view(&a.addr, &game, &tokens[2])["status"], "finished");
    invites_hold_across_two_servers(&a.addr, &b.addr, &cluster.url);
    drop((a, b));
}

/// The status of `GET /view` for `token` on `addr`, once it equals `want` (the other server
/// learns of a seat change by notification, a moment later); fails after ten seconds.
fn await_view_status(addr: &str, game: &str, token: &str, want: u16) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = http_view(addr, game, Some(token)).unwrap();
        if status == want {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{addr} still answers {status}: {body}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Invite codes, stream tickets and token changes on PostgreSQL, with two server processes: a
/// code works once whichever server takes it, a ticket from one server opens the other's stream,
/// and a token replaced through one server stops working on the other. A game stored without a
/// host token (as before invites) keeps its tokens.
fn invites_hold_across_two_servers(a: &str, b: &str, url: &str) {
    let body = json!({ "ruleset": RULESET.id, "map": RULESET.map, "seats": [{ "kind": "human", "creator": true }, { "kind": "human" }, { "kind": "human" }] });
    let (status, created) = http(a, "POST", "/api/games", None, Some(&body)).unwrap();
    assert_eq!(status, 201, "{created}");
    let game = created["id"].as_str().unwrap();
    let host = created["host_token"].as_str().unwrap();
    let own = created["seats"][0]["token"].as_str().unwrap();
    let join = |addr: &str, code: &Value| {
        http(
            addr,
            "POST",
            &format!("/api/games/{game}/join"),
            None,
            Some(&json!({ "code": code, "name": "Bo" })),
        )
        .unwrap()
    };

    let (status, joined) = join(b, &created["seats"][1]["invite"]);
    assert_eq!(status, 200, "{joined}");
    let (status, again) = join(a, &created["seats"][1]["invite"]);
    assert_eq!(status, 403, "a code works once, on any server: {again}");
    let token = joined["token"].as_str().unwrap();
    await_view_status(a, game, token, 200);

    // A ticket from server A opens the stream on server B, once.
    let (status, ticket) = http(
        a,
        "POST",
        &format!("/api/games/{game}/stream-ticket"),
        Some(token),
        None,
    )
    .unwrap();
    assert_eq!(status, 200, "{ticket}");
    let path = format!(
        "/api/games/{game}/stream?since=0&ticket={}",
        ticket["ticket"].as_str().unwrap()
    );
    let updates = read_stream(b, &path, Duration::from_secs(10), |updates| {
        !updates.is_empty()
    });
    assert_eq!(updates.len(), 1, "the stream opened with the ticket");
    let (status, _) = http(b, "GET", &path, None, None).unwrap();
    assert_eq!(status, 403, "a spent ticket opens nothing");

    // Revoked through A, refused through B; claimed through B, the old token dies on A.
    let (status, _) = http(
        a,
        "DELETE",
        &format!("/api/games/{game}/seats/2/invite"),
        Some(host),
        None,
    )
    .unwrap();
    assert_eq!(status, 200);
    let (status, _) = join(b, &created["seats"][2]["invite"]);
    assert_eq!(status, 403);
    await_view_status(a, game, own, 200);
    let (status, claimed) = http(
        b,
        "POST",
        &format!("/api/games/{game}/claim"),
        Some(own),
        Some(&json!({ "name": "Ann" })),
    )
    .unwrap();
    assert_eq!(status, 200, "{claimed}");
    // At once: server A asks the database, not its copy of the seats, which learns of the
    // change only when the notification arrives.
    let (status, _) = http_view(a, game, Some(own)).unwrap();
    assert_eq!(
        status, 403,
        "a replaced token stops working on the other server at once"
    );
    await_view_status(a, game, claimed["token"].as_str().unwrap(), 200);

    // A game stored as before invites: its tokens work, nobody manages its invites.
    let (_, rulesets) = http(a, "GET", "/api/rulesets", None, None).unwrap();
    let ruleset_hash = listed_entry(&rulesets, RULESET.id)["hash"]
        .as_str()
        .unwrap()
        .to_owned();
    let legacy = "4e4e4e4e4e4e4e4e".to_owned();
    let legacy_token = "5".repeat(64);
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        use host::server::storage::{Storage, StoredSeat};
        use sha2::{Digest, Sha256};
        let storage = Storage::open(Some(url), Path::new("unused")).await.unwrap();
        let seats: Vec<StoredSeat> = (0..2)
            .map(|seat| StoredSeat {
                seat,
                kind: "human".to_owned(),
                name: format!("Player {}", seat + 1),
                token_hash: (seat == 0)
                    .then(|| hex::encode(Sha256::digest(legacy_token.as_bytes()))),
                bot: None,
                claimed: false,
            })
            .collect();
        let stored = stored_game(&legacy, ruleset_hash, [3; 32]);
        storage.create_game(&stored, &seats).await.unwrap();
    });
    await_view_status(b, &legacy, &legacy_token, 200);
    let (status, _) = http(
        b,
        "GET",
        &format!("/api/games/{legacy}/invites"),
        Some(&legacy_token),
        None,
    )
    .unwrap();
    assert_eq!(status, 403);
}

/// Two in-process servers on one database with no change listener between them: every
/// notification is missed, as it is while a listener reconnects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_missed_notification_left_another_servers_view_stale() {
    let cluster = Cluster::start();
    let dir_a = TempDir::new("pg-missed-a");
    let dir_b = TempDir::new("pg-missed-b");
    let a = crate::server_support::TestApp::start_with(&dir_a.0, Some(&cluster.url), 1000).await;
    let b = crate::server_support::TestApp::start_with(&dir_b.0, Some(&cluster.url), 1000).await;
    let (game, tokens) = a.create(&[None, None], json!({})).await;
    let (_, before) = b.view(&game, None).await;
    assert_eq!(before["version"], 0, "{before}");

    let (status, moved) = a
        .act(&game, &tokens[0].1, 0, json!({ "choose": [0] }))
        .await;
    assert_eq!(status, axum::http::StatusCode::OK, "{moved}");

    // The second server never heard of the move, yet shows it: the database says what is current.
    let (_, after) = b.view(&game, None).await;
    assert_eq!(after["version"], 1, "{after}");
    assert_eq!(after["state"]["planned"], json!([true, false]), "{after}");
    // And it accepts the next move against that version.
    let (status, moved) = b
        .act(&game, &tokens[1].1, 1, json!({ "choose": [1] }))
        .await;
    assert_eq!(status, axum::http::StatusCode::OK, "{moved}");
}
