//! The host side of the contract: generated bindings, the imports' implementations and the
//! conversions between the generated types and the SDK's.

use sdk as s;

wasmtime::component::bindgen!({
    // The contract as the SDK defines it; one folder per contract version.
    path: "../sdk/wit/since_v0.1.0",
    world: "ruleset",
    // Every import may trap: `random.below(0)` is a ruleset bug that fails the call.
    imports: { default: trappable },
});

use exports::tenka::ruleset::rules as ex;
use tenka::ruleset::types as wt;

use super::StoreState;

impl tenka::ruleset::types::Host for StoreState {}

impl tenka::ruleset::random::Host for StoreState {
    fn next_u64(&mut self) -> wasmtime::Result<u64> {
        Ok(sdk::Table::next_u64(&mut self.table))
    }

    fn below(&mut self, bound: u64) -> wasmtime::Result<u64> {
        self.table.try_below(bound).map_err(wasmtime::Error::msg)
    }
}

impl tenka::ruleset::battle_tower::Host for StoreState {
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
        const MOST_CUBES_PER_DROP: u64 = 100_000;
        let total: u64 = cubes.iter().map(|c| u64::from(c.count)).sum();
        if total > MOST_CUBES_PER_DROP {
            return Err(wasmtime::Error::msg(format!(
                "battle-tower.drop of {total} cubes; at most {MOST_CUBES_PER_DROP} are allowed"
            )));
        }
        // The host works through a drop cube by cube, each falling cube meeting every cube
        // lodged on each shelf it passes, and a call cannot be interrupted while the host
        // works: bound that work, which a tower set to keep every cube makes quadratic.
        const MOST_TOWER_STEPS_PER_DROP: u64 = 100_000_000;
        let tower = self.table.tower();
        let lodged: u64 = tower.contents().iter().map(|c| u64::from(c.count)).sum();
        let shelves = tower.shelves().len().max(1) as u64;
        let steps = shelves
            .saturating_mul(total)
            .saturating_mul(lodged.saturating_add(total).saturating_add(1));
        if steps > MOST_TOWER_STEPS_PER_DROP {
            return Err(wasmtime::Error::msg(format!(
                "battle-tower.drop of {total} cubes onto {lodged} lodged ones is too much work \
                 for one drop"
            )));
        }
        self.drops_this_call += 1;
        if self.drops_this_call > super::MOST_DROPS_PER_CALL {
            return Err(wasmtime::Error::msg(format!(
                "more than {} battle-tower drops in one call",
                super::MOST_DROPS_PER_CALL
            )));
        }
        let cubes: Vec<s::CubeCount> = cubes.into_iter().map(cube_from_wit).collect();
        Ok(self
            .table
            .drop_into_tower(&cubes)
            .into_iter()
            .map(cube_to_wit)
            .collect())
    }
}

impl tenka::ruleset::log::Host for StoreState {
    fn write(&mut self, level: tenka::ruleset::log::Level, line: String) -> wasmtime::Result<()> {
        use tenka::ruleset::log::Level;
        let level = match level {
            Level::Debug => s::LogLevel::Debug,
            Level::Info => s::LogLevel::Info,
            Level::Warn => s::LogLevel::Warn,
        };
        self.log_lines_this_call += 1;
        if self.log_lines_this_call > super::MOST_LOG_LINES_PER_CALL {
            return Ok(());
        }
        let line: String = line.chars().take(2000).collect();
        self.table.write_log(level, &line);
        Ok(())
    }
}

pub(crate) fn cube_from_wit(c: wt::CubeCount) -> s::CubeCount {
    s::CubeCount {
        owner: match c.owner {
            wt::CubeOwner::Seat(seat) => s::CubeOwner::Seat(seat),
            wt::CubeOwner::Neutral(name) => s::CubeOwner::Neutral(name),
        },
        count: c.count,
    }
}

pub(crate) fn cube_to_wit(c: s::CubeCount) -> wt::CubeCount {
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

fn option_value_from_wit(v: ex::OptionValue) -> s::OptionValue {
    match v {
        ex::OptionValue::Boolean(b) => s::OptionValue::Boolean(b),
        ex::OptionValue::Integer(i) => s::OptionValue::Integer(i),
        ex::OptionValue::Decimal(d) => s::OptionValue::Decimal(d),
        ex::OptionValue::Choice(c) => s::OptionValue::Choice(c),
    }
}

fn option_value_to_wit(v: &s::OptionValue) -> ex::OptionValue {
    match v {
        s::OptionValue::Boolean(b) => ex::OptionValue::Boolean(*b),
        s::OptionValue::Integer(i) => ex::OptionValue::Integer(*i),
        s::OptionValue::Decimal(d) => ex::OptionValue::Decimal(*d),
        s::OptionValue::Choice(c) => ex::OptionValue::Choice(c.clone()),
    }
}

pub(crate) fn info_from_wit(info: ex::RulesetInfo) -> s::RulesetInfo {
    s::RulesetInfo {
        id: info.id,
        name: info.name,
        version: info.version,
        min_seats: info.min_seats,
        max_seats: info.max_seats,
        maps: info
            .maps
            .into_iter()
            .map(|m| s::MapInfo {
                id: m.id,
                name: message_from_wit(m.name),
            })
            .collect(),
        options: info
            .options
            .into_iter()
            .map(|o| s::OptionSpec {
                name: o.name,
                description: message_from_wit(o.description),
                kind: match o.kind {
                    ex::OptionKind::Boolean => s::OptionKind::Boolean,
                    ex::OptionKind::Integer((min, max)) => s::OptionKind::Integer { min, max },
                    ex::OptionKind::Decimal((min, max)) => s::OptionKind::Decimal { min, max },
                    ex::OptionKind::Choice(names) => s::OptionKind::Choice(names),
                },
                default: option_value_from_wit(o.default),
            })
            .collect(),
        languages: info.languages,
    }
}

pub(crate) fn diagnostic_from_wit(d: ex::Diagnostic) -> s::Diagnostic {
    s::Diagnostic {
        severity: match d.severity {
            ex::Severity::Error => s::Severity::Error,
            ex::Severity::Warning => s::Severity::Warning,
        },
        line: d.line,
        column: d.column,
        text: d.text,
    }
}

pub(crate) fn setup_to_wit(setup: &s::Setup) -> ex::Setup {
    ex::Setup {
        map_toml: setup.map.clone(),
        options: setup
            .options
            .iter()
            .map(|o| ex::OptionSetting {
                name: o.name.clone(),
                value: option_value_to_wit(&o.value),
            })
            .collect(),
        seats: setup.seats,
    }
}

pub(crate) fn setup_error_from_wit(e: ex::SetupError) -> s::SetupError {
    match e {
        ex::SetupError::SeatCount(t) => s::SetupError::SeatCount(t),
        ex::SetupError::BadMap(ds) => {
            s::SetupError::Map(ds.into_iter().map(diagnostic_from_wit).collect())
        }
        ex::SetupError::BadOption((name, reason)) => s::SetupError::Option(name, reason),
        ex::SetupError::BadPosition(t) => s::SetupError::Position(t),
    }
}

pub(crate) fn pending_from_wit(p: ex::PendingDecision) -> s::PendingDecision {
    let kind = match p.kind {
        ex::DecisionKind::Choose(c) => s::DecisionKind::Choose(s::ChooseDecision {
            choices: c
                .choices
                .into_iter()
                .map(|c| s::Choice {
                    id: c.id,
                    label: message_from_wit(c.label),
                })
                .collect(),
            min: c.min,
            max: c.max,
        }),
        ex::DecisionKind::Number(n) => s::DecisionKind::Number(s::NumberDecision {
            min: n.min,
            max: n.max,
        }),
        ex::DecisionKind::Assign(a) => s::DecisionKind::Assign(s::AssignDecision {
            items: a
                .items
                .into_iter()
                .map(|i| s::AssignItem {
                    id: i.id,
                    label: message_from_wit(i.label),
                })
                .collect(),
            slots: a
                .slots
                .into_iter()
                .map(|slot| s::AssignSlot {
                    id: slot.id,
                    label: message_from_wit(slot.label),
                    accepts: slot.accepts,
                })
                .collect(),
            min_placements: a.min_placements,
        }),
    };
    s::PendingDecision {
        seat: p.seat,
        prompt: message_from_wit(p.prompt),
        kind,
    }
}

pub(crate) fn action_to_wit(a: &s::Action) -> ex::Action {
    match a {
        s::Action::Choose(picks) => ex::Action::Choose(picks.clone()),
        s::Action::Number(n) => ex::Action::Number(*n),
        s::Action::Assign(pairs) => ex::Action::Assign(pairs.clone()),
    }
}

pub(crate) fn rejection_from_wit(r: ex::Rejection) -> s::Rejection {
    match r {
        ex::Rejection::NotYourTurn => s::Rejection::NotYourTurn,
        ex::Rejection::Malformed(t) => s::Rejection::Malformed(t),
        ex::Rejection::Illegal(m) => s::Rejection::Illegal(message_from_wit(m)),
    }
}

pub(crate) fn event_from_wit(e: ex::Event) -> s::Event {
    s::Event {
        text: message_from_wit(e.text),
        audience: match e.audience {
            ex::Audience::Everyone => s::Audience::Everyone,
            ex::Audience::Seats(seats) => s::Audience::Seats(seats),
        },
    }
}

pub(crate) fn result_from_wit(r: ex::GameResult) -> s::GameResult {
    s::GameResult {
        placings: r
            .placings
            .into_iter()
            .map(|p| s::Placing {
                seat: p.seat,
                rank: p.rank,
                score: p.score,
                tie_breaks: p.tie_breaks,
            })
            .collect(),
        breakdown: r
            .breakdown
            .into_iter()
            .map(|l| s::ScoreLine {
                seat: l.seat,
                label: message_from_wit(l.label),
                points: l.points,
            })
            .collect(),
        summary: message_from_wit(r.summary),
    }
}

#[cfg(test)]
mod tests {
    use super::tenka::ruleset::battle_tower::Host as _;
    use super::*;
    use crate::runtime::{CallLimits, GameLimiter};
    use crate::table::GameTable;

    fn state() -> StoreState {
        let limits = CallLimits::default();
        StoreState {
            table: GameTable::new(&[1; 32]),
            limiter: GameLimiter::new(limits.memory_bytes, 8, 2, 4),
            shared_budget: false,
            panic_output: Vec::new(),
            drops_this_call: 0,
            log_lines_this_call: 0,
        }
    }

    fn handful(count: u32) -> Vec<wt::CubeCount> {
        vec![wt::CubeCount {
            owner: wt::CubeOwner::Neutral("grey".into()),
            count,
        }]
    }

    #[test]
    fn a_tower_that_keeps_every_cube_cannot_make_one_drop_take_forever() {
        let mut state = state();
        let keep_all = vec![wt::TowerShelf {
            lodge_chance: 1.0,
            release_chance: 0.0,
        }];
        state.configure(keep_all).unwrap().unwrap();
        // 5,000 cubes in: fine; then every cube falling meets all of them.
        state.drop(handful(5_000)).unwrap();
        let error = state.drop(handful(10_000)).unwrap_err().to_string();
        assert!(error.contains("too much work"), "{error}");
        // A game's ordinary handfuls are far below the bound.
        state.drop(handful(30)).unwrap();
    }

    #[test]
    fn one_call_may_make_only_so_many_drops() {
        let mut state = state();
        for _ in 0..crate::runtime::MOST_DROPS_PER_CALL {
            state.drop(handful(1)).unwrap();
        }
        let error = state.drop(handful(1)).unwrap_err().to_string();
        assert!(error.contains("battle-tower drops in one call"), "{error}");
        state.start_call();
        state.drop(handful(1)).unwrap();
    }
}
