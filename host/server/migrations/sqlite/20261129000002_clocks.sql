-- Table clocks (a game's pace: live, turn-based; untimed games have no row). The host owns the
-- clock, never the ruleset, so it is kept beside the record and not in it: a stored game replays
-- the same with or without it. `state_json` holds each seat's bank and since when it runs, as
-- absolute times, so a restart neither stops nor resets a clock. It is written in the same commit
-- as each move. `deadline` is the earliest time a running seat runs out, for the timer to find
-- after a restart; `version` counts the writes, so that of several server processes exactly one
-- acts on an expiry: it claims it with an update conditional on the version it saw.
CREATE TABLE clocks (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    pace_json TEXT NOT NULL,
    state_json TEXT NOT NULL,
    deadline BIGINT,
    version BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX clocks_deadline ON clocks (deadline);

-- Who chose each action when it was not the seat's person: the bot playing the seat then (a
-- bot's seat, or a person's seat handed to a bot, by its person, its host or its clock running
-- out). NULL for a person's action and for every action stored before this.
ALTER TABLE actions ADD COLUMN bot TEXT;
