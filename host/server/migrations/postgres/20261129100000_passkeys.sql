-- Passkeys (WebAuthn) for accounts, the account's language for mails, and the seat a mail's
-- sign-in link opens.
--
-- An account made with a passkey instead of a password keeps `password_hash` empty: no
-- password matches it, and signing in with a password is refused as for a wrong one.

-- The language mails to the account are written in (one the web UI offers): chosen in the UI,
-- else the one of the request that made the account. NULL: English.
ALTER TABLE accounts ADD COLUMN language TEXT;

-- Each passkey: its credential id (base64url, unique over every account), the account, and
-- the public key with its signature counter as webauthn-rs stores it (JSON; no secret: the
-- private key never leaves the authenticator).
CREATE TABLE account_passkeys (
    credential_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    passkey_json TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT
);

CREATE INDEX account_passkeys_account ON account_passkeys (account_id);

-- A WebAuthn ceremony between its two requests: the SHA-256 of the random id handed to the
-- browser (never the id), what it is for (`sign-up`, `add`, `sign-in`, `sign-in-named`), the
-- account it is for (the new account's id for a sign-up), the name and language of a sign-up,
-- and the challenge state webauthn-rs verifies the answer against (JSON). Finishing deletes the
-- row first, so a challenge is answered once; expired rows are forgotten.
CREATE TABLE passkey_ceremonies (
    id_hash TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    account_id TEXT,
    name TEXT,
    language TEXT,
    state_json TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX passkey_ceremonies_expires_at ON passkey_ceremonies (expires_at);

-- The seat a mail's one-time sign-in link opens (NULL: the game's end, which any of the
-- account's seats shows).
ALTER TABLE mail_links ADD COLUMN seat BIGINT;
