-- Games are stored as their record: the setup (ruleset, map, options, seed, seats) plus the
-- ordered actions. Snapshots only make loading fast; they can always be rebuilt from actions.
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    ruleset_id TEXT NOT NULL,
    ruleset_hash TEXT NOT NULL,
    map_id TEXT NOT NULL,
    map_hash TEXT NOT NULL,
    map_toml TEXT NOT NULL,
    variant TEXT,
    options_json TEXT NOT NULL,
    seed_hex TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
);

CREATE TABLE seats (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat BIGINT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT,
    bot TEXT,
    claimed BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);

-- The primary key is what makes a race between two server processes accept one action: both
-- try to insert the game's next sequence number and only one insert succeeds.
CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    seat BIGINT NOT NULL,
    action_json TEXT NOT NULL,
    events_json TEXT NOT NULL,
    tower_json TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE snapshots (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq BIGINT NOT NULL,
    bytes BYTEA NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE INDEX games_created_at ON games (created_at);
