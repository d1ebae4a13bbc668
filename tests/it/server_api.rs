//! The game server's HTTP API, driven in-process as a browser would: rulesets, creating and
//! playing games against bots, errors, secrecy, live updates and restarts.

use std::collections::BTreeSet;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tower::ServiceExt as _;

use crate::server_support::{
    RULESET, SHOGUN, TempDir, TestApp, TestRuleset, answer_rng, listed_entry, random_answer,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rulesets_maps_catalogues_and_the_openapi_document_are_served() {
    let dir = TempDir::new("api-rulesets");
    let app = TestApp::start(&dir.0).await;

    let rulesets = app.rulesets().await;
    let ruleset = listed_entry(&rulesets, RULESET.id);
    assert_eq!(ruleset["maps"][0]["id"], RULESET.map);
    assert_eq!(ruleset["maps"][0]["valid"], true);
    assert!(
        !ruleset["options"].as_array().unwrap().is_empty(),
        "option schemas are listed"
    );

    let (status, map) = app
        .call(
            "GET",
            &format!("/api/rulesets/{}/maps/{}", RULESET.id, RULESET.map),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(map["toml"], RULESET.map_toml);
    assert_eq!(
        map["hash"],
        hex::encode(Sha256::digest(RULESET.map_toml.as_bytes()))
    );

    let (status, catalogue) = app
        .call(
            "GET",
            &format!("/api/rulesets/{}/catalogue/en", RULESET.id),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(catalogue.as_object().is_some_and(|keys| !keys.is_empty()));

    let (status, spec) = app.call("GET", "/api/openapi.json", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(spec["openapi"], "3.1.0");
    for path in [
        "/api/rulesets",
        "/api/rulesets/{id}/catalogue/{lang}",
        "/api/rulesets/{id}/maps/{map}",
        "/api/rulesets/{id}/editor",
        "/api/games",
        "/api/games/{id}",
        "/api/games/{id}/claim",
        "/api/games/{id}/join",
        "/api/games/{id}/invites",
        "/api/games/{id}/seats/{seat}/invite",
        "/api/games/{id}/stream-ticket",
        "/api/games/{id}/view",
        "/api/games/{id}/actions",
        "/api/games/{id}/log",
        "/api/games/{id}/stream",
        "/api/games/{id}/seats/{seat}/bot",
        "/api/games/{id}/record",
        "/api/socket",
        "/api/lab",
        "/api/lab/{id}",
        "/api/lab/{id}/report",
        "/api/openapi.json",
    ] {
        assert!(spec["paths"].get(path).is_some(), "{path} is described");
    }

    // Without a web client folder the server says so instead of failing.
    let (status, _) = app.call("GET", "/", None, None).await;
    assert_eq!(status, StatusCode::OK);
}

/// The ids of `GET /api/rulesets`, in the order listed.
async fn listed_ids(app: &TestApp) -> Vec<String> {
    app.rulesets()
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|ruleset| ruleset["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operators_default_ruleset_is_listed_first_and_stays_first_after_a_reload() {
    let dir = TempDir::new("api-default-ruleset");
    let app = TestApp::start(&dir.0).await;
    let ids = listed_ids(&app).await;
    assert!(ids.len() >= 2, "two rulesets to order: {ids:?}");
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "without a default, in id order");

    // The lobby opens on the first listed ruleset: the operator's choice.
    let wanted = ids.last().unwrap().clone();
    app.state.offer.set_default_ruleset(&wanted);
    let listed = listed_ids(&app).await;
    assert_eq!(listed[0], wanted);
    assert_eq!(listed.len(), ids.len(), "no ruleset is lost");
    app.state.offer.reload().await.unwrap();
    assert_eq!(listed_ids(&app).await[0], wanted, "a reload keeps it first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_human_plays_a_five_seat_game_against_four_bots_to_the_end_and_exports_it() {
    play_against_bots(
        &RULESET,
        &[
            Some("random"),
            Some("search"),
            Some("random"),
            Some("random"),
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_human_plays_five_seat_shogun_against_four_bots_to_the_end_and_exports_it() {
    play_against_bots(&SHOGUN, &[Some("random"); 4]).await;
}

/// Creates a game of `ruleset` with one human (seat 0) and `bots`, plays the human through the
/// API to the end, exports the record and replays it.
async fn play_against_bots(ruleset: &TestRuleset, bots: &[Option<&str>]) {
    let dir = TempDir::new("api-full-game");
    let app = TestApp::start(&dir.0).await;
    let seats: Vec<Option<&str>> = [None].into_iter().chain(bots.iter().copied()).collect();
    let (game, tokens) = app.create_game(ruleset, &seats, json!({})).await;
    assert_eq!(tokens.len(), 1, "only the human seat gets a token");
    let (seat, old_token) = &tokens[0];

    let (status, claimed) = app
        .call(
            "POST",
            &format!("/api/games/{game}/claim"),
            Some(old_token),
            Some(json!({ "name": "Ann" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (&claimed["seat"], &claimed["name"]),
        (&json!(seat), &json!("Ann"))
    );
    // Claiming gives the seat a fresh token.
    let token = &claimed["token"].as_str().unwrap().to_owned();
    assert_ne!(token, old_token);

    let mut rng = answer_rng(1);
    let mut moves = 0;
    let view = loop {
        let view = app.wait_for_turn(&game, token).await;
        if view["status"] == "finished" {
            break view;
        }
        if moves == 0 && view["version"].as_u64() > Some(0) {
            // A running game's past may still hide what its present does not: no replay yet.
            let (status, refused) = app
                .call(
                    "GET",
                    &format!("/api/games/{game}/view?at=0"),
                    Some(token),
                    None,
                )
                .await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
        }
        assert!(
            view["pending"]
                .as_array()
                .unwrap()
                .iter()
                .all(|decision| decision["seat"] == *seat)
        );
        let (status, answer) = app.act_randomly(&game, token, &view, &mut rng).await;
        // Bots answer their simultaneous decisions at the same time: a stale version is
        // answered with 409 and the client looks again, as the web client does; a random
        // answer may break a rule (422), and the client picks another.
        if status == StatusCode::UNPROCESSABLE_ENTITY {
            assert_eq!(answer["error"], "rejected", "{answer}");
            continue;
        }
        if status == StatusCode::CONFLICT {
            assert!(
                answer["version"].as_u64() > view["version"].as_u64(),
                "{answer}"
            );
            continue;
        }
        assert_eq!(status, StatusCode::OK, "{answer}");
        // Bots may have moved since the view: an answer to the seat's unchanged decision still
        // lands, after them.
        assert!(
            answer["version"].as_u64().unwrap() > view["version"].as_u64().unwrap(),
            "{answer}"
        );
        moves += 1;
    };
    assert!(moves > 0, "the human played");
    assert_eq!(
        view["result"]["placings"].as_array().unwrap().len(),
        seats.len()
    );
    let seed = view["seed"]
        .as_str()
        .expect("the seed is revealed at the end");
    assert_eq!(
        view["seed_commitment"].as_str().unwrap(),
        hex::encode(Sha256::digest(hex::decode(seed).unwrap())),
        "the revealed seed matches the commitment shown from the start"
    );

    let (status, listed) = app.game(&game).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(listed["status"], "finished");
    assert_eq!(listed["seats"][*seat as usize]["name"], "Ann");

    let (status, record) = app
        .call("GET", &format!("/api/games/{game}/record"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{record}");
    let (_, log) = app
        .call("GET", &format!("/api/games/{game}/log"), None, None)
        .await;
    let version = view["version"].as_u64().unwrap();
    assert_eq!(
        log.as_array().unwrap().len() as u64,
        version,
        "one log entry per action"
    );
    crate::server_support::assert_record_replays(ruleset, &record, &view);

    // The replay viewer steps through the finished game's past boards.
    let (status, first) = app
        .call("GET", &format!("/api/games/{game}/view?at=1"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["version"], 1);
    assert!(
        first["parts"][0]["svg"]
            .as_str()
            .is_some_and(|svg| svg.contains("<svg"))
    );
    assert_ne!(
        first["state"], view["state"],
        "the board after one action is not the final one"
    );
    let (_, spectator_final) = app.view(&game, None).await;
    let (_, last) = app
        .call(
            "GET",
            &format!("/api/games/{game}/view?at={}", version - 1),
            None,
            None,
        )
        .await;
    assert_eq!(last["version"], version - 1);
    assert_ne!(last["parts"][0]["svg"], Value::Null);
    assert_eq!(spectator_final["version"], version);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_clear_errors_and_change_nothing() {
    let dir = TempDir::new("api-errors");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 2 })).await;
    let (_, token) = &tokens[0];
    let (_, other) = &tokens[1];
    let actions = format!("/api/games/{game}/actions");

    let expect = |status: StatusCode, code: &str, (got, body): (StatusCode, Value)| {
        assert_eq!(got, status, "{body}");
        assert_eq!(body["error"], code, "{body}");
        assert!(
            body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
    };

    // Malformed JSON, a wrong shape, a wrong media type and an oversized body.
    let raw = |body: &str, content_type: &str| {
        Request::post(&actions)
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", content_type)
            .body(Body::from(body.to_owned()))
            .unwrap()
    };
    expect(
        StatusCode::BAD_REQUEST,
        "bad-request",
        app.send(raw("{not json", "application/json")).await,
    );
    expect(
        StatusCode::BAD_REQUEST,
        "bad-request",
        app.send(raw("{\"version\":0}", "application/json")).await,
    );
    expect(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported-media-type",
        app.send(raw("{}", "text/plain")).await,
    );
    let huge = format!(
        "{{\"version\":0,\"action\":{{\"choose\":[{}0]}}}}",
        "0,".repeat(40_000)
    );
    expect(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload-too-large",
        app.send(raw(&huge, "application/json")).await,
    );

    // Unknown ids, missing and wrong tokens.
    let choose = json!({ "version": 0, "action": { "choose": [0] } });
    expect(
        StatusCode::NOT_FOUND,
        "not-found",
        app.call(
            "POST",
            "/api/games/nosuchgame/actions",
            Some(token),
            Some(choose.clone()),
        )
        .await,
    );
    expect(
        StatusCode::NOT_FOUND,
        "not-found",
        app.call("GET", "/api/games/../../etc/view", None, None)
            .await,
    );
    expect(
        StatusCode::NOT_FOUND,
        "not-found",
        app.call("GET", "/api/no-such-endpoint", None, None).await,
    );
    expect(
        StatusCode::FORBIDDEN,
        "forbidden",
        app.call("POST", &actions, None, Some(choose.clone())).await,
    );
    expect(
        StatusCode::FORBIDDEN,
        "forbidden",
        app.call("POST", &actions, Some("0123abcd"), Some(choose.clone()))
            .await,
    );
    expect(
        StatusCode::FORBIDDEN,
        "forbidden",
        app.view(&game, Some("wrong")).await,
    );
    // A token acts only for its seat.
    expect(
        StatusCode::FORBIDDEN,
        "forbidden",
        app.call(
            "POST",
            &format!("/api/games/{game}/seats/1/bot"),
            Some(token),
            Some(json!({ "bot": "random" })),
        )
        .await,
    );

    // Illegal actions: out of range, the wrong kind, a stale version, and acting twice.
    expect(
        StatusCode::UNPROCESSABLE_ENTITY,
        "rejected",
        app.act(&game, token, 0, json!({ "choose": [9] })).await,
    );
    expect(
        StatusCode::UNPROCESSABLE_ENTITY,
        "rejected",
        app.act(&game, token, 0, json!({ "number": 1 })).await,
    );
    let (status, stale) = app.act(&game, token, 5, json!({ "choose": [0] })).await;
    expect(StatusCode::CONFLICT, "stale", (status, stale.clone()));
    assert_eq!(
        stale["version"], 0,
        "a stale answer says the current version"
    );

    // Nothing above changed the game.
    let (_, view) = app.view(&game, Some(token)).await;
    assert_eq!(view["version"], 0);
    let (_, log) = app
        .call("GET", &format!("/api/games/{game}/log"), None, None)
        .await;
    assert_eq!(log, json!([]));

    let (status, _) = app
        .call("POST", &actions, Some(token), Some(choose.clone()))
        .await;
    assert_eq!(status, StatusCode::OK);
    expect(
        StatusCode::CONFLICT,
        "stale",
        app.call("POST", &actions, Some(token), Some(choose)).await,
    );
    expect(
        StatusCode::UNPROCESSABLE_ENTITY,
        "rejected",
        app.act(&game, token, 1, json!({ "choose": [0] })).await,
    );
    // The other seat still plays on.
    let (status, answer) = app.act(&game, other, 1, json!({ "choose": [2] })).await;
    assert_eq!(status, StatusCode::OK, "{answer}");

    // A bad setup.
    let create = |body: Value| app.call("POST", "/api/games", None, Some(body));
    expect(
        StatusCode::NOT_FOUND,
        "not-found",
        create(json!({ "ruleset": "nope", "map": "x", "seats": [] })).await,
    );
    expect(
        StatusCode::BAD_REQUEST,
        "bad-request",
        create(
            json!({ "ruleset": RULESET.id, "map": RULESET.map, "seats": [{ "kind": "human" }] }),
        )
        .await,
    );
    expect(
        StatusCode::BAD_REQUEST,
        "bad-request",
        create(json!({ "ruleset": RULESET.id, "map": RULESET.map, "seats": [{ "kind": "bot", "bot": "genius" }, { "kind": "human" }] })).await,
    );
    expect(
        StatusCode::BAD_REQUEST,
        "bad-request",
        create(json!({ "ruleset": RULESET.id, "map": RULESET.map, "options": { "no-such-option": 1 }, "seats": [{ "kind": "human" }, { "kind": "human" }] })).await,
    );
    expect(
        StatusCode::UNPROCESSABLE_ENTITY,
        "bad-setup",
        create(json!({ "ruleset": RULESET.id, "map_toml": "this is = = not toml", "seats": [{ "kind": "human" }, { "kind": "human" }] })).await,
    );
    let (_, games) = app.call("GET", "/api/games", None, None).await;
    assert_eq!(
        games.as_array().unwrap().len(),
        1,
        "no failed setup left a game behind"
    );
}

/// Everything a seat or spectator receives while a game runs.
#[derive(Default)]
struct Seen {
    texts: Vec<String>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_seat_ever_receives_another_seats_secrets() {
    let dir = TempDir::new("api-secrecy");
    let app = TestApp::start(&dir.0).await;
    for round in 0..12u8 {
        let seats = 2 + (round as usize % 4);
        let (game, tokens) = app
            .create(
                &vec![None; seats],
                json!({ "rounds": 2 + round as i64 % 3 }),
            )
            .await;
        let mut seen: Vec<Seen> = (0..=seats).map(|_| Seen::default()).collect();
        let mut rng = answer_rng(round);
        let mut version = 0;
        loop {
            let mut finished = false;
            // Every seat and a spectator (the last entry) looks at everything it can read.
            for (index, token) in tokens
                .iter()
                .map(|(_, token)| Some(token.as_str()))
                .chain([None])
                .enumerate()
            {
                for what in ["view", "log", "record"] {
                    let (_, body) = app
                        .call("GET", &format!("/api/games/{game}/{what}"), token, None)
                        .await;
                    if what == "view" {
                        finished = body["status"] == "finished";
                    }
                    if !finished {
                        seen[index].texts.push(body.to_string());
                    }
                }
                if !finished {
                    seen[index]
                        .texts
                        .push(stream_snapshot(&app, &game, token).await);
                }
            }
            if finished {
                break;
            }
            // The first seat with a decision answers it.
            let mut acted = false;
            for (_, token) in &tokens {
                let (_, view) = app.view(&game, Some(token)).await;
                if view["pending"]
                    .as_array()
                    .is_some_and(|pending| !pending.is_empty())
                {
                    let (status, answer) = app
                        .act(&game, token, version, random_answer(&view, &mut rng))
                        .await;
                    assert_eq!(status, StatusCode::OK, "{answer}");
                    seen[tokens.iter().position(|(_, t)| t == token).unwrap()]
                        .texts
                        .push(answer.to_string());
                    version += 1;
                    acted = true;
                    break;
                }
            }
            assert!(acted, "someone always has a decision while the game runs");
        }
        let (_, end) = app.view(&game, None).await;
        let seed = end["seed"].as_str().unwrap().to_owned();
        for (index, seen) in seen.iter().enumerate() {
            let mut own_secrets = BTreeSet::new();
            for text in &seen.texts {
                assert!(!text.contains(&seed), "the seed leaked before the end");
                for (seat, _) in &tokens {
                    let marker = format!("secret-{seat}-");
                    if text.contains(&marker) {
                        assert_eq!(
                            index, *seat as usize,
                            "viewer {index} received a secret of seat {seat}: {text}"
                        );
                        own_secrets.insert(seat);
                    }
                }
            }
            if index < tokens.len() {
                assert!(
                    own_secrets.contains(&(index as u32)),
                    "a seat does see its own secrets"
                );
            }
        }
    }
}

/// The game's event stream from `since` as the browser opens it: for a seat, with a single-use
/// ticket fetched with the seat's token (EventSource cannot send the header).
pub async fn open_stream(app: &TestApp, game: &str, token: Option<&str>, since: u64) -> Body {
    let uri = match token {
        Some(token) => {
            let (status, ticket) = app
                .call(
                    "POST",
                    &format!("/api/games/{game}/stream-ticket"),
                    Some(token),
                    None,
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{ticket}");
            let ticket = ticket["ticket"].as_str().unwrap();
            format!("/api/games/{game}/stream?since={since}&ticket={ticket}")
        }
        None => format!("/api/games/{game}/stream?since={since}"),
    };
    let response = app
        .router
        .clone()
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.into_body()
}

/// The first update of the game's event stream for `token`, as text.
async fn stream_snapshot(app: &TestApp, game: &str, token: Option<&str>) -> String {
    let mut body = open_stream(app, game, token, 0).await;
    let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    String::from_utf8_lossy(frame.data_ref().unwrap()).into_owned()
}

/// Reads `update` events from a stream until one reaches `version`.
async fn read_updates_until(body: &mut Body, version: u64) -> Vec<Value> {
    let mut updates = Vec::new();
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
            .await
            .expect("an update arrives")
            .unwrap()
            .unwrap();
        let Some(data) = frame.data_ref() else {
            continue;
        };
        for line in String::from_utf8_lossy(data).lines() {
            if let Some(json) = line.strip_prefix("data: ") {
                updates.push(serde_json::from_str::<Value>(json).unwrap());
            }
        }
        if updates
            .last()
            .is_some_and(|update| update["version"].as_u64() >= Some(version))
        {
            return updates;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_updates_reach_every_seat_and_a_reconnecting_client_catches_up() {
    let dir = TempDir::new("api-stream");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app
        .create(&[None, None, None], json!({ "rounds": 3 }))
        .await;
    let mut spectator = open_stream(&app, &game, None, 0).await;
    let mut seat0 = open_stream(&app, &game, Some(&tokens[0].1), 0).await;
    let first = read_updates_until(&mut spectator, 0).await;
    assert_eq!(first[0]["version"], 0);

    for (version, (_, token)) in tokens.iter().enumerate() {
        let (status, _) = app
            .act(&game, token, version, json!({ "choose": [1] }))
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let spectator_updates = read_updates_until(&mut spectator, 3).await;
    let seat_updates = read_updates_until(&mut seat0, 3).await;
    let versions = |updates: &[Value]| -> Vec<u64> {
        updates
            .iter()
            .flat_map(|update| {
                update["log"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|entry| entry["version"].as_u64().unwrap())
            })
            .collect()
    };
    assert_eq!(
        versions(&spectator_updates),
        vec![1, 2, 3],
        "the spectator saw every action once"
    );
    assert_eq!(versions(&seat_updates), vec![1, 2, 3]);
    // Seat 0 sees its own plan; the spectator never does.
    assert!(
        seat_updates
            .iter()
            .any(|update| update.to_string().contains("secret-0-"))
    );
    assert!(
        !spectator_updates
            .iter()
            .any(|update| update.to_string().contains("secret-"))
    );

    // A client that left after version 1 reconnects and gets exactly what it missed.
    let mut again = open_stream(&app, &game, Some(&tokens[1].1), 1).await;
    let caught_up = read_updates_until(&mut again, 3).await;
    assert_eq!(versions(&caught_up), vec![2, 3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_can_be_handed_to_a_bot_and_taken_back() {
    let dir = TempDir::new("api-handoff");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app.create(&[None, None], json!({ "rounds": 6 })).await;
    let (_, leaver) = &tokens[0];
    let (_, stayer) = &tokens[1];
    let bot = format!("/api/games/{game}/seats/0/bot");

    let (status, _) = app
        .call("POST", &bot, Some(leaver), Some(json!({ "bot": "random" })))
        .await;
    assert_eq!(status, StatusCode::OK);
    // While the bot plays the seat, its person cannot act for it.
    let (status, _) = app.act(&game, leaver, 0, json!({ "choose": [0] })).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // The other player plays two rounds; the bot answers for seat 0 each time. The bot moves
    // at the same time as the person, so a stale answer (409) is simply retried.
    let mut rng = answer_rng(3);
    let mut played = 0;
    while played < 2 {
        let view = app.wait_for_turn(&game, stayer).await;
        let (status, body) = app.act_randomly(&game, stayer, &view, &mut rng).await;
        match status {
            StatusCode::OK => played += 1,
            StatusCode::CONFLICT => {}
            _ => panic!("unexpected {status}: {body}"),
        }
    }
    let view = app.wait_for_turn(&game, stayer).await;
    assert!(
        view["version"].as_u64().unwrap() >= 4,
        "two rounds are complete: the bot played for the seat: {view}"
    );

    // Taken back: the person acts again and the bot does not.
    let (status, _) = app
        .call("POST", &bot, Some(leaver), Some(json!({ "bot": null })))
        .await;
    assert_eq!(status, StatusCode::OK);
    // A bot move under way when the seat was taken back may still land: retry on 409.
    for token in [stayer, leaver, stayer] {
        loop {
            let view = app.wait_for_turn(&game, token).await;
            let (status, body) = app
                .act(&game, token, &view["version"], json!({ "choose": [0] }))
                .await;
            match status {
                StatusCode::OK => break,
                StatusCode::CONFLICT => {}
                _ => panic!("unexpected {status}: {body}"),
            }
        }
    }
    // With both seats played by people again, nobody moves for the leaver any more.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_, view) = app.view(&game, Some(leaver)).await;
    assert!(
        !view["pending"].as_array().unwrap().is_empty(),
        "the seat waits for its person: {view}"
    );
}

/// Waits for the seat's turn and answers its first pending decision at random: the view it
/// answered, and the answer's status and body (none once the game is over).
async fn answer_at_random(
    app: &TestApp,
    game: &str,
    token: &str,
    rng: &mut sdk::testing::SeededTable,
) -> (Value, Option<(StatusCode, Value)>) {
    let view = app.wait_for_turn(game, token).await;
    if view["status"] == "finished" {
        return (view, None);
    }
    let answered = app.act_randomly(game, token, &view, rng).await;
    (view, Some(answered))
}

/// Answers every pending decision at random until the game is over; returns the last view.
async fn play_to_the_end(app: &TestApp, game: &str, tokens: &[(u32, String)], seed: u8) -> Value {
    assert!(!tokens.is_empty(), "someone plays");
    let mut rng = answer_rng(seed);
    loop {
        for (_, token) in tokens {
            let (view, answered) = answer_at_random(app, game, token, &mut rng).await;
            let Some((status, body)) = answered else {
                return view;
            };
            assert!(
                status == StatusCode::OK || status == StatusCode::CONFLICT,
                "{status}: {body}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_snapshots_carried_the_whole_history() {
    // A stored snapshot held every action and every checkpoint of the record, so each one was
    // larger than the last and the history was stored twice. Now it holds the position only;
    // a restarted server rebuilds the session from it and the actions table, and the record it
    // gives (checkpoints replayed) is the one the first server gave, bit for bit.
    let dir = TempDir::new("api-snapshot-history");
    let (game, record) = {
        let app = TestApp::start_with(&dir.0, None, 2).await;
        let (game, tokens) = app.create(&[None, None], json!({ "rounds": 3 })).await;
        play_to_the_end(&app, &game, &tokens, 7).await;
        let (seq, bytes) = app
            .state
            .hub
            .storage()
            .latest_snapshot(&game)
            .await
            .unwrap()
            .expect("a snapshot is stored every 2 actions");
        let stored: Value = serde_json::from_slice(&bytes).unwrap();
        for history in ["actions", "checkpoints", "spec"] {
            assert!(
                stored.get(history).is_none(),
                "the snapshot holds no `{history}`: {stored}"
            );
        }
        assert_eq!(stored["version"], seq);
        let (status, record) = app
            .call("GET", &format!("/api/games/{game}/record"), None, None)
            .await;
        assert_eq!(status, StatusCode::OK, "{record}");
        (game, record)
    };
    let app = TestApp::start_with(&dir.0, None, 2).await;
    let (status, again) = app
        .call("GET", &format!("/api/games/{game}/record"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert!(
        !again["checkpoints"].as_array().unwrap().is_empty(),
        "the record has its checkpoints: {again}"
    );
    assert_eq!(again, record, "the same record after a restart");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snapshots_stored_with_their_history_still_load() {
    // Snapshots written before they lost their history carried the spec, every action and the
    // checkpoints beside the position: a server keeps loading them (the extra fields are
    // ignored; the actions table is the record) and the game plays on to a record that replays.
    let dir = TempDir::new("api-snapshot-old");
    let (game, tokens) = {
        let app = TestApp::start_with(&dir.0, None, 2).await;
        let (game, tokens) = app.create(&[None, None], json!({ "rounds": 3 })).await;
        let mut rng = answer_rng(9);
        for _ in 0..2 {
            for (_, token) in &tokens {
                let (_, answered) = answer_at_random(&app, &game, token, &mut rng).await;
                let (status, body) = answered.expect("the game goes on");
                assert_eq!(status, StatusCode::OK, "{body}");
            }
        }
        let storage = app.state.hub.storage();
        let (seq, bytes) = storage.latest_snapshot(&game).await.unwrap().unwrap();
        let mut old: Value = serde_json::from_slice(&bytes).unwrap();
        old["spec"] = json!({ "map_toml": "", "options": [], "seats": 2, "seed": vec![0u8; 32], "position": null });
        old["actions"] = json!(vec![
            json!({ "seat": 0, "action": { "choose": [0] } });
            seq as usize
        ]);
        old["checkpoints"] = json!([{ "after_action": 0, "spectator_view": {} }]);
        sqlx::query("UPDATE snapshots SET bytes = $1 WHERE game_id = $2 AND seq = $3")
            .bind(serde_json::to_vec(&old).unwrap())
            .bind(game.clone())
            .bind(seq as i64)
            .execute(storage.pool())
            .await
            .unwrap();
        (game, tokens)
    };
    let app = TestApp::start_with(&dir.0, None, 1000).await;
    let last = play_to_the_end(&app, &game, &tokens, 11).await;
    let (status, record) = app
        .call("GET", &format!("/api/games/{game}/record"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{record}");
    crate::server_support::assert_record_replays(&RULESET, &record, &last);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_survive_a_restart_and_load_from_snapshots() {
    let dir = TempDir::new("api-restart");
    let (game, tokens, version) = {
        let app = TestApp::start_with(&dir.0, None, 2).await;
        let (game, tokens) = app.create(&[None, None], json!({ "rounds": 4 })).await;
        let mut version = 0;
        for _ in 0..2 {
            for (_, token) in &tokens {
                let (status, _) = app
                    .act(&game, token, version, json!({ "choose": [2] }))
                    .await;
                assert_eq!(status, StatusCode::OK);
                version += 1;
            }
        }
        let (_, token) = &tokens[0];
        let (status, _) = app
            .act(&game, token, version, json!({ "choose": [0] }))
            .await;
        assert_eq!(status, StatusCode::OK);
        version += 1;
        (game, tokens, version)
    };
    let before = {
        let app = TestApp::start_with(&dir.0, None, 2).await;
        let snapshot = app
            .state
            .hub
            .storage()
            .latest_snapshot(&game)
            .await
            .unwrap();
        assert_eq!(
            snapshot.map(|(seq, _)| seq),
            Some(4),
            "a snapshot is stored every 2 actions"
        );
        let (_, view) = app.view(&game, Some(&tokens[1].1)).await;
        view
    };
    assert_eq!(
        before["version"], version,
        "every action is still there after a restart"
    );
    assert_eq!(
        before["waiting_for"],
        json!([1]),
        "a reloaded game knows whose turn it is"
    );
    let app = TestApp::start_with(&dir.0, None, 2).await;
    let (status, body) = app
        .act(&game, &tokens[1].1, version, json!({ "choose": [1] }))
        .await;
    assert_eq!(status, StatusCode::OK, "the game goes on: {body}");
    let (_, view) = app.view(&game, Some(&tokens[1].1)).await;
    assert_eq!(view["state"]["round"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_client_folder_is_served_with_an_index_fallback() {
    let dir = TempDir::new("api-web");
    let web = dir.0.join("web");
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("index.html"), "<p>tenka client</p>").unwrap();
    let storage = host::server::storage::Storage::open(None, &dir.0.join("data"))
        .await
        .unwrap();
    let state = host::server::AppState::new(
        storage,
        crate::server_support::runtime(),
        &crate::server_support::write_maps(&dir.0),
        host::server::games::HubConfig::default(),
        host::server::ServerConfig {
            // Fixed seeds are refused, as in production.
            allow_fixed_seeds: false,
            web_dir: Some(web),
            ..host::server::ServerConfig::default()
        },
    )
    .await
    .unwrap();
    let router = host::server::app(state);
    for uri in ["/", "/play/some-game"] {
        let response = router
            .clone()
            .oneshot(Request::get(uri).body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], b"<p>tenka client</p>");
    }
    // A server without fixed seeds refuses them.
    let response = router
        .oneshot(
            Request::post("/api/games")
                .header("content-type", "application/json")
                .body(Body::from(json!({ "ruleset": RULESET.id, "map": RULESET.map, "seed": "00".repeat(32), "seats": [{ "kind": "human" }, { "kind": "human" }] }).to_string()))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shogun_logs_and_exports_hold_only_what_each_seat_may_see() {
    let dir = TempDir::new("api-shogun-secrecy");
    let app = TestApp::start(&dir.0).await;
    for (index, seats) in [3usize, 4, 5].into_iter().enumerate() {
        let (game, tokens) = app
            .create_game(&SHOGUN, &vec![None; seats], json!({}))
            .await;
        let mut rng = answer_rng(40 + index as u8);
        let mut received: Vec<String> = Vec::new();
        let viewers: Vec<Option<&str>> = tokens
            .iter()
            .map(|(_, token)| Some(token.as_str()))
            .chain([None])
            .collect();
        let mut version = 0u64;
        'game: loop {
            // Every seat is played by this test, so nothing moves the game between this look
            // and the checks below: a finished game is noticed before its export is tried.
            let (_, summary) = app.game(&game).await;
            if summary["status"] == "finished" {
                break 'game;
            }
            if version.is_multiple_of(16) {
                for token in &viewers {
                    for what in ["view", "log", "record"] {
                        let (status, body) = app
                            .call("GET", &format!("/api/games/{game}/{what}"), *token, None)
                            .await;
                        if what == "record" {
                            assert_eq!(
                                status,
                                StatusCode::FORBIDDEN,
                                "no export before the end: {body}"
                            );
                        }
                        received.push(body.to_string());
                    }
                    received.push(stream_snapshot(&app, &game, *token).await);
                }
            }
            for (_, token) in &tokens {
                let (_, view) = app.view(&game, Some(token)).await;
                if view["status"] == "finished" {
                    break 'game;
                }
                if view["pending"]
                    .as_array()
                    .is_some_and(|pending| !pending.is_empty())
                {
                    let (status, answer) = app
                        .act(&game, token, version, random_answer(&view, &mut rng))
                        .await;
                    match status {
                        StatusCode::OK => version += 1,
                        StatusCode::UNPROCESSABLE_ENTITY => {}
                        _ => panic!("unexpected {status}: {answer}"),
                    }
                    received.push(answer.to_string());
                }
            }
        }
        let (_, end) = app.view(&game, None).await;
        let seed = end["seed"]
            .as_str()
            .expect("the seed is revealed at the end");
        assert!(
            received.iter().all(|text| !text.contains(seed)),
            "the seed leaked before the end"
        );

        // Every viewer's log is exactly the stored events it is in the audience of.
        let stored = app
            .state
            .hub
            .storage()
            .actions_since(&game, 0)
            .await
            .unwrap();
        for (viewer, token) in viewers.iter().enumerate() {
            let viewer = if viewer < tokens.len() {
                sdk::Viewer::Seat(viewer as u32)
            } else {
                sdk::Viewer::Spectator
            };
            let (_, log) = app
                .call("GET", &format!("/api/games/{game}/log"), *token, None)
                .await;
            let log = log.as_array().unwrap();
            assert_eq!(log.len(), stored.len());
            for (entry, action) in log.iter().zip(&stored) {
                let events: Vec<sdk::Event> = serde_json::from_str(&action.events_json).unwrap();
                let visible: Vec<Value> = events
                    .iter()
                    .filter(|event| event.audience.includes(viewer))
                    .map(|event| {
                        json!({ "text": event.text, "drops": event.drops, "summary": event.summary })
                    })
                    .collect();
                assert_eq!(
                    entry["events"],
                    Value::Array(visible),
                    "{viewer:?} sees only its audience's events"
                );
                if let Some(drops) = entry.get("tower") {
                    for drop in drops.as_array().unwrap() {
                        let keys: BTreeSet<&str> = drop
                            .as_object()
                            .unwrap()
                            .keys()
                            .map(String::as_str)
                            .collect();
                        assert_eq!(
                            keys,
                            BTreeSet::from(["came_out", "dropped"]),
                            "the log never tells what stays in the tower"
                        );
                    }
                }
            }
        }
    }
}

/// Past `max_running_games`, the least recently used games are parked (their instance freed,
/// their state kept in memory) and play on from where they were: every answer is accepted on
/// the version the player saw, and every game's record replays to the server's result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parked_games_play_on_from_where_they_were() {
    let dir = TempDir::new("parked-games");
    let app = TestApp::start_configured(&dir.0, None, |hub, _| hub.max_running_games = 2).await;
    let mut games = Vec::new();
    for _ in 0..6 {
        games.push(app.create(&[None, None], json!({})).await);
    }
    let mut rng = answer_rng(11);
    let mut most_running = 0;
    let mut unfinished = games.len();
    while unfinished > 0 {
        unfinished = 0;
        // One answer per game per round: by its next turn, the five others have been used.
        for (game, tokens) in &games {
            let mut moved = false;
            for (_, token) in tokens {
                let (_, view) = app.view(game, Some(token)).await;
                if view["status"] == "finished" {
                    break;
                }
                if view["pending"].as_array().is_some_and(|p| !p.is_empty()) {
                    let (status, answer) = app.act_randomly(game, token, &view, &mut rng).await;
                    assert_eq!(status, StatusCode::OK, "{answer}");
                    moved = true;
                    break;
                }
            }
            unfinished += usize::from(moved);
        }
        // Parking runs beside the requests: give it a moment, then count.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let (in_memory, running) = app.state.hub.loaded().await;
        assert_eq!(in_memory, games.len());
        most_running = most_running.max(running);
    }
    assert!(
        most_running <= 2,
        "at most two games keep an instance between rounds, saw {most_running}"
    );
    for (game, _) in &games {
        assert_finished_and_replays(&app, game).await;
    }
}

/// Regression: a bot's move restored a parked game's instance without the hub counting it as
/// running, so games played by bots were never parked again and held their instances past
/// `max_running_games`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_bot_moves_restored_parked_games_the_hub_never_parked_again() {
    let dir = TempDir::new("parked-bot-games");
    let app = TestApp::start_configured(&dir.0, None, |hub, _| {
        hub.max_running_games = 2;
        // Bots wait between moves, so other games' moves park theirs meanwhile.
        hub.bot_pace = Duration::from_millis(5);
    })
    .await;
    bot_games_played_out(&app, 6).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    // The last moves' parking runs beside the requests: wait for it, then count.
    let mut running = usize::MAX;
    while std::time::Instant::now() < deadline {
        running = app.state.hub.loaded().await.1;
        if running <= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        running <= 2,
        "at most two games keep an instance once the bots are done, saw {running}"
    );
}

/// Regression: a finished game kept its running instance until the parker reached it, so a
/// server finishing games faster than it parked them (short games, many players) ran out of
/// instances and refused new games as busy. The move that ends a game now parks it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_finished_games_kept_their_instances_until_the_pool_ran_out() {
    let dir = TempDir::new("finished-games-park");
    // The default cap on running games is far away: only finishing can stop them running.
    let app = TestApp::start(&dir.0).await;
    let games = bot_games_played_out(&app, 4).await;
    let (in_memory, running) = app.state.hub.loaded().await;
    assert_eq!(in_memory, games.len(), "finished games stay in memory");
    assert_eq!(running, 0, "no finished game keeps an instance");
    // A finished game still shows its end and replays from its record.
    for game in &games {
        assert_finished_and_replays(&app, game).await;
    }
}

/// Regression: a move whose request was dropped (the client gone) after the ruleset had applied
/// it was stored, yet nobody heard of it: watchers got no update, the game's summary stayed on
/// the old version and bots were not woken. A move now runs to its end in a task of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regression_a_move_whose_request_was_dropped_was_stored_but_never_published() {
    let dir = TempDir::new("dropped-move");
    let app = TestApp::start(&dir.0).await;
    let (game, tokens) = app.create(&[None, None], json!({})).await;
    let view = app.wait_for_turn(&game, &tokens[0].1).await;
    let action: sdk::Action =
        serde_json::from_value(random_answer(&view, &mut answer_rng(1))).unwrap();
    let version = view["version"].as_u64().unwrap();
    let live = app.state.hub.game(&game).await.unwrap();
    let mut updates = live.subscribe();
    {
        // Polled once, as far as the ruleset's call, then dropped as a request is when its
        // client goes away.
        let mut submit = std::pin::pin!(app.state.hub.submit(&live, tokens[0].0, version, action));
        let polled = std::future::Future::poll(
            submit.as_mut(),
            &mut std::task::Context::from_waker(std::task::Waker::noop()),
        );
        assert!(polled.is_pending(), "the move is under way when dropped");
    }
    tokio::time::timeout(Duration::from_secs(10), updates.recv())
        .await
        .expect("watchers hear of the move")
        .unwrap();
    assert_eq!(live.standing().version, version + 1);
    let (_, after) = app.view(&game, None).await;
    assert_eq!(after["version"], version + 1, "the move stands: {after}");
}

/// Asserts that `game` shows its end and that its record replays to it.
async fn assert_finished_and_replays(app: &TestApp, game: &str) {
    let (_, end) = app.view(game, None).await;
    assert_eq!(end["status"], "finished");
    let (status, record) = app
        .call("GET", &format!("/api/games/{game}/record"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{record}");
    crate::server_support::assert_record_replays(&RULESET, &record, &end);
}

/// Creates `count` games of two random bots and waits until every one is finished; their ids.
async fn bot_games_played_out(app: &TestApp, count: usize) -> Vec<String> {
    let mut games = Vec::new();
    for _ in 0..count {
        games.push(
            app.create(&[Some("random"), Some("random")], json!({}))
                .await
                .0,
        );
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    for game in &games {
        // From the summary, not a view: computing a view would use (and count) the session.
        let live = app.state.hub.game(game).await.unwrap();
        while !live.standing().finished {
            assert!(std::time::Instant::now() < deadline, "the bots finish");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    games
}
