//! The host side of the contract: generated bindings for every contract version the host runs,
//! the imports' implementations, and the calls into a component in the SDK's types.
//!
//! Each version has a module of its own (`v0_4`, the current one, and `v0_3`, `v0_2` and `v0_1`,
//! kept so components built for them and their stored games keep working). The interfaces the
//! versions share unchanged (`types`, `random`, `battle-tower`, `log`) are generated once, in
//! `v0_4`: the older bindings reuse them through `bindgen!`'s `with:` ([`older_contract!`]), and
//! their implementations are written once in [`imports`], linked under each version's names. The
//! exported `rules` interface changed, so each version has its own generated types for it. Every
//! conversion of those is written once, in [`contract_glue!`], in layers by the version that
//! brought its shape (`contract_glue!(since "0.3.0")` expands 0.1.0's layer, 0.2.0's and 0.3.0's),
//! and expanded inside each module against that version's types; a module writes only what its
//! version alone has. [`Instance`] is a component of any of them behind one set of calls.

use sdk as s;
use wasmtime::Store;
use wasmtime::component::ResourceAny;

use crate::store::StoreState;

/// The bindings of an older contract's world at `$path`: the four shared interfaces are the same
/// as 0.4.0's, so they reuse 0.4.0's types and host traits and are implemented once
/// (`imports.rs`). Only `rules` is generated anew.
macro_rules! older_contract {
    ($path:literal) => {
        wasmtime::component::bindgen!({
            path: $path,
            world: "ruleset",
            imports: { default: trappable },
            with: {
                "tenka:ruleset/types": super::v0_4::tenka::ruleset::types,
                "tenka:ruleset/random": super::v0_4::tenka::ruleset::random,
                "tenka:ruleset/battle-tower": super::v0_4::tenka::ruleset::battle_tower,
                "tenka:ruleset/log": super::v0_4::tenka::ruleset::log,
            },
        });
    };
}

/// The conversions and calls of the `rules` interface, expanded in each version's module, where
/// `ex` is that version's generated `rules` types. `since "X"` expands every layer up to the one
/// of contract X: each layer holds what took its present shape in that version, so each is
/// written once however many versions share it. The module supplies `CONTRACT` and what its
/// layers leave out: below 0.3.0, `pending_from_wit` and `back_to_wit` (the action `back`, if
/// the version has it); below 0.2.0, also `choice_from_wit`, `event_from_wit` and
/// `board_from_wit`.
macro_rules! contract_glue {
    (since "0.3.0") => {
        contract_glue!(since "0.2.0");

        fn pending_from_wit(p: ex::PendingDecision) -> s::PendingDecision {
            s::PendingDecision {
                seat: p.seat,
                prompt: message_from_wit(p.prompt),
                kind: decision_kind_from_wit(p.kind),
                private: p.private,
                back: p.back.map(message_from_wit),
            }
        }

        /// Since 0.3.0 the contract has the action `back`.
        fn back_to_wit() -> Option<ex::Action> {
            Some(ex::Action::Back)
        }

        pub(crate) fn evaluate(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
            seat: s::Seat,
        ) -> wasmtime::Result<Option<f64>> {
            instance
                .tenka_ruleset_rules()
                .game()
                .call_evaluate(store, game, seat)
        }
    };
    (since "0.2.0") => {
        contract_glue!(since "0.1.0");

        fn choice_from_wit(c: ex::Choice) -> s::Choice {
            s::Choice {
                id: c.id,
                label: message_from_wit(c.label),
                detail: c.detail.map(message_from_wit),
            }
        }

        fn event_from_wit(e: ex::Event) -> s::Event {
            s::Event {
                text: message_from_wit(e.text),
                audience: audience_from_wit(e.audience),
                drops: e.drops,
                summary: e.summary.map(|summary| s::Summary {
                    title: message_from_wit(summary.title),
                    lines: summary
                        .lines
                        .into_iter()
                        .map(|line| s::SummaryLine {
                            seat: line.seat,
                            label: message_from_wit(line.label),
                            value: line.value,
                        })
                        .collect(),
                }),
            }
        }

        fn board_from_wit(parts: Vec<ex::BoardPart>) -> Vec<s::BoardPart> {
            parts
                .into_iter()
                .map(|part| s::BoardPart {
                    id: part.id,
                    kind: match part.kind {
                        ex::PartKind::Map => s::PartKind::Map,
                        ex::PartKind::Seat(seat) => s::PartKind::Seat(seat),
                        ex::PartKind::Table => s::PartKind::Table,
                    },
                    title: part.title.map(message_from_wit),
                    svg: part.svg,
                })
                .collect()
        }

        pub(crate) fn preview(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
            seat: s::Seat,
            action: &s::Action,
        ) -> wasmtime::Result<Result<Vec<s::PreviewNote>, s::Rejection>> {
            let Some(action) = action_to_wit(action) else {
                return Ok(Err(no_way_back()));
            };
            Ok(instance
                .tenka_ruleset_rules()
                .game()
                .call_preview(store, game, seat, &action)?
                .map(|notes| {
                    notes
                        .into_iter()
                        .map(|note| s::PreviewNote {
                            level: match note.level {
                                ex::NoteLevel::Info => s::NoteLevel::Info,
                                ex::NoteLevel::Warning => s::NoteLevel::Warning,
                            },
                            text: message_from_wit(note.text),
                        })
                        .collect()
                })
                .map_err(rejection_from_wit))
        }
    };
    (since "0.1.0") => {
        use sdk as s;
        use wasmtime::Store;
        use wasmtime::component::ResourceAny;

        use exports::tenka::ruleset::rules as ex;

        use crate::bindings::imports::{message_from_wit, viewer_to_wit};
        use crate::store::StoreState;

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

        fn info_from_wit(info: ex::RulesetInfo) -> s::RulesetInfo {
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
                            ex::OptionKind::Integer((min, max)) => {
                                s::OptionKind::Integer { min, max }
                            }
                            ex::OptionKind::Decimal((min, max)) => {
                                s::OptionKind::Decimal { min, max }
                            }
                            ex::OptionKind::Choice(names) => s::OptionKind::Choice(names),
                        },
                        default: option_value_from_wit(o.default),
                    })
                    .collect(),
                languages: info.languages,
            }
        }

        fn diagnostic_from_wit(d: ex::Diagnostic) -> s::Diagnostic {
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

        fn setup_to_wit(setup: &s::Setup) -> ex::Setup {
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

        fn setup_error_from_wit(e: ex::SetupError) -> s::SetupError {
            match e {
                ex::SetupError::SeatCount(t) => s::SetupError::SeatCount(t),
                ex::SetupError::BadMap(ds) => {
                    s::SetupError::Map(ds.into_iter().map(diagnostic_from_wit).collect())
                }
                ex::SetupError::BadOption((name, reason)) => s::SetupError::Option(name, reason),
                ex::SetupError::BadPosition(t) => s::SetupError::Position(t),
            }
        }

        fn decision_kind_from_wit(kind: ex::DecisionKind) -> s::DecisionKind {
            match kind {
                ex::DecisionKind::Choose(c) => s::DecisionKind::Choose(s::ChooseDecision {
                    choices: c.choices.into_iter().map(choice_from_wit).collect(),
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
            }
        }

        /// The action in this version's types; none for `back` in a version without it (the
        /// host refuses it before calling, since no decision of such a version offers it).
        fn action_to_wit(a: &s::Action) -> Option<ex::Action> {
            Some(match a {
                s::Action::Choose(picks) => ex::Action::Choose(picks.clone()),
                s::Action::Number(n) => ex::Action::Number(*n),
                s::Action::Assign(pairs) => ex::Action::Assign(pairs.clone()),
                s::Action::Back => back_to_wit()?,
            })
        }

        /// Why an action this version cannot express is refused.
        fn no_way_back() -> s::Rejection {
            s::Rejection::Malformed(format!("contract {CONTRACT} has no way back"))
        }

        fn rejection_from_wit(r: ex::Rejection) -> s::Rejection {
            match r {
                ex::Rejection::NotYourTurn => s::Rejection::NotYourTurn,
                ex::Rejection::Malformed(t) => s::Rejection::Malformed(t),
                ex::Rejection::Illegal(m) => s::Rejection::Illegal(message_from_wit(m)),
            }
        }

        fn audience_from_wit(audience: ex::Audience) -> s::Audience {
            match audience {
                ex::Audience::Everyone => s::Audience::Everyone,
                ex::Audience::Seats(seats) => s::Audience::Seats(seats),
            }
        }

        fn result_from_wit(r: ex::GameResult) -> s::GameResult {
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

        // The calls, in the SDK's types.

        pub(crate) fn contract_version(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
        ) -> wasmtime::Result<String> {
            instance.tenka_ruleset_rules().call_contract_version(store)
        }

        pub(crate) fn info(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
        ) -> wasmtime::Result<s::RulesetInfo> {
            Ok(info_from_wit(
                instance.tenka_ruleset_rules().call_info(store)?,
            ))
        }

        pub(crate) fn validate_map(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            map_toml: &str,
        ) -> wasmtime::Result<Vec<s::Diagnostic>> {
            Ok(instance
                .tenka_ruleset_rules()
                .call_validate_map(store, map_toml)?
                .into_iter()
                .map(diagnostic_from_wit)
                .collect())
        }

        pub(crate) fn catalogue(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            language: &str,
        ) -> wasmtime::Result<Vec<(String, String)>> {
            instance
                .tenka_ruleset_rules()
                .call_catalogue(store, language)
        }

        pub(crate) fn create(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            setup: &s::Setup,
            position: Option<&str>,
        ) -> wasmtime::Result<Result<ResourceAny, s::SetupError>> {
            let setup = setup_to_wit(setup);
            let guest = instance.tenka_ruleset_rules().game();
            let created = match position {
                Some(position) => guest.call_create_from_position(store, &setup, position)?,
                None => guest.call_create(store, &setup)?,
            };
            Ok(created.map_err(setup_error_from_wit))
        }

        pub(crate) fn restore(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            bytes: &[u8],
        ) -> wasmtime::Result<Result<ResourceAny, String>> {
            instance
                .tenka_ruleset_rules()
                .game()
                .call_restore(store, bytes)
        }

        pub(crate) fn pending(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
        ) -> wasmtime::Result<Vec<s::PendingDecision>> {
            Ok(instance
                .tenka_ruleset_rules()
                .game()
                .call_pending(store, game)?
                .into_iter()
                .map(pending_from_wit)
                .collect())
        }

        pub(crate) fn apply(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
            seat: s::Seat,
            action: &s::Action,
        ) -> wasmtime::Result<Result<Vec<s::Event>, s::Rejection>> {
            let Some(action) = action_to_wit(action) else {
                return Ok(Err(no_way_back()));
            };
            Ok(instance
                .tenka_ruleset_rules()
                .game()
                .call_apply(store, game, seat, &action)?
                .map(|events| events.into_iter().map(event_from_wit).collect())
                .map_err(rejection_from_wit))
        }

        pub(crate) fn view(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
            viewer: s::Viewer,
        ) -> wasmtime::Result<String> {
            instance
                .tenka_ruleset_rules()
                .game()
                .call_view(store, game, viewer_to_wit(viewer))
        }

        pub(crate) fn render(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
            viewer: s::Viewer,
        ) -> wasmtime::Result<Vec<s::BoardPart>> {
            let board = instance.tenka_ruleset_rules().game().call_render(
                store,
                game,
                viewer_to_wit(viewer),
            )?;
            Ok(board_from_wit(board))
        }

        pub(crate) fn final_result(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
        ) -> wasmtime::Result<Option<s::GameResult>> {
            Ok(instance
                .tenka_ruleset_rules()
                .game()
                .call_final_result(store, game)?
                .map(result_from_wit))
        }

        pub(crate) fn snapshot(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
        ) -> wasmtime::Result<Vec<u8>> {
            instance
                .tenka_ruleset_rules()
                .game()
                .call_snapshot(store, game)
        }

        pub(crate) fn determinize(
            instance: &Ruleset,
            store: &mut Store<StoreState>,
            game: ResourceAny,
            seat: s::Seat,
        ) -> wasmtime::Result<ResourceAny> {
            instance
                .tenka_ruleset_rules()
                .game()
                .call_determinize(store, game, seat)
        }

        /// Links the contract's imports under this version's names.
        pub(crate) fn add_to_linker(
            linker: &mut wasmtime::component::Linker<StoreState>,
        ) -> wasmtime::Result<()> {
            crate::bindings::imports::add_to_linker(linker, CONTRACT)
        }
    };
}

/// A decision of a contract before 0.3.0, which has no way back. Built from the SDK's
/// constructor, so a field a later contract adds gets its default here without touching the
/// adapters.
fn decision_without_way_back(
    seat: s::Seat,
    prompt: s::Message,
    kind: s::DecisionKind,
    private: bool,
) -> s::PendingDecision {
    s::PendingDecision {
        private,
        ..s::PendingDecision::new(seat, prompt, kind)
    }
}

pub(crate) mod imports;
pub(crate) mod v0_1;
pub(crate) mod v0_2;
pub(crate) mod v0_3;
pub(crate) mod v0_4;

/// The contract versions this host runs, newest first.
pub const SUPPORTED_CONTRACTS: &[&str] = &[
    v0_4::CONTRACT,
    v0_3::CONTRACT,
    v0_2::CONTRACT,
    v0_1::CONTRACT,
];

/// A component linked and ready to instantiate, of any contract version.
pub(crate) enum RulesetPre {
    V0_4(v0_4::RulesetPre<StoreState>),
    V0_3(v0_3::RulesetPre<StoreState>),
    V0_2(v0_2::RulesetPre<StoreState>),
    V0_1(v0_1::RulesetPre<StoreState>),
}

impl RulesetPre {
    /// Links the imports of `contract` and checks the component exports its `rules`.
    pub(crate) fn new(
        contract: &str,
        linker: &mut wasmtime::component::Linker<StoreState>,
        prepare: impl FnOnce(
            &mut wasmtime::component::Linker<StoreState>,
        ) -> anyhow::Result<wasmtime::component::InstancePre<StoreState>>,
    ) -> anyhow::Result<RulesetPre> {
        use anyhow::Context;
        let exports = "the component does not export the contract's `rules`";
        match contract {
            v0_1::CONTRACT => {
                v0_1::add_to_linker(linker).map_err(anyhow::Error::from)?;
                let pre = prepare(linker)?;
                Ok(RulesetPre::V0_1(
                    v0_1::RulesetPre::new(pre)
                        .map_err(anyhow::Error::from)
                        .context(exports)?,
                ))
            }
            v0_2::CONTRACT => {
                v0_2::add_to_linker(linker).map_err(anyhow::Error::from)?;
                let pre = prepare(linker)?;
                Ok(RulesetPre::V0_2(
                    v0_2::RulesetPre::new(pre)
                        .map_err(anyhow::Error::from)
                        .context(exports)?,
                ))
            }
            v0_3::CONTRACT => {
                v0_3::add_to_linker(linker).map_err(anyhow::Error::from)?;
                let pre = prepare(linker)?;
                Ok(RulesetPre::V0_3(
                    v0_3::RulesetPre::new(pre)
                        .map_err(anyhow::Error::from)
                        .context(exports)?,
                ))
            }
            _ => {
                v0_4::add_to_linker(linker).map_err(anyhow::Error::from)?;
                let pre = prepare(linker)?;
                Ok(RulesetPre::V0_4(
                    v0_4::RulesetPre::new(pre)
                        .map_err(anyhow::Error::from)
                        .context(exports)?,
                ))
            }
        }
    }

    pub(crate) fn instantiate(&self, store: &mut Store<StoreState>) -> wasmtime::Result<Instance> {
        Ok(match self {
            RulesetPre::V0_4(pre) => Instance::V0_4(pre.instantiate(store)?),
            RulesetPre::V0_3(pre) => Instance::V0_3(pre.instantiate(store)?),
            RulesetPre::V0_2(pre) => Instance::V0_2(pre.instantiate(store)?),
            RulesetPre::V0_1(pre) => Instance::V0_1(pre.instantiate(store)?),
        })
    }
}

/// An instance of a component, of any contract version, called in the SDK's types.
pub(crate) enum Instance {
    V0_4(v0_4::Ruleset),
    V0_3(v0_3::Ruleset),
    V0_2(v0_2::Ruleset),
    V0_1(v0_1::Ruleset),
}

/// Calls the same function of the instance's version module.
macro_rules! on_version {
    ($instance:expr, $call:ident($($arg:expr),*)) => {
        match $instance {
            Instance::V0_4(instance) => v0_4::$call(instance, $($arg),*),
            Instance::V0_3(instance) => v0_3::$call(instance, $($arg),*),
            Instance::V0_2(instance) => v0_2::$call(instance, $($arg),*),
            Instance::V0_1(instance) => v0_1::$call(instance, $($arg),*),
        }
    };
}

impl Instance {
    pub(crate) fn contract_version(
        &self,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<String> {
        on_version!(self, contract_version(store))
    }

    pub(crate) fn info(&self, store: &mut Store<StoreState>) -> wasmtime::Result<s::RulesetInfo> {
        on_version!(self, info(store))
    }

    pub(crate) fn validate_map(
        &self,
        store: &mut Store<StoreState>,
        map_toml: &str,
    ) -> wasmtime::Result<Vec<s::Diagnostic>> {
        on_version!(self, validate_map(store, map_toml))
    }

    pub(crate) fn catalogue(
        &self,
        store: &mut Store<StoreState>,
        language: &str,
    ) -> wasmtime::Result<Vec<(String, String)>> {
        on_version!(self, catalogue(store, language))
    }

    pub(crate) fn create(
        &self,
        store: &mut Store<StoreState>,
        setup: &s::Setup,
        position: Option<&str>,
    ) -> wasmtime::Result<Result<ResourceAny, s::SetupError>> {
        on_version!(self, create(store, setup, position))
    }

    pub(crate) fn restore(
        &self,
        store: &mut Store<StoreState>,
        bytes: &[u8],
    ) -> wasmtime::Result<Result<ResourceAny, String>> {
        on_version!(self, restore(store, bytes))
    }

    pub(crate) fn pending(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
    ) -> wasmtime::Result<Vec<s::PendingDecision>> {
        on_version!(self, pending(store, game))
    }

    pub(crate) fn apply(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
        seat: s::Seat,
        action: &s::Action,
    ) -> wasmtime::Result<Result<Vec<s::Event>, s::Rejection>> {
        on_version!(self, apply(store, game, seat, action))
    }

    pub(crate) fn view(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
        viewer: s::Viewer,
    ) -> wasmtime::Result<String> {
        on_version!(self, view(store, game, viewer))
    }

    pub(crate) fn render(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
        viewer: s::Viewer,
    ) -> wasmtime::Result<Vec<s::BoardPart>> {
        on_version!(self, render(store, game, viewer))
    }

    /// What an answer would do. A 0.1.0 component cannot say: no notes.
    pub(crate) fn preview(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
        seat: s::Seat,
        action: &s::Action,
    ) -> wasmtime::Result<Result<Vec<s::PreviewNote>, s::Rejection>> {
        match self {
            Instance::V0_4(instance) => v0_4::preview(instance, store, game, seat, action),
            Instance::V0_3(instance) => v0_3::preview(instance, store, game, seat, action),
            Instance::V0_2(instance) => v0_2::preview(instance, store, game, seat, action),
            Instance::V0_1(_) => Ok(Ok(Vec::new())),
        }
    }

    /// A heuristic estimate of the position for `seat`. Components before 0.3.0 give none.
    pub(crate) fn evaluate(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
        seat: s::Seat,
    ) -> wasmtime::Result<Option<f64>> {
        match self {
            Instance::V0_4(instance) => v0_4::evaluate(instance, store, game, seat),
            Instance::V0_3(instance) => v0_3::evaluate(instance, store, game, seat),
            Instance::V0_2(_) | Instance::V0_1(_) => Ok(None),
        }
    }

    /// The ruleset's quick answer to `seat`'s pending decision, unchecked. Components before
    /// 0.4.0 give none.
    pub(crate) fn rollout_action(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
        seat: s::Seat,
        salt: u64,
    ) -> wasmtime::Result<Option<s::Action>> {
        match self {
            Instance::V0_4(instance) => v0_4::rollout_action(instance, store, game, seat, salt),
            Instance::V0_3(_) | Instance::V0_2(_) | Instance::V0_1(_) => Ok(None),
        }
    }

    /// What the map editor can change, unchecked. Components before 0.4.0 describe nothing.
    pub(crate) fn map_editor(
        &self,
        store: &mut Store<StoreState>,
    ) -> wasmtime::Result<Option<s::MapEditor>> {
        match self {
            Instance::V0_4(instance) => v0_4::map_editor(instance, store),
            Instance::V0_3(_) | Instance::V0_2(_) | Instance::V0_1(_) => Ok(None),
        }
    }

    pub(crate) fn final_result(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
    ) -> wasmtime::Result<Option<s::GameResult>> {
        on_version!(self, final_result(store, game))
    }

    pub(crate) fn snapshot(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
    ) -> wasmtime::Result<Vec<u8>> {
        on_version!(self, snapshot(store, game))
    }

    pub(crate) fn determinize(
        &self,
        store: &mut Store<StoreState>,
        game: ResourceAny,
        seat: s::Seat,
    ) -> wasmtime::Result<ResourceAny> {
        on_version!(self, determinize(store, game, seat))
    }
}

#[cfg(test)]
mod tests {
    use super::v0_4::tenka::ruleset::battle_tower::Host as _;
    use super::*;
    use crate::CallLimits;
    use crate::limits::GameLimiter;
    use crate::table::GameTable;

    fn state() -> StoreState {
        let limits = CallLimits::default();
        StoreState {
            table: GameTable::new(&[1; 32]),
            limiter: GameLimiter::new(
                limits.memory_bytes,
                8,
                2,
                4,
                crate::MemoryBudget::new(usize::MAX),
            ),
            shared_budget: false,
            panic_output: Vec::new(),
            drops_this_call: 0,
            log_lines_this_call: 0,
        }
    }

    fn handful(count: u32) -> Vec<v0_4::tenka::ruleset::types::CubeCount> {
        vec![v0_4::tenka::ruleset::types::CubeCount {
            owner: v0_4::tenka::ruleset::types::CubeOwner::Neutral("grey".into()),
            count,
        }]
    }

    #[test]
    fn a_tower_that_keeps_every_cube_cannot_make_one_drop_take_forever() {
        let mut state = state();
        let keep_all = vec![v0_4::tenka::ruleset::types::TowerShelf {
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
        for _ in 0..crate::store::MOST_DROPS_PER_CALL {
            state.drop(handful(1)).unwrap();
        }
        let error = state.drop(handful(1)).unwrap_err().to_string();
        assert!(error.contains("battle-tower drops in one call"), "{error}");
        state.start_call();
        state.drop(handful(1)).unwrap();
    }
}
