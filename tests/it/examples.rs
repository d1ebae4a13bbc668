//! Saving a map as an example (`PUT /api/rulesets/{id}/examples/{name}`): off without an
//! operator token, refused with a wrong one, a bad name, a map with errors or over a shipped
//! map, each refusal writing nothing; a good save writes exactly the bytes given, the maps API
//! lists the example at once and a game starts on it. Also through a real `tenka serve`
//! process given the token in its environment, whose log never holds the token.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::server_support::serving::serving_address;
use crate::server_support::{RULESET, SHOGUN, ServerProcess, TempDir, TestApp, http, listed_entry};

const TOKEN: &str = "op-3f9c1e7a5b2d4f60-test-token";

/// A server whose operator token is [`TOKEN`].
async fn with_token(dir: &TempDir) -> TestApp {
    TestApp::start_configured(&dir.0, None, |_, server| {
        server.operator_token = Some(host::server::tokens::OperatorToken::new(TOKEN).unwrap());
    })
    .await
}

fn examples_folder(dir: &TempDir, ruleset: &str) -> PathBuf {
    dir.0.join("maps").join(ruleset).join("examples")
}

/// The files in a folder, sorted (none when it does not exist).
fn files_in(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

async fn save(
    app: &TestApp,
    ruleset: &str,
    name: &str,
    token: Option<&str>,
    body: Value,
) -> (StatusCode, Value) {
    app.call(
        "PUT",
        &format!("/api/rulesets/{ruleset}/examples/{name}"),
        token,
        Some(body),
    )
    .await
}

/// Saves a Shogun example `name` with the operator's token.
async fn save_shogun(app: &TestApp, name: &str, body: Value) -> (StatusCode, Value) {
    save(app, SHOGUN.id, name, Some(TOKEN), body).await
}

/// The Shogun map `id` as `GET /api/rulesets` offers it.
async fn offered_map(app: &TestApp, id: &str) -> Value {
    listed(app, SHOGUN.id).await["maps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|map| map["id"] == id)
        .expect("the map is offered")
        .clone()
}

/// The ruleset as `GET /api/rulesets` lists it.
async fn listed(app: &TestApp, ruleset: &str) -> Value {
    listed_entry(&app.rulesets().await, ruleset).clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_operator_token_saving_examples_is_off_and_writes_nothing() {
    let dir = TempDir::new("examples-off");
    let app = TestApp::start(&dir.0).await;
    assert_eq!(listed(&app, SHOGUN.id).await["save_examples"], false);
    for token in [None, Some(TOKEN), Some("")] {
        let (status, body) = save(
            &app,
            SHOGUN.id,
            "my-island",
            token,
            json!({ "toml": SHOGUN.map_toml }),
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_eq!(body["error"], "forbidden");
        assert!(
            body["message"].as_str().unwrap().contains("off"),
            "the refusal says saving is off: {body}"
        );
    }
    assert!(files_in(&examples_folder(&dir, SHOGUN.id)).is_empty());
    let maps = listed(&app, SHOGUN.id).await["maps"].clone();
    assert_eq!(maps.as_array().unwrap().len(), 1, "{maps}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_saves_say_why_and_write_nothing() {
    let dir = TempDir::new("examples-refused");
    let app = with_token(&dir).await;
    assert_eq!(listed(&app, SHOGUN.id).await["save_examples"], true);
    let good = json!({ "toml": SHOGUN.map_toml });

    // No token, a wrong one, one differing in a single character, one not `Bearer`.
    for token in [
        None,
        Some("op-3f9c1e7a5b2d4f60-test-tokeN"),
        Some("wrong"),
        Some(""),
    ] {
        let (status, body) = save(&app, SHOGUN.id, "my-island", token, good.clone()).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{token:?}: {body}");
        assert_eq!(body["error"], "forbidden");
    }
    let (status, _) = app
        .send(
            axum::http::Request::builder()
                .method("PUT")
                .uri("/api/rulesets/shogun/examples/my-island")
                .header("authorization", format!("Basic {TOKEN}"))
                .header("content-type", "application/json")
                .body(axum::body::Body::from(good.to_string()))
                .unwrap(),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Bad names: upper case, dots, path tricks (a slash percent-encoded), too long, empty edges.
    for name in [
        "My-Island",
        "my_island",
        "island.toml",
        "..",
        "%2E%2E",
        "..%2Fsun",
        "a%2Fb",
        "-island",
        "island-",
        "isla%20nd",
        &"a".repeat(65),
    ] {
        let (status, body) = save_shogun(&app, name, good.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{name}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains("lowercase"),
            "{body}"
        );
    }

    // A map with errors: 422 with the ruleset's findings, each with its line.
    let broken = SHOGUN
        .map_toml
        .replacen("region = \"yellow\"", "region = \"nowhere\"", 1);
    assert_ne!(broken, SHOGUN.map_toml);
    let (status, body) = save_shogun(&app, "broken", json!({ "toml": broken })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "invalid-map");
    let findings = body["diagnostics"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|d| d["severity"] == "error" && d["text"].as_str().unwrap().contains("nowhere")),
        "{body}"
    );
    // Not TOML at all: the ruleset's syntax finding.
    let (status, body) = save_shogun(&app, "broken", json!({ "toml": "[province\nid = " })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");

    // Over the size cap; a ruleset that does not exist; an unknown field.
    let (status, _) = save_shogun(
        &app,
        "huge",
        json!({ "toml": format!("{}\n#{}", SHOGUN.map_toml, "x".repeat(61 * 1024)) }),
    )
    .await;
    assert!(
        status == StatusCode::BAD_REQUEST || status == StatusCode::PAYLOAD_TOO_LARGE,
        "{status}"
    );
    let (status, _) = save(&app, "nope", "island", Some(TOKEN), good.clone()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = save_shogun(
        &app,
        "island",
        json!({ "toml": SHOGUN.map_toml, "path": "../../x" }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Over a map the ruleset ships: refused, the shipped file as it was.
    let shipped = dir.0.join("maps").join(SHOGUN.id).join("sun.toml");
    let before = std::fs::read(&shipped).unwrap();
    let (status, body) = save_shogun(
        &app,
        SHOGUN.map,
        json!({ "toml": format!("{}\n# mine now\n", SHOGUN.map_toml), "replace": true }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("ships"),
        "{body}"
    );
    assert_eq!(std::fs::read(&shipped).unwrap(), before);

    assert!(
        files_in(&examples_folder(&dir, SHOGUN.id)).is_empty(),
        "nothing was written: {:?}",
        files_in(&examples_folder(&dir, SHOGUN.id))
    );
    assert_eq!(
        listed(&app, SHOGUN.id).await["maps"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_example_is_the_bytes_given_offered_at_once_and_playable() {
    let dir = TempDir::new("examples-saved");
    let app = with_token(&dir).await;
    // Edited as an author would: a new name, a comment, Windows line ends in a part, and no
    // newline at the end. The file must hold exactly these bytes.
    let text = format!(
        "{}\r\n# Saved from the map editor.\r\n# ends without a newline",
        SHOGUN
            .map_toml
            .replacen("name = \"Shogun: sun side\"", "name = \"My island\"", 1)
            .trim_end()
    );
    let (status, body) = save_shogun(&app, "my-island", json!({ "toml": text })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["id"], "my-island");
    assert_eq!(body["origin"], "example");
    assert_eq!(body["offered"], true);
    assert_eq!(body["replaced"], false);
    let folder = examples_folder(&dir, SHOGUN.id);
    assert_eq!(
        std::fs::read(folder.join("my-island.toml")).unwrap(),
        text.as_bytes()
    );
    assert_eq!(
        files_in(&folder),
        ["my-island.toml"],
        "no temporary file is left"
    );

    // Listed by the maps API right after the answer, as an example, valid, with the same hash.
    let map = offered_map(&app, "my-island").await;
    assert_eq!(map["origin"], "example");
    assert_eq!(map["valid"], true);
    assert_eq!(map["hash"], body["hash"]);
    let (status, preview) = app
        .call("GET", "/api/rulesets/shogun/maps/my-island", None, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(preview["toml"], text.as_str());
    assert!(preview["svg"].is_string(), "the example is drawn");

    // A game starts on it, by its id, and stores exactly its text.
    let (status, created) = app
        .post_game(json!({
                "ruleset": SHOGUN.id,
                "map": "my-island",
                "seats": [{ "kind": "human", "creator": true }, { "kind": "bot", "bot": "random" }, { "kind": "bot", "bot": "random" }],
            })).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (status, game) = app.game(created["id"].as_str().unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(game["map"], "my-island");
    assert_eq!(game["map_hash"], body["hash"]);

    // Saving again under the name: refused unless asked to replace, then replaced.
    let newer = format!("{text}\n# a second version\n");
    let (status, refused) = save_shogun(&app, "my-island", json!({ "toml": newer })).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(
        std::fs::read(folder.join("my-island.toml")).unwrap(),
        text.as_bytes()
    );
    let (status, replaced) =
        save_shogun(&app, "my-island", json!({ "toml": newer, "replace": true })).await;
    assert_eq!(status, StatusCode::OK, "{replaced}");
    assert_eq!(replaced["replaced"], true);
    assert_eq!(
        std::fs::read(folder.join("my-island.toml")).unwrap(),
        newer.as_bytes()
    );
    let map = offered_map(&app, "my-island").await;
    assert_eq!(map["hash"], replaced["hash"]);
    assert_ne!(replaced["hash"], body["hash"]);
}

#[test]
fn a_real_server_takes_the_token_from_its_environment_and_never_logs_it() {
    let dir = TempDir::new("examples-process");
    let log = dir.0.join("server.log");
    let server = ServerProcess::start_with_env(
        &dir.0,
        None,
        &[
            ("TENKA_OPERATOR_TOKEN", std::ffi::OsStr::new(TOKEN)),
            ("RUST_LOG", std::ffi::OsStr::new("info")),
        ],
    );
    let addr = server.addr.clone();
    let path = format!("/api/rulesets/{}/examples/second-square", RULESET.id);
    let body = json!({ "toml": "name = \"Second square\"\n" });
    let (status, refused) = http(&addr, "PUT", &path, Some("not-the-token"), Some(&body)).unwrap();
    assert_eq!(status, 403, "{refused}");
    let (status, saved) = http(&addr, "PUT", &path, Some(TOKEN), Some(&body)).unwrap();
    assert_eq!(status, 201, "{saved}");
    let (_, rulesets) = http(&addr, "GET", "/api/rulesets", None, None).unwrap();
    let ruleset = listed_entry(&rulesets, RULESET.id);
    assert_eq!(ruleset["save_examples"], true);
    assert!(
        ruleset["maps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|map| map["id"] == "second-square" && map["origin"] == "example"),
        "{ruleset}"
    );
    assert_eq!(
        std::fs::read_to_string(
            dir.0
                .join("maps")
                .join(RULESET.id)
                .join("examples")
                .join("second-square.toml")
        )
        .unwrap(),
        "name = \"Second square\"\n"
    );
    drop(server);

    // The same with the token in a file, the log kept: it says saving is on, and who was
    // refused, and holds neither the token nor what the wrong one was.
    let token_file = dir.0.join("operator-token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let mut command = test_server(&dir.0);
    command.arg("--operator-token-file").arg(&token_file);
    command.env("RUST_LOG", "info");
    command.stderr(std::fs::File::create(&log).unwrap());
    let (mut child, addr, printed) = spawn_logged(command);
    let (status, _) = http(
        &addr,
        "PUT",
        &path,
        Some("wrong-guess-1234567"),
        Some(&body),
    )
    .unwrap();
    assert_eq!(status, 403);
    let (status, replaced) = http(
        &addr,
        "PUT",
        &path,
        Some(TOKEN),
        Some(&json!({ "toml": "name = \"Third\"\n", "replace": true })),
    )
    .unwrap();
    assert_eq!(status, 200, "{replaced}");
    let _ = child.kill();
    let _ = child.wait();
    // Both streams: the log goes to stdout, errors may go to stderr.
    let logged = format!(
        "{}{}",
        printed.lock().unwrap(),
        std::fs::read_to_string(&log).unwrap()
    );
    assert!(logged.contains("operator token set"), "{logged}");
    assert!(logged.contains("wrong operator token"), "{logged}");
    assert!(
        !logged.contains(TOKEN),
        "the log holds the token:\n{logged}"
    );
    assert!(!logged.contains("wrong-guess"), "{logged}");

    // A token too short, or given twice, stops the server before it serves.
    std::fs::write(&token_file, "short\n").unwrap();
    let mut command = test_server(&dir.0);
    command.arg("--operator-token-file").arg(&token_file);
    let output = command.stdout(Stdio::null()).output().unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("at least 16"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let mut command = test_server(&dir.0);
    command
        .arg("--operator-token-file")
        .arg(&token_file)
        .env("TENKA_OPERATOR_TOKEN", TOKEN);
    let output = command.stdout(Stdio::null()).output().unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("given twice"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The test server's command over `dir`'s maps and data, on a free port.
fn test_server(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tenka-test-server"));
    command
        .args(["--addr", "127.0.0.1:0", "--requests-per-second", "0"])
        .arg("--data")
        .arg(dir.join("data"))
        .arg("--maps")
        .arg(dir.join("maps"))
        .arg("--web")
        .arg(dir.join("no-web-ui"))
        .env_remove("TENKA_OPERATOR_TOKEN");
    command
}

/// What a server process printed (its log goes to stdout), read as it comes.
type Printed = std::sync::Arc<std::sync::Mutex<String>>;

/// Starts `command` (its stderr already set) and waits until it says where it serves; what it
/// prints is kept, read on until it exits.
fn spawn_logged(mut command: Command) -> (std::process::Child, String, Printed) {
    command.stdout(Stdio::piped());
    let mut child = command.spawn().expect("the server starts");
    let stdout = child.stdout.take().unwrap();
    let printed: Printed = Printed::default();
    let keep = printed.clone();
    let addr = serving_address(stdout, Duration::from_secs(60), move |line| {
        let mut kept = keep.lock().unwrap();
        kept.push_str(line);
        kept.push('\n');
    })
    .expect("the server says where it serves");
    (child, addr, printed)
}
