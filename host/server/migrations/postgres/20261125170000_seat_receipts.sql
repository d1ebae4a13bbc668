-- Receipts of joins and claims, so a person whose answer was lost gets the same seat token again.
-- Exchanging an invite code or claiming a seat gives the seat a fresh token and spends what was
-- sent (the code, the old token). When the answer is lost on the way (a dropped connection, a
-- server killed after the commit), the person could never act for the seat. A join or claim that
-- carries a client-chosen key leaves a receipt for a short while: a retry with the same code (or
-- old token) and the same key gets the same token back, as long as it is still the seat's.
--
-- The token is kept only sealed: XORed with a pad derived from the code (or old token) and the
-- key, neither of which is stored, so a copy of the database does not reveal it.
CREATE TABLE seat_receipts (
    request_hash TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games (id),
    key_hash TEXT NOT NULL,
    seat BIGINT NOT NULL,
    sealed_token TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX seat_receipts_expires_at ON seat_receipts (expires_at);
