//! Hot reload: a running server picks up new or edited maps, variants and ruleset components,
//! and the games already running stay pinned to the exact versions they started with, through
//! a restart too.

use host::NewGame as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::runtime_support::{FIXTURE, rulesets_dir, tenka};
use crate::server_support::{
    SHOGUN, ServerProcess, TempDir, TestApp, answer_rng, http, http_view, listed_entry,
    random_answer, seats_json,
};

/// How long a test waits for the file watcher to notice a change.
const RELOAD_WITHIN: Duration = Duration::from_secs(30);

/// Polls `GET /api/rulesets` until `done` holds for the answer.
async fn wait_for_catalogue(app: &TestApp, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + RELOAD_WITHIN;
    loop {
        let rulesets = app.rulesets().await;
        if done(&rulesets) {
            return rulesets;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not pick up the change: {rulesets}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn map_hash(rulesets: &Value, ruleset_id: &str, map: &str) -> Option<String> {
    listed_entry(rulesets, ruleset_id)["maps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == map)
        .and_then(|entry| entry["hash"].as_str().map(str::to_owned))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hot_reload_of_a_map_while_a_game_on_the_old_version_continues_and_replays_unchanged() {
    let dir = TempDir::new("reload-map");
    let app = TestApp::start(&dir.0).await;
    host::server::reload::watch(app.state.offer.clone()).unwrap();
    let folder = dir.0.join("maps").join(SHOGUN.id);
    let variant_file = folder.join("variants").join("quick.toml");
    std::fs::create_dir_all(variant_file.parent().unwrap()).unwrap();
    std::fs::write(
        &variant_file,
        "[variant]\nname = \"Quick\"\n\n[options]\nyears = 1\n",
    )
    .unwrap();
    let before = wait_for_catalogue(&app, |rulesets| {
        listed_entry(rulesets, SHOGUN.id)["variants"]
            .as_array()
            .unwrap()
            .iter()
            .any(|variant| variant["id"] == "quick")
    })
    .await;
    let old_hash = map_hash(&before, SHOGUN.id, SHOGUN.map).unwrap();

    // A game on the map as it is, with a person who has not moved yet and two bots.
    let body = json!({
        "ruleset": SHOGUN.id, "map": SHOGUN.map, "variant": "quick",
        "seats": [{ "kind": "human", "creator": true }, { "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }],
    });
    let (status, created) = app.post_game(body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let game = created["id"].as_str().unwrap().to_owned();
    let token = created["seats"][0]["token"].as_str().unwrap().to_owned();
    let view = app.wait_for_turn(&game, &token).await;
    assert_eq!(view["status"], "active");

    // The map is edited on disk (every province's taxes change) and the variant now plays two
    // years: the running server offers the new versions without a restart.
    let old_text = std::fs::read_to_string(folder.join("sun.toml")).unwrap();
    let new_text = old_text.replace("tax = ", "tax = 1");
    assert_ne!(old_text, new_text);
    std::fs::write(folder.join("sun.toml"), &new_text).unwrap();
    std::fs::write(
        &variant_file,
        "[variant]\nname = \"Quick\"\n\n[options]\nyears = 2\n",
    )
    .unwrap();
    let after = wait_for_catalogue(&app, |rulesets| {
        map_hash(rulesets, SHOGUN.id, SHOGUN.map).as_deref() != Some(&old_hash)
            && listed_entry(rulesets, SHOGUN.id)["variants"]
                .as_array()
                .unwrap()
                .iter()
                .any(|variant| variant["id"] == "quick" && variant["options"]["years"] == 2)
    })
    .await;
    let new_hash = map_hash(&after, SHOGUN.id, SHOGUN.map).unwrap();
    let (status, preview) = app
        .call("GET", "/api/rulesets/shogun/maps/sun", None, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        preview["toml"],
        new_text.as_str(),
        "the preview shows the edit"
    );

    // A new game gets the new map; the running one keeps its own.
    let (status, fresh) = app
        .post_game(json!({
                "ruleset": SHOGUN.id, "map": SHOGUN.map,
                "seats": [{ "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }],
            })).await;
    assert_eq!(status, StatusCode::CREATED, "{fresh}");
    let (_, fresh_game) = app.game(fresh["id"].as_str().unwrap()).await;
    assert_eq!(fresh_game["map_hash"], new_hash.as_str());
    let (_, old_game) = app.game(&game).await;
    assert_eq!(old_game["map_hash"], old_hash.as_str());

    // The game on the old map goes on: the person moves, then hands the seat to a bot.
    let view = app.wait_for_turn(&game, &token).await;
    let answer = random_answer(&view, &mut answer_rng(3));
    let (status, moved) = app.act(&game, &token, &view["version"], answer).await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    let (status, _) = app
        .call(
            "POST",
            &format!("/api/games/{game}/seats/0/bot"),
            Some(&token),
            Some(json!({ "bot": "random" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let final_view = app.wait_until_finished(&game).await;

    // Its record holds the old map and the variant's old options, and replays exactly.
    let (status, record) = app
        .call("GET", &format!("/api/games/{game}/record"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{record}");
    assert_eq!(record["map_hash"], old_hash.as_str());
    assert_eq!(record["map"], old_text.as_str());
    let options = serde_json::to_string(&record["options"]).unwrap();
    assert!(
        options.contains("years") && options.contains("{\"integer\":1}"),
        "the game keeps the variant as it was when it started: {options}"
    );
    crate::server_support::assert_record_replays(&SHOGUN, &record, &final_view);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn example_maps_are_offered_and_previewed_and_a_broken_one_lists_its_diagnostics() {
    let dir = TempDir::new("reload-examples");
    let app = TestApp::start(&dir.0).await;
    let examples = dir.0.join("maps").join(SHOGUN.id).join("examples");
    std::fs::create_dir_all(&examples).unwrap();
    let five_isles = include_str!("../../maps/shogun/examples/five-isles.toml");
    std::fs::write(examples.join("five-isles.toml"), five_isles).unwrap();
    // A border written on one side only: Windgate lists Emberpeak, which does not list it.
    let broken = five_isles.replacen(
        "borders = [\"highfold\", \"goldmere\"]",
        "borders = [\"highfold\", \"goldmere\", \"emberpeak\"]",
        1,
    );
    assert_ne!(broken, five_isles);
    std::fs::write(examples.join("one-way.toml"), &broken).unwrap();
    let variants = dir.0.join("maps").join(SHOGUN.id).join("variants");
    std::fs::create_dir_all(&variants).unwrap();
    std::fs::write(
        variants.join("too-long.toml"),
        "[variant]\nname = \"Too long\"\n\n[options]\nyears = 9\n",
    )
    .unwrap();
    // Without a watcher, an explicit reload (what SIGHUP does) picks the files up.
    let changes = app.state.offer.reload().await.unwrap();
    assert!(
        changes
            .iter()
            .any(|change| change.contains("shogun/five-isles added")),
        "{changes:?}"
    );

    let rulesets = app.rulesets().await;
    let shogun = listed_entry(&rulesets, SHOGUN.id);
    let maps = shogun["maps"].as_array().unwrap();
    let entry = |id: &str| maps.iter().find(|map| map["id"] == id).unwrap().clone();
    assert_eq!(entry("sun")["origin"], "listed");
    assert_eq!(entry("five-isles")["origin"], "example");
    assert_eq!(entry("five-isles")["name"], "The Five Isles");
    assert_eq!(entry("five-isles")["valid"], true);
    assert_eq!(entry("one-way")["valid"], false);
    let refused = shogun["refused_variants"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{refused:?}");
    let refused = refused[0].as_str().unwrap();
    assert!(
        refused.starts_with("shogun/variants/too-long.toml:5:"),
        "named by file and line, not by the server's folder: {refused}"
    );
    assert!(refused.contains("years"), "{refused}");

    let (status, preview) = app
        .call("GET", "/api/rulesets/shogun/maps/five-isles", None, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let svg = preview["svg"].as_str().expect("a valid map is drawn");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    assert!(
        svg.contains("windgate") || svg.contains("Windgate"),
        "the drawing is of this map"
    );
    let (_, preview) = app
        .call("GET", "/api/rulesets/shogun/maps/one-way", None, None)
        .await;
    assert_eq!(preview["svg"], Value::Null);
    assert!(preview["board_error"].is_string());
    let diagnostics = preview["diagnostics"].as_array().unwrap();
    assert!(
        diagnostics
            .iter()
            .any(|d| d["severity"] == "error" && d["line"].as_u64().unwrap() > 0),
        "{diagnostics:?}"
    );

    // The example plays by its id like a listed map.
    let (status, created) = app
        .post_game(json!({
                "ruleset": SHOGUN.id, "map": "five-isles",
                "seats": [{ "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }],
            })).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
}

/// The fixture component with a custom section added: another version (another hash) of the
/// same ruleset, as a rebuild would give.
fn another_version(component: &[u8], label: &str) -> Vec<u8> {
    let name = "tenka-test-version";
    let mut payload = vec![name.len() as u8];
    payload.extend_from_slice(name.as_bytes());
    payload.extend_from_slice(label.as_bytes());
    assert!(payload.len() < 128, "one LEB128 byte for the size");
    let mut bytes = component.to_vec();
    bytes.push(0); // a custom section
    bytes.push(payload.len() as u8);
    bytes.extend_from_slice(&payload);
    bytes
}

fn serve_fixture(dir: &Path) -> ServerProcess {
    let mut command: Command = tenka();
    command
        .arg("--rulesets")
        .arg(dir.join("rulesets"))
        .arg("--maps")
        .arg(dir.join("maps"))
        .args(["serve", "--addr", "127.0.0.1:0", "--bot-pace-ms", "0"])
        .arg("--data")
        .arg(dir.join("data"))
        .arg("--web")
        .arg(dir.join("no-web-ui"));
    ServerProcess::spawn(command)
}

fn offered_hash(addr: &str) -> Option<String> {
    let (status, rulesets) = http(addr, "GET", "/api/rulesets", None, None).unwrap();
    assert_eq!(status, 200);
    rulesets
        .as_array()
        .unwrap()
        .iter()
        .find(|ruleset| ruleset["id"] == FIXTURE)
        .map(|ruleset| ruleset["hash"].as_str().unwrap().to_owned())
}

fn wait_for_offer(addr: &str, wanted: Option<&str>) {
    let deadline = Instant::now() + RELOAD_WITHIN;
    while offered_hash(addr).as_deref() != wanted {
        assert!(
            Instant::now() < deadline,
            "the server kept offering {:?}, not {wanted:?}",
            offered_hash(addr)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn game_json(addr: &str, game: &str) -> Value {
    let (status, body) = http(addr, "GET", &format!("/api/games/{game}"), None, None).unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn a_replaced_component_is_offered_at_once_while_games_stay_on_their_version_across_a_restart() {
    let dir = TempDir::new("reload-ruleset");
    std::fs::create_dir_all(dir.0.join("rulesets")).unwrap();
    std::fs::create_dir_all(dir.0.join("maps")).unwrap();
    let installed = dir.0.join("rulesets").join(format!("{FIXTURE}.wasm"));
    let first = std::fs::read(rulesets_dir().join(format!("{FIXTURE}.wasm"))).unwrap();
    let first = another_version(&first, "one");
    let second = another_version(&first, "two");
    std::fs::write(&installed, &first).unwrap();
    let first_hash = host::ContentHash::of(&first).0;
    let second_hash = host::ContentHash::of(&second).0;

    let server = serve_fixture(&dir.0);
    assert_eq!(offered_hash(&server.addr).as_deref(), Some(&*first_hash));
    let create = json!({
        "ruleset": FIXTURE, "map_toml": "",
        "seats": seats_json(&[None, Some("random")]),
    });
    let (status, created) = http(&server.addr, "POST", "/api/games", None, Some(&create)).unwrap();
    assert_eq!(status, 201, "{created}");
    let pinned = created["id"].as_str().unwrap().to_owned();
    let token = created["seats"][0]["token"].as_str().unwrap().to_owned();

    // The component is rebuilt in place: new games get the new version.
    std::fs::write(&installed, &second).unwrap();
    wait_for_offer(&server.addr, Some(&second_hash));
    let (status, created) = http(&server.addr, "POST", "/api/games", None, Some(&create)).unwrap();
    assert_eq!(status, 201, "{created}");
    let newer = created["id"].as_str().unwrap().to_owned();
    assert_eq!(
        game_json(&server.addr, &newer)["ruleset_hash"],
        second_hash.as_str()
    );
    assert_eq!(
        game_json(&server.addr, &pinned)["ruleset_hash"],
        first_hash.as_str()
    );

    // The file is removed: the ruleset is no longer offered, its games still play.
    std::fs::remove_file(&installed).unwrap();
    wait_for_offer(&server.addr, None);
    let (status, _) = http(&server.addr, "POST", "/api/games", None, Some(&create)).unwrap();
    assert_eq!(status, 404);
    let (status, view) = http_view(&server.addr, &newer, None).unwrap();
    assert_eq!(status, 200, "{view}");

    // After a restart, with only the newest component on disk, the first game still runs on
    // its own version, read back from the database, and plays to the end.
    server.kill();
    std::fs::write(&installed, &second).unwrap();
    let server = serve_fixture(&dir.0);
    assert_eq!(offered_hash(&server.addr).as_deref(), Some(&*second_hash));
    assert_eq!(
        game_json(&server.addr, &pinned)["ruleset_hash"],
        first_hash.as_str(),
        "the game runs on the version it started with"
    );
    // Its page reads the texts of that version.
    let catalogue = |version: &str| {
        http(
            &server.addr,
            "GET",
            &format!("/api/rulesets/{FIXTURE}/catalogue/en?version={version}"),
            None,
            None,
        )
        .unwrap()
    };
    let (status, texts) = catalogue(&first_hash);
    assert_eq!(status, 200);
    assert!(texts.as_object().is_some_and(|texts| !texts.is_empty()));
    assert_eq!(catalogue(&"0".repeat(64)).0, 404, "an unknown version");
    let (status, _) = http(
        &server.addr,
        "POST",
        &format!("/api/games/{pinned}/seats/0/bot"),
        Some(&token),
        Some(&json!({ "bot": "random" })),
    )
    .unwrap();
    assert_eq!(status, 200);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, view) = http_view(&server.addr, &pinned, None).unwrap();
        assert_eq!(status, 200, "{view}");
        if view["status"] == "finished" {
            break;
        }
        assert!(Instant::now() < deadline, "the pinned game never ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, record) = http(
        &server.addr,
        "GET",
        &format!("/api/games/{pinned}/record"),
        None,
        None,
    )
    .unwrap();
    assert_eq!(status, 200, "{record}");
    assert_eq!(record["ruleset_hash"], first_hash.as_str());
    let record = host::GameRecord::from_json(&record.to_string()).unwrap();
    let runtime = host::Runtime::new(host::RuntimeConfig {
        cache_dir: None,
        ..host::RuntimeConfig::default()
    })
    .unwrap();
    let (ruleset, _) = runtime.load_bytes(&first, None).unwrap();
    let mut replayed = host::Session::replay(ruleset, &record).expect("the record replays");
    assert!(replayed.is_over().unwrap());
}

#[test]
fn a_rebuilt_component_replaces_the_current_version_and_an_unused_old_one_is_unloaded() {
    let dir = TempDir::new("reload-versions");
    let installed = dir.0.join(format!("{FIXTURE}.wasm"));
    let original = std::fs::read(rulesets_dir().join(format!("{FIXTURE}.wasm"))).unwrap();
    let (first, second) = (
        another_version(&original, "one"),
        another_version(&original, "two"),
    );
    let (first_hash, second_hash) = (
        host::ContentHash::of(&first).0,
        host::ContentHash::of(&second).0,
    );
    let runtime = crate::runtime_support::runtime("reload-versions");
    std::fs::write(&installed, &first).unwrap();
    assert_eq!(runtime.sync_dir(&dir.0).unwrap().loaded.len(), 1);
    assert!(
        runtime.sync_dir(&dir.0).unwrap().is_empty(),
        "nothing changed"
    );
    let game = runtime
        .ruleset(FIXTURE)
        .unwrap()
        .new_game(crate::runtime_support::spec(2, 1))
        .unwrap();

    std::fs::write(&installed, &second).unwrap();
    let changes = runtime.sync_dir(&dir.0).unwrap();
    assert_eq!(changes.loaded.len(), 1);
    assert_eq!(runtime.ruleset(FIXTURE).unwrap().hash().0, second_hash);
    // The game in memory holds the first version: it stays.
    assert_eq!(runtime.forget_unused_versions(), 0);
    assert!(runtime.ruleset_version(&first_hash).is_some());
    drop(game);
    assert_eq!(runtime.forget_unused_versions(), 1);
    assert!(runtime.ruleset_version(&first_hash).is_none());
    assert!(
        runtime.ruleset_version(&second_hash).is_some(),
        "the current version is never unloaded"
    );

    // A component that does not load leaves the version before it current.
    std::fs::write(&installed, b"\0asm half-written").unwrap();
    let changes = runtime.sync_dir(&dir.0).unwrap();
    assert!(changes.loaded[0].error.is_some());
    assert_eq!(runtime.ruleset(FIXTURE).unwrap().hash().0, second_hash);

    std::fs::remove_file(&installed).unwrap();
    assert_eq!(runtime.sync_dir(&dir.0).unwrap().removed, vec![FIXTURE]);
    assert!(runtime.ruleset(FIXTURE).is_none());
}
