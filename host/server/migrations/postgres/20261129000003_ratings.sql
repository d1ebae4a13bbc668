-- Ratings: a Glicko-2 rating per player, ruleset and player count. A player is an account
-- (`account:<id>`) or a bot level (`bot:<level>`), so people and the bots that `tenka arena`
-- rates stand on one ladder.
CREATE TABLE ratings (
    ruleset_id TEXT NOT NULL,
    players BIGINT NOT NULL,
    player TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (ruleset_id, players, player)
);

-- The rated tables, one row each, written when the table is created. `rated_at` is set in the
-- transaction that applies the game's result to `ratings`, by an update conditional on it being
-- NULL: a game is rated once, whichever server process (or restart) gets there first.
-- `outcome` says what happened: `rated`, or why the game could not count.
CREATE TABLE rated_games (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    ruleset_id TEXT NOT NULL,
    players BIGINT NOT NULL,
    rated_at BIGINT,
    outcome TEXT
);

CREATE INDEX rated_games_unrated ON rated_games (rated_at);
