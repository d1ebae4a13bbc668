//! The soak run of issue 33: many turn-based games on two server processes sharing one
//! PostgreSQL database and one simulated clock, with people who answer through the HTTP API and
//! some who vanish for good; the table's leaver rule hands a vanished seat to a bot when its
//! clock runs out. Everything is checked from outside the servers:
//!
//! - every game finishes, and no table is ever stalled (`GET /api/health`), checked after each
//!   step of the clock once every clock due has been acted on;
//! - each clock expiry is acted on exactly once across both processes: each process logs the
//!   seats it handed over (`tenka_server::games::clocks` at `info`), and every seat whose person
//!   vanished is handed over once, by one process, no other seat ever; each game's log shows, per
//!   seat, the person's moves, then (if handed over) the bot's and never the person's again;
//! - each mail is sent once: the loopback SMTP sink receives exactly the mails the outbox
//!   records as sent (each once), and no change is written twice to the outbox.
//!
//! The clock moves in steps of one simulated hour, told to both processes at once on their
//! standard input (`tenka-test-server --manual-clock`); after each step the run waits until
//! every clock and every mail due was acted on, as an hour of real time would let them. A
//! present person answers their turn 0 to `move_hours - 2` hours after they first saw it, so
//! only vanished people ever run out of time (and are reminded an hour before).
//!
//! Shared by `benches/soak.rs` (`cargo xtask bench --soak`) and the integration test
//! `it/soak.rs` (a few games), which include it with `smtp_sink`, `postgres` and `http1` beside
//! it at their crate's root.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead as _, Write as _};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail, ensure};
use rand::{RngExt as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use sqlx::Row as _;

use crate::http1::Http;
use crate::postgres::Cluster;
use crate::smtp_sink::SmtpSink;

/// Where the simulated clock starts: some day in 2026, in milliseconds since the epoch.
const START: i64 = 1_795_000_000_000;
/// One step of the simulated clock.
const STEP_MS: i64 = 3_600_000;
/// The most steps a run takes before it counts as stuck.
const MAX_STEPS: usize = 2_000;
/// How long (in real time) the servers may take to act on every clock due after a step.
const SETTLE_LIMIT: Duration = Duration::from_secs(120);
/// Tries of one answer that met a newer version (a bot of the same table moved meanwhile).
const ANSWER_TRIES: usize = 8;
/// The log line of a hand-over, as the clock's timer writes it.
const HANDED_OVER: &str = "ran out of time and are played by a bot";
/// The password of every account.
const PASSWORD: &str = "a soak test password";

/// What to run.
pub struct SoakConfig {
    /// Games to play.
    pub games: usize,
    /// The server: `tenka-test-server`.
    pub server_binary: PathBuf,
    /// Components to load beside the test ruleset (`--rulesets`), if any.
    pub rulesets_dir: Option<PathBuf>,
    /// The maps folder (`--maps`).
    pub maps_dir: PathBuf,
    /// The ruleset, its map (if it needs one) and options.
    pub ruleset: String,
    pub map: Option<String>,
    pub options: Value,
    /// Seats per table.
    pub seats: usize,
    /// Each seat's person vanishes with this probability (at a random move of theirs).
    pub vanish_share: f64,
    /// The time each move may take, in hours (the table's pace, no extra days).
    pub move_hours: i64,
    /// People's accounts per seat of the table: each game's seat `s` belongs to one of them.
    pub accounts_per_seat: usize,
    /// Concurrent clients per server.
    pub clients: usize,
    /// The seed of the people's choices.
    pub seed: u64,
    /// Where the servers keep their files.
    pub work_dir: PathBuf,
}

/// What a run found.
#[derive(Debug, Default)]
pub struct SoakReport {
    pub games: usize,
    pub finished: usize,
    pub seats: usize,
    pub vanished_seats: usize,
    /// Hand-overs by each server process.
    pub handovers_by_process: [usize; 2],
    /// Seats handed over more than once, or handed over though their person never vanished.
    pub wrong_handovers: Vec<String>,
    /// Seats whose log shows something other than the person's moves, then the bot's.
    pub wrong_records: Vec<String>,
    pub person_moves: usize,
    pub bot_moves: usize,
    pub steps: usize,
    pub simulated_hours: i64,
    /// The most stalled tables `/api/health` showed once a step had settled.
    pub max_stalled: i64,
    /// The longest real time the servers took to act on every clock due after a step.
    pub longest_settle: Duration,
    /// The longest real time the senders took to send every mail due after a step.
    pub longest_mail_settle: Duration,
    /// How long the mails took to drain after the last game ended, in real time.
    pub mail_drain: Duration,
    /// Mails the sink received, by kind.
    pub mails_by_kind: BTreeMap<String, usize>,
    /// Mails the outbox records as sent.
    pub mails_recorded_sent: usize,
    /// Mails received, or recorded, other than once each.
    pub wrong_mails: Vec<String>,
    /// Outbox rows by state at the end.
    pub outbox: BTreeMap<String, i64>,
    pub wall: Duration,
    /// Each process's resident memory at the end and at its peak, in KiB.
    pub rss_kib: [(u64, u64); 2],
}

impl SoakReport {
    /// Whether every check held.
    pub fn passed(&self) -> bool {
        self.finished == self.games
            && self.wrong_handovers.is_empty()
            && self.wrong_records.is_empty()
            && self.wrong_mails.is_empty()
            && self.max_stalled == 0
            && self.handovers_by_process.iter().sum::<usize>() == self.vanished_seats
    }

    /// The failures, one per line (at most a few of each kind).
    pub fn failures(&self) -> String {
        let mut out = Vec::new();
        if self.finished != self.games {
            out.push(format!(
                "{} of {} games finished",
                self.finished, self.games
            ));
        }
        if self.max_stalled != 0 {
            out.push(format!("{} stalled tables", self.max_stalled));
        }
        let handed: usize = self.handovers_by_process.iter().sum();
        if handed != self.vanished_seats {
            out.push(format!(
                "{handed} hand-overs for {} vanished seats",
                self.vanished_seats
            ));
        }
        for list in [
            &self.wrong_handovers,
            &self.wrong_records,
            &self.wrong_mails,
        ] {
            out.extend(list.iter().take(10).cloned());
        }
        out.join("\n")
    }
}

/// A `tenka-test-server` on the simulated clock, killed when dropped.
struct Server {
    child: Child,
    stdin: ChildStdin,
    addr: String,
    clock: Receiver<i64>,
    /// (game, seat) of every hand-over this process logged.
    handovers: Arc<Mutex<Vec<(String, u32)>>>,
}

/// The (game, seats) of a hand-over's log line.
fn parse_handover(line: &str) -> Option<(String, Vec<u32>)> {
    let at = line.find(": seats [")?;
    let game = line[..at].rsplit("game ").next()?.trim().to_owned();
    let rest = &line[at + ": seats [".len()..];
    let seats = rest[..rest.find(']')?]
        .split(',')
        .filter_map(|seat| seat.trim().parse().ok())
        .collect();
    Some((game, seats))
}

impl Server {
    fn start(config: &SoakConfig, name: &str, database: &str, smtp: &str) -> Result<Server> {
        let dir = config.work_dir.join(name);
        std::fs::create_dir_all(&dir)?;
        let mut command = Command::new(&config.server_binary);
        command
            .args([
                "--addr",
                "127.0.0.1:0",
                "--no-watch",
                "--database",
                database,
            ])
            .args(["--manual-clock", &START.to_string()])
            .args(["--bot-pace-ms", "0", "--unwatched-bot-pace-ms", "0"])
            // Every person and server here is 127.0.0.1: the per-address limits are off.
            .args(["--requests-per-second", "0", "--actions-per-second", "0"])
            .args(["--games-per-minute", "0", "--streams-per-address", "0"])
            .args([
                "--connections-per-address",
                "0",
                "--sign-ins-per-minute",
                "0",
            ])
            .args(["--sign-ins-per-account-per-hour", "0"])
            .args(["--bot-games-per-address", "1000000"])
            .args(["--smtp-url", smtp, "--mail-from", "Tenka <tenka@soak.test>"])
            .args(["--public-url", "http://tenka.test"])
            .arg("--data")
            .arg(dir.join("data"))
            .arg("--web")
            .arg(dir.join("no-web-ui"))
            .arg("--maps")
            .arg(&config.maps_dir);
        if let Some(rulesets) = &config.rulesets_dir {
            command.arg("--rulesets").arg(rulesets);
        }
        command
            .env("RUST_LOG", "warn,tenka_server::games::clocks=info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .with_context(|| format!("failed to start {command:?}"))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let stderr = child.stderr.take().context("no stderr")?;
        let (addr_sender, addr) = channel();
        let (clock_sender, clock) = channel();
        let handovers: Arc<Mutex<Vec<(String, u32)>>> = Arc::default();
        // The server's log goes to standard output, between its own lines.
        let (kept, label) = (handovers.clone(), name.to_owned());
        std::thread::spawn(move || {
            let mut echoed = 0;
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if let Some(addr) = line.strip_prefix("tenka serving on http://") {
                    let _ = addr_sender.send(addr.trim().to_owned());
                } else if let Some(now) = line.strip_prefix("clock ") {
                    let _ = clock_sender.send(now.trim().parse().unwrap_or(0));
                } else if line.contains(HANDED_OVER) {
                    if let Some((game, seats)) = parse_handover(&line)
                        && let Ok(mut kept) = kept.lock()
                    {
                        kept.extend(seats.into_iter().map(|seat| (game.clone(), seat)));
                    }
                } else if echoed < 40 && !line.contains(" INFO ") {
                    echoed += 1;
                    eprintln!("soak: server {label}: {line}");
                }
            }
        });
        let label = name.to_owned();
        std::thread::spawn(move || {
            // Read to the end (a closed pipe would fail the server's writes), echo the first.
            for (index, line) in (std::io::BufReader::new(stderr).lines())
                .map_while(Result::ok)
                .enumerate()
            {
                if index < 40 {
                    eprintln!("soak: server {label}: {line}");
                }
            }
        });
        let addr = addr
            .recv_timeout(Duration::from_secs(120))
            .context("the server did not say where it serves within 2 minutes")?;
        Ok(Server {
            child,
            stdin,
            addr,
            clock,
            handovers,
        })
    }

    /// Tells the server's clock to move on by `ms`; returns its time once it has.
    fn advance(&mut self, ms: i64) -> Result<i64> {
        writeln!(self.stdin, "advance {ms}")?;
        self.stdin.flush()?;
        self.clock
            .recv_timeout(Duration::from_secs(30))
            .context("the server's clock did not answer")
    }

    /// Resident memory now and at its peak, in KiB (`/proc/<pid>/status`).
    fn rss_kib(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap_or(0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A person's account, signed in.
struct Account {
    id: String,
    email: String,
    cookie: String,
    csrf: String,
}

impl Account {
    async fn sign_up(http: &mut Http, name: &str) -> Result<Account> {
        let body = json!({ "name": name, "password": PASSWORD });
        let (head, answer) = http.send("POST", "/api/accounts", &[], Some(&body)).await?;
        ensure!(
            head.status == 201,
            "signing up answered {}: {answer}",
            head.status
        );
        let cookie = (head.headers.iter())
            .find(|(name, _)| name == "set-cookie")
            .and_then(|(_, cookie)| cookie.split(';').next())
            .context("no session cookie")?
            .to_owned();
        let account = Account {
            id: answer["account"]["id"]
                .as_str()
                .context("no account id")?
                .to_owned(),
            email: format!("{name}@soak.test"),
            cookie,
            csrf: answer["csrf_token"]
                .as_str()
                .context("no CSRF token")?
                .to_owned(),
        };
        let settings = json!({ "email": account.email, "mail": true, "your_turn": true,
            "replaced": true, "ended": true, "reminders": true });
        let (status, answer) = account
            .call(http, "PUT", "/api/me/notice-settings", &settings)
            .await?;
        ensure!(status == 200, "notice settings answered {status}: {answer}");
        Ok(account)
    }

    async fn call(
        &self,
        http: &mut Http,
        method: &str,
        path: &str,
        body: &Value,
    ) -> Result<(u16, Value)> {
        let headers = [
            ("Cookie", self.cookie.as_str()),
            ("X-CSRF-Token", self.csrf.as_str()),
        ];
        let (head, answer) = http.send(method, path, &headers, Some(body)).await?;
        Ok((head.status, answer))
    }
}

/// One seat's person, as the driver plays them.
#[derive(Clone, Debug)]
struct Person {
    token: String,
    /// Vanishes for good instead of making this move (counted from 0), if ever.
    vanishes_at: Option<u32>,
    moves: u32,
    vanished: bool,
    /// The turn (its deadline) the person last looked at, and when they answer it.
    answer_at: Option<(i64, i64)>,
}

/// A game, as the driver plays it.
#[derive(Clone, Debug)]
struct Game {
    id: String,
    people: Vec<Person>,
    finished: bool,
}

/// One answer of `person` (seat `seat`) through `http`: the seat's decision from its own view,
/// a random legal answer, tried again when a bot of the table moved first.
async fn answer(http: &mut Http, game: &str, person: &Person, rng: &mut ChaCha8Rng) -> Result<()> {
    let view_path = format!("/api/games/{game}/view");
    let headers = [("Authorization", format!("Bearer {}", person.token))];
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    for _ in 0..ANSWER_TRIES {
        let (head, view) = http.send("GET", &view_path, &headers, None).await?;
        ensure!(
            head.status == 200,
            "the seat's view answered {}: {view}",
            head.status
        );
        let Some(pending) = view["pending"].get(0) else {
            bail!("game {game}: a running seat has nothing to answer: {view}");
        };
        let decision: sdk::PendingDecision = serde_json::from_value(pending.clone())?;
        let mut table = sdk::testing::SeededTable::new(rng.random());
        let action = sdk::random_action(&decision.kind, &mut table);
        let body = json!({ "version": view["version"], "action": action });
        let path = format!("/api/games/{game}/actions");
        let (head, answer) = http.send("POST", &path, &headers, Some(&body)).await?;
        match head.status {
            200 => return Ok(()),
            409 | 422 => continue,
            status => bail!("game {game}: a person's move answered {status}: {answer}"),
        }
    }
    bail!("game {game}: a person's move met a newer version {ANSWER_TRIES} times")
}

/// One step of one game at `now`: looks at it, and has each present person whose time to
/// answer has come answer (or vanish).
async fn step_game(
    http: &mut Http,
    game: &mut Game,
    now: i64,
    config_move_hours: i64,
    rng: &mut ChaCha8Rng,
) -> Result<usize> {
    let (status, view) = http
        .request("GET", &format!("/api/games/{}/view", game.id), None)
        .await?;
    ensure!(
        status == 200,
        "game {}: the view answered {status}: {view}",
        game.id
    );
    if view["status"] == "finished" {
        game.finished = true;
        return Ok(0);
    }
    let mut moves = 0;
    for seat in 0..game.people.len() {
        let clock = &view["clocks"]["seats"][seat];
        if clock["running"] != true || view["seats"][seat]["bot"].is_string() {
            continue;
        }
        let person = &mut game.people[seat];
        if person.vanished {
            continue;
        }
        let turn = clock["deadline"].as_i64().unwrap_or(0);
        if person.answer_at.is_none_or(|(seen, _)| seen != turn) {
            let delay = rng.random_range(0..=(config_move_hours - 2).max(0));
            person.answer_at = Some((turn, now + delay * STEP_MS));
        }
        if person.answer_at.is_some_and(|(_, at)| at > now) {
            continue;
        }
        if person.vanishes_at == Some(person.moves) {
            person.vanished = true;
            continue;
        }
        let person = person.clone();
        answer(http, &game.id, &person, rng).await?;
        game.people[seat].moves += 1;
        moves += 1;
    }
    Ok(moves)
}

/// Runs a step on every unfinished game, `clients` at a time per server; returns the games and
/// the people's moves made.
async fn step_all(
    addrs: &[String; 2],
    games: Vec<Game>,
    now: i64,
    config: &SoakConfig,
    step: usize,
) -> Result<(Vec<Game>, usize)> {
    let workers = (config.clients * 2).max(1);
    let mut chunks: Vec<Vec<Game>> = vec![Vec::new(); workers];
    for (index, game) in games.into_iter().enumerate() {
        chunks[index % workers].push(game);
    }
    let tasks: Vec<_> = chunks
        .into_iter()
        .enumerate()
        .map(|(worker, mut chunk)| {
            // Half the workers on each server, changing with every step.
            let addr = addrs[(worker + step) % 2].clone();
            let (move_hours, seed) = (config.move_hours, config.seed);
            tokio::spawn(async move {
                let mut rng =
                    ChaCha8Rng::seed_from_u64(seed ^ ((step as u64) << 20) ^ worker as u64);
                let mut http = Http::connect(&addr).await?;
                let mut moves = 0;
                for game in chunk.iter_mut().filter(|game| !game.finished) {
                    moves += step_game(&mut http, game, now, move_hours, &mut rng).await?;
                }
                anyhow::Ok((chunk, moves))
            })
        })
        .collect();
    let (mut games, mut moves) = (Vec::new(), 0);
    for task in tasks {
        let (chunk, made) = task.await.context("a client panicked")??;
        games.extend(chunk);
        moves += made;
    }
    Ok((games, moves))
}

/// Counts rows of the database.
async fn count(pool: &sqlx::PgPool, sql: &'static str, now: i64) -> Result<i64> {
    Ok(sqlx::query(sql)
        .bind(now)
        .fetch_one(pool)
        .await?
        .try_get(0)?)
}

/// Clocks of unfinished games due at `now` and not yet acted on.
const DUE_CLOCKS: &str = "SELECT COUNT(*) FROM clocks c JOIN games g ON g.id = c.game_id \
                          WHERE g.finished_at IS NULL AND c.deadline IS NOT NULL \
                          AND c.deadline <= $1";

/// Mails due at `now` and not yet sent (or dropped).
const DUE_MAILS: &str = "SELECT COUNT(*) FROM mail_outbox WHERE state = 'sending' \
                         OR (state = 'queued' AND not_before <= $1)";

/// Waits until every clock due at `now` was acted on, then until every mail due was sent, as
/// an hour of real time would let them; returns how long each took.
async fn settle(pool: &sqlx::PgPool, now: i64) -> Result<(Duration, Duration)> {
    let started = Instant::now();
    let mut clocks = None;
    loop {
        if clocks.is_none() && count(pool, DUE_CLOCKS, now).await? == 0 {
            clocks = Some(started.elapsed());
        }
        if let Some(clocks) = clocks
            && count(pool, DUE_MAILS, now).await? == 0
        {
            return Ok((clocks, started.elapsed()));
        }
        ensure!(
            started.elapsed() < SETTLE_LIMIT,
            "clocks or mails due at {now} were not acted on within {} s",
            SETTLE_LIMIT.as_secs()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The health figures, from one server.
async fn health(addr: &str) -> Result<Value> {
    let (status, health) = Http::connect(addr)
        .await?
        .request("GET", "/api/health", None)
        .await?;
    ensure!(status == 200, "health answered {status}: {health}");
    Ok(health)
}

/// The (kind, game) a mail's subject names.
fn mail_subject_key(subject: &str) -> Option<(&'static str, String)> {
    let last = |text: &str| text.split_whitespace().last().map(str::to_owned);
    if subject.starts_with("Your turn in ") {
        Some(("your-turn", last(subject)?))
    } else if subject.starts_with("Your time is running out in ") {
        Some(("reminder", last(subject)?))
    } else if subject.starts_with("A bot took ") {
        Some(("replaced", last(subject)?))
    } else if subject.starts_with("A player is back in ") {
        Some(("returned", last(subject)?))
    } else if let Some(rest) = subject.strip_suffix(" is over") {
        Some(("ended", last(rest)?))
    } else {
        None
    }
}

/// Creates the games and the people's accounts holding their seats.
async fn create_games(
    addr: &str,
    config: &SoakConfig,
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<Game>, Vec<Account>)> {
    let mut http = Http::connect(addr).await?;
    let mut accounts = Vec::new();
    for index in 0..config.seats * config.accounts_per_seat {
        accounts.push(Account::sign_up(&mut http, &format!("soak{index}")).await?);
    }
    let seats: Vec<Value> = (0..config.seats)
        .map(|_| json!({ "kind": "human", "creator": true }))
        .collect();
    let mut body = json!({
        "ruleset": config.ruleset, "options": config.options, "seats": seats,
        "pace": { "kind": "turn-based", "move_hours": config.move_hours, "extra_days": 0,
                  "bot": "random" },
    });
    if let Some(map) = &config.map {
        body["map"] = json!(map);
    }
    let mut games = Vec::new();
    for _ in 0..config.games {
        let (status, created) = http.request("POST", "/api/games", Some(&body)).await?;
        ensure!(
            status == 201,
            "creating a game answered {status}: {created}"
        );
        let id = created["id"].as_str().context("no game id")?.to_owned();
        let people = (0..config.seats)
            .map(|seat| {
                let token = created["seats"][seat]["token"]
                    .as_str()
                    .context("no seat token")?
                    .to_owned();
                let vanishes_at = rng
                    .random_bool(config.vanish_share)
                    .then(|| rng.random_range(0..6));
                Ok(Person {
                    token,
                    vanishes_at,
                    moves: 0,
                    vanished: false,
                    answer_at: None,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        games.push(Game {
            id,
            people,
            finished: false,
        });
    }
    // Each account takes its seats, at most 64 at once.
    for seat in 0..config.seats {
        for owner in 0..config.accounts_per_seat {
            let held: Vec<Value> = (games.iter().enumerate())
                .filter(|(index, _)| index % config.accounts_per_seat == owner)
                .map(|(_, game)| json!({ "game": game.id, "token": game.people[seat].token }))
                .collect();
            let account = &accounts[seat * config.accounts_per_seat + owner];
            for batch in held.chunks(64) {
                let body = json!({ "seats": batch });
                let (status, answer) = account
                    .call(&mut http, "POST", "/api/me/seats", &body)
                    .await?;
                ensure!(status == 200, "attaching seats answered {status}: {answer}");
                let attached = answer["seats"]
                    .as_array()
                    .is_some_and(|seats| seats.iter().all(|seat| seat["outcome"] == "attached"));
                ensure!(attached, "a seat was not attached: {answer}");
            }
        }
    }
    Ok((games, accounts))
}

/// Checks each game's log: per seat, the person's moves, then the bot's, never back.
async fn check_records(addr: &str, games: &[Game], report: &mut SoakReport) -> Result<()> {
    let mut http = Http::connect(addr).await?;
    for game in games {
        let (status, log) = http
            .request("GET", &format!("/api/games/{}/log", game.id), None)
            .await?;
        ensure!(status == 200, "the log answered {status}: {log}");
        for (seat, person) in game.people.iter().enumerate() {
            let by_seat: Vec<bool> = (log.as_array().into_iter().flatten())
                .filter(|entry| entry["seat"] == json!(seat))
                .map(|entry| entry["bot"].is_string())
                .collect();
            let people = by_seat.iter().take_while(|bot| !**bot).count();
            let bots = by_seat.len() - people;
            report.person_moves += people;
            report.bot_moves += bots;
            let expected_person = person.moves as usize;
            let handed_back = by_seat[people..].iter().any(|bot| !bot);
            if people != expected_person || handed_back || (bots > 0) != person.vanished {
                report.wrong_records.push(format!(
                    "game {} seat {seat}: {people} person moves then {bots} by the bot \
                     (expected {expected_person}, vanished: {})",
                    game.id, person.vanished
                ));
            }
        }
    }
    Ok(())
}

/// Checks the mails: the sink against the outbox.
async fn check_mails(
    pool: &sqlx::PgPool,
    sink: &SmtpSink,
    accounts: &[Account],
    report: &mut SoakReport,
) -> Result<()> {
    let by_email: BTreeMap<&str, &str> = accounts
        .iter()
        .map(|account| (account.email.as_str(), account.id.as_str()))
        .collect();
    let mut received: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for mail in sink.mails() {
        let subject = mail.header("subject").unwrap_or_default();
        let to = mail.to.first().cloned().unwrap_or_default();
        let (Some((kind, game)), Some(account)) =
            (mail_subject_key(&subject), by_email.get(to.as_str()))
        else {
            report
                .wrong_mails
                .push(format!("a mail nobody was meant to get: {to}: {subject}"));
            continue;
        };
        *report.mails_by_kind.entry(kind.to_owned()).or_default() += 1;
        *received
            .entry((account.to_string(), game, kind.to_owned()))
            .or_default() += 1;
    }
    let rows = sqlx::query("SELECT account_id, game_id, kind, state FROM mail_outbox")
        .fetch_all(pool)
        .await?;
    let mut recorded: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for row in &rows {
        let state: String = row.try_get("state")?;
        *report.outbox.entry(state.clone()).or_default() += 1;
        if state == "sent" {
            let key = (
                row.try_get("account_id")?,
                row.try_get("game_id")?,
                row.try_get("kind")?,
            );
            *recorded.entry(key).or_default() += 1;
            report.mails_recorded_sent += 1;
        }
    }
    for (key, sent) in &recorded {
        let got = received.get(key).copied().unwrap_or(0);
        if got != *sent {
            report.wrong_mails.push(format!(
                "{key:?}: recorded sent {sent} times, received {got} times"
            ));
        }
        if key.2 == "ended" && *sent > 1 {
            report
                .wrong_mails
                .push(format!("{key:?}: the game's end was mailed {sent} times"));
        }
    }
    for (key, got) in &received {
        if !recorded.contains_key(key) {
            report.wrong_mails.push(format!(
                "{key:?}: received {got} times, never recorded as sent"
            ));
        }
    }
    for state in ["queued", "sending", "failed"] {
        if let Some(left) = report.outbox.get(state).filter(|left| **left > 0) {
            report
                .wrong_mails
                .push(format!("{left} mails {state} at the end"));
        }
    }
    Ok(())
}

/// Runs the soak; an error when it could not run at all, the report (with its failures)
/// otherwise.
pub async fn run(config: &SoakConfig) -> Result<SoakReport> {
    let started = Instant::now();
    let cluster = tokio::task::spawn_blocking(Cluster::start)
        .await
        .context("the PostgreSQL cluster did not start")?;
    let pool = sqlx::PgPool::connect(&cluster.url).await?;
    let sink = SmtpSink::start().await;
    let smtp = sink.url();
    let mut servers = [
        Server::start(config, "a", &cluster.url, &smtp)?,
        Server::start(config, "b", &cluster.url, &smtp)?,
    ];
    let addrs = [servers[0].addr.clone(), servers[1].addr.clone()];
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    eprintln!("soak: creating {} games", config.games);
    let (mut games, accounts) = create_games(&addrs[0], config, &mut rng).await?;
    let mut report = SoakReport {
        games: config.games,
        seats: config.games * config.seats,
        ..SoakReport::default()
    };
    let mut now = START;
    let mut step = 0;
    while games.iter().any(|game| !game.finished) {
        ensure!(
            step < MAX_STEPS,
            "the games did not finish in {MAX_STEPS} steps"
        );
        let (played, _) = step_all(&addrs, games, now, config, step).await?;
        games = played;
        for server in &mut servers {
            now = server.advance(STEP_MS)?;
        }
        let (clocks, mails) = settle(&pool, now).await?;
        report.longest_settle = report.longest_settle.max(clocks);
        report.longest_mail_settle = report.longest_mail_settle.max(mails);
        let health = health(&addrs[step % 2]).await?;
        let stalled = health["stalled"]["count"].as_i64().unwrap_or(-1);
        report.max_stalled = report.max_stalled.max(stalled);
        step += 1;
        if step % 10 == 0 {
            let left = games.iter().filter(|game| !game.finished).count();
            eprintln!("soak: step {step}, {left} games running");
        }
    }
    report.steps = step;
    // A day more, so that every reminder queued comes due (and is dropped: its turn is over).
    for server in &mut servers {
        now = server.advance(24 * STEP_MS)?;
    }
    // The mails drain at the senders' pace: wait as long as they make progress.
    let drain_from = Instant::now();
    let (mut progress_at, mut least_busy) = (Instant::now(), i64::MAX);
    loop {
        let health = health(&addrs[0]).await?;
        let mails = &health["mails"];
        let busy = ["queued", "sending"]
            .iter()
            .map(|state| mails[*state].as_i64().unwrap_or(0))
            .sum::<i64>();
        if busy == 0 && health["running"] == 0 {
            report.max_stalled = report
                .max_stalled
                .max(health["stalled"]["count"].as_i64().unwrap_or(-1));
            report.mail_drain = drain_from.elapsed();
            break;
        }
        if busy < least_busy {
            (progress_at, least_busy) = (Instant::now(), busy);
        }
        ensure!(
            progress_at.elapsed() < SETTLE_LIMIT,
            "mails or games still busy at the end: {health}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The sink has every mail a sender recorded as sent (it answers before the sender records).
    tokio::time::sleep(Duration::from_millis(200)).await;
    report.wall = started.elapsed();
    report.simulated_hours = (now - START) / STEP_MS;
    report.finished = games.iter().filter(|game| game.finished).count();
    report.rss_kib = [servers[0].rss_kib(), servers[1].rss_kib()];

    let vanished: BTreeSet<(String, u32)> = games
        .iter()
        .flat_map(|game| {
            (game.people.iter().enumerate())
                .filter(|(_, person)| person.vanished)
                .map(|(seat, _)| (game.id.clone(), seat as u32))
        })
        .collect();
    report.vanished_seats = vanished.len();
    let mut handed: BTreeMap<(String, u32), usize> = BTreeMap::new();
    for (index, server) in servers.iter().enumerate() {
        let handovers = server
            .handovers
            .lock()
            .map_err(|_| anyhow::anyhow!("a poisoned lock"))?;
        report.handovers_by_process[index] = handovers.len();
        for key in handovers.iter() {
            *handed.entry(key.clone()).or_default() += 1;
        }
    }
    for (key, times) in &handed {
        if *times != 1 || !vanished.contains(key) {
            report.wrong_handovers.push(format!(
                "game {} seat {}: handed over {times} times (vanished: {})",
                key.0,
                key.1,
                vanished.contains(key)
            ));
        }
    }
    for key in vanished.difference(&handed.keys().cloned().collect()) {
        report.wrong_handovers.push(format!(
            "game {} seat {}: vanished, never handed over",
            key.0, key.1
        ));
    }
    check_records(&addrs[1], &games, &mut report).await?;
    check_mails(&pool, &sink, &accounts, &mut report).await?;
    drop(servers);
    pool.close().await;
    drop(cluster);
    Ok(report)
}
