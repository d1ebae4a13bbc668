//! The Tenka host, layer by layer, under the names the `tenka` binary, the tests and the tools
//! use. Each layer is a crate of its own, so the compiler keeps the layering:
//!
//! - [`runtime`] (`tenka-runtime`): loading components (checked and sandboxed), the contract's
//!   bindings per version, the per-call fuel, memory and output limits, the artifact cache, a
//!   running game behind one trait ([`runtime::RunningGame`]) with typed failures, the game's
//!   table ([`table`]) and the SVG sanitizer. The only crate that depends on wasmtime.
//! - `tenka-game`: [`session`] (one game: its running game, table, recovery and snapshots),
//!   [`record`] and [`replay`], [`bots`], [`variants`], [`maps`], the map [`editor`]'s edits and
//!   the [`balance`] report.
//! - [`server`] (`tenka-server`): the game server behind `tenka serve`; it reaches rulesets only
//!   through `tenka-game`, in its bounded call slots.

pub use tenka_game::{balance, bots, editor, maps, record, replay, scratch, session, variants};
pub use tenka_runtime as runtime;
pub use tenka_runtime::{native, svg_sanitizer, table};
pub use tenka_server as server;

pub use record::GameRecord;
pub use runtime::{CallLimits, ContentHash, LoadReport, LoadedRuleset, Runtime, RuntimeConfig};
pub use session::{Applied, GameSpec, NewGame, Session, SessionError, SessionSnapshot};
pub use table::{Seed, TowerDrop};
