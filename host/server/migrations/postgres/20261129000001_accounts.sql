-- Accounts, optional: a guest keeps playing by invite link and seat token as before; a person
-- may also create an account (a name and a password) and sign in on any device.
--
-- `password_hash` is an Argon2id PHC string (salt and parameters inside it); it never leaves
-- the server. `name_key` is the name folded to lowercase, so two accounts never differ only by
-- case.
CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- A signed-in browser: the SHA-256 of the random session id its cookie holds (never the id
-- itself). Signing out deletes the row; signing in always makes a new one.
CREATE TABLE account_sessions (
    id_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX account_sessions_account ON account_sessions (account_id);
CREATE INDEX account_sessions_expires_at ON account_sessions (expires_at);

-- The seats an account plays: attached by showing the seat's token once. A seat belongs to at
-- most one account; reopening the seat (the host's way to give it to someone else) detaches it.
CREATE TABLE account_seats (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    attached_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX account_seats_account ON account_seats (account_id);
