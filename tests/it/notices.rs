//! Notices, in-process on a manual clock, with a real SMTP server on loopback
//! ([`crate::smtp_sink`]) reading what the server sends: a "your turn" mail to the right
//! account with a one-time sign-in link that works once, a signed unsubscribe (a forged or
//! altered one refused), the page's notices, a reminder sent once when a quarter of a
//! turn-based seat's time is left, each mail sent once by two servers on one database, and the
//! operators' health figures.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use host::server::clocks::{Clock, ManualClock};
use host::server::notices::mailer::{MailSettings, Mailer};
use host::server::storage::ClockWrite;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use crate::clocks::{create, start};
use crate::server_support::{RULESET, TempDir, TestApp, seats_json};
use crate::smtp_sink::{ReceivedMail, SmtpSink};

/// Where every manual clock starts (milliseconds since the epoch).
const START: i64 = 1_795_000_000_000;

const HOUR: Duration = Duration::from_secs(3600);

/// The public address mails link to.
const PUBLIC: &str = "http://tenka.test";

/// Starts a mail sender for `app` to `sink`.
fn send_mail(app: &TestApp, clock: &Arc<ManualClock>, sink: &SmtpSink) {
    let clock: Arc<dyn Clock> = clock.clone();
    Mailer::new(
        app.state.hub.storage().clone(),
        clock,
        &MailSettings {
            smtp_url: sink.url(),
            from: "Tenka <tenka@example.test>".to_owned(),
            public_url: PUBLIC.to_owned(),
        },
    )
    .unwrap()
    .spawn();
}

/// An answer with its headers.
struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
}

/// Sends a request with these headers and an optional JSON body.
async fn send(
    app: &TestApp,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Answer {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = match body {
        Some(body) => request
            .header("content-type", "application/json")
            .body(Body::from(body.to_string())),
        None => request.body(Body::empty()),
    }
    .unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Answer {
        status,
        headers,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// A signed-in account: its cookie and CSRF token.
struct Account {
    name: String,
    cookie: String,
    csrf: String,
    email: String,
}

impl Account {
    async fn sign_up(app: &TestApp, name: &str) -> Account {
        let answer = send(
            app,
            "POST",
            "/api/accounts",
            &[],
            Some(json!({ "name": name, "password": "a long enough password" })),
        )
        .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text);
        let cookie = answer.headers["set-cookie"].to_str().unwrap();
        Account {
            name: name.to_owned(),
            cookie: cookie.split(';').next().unwrap().to_owned(),
            csrf: answer.json()["csrf_token"].as_str().unwrap().to_owned(),
            email: format!("{name}@example.test"),
        }
    }

    /// A request with the session (and its CSRF token).
    async fn call(&self, app: &TestApp, method: &str, uri: &str, body: Option<Value>) -> Answer {
        send(
            app,
            method,
            uri,
            &[("cookie", &self.cookie), ("x-csrf-token", &self.csrf)],
            body,
        )
        .await
    }

    /// Attaches a seat by its token and asks for every notice by mail.
    async fn take_seat_with_mail(&self, app: &TestApp, game: &str, token: &str) {
        let answer = self
            .call(
                app,
                "POST",
                "/api/me/seats",
                Some(json!({ "seats": [{ "game": game, "token": token }] })),
            )
            .await;
        assert_eq!(
            answer.json()["seats"][0]["outcome"],
            "attached",
            "{}",
            answer.text
        );
        let answer = self
            .call(
                app,
                "PUT",
                "/api/me/notice-settings",
                Some(
                    json!({ "email": self.email, "mail": true, "your_turn": true,
                    "replaced": true, "ended": true, "reminders": true }),
                ),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
    }
}

/// A table of two accounts on a fresh server with a mail sender: the clocks tests' table (the
/// server, its manual clock, the game, its seats' tokens) with the accounts in its seats.
struct Table {
    table: crate::clocks::Table,
    sink: SmtpSink,
    accounts: [Account; 2],
}

impl std::ops::Deref for Table {
    type Target = crate::clocks::Table;

    fn deref(&self) -> &crate::clocks::Table {
        &self.table
    }
}

impl Table {
    async fn new(label: &str, pace: Value) -> Table {
        let table = crate::clocks::Table::new(label, pace).await;
        let sink = SmtpSink::start().await;
        send_mail(&table.app, &table.clock, &sink);
        let accounts = [
            Account::sign_up(&table.app, "aoi").await,
            Account::sign_up(&table.app, "botan").await,
        ];
        for (account, token) in accounts.iter().zip(&table.tokens) {
            account
                .take_seat_with_mail(&table.app, &table.game, token)
                .await;
        }
        Table {
            table,
            sink,
            accounts,
        }
    }

    /// Waits (in real time, for the sender) until the health figures show `done`.
    async fn health_until(&self, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        health_until(&self.app, what, done).await
    }
}

/// The number of mails in `state` in health figures.
fn mails_in(health: &Value, state: &str) -> i64 {
    health["mails"]
        .get(state)
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

/// Waits (in real time, for the server's tasks, never for its clock) until `app`'s health
/// figures show `done`; returns them.
async fn health_until(app: &TestApp, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let answer = send(app, "GET", "/api/health", &[], None).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text);
        let health = answer.json();
        if done(&health) {
            return health;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never {what}: {health}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The path (and query) of a link to this server.
fn path_of(link: &str) -> &str {
    link.strip_prefix(PUBLIC).unwrap()
}

fn assert_says_nothing_private(mail: &ReceivedMail, other: &Account) {
    let text = &mail.data;
    assert!(!text.contains(&other.email), "{text}");
    assert!(!text.contains(&other.name), "{text}");
    assert!(
        !text.contains("choose"),
        "no decision or view in a mail: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_mail_reaches_its_account_with_a_one_time_link_and_a_signed_unsubscribe() {
    let table = Table::new(
        "notices-turn",
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 1 }),
    )
    .await;
    let [aoi, botan] = &table.accounts;
    // The first seat plans: the second seat still owes its plan, and is told so.
    answer(&table.app, &table.game, &table.tokens[0]).await;
    let mails = table.sink.wait_for(1).await;
    let mail = &mails[0];
    assert_eq!(mail.to, std::slice::from_ref(&botan.email));
    assert_eq!(mail.from, "tenka@example.test");
    let subject = mail.header("subject").unwrap();
    assert!(
        subject.starts_with("Your turn in secret-draw game"),
        "{subject}"
    );
    assert!(subject.contains(&table.game), "{subject}");
    assert_says_nothing_private(mail, aoi);
    assert_eq!(
        mail.header("list-unsubscribe-post").as_deref(),
        Some("List-Unsubscribe=One-Click")
    );
    let unsubscribe = mail.header("list-unsubscribe").unwrap();
    let unsubscribe = unsubscribe.trim_matches(['<', '>']).to_owned();
    assert!(mail.link(PUBLIC).unwrap().contains("/api/notices/open/"));

    // The page shows the notice, unseen, to its account only.
    let page = botan
        .call(&table.app, "GET", "/api/me/notices", None)
        .await
        .json();
    assert_eq!(page["unseen"], 1, "{page}");
    assert_eq!(page["notices"][0]["kind"], "your-turn");
    assert_eq!(page["notices"][0]["game"], table.game.as_str());
    let theirs = aoi
        .call(&table.app, "GET", "/api/me/notices", None)
        .await
        .json();
    assert_eq!(theirs["unseen"], 0, "{theirs}");
    let id = page["notices"][0]["id"].clone();
    let seen = botan
        .call(
            &table.app,
            "POST",
            "/api/me/notices/seen",
            Some(json!({ "up_to": id })),
        )
        .await;
    assert_eq!(seen.json()["marked"], 1, "{}", seen.text);
    let forged = send(
        &table.app,
        "POST",
        "/api/me/notices/seen",
        &[("cookie", &botan.cookie)],
        Some(json!({ "up_to": id })),
    )
    .await;
    assert_eq!(
        forged.status,
        StatusCode::FORBIDDEN,
        "no CSRF token, no change"
    );

    // The link opens a page whose button signs in once, then leads to the game.
    let open = mail.link(&format!("{PUBLIC}/api/notices/open/")).unwrap();
    let page = send(&table.app, "GET", path_of(&open), &[], None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text.contains("<form method=\"post\""), "{}", page.text);
    let cross_site = send(
        &table.app,
        "POST",
        path_of(&open),
        &[("sec-fetch-site", "cross-site")],
        None,
    )
    .await;
    assert_eq!(
        cross_site.status,
        StatusCode::FORBIDDEN,
        "another site cannot post it"
    );
    let signed_in = send(&table.app, "POST", path_of(&open), &[], None).await;
    assert_eq!(
        signed_in.status,
        StatusCode::SEE_OTHER,
        "{}",
        signed_in.text
    );
    assert_eq!(
        signed_in.headers["location"],
        format!("/#/my-games?game={}&seat=1", table.game).as_str(),
        "the link opens the game at the mail's seat"
    );
    let cookie = signed_in.headers["set-cookie"].to_str().unwrap();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    let cookie = cookie.split(';').next().unwrap();
    let me = send(&table.app, "GET", "/api/me", &[("cookie", cookie)], None).await;
    assert_eq!(me.json()["account"]["name"], "botan", "{}", me.text);
    let again = send(&table.app, "POST", path_of(&open), &[], None).await;
    assert_eq!(again.status, StatusCode::SEE_OTHER);
    assert!(
        again.headers.get("set-cookie").is_none(),
        "a link signs in once"
    );

    // Unsubscribing: a forged or altered link is refused and changes nothing.
    let valid = path_of(&unsubscribe).to_owned();
    let signature = valid.split("sig=").nth(1).unwrap();
    let mut altered = signature.to_owned();
    altered.replace_range(0..1, if signature.starts_with('0') { "1" } else { "0" });
    let aoi_id = aoi.call(&table.app, "GET", "/api/me", None).await.json()["account"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for forged in [
        valid.replace(signature, &altered),
        valid.replace(signature, ""),
        format!("/api/notices/unsubscribe?account={aoi_id}&sig={signature}"),
        "/api/notices/unsubscribe?account=../x&sig=00".to_owned(),
    ] {
        let refused = send(&table.app, "POST", &forged, &[], None).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{forged}");
    }
    for account in [aoi, botan] {
        let settings = account
            .call(&table.app, "GET", "/api/me/notice-settings", None)
            .await
            .json();
        assert_eq!(settings["mail"], true, "{settings}");
    }
    let done = send(&table.app, "POST", &valid, &[], None).await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.text);
    let settings = botan
        .call(&table.app, "GET", "/api/me/notice-settings", None)
        .await
        .json();
    assert_eq!(settings["mail"], false, "{settings}");
    assert_eq!(settings["email"], botan.email.as_str(), "{settings}");

    // The second seat plans: a new round waits for both; the first seat's person is told.
    answer(&table.app, &table.game, &table.tokens[1]).await;
    let mails = table.sink.wait_for(2).await;
    assert_eq!(mails[1].to, std::slice::from_ref(&aoi.email));
    assert_says_nothing_private(&mails[1], botan);
    table
        .health_until("two mails sent", |h| mails_in(h, "sent") == 2)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_is_sent_once_when_a_quarter_of_the_seats_time_is_left() {
    // 24 hours a move and no extra days: the reminder comes with 6 hours left.
    let table = Table::new(
        "notices-reminder",
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 0 }),
    )
    .await;
    answer(&table.app, &table.game, &table.tokens[0]).await;
    let mails = table.sink.wait_for(1).await;
    assert!(mails[0].header("subject").unwrap().starts_with("Your turn"));
    let health = table
        .health_until("the turn's mail sent", |h| mails_in(h, "sent") == 1)
        .await;
    assert_eq!(
        mails_in(&health, "queued"),
        1,
        "the reminder waits: {health}"
    );

    // At 7 hours left the reminder is not due: the outbox still holds it.
    table.clock.advance(17 * HOUR);
    let health = table
        .health_until("the sender idle", |h| mails_in(h, "sending") == 0)
        .await;
    assert_eq!(mails_in(&health, "queued"), 1, "not yet: {health}");

    table.clock.advance(HOUR);
    let mails = table.sink.wait_for(2).await;
    let reminder = &mails[1];
    assert_eq!(reminder.to, std::slice::from_ref(&table.accounts[1].email));
    let subject = reminder.header("subject").unwrap();
    assert!(subject.starts_with("Your time is running out"), "{subject}");

    table.clock.advance(HOUR);
    let health = table
        .health_until("the reminder recorded as sent", |h| {
            mails_in(h, "sent") == 2
        })
        .await;
    assert_eq!(mails_in(&health, "queued"), 0, "once per turn: {health}");
    assert_eq!(table.sink.mails().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_for_a_turn_already_played_is_dropped() {
    let table = Table::new(
        "notices-reminder-played",
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 0 }),
    )
    .await;
    answer(&table.app, &table.game, &table.tokens[0]).await;
    table.sink.wait_for(1).await;
    // The second seat plans in time: a new round, the first seat's person is told; the second
    // seat's reminder (for the turn it played) is never sent.
    table.clock.advance(HOUR);
    answer(&table.app, &table.game, &table.tokens[1]).await;
    table.sink.wait_for(2).await;
    // The first reminder's time (18 hours after the start) comes; the new round's reminders
    // are due an hour later.
    table.clock.advance(17 * HOUR + HOUR / 2);
    table
        .health_until("the stale reminder dropped", |h| {
            mails_in(h, "dropped") == 1
        })
        .await;
    let subjects: Vec<String> = (table.sink.mails().iter())
        .filter_map(|mail| mail.header("subject"))
        .collect();
    assert!(
        !subjects
            .iter()
            .any(|subject| subject.contains("running out")),
        "{subjects:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_database_send_each_mail_once() {
    let dir = TempDir::new("notices-two");
    let clock = ManualClock::new(START);
    let one = start(&dir.0, &clock).await;
    let other = start(&dir.0, &clock).await;
    let sink = SmtpSink::start().await;
    send_mail(&one, &clock, &sink);
    send_mail(&other, &clock, &sink);
    let accounts = [
        Account::sign_up(&one, "chidori").await,
        Account::sign_up(&one, "daiki").await,
    ];
    let mut games = Vec::new();
    for _ in 0..6 {
        let (game, tokens) = create(
            &one,
            json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 1 }),
        )
        .await;
        for (account, token) in accounts.iter().zip(&tokens) {
            account.take_seat_with_mail(&one, &game, token).await;
        }
        games.push((game, tokens));
    }
    // Half the moves through each server.
    for (index, (game, tokens)) in games.iter().enumerate() {
        let app = if index % 2 == 0 { &one } else { &other };
        answer(app, game, &tokens[0]).await;
    }
    let mails = sink.wait_for(6).await;
    // Both servers looked at the same changes: the notice marks let only one write each.
    for (game, _) in &games {
        notices_observed_again(&one, game).await;
        notices_observed_again(&other, game).await;
    }
    let settled = health_until(&one, "six mails recorded as sent", |h| {
        mails_in(h, "sent") == 6 && mails_in(h, "sending") == 0
    })
    .await;
    assert_eq!(settled["mails"]["sent"], 6, "{settled}");
    let mails = if sink.mails().len() > mails.len() {
        sink.mails()
    } else {
        mails
    };
    assert_eq!(mails.len(), 6, "each mail once: {mails:#?}");
    let mut subjects: Vec<String> = mails.iter().filter_map(|m| m.header("subject")).collect();
    subjects.sort();
    subjects.dedup();
    assert_eq!(subjects.len(), 6, "one mail per game: {subjects:?}");
    assert!(
        mails
            .iter()
            .all(|mail| mail.to == [accounts[1].email.clone()])
    );
}

/// Has `app` look at a game again, as it does after every stored change: a look that finds
/// nothing new (or an older game than stored) writes nothing.
async fn notices_observed_again(app: &TestApp, game: &str) {
    let live = app.state.hub.game(game).await.unwrap();
    host::server::notices::store::observe(
        app.state.hub.storage(),
        app.state.hub.now_millis(),
        &live.sighting(),
    )
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_figures_count_paces_stalled_tables_and_how_games_finished() {
    let dir = TempDir::new("notices-health");
    let clock = ManualClock::new(START);
    let app = start(&dir.0, &clock).await;
    let health = |app: &TestApp| {
        let app = app.router.clone();
        async move {
            let response = app
                .oneshot(Request::get("/api/health").body(Body::empty()).unwrap())
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            let bytes = response.into_body().collect().await.unwrap().to_bytes();
            serde_json::from_slice::<Value>(&bytes).unwrap()
        }
    };
    let empty = health(&app).await;
    assert_eq!(empty["status"], "ok", "{empty}");
    assert_eq!(empty["running"], 0);
    assert_eq!(empty["finished"]["everyone_on_board_share"], Value::Null);

    let (untimed, _) = create(&app, json!({ "kind": "untimed" })).await;
    let (turns, _) = create(
        &app,
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 0 }),
    )
    .await;
    let (live, _) = create(&app, json!({ "kind": "live", "bank_seconds": 600 })).await;
    let figures = health(&app).await;
    assert_eq!(figures["running"], 3, "{figures}");
    assert_eq!(figures["running_by_pace"]["untimed"], 1, "{figures}");
    assert_eq!(figures["running_by_pace"]["turn-based"], 1, "{figures}");
    assert_eq!(figures["running_by_pace"]["live"], 1, "{figures}");
    assert_eq!(figures["stalled"]["count"], 0, "{figures}");

    // A clock whose deadline passed without its timer acting (written behind the server's back,
    // as a lost timer would leave it) is a stalled table.
    let storage = app.state.hub.storage();
    let (_, state, _) = storage.clock(&live).await.unwrap().unwrap();
    storage
        .save_clock(
            &live,
            &ClockWrite {
                state_json: state,
                deadline: Some(START - 2 * 60_000),
            },
        )
        .await
        .unwrap();
    let figures = health(&app).await;
    assert_eq!(figures["status"], "attention", "{figures}");
    assert_eq!(figures["stalled"]["late_clocks"], 1, "{figures}");
    assert_eq!(figures["stalled"]["games"], json!([live]), "{figures}");

    // A game whose person's seat a bot finishes counts as completed by a bot.
    let (status, body) = app
        .post_game(json!({
            "ruleset": RULESET.id, "map": RULESET.map, "options": { "rounds": 1 },
            "seats": seats_json(&[None, Some("random")]),
        }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (game, token) = (
        body["id"].as_str().unwrap(),
        body["seats"][0]["token"].as_str().unwrap(),
    );
    let (status, body) = app
        .call(
            "POST",
            &format!("/api/games/{game}/seats/0/bot"),
            Some(token),
            Some(json!({ "bot": "random" })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let figures = health_until(&app, "the game finished", |h| {
        h["finished"]["with_people"] == 1
    })
    .await;
    assert_eq!(figures["finished"]["completed_by_a_bot"], 1, "{figures}");
    assert_eq!(figures["finished"]["everyone_on_board"], 0, "{figures}");
    assert_eq!(
        figures["finished"]["everyone_on_board_share"], 0.0,
        "{figures}"
    );
    let _ = (untimed, turns);

    let page = send(&app, "GET", "/api/health/page", &[], None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text.contains("Stalled tables"), "{}", page.text);
    assert!(page.text.contains(&live), "{}", page.text);
}

/// Plans a number for the seat of `token`, which owes one.
async fn answer(app: &TestApp, game: &str, token: &str) {
    assert_eq!(
        crate::clocks::answer(app, game, token).await,
        StatusCode::OK
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mails_are_written_in_the_accounts_language_and_their_link_opens_the_game_at_the_seat() {
    let table = Table::new(
        "notices-language",
        json!({ "kind": "turn-based", "move_hours": 24, "extra_days": 1 }),
    )
    .await;
    let [aoi, botan] = &table.accounts;
    // The language chosen in the page is the account's; one the UI does not offer is refused
    // and changes nothing.
    let refused = botan
        .call(
            &table.app,
            "PUT",
            "/api/me/language",
            Some(json!({ "language": "xx" })),
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.text);
    let no_csrf = send(
        &table.app,
        "PUT",
        "/api/me/language",
        &[("cookie", &botan.cookie)],
        Some(json!({ "language": "ru" })),
    )
    .await;
    assert_eq!(no_csrf.status, StatusCode::FORBIDDEN);
    let me = botan.call(&table.app, "GET", "/api/me", None).await.json();
    assert_eq!(me["account"]["language"], "en", "the sign-up's own: {me}");
    for (account, language) in [(botan, "ru"), (aoi, "de")] {
        let chosen = account
            .call(
                &table.app,
                "PUT",
                "/api/me/language",
                Some(json!({ "language": language })),
            )
            .await;
        assert_eq!(chosen.status, StatusCode::OK, "{}", chosen.text);
    }

    // Botan's turn, in Russian.
    answer(&table.app, &table.game, &table.tokens[0]).await;
    let mails = table.sink.wait_for(1).await;
    let mail = &mails[0];
    assert_eq!(mail.to, std::slice::from_ref(&botan.email));
    let subject = mail.subject();
    assert_eq!(
        subject,
        format!("Ваш ход в партии {} (secret-draw)", table.game)
    );
    let body = mail.body();
    assert!(body.contains("Ваш ход (место 2)"), "{body}");
    assert!(body.contains("Отписаться"), "{body}");
    assert_says_nothing_private(mail, aoi);

    // The link signs in and opens the game at the seat: the seat's token for this browser,
    // and the seat's own view with it.
    let open = mail.link(&format!("{PUBLIC}/api/notices/open/")).unwrap();
    let opened = send(&table.app, "POST", path_of(&open), &[], None).await;
    assert_eq!(opened.status, StatusCode::SEE_OTHER, "{}", opened.text);
    let location = opened.headers["location"].to_str().unwrap().to_owned();
    assert_eq!(location, format!("/#/my-games?game={}&seat=1", table.game));
    let cookie = opened.headers["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let me = send(&table.app, "GET", "/api/me", &[("cookie", &cookie)], None)
        .await
        .json();
    let csrf = me["csrf_token"].as_str().unwrap().to_owned();
    let taken = send(
        &table.app,
        "POST",
        &format!("/api/me/games/{}/seats/1/token", table.game),
        &[("cookie", &cookie), ("x-csrf-token", &csrf)],
        None,
    )
    .await;
    assert_eq!(taken.status, StatusCode::OK, "{}", taken.text);
    let token = taken.json()["token"].as_str().unwrap().to_owned();
    let view = send(
        &table.app,
        "GET",
        &format!("/api/games/{}/view", table.game),
        &[("authorization", &format!("Bearer {token}"))],
        None,
    )
    .await;
    assert_eq!(view.status, StatusCode::OK, "{}", view.text);
    assert_eq!(
        view.json()["viewer"],
        json!({ "seat": 1 }),
        "the mail's seat: {}",
        view.text
    );

    // Aoi's turn, in German.
    answer(&table.app, &table.game, &token).await;
    let mails = table.sink.wait_for(2).await;
    assert_eq!(mails[1].to, std::slice::from_ref(&aoi.email));
    assert_eq!(
        mails[1].subject(),
        format!("Du bist am Zug in der secret-draw-Partie {}", table.game)
    );
    assert!(
        mails[1].body().contains("Partie öffnen"),
        "{}",
        mails[1].body()
    );

    // Without a choice, a new account's language is its sign-up request's.
    let made = send(
        &table.app,
        "POST",
        "/api/accounts",
        &[("accept-language", "fr-FR, es-ES;q=0.8, en;q=0.5")],
        Some(json!({ "name": "chika", "password": "a long enough password" })),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text);
    let cookie = made.headers["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap();
    let me = send(&table.app, "GET", "/api/me", &[("cookie", cookie)], None)
        .await
        .json();
    assert_eq!(me["account"]["language"], "es", "{me}");
}
