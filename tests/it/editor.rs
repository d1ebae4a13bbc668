//! The map editor's endpoint (`POST /api/rulesets/{id}/editor`): edits keep the rest of the text
//! byte for byte, findings are placed, the edited text plays and replays, and hostile texts get
//! a clear refusal without stalling the server.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::server_support::{SHOGUN, TempDir, TestApp, listed_entry};

const EDITOR: &str = "/api/rulesets/shogun/editor";

/// A server with Shogun, whose editor schema is the ruleset's own (contract 0.4.0).
async fn start(dir: &TempDir) -> TestApp {
    TestApp::start(&dir.0).await
}

async fn edit(app: &TestApp, toml: &str, edits: Value) -> (StatusCode, Value) {
    app.call(
        "POST",
        EDITOR,
        None,
        Some(json!({ "toml": toml, "edits": edits })),
    )
    .await
}

/// The lines of `after` that differ from `before` (both of the same length in lines).
fn changed_lines(before: &str, after: &str) -> Vec<String> {
    let (old, new): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    assert_eq!(
        old.len(),
        new.len(),
        "no line was added or removed:\n{after}"
    );
    old.iter()
        .zip(&new)
        .filter(|(a, b)| a != b)
        .map(|(_, b)| (*b).to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_change_only_their_lines_and_the_edited_map_plays_and_replays() {
    let dir = TempDir::new("editor-round-trip");
    let app = start(&dir).await;
    let sun = SHOGUN.map_toml;

    // No edit: the text comes back byte for byte, checked, drawn and outlined.
    let (status, first) = edit(&app, sun, json!([])).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["toml"], sun);
    assert_eq!(first["valid"], true, "{}", first["diagnostics"]);
    assert!(
        first["svg"]
            .as_str()
            .unwrap()
            .contains("data-place=\"province.mutsu\"")
    );
    assert_eq!(first["places"].as_array().unwrap().len(), 45);
    assert_eq!(first["schema"]["places"]["table"], "province");
    // The schema comes from the ruleset, with an empty map to start from, which reads as TOML.
    let blank = first["schema"]["blank-map"].as_str().expect("a blank map");
    let (status, empty) = edit(&app, blank, json!([])).await;
    assert_eq!(status, StatusCode::OK, "{empty}");
    assert_eq!(empty["places"].as_array().unwrap().len(), 0);
    let rulesets = app.rulesets().await;
    let shogun = listed_entry(&rulesets, SHOGUN.id);
    assert_eq!(
        (shogun["editor"].clone(), shogun["blank_map"].clone()),
        (json!(true), json!(true))
    );
    let has = |answer: &Value, kind: &str, a: &str, b: &str| {
        answer["connections"].as_array().unwrap().iter().any(|c| {
            c["kind"] == kind
                && ((c["from"] == a && c["to"] == b) || (c["from"] == b && c["to"] == a))
        })
    };
    assert!(has(&first, "sea-route", "izu", "shima"));
    assert!(!has(&first, "border", "kazusa", "musashi"));

    // Move a province, add a border and a sea route: only those lines change.
    let (status, moved) = edit(
        &app,
        sun,
        json!([
            { "op": "move", "place": "mutsu", "x": 925.4, "y": 95.0 },
            { "op": "connect", "kind": "border", "from": "kazusa", "to": "musashi" },
            { "op": "connect", "kind": "sea-route", "from": "harima", "to": "kii" },
        ]),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    let text = moved["toml"].as_str().unwrap();
    let changed = changed_lines(sun, text);
    assert_eq!(
        changed,
        [
            "x = 925",
            "y = 95",
            "borders = [\"awa-boso\", \"shimosa\", \"musashi\"]",
            "borders = [\"kai\", \"kozuke\", \"sagami\", \"shimosa\", \"shinano\", \"kazusa\"]",
            "sea-routes = [\"sanuki\", \"kii\"]",
            "sea-routes = [\"awa-shikoku\", \"harima\"]",
        ]
        .map(str::to_owned),
        "{text}"
    );
    assert!(has(&moved, "border", "kazusa", "musashi"));
    assert!(has(&moved, "sea-route", "kii", "harima"));
    assert_eq!(moved["valid"], true, "{}", moved["diagnostics"]);

    // An error is found at its place and line; fixing it makes the map valid again.
    let (status, broken) = edit(
        &app,
        text,
        json!([{ "op": "set", "place": "kai", "field": "region", "value": "nowhere" }]),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{broken}");
    assert_eq!(broken["valid"], false);
    assert!(broken["svg"].is_null() && broken["board_error"].is_string());
    let finding = broken["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["severity"] == "error")
        .expect("an error");
    assert_eq!(finding["place"], "kai", "{finding}");
    let line = finding["line"].as_u64().unwrap() as usize;
    assert!(
        broken["toml"]
            .as_str()
            .unwrap()
            .lines()
            .nth(line - 1)
            .unwrap()
            .contains("nowhere"),
        "the finding is at the line that says it"
    );
    let (status, fixed) = edit(
        &app,
        broken["toml"].as_str().unwrap(),
        json!([{ "op": "set", "place": "kai", "field": "region", "value": "yellow" }]),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        fixed["toml"], text,
        "undoing the change by hand gives the same bytes"
    );
    assert_eq!(fixed["valid"], true);

    // The edited text, as the panel shows it, plays to the end and replays.
    let (status, created) = app
        .post_game(json!({
            "ruleset": "shogun",
            "map_toml": text,
            "options": { "years": 1 },
            "seed": "07".repeat(32),
            "seats": [
                { "kind": "bot", "bot": "random" },
                { "kind": "bot", "bot": "random" },
                { "kind": "bot", "bot": "random" },
            ],
        }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let game = created["id"].as_str().unwrap();
    let view = app.wait_until_finished(game).await;
    let (status, record) = app
        .call("GET", &format!("/api/games/{game}/record"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{record}");
    assert_eq!(record["map"], text, "the game keeps the text byte for byte");
    crate::server_support::assert_record_replays(&SHOGUN, &record, &view);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_map_texts_get_a_clear_refusal_and_never_stall_the_server() {
    let dir = TempDir::new("editor-hostile");
    let app = start(&dir).await;
    let refused = |status: StatusCode, body: &Value, code: &str| {
        assert!(status.is_client_error(), "{status} {body}");
        assert_eq!(body["error"], code, "{body}");
        assert!(
            body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
    };

    // Huge: over the API's body cap, and a text over the editor's own cap inside it.
    let huge = json!({ "toml": "#".repeat(70 * 1024) }).to_string();
    let (status, body) = app
        .send(
            Request::post(EDITOR)
                .header("content-type", "application/json")
                .body(Body::from(huge))
                .unwrap(),
        )
        .await;
    refused(status, &body, "payload-too-large");
    let (status, body) = edit(&app, &"#".repeat(62 * 1024), json!([])).await;
    refused(status, &body, "bad-request");

    // Invalid UTF-8.
    let mut bytes = br#"{"toml": "[map]\nid = ""#.to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, 0x80]);
    bytes.extend_from_slice(br#""}"#);
    let (status, body) = app
        .send(
            Request::post(EDITOR)
                .header("content-type", "application/json")
                .body(Body::from(bytes))
                .unwrap(),
        )
        .await;
    refused(status, &body, "bad-request");

    // Deeply nested: the ruleset's checker says so; an edit on it is refused as not TOML.
    let nested = format!("a = {}1{}\n", "[".repeat(20_000), "]".repeat(20_000));
    let started = Instant::now();
    let (status, body) = edit(&app, &nested, json!([])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["valid"], false);
    let (status, body) = edit(
        &app,
        &nested,
        json!([{ "op": "move", "place": "mutsu", "x": 1, "y": 2 }]),
    )
    .await;
    refused(status, &body, "bad-request");

    // Thousands of places (as many as the body cap lets through, written tightly).
    let mut many = String::from("[map]\nid = \"many\"\nname = \"Many\"\nruleset = \"shogun\"\n");
    for i in 0..1500 {
        many.push_str(&format!("[[province]]\nid=\"p{i}\"\nx={i}\ny=1\n"));
    }
    let (status, body) = edit(&app, &many, json!([])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["valid"], false);
    assert_eq!(body["places"].as_array().unwrap().len(), 1500);

    // Edits naming nothing that exists, and too many edits.
    let sun = SHOGUN.map_toml;
    let (status, body) = edit(
        &app,
        sun,
        json!([{ "op": "move", "place": "atlantis", "x": 1, "y": 1 }]),
    )
    .await;
    refused(status, &body, "bad-request");
    let (status, body) = edit(
        &app,
        sun,
        json!([{ "op": "connect", "kind": "tunnel", "from": "kai", "to": "izu" }]),
    )
    .await;
    refused(status, &body, "bad-request");
    let (status, body) = edit(
        &app,
        sun,
        json!([{ "op": "set", "place": "kai", "field": "tax", "value": "lots" }]),
    )
    .await;
    refused(status, &body, "bad-request");
    let (status, body) = edit(
        &app,
        sun,
        json!(vec![
            json!({ "op": "move", "place": "kai", "x": 1, "y": 1 });
            65
        ]),
    )
    .await;
    refused(status, &body, "bad-request");
    let (status, body) = app
        .call(
            "POST",
            "/api/rulesets/nothing/editor",
            None,
            Some(json!({ "toml": "" })),
        )
        .await;
    refused(status, &body, "not-found");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "hostile texts took {:?}",
        started.elapsed()
    );

    // The server still answers at once.
    app.rulesets().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_or_failing_map_editor_schema_leaves_the_text_editor() {
    let dir = TempDir::new("editor-hostile-schema");
    let app = start(&dir).await;
    let rulesets = app.rulesets().await;
    let editor_of = |id: &str| {
        let ruleset = listed_entry(&rulesets, id);
        (ruleset["editor"].clone(), ruleset["blank_map"].clone())
    };
    // Far over the bounds, and a panic: both are "no schema", and the server goes on.
    assert_eq!(editor_of("huge-board"), (json!(false), json!(false)));
    assert_eq!(editor_of("failing-render"), (json!(false), json!(false)));
    assert_eq!(editor_of(SHOGUN.id), (json!(true), json!(true)));
    // The text editor still checks and draws; edits are refused.
    let (status, body) = app
        .call(
            "POST",
            "/api/rulesets/huge-board/editor",
            None,
            Some(json!({ "toml": "name = \"Square\"\n" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["schema"], Value::Null);
    let (status, body) = app
        .call(
            "POST",
            "/api/rulesets/huge-board/editor",
            None,
            Some(json!({ "toml": "", "edits": [{ "op": "add-row", "table": "x" }] })),
        )
        .await;
    assert!(status.is_client_error(), "{status} {body}");
}
