//! Connections against a real `tenka serve` process: idle and slow connections are closed, one
//! address's connections beyond its cap are refused at once, and a player on another address
//! keeps playing meanwhile.

use std::net::SocketAddr;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};

use crate::server_support::{
    RULESET, ServerProcess, TempDir, answer_rng, random_answer, seats_json, write_maps,
};

/// Starts the test server with the connection options `extra`.
pub(crate) fn start(dir: &TempDir, extra: &[&str]) -> ServerProcess {
    let maps = write_maps(&dir.0);
    let mut command = Command::new(env!("CARGO_BIN_EXE_tenka-test-server"));
    command.args(["--addr", "127.0.0.1:0", "--bot-pace-ms", "0", "--no-watch"]);
    // The rate limits are off unless the test sets one.
    for limit in [
        "--requests-per-second",
        "--actions-per-second",
        "--games-per-minute",
    ] {
        if !extra.contains(&limit) {
            command.args([limit, "0"]);
        }
    }
    command
        .args(extra)
        .arg("--data")
        .arg(dir.0.join("data"))
        .arg("--maps")
        .arg(&maps)
        .arg("--web")
        .arg(dir.0.join("no-web-ui"));
    ServerProcess::spawn(command)
}

/// A connection to `server` from the loopback address `from` (127.0.0.x: one client each).
async fn connect_from(from: [u8; 4], server: &str) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((from, 0)))?;
    socket.connect(server.parse().unwrap()).await
}

/// Reads until the server closes the connection or `within` passes; returns what was read and
/// whether it closed.
async fn read_until_closed(stream: &mut TcpStream, within: Duration) -> (Vec<u8>, bool) {
    let mut read = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Err(_) => return (read, false),
            Ok(Ok(0) | Err(_)) => return (read, true),
            Ok(Ok(count)) => read.extend_from_slice(&buffer[..count]),
        }
    }
}

/// One request on a connection of its own from `from`; the status and JSON body.
async fn request_from(
    from: [u8; 4],
    server: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> std::io::Result<(u16, Value)> {
    let mut stream = connect_from(from, server).await?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {server}\r\nConnection: close\r\nContent-Length: {}\r\nContent-Type: application/json\r\n",
        body.len()
    );
    if let Some(token) = token {
        request.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).await?;
    let (response, closed) = read_until_closed(&mut stream, Duration::from_secs(30)).await;
    if !closed {
        return Err(std::io::Error::other("no answer within 30 s"));
    }
    parse_response(&response)
}

/// The status and JSON body of a whole HTTP/1.1 response (not chunked).
fn parse_response(response: &[u8]) -> std::io::Result<(u16, Value)> {
    let text = String::from_utf8_lossy(response);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| std::io::Error::other(format!("no whole response: {text:?}")))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status"))?;
    Ok((status, serde_json::from_str(body).unwrap_or(Value::Null)))
}

const PLAYER: [u8; 4] = [127, 0, 0, 2];
const ATTACKER: [u8; 4] = [127, 0, 0, 1];

/// A game of one person against a random bot; the id and the person's token.
async fn new_game(server: &str, rounds: i64) -> (String, String) {
    let body = json!({
        "ruleset": RULESET.id, "map": RULESET.map,
        "seats": seats_json(&[None, Some("random")]),
        "options": { "rounds": rounds },
    });
    let (status, created) = request_from(PLAYER, server, "POST", "/api/games", None, Some(&body))
        .await
        .unwrap();
    assert_eq!(status, 201, "{created}");
    let token = created["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|seat| seat["token"].as_str())
        .unwrap()
        .to_owned();
    (created["id"].as_str().unwrap().to_owned(), token)
}

/// Plays `moves` moves (new games as games end) and returns how long each move took, from the
/// view that shows the turn to the answered action. Panics on any failed request.
async fn play(server: &str, moves: usize, seed: u8) -> Vec<Duration> {
    let mut rng = answer_rng(seed);
    let mut timings = Vec::with_capacity(moves);
    let (mut game, mut token) = new_game(server, 50).await;
    while timings.len() < moves {
        let started = Instant::now();
        let path = format!("/api/games/{game}/view");
        let (status, view) = request_from(PLAYER, server, "GET", &path, Some(&token), None)
            .await
            .expect("the player's view is answered");
        assert_eq!(status, 200, "{view}");
        if view["status"] == "finished" {
            (game, token) = new_game(server, 50).await;
            continue;
        }
        if view["pending"].as_array().is_none_or(Vec::is_empty) {
            tokio::time::sleep(Duration::from_millis(1)).await;
            continue;
        }
        let body = json!({ "version": view["version"], "action": random_answer(&view, &mut rng) });
        let path = format!("/api/games/{game}/actions");
        let (status, answer) =
            request_from(PLAYER, server, "POST", &path, Some(&token), Some(&body))
                .await
                .expect("the player's move is answered");
        // The bot may move in between (both seats can be pending at once): look again.
        if status == 409 {
            continue;
        }
        assert_eq!(status, 200, "{answer}");
        timings.push(started.elapsed());
    }
    timings
}

fn percentile(timings: &[Duration], per_cent: usize) -> Duration {
    let mut sorted = timings.to_vec();
    sorted.sort();
    sorted[(sorted.len() * per_cent / 100).min(sorted.len() - 1)]
}

fn moves_per_second(timings: &[Duration]) -> f64 {
    timings.len() as f64 / timings.iter().sum::<Duration>().as_secs_f64()
}

/// Open file descriptors of a process (Linux only; `None` elsewhere).
fn open_files(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn regression_idle_connections_were_never_closed() {
    let dir = TempDir::new("idle-connections");
    let server = start(&dir, &["--head-timeout-secs", "1"]);
    // A connection that never sends anything.
    let mut silent = connect_from(ATTACKER, &server.addr).await.unwrap();
    // A keep-alive connection that sent one request and then nothing.
    let mut kept = connect_from(ATTACKER, &server.addr).await.unwrap();
    kept.write_all(b"GET /api/rulesets HTTP/1.1\r\nHost: tenka\r\n\r\n")
        .await
        .unwrap();
    let (answer, closed) = read_until_closed(&mut kept, Duration::from_secs(6)).await;
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"),
        "{:?}",
        String::from_utf8_lossy(&answer)
    );
    assert!(closed, "an idle keep-alive connection stayed open");
    let (_, closed) = read_until_closed(&mut silent, Duration::from_secs(5)).await;
    assert!(closed, "a connection that never sent a request stayed open");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn regression_an_unfinished_header_was_read_for_ever() {
    let dir = TempDir::new("slow-header");
    let server = start(&dir, &["--head-timeout-secs", "1"]);
    let mut slow = connect_from(ATTACKER, &server.addr).await.unwrap();
    slow.write_all(b"GET /api/rulesets HTTP/1.1\r\nHost: tenka\r\nX-Slow: ")
        .await
        .unwrap();
    // One more byte every 200 ms: the head never finishes, but the client is never silent.
    let started = Instant::now();
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(6) {
        if slow.write_all(b"a").await.is_err() {
            closed = true;
            break;
        }
        let (_, gone) = read_until_closed(&mut slow, Duration::from_millis(200)).await;
        if gone {
            closed = true;
            break;
        }
    }
    assert!(
        closed,
        "a head trickled byte by byte was read for {:?}",
        started.elapsed()
    );
    // A head larger than the limit is answered 431 at once.
    let mut large = connect_from(ATTACKER, &server.addr).await.unwrap();
    let header = format!(
        "GET /api/rulesets HTTP/1.1\r\nHost: tenka\r\nX-Large: {}\r\n\r\n",
        "a".repeat(100 << 10)
    );
    let _ = large.write_all(header.as_bytes()).await;
    let (answer, closed) = read_until_closed(&mut large, Duration::from_secs(5)).await;
    assert!(closed, "a 100 KiB head kept its connection open");
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 431"),
        "{:?}",
        String::from_utf8_lossy(&answer)
    );
}

/// Opens `count` connections from the attacker's address, every other one sending an unfinished
/// head; returns those the server kept open and how many it refused within `refusal_within`.
async fn open_attack(
    server: &str,
    count: usize,
    refusal_within: Duration,
) -> (Vec<TcpStream>, usize, Vec<String>) {
    let mut held = Vec::new();
    let mut refused = 0;
    let mut hanging = Vec::new();
    for n in 0..count {
        let Ok(mut stream) = connect_from(ATTACKER, server).await else {
            // Refused by the kernel's backlog: refused at once, too.
            refused += 1;
            continue;
        };
        if n % 2 == 1 {
            let _ = stream
                .write_all(b"GET /api/rulesets HTTP/1.1\r\nHost: tenka\r\nX-Slow: a")
                .await;
        }
        held.push(stream);
    }
    // Those beyond the cap are answered 429 and closed; the others are still open.
    let checks: Vec<_> = held
        .into_iter()
        .map(|mut stream| {
            tokio::spawn(async move {
                let (answer, closed) = read_until_closed(&mut stream, refusal_within).await;
                (stream, answer, closed)
            })
        })
        .collect();
    let mut kept = Vec::new();
    for check in checks {
        let (stream, answer, closed) = check.await.unwrap();
        if closed {
            let answer = String::from_utf8_lossy(&answer).into_owned();
            if !answer.is_empty() && !answer.starts_with("HTTP/1.1 429") {
                hanging.push(answer);
            }
            refused += 1;
        } else {
            kept.push(stream);
        }
    }
    (kept, refused, hanging)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_address_with_hundreds_of_idle_and_slow_connections_cannot_stop_another_player() {
    // `cargo xtask fuzz` runs a bigger attack through these variables.
    let from_env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or(default)
    };
    let cap = from_env("TENKA_FLOOD_CAP", 64);
    let attack = from_env("TENKA_FLOOD_CONNECTIONS", 300);
    let moves = from_env("TENKA_FLOOD_MOVES", 150);
    // This process holds the attacker's sockets: it may need more than the usual 1,024 files.
    host::server::connections::raise_open_file_limit();
    let dir = TempDir::new("connection-flood");
    let server = start(
        &dir,
        &[
            "--connections-per-address",
            &cap.to_string(),
            "--head-timeout-secs",
            "30",
        ],
    );
    let pid = server.child.id();
    let before_files = open_files(pid);
    let quiet = play(&server.addr, moves, 1).await;

    let attack_started = Instant::now();
    let (kept, refused, wrong) = open_attack(&server.addr, attack, Duration::from_secs(1)).await;
    let opened_in = attack_started.elapsed();
    let during_files = open_files(pid);
    assert!(wrong.is_empty(), "refusals that were not 429: {wrong:?}");
    assert_eq!(
        kept.len(),
        cap,
        "the server kept more or fewer than its cap open"
    );
    assert_eq!(refused, attack - cap);

    // The attacker's open connections stay open while the player plays.
    let attacked = play(&server.addr, moves, 2).await;
    // Every new connection from the attacker is still refused at once.
    let probe_started = Instant::now();
    let mut probe = connect_from(ATTACKER, &server.addr).await.unwrap();
    let (answer, closed) = read_until_closed(&mut probe, Duration::from_secs(2)).await;
    assert!(closed, "a connection beyond the cap was left hanging");
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 429"));
    let probe_refused_in = probe_started.elapsed();

    println!(
        "connection flood: {attack} connections opened from one address in {opened_in:?}, {} held \
         (cap {cap}), {refused} refused with 429 (a late one in {probe_refused_in:?}); server fds \
         {before_files:?} before, {during_files:?} during",
        kept.len()
    );
    println!(
        "player on another address: {:.0} moves/s, p50 {:?}, p99 {:?} without the attack; \
         {:.0} moves/s, p50 {:?}, p99 {:?} during it",
        moves_per_second(&quiet),
        percentile(&quiet, 50),
        percentile(&quiet, 99),
        moves_per_second(&attacked),
        percentile(&attacked, 50),
        percentile(&attacked, 99),
    );
    drop(kept);
    server.kill();
}

/// Reads one whole response (with `Content-Length`) from a keep-alive connection; `None` when
/// the connection closed or nothing came within 5 s.
async fn read_response(stream: &mut TcpStream) -> Option<(u16, Value)> {
    let mut read = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if let Some(end) = read.windows(4).position(|window| window == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&read[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .and_then(|value| value.trim().parse().ok())
                .unwrap_or(0);
            if read.len() >= end + 4 + length {
                return parse_response(&read[..end + 4 + length]).ok();
            }
        }
        match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer)).await {
            Ok(Ok(count)) if count > 0 => read.extend_from_slice(&buffer[..count]),
            _ => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn regression_a_post_refused_by_the_rate_limit_could_lose_its_connection() {
    let dir = TempDir::new("rate-limited-post");
    let server = start(&dir, &["--requests-per-second", "1"]);
    let mut stream = connect_from(ATTACKER, &server.addr).await.unwrap();
    // Spend the address's burst.
    let mut limited = false;
    for _ in 0..20 {
        stream
            .write_all(b"GET /api/rulesets HTTP/1.1\r\nHost: tenka\r\n\r\n")
            .await
            .unwrap();
        let (status, _) = read_response(&mut stream).await.expect("an answer");
        if status == 429 {
            limited = true;
            break;
        }
    }
    assert!(limited, "the rate limit never applied");
    // A POST whose body is still on its way when the limit refuses it.
    let body = json!({ "ruleset": RULESET.id, "map": RULESET.map, "seats": [], "options": { "pad": "x".repeat(20_000) } })
        .to_string();
    let head = format!(
        "POST /api/games HTTP/1.1\r\nHost: tenka\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body.as_bytes()[..100]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The rest of the body arrives on a connection still open, and the answer is a 429.
    let rest = stream.write_all(&body.as_bytes()[100..]).await;
    assert!(
        rest.is_ok(),
        "the connection was closed under the body: {rest:?}"
    );
    let answer = read_response(&mut stream).await;
    assert_eq!(answer.map(|(status, _)| status), Some(429));
    // And the connection still serves the client's next request.
    stream
        .write_all(b"GET /api/rulesets HTTP/1.1\r\nHost: tenka\r\n\r\n")
        .await
        .unwrap();
    let next = read_response(&mut stream).await;
    assert!(
        next.is_some(),
        "the connection was closed after the refused POST; its next request was lost"
    );
    server.kill();
}

#[tokio::test]
async fn regression_one_address_could_open_event_streams_without_limit() {
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt as _;

    let dir = TempDir::new("stream-cap");
    let app = crate::server_support::TestApp::start_configured(&dir.0, None, |_, server| {
        server.streams_per_address = 2;
    })
    .await;
    let (game, _) = app.create(&[None, Some("random")], json!({})).await;
    let open = || {
        let request = Request::get(format!("/api/games/{game}/stream"))
            .header("accept", "text/event-stream")
            .body(Body::empty())
            .unwrap();
        app.router.clone().oneshot(request)
    };
    // Spectators' streams from one address (in-process callers share one) count.
    let first = open().await.unwrap();
    let second = open().await.unwrap();
    assert_eq!(first.status(), 200);
    assert_eq!(second.status(), 200);
    let third = open().await.unwrap();
    assert_eq!(
        third.status(),
        429,
        "a third stream was opened past the cap"
    );
    assert!(third.headers().contains_key("retry-after"));
    let (status, body) = app
        .send(
            Request::get(format!("/api/games/{game}/stream"))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(status, 429);
    assert_eq!(body["error"], "too-many-streams");
    // A stream that ends gives its slot back.
    drop(first);
    let again = open().await.unwrap();
    assert_eq!(again.status(), 200);
    assert_eq!(app.state.stream_slots.held_by([0, 0, 0, 0].into()), 2);
    drop((second, again));
    assert_eq!(app.state.stream_slots.held_by([0, 0, 0, 0].into()), 0);
}

/// hyper answers a request it cannot parse itself, before any of the server's layers: a bare 400
/// without our headers (`docs/api.md` says so). What can be promised: an answer, then the
/// connection closed, never a hang.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_request_line_is_answered_400_and_its_connection_closed() {
    let dir = TempDir::new("malformed-line");
    let server = start(&dir, &[]);
    let mut stream = connect_from(ATTACKER, &server.addr).await.unwrap();
    stream
        .write_all(b"GET /api/rulesets HTTP/9 \x01\r\n\r\n")
        .await
        .unwrap();
    let (answer, closed) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(closed, "a malformed request kept its connection open");
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 400"),
        "{:?}",
        String::from_utf8_lossy(&answer)
    );
    server.kill();
}
