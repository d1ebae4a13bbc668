//! Integration tests, one module per area.
mod accounts; // Accounts: sign-up, sessions, CSRF, throttles, attached seats, My games.
mod api_fuzz; // Requests built from the OpenAPI document, mutated: no 5xx, no change when refused.
mod balance_report; // `tenka simulate --report`: the self-contained balance report.
mod bot_fairness; // One client's bot games cannot stall another table's bots.
mod bot_levels; // The easy, normal and hard bots on tutorial-sized positions.
mod bots; // The random and search bots.
mod cli; // The `tenka` command line.
mod clocks; // Table clocks: live and turn-based paces, expiry to a bot, restarts, races.
mod contract_versions; // A 0.1.0 component still plays and replays; what 0.2.0 added.
mod editor; // The map editor's endpoint: edits, placed findings, hostile texts.
mod examples; // Saving a map as an example: the operator token, refusals, the bytes, the offer.
mod hostile; // Misbehaving components fail only their own call.
#[path = "../support/http1.rs"]
mod http1; // A keep-alive HTTP/1.1 client, as the benchmarks use.
mod invites; // Seat tokens, invite codes, the host token and stream tickets.
mod lab; // The variant lab: jobs of bot games, their figures, report, bounds and cancelling.
mod map_cli; // `tenka map check` and `tenka map render`.
mod maps; // The worked example of an original Shogun map.
mod memory_budget; // One memory budget for every ruleset instance of a server together.
mod notices; // Notices: mails to a loopback SMTP server, links, unsubscribe, reminders, health.
mod own_answers; // A seat's answer to its own unchanged decision is not stale when others moved.
mod passkeys; // Passkeys: sign-up, sign-in by name and discoverable; replays, forgeries, clones.
#[path = "../support/postgres.rs"]
mod postgres; // A throw-away PostgreSQL cluster.
mod ratings; // Rated tables, Glicko-2 ladders of accounts and bots, rated once.
mod recap; // "Since your last move": a seat's recap is its own live log and boards.
mod reload; // Hot reload of maps, variants and components; games stay pinned.
mod replay; // Game records replay; tampered ones are refused.
mod runtime; // Loading, the artifact cache, sessions, determinism, snapshots.
mod runtime_support; // Builds the test components once and loads them.
mod server_api; // The game server's HTTP API, in-process.
mod server_boards; // Huge boards: the sanitiser's caps, and other games' pace beside them.
mod server_connections; // Idle, slow and too many connections against a real server process.
mod server_crash; // The game server survives SIGKILL and a power cut with every answered action.
mod server_postgres; // Two game servers on one PostgreSQL database.
mod server_security; // Hostile rulesets and clients against the game server.
mod server_socket; // The move socket: moves over a WebSocket, with HTTP's checks and limits.
mod server_support; // Shared helpers of the game-server tests.
mod shogun; // The Shogun component through the host: records, winters, replay.
mod smtp_sink; // A tiny SMTP server on loopback that keeps the mails it receives.
mod soak; // The soak of issue 33 in small: two servers, PostgreSQL, people vanishing.
#[path = "../support/soak.rs"]
mod soak_driver; // The soak run, shared with `benches/soak.rs`.
mod tower; // The battle tower's statistics and per-game determinism.
mod variants; // Shogun's shipped variants: schema, effects, refusals.
