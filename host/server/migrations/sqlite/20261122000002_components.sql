-- Every ruleset component games were started on, by content hash. A component file can be
-- replaced while the server runs (hot reload) or between runs; a game keeps running on the exact
-- version it started with, read back from here when its file is gone.
CREATE TABLE components (
    hash TEXT PRIMARY KEY,
    ruleset_id TEXT NOT NULL,
    bytes BLOB NOT NULL,
    stored_at BIGINT NOT NULL
);
