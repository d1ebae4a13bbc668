-- Notices: "your turn", "a player was replaced" (or took the seat back), "the game ended" and
-- reminders before a clock runs out, for accounts' seats; in the page and by email.

-- Each account's email address and which notices it wants (0 or 1). `mail` is the master
-- switch a one-click unsubscribe turns off; the address is only ever used to send notices.
CREATE TABLE notice_settings (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    email TEXT,
    mail BIGINT NOT NULL DEFAULT 1,
    your_turn BIGINT NOT NULL DEFAULT 1,
    replaced BIGINT NOT NULL DEFAULT 1,
    ended BIGINT NOT NULL DEFAULT 1,
    reminders BIGINT NOT NULL DEFAULT 1,
    updated_at BIGINT NOT NULL
);

-- What the notices last saw of each game (its version, the seats owing an answer, the seats
-- bots play, whether it is over), as JSON. `generation` counts the changes: a server process
-- that sees a change claims it with an update conditional on the generation it read, so of
-- several processes exactly one writes the notices a change makes.
CREATE TABLE notice_marks (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    generation BIGINT NOT NULL,
    mark_json TEXT NOT NULL
);

-- Notices shown in the page (title, badge, the browser's notifications). `dedupe` names the
-- change a notice comes from, so it is never written twice.
CREATE TABLE account_notices (
    id BIGSERIAL PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT,
    kind TEXT NOT NULL,
    dedupe TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    seen BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX account_notices_account ON account_notices (account_id, id);

-- Mails to send, kept until sent so that a restart loses none. The recipient's address is read
-- when the mail is sent (an address changed or removed meanwhile is respected). A sender claims
-- a row by an update conditional on its state (`queued`, or `sending` whose lease ran out after
-- a crash), so two server processes never both send it. `check_json` holds what must still hold
-- when it is sent (a reminder's turn: the seat's clock running since the same time).
CREATE TABLE mail_outbox (
    id BIGSERIAL PRIMARY KEY,
    dedupe TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT,
    kind TEXT NOT NULL,
    check_json TEXT NOT NULL,
    state TEXT NOT NULL,
    not_before BIGINT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    lease_until BIGINT,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    sent_at BIGINT
);

CREATE INDEX mail_outbox_due ON mail_outbox (state, not_before);

-- One-time sign-in links sent in mails: the SHA-256 of the random token (never the token),
-- the account and game it opens, until when it works and when it was used.
CREATE TABLE mail_links (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    game_id TEXT NOT NULL REFERENCES games (id),
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

-- Secrets the server processes share, made once at random (the key that signs unsubscribe
-- links).
CREATE TABLE server_secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
