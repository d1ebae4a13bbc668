//! The Tenka host: loads rulesets (WebAssembly components, checked and sandboxed), runs games
//! with host-owned randomness and battle tower, records and replays them, and plays bots.
//!
//! - [`runtime`]: loading components, the contract-version and import checks, the artifact
//!   cache, the per-call fuel, memory and output limits.
//! - [`session`]: one game: its own store, its table, recovery after a failed call, snapshots.
//! - [`table`]: the per-game ChaCha20 stream with its seed commitment, and the tower.
//! - [`record`]: game records and their verified replay.
//! - [`balance`]: many bot games of one or two rule sets, and the balance report (HTML).
//! - [`bots`]: a random bot and a determinized Monte Carlo search bot, generic over the contract.
//! - [`native`]: running a ruleset natively, for tests and measurements.
//! - [`maps`]: a ruleset's map files in a maps folder, and a map's board drawn.
//! - [`variants`]: named option sets read from files and checked against a ruleset's options.
//! - [`server`]: the game server behind `tenka serve`.

pub mod balance;
pub mod bots;
pub mod editor;
pub mod maps;
pub mod native;
pub mod record;
pub mod runtime;
pub mod server;
pub mod session;
pub mod svg_sanitizer;
pub mod table;
pub mod variants;

pub use record::GameRecord;
pub use runtime::{CallLimits, ContentHash, LoadReport, LoadedRuleset, Runtime, RuntimeConfig};
pub use session::{Applied, GameSpec, Session, SessionError, SessionSnapshot};
pub use table::{Seed, TowerDrop};
