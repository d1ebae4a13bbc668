//! The contract's imports (`types`, `random`, `battle-tower`, `log`), written once for every
//! contract version: they did not change between 0.1.0 and 0.4.0, so the bindings of `v0_1`,
//! `v0_2` and `v0_3` reuse `v0_4`'s generated ones (`bindgen!`'s `with:`) and one implementation
//! serves all four. Only the
//! names they are linked under differ: each interface is linked under the version a component
//! was built for (`tenka:ruleset/random@0.1.0`), since generated `add_to_linker` functions know
//! only the version they were generated for.

use sdk as s;

use super::v0_4;
use crate::store::StoreState;

/// The shared interfaces' generated types.
pub(crate) use v0_4::tenka::ruleset::types as wt;

/// Links the shared interfaces under the names of contract `version` (`0.1.0` to `0.4.0`).
pub(crate) fn add_to_linker(
    linker: &mut wasmtime::component::Linker<StoreState>,
    version: &str,
) -> wasmtime::Result<()> {
    use v0_4::tenka::ruleset::{battle_tower, log, random, types};
    type Own = wasmtime::component::HasSelf<StoreState>;
    let name = |interface: &str| format!("tenka:ruleset/{interface}@{version}");
    types::add_to_linker_instance::<StoreState, Own>(
        &mut linker.instance(&name("types"))?,
        |state| state,
    )?;
    random::add_to_linker_instance::<StoreState, Own>(
        &mut linker.instance(&name("random"))?,
        |state| state,
    )?;
    battle_tower::add_to_linker_instance::<StoreState, Own>(
        &mut linker.instance(&name("battle-tower"))?,
        |state| state,
    )?;
    log::add_to_linker_instance::<StoreState, Own>(&mut linker.instance(&name("log"))?, |state| {
        state
    })
}

impl v0_4::tenka::ruleset::types::Host for StoreState {}

impl v0_4::tenka::ruleset::random::Host for StoreState {
    fn next_u64(&mut self) -> wasmtime::Result<u64> {
        Ok(sdk::Table::next_u64(&mut self.table))
    }

    fn below(&mut self, bound: u64) -> wasmtime::Result<u64> {
        self.table.try_below(bound).map_err(wasmtime::Error::msg)
    }
}

impl v0_4::tenka::ruleset::battle_tower::Host for StoreState {
    fn configure(&mut self, shelves: Vec<wt::TowerShelf>) -> wasmtime::Result<Result<(), String>> {
        let shelves: Vec<s::TowerShelf> = shelves
            .into_iter()
            .map(|shelf| s::TowerShelf {
                lodge_chance: shelf.lodge_chance,
                release_chance: shelf.release_chance,
            })
            .collect();
        Ok(self.table.configure(&shelves))
    }

    fn drop(&mut self, cubes: Vec<wt::CubeCount>) -> wasmtime::Result<Vec<wt::CubeCount>> {
        let cubes: Vec<s::CubeCount> = cubes.into_iter().map(cube_from_wit).collect();
        Ok(self
            .drop_into_tower(&cubes)?
            .into_iter()
            .map(cube_to_wit)
            .collect())
    }
}

impl v0_4::tenka::ruleset::log::Host for StoreState {
    fn write(
        &mut self,
        level: v0_4::tenka::ruleset::log::Level,
        line: String,
    ) -> wasmtime::Result<()> {
        use v0_4::tenka::ruleset::log::Level;
        let level = match level {
            Level::Debug => s::LogLevel::Debug,
            Level::Info => s::LogLevel::Info,
            Level::Warn => s::LogLevel::Warn,
        };
        self.write_log(level, &line);
        Ok(())
    }
}

fn cube_from_wit(c: wt::CubeCount) -> s::CubeCount {
    s::CubeCount {
        owner: match c.owner {
            wt::CubeOwner::Seat(seat) => s::CubeOwner::Seat(seat),
            wt::CubeOwner::Neutral(name) => s::CubeOwner::Neutral(name),
        },
        count: c.count,
    }
}

fn cube_to_wit(c: s::CubeCount) -> wt::CubeCount {
    wt::CubeCount {
        owner: match c.owner {
            s::CubeOwner::Seat(seat) => wt::CubeOwner::Seat(seat),
            s::CubeOwner::Neutral(name) => wt::CubeOwner::Neutral(name),
        },
        count: c.count,
    }
}

pub(crate) fn message_from_wit(m: wt::Message) -> s::Message {
    s::Message {
        key: m.key,
        args: m
            .args
            .into_iter()
            .map(|(name, arg)| {
                let arg = match arg {
                    wt::MessageArg::Text(t) => s::MessageArg::Text(t),
                    wt::MessageArg::Number(n) => s::MessageArg::Number(n),
                    wt::MessageArg::Seat(seat) => s::MessageArg::Seat(seat),
                    wt::MessageArg::Key(k) => s::MessageArg::Key(k),
                };
                (name, arg)
            })
            .collect(),
    }
}

pub(crate) fn viewer_to_wit(v: s::Viewer) -> wt::Viewer {
    match v {
        s::Viewer::Seat(seat) => wt::Viewer::Seat(seat),
        s::Viewer::Spectator => wt::Viewer::Spectator,
    }
}
