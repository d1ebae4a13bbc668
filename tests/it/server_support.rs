//! Shared helpers of the game-server tests: an in-process server over a fresh database, a client
//! that calls it as a browser would, and a blocking HTTP client for tests that run real server
//! processes.
//!
//! The tests are generic over the ruleset: [`TestRuleset`] names the one they play.

#[path = "../support/secret_draw.rs"]
pub mod secret_draw;

#[path = "../support/twisted.rs"]
pub mod twisted;

#[path = "../support/serving.rs"]
pub mod serving;

#[path = "../support/requests.rs"]
pub mod requests;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use host::server::games::HubConfig;
use host::server::storage::Storage;
use host::server::{AppState, ServerConfig, app};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

/// The ruleset the server tests play, its map and a seat count it supports.
pub struct TestRuleset {
    /// The ruleset's id.
    pub id: &'static str,
    /// A shipped map.
    pub map: &'static str,
    /// The map's text, written into the test's maps folder.
    pub map_toml: &'static str,
}

/// The ruleset most server tests play: small, quick, and with every secret marked.
pub const RULESET: TestRuleset = TestRuleset {
    id: "secret-draw",
    map: "square",
    map_toml: "name = \"Square\"\n",
};

/// The reference ruleset, played natively.
pub const SHOGUN: TestRuleset = TestRuleset {
    id: "shogun",
    map: "sun",
    map_toml: include_str!("../../maps/shogun/sun.toml"),
};

/// The secret-draw game drawn with every SVG attack (`support/twisted.rs`).
pub const HOSTILE_BOARD: TestRuleset = TestRuleset {
    id: "hostile-board",
    map: "square",
    map_toml: "name = \"Square\"\n",
};

/// The secret-draw game failing once right after its first action, when armed
/// (`support/twisted.rs`).
pub const FAILS_AFTER_MOVE: TestRuleset = TestRuleset {
    id: "fails-after-move",
    map: "square",
    map_toml: "name = \"Square\"\n",
};

/// The secret-draw game claiming a result while it goes on (`support/twisted.rs`).
pub const EARLY_RESULT: TestRuleset = TestRuleset {
    id: "early-result",
    map: "square",
    map_toml: "name = \"Square\"\n",
};

/// The secret-draw game drawing about 7 MiB of shapes (`support/twisted.rs`).
pub const HUGE_BOARD: TestRuleset = TestRuleset {
    id: "huge-board",
    map: "square",
    map_toml: "name = \"Square\"\n",
};

/// The secret-draw game that panics whenever it draws (`support/twisted.rs`).
pub const FAILING_RENDER: TestRuleset = TestRuleset {
    id: "failing-render",
    map: "square",
    map_toml: "name = \"Square\"\n",
};

/// A runtime with the test ruleset loaded.
pub fn runtime() -> Arc<host::Runtime> {
    let runtime = host::Runtime::new(host::RuntimeConfig::default()).unwrap();
    runtime
        .register_native(sdk::native::adapt::<secret_draw::SecretDraw>())
        .unwrap();
    runtime
        .register_native(sdk::native::adapt::<shogun::Shogun>())
        .unwrap();
    runtime
        .register_native(sdk::native::adapt::<twisted::HostileBoard>())
        .unwrap();
    runtime
        .register_native(sdk::native::adapt::<twisted::FailsAfterMove>())
        .unwrap();
    runtime
        .register_native(sdk::native::adapt::<twisted::EarlyResult>())
        .unwrap();
    runtime
        .register_native(sdk::native::adapt::<twisted::FailingRender>())
        .unwrap();
    runtime
        .register_native(sdk::native::adapt::<twisted::HugeBoard>())
        .unwrap();
    Arc::new(runtime)
}

/// A fresh temporary folder, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Creates it.
    pub fn new(label: &str) -> TempDir {
        let mut bytes = [0u8; 8];
        for byte in &mut bytes {
            *byte = rand_byte();
        }
        let dir = std::env::temp_dir().join(format!("tenka-{label}-{}", hex::encode(bytes)));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn rand_byte() -> u8 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    hasher.finish() as u8
}

/// Writes the test rulesets' maps folder under `dir`.
pub fn write_maps(dir: &Path) -> PathBuf {
    let maps = dir.join("maps");
    for ruleset in [
        &RULESET,
        &SHOGUN,
        &HOSTILE_BOARD,
        &FAILS_AFTER_MOVE,
        &EARLY_RESULT,
        &FAILING_RENDER,
        &HUGE_BOARD,
    ] {
        std::fs::create_dir_all(maps.join(ruleset.id)).unwrap();
        std::fs::write(
            maps.join(ruleset.id).join(format!("{}.toml", ruleset.map)),
            ruleset.map_toml,
        )
        .unwrap();
    }
    maps
}

/// An in-process server: the router, called without a socket.
pub struct TestApp {
    /// The application.
    pub router: Router,
    /// Its state.
    pub state: AppState,
}

impl TestApp {
    /// A server on the SQLite database in `dir` (created if new) with bots acting at once.
    pub async fn start(dir: &Path) -> TestApp {
        Self::start_with(dir, None, 1000).await
    }

    /// A server on `database` (or SQLite in `dir`), storing a snapshot every `snapshot_every`.
    pub async fn start_with(dir: &Path, database: Option<&str>, snapshot_every: u64) -> TestApp {
        Self::start_configured(dir, database, |hub, _| hub.snapshot_every = snapshot_every).await
    }

    /// A server on `database` (or SQLite in `dir`) whose settings `configure` changes from the
    /// tests' defaults (bots acting at once, fixed seeds allowed, no rate limits).
    pub async fn start_configured(
        dir: &Path,
        database: Option<&str>,
        configure: impl FnOnce(&mut HubConfig, &mut ServerConfig),
    ) -> TestApp {
        Self::start_on(dir, database, runtime(), configure).await
    }

    /// [`TestApp::start_configured`] over a runtime of the caller's (with more rulesets loaded).
    pub async fn start_on(
        dir: &Path,
        database: Option<&str>,
        runtime: Arc<host::Runtime>,
        configure: impl FnOnce(&mut HubConfig, &mut ServerConfig),
    ) -> TestApp {
        let storage = Storage::open(database, &dir.join("data")).await.unwrap();
        let maps = write_maps(dir);
        let mut hub = HubConfig {
            bot_pace: Duration::ZERO,
            // Tests wait for games of bots alone as fast as any other.
            unwatched_bot_pace: Duration::ZERO,
            snapshot_every: 1000,
            ..HubConfig::default()
        };
        let mut server = ServerConfig {
            allow_fixed_seeds: true,
            ..ServerConfig::default()
        };
        configure(&mut hub, &mut server);
        let state = AppState::new(storage, runtime, &maps, hub, server)
            .await
            .unwrap();
        TestApp {
            router: app(state.clone()),
            state,
        }
    }

    /// Sends a request and returns the status and the JSON body (`Null` when not JSON).
    pub async fn call(
        &self,
        method: &str,
        uri: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        self.send(requests::json_request(method, uri, token, body))
            .await
    }

    /// `GET /api/rulesets`, which must answer.
    pub async fn rulesets(&self) -> Value {
        let (status, rulesets) = self.call("GET", "/api/rulesets", None, None).await;
        assert_eq!(status, StatusCode::OK, "{rulesets}");
        rulesets
    }

    /// The game as the seat of `token` (or a spectator) sees it.
    pub async fn view(&self, game: &str, token: Option<&str>) -> (StatusCode, Value) {
        self.call("GET", &format!("/api/games/{game}/view"), token, None)
            .await
    }

    /// `GET /api/games/{game}`: the game's summary.
    pub async fn game(&self, game: &str) -> (StatusCode, Value) {
        self.call("GET", &format!("/api/games/{game}"), None, None)
            .await
    }

    /// Posts a random legal answer to the first decision `view` shows the seat of `token`.
    pub async fn act_randomly(
        &self,
        game: &str,
        token: &str,
        view: &Value,
        rng: &mut sdk::testing::SeededTable,
    ) -> (StatusCode, Value) {
        self.act(game, token, &view["version"], random_answer(view, rng))
            .await
    }

    /// `POST /api/games` with this body.
    pub async fn post_game(&self, body: Value) -> (StatusCode, Value) {
        self.call("POST", "/api/games", None, Some(body)).await
    }

    /// Posts `action` for the seat of `token`, planned against `version`.
    pub async fn act(
        &self,
        game: &str,
        token: &str,
        version: impl serde::Serialize,
        action: impl serde::Serialize,
    ) -> (StatusCode, Value) {
        self.call(
            "POST",
            &format!("/api/games/{game}/actions"),
            Some(token),
            Some(json!({ "version": version, "action": action })),
        )
        .await
    }

    /// Posts `body` to `uri` as a client at the IP `address` would (the server counts some limits
    /// by address).
    pub async fn post_from(&self, uri: &str, address: &str, body: Value) -> (StatusCode, Value) {
        let mut request = Request::post(uri)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .unwrap();
        let address: std::net::SocketAddr = format!("{address}:40000").parse().unwrap();
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(address));
        self.send(request).await
    }

    /// Sends a prepared request.
    pub async fn send(&self, request: Request<Body>) -> (StatusCode, Value) {
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (status, body)
    }

    /// Creates a game with these seats (`None` = human, `Some(bot)` = bot); returns the id and
    /// the human seats' tokens by seat.
    pub async fn create(
        &self,
        seats: &[Option<&str>],
        options: Value,
    ) -> (String, Vec<(u32, String)>) {
        self.create_game(&RULESET, seats, options).await
    }

    /// [`TestApp::create`] for any ruleset.
    pub async fn create_game(
        &self,
        ruleset: &TestRuleset,
        seats: &[Option<&str>],
        options: Value,
    ) -> (String, Vec<(u32, String)>) {
        let seats = seats_json(seats);
        let (status, body) = self
            .post_game(json!({ "ruleset": ruleset.id, "map": ruleset.map, "seats": seats, "options": options })).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        (body["id"].as_str().unwrap().to_owned(), seat_tokens(&body))
    }

    /// Waits until a game (with bots in every seat, or played elsewhere) is over; returns the
    /// spectator's view.
    pub async fn wait_until_finished(&self, game: &str) -> Value {
        self.view_until(game, "the game ended", |view| view["status"] == "finished")
            .await
    }

    /// Polls the spectator's view (in real time, for the server's tasks, never for a game clock)
    /// until `done` holds of it; returns it. `what` names what never happened if it does not.
    pub async fn view_until(&self, game: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let (status, view) = self.view(game, None).await;
            assert_eq!(status, StatusCode::OK, "{view}");
            if done(&view) {
                return view;
            }
            assert!(Instant::now() < deadline, "never {what}: {view}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until the seat has a pending decision or the game is over; returns the view.
    pub async fn wait_for_turn(&self, game: &str, token: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (status, view) = self.view(game, Some(token)).await;
            assert_eq!(status, StatusCode::OK, "{view}");
            if view["status"] == "finished" || !view["pending"].as_array().unwrap().is_empty() {
                return view;
            }
            assert!(
                Instant::now() < deadline,
                "the seat never got a turn: {view}"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// The seats of a game to create: `None` the creator's human seat, `Some(bot)` a bot.
pub fn seats_json(seats: &[Option<&str>]) -> Vec<Value> {
    seats
        .iter()
        .map(|seat| match seat {
            None => json!({ "kind": "human", "creator": true }),
            Some(bot) => json!({ "kind": "bot", "bot": bot }),
        })
        .collect()
}

/// A game of the test ruleset on its map as a server stores it, created now (its seats are the
/// caller's).
pub fn stored_game(
    id: &str,
    ruleset_hash: String,
    seed: [u8; 32],
) -> host::server::storage::StoredGame {
    use sha2::Digest as _;
    host::server::storage::StoredGame {
        id: id.to_owned(),
        ruleset_id: RULESET.id.to_owned(),
        ruleset_hash,
        map_id: RULESET.map.to_owned(),
        map_hash: hex::encode(sha2::Sha256::digest(RULESET.map_toml.as_bytes())),
        map_toml: RULESET.map_toml.to_owned(),
        variant: None,
        options_json: "[]".to_owned(),
        seed,
        created_at: host::server::storage::now_millis(),
        finished_at: None,
    }
}

/// The tokens of a created game's human seats, by seat.
pub fn seat_tokens(created: &Value) -> Vec<(u32, String)> {
    created["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|seat| {
            Some((
                seat["seat"].as_u64().unwrap() as u32,
                seat["token"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// The token of every seat of a created game with people alone.
pub fn every_seat_token(created: &Value) -> Vec<String> {
    created["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["token"].as_str().unwrap().to_owned())
        .collect()
}

/// A random legal answer to the first of `view`'s pending decisions.
pub fn random_answer(view: &Value, rng: &mut sdk::testing::SeededTable) -> Value {
    let decision: sdk::PendingDecision =
        serde_json::from_value(view["pending"][0].clone()).unwrap();
    serde_json::to_value(sdk::random_action(&decision.kind, rng)).unwrap()
}

/// A seeded table for picking random answers.
pub fn answer_rng(seed: u8) -> sdk::testing::SeededTable {
    sdk::testing::SeededTable::new([seed; 32])
}

/// The entry of ruleset `id` in a `GET /api/rulesets` answer.
pub fn listed_entry<'a>(rulesets: &'a Value, id: &str) -> &'a Value {
    rulesets
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["id"] == id)
        .unwrap_or_else(|| panic!("{id} is listed: {rulesets}"))
}

// ---------------------------------------------------------------------------------------------
// Real processes
// ---------------------------------------------------------------------------------------------

/// A `tenka serve` process (the test build with the test ruleset), killed when dropped.
pub struct ServerProcess {
    /// The process.
    pub child: Child,
    /// Where it serves.
    pub addr: String,
}

impl ServerProcess {
    /// Starts a server on a free port over `data` (and `database`, if given); waits until it
    /// says it is serving.
    pub fn start(dir: &Path, database: Option<&str>) -> ServerProcess {
        Self::start_with_env(dir, database, &[])
    }

    /// [`ServerProcess::start`] with environment variables set for the process.
    pub fn start_with_env(
        dir: &Path,
        database: Option<&str>,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> ServerProcess {
        let maps = write_maps(dir);
        let mut command = Command::new(env!("CARGO_BIN_EXE_tenka-test-server"));
        command
            .args([
                "--addr",
                "127.0.0.1:0",
                "--bot-pace-ms",
                "0",
                "--unwatched-bot-pace-ms",
                "0",
                "--snapshot-every",
                "7",
                // Load and crash tests play every seat from one address as fast as they can,
                // far above what the rate limits allow one person.
                "--requests-per-second",
                "0",
                "--actions-per-second",
                "0",
                "--games-per-minute",
                "0",
            ])
            .arg("--data")
            .arg(dir.join("data"))
            .arg("--maps")
            .arg(&maps)
            .arg("--web")
            .arg(dir.join("no-web-ui"));
        if let Some(database) = database {
            command.args(["--database", database]);
        }
        command.envs(env.iter().copied());
        ServerProcess::spawn(command)
    }

    /// Runs a server command (`tenka serve ...` or the test server) with `--addr 127.0.0.1:0`
    /// among its arguments; waits until it says where it serves.
    pub fn spawn(mut command: Command) -> ServerProcess {
        command.stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = command.spawn().expect("the server starts");
        let stdout = child.stdout.take().unwrap();
        let addr = serving::serving_address(stdout, Duration::from_secs(60), |_| {})
            .expect("the server says where it serves");
        ServerProcess { child, addr }
    }

    /// Kills the process at once, as a crash would (SIGKILL).
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A blocking HTTP/1.1 request; returns the status and the JSON body (`Null` if none), or an
/// error when the server cannot be reached or hangs up.
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> std::io::Result<(u16, Value)> {
    let authorization = token.map(|token| format!("Bearer {token}"));
    let headers: Vec<(&str, &str)> = authorization
        .iter()
        .map(|value| ("Authorization", value.as_str()))
        .collect();
    let (status, _, payload) = http_with_headers(addr, method, path, &headers, body)?;
    Ok((
        status,
        serde_json::from_str(&payload).unwrap_or(Value::Null),
    ))
}

/// [`TestApp::view`] of a server process: the game as the seat of `token` (or a spectator) sees
/// it.
pub fn http_view(addr: &str, game: &str, token: Option<&str>) -> std::io::Result<(u16, Value)> {
    http(addr, "GET", &format!("/api/games/{game}/view"), token, None)
}

/// [`TestApp::act`] on a server process: posts `body` (a version and an action) for the seat of
/// `token`.
pub fn http_act(
    addr: &str,
    game: &str,
    token: &str,
    body: &Value,
) -> std::io::Result<(u16, Value)> {
    http(
        addr,
        "POST",
        &format!("/api/games/{game}/actions"),
        Some(token),
        Some(body),
    )
}

/// A blocking HTTP/1.1 request with these headers; returns the status, the answer's head and
/// its body (dechunked), or an error when the server cannot be reached or hangs up.
pub fn http_with_headers(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> std::io::Result<(u16, String, String)> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        request.push_str("Content-Type: application/json\r\n");
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let text = String::from_utf8_lossy(&response);
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no complete response"))?;
    let status: u16 = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status"))?;
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let payload = if chunked {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    Ok((status, head.to_owned(), payload))
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || tail.len() < size {
            break;
        }
        out.push_str(&tail[..size]);
        rest = tail[size..].trim_start_matches("\r\n");
    }
    out
}

/// Reads a server-sent event stream until `done` says enough or `timeout` passes; returns the
/// `data:` payloads of `update` events.
pub fn read_stream(
    addr: &str,
    path: &str,
    timeout: Duration,
    mut done: impl FnMut(&[Value]) -> bool,
) -> Vec<Value> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    let deadline = Instant::now() + timeout;
    let mut text = String::new();
    let mut buffer = [0u8; 8192];
    let mut updates = Vec::new();
    while Instant::now() < deadline {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => text.push_str(&String::from_utf8_lossy(&buffer[..n])),
            Err(_) => {}
        }
        updates = text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .filter_map(|data| serde_json::from_str::<Value>(data).ok())
            .collect();
        if done(&updates) {
            break;
        }
    }
    updates
}

/// Replays an exported record from scratch with the runtime's verified replay and checks it
/// ends exactly where the server's game ended.
pub fn assert_record_replays(ruleset: &TestRuleset, record: &Value, final_view: &Value) {
    let record =
        host::GameRecord::from_json(&record.to_string()).expect("the export is a game record");
    assert_eq!(
        record.actions.len() as u64,
        final_view["version"].as_u64().unwrap()
    );
    assert_eq!(
        record.seed.as_deref(),
        final_view["seed"].as_str(),
        "a finished record has the seed"
    );
    let ruleset = runtime().ruleset(ruleset.id).unwrap();
    let mut replayed = host::Session::replay(ruleset, &record).expect("the record replays");
    assert!(replayed.is_over().unwrap());
    assert_eq!(
        serde_json::to_value(replayed.result().unwrap()).unwrap(),
        final_view["result"],
        "the replay ends with the server's result"
    );
}
