//! Ratings over the HTTP API, on a manual clock: a rated table moves its winner up and its loser
//! down, a player replaced for running out of time ranks last, a game is rated once whatever
//! restarts or sweeps follow, a table missing an account does not count, bots stand on the same
//! ladder, and a rated table without a clock is refused with nothing stored.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use host::server::accounts::store::{self, Account};
use host::server::clocks::ManualClock;
use host::server::ratings;
use serde_json::{Value, json};
use sqlx::Row as _;

use crate::server_support::{RULESET, TempDir, TestApp, seats_json};

/// Where every manual clock starts (milliseconds since the epoch).
const START: i64 = 1_795_000_000_000;

/// A live pace of a minute a player, with the random bot for a seat out of time.
fn live() -> Value {
    json!({ "kind": "live", "bank_seconds": 60, "bot": "random" })
}

async fn start(dir: &Path, clock: &Arc<ManualClock>) -> TestApp {
    let clock = clock.clone();
    TestApp::start_configured(dir, None, move |hub, _| hub.clock = clock).await
}

/// Creates a rated (or not) table of `seats` (`None` a person, `Some(bot)` a bot) at `pace`;
/// the answer's status and body.
async fn create(
    app: &TestApp,
    seats: &[Option<&str>],
    pace: Value,
    rated: bool,
) -> (StatusCode, Value) {
    let seats = seats_json(seats);
    app.post_game(json!({
        "ruleset": RULESET.id, "map": RULESET.map, "options": { "rounds": 3 },
        "seats": seats, "pace": pace, "rated": rated,
    }))
    .await
}

/// An account named `name`, stored directly (signing up over HTTP is the accounts tests' job).
async fn account(app: &TestApp, name: &str) -> String {
    let id = format!("{name}-id");
    let created = store::create_account(
        app.state.hub.storage(),
        &Account {
            id: id.clone(),
            name: name.to_owned(),
            created_at: START,
        },
        &name.to_lowercase(),
        "$argon2id$not-used",
        &format!("{name}-session"),
        START + 1,
    )
    .await
    .unwrap();
    assert!(created);
    id
}

/// A table of two people with accounts `a` and `b` (seats 0 and 1); the game and its tokens.
async fn rated_pair(app: &TestApp, accounts: [&str; 2]) -> (String, [String; 2]) {
    let (status, body) = create(app, &[None, None], live(), true).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let game = body["id"].as_str().unwrap().to_owned();
    for (seat, account) in accounts.iter().enumerate() {
        store::attach_seat(app.state.hub.storage(), account, &game, seat as u32)
            .await
            .unwrap();
    }
    let token = |seat: usize| body["seats"][seat]["token"].as_str().unwrap().to_owned();
    (game, [token(0), token(1)])
}

/// Plans `pick` for the seat of `token` if it has a decision; false once the game is over.
async fn plan(app: &TestApp, game: &str, token: &str, pick: u32) -> bool {
    let view = app.wait_for_turn(game, token).await;
    if view["status"] == "finished" {
        return false;
    }
    let (status, body) = app
        .act(game, token, &view["version"], json!({ "choose": [pick] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    true
}

/// The ladder of the test ruleset at `players`.
async fn ladder(app: &TestApp, players: u32) -> Value {
    let (status, body) = app
        .call(
            "GET",
            &format!("/api/ratings?ruleset={}&players={players}", RULESET.id),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// A rated game's row: (rated_at is set, outcome).
async fn rated_row(app: &TestApp, game: &str) -> Option<(bool, Option<String>)> {
    sqlx::query("SELECT rated_at, outcome FROM rated_games WHERE game_id = $1")
        .bind(game)
        .fetch_optional(app.state.hub.storage().pool())
        .await
        .unwrap()
        .map(|row| {
            (
                row.try_get::<Option<i64>, _>(0).unwrap().is_some(),
                row.try_get(1).unwrap(),
            )
        })
}

/// Waits (in real time, for the task that rates a finished game) until the game's rating is
/// applied; returns its outcome.
async fn wait_rated(app: &TestApp, game: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some((true, outcome)) = rated_row(app, game).await {
            return outcome.unwrap_or_default();
        }
        assert!(Instant::now() < deadline, "game {game} was never rated");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Every rating row, as (player, rating, deviation, games), for comparing before and after.
async fn all_ratings(app: &TestApp) -> Vec<(String, f64, f64, i64)> {
    sqlx::query("SELECT player, rating, deviation, games FROM ratings ORDER BY player")
        .fetch_all(app.state.hub.storage().pool())
        .await
        .unwrap()
        .iter()
        .map(|row| {
            (
                row.try_get(0).unwrap(),
                row.try_get(1).unwrap(),
                row.try_get(2).unwrap(),
                row.try_get(3).unwrap(),
            )
        })
        .collect()
}

/// An entry of a ladder by its shown name.
fn entry<'a>(ladder: &'a Value, name: &str) -> &'a Value {
    ladder["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not on the ladder: {ladder}"))
}

/// Each seat's rank in a finished game's result.
fn ranks(view: &Value) -> Vec<u64> {
    let mut placings: Vec<(u64, u64)> = view["result"]["placings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|placing| {
            (
                placing["seat"].as_u64().unwrap(),
                placing["rank"].as_u64().unwrap(),
            )
        })
        .collect();
    placings.sort_unstable();
    placings.into_iter().map(|(_, rank)| rank).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_moves_the_winner_up_the_loser_down_once_across_restarts() {
    let dir = TempDir::new("ratings-once");
    let clock = ManualClock::new(START);
    let app = start(&dir.0, &clock).await;
    let (ann, bob) = (account(&app, "Ann").await, account(&app, "Bob").await);
    let (game, [first, second]) = rated_pair(&app, [&ann, &bob]).await;
    // The first seat always plans 3, the second 1; whoever the tower favours, the ratings must
    // follow the result.
    while plan(&app, &game, &first, 2).await && plan(&app, &game, &second, 0).await {}
    let finished = app.wait_until_finished(&game).await;
    assert_eq!(wait_rated(&app, &game).await, "rated");
    let ladder = ladder(&app, 2).await;
    let (ann_rating, bob_rating) = (
        entry(&ladder, "Ann")["rating"].as_f64().unwrap(),
        entry(&ladder, "Bob")["rating"].as_f64().unwrap(),
    );
    match ranks(&finished).as_slice() {
        [1, 2] => assert!(ann_rating > 1500.0 && bob_rating < 1500.0, "{ladder}"),
        [2, 1] => assert!(ann_rating < 1500.0 && bob_rating > 1500.0, "{ladder}"),
        _ => assert_eq!(ann_rating, bob_rating, "a draw: {ladder}"),
    }
    assert_eq!(entry(&ladder, "Ann")["games"], 1);
    assert_eq!(entry(&ladder, "Ann")["kind"], "account");

    // Rated once: again by hand, by the sweep, and by a server started again on the database.
    let before = all_ratings(&app).await;
    let live = app.state.hub.game(&game).await.unwrap();
    assert!(!ratings::rate_finished(&app.state.hub, &live).await.unwrap());
    assert_eq!(ratings::sweep(&app.state.hub).await.unwrap(), 0);
    drop(app);
    let again = start(&dir.0, &clock).await;
    assert_eq!(ratings::sweep(&again.state.hub).await.unwrap(), 0);
    assert_eq!(all_ratings(&again).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_replaced_for_running_out_of_time_ranks_last() {
    let dir = TempDir::new("ratings-timeout");
    let clock = ManualClock::new(START);
    let app = start(&dir.0, &clock).await;
    let (ann, bob) = (account(&app, "Ann").await, account(&app, "Bob").await);
    let (game, [first, _]) = rated_pair(&app, [&ann, &bob]).await;
    // The first seat plans its worst number each round; the second seat's person never comes,
    // so its clock runs out and a bot plays it, planning whatever it likes.
    assert!(plan(&app, &game, &first, 0).await);
    clock.advance(Duration::from_secs(61));
    while plan(&app, &game, &first, 0).await {}
    let finished = app.wait_until_finished(&game).await;
    assert!(finished["seats"][1]["bot"].is_string(), "{finished}");
    assert_eq!(wait_rated(&app, &game).await, "rated");
    let ladder = ladder(&app, 2).await;
    // Whatever the bot scored for it, the replaced seat ranks last and loses.
    assert!(
        entry(&ladder, "Ann")["rating"].as_f64().unwrap() > 1500.0,
        "{ladder}"
    );
    assert!(
        entry(&ladder, "Bob")["rating"].as_f64().unwrap() < 1500.0,
        "{ladder}"
    );
    assert!(
        !ladder.to_string().contains("\"random\""),
        "the bot that stood in is not rated for the seat: {ladder}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_stand_on_the_ladder_and_a_seat_without_an_account_makes_a_game_unrated() {
    let dir = TempDir::new("ratings-bots");
    let clock = ManualClock::new(START);
    let app = start(&dir.0, &clock).await;
    let ann = account(&app, "Ann").await;

    // A person with an account against a bot: both are rated.
    let (status, body) = create(&app, &[None, Some("random")], live(), true).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let game = body["id"].as_str().unwrap().to_owned();
    let token = body["seats"][0]["token"].as_str().unwrap().to_owned();
    store::attach_seat(app.state.hub.storage(), &ann, &game, 0)
        .await
        .unwrap();
    while plan(&app, &game, &token, 1).await {}
    app.wait_until_finished(&game).await;
    assert_eq!(wait_rated(&app, &game).await, "rated");
    let ladder = ladder(&app, 2).await;
    assert_eq!(entry(&ladder, "random")["kind"], "bot", "{ladder}");
    assert_eq!(entry(&ladder, "Ann")["games"], 1);

    // Two people, one of them a guest: the game does not count, and nothing moves.
    let before = all_ratings(&app).await;
    let (status, body) = create(&app, &[None, None], live(), true).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let game = body["id"].as_str().unwrap().to_owned();
    store::attach_seat(app.state.hub.storage(), &ann, &game, 0)
        .await
        .unwrap();
    let tokens: Vec<String> = (0..2)
        .map(|seat| body["seats"][seat]["token"].as_str().unwrap().to_owned())
        .collect();
    while plan(&app, &game, &tokens[0], 1).await && plan(&app, &game, &tokens[1], 1).await {}
    app.wait_until_finished(&game).await;
    assert_eq!(
        wait_rated(&app, &game).await,
        "unrated: seat 2 has no account"
    );
    assert_eq!(all_ratings(&app).await, before);

    // The list of ladders names this one.
    let (status, ladders) = app.call("GET", "/api/ratings", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        ladders["ladders"],
        json!([{ "ruleset": RULESET.id, "players": 2, "rated": 2 }])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_table_without_a_clock_is_refused_and_nothing_is_stored() {
    let dir = TempDir::new("ratings-hostile");
    let clock = ManualClock::new(START);
    let app = start(&dir.0, &clock).await;
    let count = |app: &TestApp| {
        let storage = app.state.hub.storage().clone();
        async move {
            let games: i64 = sqlx::query("SELECT COUNT(*) FROM games")
                .fetch_one(storage.pool())
                .await
                .unwrap()
                .try_get(0)
                .unwrap();
            let rated: i64 = sqlx::query("SELECT COUNT(*) FROM rated_games")
                .fetch_one(storage.pool())
                .await
                .unwrap()
                .try_get(0)
                .unwrap();
            (games, rated)
        }
    };
    for pace in [Value::Null, json!({ "kind": "untimed" })] {
        let (status, body) = create(&app, &[None, None], pace.clone(), true).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{pace}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains("timed pace"),
            "{body}"
        );
    }
    // `rated` must be a boolean.
    let (status, _) = app
        .post_game(json!({
            "ruleset": RULESET.id, "map": RULESET.map,
            "seats": seats_json(&[None, Some("random")]),
            "pace": live(), "rated": "yes",
        }))
        .await;
    assert!(status.is_client_error(), "{status}");
    assert_eq!(count(&app).await, (0, 0));
    // The leaderboard refuses half a question and odd values, and answers an unknown ladder
    // with an empty list.
    for query in [
        "?ruleset=secret-draw",
        "?players=2",
        "?ruleset=x&players=0",
        "?ruleset=x&players=-1",
        "?ruleset=x&players=2&extra=1",
    ] {
        let (status, body) = app
            .call("GET", &format!("/api/ratings{query}"), None, None)
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
    }
    let (status, body) = app
        .call("GET", "/api/ratings?ruleset=nothing&players=2", None, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["entries"], json!([]));
    // An untimed table that is not rated is still fine.
    let (status, body) = create(&app, &[None, None], json!({ "kind": "untimed" }), false).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(count(&app).await, (1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_arena_puts_bot_levels_on_the_servers_ladder() {
    use crate::runtime_support::{FIXTURE, run_ok, tenka_on_fixture};
    let dir = TempDir::new("ratings-arena");
    let data = dir.0.join("data");
    run_ok(
        tenka_on_fixture(
            "arena",
            2,
            &[
                "--bots",
                "random,normal",
                "--games",
                "6",
                "--rate",
                "--data",
            ],
        )
        .arg(&data),
    );
    // A server on that database shows both kinds on the ladder, each with every game.
    let app = TestApp::start(&dir.0).await;
    let (status, ladder) = app
        .call(
            "GET",
            &format!("/api/ratings?ruleset={FIXTURE}&players=2"),
            None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{ladder}");
    for bot in ["random", "normal"] {
        assert_eq!(entry(&ladder, bot)["games"], 6, "{ladder}");
        assert_eq!(entry(&ladder, bot)["kind"], "bot");
    }
    let rating = |bot| entry(&ladder, bot)["rating"].as_f64().unwrap();
    assert!(
        rating("normal") >= rating("random"),
        "a search bot is no weaker than random moves: {ladder}"
    );
}
