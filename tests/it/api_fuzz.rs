//! API fuzzing, driven by the server's own OpenAPI document: every described route is called
//! with mutated path parameters, queries, headers, tokens, versions and bodies, alongside valid
//! play. No request may answer 5xx, and no request answered with an error may change any game.
//!
//! `cargo xtask test` sends `TENKA_FUZZ_REQUESTS` requests (3,000 by default); `cargo xtask fuzz`
//! sends 60,000.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use crate::server_support::{RULESET, TempDir, TestApp};

/// A game the fuzzer plays: its id and its seats' tokens.
struct FuzzGame {
    id: String,
    tokens: Vec<String>,
}

/// What a game looks like from outside: its version and its seats.
async fn fingerprint(app: &TestApp, games: &[FuzzGame]) -> Vec<(u64, Value)> {
    let storage = app.state.hub.storage();
    let mut prints = Vec::new();
    for game in games {
        let version = storage.version(&game.id).await.unwrap();
        let seats = storage.seats(&game.id).await.unwrap();
        let seats = json!(
            seats
                .iter()
                .map(|seat| json!([
                    seat.seat,
                    seat.name,
                    seat.bot,
                    seat.claimed,
                    seat.token_hash
                ]))
                .collect::<Vec<_>>()
        );
        prints.push((version, seats));
    }
    prints
}

/// Text meant to break parsers: empty, huge, control and bidirectional characters, traversal,
/// numbers where text goes and text where numbers go.
const NASTY: [&str; 16] = [
    "",
    "0",
    "-1",
    "18446744073709551616",
    "1e309",
    "null",
    "..",
    "../../etc/passwd",
    "%00",
    "%2e%2e%2f",
    "\u{202E}evil",
    "😀",
    "a b",
    "<script>",
    "' OR 1=1 --",
    "{\"a\":1}",
];

struct Fuzzer {
    rng: ChaCha8Rng,
    games: Vec<FuzzGame>,
    routes: Vec<(String, String)>,
}

impl Fuzzer {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.random_range(0..items.len())]
    }

    fn nasty(&mut self) -> String {
        match self.rng.random_range(0..4) {
            0 => "x".repeat(self.rng.random_range(200..5000)),
            1 => self.rng.random_range(0u64..u64::MAX).to_string(),
            _ => (*self.pick(&NASTY)).to_owned(),
        }
    }

    fn percent_encoded(text: &str) -> String {
        text.bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect()
    }

    /// A value for a path parameter: mostly real, sometimes hostile.
    fn path_value(&mut self, name: &str) -> String {
        let hostile = self.rng.random_range(0..3) == 0;
        if hostile {
            return Self::percent_encoded(&self.nasty());
        }
        match name {
            "id" => {
                let index = self.rng.random_range(0..self.games.len());
                self.games[index].id.clone()
            }
            "seat" => self.rng.random_range(0..6).to_string(),
            "lang" => (*self.pick(&["en", "es", "de", "ro", "xx", "en-GB"])).to_owned(),
            "map" => (*self.pick(&[RULESET.map, "nope"])).to_owned(),
            _ => RULESET.id.to_owned(),
        }
    }

    /// A token: a real one of some game's seat, another game's, garbage, or none.
    fn token(&mut self) -> Option<String> {
        match self.rng.random_range(0..6) {
            0 => None,
            1 => Some(self.nasty()),
            _ => {
                let index = self.rng.random_range(0..self.games.len());
                let tokens = &self.games[index].tokens;
                Some(tokens[self.rng.random_range(0..tokens.len())].clone())
            }
        }
    }

    fn number_or_nasty(&mut self) -> Value {
        match self.rng.random_range(0..5) {
            0 => json!(self.nasty()),
            1 => json!(-1),
            2 => json!(u64::MAX),
            3 => json!(1.5),
            _ => json!(self.rng.random_range(0..40)),
        }
    }

    /// A body for `path`: a valid one, mutated a little or a lot.
    fn body(&mut self, path: &str) -> Value {
        let mut body = if path.ends_with("/actions") || path.ends_with("/preview") {
            let action = match self.rng.random_range(0..5) {
                0 => json!({ "number": self.number_or_nasty() }),
                1 => json!({ "assign": [[self.number_or_nasty(), 0]] }),
                2 => json!({ "choose": (0..self.rng.random_range(0..300)).collect::<Vec<u32>>() }),
                3 => json!(self.nasty()),
                _ => json!({ "choose": [self.rng.random_range(0..4)] }),
            };
            if path.ends_with("/preview") {
                json!({ "action": action })
            } else {
                json!({ "version": self.number_or_nasty(), "action": action })
            }
        } else if path.ends_with("/claim") {
            json!({ "name": self.nasty() })
        } else if path.ends_with("/bot") {
            json!({ "bot": self.pick(&[json!("random"), json!("search"), json!(null), json!("x"), json!(3)]).clone() })
        } else {
            let seats = (0..self.rng.random_range(0..8))
                .map(|_| match self.rng.random_range(0..4) {
                    0 => json!({ "kind": "bot", "bot": "random" }),
                    1 => json!({ "kind": self.nasty() }),
                    2 => json!({ "kind": "human", "name": self.nasty() }),
                    _ => json!({ "kind": "human" }),
                })
                .collect::<Vec<_>>();
            json!({
                "ruleset": self.pick(&[json!(RULESET.id), json!("nope"), json!(1)]).clone(),
                "map": self.pick(&[json!(RULESET.map), json!("nope"), json!(null)]).clone(),
                "options": { "rounds": self.number_or_nasty() },
                "seats": seats,
            })
        };
        // Mutations: drop a field, add an unknown one, change a type.
        if let Some(object) = body.as_object_mut() {
            match self.rng.random_range(0..6) {
                0 => {
                    let keys: Vec<String> = object.keys().cloned().collect();
                    if !keys.is_empty() {
                        let key = keys[self.rng.random_range(0..keys.len())].clone();
                        object.remove(&key);
                    }
                }
                1 => {
                    object.insert(self.nasty(), json!(1));
                }
                2 => {
                    object.insert("seed".into(), json!(self.nasty()));
                }
                _ => {}
            }
        }
        body
    }

    /// One request built from a route of the OpenAPI document, with the route's method and
    /// template.
    fn request(&mut self) -> (String, String, Request<Body>) {
        let index = self.rng.random_range(0..self.routes.len());
        let (method, template) = self.routes[index].clone();
        let mut path = String::new();
        for segment in template.split('/').filter(|s| !s.is_empty()) {
            path.push('/');
            match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => path.push_str(&self.path_value(name)),
                None => path.push_str(segment),
            }
        }
        let mut query = Vec::new();
        for name in ["since", "at", "token", "version"] {
            if self.rng.random_range(0..4) == 0 {
                let value = match self.rng.random_range(0..3) {
                    0 => self.rng.random_range(0..50).to_string(),
                    _ => self.nasty(),
                };
                query.push(format!("{name}={}", Self::percent_encoded(&value)));
            }
        }
        if !query.is_empty() {
            path = format!("{path}?{}", query.join("&"));
        }
        let mut request = Request::builder().method(method.as_str()).uri(path);
        if let Some(token) = self.token() {
            let value = match self.rng.random_range(0..5) {
                0 => token,
                1 => format!("Basic {token}"),
                _ => format!("Bearer {token}"),
            };
            if let Ok(value) = axum::http::HeaderValue::from_str(&value) {
                request = request.header("authorization", value);
            }
        }
        if method == "POST" {
            let body = self.body(&template).to_string();
            let content_type =
                *self.pick(&["application/json", "application/json", "text/plain", ""]);
            if !content_type.is_empty() {
                request = request.header("content-type", content_type);
            }
            // Cut in half by bytes (possibly inside a character: not even UTF-8), or oversized.
            let body: Vec<u8> = match self.rng.random_range(0..8) {
                0 => body.as_bytes()[..body.len() / 2].to_vec(),
                1 => vec![b'x'; 70 * 1024],
                _ => body.into_bytes(),
            };
            (method, template, request.body(Body::from(body)).unwrap())
        } else {
            (method, template, request.body(Body::empty()).unwrap())
        }
    }
}

/// The requests one run sends: `TENKA_FUZZ_REQUESTS`, or 3,000.
fn request_count() -> usize {
    std::env::var("TENKA_FUZZ_REQUESTS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(3_000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzzed_requests_from_the_openapi_document_never_fail_the_server_or_change_a_game_when_refused()
 {
    let dir = TempDir::new("api-fuzz");
    // Bots wait an hour, so a game changes only through the request being checked.
    let app = TestApp::start_configured(&dir.0, None, |hub, _| {
        hub.bot_pace = Duration::from_secs(3600);
    })
    .await;
    let (_, document) = app.call("GET", "/api/openapi.json", None, None).await;
    let mut routes = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            routes.push((method.to_uppercase(), path.clone()));
        }
    }
    assert!(
        routes.len() >= 10,
        "the document lists the routes: {routes:?}"
    );

    let mut games = Vec::new();
    for seats in [2, 3] {
        let (id, tokens) = app
            .create(&vec![None; seats], json!({ "rounds": 50 }))
            .await;
        games.push(FuzzGame {
            id,
            tokens: tokens.into_iter().map(|(_, token)| token).collect(),
        });
    }
    let mut fuzzer = Fuzzer {
        rng: ChaCha8Rng::seed_from_u64(0x7e4a),
        games,
        routes,
    };

    let error_codes = document["components"]["schemas"]["Error"]["properties"]["error"]["enum"]
        .as_array()
        .unwrap()
        .clone();
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    let total = request_count();
    for sent in 0..total {
        let (method, template, request) = fuzzer.request();
        let described = format!("{} {}", request.method(), request.uri());
        let before = fingerprint(&app, &fuzzer.games).await;
        let (status, body) = if request.uri().path().ends_with("/stream") {
            // A stream that opens lasts until the client leaves: look at its status only.
            let response = tower::ServiceExt::oneshot(app.router.clone(), request)
                .await
                .unwrap();
            let status = response.status();
            if status.is_success() {
                (status, Value::Null)
            } else {
                use http_body_util::BodyExt as _;
                let bytes = response.into_body().collect().await.unwrap().to_bytes();
                (
                    status,
                    serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                )
            }
        } else {
            app.send(request).await
        };
        *statuses.entry(status.as_u16()).or_default() += 1;
        assert!(
            !status.is_server_error(),
            "request {sent} `{described}` answered {status}: {body}"
        );
        // A preview changes nothing even when it answers.
        if !status.is_success() || described.ends_with("/preview") {
            assert_eq!(
                fingerprint(&app, &fuzzer.games).await,
                before,
                "request {sent} `{described}` ({status}) changed a game"
            );
        }
        if !status.is_success() {
            assert!(
                body["error"].is_string() && body["message"].is_string(),
                "request {sent} `{described}`: an error has the JSON shape: {body}"
            );
            assert!(
                error_codes.contains(&body["error"]),
                "request {sent} `{described}`: the error code {} is not in the document's list",
                body["error"]
            );
        }
        // The document lists every status the operation answered (an unknown API path, which
        // the fuzzer builds from nasty path values, is the fallback's 404).
        let operation = &document["paths"][&template][method.to_lowercase()];
        assert!(
            operation["responses"].get(status.as_str()).is_some()
                || (status == 404 && template.contains('{')),
            "request {sent} `{described}` answered {status}, which the document does not list \
             for {method} {template}"
        );
        // Keep the games going: a valid move now and then, so later versions get fuzzed too.
        if sent % 7 == 0 {
            for game in &fuzzer.games {
                for token in &game.tokens {
                    let (_, view) = app.view(&game.id, Some(token)).await;
                    if view["pending"].as_array().is_some_and(|p| !p.is_empty()) {
                        let _ = app
                            .act(&game.id, token, &view["version"], json!({ "choose": [0] }))
                            .await;
                    }
                }
            }
        }
    }
    println!("fuzzed {total} requests; answers by status: {statuses:?}");
    assert!(
        statuses.keys().any(|status| *status < 300) && statuses.len() >= 5,
        "the fuzzer reaches both success and several refusals: {statuses:?}"
    );
}
