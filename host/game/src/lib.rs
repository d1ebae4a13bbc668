//! Tenka's games, above the runtime and below the server: everything about a game that is not
//! running WebAssembly, and nothing of HTTP.
//!
//! - [`session`]: one game in progress: its running game (a `tenka_runtime::RunningGame`), its
//!   table, its recovery after a failed call, parking, snapshots; the caller keeps the history.
//! - [`scratch`]: a bot's determinized copy of a game: nothing recorded, nothing recovered.
//! - [`record`]: game records; [`replay`]: a record replayed and checked.
//! - [`bots`]: a random bot, the first determinized search bot and the information-set search
//!   behind the easy, normal and hard levels; tournaments between them (`bots::arena`).
//! - [`variants`]: named option sets read from files and checked against a ruleset's options.
//! - [`maps`]: a ruleset's map files, a map text's syntax error and ruleset, a board drawn.
//! - [`editor`]: the map editor's edits, for any ruleset with an editor schema.
//! - [`balance`]: many bot games of one or two rule sets, and the balance report (HTML);
//!   [`stats`]: the tests both it and the bots' tournaments use.

pub mod balance;
pub mod bots;
pub mod editor;
pub mod maps;
pub mod record;
pub mod replay;
pub mod scratch;
pub mod session;
pub mod stats;
pub mod variants;

pub use record::GameRecord;
pub use session::{Applied, GameSpec, NewGame, Session, SessionError, SessionSnapshot};
