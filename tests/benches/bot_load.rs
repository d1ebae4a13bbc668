//! People's moves while hard bots think, on a real `tenka serve` (release build, embedded SQLite,
//! the shipped components), against the bots' bar: a hard bot's move within 3 s on the server,
//! and people's moves staying fast while 20 hard bots think in the server's bounded bot slots.
//!
//! Three phases in one run, one server:
//! 1. baseline: [`PEOPLE`] closed-loop players of tic-tac-toe (create a game over HTTP, play its
//!    seven moves on the move socket, start the next), nothing else on the server;
//! 2. one game of three hard bots alone: how long each bot move takes on the server;
//! 3. [`BOT_GAMES`] games of three hard bots (the game of phase 2 and more), so that many hard
//!    bots think or wait for a thinking slot at once, and the same players again.
//!
//! A bot's move time is read by following each game's event stream: the time from the update
//! that made the game wait for its next bot move to the update carrying that move (the server
//! publishes an update once a move is stored). The server runs with no bot pace
//! (`--bot-pace-ms 0`) and each game has a stream open, so a bot starts on its move as soon as
//! the one before is stored: the wait is the slot's queue, the thinking and the commit.
//!
//! Every loop is bounded in count and in time, every request goes to 127.0.0.1, and the server
//! is killed at the end. Prints its BENCHMARKS.md section on stdout (progress on stderr);
//! `cargo xtask bench` runs it after the others and writes the section between markers of its
//! own, `cargo xtask bench --bot-load` runs it alone and replaces only that region.
//!
//! Run with `cargo xtask bench --bot-load` (it builds the server and the components first), or
//! after `cargo xtask build`: `cargo bench -p tests --bench bot_load`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;

#[path = "../support/http1.rs"]
mod http1;

use http1::{Http, REQUEST_TIMEOUT, read_chunk, read_head};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;

#[path = "../support/serving.rs"]
mod serving;
use serving::serving_address;

/// Closed-loop players of tic-tac-toe in the people's phases.
const PEOPLE: usize = 10;
/// Seconds of the people's loop before measuring.
const PEOPLE_WARMUP: Duration = Duration::from_secs(2);
/// The measured time of every phase.
const MEASURE: Duration = Duration::from_secs(12);
/// Games played by hard bots alone in the loaded phase, each with one bot move in hand at a
/// time: that many hard bots thinking or waiting for a slot at once.
const BOT_GAMES: usize = 20;
/// Seats of each bot game, all of them the same bot.
const BOT_SEATS: usize = 3;
/// The bot of every seat of the bot games.
const BOT: &str = "hard";
/// Time the bot games run before a measurement, so that the slot's queue is full when it starts.
const BOT_WARMUP: Duration = Duration::from_secs(4);
/// The bar: a hard bot's move on the server, at most.
const BAR: Duration = Duration::from_secs(3);
/// Moves of a tic-tac-toe game where both seats always take the lowest free cell.
const MOVES: u64 = 7;
/// Games one player starts at most in a phase (a bound in count beside the phase's time).
const MAX_GAMES_PER_PLAYER: u64 = 50_000;
/// Updates one bot game's stream is read for at most.
const MAX_UPDATES_PER_STREAM: usize = 20_000;
/// The whole loaded phase ends by then at the latest, whatever happens.
const LOADED_PHASE_LIMIT: Duration = Duration::from_secs(180);
/// How often a spectator of a bot game asks for its view in the loaded phase.
const VIEW_EVERY: Duration = Duration::from_millis(250);
/// Views one spectator asks for at most.
const MAX_VIEWS_PER_SPECTATOR: usize = 2_000;
/// Other processes' CPU use, in cores, from which the machine counts as shared in the report.
const SHARED_CORES: f64 = 0.1;
/// Linux's clock ticks per second, the unit of CPU times in /proc.
const TICKS_PER_SECOND: f64 = 100.0;

/// The workspace root, where `target/release/tenka`, `target/rulesets` and `maps` are.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package lives in the workspace")
        .to_path_buf()
}

/// CPU ticks a process has used, user and system, all threads (`/proc/<pid>/stat`).
fn process_ticks(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<u64> = stat
        .rsplit_once(") ")
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|field| field.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default();
    // utime and stime, the 14th and 15th fields of the line, the 12th and 13th after the name.
    fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0)
}

/// This process's nice value (`/proc/self/stat`); the server it starts inherits it.
fn niceness() -> i64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    stat.rsplit_once(") ")
        .and_then(|(_, rest)| rest.split_whitespace().nth(16)?.parse().ok())
        .unwrap_or(0)
}

/// CPU ticks the whole machine has spent busy (`/proc/stat`: all but idle and iowait).
fn machine_busy_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .map(|field| field.parse().unwrap_or(0))
        .collect();
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    // user nice system idle iowait irq softirq steal; guest time is inside user already.
    fields.iter().take(8).sum::<u64>().saturating_sub(idle)
}

/// CPU use at one moment: the server's, this process's and the machine's.
#[derive(Clone, Copy)]
struct Cpu {
    at: Instant,
    server: u64,
    bench: u64,
    machine: u64,
}

impl Cpu {
    fn now(server_pid: &str) -> Cpu {
        Cpu {
            at: Instant::now(),
            server: process_ticks(server_pid),
            bench: process_ticks("self"),
            machine: machine_busy_ticks(),
        }
    }

    /// Cores used since `before`: (the server, every process other than the server and this
    /// load generator).
    fn cores_since(self, before: Cpu) -> (f64, f64) {
        let seconds = self.at.duration_since(before.at).as_secs_f64().max(1e-9);
        let server = self.server.saturating_sub(before.server);
        let bench = self.bench.saturating_sub(before.bench);
        let others = self
            .machine
            .saturating_sub(before.machine)
            .saturating_sub(server + bench);
        (
            server as f64 / TICKS_PER_SECOND / seconds,
            others as f64 / TICKS_PER_SECOND / seconds,
        )
    }
}

/// The `tenka serve` process, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    /// Starts the release `tenka serve` on a free port over a fresh database in `dir` and waits
    /// until it says where it serves.
    fn start(dir: &Path) -> Result<Server> {
        let root = root();
        let mut command = Command::new(root.join("target/release/tenka"));
        command
            .current_dir(&root)
            .args(["--rulesets", "target/rulesets", "--maps", "maps", "serve"])
            .args(["--addr", "127.0.0.1:0", "--no-watch", "--bot-pace-ms", "0"])
            // Every player and bot game comes from this one address, far above what the
            // limits allow one person or one client.
            .args(["--requests-per-second", "0", "--games-per-minute", "0"])
            .args(["--actions-per-second", "0", "--streams-per-address", "0"])
            .args(["--bot-games-per-address", &BOT_GAMES.to_string()])
            .arg("--data")
            .arg(dir.join("data"))
            .arg("--web")
            .arg(dir.join("no-web-ui"))
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command
            .spawn()
            .with_context(|| format!("failed to start {command:?}"))?;
        let stdout = child.stdout.take().context("no stdout")?;
        // Dropped on failure: the half-started server is killed.
        let mut server = Server {
            child,
            addr: String::new(),
        };
        server.addr = serving_address(stdout, Duration::from_secs(120), |_| {})
            .context("tenka serve did not say where it serves within 2 minutes")?;
        Ok(server)
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Creates a game over `http`; returns its id and its seats' tokens (of the creator's seats).
async fn create_game(http: &mut Http, body: &Value) -> Result<(String, Vec<String>)> {
    let (status, created) = http.request("POST", "/api/games", Some(body)).await?;
    if status != 201 {
        bail!("creating a game answered {status}: {created}");
    }
    let id = created["id"]
        .as_str()
        .context("a created game has no id")?
        .to_owned();
    let tokens = created["seats"]
        .as_array()
        .map(|seats| {
            seats
                .iter()
                .filter_map(|seat| seat["token"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Ok((id, tokens))
}

/// One player's loop: tic-tac-toe games one after the other, both seats played by the player,
/// each move a message on the move socket; the latency of every move answered in
/// `[measure_from, until)` goes to `latencies`, in milliseconds.
async fn player(
    addr: String,
    measure_from: Instant,
    until: Instant,
    latencies: Arc<Mutex<Vec<f64>>>,
) -> Result<()> {
    let (mut socket, _) = tokio::time::timeout(
        REQUEST_TIMEOUT,
        tokio_tungstenite::connect_async(format!("ws://{addr}/api/socket")),
    )
    .await
    .context("opening the move socket timed out")??;
    let mut http = Http::connect(&addr).await?;
    let mut mine = Vec::new();
    let mut next_id = 0u64;
    let body = json!({
        "ruleset": "tictactoe",
        "seats": [{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }],
    });
    'games: for _ in 0..MAX_GAMES_PER_PLAYER {
        if Instant::now() >= until {
            break;
        }
        let (game, tokens) = create_game(&mut http, &body).await?;
        if tokens.len() != 2 {
            bail!("a tic-tac-toe game came with {} tokens", tokens.len());
        }
        for version in 0..MOVES {
            if Instant::now() >= until {
                break 'games;
            }
            let id = next_id;
            next_id += 1;
            let message = json!({
                "id": id,
                "game": game,
                "token": tokens[usize::from(version % 2 == 1)],
                "version": version,
                "action": { "choose": [0] },
            });
            let sent = Instant::now();
            socket.send(Message::text(message.to_string())).await?;
            let answer = tokio::time::timeout(REQUEST_TIMEOUT, async {
                loop {
                    match socket.next().await {
                        Some(Ok(Message::Text(text))) => {
                            return serde_json::from_str::<Value>(&text)
                                .context("an answer that is not JSON");
                        }
                        Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                        other => bail!("the move socket ended: {other:?}"),
                    }
                }
            })
            .await
            .context("a move was not answered in time")??;
            let answered = Instant::now();
            if answer["id"] != json!(id) || answer["version"] != json!(version + 1) {
                bail!("unexpected answer to move {id}: {answer}");
            }
            if answered >= measure_from && answered < until {
                mine.push(answered.duration_since(sent).as_secs_f64() * 1000.0);
            }
        }
    }
    let _ = socket.close(None).await;
    latencies
        .lock()
        .map_err(|_| anyhow::anyhow!("a poisoned lock"))?
        .extend(mine);
    Ok(())
}

/// What the people's loop did in a measured window.
struct PeoplePhase {
    moves_per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    server_cores: f64,
    other_cores: f64,
}

/// The `q` quantile of sorted values (the one at `floor(q * n)`), 0 for none.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let index = ((q * sorted.len() as f64) as usize).min(sorted.len() - 1);
    sorted[index]
}

/// Runs the people's loop: warm-up, then [`MEASURE`] measured.
async fn people(addr: &str, server_pid: &str) -> Result<(PeoplePhase, Instant, Instant)> {
    let measure_from = Instant::now() + PEOPLE_WARMUP;
    let until = measure_from + MEASURE;
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let players: Vec<_> = (0..PEOPLE)
        .map(|_| {
            tokio::spawn(player(
                addr.to_owned(),
                measure_from,
                until,
                latencies.clone(),
            ))
        })
        .collect();
    tokio::time::sleep_until(measure_from.into()).await;
    let before = Cpu::now(server_pid);
    tokio::time::sleep_until(until.into()).await;
    let (server_cores, other_cores) = Cpu::now(server_pid).cores_since(before);
    for player in players {
        player.await.context("a player panicked")??;
    }
    let mut latencies = latencies
        .lock()
        .map_err(|_| anyhow::anyhow!("a poisoned lock"))?
        .clone();
    latencies.sort_by(f64::total_cmp);
    let phase = PeoplePhase {
        moves_per_second: latencies.len() as f64 / MEASURE.as_secs_f64(),
        p50_ms: quantile(&latencies, 0.5),
        p99_ms: quantile(&latencies, 0.99),
        server_cores,
        other_cores,
    };
    Ok((phase, measure_from, until))
}

/// An update of a game's event stream as it arrived.
#[derive(Clone, Copy)]
struct Arrival {
    at: Instant,
    /// Log entries (moves) it carried.
    moves: usize,
}

/// A bot game followed through its event stream.
struct BotGame {
    id: String,
    arrivals: Arc<Mutex<Vec<Arrival>>>,
    task: tokio::task::JoinHandle<Result<()>>,
}

/// Creates a game of [`BOT_SEATS`] hard bots and follows its event stream until `stop`.
async fn start_bot_game(
    addr: &str,
    http: &mut Http,
    stop: watch::Receiver<bool>,
) -> Result<BotGame> {
    let seats: Vec<Value> = (0..BOT_SEATS)
        .map(|_| json!({ "kind": "bot", "bot": BOT }))
        .collect();
    let (game, _) = create_game(
        http,
        &json!({ "ruleset": "shogun", "map": "sun", "seats": seats }),
    )
    .await?;
    let arrivals = Arc::new(Mutex::new(Vec::new()));
    let task = tokio::spawn(follow(
        addr.to_owned(),
        game.clone(),
        arrivals.clone(),
        stop,
    ));
    Ok(BotGame {
        id: game,
        arrivals,
        task,
    })
}

/// Reads a game's event stream (as a spectator) until `stop` says so, noting when each update
/// arrives and how many moves it carries.
async fn follow(
    addr: String,
    game: String,
    arrivals: Arc<Mutex<Vec<Arrival>>>,
    mut stop: watch::Receiver<bool>,
) -> Result<()> {
    let deadline = Instant::now() + LOADED_PHASE_LIMIT * 2;
    let mut stream = BufReader::new(TcpStream::connect(&addr).await?);
    let request = format!(
        "GET /api/games/{game}/stream?since=0 HTTP/1.1\r\nHost: {addr}\r\n\
         Accept: text/event-stream\r\n\r\n"
    );
    stream.get_mut().write_all(request.as_bytes()).await?;
    let head = read_head(&mut stream).await?;
    let (status, chunked) = (head.status, head.chunked);
    if status != 200 {
        bail!("the stream of game {game} answered {status}");
    }
    let mut pending = String::new();
    for _ in 0..MAX_UPDATES_PER_STREAM * 4 {
        let read = async {
            if chunked {
                read_chunk(&mut stream).await
            } else {
                let mut buffer = vec![0; 64 << 10];
                let n = stream.read(&mut buffer).await?;
                buffer.truncate(n);
                Ok((n > 0).then_some(buffer))
            }
        };
        let chunk = tokio::select! {
            chunk = read => chunk?,
            _ = stop.wait_for(|stop| *stop) => return Ok(()),
            () = tokio::time::sleep_until(deadline.into()) => return Ok(()),
        };
        let Some(chunk) = chunk else {
            return Ok(());
        };
        let at = Instant::now();
        pending.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = pending.find('\n') {
            let line: String = pending.drain(..=end).collect();
            if let Some(data) = line.trim_end().strip_prefix("data:") {
                let update: Value = serde_json::from_str(data.trim())
                    .with_context(|| format!("an update of game {game} that is not JSON"))?;
                let moves = update["log"].as_array().map_or(0, Vec::len);
                let mut arrivals = arrivals
                    .lock()
                    .map_err(|_| anyhow::anyhow!("a poisoned lock"))?;
                if arrivals.len() >= MAX_UPDATES_PER_STREAM {
                    return Ok(());
                }
                arrivals.push(Arrival { at, moves });
            }
        }
    }
    Ok(())
}

/// A spectator looking at a bot game every [`VIEW_EVERY`] (`GET /api/games/{id}/view`, as a
/// client does on each update); returns the latency of every view answered in
/// `[measure_from, until)`, in milliseconds.
async fn spectator(
    addr: String,
    game: String,
    measure_from: Instant,
    until: Instant,
) -> Result<Vec<f64>> {
    let mut http = Http::connect(&addr).await?;
    let path = format!("/api/games/{game}/view");
    let mut latencies = Vec::new();
    for _ in 0..MAX_VIEWS_PER_SPECTATOR {
        if Instant::now() >= until {
            break;
        }
        let sent = Instant::now();
        let (status, view) = http.request("GET", &path, None).await?;
        let answered = Instant::now();
        if status != 200 {
            bail!("the view of game {game} answered {status}: {view}");
        }
        if answered >= measure_from && answered < until {
            latencies.push(answered.duration_since(sent).as_secs_f64() * 1000.0);
        }
        tokio::time::sleep(VIEW_EVERY).await;
    }
    Ok(latencies)
}

/// The bots' moves whose update arrived in `[from, until)` over `games`: each the time since
/// the update before it in its game. Also the moves they carried, and the longest wait still
/// open at `until` (since a game's last update).
fn bot_move_times(games: &[&BotGame], from: Instant, until: Instant) -> (Vec<f64>, usize, f64) {
    let mut times = Vec::new();
    let mut moves = 0;
    let mut open: f64 = 0.0;
    for game in games {
        let Ok(arrivals) = game.arrivals.lock() else {
            continue;
        };
        for pair in arrivals.windows(2) {
            if pair[1].at >= from && pair[1].at < until && pair[1].moves > 0 {
                times.push(pair[1].at.duration_since(pair[0].at).as_secs_f64());
                moves += pair[1].moves;
            }
        }
        if let Some(last) = arrivals.iter().rev().find(|arrival| arrival.at < until) {
            open = open.max(until.duration_since(last.at).as_secs_f64());
        }
    }
    times.sort_by(f64::total_cmp);
    (times, moves, open)
}

/// A row of the bots' table.
fn bot_row(what: &str, times: &[f64], moves: usize, open: f64) -> (String, bool) {
    let max = times.last().copied().unwrap_or(0.0);
    let met = !times.is_empty() && max <= BAR.as_secs_f64() && open <= BAR.as_secs_f64();
    let row = format!(
        "| {what} | {} ({moves}) | {:.2} s | {:.2} s | {max:.2} s | {open:.2} s | {} |",
        times.len(),
        quantile(times, 0.5),
        quantile(times, 0.99),
        if met { "met" } else { "not met" },
    );
    (row, met)
}

/// The ratio of two figures, or `n/a` when the baseline is zero.
fn ratio(value: f64, baseline: f64) -> String {
    if baseline > 0.0 {
        format!("{:.2}x", value / baseline)
    } else {
        "n/a".to_owned()
    }
}

async fn run(server: &Server) -> Result<String> {
    let addr = server.addr.clone();
    let pid = server.pid();

    eprintln!("bot_load: baseline, {PEOPLE} players");
    let (baseline, _, _) = people(&addr, &pid).await?;

    eprintln!("bot_load: one game of {BOT_SEATS} {BOT} bots alone");
    let (stop, stopped) = watch::channel(false);
    let mut http = Http::connect(&addr).await?;
    let mut games = vec![start_bot_game(&addr, &mut http, stopped.clone()).await?];
    tokio::time::sleep(BOT_WARMUP).await;
    let alone_from = Instant::now();
    let before = Cpu::now(&pid);
    tokio::time::sleep(MEASURE).await;
    let alone_until = Instant::now();
    let (alone_server_cores, alone_other_cores) = Cpu::now(&pid).cores_since(before);
    let (alone_times, alone_moves, alone_open) =
        bot_move_times(&[&games[0]], alone_from, alone_until);

    eprintln!("bot_load: {BOT_GAMES} games of {BOT} bots and {PEOPLE} players");
    let loaded_start = Instant::now();
    // A fresh connection: the server closes one left idle as long as the phase before took.
    let mut http = Http::connect(&addr).await?;
    while games.len() < BOT_GAMES {
        games.push(start_bot_game(&addr, &mut http, stopped.clone()).await?);
    }
    tokio::time::sleep(BOT_WARMUP).await;
    // The people's window, known before it starts: the spectators measure over the same one.
    let spectators_from = Instant::now() + PEOPLE_WARMUP;
    let spectators: Vec<_> = games
        .iter()
        .map(|game| {
            tokio::spawn(spectator(
                addr.clone(),
                game.id.clone(),
                spectators_from,
                spectators_from + MEASURE,
            ))
        })
        .collect();
    let (loaded, loaded_from, loaded_until) =
        tokio::time::timeout(LOADED_PHASE_LIMIT, people(&addr, &pid))
            .await
            .context("the loaded phase took too long")??;
    let mut views = Vec::new();
    for spectator in spectators {
        let latencies = tokio::time::timeout(LOADED_PHASE_LIMIT, spectator)
            .await
            .context("a spectator took too long")?
            .context("a spectator panicked")??;
        views.extend(latencies);
    }
    views.sort_by(f64::total_cmp);
    let every: Vec<&BotGame> = games.iter().collect();
    let (loaded_times, loaded_moves, loaded_open) =
        bot_move_times(&every, loaded_from, loaded_until);
    let moved_games = games
        .iter()
        .filter(|game| {
            game.arrivals.lock().is_ok_and(|arrivals| {
                arrivals.iter().any(|arrival| {
                    arrival.moves > 0 && arrival.at >= loaded_from && arrival.at < loaded_until
                })
            })
        })
        .count();
    let _ = stop.send(true);
    for game in games {
        game.task.await.context("a stream follower panicked")??;
    }
    let loaded_seconds = loaded_until.duration_since(loaded_start).as_secs_f64();
    eprintln!("bot_load: done");

    let mut out = String::from("## Server: people's moves while hard bots think\n\n");
    out.push_str(&format!(
        "A real `tenka serve` (release build, embedded SQLite in a temporary folder, the shipped \
         components, default slots: {cores} cores give {bot_slots} bot thinking slot(s) and a \
         think time of 2 s; `--bot-pace-ms 0` and the per-address limits off, as every client \
         here is 127.0.0.1). People: {PEOPLE} players in a closed loop, each creating a \
         tic-tac-toe game over HTTP (keep-alive) and playing its {MOVES} moves on the move \
         socket, answered once durable; latency is per move, from sending to the answer; \
         {} s of warm-up, then {} s measured. Bots: games of {BOT_SEATS} `{BOT}` bots of Shogun, \
         each followed on its event stream (so watched, at no pace); a bot's move time runs \
         from the update that left the game waiting for its next bot move to the update with \
         that move: its wait for a slot, its thinking and the commit. Baseline first, then one \
         bot game alone ({} s after {} s of warm-up, no players), then {BOT_GAMES} bot games at \
         once (that many hard bots thinking or queued for a slot) with the players again, \
         measured over the players' window. CPU is the server's and that of every other \
         process on the machine (this load generator left out), over the window, in cores.\n\n",
        PEOPLE_WARMUP.as_secs(),
        MEASURE.as_secs(),
        MEASURE.as_secs(),
        BOT_WARMUP.as_secs(),
        cores = std::thread::available_parallelism().map_or(0, |n| n.get()),
        bot_slots = (std::thread::available_parallelism().map_or(2, |n| n.get()) / 2).max(1),
    ));
    out.push_str(
        "| people's moves | moves/s | p50 | p99 | server CPU | other processes' CPU | \
         ratio moves/s | ratio p99 |\n|---|---|---|---|---|---|---|---|\n",
    );
    out.push_str(&format!(
        "| {PEOPLE} players alone (baseline) | {:.0} | {:.2} ms | {:.2} ms | {:.2} | {:.2} | 1.00x | 1.00x |\n",
        baseline.moves_per_second,
        baseline.p50_ms,
        baseline.p99_ms,
        baseline.server_cores,
        baseline.other_cores,
    ));
    out.push_str(&format!(
        "| {PEOPLE} players, {BOT_GAMES} games of hard bots thinking | {:.0} | {:.2} ms | {:.2} ms | {:.2} | {:.2} | {} | {} |\n\n",
        loaded.moves_per_second,
        loaded.p50_ms,
        loaded.p99_ms,
        loaded.server_cores,
        loaded.other_cores,
        ratio(loaded.moves_per_second, baseline.moves_per_second),
        ratio(loaded.p99_ms, baseline.p99_ms),
    ));
    out.push_str(&format!(
        "| hard bots' moves on the server | bot moves timed (moves in them) | p50 | p99 | max | \
         longest wait still open at the end | at most {} s |\n|---|---|---|---|---|---|---|\n",
        BAR.as_secs()
    ));
    let (alone_row, alone_met) = bot_row(
        "one game of 3 hard bots alone",
        &alone_times,
        alone_moves,
        alone_open,
    );
    let (loaded_row, loaded_met) = bot_row(
        &format!("{BOT_GAMES} games of 3 hard bots, with the players"),
        &loaded_times,
        loaded_moves,
        loaded_open,
    );
    out.push_str(&format!("{alone_row}\n{loaded_row}\n\n"));
    out.push_str(&format!(
        "Spectators of the {BOT_GAMES} bot games, each asking for its game's view every {} ms \
         over the same window: {} views, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (a view not \
         yet computed for the game's version waits for the game's lock, which the game's bot \
         task holds while it thinks, having taken its thinking slot first).\n\n",
        VIEW_EVERY.as_millis(),
        views.len(),
        quantile(&views, 0.5),
        quantile(&views, 0.99),
        views.last().copied().unwrap_or(0.0),
    ));
    out.push_str(&format!(
        "One bot game alone: server CPU {alone_server_cores:.2} cores, other processes \
         {alone_other_cores:.2}. With {BOT_GAMES} bot games, {moved_games} of them published a \
         move in the window; they made {loaded_moves} moves in the {:.0} s measured ({:.2} bot \
         moves/s; {loaded_seconds:.0} s since the first of them was created).\n\n",
        MEASURE.as_secs_f64(),
        loaded_moves as f64 / MEASURE.as_secs_f64(),
    ));
    let verdict = |met: bool| if met { "met" } else { "not met" };
    out.push_str(&format!(
        "Bar: a hard bot's move within {} s on the server: {} for one game alone (max {:.2} s), \
         {} with {BOT_GAMES} hard bots thinking at once (p50 {:.2} s, max {:.2} s, a wait of \
         {:.2} s still open at the end). People's moves while they think: p99 {:.2} ms against \
         {:.2} ms without them ({}), {:.0} moves/s against {:.0} ({}).\n",
        BAR.as_secs(),
        verdict(alone_met),
        alone_times.last().copied().unwrap_or(0.0),
        verdict(loaded_met),
        quantile(&loaded_times, 0.5),
        loaded_times.last().copied().unwrap_or(0.0),
        loaded_open,
        loaded.p99_ms,
        baseline.p99_ms,
        ratio(loaded.p99_ms, baseline.p99_ms),
        loaded.moves_per_second,
        baseline.moves_per_second,
        ratio(loaded.moves_per_second, baseline.moves_per_second),
    ));
    let others = [baseline.other_cores, alone_other_cores, loaded.other_cores];
    let busiest = others.iter().copied().fold(0.0, f64::max);
    if busiest >= SHARED_CORES {
        out.push_str(&format!(
            "\nThe machine was shared: other processes used {:.2} to {busiest:.2} cores on \
             average over the measured windows (see the CPU columns), so the figures were \
             measured beside that load.\n",
            others.iter().copied().fold(f64::INFINITY, f64::min),
        ));
    }
    let nice = niceness();
    if nice != 0 {
        out.push_str(&format!(
            "\nThe server and this load generator ran at nice {nice}.\n"
        ));
    }
    Ok(out)
}

fn main() -> Result<()> {
    // `cargo bench` passes `--bench`; a test build of the benches (`cargo test --benches`) runs
    // this binary without it, and a minute of load does not belong in a test run.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("bot_load: a benchmark; run it with `cargo bench -p tests --bench bot_load`");
        return Ok(());
    }
    let root = root();
    for needed in [
        "target/release/tenka",
        "target/rulesets/shogun.wasm",
        "target/rulesets/tictactoe.wasm",
    ] {
        if !root.join(needed).exists() {
            bail!("{needed} is missing: build it first with `cargo xtask build`");
        }
    }
    let dir = root.join("target/tmp/bot-load-bench");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let server = Server::start(&dir)?;
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let section = tokio.block_on(run(&server));
    drop(tokio);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    print!("{}", section?);
    Ok(())
}
