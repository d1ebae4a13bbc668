//! Passkeys against a real server process: an account made with a passkey signs in with it by
//! name and discoverably, a password account adds one; and the hostile cases: a challenge
//! answered twice, a passkey of another account, a forged or altered assertion, a cloned
//! authenticator whose counter does not grow, an IP address as relying party, and the sign-in
//! throttle. Each refusal is a clear 4xx that changes nothing (the passkey still signs in
//! afterwards, its counter as before).
//!
//! The authenticator is a software one written here: a P-256 key, "none" attestation, CBOR by
//! hand; so every byte the server checks can be made wrong on purpose.

use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::accounts::{Answer, call};
use crate::server_support::{ServerProcess, TempDir};

/// The relying party the test servers are given (`--public-url`).
const ORIGIN: &str = "https://tenka.test";
const RP_ID: &str = "tenka.test";

fn server_on(dir: &TempDir, database: Option<&str>, extra: &[&str]) -> ServerProcess {
    let mut args = vec!["--public-url", ORIGIN];
    args.extend_from_slice(extra);
    if !extra.contains(&"--sign-ins-per-minute") {
        args.extend(["--sign-ins-per-minute", "0"]);
    }
    if let Some(url) = database {
        args.extend(["--database", url]);
    }
    crate::server_connections::start(dir, &args)
}

/// A signed-in browser.
struct Browser {
    cookie: String,
    csrf: String,
    account: String,
}

impl Browser {
    fn from(answer: &Answer) -> Browser {
        let session = answer
            .head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("set-cookie").then_some(())?;
                let value = value.trim().strip_prefix("tenka_session=")?;
                Some(value.split(';').next().unwrap_or_default().to_owned())
            })
            .expect("a session cookie");
        Browser {
            cookie: format!("tenka_session={session}"),
            csrf: answer.json["csrf_token"].as_str().unwrap().to_owned(),
            account: answer.json["account"]["id"].as_str().unwrap().to_owned(),
        }
    }

    fn get(&self, addr: &str, path: &str) -> Answer {
        call(addr, "GET", path, &[("Cookie", &self.cookie)], None)
    }

    fn send(&self, addr: &str, method: &str, path: &str, body: Option<&Value>) -> Answer {
        let headers = [
            ("Cookie", self.cookie.as_str()),
            ("X-CSRF-Token", self.csrf.as_str()),
        ];
        call(addr, method, path, &headers, body)
    }
}

fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let joined = u32::from_be_bytes([
            0,
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ]);
        for index in 0..=chunk.len() {
            out.push(char::from(
                ALPHABET[((joined >> (18 - 6 * index)) & 63) as usize],
            ));
        }
    }
    out
}

fn from_base64url(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => panic!("not base64url: {text}"),
    };
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.bytes().filter(|c| *c != b'=') {
        bits = (bits << 6) | u32::from(value(c));
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    out
}

/// CBOR's head of an item of major type `major` and length or value `length`.
fn cbor_head(major: u8, length: usize) -> Vec<u8> {
    match length {
        0..=23 => vec![(major << 5) | length as u8],
        24..=255 => vec![(major << 5) | 24, length as u8],
        _ => {
            let mut head = vec![(major << 5) | 25];
            head.extend(u16::try_from(length).unwrap().to_be_bytes());
            head
        }
    }
}

fn cbor_text(text: &str) -> Vec<u8> {
    let mut out = cbor_head(3, text.len());
    out.extend(text.as_bytes());
    out
}

fn cbor_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut out = cbor_head(2, bytes.len());
    out.extend(bytes);
    out
}

/// A software authenticator holding one discoverable credential.
#[derive(Clone)]
struct Authenticator {
    key: SigningKey,
    credential_id: Vec<u8>,
    counter: u32,
    /// The user handle the relying party gave at registration.
    user_handle: Vec<u8>,
    origin: String,
}

impl Authenticator {
    fn new(seed: u8) -> Authenticator {
        Authenticator {
            key: SigningKey::from_slice(&[seed; 32]).unwrap(),
            credential_id: (0..32)
                .map(|index| seed.wrapping_mul(31).wrapping_add(index))
                .collect(),
            counter: 0,
            user_handle: Vec::new(),
            origin: ORIGIN.to_owned(),
        }
    }

    fn client_data(&self, kind: &str, options: &Value) -> Vec<u8> {
        let challenge = options["publicKey"]["challenge"]
            .as_str()
            .expect("a challenge");
        json!({ "type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": false })
            .to_string()
            .into_bytes()
    }

    fn auth_data(&self, flags: u8) -> Vec<u8> {
        let mut data = Sha256::digest(RP_ID.as_bytes()).to_vec();
        data.push(flags);
        data.extend(self.counter.to_be_bytes());
        data
    }

    /// The answer to creation options: "none" attestation of a new P-256 credential.
    fn register(&mut self, options: &Value) -> Value {
        self.user_handle = from_base64url(options["publicKey"]["user"]["id"].as_str().unwrap());
        let client_data = self.client_data("webauthn.create", options);
        // User present, user verified, attested credential data.
        let mut auth_data = self.auth_data(0x01 | 0x04 | 0x40);
        auth_data.extend([0u8; 16]);
        auth_data.extend(
            u16::try_from(self.credential_id.len())
                .unwrap()
                .to_be_bytes(),
        );
        auth_data.extend(&self.credential_id);
        let point = self.key.verifying_key().to_sec1_point(false);
        let point = point.as_bytes();
        // COSE key: kty EC2, alg ES256, crv P-256, x, y.
        let mut cose = vec![0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21];
        cose.extend(cbor_bytes(&point[1..33]));
        cose.push(0x22);
        cose.extend(cbor_bytes(&point[33..65]));
        auth_data.extend(cose);
        let mut attestation = vec![0xA3];
        attestation.extend(cbor_text("fmt"));
        attestation.extend(cbor_text("none"));
        attestation.extend(cbor_text("attStmt"));
        attestation.push(0xA0);
        attestation.extend(cbor_text("authData"));
        attestation.extend(cbor_bytes(&auth_data));
        json!({
            "id": base64url(&self.credential_id),
            "rawId": base64url(&self.credential_id),
            "type": "public-key",
            "response": { "attestationObject": base64url(&attestation), "clientDataJSON": base64url(&client_data) },
            "extensions": {}
        })
    }

    /// The answer to request options, its counter one higher.
    fn assert(&mut self, options: &Value) -> Value {
        self.counter += 1;
        self.assertion(options, 0x01 | 0x04, &self.key.clone())
    }

    /// An assertion with these flags, signed by `key`.
    fn assertion(&self, options: &Value, flags: u8, key: &SigningKey) -> Value {
        let client_data = self.client_data("webauthn.get", options);
        let auth_data = self.auth_data(flags);
        let mut signed = auth_data.clone();
        signed.extend(Sha256::digest(&client_data));
        let signature: Signature = key.sign(&signed);
        json!({
            "id": base64url(&self.credential_id),
            "rawId": base64url(&self.credential_id),
            "type": "public-key",
            "response": {
                "authenticatorData": base64url(&auth_data),
                "clientDataJSON": base64url(&client_data),
                "signature": base64url(signature.to_der().as_bytes()),
                "userHandle": base64url(&self.user_handle)
            },
            "extensions": {}
        })
    }
}

/// Makes an account with a passkey; the signed-in browser.
fn sign_up(addr: &str, name: &str, authenticator: &mut Authenticator) -> Browser {
    let started = call(
        addr,
        "POST",
        "/api/accounts/passkeys/sign-up",
        &[],
        Some(&json!({ "name": name, "language": "de" })),
    );
    assert_eq!(started.status, 200, "{}", started.body);
    let selection = &started.json["options"]["publicKey"]["authenticatorSelection"];
    assert_eq!(
        selection["residentKey"], "required",
        "a discoverable credential: {selection}"
    );
    assert_eq!(selection["userVerification"], "required");
    let credential = authenticator.register(&started.json["options"]);
    let finished = call(
        addr,
        "POST",
        "/api/accounts/passkeys/sign-up/finish",
        &[],
        Some(&json!({ "ceremony": started.json["ceremony"], "credential": credential })),
    );
    assert_eq!(finished.status, 201, "{}", finished.body);
    Browser::from(&finished)
}

/// Starts a passkey sign-in (named or not); the ceremony answer.
fn sign_in_start(addr: &str, name: Option<&str>) -> Answer {
    let body = name.map_or(json!({}), |name| json!({ "name": name }));
    let started = call(
        addr,
        "POST",
        "/api/accounts/passkeys/sign-in",
        &[],
        Some(&body),
    );
    assert_eq!(started.status, 200, "{}", started.body);
    started
}

fn sign_in_finish(addr: &str, ceremony: &Value, credential: &Value) -> Answer {
    call(
        addr,
        "POST",
        "/api/accounts/passkeys/sign-in/finish",
        &[],
        Some(&json!({ "ceremony": ceremony, "credential": credential })),
    )
}

/// Signs in with `authenticator`; the signed-in browser.
fn sign_in(addr: &str, name: Option<&str>, authenticator: &mut Authenticator) -> Browser {
    let started = sign_in_start(addr, name);
    let answer = authenticator.assert(&started.json["options"]);
    let finished = sign_in_finish(addr, &started.json["ceremony"], &answer);
    assert_eq!(finished.status, 200, "{}", finished.body);
    Browser::from(&finished)
}

fn a_passkey_account_signs_up_and_in_by_name_and_discoverably_on(database: Option<&str>) {
    let dir = TempDir::new("passkeys-sign-up");
    let server = server_on(&dir, database, &[]);
    let addr = &server.addr;
    let mut key = Authenticator::new(7);
    let browser = sign_up(addr, "kagi", &mut key);
    let me = browser.get(addr, "/api/me");
    assert_eq!(me.json["account"]["name"], "kagi");
    assert_eq!(
        me.json["account"]["language"], "de",
        "the sign-up's language is the account's"
    );
    let listed = browser.get(addr, "/api/me/passkeys");
    assert_eq!(listed.json["has_password"], false);
    assert_eq!(
        listed.json["passkeys"][0]["id"],
        base64url(&key.credential_id)
    );
    assert_eq!(
        call(
            addr,
            "POST",
            "/api/accounts/passkeys/sign-up",
            &[],
            Some(&json!({ "name": "KAGI" }))
        )
        .status,
        409,
        "the name is taken, in any case"
    );
    // No password matches an account made with a passkey.
    let by_password = call(
        addr,
        "POST",
        "/api/accounts/sign-in",
        &[],
        Some(&json!({ "name": "kagi", "password": "" })),
    );
    assert_eq!(by_password.status, 400);
    let by_password = call(
        addr,
        "POST",
        "/api/accounts/sign-in",
        &[],
        Some(&json!({ "name": "kagi", "password": "any password at all" })),
    );
    assert_eq!(by_password.status, 403);

    // Discoverable: no name, no credentials listed; the passkey names its account.
    let started = sign_in_start(addr, None);
    assert!(
        started.json["options"]["publicKey"]["allowCredentials"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );
    assert!(
        started.json["options"].get("mediation").is_none(),
        "a modal request"
    );
    let answer = key.assert(&started.json["options"]);
    let finished = sign_in_finish(addr, &started.json["ceremony"], &answer);
    assert_eq!(finished.status, 200, "{}", finished.body);
    assert_eq!(Browser::from(&finished).account, browser.account);

    // By name: the account's passkeys are listed.
    let started = sign_in_start(addr, Some("Kagi"));
    let allowed = started.json["options"]["publicKey"]["allowCredentials"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(allowed.len(), 1);
    assert_eq!(allowed[0]["id"], base64url(&key.credential_id));
    let answer = key.assert(&started.json["options"]);
    let signed_in = Browser::from(&sign_in_finish(addr, &started.json["ceremony"], &answer));
    assert_eq!(signed_in.account, browser.account);
    let listed = signed_in.get(addr, "/api/me/passkeys");
    assert!(listed.json["passkeys"][0]["last_used_at"].is_i64());

    // A name of no account gets a discoverable ceremony all the same (nothing told).
    let unknown = sign_in_start(addr, Some("nobody-here"));
    assert!(
        unknown.json["options"]["publicKey"]["allowCredentials"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );

    // The last way in is not removed.
    let id = base64url(&key.credential_id);
    assert_eq!(
        signed_in
            .send(addr, "DELETE", &format!("/api/me/passkeys/{id}"), None)
            .status,
        409
    );
    assert_eq!(
        signed_in
            .send(addr, "DELETE", "/api/me/passkeys/nothing", None)
            .status,
        404
    );
}

#[test]
fn a_passkey_account_signs_up_and_in_by_name_and_discoverably() {
    a_passkey_account_signs_up_and_in_by_name_and_discoverably_on(None);
}

#[test]
fn passkeys_work_the_same_on_postgresql() {
    let cluster = crate::server_postgres::Cluster::start();
    a_passkey_account_signs_up_and_in_by_name_and_discoverably_on(Some(&cluster.url));
    a_password_account_adds_a_passkey_and_only_to_itself_on(Some(&cluster.url));
}

fn a_password_account_adds_a_passkey_and_only_to_itself_on(database: Option<&str>) {
    let dir = TempDir::new("passkeys-add");
    let server = server_on(&dir, database, &[]);
    let addr = &server.addr;
    let up = call(
        addr,
        "POST",
        "/api/accounts",
        &[],
        Some(&json!({ "name": "ume", "password": "a long enough passphrase" })),
    );
    assert_eq!(up.status, 201, "{}", up.body);
    let ume = Browser::from(&up);
    let mut key = Authenticator::new(11);
    let other = sign_up(addr, "matsu", &mut Authenticator::new(12));

    // Starting needs the CSRF token.
    let no_csrf = call(
        addr,
        "POST",
        "/api/me/passkeys/start",
        &[("Cookie", &ume.cookie)],
        None,
    );
    assert_eq!(no_csrf.status, 403);
    let started = ume.send(addr, "POST", "/api/me/passkeys/start", None);
    assert_eq!(started.status, 200, "{}", started.body);
    let credential = key.register(&started.json["options"]);
    let body = json!({ "ceremony": started.json["ceremony"], "credential": credential });
    // Another account cannot finish this account's ceremony (and spends it doing so).
    let stolen = other.send(addr, "POST", "/api/me/passkeys/finish", Some(&body));
    assert_eq!(stolen.status, 403, "{}", stolen.body);
    assert_eq!(
        other.get(addr, "/api/me/passkeys").json["passkeys"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        ume.send(addr, "POST", "/api/me/passkeys/finish", Some(&body))
            .status,
        403,
        "a spent ceremony"
    );

    let started = ume.send(addr, "POST", "/api/me/passkeys/start", None);
    let credential = key.register(&started.json["options"]);
    let added = ume.send(
        addr,
        "POST",
        "/api/me/passkeys/finish",
        Some(&json!({ "ceremony": started.json["ceremony"], "credential": credential })),
    );
    assert_eq!(added.status, 201, "{}", added.body);
    let listed = ume.get(addr, "/api/me/passkeys");
    assert_eq!(listed.json["has_password"], true);
    assert_eq!(listed.json["passkeys"].as_array().unwrap().len(), 1);

    // The same credential cannot be registered twice, to this or another account.
    let again = ume.send(addr, "POST", "/api/me/passkeys/start", None);
    let excluded = again.json["options"]["publicKey"]["excludeCredentials"]
        .as_array()
        .unwrap();
    assert_eq!(
        excluded[0]["id"],
        base64url(&key.credential_id),
        "the account's passkeys are excluded"
    );
    let credential = key.clone().register(&again.json["options"]);
    let excluded_again = ume.send(
        addr,
        "POST",
        "/api/me/passkeys/finish",
        Some(&json!({ "ceremony": again.json["ceremony"], "credential": credential })),
    );
    assert_eq!(excluded_again.status, 403, "{}", excluded_again.body);
    // Another account, whose ceremony does not exclude it: the credential is taken.
    let theirs = other.send(addr, "POST", "/api/me/passkeys/start", None);
    let credential = key.clone().register(&theirs.json["options"]);
    let taken = other.send(
        addr,
        "POST",
        "/api/me/passkeys/finish",
        Some(&json!({ "ceremony": theirs.json["ceremony"], "credential": credential })),
    );
    assert_eq!(taken.status, 409, "{}", taken.body);

    let signed_in = sign_in(addr, Some("ume"), &mut key);
    assert_eq!(signed_in.account, ume.account);
    // With a password too, the passkey may go.
    let id = base64url(&key.credential_id);
    assert_eq!(
        ume.send(addr, "DELETE", &format!("/api/me/passkeys/{id}"), None)
            .status,
        200
    );
    let started = sign_in_start(addr, None);
    let answer = key.assert(&started.json["options"]);
    assert_eq!(
        sign_in_finish(addr, &started.json["ceremony"], &answer).status,
        403,
        "a removed passkey signs nobody in"
    );
}

#[test]
fn a_password_account_adds_a_passkey_and_only_to_itself() {
    a_password_account_adds_a_passkey_and_only_to_itself_on(None);
}

#[test]
fn a_challenge_answered_twice_is_refused_and_changes_nothing() {
    let dir = TempDir::new("passkeys-replay");
    let server = server_on(&dir, None, &[]);
    let addr = &server.addr;
    let mut key = Authenticator::new(21);
    sign_up(addr, "sakura", &mut key);
    let started = sign_in_start(addr, None);
    let answer = key.assert(&started.json["options"]);
    assert_eq!(
        sign_in_finish(addr, &started.json["ceremony"], &answer).status,
        200
    );
    // The same answer again: its ceremony is spent.
    let replayed = sign_in_finish(addr, &started.json["ceremony"], &answer);
    assert_eq!(replayed.status, 403, "{}", replayed.body);
    assert!(replayed.body.contains("used already"), "{}", replayed.body);
    assert!(
        replayed
            .head
            .to_ascii_lowercase()
            .lines()
            .all(|line| !line.starts_with("set-cookie"))
    );
    // The old answer to a new ceremony: another challenge.
    let fresh = sign_in_start(addr, None);
    let refused = sign_in_finish(addr, &fresh.json["ceremony"], &answer);
    assert_eq!(refused.status, 403, "{}", refused.body);
    // A ceremony that never was.
    assert_eq!(
        sign_in_finish(addr, &json!("0123abcd"), &answer).status,
        403
    );
    // The registration's ceremony cannot be finished twice either.
    let mut second = Authenticator::new(22);
    let started = call(
        addr,
        "POST",
        "/api/accounts/passkeys/sign-up",
        &[],
        Some(&json!({ "name": "momo" })),
    );
    let body = json!({ "ceremony": started.json["ceremony"], "credential": second.register(&started.json["options"]) });
    let finish = || {
        call(
            addr,
            "POST",
            "/api/accounts/passkeys/sign-up/finish",
            &[],
            Some(&body),
        )
        .status
    };
    assert_eq!(finish(), 201);
    assert_eq!(finish(), 403, "a registration's ceremony is spent too");
    // Nothing changed: the passkey still signs in.
    sign_in(addr, None, &mut key);
}

#[test]
fn a_passkey_of_another_account_is_refused() {
    let dir = TempDir::new("passkeys-other-account");
    let server = server_on(&dir, None, &[]);
    let addr = &server.addr;
    let mut hana = Authenticator::new(31);
    let mut kiku = Authenticator::new(32);
    let hana_browser = sign_up(addr, "hana", &mut hana);
    sign_up(addr, "kiku", &mut kiku);
    // Named sign-in to hana, answered by kiku's passkey.
    let started = sign_in_start(addr, Some("hana"));
    let answer = kiku.assert(&started.json["options"]);
    let refused = sign_in_finish(addr, &started.json["ceremony"], &answer);
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert!(refused.body.contains("another account"), "{}", refused.body);
    // Kiku's credential presented with hana's user handle.
    let mut mixed = kiku.clone();
    mixed.user_handle = hana.user_handle.clone();
    let started = sign_in_start(addr, None);
    let answer = mixed.assert(&started.json["options"]);
    assert_eq!(
        sign_in_finish(addr, &started.json["ceremony"], &answer).status,
        403
    );
    // Hana's credential id signed by kiku's key.
    let started = sign_in_start(addr, None);
    let mut forged = hana.clone();
    forged.counter += 1;
    let answer = forged.assertion(&started.json["options"], 0x05, &kiku.key);
    assert_eq!(
        sign_in_finish(addr, &started.json["ceremony"], &answer).status,
        403
    );
    // Both still sign in to their own accounts.
    assert_eq!(sign_in(addr, None, &mut hana).account, hana_browser.account);
    assert_ne!(sign_in(addr, None, &mut kiku).account, hana_browser.account);
}

#[test]
fn a_forged_or_altered_assertion_is_refused_and_changes_nothing() {
    let dir = TempDir::new("passkeys-forged");
    let server = server_on(&dir, None, &[]);
    let addr = &server.addr;
    let mut key = Authenticator::new(41);
    sign_up(addr, "fuji", &mut key);
    let refused = |answer: &Value, ceremony: &Value, what: &str| {
        let finished = sign_in_finish(addr, ceremony, answer);
        assert_eq!(finished.status, 403, "{what}: {}", finished.body);
    };

    // Signed by a key that is not the passkey's.
    let started = sign_in_start(addr, None);
    let mut next = key.clone();
    next.counter += 1;
    let stranger = SigningKey::from_slice(&[99; 32]).unwrap();
    refused(
        &next.assertion(&started.json["options"], 0x05, &stranger),
        &started.json["ceremony"],
        "another key",
    );

    // The signed data altered after signing: the counter raised.
    let started = sign_in_start(addr, None);
    let mut answer = next.assertion(&started.json["options"], 0x05, &key.key);
    let mut data = from_base64url(answer["response"]["authenticatorData"].as_str().unwrap());
    data[36] = data[36].wrapping_add(7);
    answer["response"]["authenticatorData"] = json!(base64url(&data));
    refused(&answer, &started.json["ceremony"], "altered data");

    // No user verification.
    let started = sign_in_start(addr, None);
    refused(
        &next.assertion(&started.json["options"], 0x01, &key.key),
        &started.json["ceremony"],
        "no user verification",
    );

    // Another origin.
    let started = sign_in_start(addr, None);
    let mut elsewhere = next.clone();
    elsewhere.origin = "https://evil.test".to_owned();
    refused(
        &elsewhere.assertion(&started.json["options"], 0x05, &key.key),
        &started.json["ceremony"],
        "another origin",
    );

    // A signature that is no signature.
    let started = sign_in_start(addr, None);
    let mut answer = next.assertion(&started.json["options"], 0x05, &key.key);
    answer["response"]["signature"] = json!("AAAA");
    refused(&answer, &started.json["ceremony"], "a broken signature");

    // A malformed credential is a 4xx too.
    let started = sign_in_start(addr, None);
    let malformed = call(
        addr,
        "POST",
        "/api/accounts/passkeys/sign-in/finish",
        &[],
        Some(&json!({ "ceremony": started.json["ceremony"], "credential": { "id": 1 } })),
    );
    assert!(
        (400..500).contains(&malformed.status),
        "{}",
        malformed.status
    );

    // Nothing changed: the real passkey signs in, its counter as it was.
    sign_in(addr, None, &mut key);

    // A clone of the authenticator whose counter does not grow is refused.
    let mut clone = key.clone();
    clone.counter -= 1;
    let started = sign_in_start(addr, None);
    let answer = clone.assert(&started.json["options"]);
    refused(
        &answer,
        &started.json["ceremony"],
        "a counter that did not grow",
    );
    sign_in(addr, None, &mut key);
}

#[test]
fn passkeys_refuse_an_ip_address_as_relying_party_and_are_throttled() {
    let dir = TempDir::new("passkeys-host");
    // No --public-url: the request's Host is the relying party.
    let server = crate::server_connections::start(&dir, &["--sign-ins-per-minute", "3"]);
    let addr = &server.addr;
    let by_address = call(
        addr,
        "POST",
        "/api/accounts/passkeys/sign-in",
        &[],
        Some(&json!({})),
    );
    assert_eq!(by_address.status, 400, "{}", by_address.body);
    assert!(by_address.body.contains("localhost"), "{}", by_address.body);
    let port = addr.rsplit(':').next().unwrap();
    let localhost = format!("localhost:{port}");
    // The request names the server: a second Host header is no way around, so a raw request.
    let by_name = raw_post(addr, &localhost, "/api/accounts/passkeys/sign-in", "{}");
    assert!(by_name.starts_with("HTTP/1.1 200"), "{by_name}");
    assert!(
        by_name.contains(r#""rpId":"localhost""#),
        "the relying party is the named host: {by_name}"
    );
    // The sign-in throttle: three a minute from this address (the refused one counted none).
    assert!(
        raw_post(addr, &localhost, "/api/accounts/passkeys/sign-in", "{}")
            .starts_with("HTTP/1.1 200")
    );
    assert!(
        raw_post(
            addr,
            &localhost,
            "/api/accounts/passkeys/sign-up",
            r#"{"name":"tsuru"}"#
        )
        .starts_with("HTTP/1.1 200")
    );
    let throttled = raw_post(addr, &localhost, "/api/accounts/passkeys/sign-in", "{}");
    assert!(throttled.starts_with("HTTP/1.1 429"), "{throttled}");
}

/// A POST with this `Host`; the whole answer.
fn raw_post(addr: &str, host: &str, path: &str, body: &str) -> String {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}
