//! Accounts against a real server process over HTTP: signing up, in and out; the session
//! cookie's fixation and CSRF defences; sign-in throttles per account and per address; seats
//! attached from guest tokens, played from a new device, and listed in My games in order; and one
//! account never seeing another's seats.

use std::time::Duration;

use serde_json::{Value, json};

use crate::server_support::{
    RULESET, ServerProcess, TempDir, answer_rng, http_with_headers, random_answer,
};

/// A server with rate limits off but for the given account options.
fn server(dir: &TempDir, account_args: &[&str]) -> ServerProcess {
    crate::server_connections::start(dir, account_args)
}

/// [`server`] on a PostgreSQL `database`, or SQLite without one.
fn server_on(dir: &TempDir, database: Option<&str>, account_args: &[&str]) -> ServerProcess {
    let mut args = account_args.to_vec();
    args.extend(
        database
            .map(|url| ["--database", url])
            .into_iter()
            .flatten(),
    );
    server(dir, &args)
}

/// An answer: status, the raw head and body, and the body as JSON (`Null` if not JSON).
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
    pub(crate) json: Value,
}

impl Answer {
    /// The session id the answer sets, if any (empty when it clears the cookie).
    fn session(&self) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            if !name.eq_ignore_ascii_case("set-cookie") {
                return None;
            }
            let value = value.trim().strip_prefix("tenka_session=")?;
            Some(value.split(';').next().unwrap_or_default().to_owned())
        })
    }

    fn set_cookie(&self) -> String {
        self.head
            .lines()
            .find(|line| line.to_ascii_lowercase().starts_with("set-cookie:"))
            .unwrap_or_default()
            .to_owned()
    }
}

/// A request with these headers (and a JSON body, if any).
pub(crate) fn call(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Answer {
    let (status, head, body) = http_with_headers(addr, method, path, headers, body).unwrap();
    Answer {
        status,
        head,
        json: serde_json::from_str(&body).unwrap_or(Value::Null),
        body,
    }
}

/// A signed-in browser: its session cookie and CSRF token.
#[derive(Clone)]
struct Browser {
    cookie: String,
    csrf: String,
}

impl Browser {
    fn from(answer: &Answer) -> Browser {
        Browser {
            cookie: format!(
                "tenka_session={}",
                answer.session().expect("a session cookie")
            ),
            csrf: answer.json["csrf_token"]
                .as_str()
                .expect("a CSRF token")
                .to_owned(),
        }
    }

    fn get(&self, addr: &str, path: &str) -> Answer {
        call(addr, "GET", path, &[("Cookie", &self.cookie)], None)
    }

    fn post(&self, addr: &str, path: &str, body: Option<&Value>) -> Answer {
        call(
            addr,
            "POST",
            path,
            &[("Cookie", &self.cookie), ("X-CSRF-Token", &self.csrf)],
            body,
        )
    }
}

fn credentials(name: &str, password: &str) -> Value {
    json!({ "name": name, "password": password })
}

fn sign_up(addr: &str, name: &str, password: &str) -> Browser {
    let answer = call(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(&credentials(name, password)),
    );
    assert_eq!(answer.status, 201, "{}", answer.body);
    Browser::from(&answer)
}

fn sign_in(addr: &str, name: &str, password: &str) -> Browser {
    let answer = call(
        addr,
        "POST",
        "/api/accounts/sign-in",
        &[],
        Some(&credentials(name, password)),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    Browser::from(&answer)
}

/// Creates a game of two people's seats, both the creator's; returns its id and their tokens.
fn two_seat_game(addr: &str, rounds: u32) -> (String, Vec<String>) {
    let (id, tokens, _) = hosted_game(addr, rounds);
    (id, tokens)
}

/// [`two_seat_game`] with the host token.
fn hosted_game(addr: &str, rounds: u32) -> (String, Vec<String>, String) {
    let body = json!({ "ruleset": RULESET.id, "map": RULESET.map, "options": { "rounds": rounds },
        "seats": [{ "kind": "human", "creator": true }, { "kind": "human", "creator": true }] });
    let created = call(addr, "POST", "/api/games", &[], Some(&body));
    assert_eq!(created.status, 201, "{}", created.body);
    let tokens = (0..2)
        .map(|seat| {
            created.json["seats"][seat]["token"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let host = created.json["host_token"].as_str().unwrap().to_owned();
    (
        created.json["id"].as_str().unwrap().to_owned(),
        tokens,
        host,
    )
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// The seat's view with its token.
fn view(addr: &str, game: &str, token: &str) -> Answer {
    call(
        addr,
        "GET",
        &format!("/api/games/{game}/view"),
        &[("Authorization", &bearer(token))],
        None,
    )
}

/// Plays the seat's pending decision.
fn play(addr: &str, game: &str, token: &str) {
    let seen = view(addr, game, token);
    assert_eq!(seen.status, 200, "{}", seen.body);
    let body = json!({ "version": seen.json["version"], "action": random_answer(&seen.json, &mut answer_rng(3)) });
    let answer = call(
        addr,
        "POST",
        &format!("/api/games/{game}/actions"),
        &[("Authorization", &bearer(token))],
        Some(&body),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
}

fn attach(addr: &str, browser: &Browser, held: &[(&str, &str)]) -> Vec<Value> {
    let seats: Vec<Value> = held
        .iter()
        .map(|(game, token)| json!({ "game": game, "token": token }))
        .collect();
    let answer = browser.post(addr, "/api/me/seats", Some(&json!({ "seats": seats })));
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json["seats"].as_array().unwrap().clone()
}

/// The (game, seat, status) of My games, in order.
fn my_games(addr: &str, browser: &Browser) -> Vec<(String, u64, String)> {
    let answer = browser.get(addr, "/api/me/games");
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| {
            (
                game["id"].as_str().unwrap().to_owned(),
                game["seat"].as_u64().unwrap(),
                game["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

const PASSWORD: &str = "a long enough passphrase";

#[test]
fn an_account_signs_up_in_and_out_and_its_password_hash_never_shows() {
    an_account_signs_up_in_and_out_and_its_password_hash_never_shows_on(None);
}

fn an_account_signs_up_in_and_out_and_its_password_hash_never_shows_on(database: Option<&str>) {
    let dir = TempDir::new("accounts-lifecycle");
    let server = server_on(&dir, database, &["--sign-ins-per-minute", "0"]);
    let addr = server.addr.as_str();
    let mut bodies = Vec::new();

    let created = call(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(&credentials("Ann.Player", PASSWORD)),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let cookie = created.set_cookie();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/api"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    assert!(
        !cookie.contains("Secure"),
        "no Secure without --secure-cookies: {cookie}"
    );
    assert_eq!(created.json["account"]["name"], "Ann.Player");
    let first = Browser::from(&created);
    bodies.push(created.body.clone());

    let me = first.get(addr, "/api/me");
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.json["account"]["name"], "Ann.Player");
    assert_eq!(me.json["csrf_token"], first.csrf.as_str());
    bodies.push(me.body);

    // The name is taken in any case; bad names and passwords are refused and store nothing.
    let taken = call(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(&credentials("ann.player", PASSWORD)),
    );
    assert_eq!(
        (taken.status, taken.json["error"].as_str()),
        (409, Some("conflict")),
        "{}",
        taken.body
    );
    for (name, password) in [
        ("ab", PASSWORD),
        ("bad name", PASSWORD),
        ("short-pass", "tooshort"),
        ("long-pass", &"p".repeat(129)),
    ] {
        let refused = call(
            addr,
            "POST",
            "/api/accounts",
            &[],
            Some(&credentials(name, password)),
        );
        assert_eq!(refused.status, 400, "{name}: {}", refused.body);
        assert!(
            !refused.body.contains(password),
            "the password is not repeated"
        );
        let sign_in = call(
            addr,
            "POST",
            "/api/accounts/sign-in",
            &[],
            Some(&credentials(name, PASSWORD)),
        );
        assert_ne!(sign_in.status, 200, "{name} was not created");
    }
    let unknown_field = call(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(&json!({ "name": "eve", "password": PASSWORD, "admin": true })),
    );
    assert_eq!(unknown_field.status, 400, "{}", unknown_field.body);

    // A wrong password and an unknown name get the same refusal.
    let wrong = call(
        addr,
        "POST",
        "/api/accounts/sign-in",
        &[],
        Some(&credentials("Ann.Player", "not the passphrase")),
    );
    let nobody = call(
        addr,
        "POST",
        "/api/accounts/sign-in",
        &[],
        Some(&credentials("nobody-here", PASSWORD)),
    );
    assert_eq!(wrong.status, 403, "{}", wrong.body);
    assert_eq!(wrong.json, nobody.json);
    assert_eq!(wrong.session(), None, "a refused sign-in sets no cookie");

    // A second device signs in with a session of its own; both work until signed out.
    let signed_in = call(
        addr,
        "POST",
        "/api/accounts/sign-in",
        &[],
        Some(&credentials("ANN.PLAYER", PASSWORD)),
    );
    assert_eq!(signed_in.status, 200, "{}", signed_in.body);
    bodies.push(signed_in.body.clone());
    let second = Browser::from(&signed_in);
    assert_ne!(second.cookie, first.cookie);
    assert_ne!(second.csrf, first.csrf);
    assert_eq!(second.get(addr, "/api/me").status, 200);

    let out = first.post(addr, "/api/accounts/sign-out", None);
    assert_eq!(out.status, 200, "{}", out.body);
    assert!(
        out.set_cookie().contains("Max-Age=0"),
        "{}",
        out.set_cookie()
    );
    let after = first.get(addr, "/api/me");
    assert_eq!(
        after.status, 403,
        "a signed-out session is revoked: {}",
        after.body
    );
    assert_eq!(
        first
            .post(addr, "/api/me/seats", Some(&json!({ "seats": [] })))
            .status,
        403
    );
    assert_eq!(
        second.get(addr, "/api/me").status,
        200,
        "the other device stays signed in"
    );

    let games = second.get(addr, "/api/me/games");
    bodies.push(games.body);
    for body in &bodies {
        assert!(!body.contains("$argon2"), "a password hash in {body}");
        assert!(!body.contains("password_hash"), "{body}");
        assert!(!body.contains(PASSWORD), "the password in {body}");
    }
}

#[test]
fn a_session_set_before_sign_in_is_never_promoted() {
    a_session_set_before_sign_in_is_never_promoted_on(None);
}

fn a_session_set_before_sign_in_is_never_promoted_on(database: Option<&str>) {
    let dir = TempDir::new("accounts-fixation");
    let server = server_on(&dir, database, &["--sign-ins-per-minute", "0"]);
    let addr = server.addr.as_str();
    sign_up(addr, "victim", PASSWORD);

    // An id an attacker planted in the browser before the victim signs in.
    let planted = "ab".repeat(32);
    let planted_cookie = format!("tenka_session={planted}");
    let answer = call(
        addr,
        "POST",
        "/api/accounts/sign-in",
        &[("Cookie", &planted_cookie)],
        Some(&credentials("victim", PASSWORD)),
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_ne!(answer.session().as_deref(), Some(planted.as_str()));
    let attacker = call(addr, "GET", "/api/me", &[("Cookie", &planted_cookie)], None);
    assert_eq!(
        attacker.status, 403,
        "the planted id is no session: {}",
        attacker.body
    );

    // A live session the browser held before signing in again is ended, not kept.
    let before = Browser::from(&answer);
    let again = call(
        addr,
        "POST",
        "/api/accounts/sign-in",
        &[("Cookie", &before.cookie)],
        Some(&credentials("victim", PASSWORD)),
    );
    assert_eq!(again.status, 200, "{}", again.body);
    let after = Browser::from(&again);
    assert_ne!(after.cookie, before.cookie);
    assert_eq!(
        before.get(addr, "/api/me").status,
        403,
        "the old session ended"
    );
    assert_eq!(after.get(addr, "/api/me").status, 200);
}

#[test]
fn a_change_made_with_the_cookie_needs_the_csrf_token_and_changes_nothing_without() {
    a_change_made_with_the_cookie_needs_the_csrf_token_and_changes_nothing_without_on(None);
}

fn a_change_made_with_the_cookie_needs_the_csrf_token_and_changes_nothing_without_on(
    database: Option<&str>,
) {
    let dir = TempDir::new("accounts-csrf");
    let server = server_on(&dir, database, &["--sign-ins-per-minute", "0"]);
    let addr = server.addr.as_str();
    let browser = sign_up(addr, "careful", PASSWORD);
    let (game, tokens) = two_seat_game(addr, 2);
    let held = json!({ "seats": [{ "game": game, "token": tokens[0] }] });

    for csrf in [
        None,
        Some(String::new()),
        Some("0".repeat(64)),
        Some(browser.csrf.to_uppercase()),
    ] {
        let mut headers = vec![("Cookie", browser.cookie.as_str())];
        if let Some(csrf) = &csrf {
            headers.push(("X-CSRF-Token", csrf.as_str()));
        }
        let attach = call(addr, "POST", "/api/me/seats", &headers, Some(&held));
        assert_eq!(attach.status, 403, "{csrf:?}: {}", attach.body);
        let out = call(addr, "POST", "/api/accounts/sign-out", &headers, None);
        assert_eq!(out.status, 403, "{csrf:?}: {}", out.body);
        let token = call(
            addr,
            "POST",
            &format!("/api/me/games/{game}/seats/0/token"),
            &headers,
            None,
        );
        assert_eq!(token.status, 403, "{csrf:?}: {}", token.body);
    }
    assert!(my_games(addr, &browser).is_empty(), "no seat was attached");
    assert_eq!(browser.get(addr, "/api/me").status, 200, "still signed in");
    assert_eq!(
        view(addr, &game, &tokens[0]).json["viewer"],
        json!({ "seat": 0 }),
        "the seat's token still works"
    );

    // Requests with a seat token alone work as before, with or without a cookie.
    play(addr, &game, &tokens[1]);

    // With the token, the same requests go through.
    let attached = attach(addr, &browser, &[(&game, &tokens[0])]);
    assert_eq!(attached[0]["outcome"], "attached");
    assert_eq!(my_games(addr, &browser).len(), 1);
}

#[test]
fn sign_ins_are_throttled_per_account_and_per_address() {
    let dir = TempDir::new("accounts-throttle");
    let server = server(
        &dir,
        &[
            "--sign-ins-per-minute",
            "8",
            "--sign-ins-per-account-per-hour",
            "3",
        ],
    );
    let addr = server.addr.as_str();
    sign_up(addr, "alice", PASSWORD);
    sign_up(addr, "bob", PASSWORD);
    let attempt = |name: &str, password: &str| {
        call(
            addr,
            "POST",
            "/api/accounts/sign-in",
            &[],
            Some(&credentials(name, password)),
        )
    };
    for _ in 0..3 {
        assert_eq!(attempt("alice", "a wrong guess here").status, 403);
    }
    // Alice's account is throttled, even for the right password...
    let throttled = attempt("alice", PASSWORD);
    assert_eq!(throttled.status, 429, "{}", throttled.body);
    assert_eq!(throttled.json["error"], "rate-limited");
    assert!(
        throttled.head.to_ascii_lowercase().contains("retry-after:"),
        "{}",
        throttled.head
    );
    assert_eq!(throttled.session(), None);
    // ...but not Bob's, from the same address.
    assert_eq!(attempt("bob", PASSWORD).status, 200);
    // The address has made 8 attempts (2 sign-ups, 6 sign-ins) and is throttled whatever name
    // it tries next.
    assert_eq!(attempt("carol", PASSWORD).status, 403);
    let address = attempt("dave", PASSWORD);
    assert_eq!(address.status, 429, "{}", address.body);
    let signing_up = call(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(&credentials("mallory", PASSWORD)),
    );
    assert_eq!(
        signing_up.status, 429,
        "sign-ups count against the address too"
    );
}

#[test]
fn one_account_never_sees_or_takes_another_accounts_seats() {
    one_account_never_sees_or_takes_another_accounts_seats_on(None);
}

fn one_account_never_sees_or_takes_another_accounts_seats_on(database: Option<&str>) {
    let dir = TempDir::new("accounts-isolation");
    let server = server_on(&dir, database, &["--sign-ins-per-minute", "0"]);
    let addr = server.addr.as_str();
    let alice = sign_up(addr, "alice", PASSWORD);
    let bob = sign_up(addr, "bob", PASSWORD);
    let (shared, shared_tokens, shared_host) = hosted_game(addr, 2);
    let (private, private_tokens) = two_seat_game(addr, 2);

    let outcomes = attach(
        addr,
        &alice,
        &[
            (&shared, &shared_tokens[0]),
            (&private, &private_tokens[0]),
            (&private, &private_tokens[1]),
        ],
    );
    assert!(
        outcomes
            .iter()
            .all(|outcome| outcome["outcome"] == "attached"),
        "{outcomes:?}"
    );
    let again = attach(addr, &alice, &[(&shared, &shared_tokens[0])]);
    assert_eq!(again[0]["outcome"], "already");

    // Bob holds the other seat's token of the shared game, and tries Alice's seat and a forgery.
    let outcomes = attach(
        addr,
        &bob,
        &[
            (&shared, &shared_tokens[1]),
            (&shared, &shared_tokens[0]),
            (&private, &"f".repeat(64)),
            ("no-such-game", &shared_tokens[1]),
        ],
    );
    let got: Vec<&str> = outcomes
        .iter()
        .map(|outcome| outcome["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        got,
        ["attached", "refused", "refused", "refused"],
        "{outcomes:?}"
    );
    assert_eq!(
        my_games(addr, &bob),
        [(shared.clone(), 1, "waiting".to_owned())]
    );

    let mut alices = my_games(addr, &alice);
    alices.sort();
    let mut expected = vec![
        (shared.clone(), 0, "waiting".to_owned()),
        (private.clone(), 0, "waiting".to_owned()),
        (private.clone(), 1, "waiting".to_owned()),
    ];
    expected.sort();
    assert_eq!(alices, expected);

    // Bob cannot take Alice's seats to his device, whether he holds a seat of the game or not.
    for (game, seat) in [(&shared, 0), (&private, 0), (&private, 1)] {
        let taken = bob.post(
            addr,
            &format!("/api/me/games/{game}/seats/{seat}/token"),
            None,
        );
        assert_eq!(taken.status, 404, "{}", taken.body);
    }
    assert_eq!(
        view(addr, &shared, &shared_tokens[0]).json["viewer"],
        json!({ "seat": 0 })
    );
    assert_eq!(
        view(addr, &private, &private_tokens[1]).json["viewer"],
        json!({ "seat": 1 })
    );
    // Bob's answers never carry Alice's seats' names of games he has no seat in.
    let listing = bob.get(addr, "/api/me/games");
    assert!(!listing.body.contains(&private), "{}", listing.body);
    assert!(!listing.body.contains("token"), "{}", listing.body);

    // A seat the host reopens for someone else leaves the account it was attached to.
    let reopened = call(
        addr,
        "POST",
        &format!("/api/games/{shared}/seats/1/reopen"),
        &[("Authorization", &bearer(&shared_host))],
        None,
    );
    assert_eq!(reopened.status, 200, "{}", reopened.body);
    assert!(my_games(addr, &bob).is_empty());
    assert_eq!(
        bob.post(addr, &format!("/api/me/games/{shared}/seats/1/token"), None)
            .status,
        404
    );
    assert_eq!(my_games(addr, &alice).len(), 3, "Alice's seats stay hers");
}

#[test]
fn an_attached_seat_plays_from_a_new_device_and_my_games_puts_the_longest_waiting_first() {
    an_attached_seat_plays_from_a_new_device_and_my_games_puts_the_longest_waiting_first_on(None);
}

fn an_attached_seat_plays_from_a_new_device_and_my_games_puts_the_longest_waiting_first_on(
    database: Option<&str>,
) {
    let dir = TempDir::new("accounts-my-games");
    let server = server_on(&dir, database, &["--sign-ins-per-minute", "0"]);
    let addr = server.addr.as_str();
    let guest = sign_up(addr, "traveller", PASSWORD);
    let pause = || std::thread::sleep(Duration::from_millis(30));
    let (older, older_tokens) = two_seat_game(addr, 2);
    pause();
    let (newer, newer_tokens) = two_seat_game(addr, 2);
    pause();
    let (running, running_tokens) = two_seat_game(addr, 2);
    pause();
    let (finished, finished_tokens) = two_seat_game(addr, 1);
    pause();
    // The guest's browser attaches the seats it holds: seat 0 of each game.
    let outcomes = attach(
        addr,
        &guest,
        &[
            (&older, &older_tokens[0]),
            (&newer, &newer_tokens[0]),
            (&running, &running_tokens[0]),
            (&finished, &finished_tokens[0]),
        ],
    );
    assert!(
        outcomes
            .iter()
            .all(|outcome| outcome["outcome"] == "attached"),
        "{outcomes:?}"
    );

    play(addr, &running, &running_tokens[0]);
    play(addr, &finished, &finished_tokens[0]);
    play(addr, &finished, &finished_tokens[1]);
    // The other seat of the older game moves: the account waits there since now, less long
    // than in the newer game, where nothing happened since it was created.
    pause();
    play(addr, &older, &older_tokens[1]);

    let expected = [
        (newer.clone(), 0, "waiting".to_owned()),
        (older.clone(), 0, "waiting".to_owned()),
        (running.clone(), 0, "running".to_owned()),
        (finished.clone(), 0, "finished".to_owned()),
    ];
    assert_eq!(my_games(addr, &guest), expected);
    let listing = guest.get(addr, "/api/me/games");
    let games = listing.json["games"].as_array().unwrap();
    assert!(
        games[0]["waiting_since"].as_i64() < games[1]["waiting_since"].as_i64(),
        "{games:?}"
    );
    assert!(
        games[3]["result"].is_object(),
        "a finished game has its result: {}",
        games[3]
    );

    // On a new device: signed in, no seat token; the account takes its seat there.
    let laptop = sign_in(addr, "traveller", PASSWORD);
    assert_eq!(
        my_games(addr, &laptop),
        expected,
        "the same games from any device"
    );
    let taken = laptop.post(addr, &format!("/api/me/games/{newer}/seats/0/token"), None);
    assert_eq!(taken.status, 200, "{}", taken.body);
    let token = taken.json["token"].as_str().unwrap().to_owned();
    assert_eq!(
        view(addr, &newer, &token).json["viewer"],
        json!({ "seat": 0 })
    );
    assert_eq!(
        view(addr, &newer, &newer_tokens[0]).status,
        403,
        "the old token stopped working"
    );
    play(addr, &newer, &token);
    let now = my_games(addr, &laptop);
    assert_eq!(now[0], (older.clone(), 0, "waiting".to_owned()));
    assert_eq!(now[1], (newer.clone(), 0, "running".to_owned()));

    // A seat of no game and a seat of the game not attached are not this account's.
    assert_eq!(
        laptop
            .post(addr, &format!("/api/me/games/{newer}/seats/1/token"), None)
            .status,
        404
    );
    assert_eq!(
        laptop
            .post(addr, "/api/me/games/nothing/seats/0/token", None)
            .status,
        404
    );
}

#[test]
fn the_openapi_document_describes_the_account_routes() {
    let dir = TempDir::new("accounts-openapi");
    let server = server(&dir, &[]);
    let document = call(&server.addr, "GET", "/api/openapi.json", &[], None).json;
    for (path, method) in [
        ("/api/accounts", "post"),
        ("/api/accounts/sign-in", "post"),
        ("/api/accounts/sign-out", "post"),
        ("/api/me", "get"),
        ("/api/me/seats", "post"),
        ("/api/me/games", "get"),
        ("/api/me/games/{id}/seats/{seat}/token", "post"),
        ("/api/me/language", "put"),
        ("/api/accounts/passkeys/sign-up", "post"),
        ("/api/accounts/passkeys/sign-up/finish", "post"),
        ("/api/accounts/passkeys/sign-in", "post"),
        ("/api/accounts/passkeys/sign-in/finish", "post"),
        ("/api/me/passkeys", "get"),
        ("/api/me/passkeys/start", "post"),
        ("/api/me/passkeys/finish", "post"),
        ("/api/me/passkeys/{id}", "delete"),
        ("/api/me/notices", "get"),
        ("/api/me/notice-settings", "put"),
        ("/api/notices/open/{token}", "post"),
        ("/api/health", "get"),
    ] {
        assert!(
            document["paths"][path][method].is_object(),
            "{method} {path} is described"
        );
    }
    assert_eq!(
        document["components"]["securitySchemes"]["sessionCookie"]["in"],
        "cookie"
    );
}

#[test]
fn accounts_work_the_same_on_postgresql() {
    let cluster = crate::server_postgres::Cluster::start();
    let database = Some(cluster.url.as_str());
    an_account_signs_up_in_and_out_and_its_password_hash_never_shows_on(database);
    a_session_set_before_sign_in_is_never_promoted_on(database);
    a_change_made_with_the_cookie_needs_the_csrf_token_and_changes_nothing_without_on(database);
    one_account_never_sees_or_takes_another_accounts_seats_on(database);
    an_attached_seat_plays_from_a_new_device_and_my_games_puts_the_longest_waiting_first_on(
        database,
    );
}
