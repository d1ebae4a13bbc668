//! Crash safety: while clients and bots play, the server process is killed with SIGKILL and
//! started again on the same data folder. Every action that was answered with success must still
//! be there with what it did, and the games, bots' included, go on.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::server_support::{
    RULESET, ServerProcess, TempDir, answer_rng, http, http_act, http_view, random_answer,
    seat_tokens,
};

/// An action the server answered with 200: (game, version, seat, the events it answered).
type Answered = (String, u64, u32, Value);

/// A game and its people's seats with their tokens.
type Game = (String, Vec<(u32, String)>);

/// Plays one game's human seats as fast as possible until the server goes away or `stop`.
fn play_until_gone(
    addr: &str,
    game: &str,
    tokens: &[(u32, String)],
    seed: u8,
    answered: &Mutex<Vec<Answered>>,
    stop: Instant,
) {
    let mut rng = answer_rng(seed);
    while Instant::now() < stop {
        let mut progressed = false;
        for (seat, token) in tokens {
            let Ok((200, view)) = http_view(addr, game, Some(token)) else {
                return;
            };
            if view["status"] == "finished" {
                return;
            }
            if view["pending"]
                .as_array()
                .is_none_or(|pending| pending.is_empty())
            {
                continue;
            }
            let body =
                json!({ "version": view["version"], "action": random_answer(&view, &mut rng) });
            match http_act(addr, game, token, &body) {
                Ok((200, answer)) => {
                    answered.lock().unwrap().push((
                        game.to_owned(),
                        answer["version"].as_u64().unwrap(),
                        *seat,
                        answer["events"].clone(),
                    ));
                    progressed = true;
                }
                Ok((409, _)) => {}
                Ok((status, answer)) => panic!("unexpected answer {status}: {answer}"),
                Err(_) => return,
            }
        }
        if !progressed {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// A game of `seats` people and then `bots` random bots.
fn create_game(addr: &str, seats: usize, bots: usize, rounds: i64) -> (String, Vec<(u32, String)>) {
    let seats: Vec<Value> = (0..seats)
        .map(|_| json!({ "kind": "human", "creator": true }))
        .chain((0..bots).map(|_| json!({ "kind": "bot", "bot": "random" })))
        .collect();
    let body = json!({ "ruleset": RULESET.id, "map": RULESET.map, "seats": seats, "options": { "rounds": rounds } });
    let (status, created) = http(addr, "POST", "/api/games", None, Some(&body)).unwrap();
    assert_eq!(status, 201, "{created}");
    (
        created["id"].as_str().unwrap().to_owned(),
        seat_tokens(&created),
    )
}

#[test]
fn every_answered_action_survives_a_sigkill_and_the_games_go_on() {
    let dir = TempDir::new("crash");
    let server = ServerProcess::start(&dir.0, None);
    let (games, answered) = play_then_kill(server);
    let server = ServerProcess::start(&dir.0, None);
    check_answered_survived(&server, &games, &answered);
    server.kill();
}

/// Power loss: only what the database synced to disk survives. The server runs with a shim
/// that keeps each database file as it was at its last fsync; after the kill those copies replace
/// the files, as a disk after a power cut would hold them. Every answered action must be among
/// what was synced: an action is answered only after the batch holding it is durable.
#[test]
fn every_answered_action_survives_a_power_cut() {
    let dir = TempDir::new("power-cut");
    let shim = build_fsync_shadow(&dir.0);
    let data = dir.0.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let data = data.canonicalize().unwrap();
    let server = ServerProcess::start_with_env(
        &dir.0,
        None,
        &[
            ("LD_PRELOAD", shim.as_os_str()),
            ("TENKA_SHADOW_DIR", data.as_os_str()),
        ],
    );
    let (games, answered) = play_then_kill(server);
    cut_power(&data);
    let server = ServerProcess::start(&dir.0, None);
    check_answered_survived(&server, &games, &answered);
    server.kill();
}

/// Compiles `tests/support/fsync_shadow.c` into a preloadable library in `dir`.
fn build_fsync_shadow(dir: &std::path::Path) -> std::path::PathBuf {
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("support/fsync_shadow.c");
    let library = dir.join("libfsync_shadow.so");
    let status = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&library)
        .arg(&source)
        .arg("-ldl")
        .arg("-lpthread")
        .status()
        .expect("a C compiler (cc) is installed");
    assert!(status.success(), "compiling the fsync shim failed");
    library
}

/// What the disk holds after a power cut: every file as of its last sync, files never synced
/// gone (the shared-memory index of the write-ahead log is never synced; SQLite rebuilds it).
fn cut_power(data: &std::path::Path) {
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(data)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    let synced = |file: &std::path::Path| {
        let mut name = file.as_os_str().to_owned();
        name.push(".synced");
        std::path::PathBuf::from(name)
    };
    let mut kept = 0;
    for file in &files {
        let name = file.to_string_lossy();
        if name.ends_with(".synced") || name.ends_with(".synced-tmp") {
            continue;
        }
        let copy = synced(file);
        if copy.exists() {
            std::fs::rename(&copy, file).unwrap();
            kept += 1;
        } else {
            std::fs::remove_file(file).unwrap();
        }
    }
    for file in &files {
        if file.to_string_lossy().ends_with(".synced-tmp") {
            let _ = std::fs::remove_file(file);
        }
    }
    assert!(kept > 0, "the shim saw the database sync its files");
}

/// Plays four games against `server` (three of people, one person against two bots) until at
/// least 150 actions are answered, then kills it; returns the games and what was answered.
fn play_then_kill(server: ServerProcess) -> (Vec<Game>, Vec<Answered>) {
    // Three games of people, and one where a person plays against two bots.
    let games: Vec<(String, Vec<(u32, String)>)> = (0..3)
        .map(|i| create_game(&server.addr, 2 + i, 0, 40))
        .chain(std::iter::once(create_game(&server.addr, 1, 2, 40)))
        .collect();

    let answered = Arc::new(Mutex::new(Vec::new()));
    let stop = Instant::now() + Duration::from_secs(20);
    let players: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(i, (game, tokens))| {
            let (addr, game, tokens, answered) = (
                server.addr.clone(),
                game.clone(),
                tokens.clone(),
                answered.clone(),
            );
            std::thread::spawn(move || {
                play_until_gone(&addr, &game, &tokens, i as u8, &answered, stop)
            })
        })
        .collect();
    // Let traffic flow, then kill the server in the middle of it.
    let started = Instant::now();
    while answered.lock().unwrap().len() < 150 && started.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(10));
    }
    server.kill();
    for player in players {
        player.join().unwrap();
    }
    let answered = answered.lock().unwrap().clone();
    assert!(
        answered.len() >= 150,
        "the clients made progress before the crash ({})",
        answered.len()
    );
    (games, answered)
}

/// Checks on a restarted server that every answered action is stored with what was answered,
/// without gaps, and that every game goes on.
fn check_answered_survived(server: &ServerProcess, games: &[Game], answered: &[Answered]) {
    for (game, tokens) in games {
        let (status, log) = http(
            &server.addr,
            "GET",
            &format!("/api/games/{game}/log"),
            None,
            None,
        )
        .unwrap();
        assert_eq!(status, 200, "game {game} survives: {log}");
        let log = log.as_array().unwrap();
        for (_, version, seat, events) in answered
            .iter()
            .filter(|(answered_game, ..)| answered_game == game)
        {
            let entry = log
                .iter()
                .find(|entry| entry["version"] == *version)
                .unwrap_or_else(|| panic!("answered action {version} of game {game} is lost"));
            assert_eq!(
                entry["seat"], *seat,
                "version {version} is the answered seat's action"
            );
            // Its content too: the seat reads back exactly the events it was answered.
            let token = &tokens.iter().find(|(s, _)| s == seat).unwrap().1;
            let (_, own_log) = http(
                &server.addr,
                "GET",
                &format!("/api/games/{game}/log?since={}", version - 1),
                Some(token),
                None,
            )
            .unwrap();
            assert_eq!(
                &own_log[0]["events"], events,
                "version {version} of game {game} holds what was answered"
            );
        }
        // Versions have no gaps: the log is exactly 1..=n.
        let versions: Vec<u64> = log
            .iter()
            .map(|entry| entry["version"].as_u64().unwrap())
            .collect();
        assert_eq!(versions, (1..=versions.len() as u64).collect::<Vec<_>>());

        // The game goes on after the restart: a person gets a decision (once the bots, which
        // resume by themselves, have made theirs).
        let before = versions.len() as u64;
        let deadline = Instant::now() + Duration::from_secs(20);
        let (seat, token) = loop {
            let waiting = tokens.iter().find(|(_, token)| {
                let (_, view) = http_view(&server.addr, game, Some(token)).unwrap();
                view["pending"]
                    .as_array()
                    .is_some_and(|pending| !pending.is_empty())
            });
            if let Some(waiting) = waiting {
                break waiting;
            }
            assert!(
                Instant::now() < deadline,
                "no seat of game {game} gets a decision"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let (_, view) = http_view(&server.addr, game, Some(token)).unwrap();
        let body = json!({ "version": view["version"], "action": random_answer(&view, &mut answer_rng(9)) });
        let (status, answer) = http_act(&server.addr, game, token, &body).unwrap();
        assert_eq!(status, 200, "seat {seat} plays on: {answer}");
        // Bots may have moved since the log was read, and since the view (an answer to the
        // seat's unchanged decision is not stale): the move lands after the version it saw.
        assert!(view["version"].as_u64().unwrap() >= before);
        assert!(
            answer["version"].as_u64() > view["version"].as_u64(),
            "{answer}"
        );
    }
}

/// Sends `body` to `path` on `server` and kills the server while the request is under way (after
/// `delay`), so its answer is lost whether or not the server had stored what it did; returns the
/// server started again on the same folder.
fn send_and_kill(
    server: ServerProcess,
    dir: &std::path::Path,
    path: &str,
    token: Option<&str>,
    body: &Value,
    delay: Duration,
) -> ServerProcess {
    let (addr, path, token, body) = (
        server.addr.clone(),
        path.to_owned(),
        token.map(str::to_owned),
        body.clone(),
    );
    let sender =
        std::thread::spawn(move || http(&addr, "POST", &path, token.as_deref(), Some(&body)));
    std::thread::sleep(delay);
    server.kill();
    // Whatever came back (an answer, a cut connection) is lost to the client.
    let _ = sender.join();
    ServerProcess::start(dir, None)
}

/// Finding 3 of issue 23: a lost answer to a join or claim locked the seat for ever. Here every
/// join and claim is answered by a server killed while answering; the client retries with the
/// same key on the restarted server and gets the seat; the seat of a person who never comes back
/// is handed to a bot by the host; and the game always finishes.
#[test]
fn joins_and_claims_through_kills_always_finish_the_game() {
    let dir = TempDir::new("crash-joins");
    let mut server = ServerProcess::start(&dir.0, None);
    let seats: Vec<Value> = std::iter::once(json!({ "kind": "human", "creator": true }))
        .chain((0..4).map(|_| json!({ "kind": "human" })))
        .collect();
    let body = json!({ "ruleset": RULESET.id, "map": RULESET.map, "seats": seats, "options": { "rounds": 3 } });
    let (status, created) = http(&server.addr, "POST", "/api/games", None, Some(&body)).unwrap();
    assert_eq!(status, 201, "{created}");
    let game = created["id"].as_str().unwrap().to_owned();
    let host = created["host_token"].as_str().unwrap().to_owned();
    let mut tokens = vec![(
        0u32,
        created["seats"][0]["token"].as_str().unwrap().to_owned(),
    )];
    for seat in 1..=3u32 {
        let code = created["seats"][seat as usize]["invite"].as_str().unwrap();
        let join = json!({ "code": code, "name": format!("P{seat}"), "idempotency_key": format!("crash-join-{seat}-0123456789") });
        let path = format!("/api/games/{game}/join");
        let delay = Duration::from_millis(u64::from(seat) * 2);
        server = send_and_kill(server, &dir.0, &path, None, &join, delay);
        let (status, joined) = http(&server.addr, "POST", &path, None, Some(&join)).unwrap();
        assert_eq!(
            status, 200,
            "the retried join of seat {seat} gets the seat: {joined}"
        );
        assert_eq!(joined["seat"], seat);
        let token = joined["token"].as_str().unwrap().to_owned();

        let claim = json!({ "name": format!("Player {seat}"), "idempotency_key": format!("crash-claim-{seat}-0123456789") });
        let path = format!("/api/games/{game}/claim");
        server = send_and_kill(server, &dir.0, &path, Some(&token), &claim, delay);
        let (status, claimed) =
            http(&server.addr, "POST", &path, Some(&token), Some(&claim)).unwrap();
        assert_eq!(
            status, 200,
            "the retried claim of seat {seat} gets a token: {claimed}"
        );
        tokens.push((seat, claimed["token"].as_str().unwrap().to_owned()));
    }
    // Seat 4's person joined, lost the answer and never came back: the host hands the seat to a
    // bot, so the game goes on.
    let code = created["seats"][4]["invite"].as_str().unwrap();
    let join = json!({ "code": code, "idempotency_key": "crash-join-4-0123456789" });
    server = send_and_kill(
        server,
        &dir.0,
        &format!("/api/games/{game}/join"),
        None,
        &join,
        Duration::from_millis(3),
    );
    let (status, handed) = http(
        &server.addr,
        "POST",
        &format!("/api/games/{game}/seats/4/bot"),
        Some(&host),
        Some(&json!({ "bot": "random" })),
    )
    .unwrap();
    assert_eq!(status, 200, "{handed}");

    // Everyone plays to the end.
    let mut rng = answer_rng(4);
    let deadline = Instant::now() + Duration::from_secs(60);
    'game: loop {
        assert!(Instant::now() < deadline, "game {game} never finished");
        let mut moved = false;
        for (seat, token) in &tokens {
            let (status, view) = http_view(&server.addr, &game, Some(token)).unwrap();
            assert_eq!(status, 200, "seat {seat} reads the game: {view}");
            if view["status"] == "finished" {
                break 'game;
            }
            if view["pending"].as_array().is_none_or(|p| p.is_empty()) {
                continue;
            }
            let body =
                json!({ "version": view["version"], "action": random_answer(&view, &mut rng) });
            let (status, answer) = http_act(&server.addr, &game, token, &body).unwrap();
            assert_eq!(status, 200, "seat {seat} plays: {answer}");
            moved = true;
        }
        if !moved {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    server.kill();
}
