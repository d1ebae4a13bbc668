//! Table clocks over the HTTP API, on a manual clock (no test waits for real time to pass): a
//! live bank with its increment, a turn-based move's deadline, a seat out of time handed to a
//! bot and taken back, a clock that survives a restart, a simultaneous decision where only the
//! seats still owing an answer run (and a game left to bots finishing on its own), an expiry
//! acted on once when two servers race for it, hostile paces refused, and the test clock of
//! `tenka serve --test-clock` moved by its operator only.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use host::server::clocks::{Clock as _, ManualClock, ShiftedClock};
use host::server::storage::ClockWrite;
use serde_json::{Value, json};

use crate::server_postgres::Cluster;
use crate::server_support::{RULESET, TempDir, TestApp, seats_json};

/// Where every manual clock starts: some day in 2026, in milliseconds since the epoch.
const START: i64 = 1_795_000_000_000;

const HOUR: Duration = Duration::from_secs(3600);

/// A server on the SQLite database in `dir` reading the time from `clock`.
pub(crate) async fn start(dir: &Path, clock: &Arc<ManualClock>) -> TestApp {
    start_on(dir, None, clock).await
}

/// A server on `database` (or SQLite in `dir`) reading the time from `clock`.
async fn start_on(dir: &Path, database: Option<&str>, clock: &Arc<ManualClock>) -> TestApp {
    let clock = clock.clone();
    TestApp::start_configured(dir, database, move |hub, _| hub.clock = clock).await
}

/// Creates a secret-draw game of two people (both the creator's) at `pace`; the id and the two
/// seats' tokens.
pub(crate) async fn create(app: &TestApp, pace: Value) -> (String, [String; 2]) {
    let (status, body) = app
        .post_game(json!({
            "ruleset": RULESET.id, "map": RULESET.map, "options": { "rounds": 5 },
            "seats": [{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }],
            "pace": pace,
        }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let token = |seat: usize| body["seats"][seat]["token"].as_str().unwrap().to_owned();
    (
        body["id"].as_str().unwrap().to_owned(),
        [token(0), token(1)],
    )
}

/// The game's view as the spectator sees it.
async fn view(app: &TestApp, game: &str) -> Value {
    let (status, view) = app.view(game, None).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    view
}

/// The game's log as the spectator sees it.
async fn game_log(app: &TestApp, game: &str) -> Value {
    let (status, log) = app
        .call("GET", &format!("/api/games/{game}/log"), None, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{log}");
    log
}

/// A seat's clock in a view.
fn seat_clock(view: &Value, seat: usize) -> &Value {
    &view["clocks"]["seats"][seat]
}

/// Plans a number for the seat of `token`.
pub(crate) async fn answer(app: &TestApp, game: &str, token: &str) -> StatusCode {
    let (_, view) = app.view(game, Some(token)).await;
    let (status, body) = app
        .act(game, token, &view["version"], json!({ "choose": [0] }))
        .await;
    assert!(
        status == StatusCode::OK || status == StatusCode::FORBIDDEN,
        "{status}: {body}"
    );
    status
}

/// Whether a bot plays the seat.
fn bot_plays(view: &Value, seat: usize) -> bool {
    view["seats"][seat]["bot"].is_string()
}

/// A server on a fresh SQLite database with its manual clock at [`START`], and a game of two
/// people at `pace` on it.
pub(crate) struct Table {
    _dir: TempDir,
    pub(crate) clock: Arc<ManualClock>,
    pub(crate) app: TestApp,
    pub(crate) game: String,
    pub(crate) tokens: [String; 2],
}

impl Table {
    pub(crate) async fn new(label: &str, pace: Value) -> Table {
        let dir = TempDir::new(label);
        let clock = ManualClock::new(START);
        let app = start(&dir.0, &clock).await;
        let (game, tokens) = create(&app, pace).await;
        Table {
            _dir: dir,
            clock,
            app,
            game,
            tokens,
        }
    }

    /// Plans a number for the seat `seat`.
    pub(crate) async fn answer(&self, seat: usize) -> StatusCode {
        answer(&self.app, &self.game, &self.tokens[seat]).await
    }

    /// The game's view as the spectator sees it.
    pub(crate) async fn view(&self) -> Value {
        view(&self.app, &self.game).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_clock_runs_only_while_its_seat_owes_an_answer_and_gains_its_increment() {
    let table = Table::new(
        "clocks-live",
        json!({ "kind": "live", "bank_seconds": 60, "increment_seconds": 5, "bot": "random" }),
    )
    .await;
    let seen = table.view().await;
    assert_eq!(
        seen["pace"],
        json!({ "kind": "live", "bank_seconds": 60, "increment_seconds": 5, "bot": "random" })
    );
    // Both seats plan at once: both run, each on its own clock.
    for seat in 0..2 {
        assert_eq!(seat_clock(&seen, seat)["running"], true, "{seen}");
        assert_eq!(seat_clock(&seen, seat)["deadline"], START + 60_000);
    }

    table.clock.advance(Duration::from_secs(10));
    assert_eq!(table.answer(0).await, StatusCode::OK);
    let seen = table.view().await;
    // The seat that answered stops, charged 10 s and given its 5 s; the other runs on.
    assert_eq!(seat_clock(&seen, 0)["running"], false, "{seen}");
    assert_eq!(seat_clock(&seen, 0)["remaining_ms"], 55_000);
    assert_eq!(seat_clock(&seen, 1)["running"], true);
    assert_eq!(seat_clock(&seen, 1)["remaining_ms"], 50_000);

    table.clock.advance(Duration::from_secs(20));
    let seen = table.view().await;
    assert_eq!(
        seat_clock(&seen, 0)["remaining_ms"],
        55_000,
        "a seat that owes nothing does not run"
    );
    assert_eq!(seat_clock(&seen, 1)["remaining_ms"], 30_000);

    // The round is complete: both owe the next plan and run again from their banks.
    assert_eq!(table.answer(1).await, StatusCode::OK);
    let seen = table.view().await;
    assert_eq!(seat_clock(&seen, 1)["bank_ms"], 35_000, "60 - 30 + 5 s");
    for (seat, bank) in [(0, 55_000), (1, 35_000)] {
        assert_eq!(seat_clock(&seen, seat)["running"], true, "{seen}");
        assert_eq!(
            seat_clock(&seen, seat)["deadline"],
            START + 30_000 + bank,
            "{seen}"
        );
    }
    // The lobby shows the table's pace.
    let (_, games) = table.app.call("GET", "/api/games", None, None).await;
    let listed = games
        .as_array()
        .unwrap()
        .iter()
        .find(|listed| listed["id"] == table.game.as_str())
        .unwrap();
    assert_eq!(listed["pace"]["kind"], "live");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_based_seat_out_of_time_is_played_by_a_bot_until_its_person_takes_it_back() {
    let table = Table::new(
        "clocks-turns",
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 1, "bot": "random" }),
    )
    .await;
    let day = 24 * 3_600_000;
    // A move may take its 24 hours and the bank's extra day on top.
    let seen = table.view().await;
    assert_eq!(seat_clock(&seen, 1)["deadline"], START + 2 * day);

    // The first seat takes 30 hours: 6 come from its bank.
    table.clock.advance(30 * HOUR);
    assert_eq!(table.answer(0).await, StatusCode::OK);
    let seen = table.view().await;
    assert_eq!(seat_clock(&seen, 0)["bank_ms"], day - 6 * 3_600_000);
    assert!(!bot_plays(&seen, 1), "the second seat has 18 hours left");

    // The second seat's 48 hours run out: a bot takes the seat at once, and the game goes on:
    // it plans for this round and the next.
    table.clock.advance(18 * HOUR);
    let seen = table
        .app
        .view_until(&table.game, "a bot took the seat", |view| {
            bot_plays(view, 1) && view["version"] == 3
        })
        .await;
    assert_eq!(seat_clock(&seen, 1)["timed_out"], true, "{seen}");
    assert_eq!(seat_clock(&seen, 1)["running"], false);
    assert_eq!(
        table.answer(1).await,
        StatusCode::FORBIDDEN,
        "the bot plays the seat now"
    );
    // The log says who chose each move: the person for seat 0, the bot for seat 1.
    let log = game_log(&table.app, &table.game).await;
    assert_eq!(log[0]["seat"], 0, "{log}");
    assert_eq!(log[0].get("bot"), None, "{log}");
    assert_eq!(log[1]["seat"], 1, "{log}");
    assert_eq!(log[1]["bot"], "random", "{log}");

    // Its person comes back and takes the seat back with the seat's token.
    let (status, body) = table
        .app
        .call(
            "POST",
            &format!("/api/games/{}/seats/1/bot", table.game),
            Some(&table.tokens[1]),
            Some(json!({ "bot": null })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let seen = table.view().await;
    assert!(!bot_plays(&seen, 1));
    assert_eq!(
        seat_clock(&seen, 1)["running"],
        false,
        "it owes nothing yet"
    );
    // Once the round is complete, the seat owes the next plan and its clock runs again.
    assert_eq!(table.answer(0).await, StatusCode::OK);
    let seen = table.view().await;
    assert_eq!(seat_clock(&seen, 1)["timed_out"], false, "{seen}");
    assert_eq!(seat_clock(&seen, 1)["running"], true, "{seen}");
    assert_eq!(
        seat_clock(&seen, 1)["remaining_ms"],
        day,
        "the bank is spent; each move still has its own 24 hours"
    );
    assert_eq!(table.answer(1).await, StatusCode::OK);
    let log = game_log(&table.app, &table.game).await;
    let last = log.as_array().unwrap().last().unwrap();
    assert_eq!(
        (last["seat"].as_u64(), last.get("bot")),
        (Some(1), None),
        "its person chose it: {log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_survives_a_restart_and_still_fires_after_it() {
    let dir = TempDir::new("clocks-restart");
    let (game, first) = {
        let clock = ManualClock::new(START);
        let app = start(&dir.0, &clock).await;
        let (game, [first, _]) = create(
            &app,
            json!({ "kind": "live", "bank_seconds": 60, "bot": "random" }),
        )
        .await;
        clock.advance(Duration::from_secs(20));
        assert_eq!(answer(&app, &game, &first).await, StatusCode::OK);
        (game, first)
    };
    // The server is down for 15 s; its clocks ran on meanwhile.
    let app = start(&dir.0, &ManualClock::new(START + 35_000)).await;
    let seen = view(&app, &game).await;
    assert_eq!(seat_clock(&seen, 0)["running"], false, "{seen}");
    assert_eq!(seat_clock(&seen, 0)["remaining_ms"], 40_000);
    assert_eq!(seat_clock(&seen, 1)["running"], true);
    assert_eq!(
        seat_clock(&seen, 1)["remaining_ms"],
        25_000,
        "neither stopped nor reset"
    );
    // A server started again knows the deadline without anyone looking at the game (the
    // server before it stays on its own clock, which no longer moves).
    drop(app);
    let clock = ManualClock::new(START + 35_000);
    let app = start(&dir.0, &clock).await;
    clock.advance(Duration::from_secs(25));
    app.view_until(&game, "the seat out of time went to a bot", |view| {
        bot_plays(view, 1)
    })
    .await;
    assert!(!bot_plays(&view(&app, &game).await, 0));
    let _ = first;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_a_simultaneous_decision_only_the_seat_still_to_answer_runs_out() {
    let table = Table::new(
        "clocks-simultaneous",
        json!({ "kind": "live", "bank_seconds": 30, "bot": "random" }),
    )
    .await;
    table.clock.advance(Duration::from_secs(29));
    assert_eq!(table.answer(0).await, StatusCode::OK);
    table.clock.advance(Duration::from_secs(1));
    let seen = table
        .app
        .view_until(&table.game, "the late seat went to a bot", |view| {
            bot_plays(view, 1)
        })
        .await;
    assert!(
        !bot_plays(&seen, 0),
        "the seat that answered in time keeps its person: {seen}"
    );
    assert_eq!(seat_clock(&seen, 0)["timed_out"], false);
    assert_eq!(seat_clock(&seen, 1)["timed_out"], true);
    assert_eq!(table.app.state.hub.expiries_claimed(), 1);

    // The bot planned, so the next round runs the first seat's last second; once that is gone
    // too, bots play every seat and the game finishes on its own.
    let seen = table
        .app
        .view_until(&table.game, "the next round", |view| {
            seat_clock(view, 0)["running"] == true
        })
        .await;
    assert_eq!(seat_clock(&seen, 0)["remaining_ms"], 1_000, "{seen}");
    table.clock.advance(Duration::from_secs(1));
    let finished = table.app.wait_until_finished(&table.game).await;
    assert!(
        bot_plays(&finished, 0) && bot_plays(&finished, 1),
        "{finished}"
    );
    assert_eq!(table.app.state.hub.expiries_claimed(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_servers_racing_for_an_expiry_exactly_one_acts_on_it() {
    let dir = TempDir::new("clocks-race");
    let clock = ManualClock::new(START);
    let one = start(&dir.0, &clock).await;
    let (game, _) = create(
        &one,
        json!({ "kind": "live", "bank_seconds": 30, "bot": "random" }),
    )
    .await;
    // A second server on the same database; both know the game and its deadline.
    let other = start(&dir.0, &clock).await;
    view(&other, &game).await;
    clock.advance(Duration::from_secs(30));
    one.view_until(&game, "both seats went to bots", |view| {
        bot_plays(view, 0) && bot_plays(view, 1)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        one.state.hub.expiries_claimed() + other.state.hub.expiries_claimed(),
        1,
        "one expiry, acted on once"
    );

    // The claim itself, raced: two claimers against the same stored version, one wins.
    let (game, _) = create(
        &one,
        json!({ "kind": "live", "bank_seconds": 600, "bot": "random" }),
    )
    .await;
    let (_, state, version) = one.state.hub.storage().clock(&game).await.unwrap().unwrap();
    let write = ClockWrite {
        state_json: state,
        deadline: None,
    };
    let claims = [&one, &other].map(|app| {
        let (storage, game, write) = (app.state.hub.storage().clone(), game.clone(), write.clone());
        tokio::spawn(async move {
            storage
                .claim_expiry(&game, version, &write, &[0], "random")
                .await
                .unwrap()
        })
    });
    let mut won = 0;
    for claim in claims {
        won += usize::from(claim.await.unwrap());
    }
    assert_eq!(won, 1, "exactly one claimer wins");
    let (_, _, after) = one.state.hub.storage().clock(&game).await.unwrap().unwrap();
    assert_eq!(after, version + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_clock_moves_a_turn_based_table_on_for_the_operator_only() {
    const OPERATOR: &str = "op-clock-5d2a7e91c04b38f6";
    let operator = || Some(host::server::tokens::OperatorToken::new(OPERATOR).unwrap());
    let advance = |seconds: u64| Some(json!({ "seconds": seconds }));
    // Without --test-clock the route does not exist, even for the operator.
    let off_dir = TempDir::new("test-clock-off");
    let off = TestApp::start_configured(&off_dir.0, None, |_, server| {
        server.operator_token = operator();
    })
    .await;
    let (status, _) = off
        .call("POST", "/api/test/clock", Some(OPERATOR), advance(3600))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    let dir = TempDir::new("test-clock-on");
    let clock = ShiftedClock::new();
    let app = {
        let clock = clock.clone();
        TestApp::start_configured(&dir.0, None, move |hub, server| {
            hub.clock = clock.clone();
            server.operator_token = operator();
            server.test_clock = Some(clock);
        })
        .await
    };
    let (game, _) = create(
        &app,
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 0 }),
    )
    .await;
    for (token, seconds, refused) in [
        (None, 25 * 3600, StatusCode::FORBIDDEN),
        (
            Some("not-the-operator-token"),
            25 * 3600,
            StatusCode::FORBIDDEN,
        ),
        (Some(OPERATOR), 0, StatusCode::BAD_REQUEST),
        (Some(OPERATOR), 31 * 86_400, StatusCode::BAD_REQUEST),
    ] {
        let (status, body) = app
            .call("POST", "/api/test/clock", token, advance(seconds))
            .await;
        assert_eq!(status, refused, "{token:?} {seconds}: {body}");
    }
    let before = clock.now_millis();
    assert!(
        seat_clock(&view(&app, &game).await, 0)["remaining_ms"]
            .as_i64()
            .unwrap()
            > 23 * 3_600_000,
        "a refused request moved nothing"
    );
    let (status, body) = app
        .call(
            "POST",
            "/api/test/clock",
            Some(OPERATOR),
            advance(25 * 3600),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["now"].as_i64().unwrap() >= before + 25 * 3_600_000);
    app.view_until(&game, "a bot took the seat out of time", |view| {
        bot_plays(view, 0)
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_paces_are_refused_with_a_reason_and_change_nothing() {
    let dir = TempDir::new("clocks-hostile");
    let clock = ManualClock::new(START);
    let app = start(&dir.0, &clock).await;
    let (_, before) = app.call("GET", "/api/games", None, None).await;
    for pace in [
        json!({ "kind": "live", "bank_seconds": 0 }),
        json!({ "kind": "live", "bank_seconds": 14_401 }),
        json!({ "kind": "live", "bank_seconds": -5 }),
        json!({ "kind": "live", "bank_seconds": 1e300 }),
        json!({ "kind": "live", "bank_seconds": u64::MAX }),
        json!({ "kind": "live", "bank_seconds": 60, "increment_seconds": 601 }),
        json!({ "kind": "live", "bank_seconds": "60" }),
        json!({ "kind": "live" }),
        json!({ "kind": "turn-based", "move_hours": 0 }),
        json!({ "kind": "turn-based", "move_hours": 337 }),
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 31 }),
        json!({ "kind": "turn-based", "move_hours": 24, "bot": "skynet" }),
        json!({ "kind": "turn-based", "move_hours": 24, "bank_seconds": 60 }),
        json!({ "kind": "blitz" }),
        json!("live"),
        json!(7),
    ] {
        let (status, body) = app
            .post_game(json!({
                "ruleset": RULESET.id, "map": RULESET.map,
                "seats": seats_json(&[None, Some("random")]),
                "pace": pace,
            }))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{pace}: {body}");
        assert!(
            body["message"]
                .as_str()
                .is_some_and(|message| !message.is_empty()),
            "{pace}: {body}"
        );
    }
    let (_, after) = app.call("GET", "/api/games", None, None).await;
    assert_eq!(before, after, "no game was stored");

    // No pace is today's untimed game; a bot at the table sets the level a timed one hands to.
    let (game, _) = create(&app, json!({ "kind": "untimed" })).await;
    let seen = view(&app, &game).await;
    assert_eq!(seen["pace"], json!({ "kind": "untimed" }));
    assert_eq!(seen["clocks"], Value::Null);
    let (status, body) = app
        .post_game(json!({
            "ruleset": RULESET.id, "map": RULESET.map,
            "seats": seats_json(&[None, Some("easy")]),
            "pace": { "kind": "turn-based", "move_hours": 48 },
        }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let seen = view(&app, body["id"].as_str().unwrap()).await;
    assert_eq!(seen["pace"]["bot"], "easy", "{seen}");
    assert_eq!(seen["pace"]["extra_days"], 0);
}

#[test]
fn on_postgres_a_move_stores_its_clock_and_of_two_servers_one_acts_on_an_expiry() {
    let cluster = Cluster::start();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dirs = [TempDir::new("clocks-pg-a"), TempDir::new("clocks-pg-b")];
        let clock = ManualClock::new(START);
        let one = start_on(&dirs[0].0, Some(&cluster.url), &clock).await;
        let (game, [first, _]) = create(
            &one,
            json!({ "kind": "live", "bank_seconds": 60, "increment_seconds": 5, "bot": "random" }),
        )
        .await;
        let other = start_on(&dirs[1].0, Some(&cluster.url), &clock).await;
        view(&other, &game).await;

        // A move through one server; the other reads the clock the move's commit stored.
        clock.advance(Duration::from_secs(10));
        assert_eq!(answer(&one, &game, &first).await, StatusCode::OK);
        let seen = view(&other, &game).await;
        assert_eq!(seat_clock(&seen, 0)["bank_ms"], 55_000, "{seen}");
        assert_eq!(seat_clock(&seen, 0)["running"], false);
        assert_eq!(seat_clock(&seen, 1)["deadline"], START + 60_000);

        // Both servers' timers fire for the second seat; one of them hands it to the bot.
        clock.advance(Duration::from_secs(50));
        for app in [&one, &other] {
            app.view_until(&game, "the seat out of time went to a bot", |view| {
                bot_plays(view, 1)
            })
            .await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(
            one.state.hub.expiries_claimed() + other.state.hub.expiries_claimed(),
            1,
            "one expiry, acted on once"
        );
        assert!(!bot_plays(&view(&one, &game).await, 0));
    });
}
