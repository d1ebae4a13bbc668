-- Invite codes, the creator's credential and stream tickets. Before this, creating a game handed
-- the creator every seat's token for good. Now a person joins by exchanging a single-use invite
-- code for a fresh seat token, the creator manages invites with a credential of its own, and a
-- browser's event stream authenticates with a short-lived single-use ticket instead of a token
-- in the URL. Only SHA-256 digests of these secrets are stored.
--
-- Games stored before this migration have no creator credential (NULL): their seats' tokens go
-- on working as before, and claiming a seat now gives it a fresh token.
ALTER TABLE games ADD COLUMN host_token_hash TEXT;

-- At most one open invite per seat: issuing a new one replaces (revokes) the old. Exchanging a
-- code deletes its row, so a code works once.
CREATE TABLE invites (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    code_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seat)
);

-- A ticket names the seat token it was issued for (by digest), not the seat, so a ticket issued
-- before the seat's token changed opens nothing. Using a ticket deletes its row. Kept in the
-- database rather than in memory so that several server processes behind one address accept
-- each other's tickets.
CREATE TABLE stream_tickets (
    ticket_hash TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games (id),
    token_hash TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX stream_tickets_expires_at ON stream_tickets (expires_at);
