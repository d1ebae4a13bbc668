//! The component glue: the contract's exports call the registered ruleset, and its imports
//! become a [`Table`]. Compiled only for WebAssembly; authors never touch it.

use std::cell::RefCell;

use crate::native::{DynGame, DynRuleset};
use crate::{LogLevel, Table, types as sdk};

mod wit {
    wit_bindgen::generate!({
        path: "wit/since_v0.4.0",
        world: "ruleset",
    });
}

use wit::exports::tenka::ruleset::rules as ex;
use wit::tenka::ruleset::{battle_tower, log, random, types as wt};

unsafe extern "Rust" {
    /// Defined by `register_ruleset!` in the ruleset's crate.
    safe fn __tenka_registered_ruleset() -> &'static dyn DynRuleset;
}

fn ruleset() -> &'static dyn DynRuleset {
    __tenka_registered_ruleset()
}

/// The contract's imports, seen as a [`Table`].
struct HostTable;

impl Table for HostTable {
    fn next_u64(&mut self) -> u64 {
        random::next_u64()
    }
    fn below(&mut self, bound: u64) -> u64 {
        random::below(bound)
    }
    fn configure_tower(&mut self, shelves: &[sdk::TowerShelf]) -> Result<(), String> {
        let shelves: Vec<wt::TowerShelf> = shelves
            .iter()
            .map(|s| wt::TowerShelf {
                lodge_chance: s.lodge_chance,
                release_chance: s.release_chance,
            })
            .collect();
        battle_tower::configure(&shelves)
    }
    fn drop_cubes(&mut self, cubes: &[sdk::CubeCount]) -> Vec<sdk::CubeCount> {
        let cubes: Vec<wt::CubeCount> = cubes.iter().map(cube_to_wit).collect();
        battle_tower::drop(&cubes)
            .into_iter()
            .map(cube_from_wit)
            .collect()
    }
    fn log(&mut self, level: LogLevel, line: &str) {
        let level = match level {
            LogLevel::Debug => log::Level::Debug,
            LogLevel::Info => log::Level::Info,
            LogLevel::Warn => log::Level::Warn,
        };
        log::write(level, line);
    }
}

struct Component;

/// A game held by the component on behalf of the host.
struct GameCell(RefCell<Box<dyn DynGame>>);

impl GameCell {
    fn wrap(game: Box<dyn DynGame>) -> ex::Game {
        ex::Game::new(GameCell(RefCell::new(game)))
    }
}

impl ex::Guest for Component {
    type Game = GameCell;

    fn info() -> ex::RulesetInfo {
        let info = ruleset().info();
        ex::RulesetInfo {
            id: info.id,
            name: info.name,
            version: info.version,
            min_seats: info.min_seats,
            max_seats: info.max_seats,
            maps: info
                .maps
                .into_iter()
                .map(|m| ex::MapInfo {
                    id: m.id,
                    name: message_to_wit(m.name),
                })
                .collect(),
            options: info.options.into_iter().map(option_spec_to_wit).collect(),
            languages: info.languages,
        }
    }

    fn validate_map(map_toml: String) -> Vec<ex::Diagnostic> {
        ruleset()
            .validate_map(&map_toml)
            .into_iter()
            .map(diagnostic_to_wit)
            .collect()
    }

    fn catalogue(language: String) -> Vec<(String, String)> {
        ruleset().catalogue(&language)
    }

    fn map_editor() -> Option<ex::MapEditorSchema> {
        ruleset().map_editor().map(map_editor_to_wit)
    }

    fn contract_version() -> String {
        crate::CONTRACT_VERSION.to_owned()
    }
}

impl ex::GuestGame for GameCell {
    fn create(setup: ex::Setup) -> Result<ex::Game, ex::SetupError> {
        let setup = setup_from_wit(setup);
        ruleset()
            .create(&setup, &mut HostTable)
            .map(GameCell::wrap)
            .map_err(setup_error_to_wit)
    }

    fn create_from_position(
        setup: ex::Setup,
        position: String,
    ) -> Result<ex::Game, ex::SetupError> {
        let setup = setup_from_wit(setup);
        ruleset()
            .create_from_position(&setup, &position, &mut HostTable)
            .map(GameCell::wrap)
            .map_err(setup_error_to_wit)
    }

    fn pending(&self) -> Vec<ex::PendingDecision> {
        self.0
            .borrow()
            .pending()
            .into_iter()
            .map(pending_to_wit)
            .collect()
    }

    fn apply(&self, seat: u32, action: ex::Action) -> Result<Vec<ex::Event>, ex::Rejection> {
        let action = action_from_wit(action);
        self.0
            .borrow_mut()
            .apply(seat, &action, &mut HostTable)
            .map(|events| events.into_iter().map(event_to_wit).collect())
            .map_err(rejection_to_wit)
    }

    fn view(&self, viewer: wt::Viewer) -> String {
        self.0.borrow().view(viewer_from_wit(viewer))
    }

    fn render(&self, viewer: wt::Viewer) -> Vec<ex::BoardPart> {
        self.0
            .borrow()
            .render(viewer_from_wit(viewer))
            .into_iter()
            .map(part_to_wit)
            .collect()
    }

    fn preview(
        &self,
        seat: u32,
        action: ex::Action,
    ) -> Result<Vec<ex::PreviewNote>, ex::Rejection> {
        let action = action_from_wit(action);
        self.0
            .borrow()
            .preview(seat, &action)
            .map(|notes| notes.into_iter().map(note_to_wit).collect())
            .map_err(rejection_to_wit)
    }

    fn final_result(&self) -> Option<ex::GameResult> {
        self.0.borrow().result().map(result_to_wit)
    }

    fn snapshot(&self) -> Vec<u8> {
        self.0.borrow().snapshot()
    }

    fn restore(bytes: Vec<u8>) -> Result<ex::Game, String> {
        ruleset().restore(&bytes).map(GameCell::wrap)
    }

    fn determinize(&self, seat: u32) -> ex::Game {
        GameCell::wrap(self.0.borrow().determinize(seat, &mut HostTable))
    }

    fn evaluate(&self, seat: u32) -> Option<f64> {
        self.0.borrow().evaluate(seat)
    }

    fn rollout_action(&self, seat: u32, salt: u64) -> Option<ex::Action> {
        self.0
            .borrow()
            .rollout_action(seat, salt)
            .map(action_to_wit)
    }
}

wit::export!(Component with_types_in wit);

// Conversions between the SDK's types and the generated ones. They are one-to-one by design.

fn cube_to_wit(c: &sdk::CubeCount) -> wt::CubeCount {
    wt::CubeCount {
        owner: match &c.owner {
            sdk::CubeOwner::Seat(s) => wt::CubeOwner::Seat(*s),
            sdk::CubeOwner::Neutral(n) => wt::CubeOwner::Neutral(n.clone()),
        },
        count: c.count,
    }
}

fn cube_from_wit(c: wt::CubeCount) -> sdk::CubeCount {
    sdk::CubeCount {
        owner: match c.owner {
            wt::CubeOwner::Seat(s) => sdk::CubeOwner::Seat(s),
            wt::CubeOwner::Neutral(n) => sdk::CubeOwner::Neutral(n),
        },
        count: c.count,
    }
}

fn message_to_wit(m: sdk::Message) -> wt::Message {
    wt::Message {
        key: m.key,
        args: m
            .args
            .into_iter()
            .map(|(name, arg)| {
                let arg = match arg {
                    sdk::MessageArg::Text(t) => wt::MessageArg::Text(t),
                    sdk::MessageArg::Number(n) => wt::MessageArg::Number(n),
                    sdk::MessageArg::Seat(s) => wt::MessageArg::Seat(s),
                    sdk::MessageArg::Key(k) => wt::MessageArg::Key(k),
                };
                (name, arg)
            })
            .collect(),
    }
}

fn viewer_from_wit(v: wt::Viewer) -> sdk::Viewer {
    match v {
        wt::Viewer::Seat(s) => sdk::Viewer::Seat(s),
        wt::Viewer::Spectator => sdk::Viewer::Spectator,
    }
}

fn option_value_to_wit(v: sdk::OptionValue) -> ex::OptionValue {
    match v {
        sdk::OptionValue::Boolean(b) => ex::OptionValue::Boolean(b),
        sdk::OptionValue::Integer(i) => ex::OptionValue::Integer(i),
        sdk::OptionValue::Decimal(d) => ex::OptionValue::Decimal(d),
        sdk::OptionValue::Choice(c) => ex::OptionValue::Choice(c),
    }
}

fn option_value_from_wit(v: ex::OptionValue) -> sdk::OptionValue {
    match v {
        ex::OptionValue::Boolean(b) => sdk::OptionValue::Boolean(b),
        ex::OptionValue::Integer(i) => sdk::OptionValue::Integer(i),
        ex::OptionValue::Decimal(d) => sdk::OptionValue::Decimal(d),
        ex::OptionValue::Choice(c) => sdk::OptionValue::Choice(c),
    }
}

fn option_spec_to_wit(o: sdk::OptionSpec) -> ex::OptionSpec {
    ex::OptionSpec {
        name: o.name,
        description: message_to_wit(o.description),
        kind: match o.kind {
            sdk::OptionKind::Boolean => ex::OptionKind::Boolean,
            sdk::OptionKind::Integer { min, max } => ex::OptionKind::Integer((min, max)),
            sdk::OptionKind::Decimal { min, max } => ex::OptionKind::Decimal((min, max)),
            sdk::OptionKind::Choice(names) => ex::OptionKind::Choice(names),
        },
        default: option_value_to_wit(o.default),
    }
}

fn diagnostic_to_wit(d: sdk::Diagnostic) -> ex::Diagnostic {
    ex::Diagnostic {
        severity: match d.severity {
            sdk::Severity::Error => ex::Severity::Error,
            sdk::Severity::Warning => ex::Severity::Warning,
        },
        line: d.line,
        column: d.column,
        text: d.text,
    }
}

fn field_to_wit(f: crate::EditorField) -> ex::EditorField {
    ex::EditorField {
        name: f.name,
        kind: match f.kind {
            crate::FieldKind::String => ex::FieldKind::String,
            crate::FieldKind::Integer => ex::FieldKind::Integer,
            crate::FieldKind::Number => ex::FieldKind::Number,
            crate::FieldKind::Boolean => ex::FieldKind::Boolean,
            crate::FieldKind::List => ex::FieldKind::List,
        },
        description: f.description,
        values: f.values,
        values_from: f.values_from,
        min: f.min,
        max: f.max,
        optional: f.optional,
        length: f.length,
    }
}

fn map_editor_to_wit(e: crate::MapEditor) -> ex::MapEditorSchema {
    ex::MapEditorSchema {
        places: e.places.map(|p| ex::EditorPlaces {
            table: p.table,
            id: p.id,
            name: p.name,
            x: p.x,
            y: p.y,
            key_prefix: p.key_prefix,
            fields: p.fields.into_iter().map(field_to_wit).collect(),
        }),
        connections: e
            .connections
            .into_iter()
            .map(|c| ex::EditorConnection {
                kind: c.kind,
                description: c.description,
                storage: match c.storage {
                    crate::ConnectionStorage::Field(field) => ex::ConnectionStorage::Field(field),
                    crate::ConnectionStorage::Table {
                        table,
                        endpoints,
                        flag,
                    } => ex::ConnectionStorage::Table(ex::ConnectionTable {
                        table,
                        endpoints,
                        flag,
                    }),
                },
            })
            .collect(),
        tables: e
            .tables
            .into_iter()
            .map(|t| ex::RowTable {
                table: t.table,
                key: t.key,
                description: t.description,
                fields: t.fields.into_iter().map(field_to_wit).collect(),
            })
            .collect(),
        blank_map: e.blank_map,
    }
}

fn setup_from_wit(s: ex::Setup) -> sdk::Setup {
    sdk::Setup {
        map: s.map_toml,
        options: s
            .options
            .into_iter()
            .map(|o| sdk::OptionSetting {
                name: o.name,
                value: option_value_from_wit(o.value),
            })
            .collect(),
        seats: s.seats,
    }
}

fn setup_error_to_wit(e: sdk::SetupError) -> ex::SetupError {
    match e {
        sdk::SetupError::SeatCount(t) => ex::SetupError::SeatCount(t),
        sdk::SetupError::Map(ds) => {
            ex::SetupError::BadMap(ds.into_iter().map(diagnostic_to_wit).collect())
        }
        sdk::SetupError::Option(name, reason) => ex::SetupError::BadOption((name, reason)),
        sdk::SetupError::Position(t) => ex::SetupError::BadPosition(t),
    }
}

fn pending_to_wit(p: sdk::PendingDecision) -> ex::PendingDecision {
    let kind = match p.kind {
        sdk::DecisionKind::Choose(c) => ex::DecisionKind::Choose(ex::ChooseDecision {
            choices: c
                .choices
                .into_iter()
                .map(|c| ex::Choice {
                    id: c.id,
                    label: message_to_wit(c.label),
                    detail: c.detail.map(message_to_wit),
                })
                .collect(),
            min: c.min,
            max: c.max,
        }),
        sdk::DecisionKind::Number(n) => ex::DecisionKind::Number(ex::NumberDecision {
            min: n.min,
            max: n.max,
        }),
        sdk::DecisionKind::Assign(a) => ex::DecisionKind::Assign(ex::AssignDecision {
            items: a
                .items
                .into_iter()
                .map(|i| ex::AssignItem {
                    id: i.id,
                    label: message_to_wit(i.label),
                })
                .collect(),
            slots: a
                .slots
                .into_iter()
                .map(|s| ex::AssignSlot {
                    id: s.id,
                    label: message_to_wit(s.label),
                    accepts: s.accepts,
                })
                .collect(),
            min_placements: a.min_placements,
        }),
    };
    ex::PendingDecision {
        seat: p.seat,
        prompt: message_to_wit(p.prompt),
        kind,
        private: p.private,
        back: p.back.map(message_to_wit),
    }
}

fn action_from_wit(a: ex::Action) -> sdk::Action {
    match a {
        ex::Action::Choose(picks) => sdk::Action::Choose(picks),
        ex::Action::Number(n) => sdk::Action::Number(n),
        ex::Action::Assign(pairs) => sdk::Action::Assign(pairs),
        ex::Action::Back => sdk::Action::Back,
    }
}

fn action_to_wit(a: sdk::Action) -> ex::Action {
    match a {
        sdk::Action::Choose(picks) => ex::Action::Choose(picks),
        sdk::Action::Number(n) => ex::Action::Number(n),
        sdk::Action::Assign(pairs) => ex::Action::Assign(pairs),
        sdk::Action::Back => ex::Action::Back,
    }
}

fn rejection_to_wit(r: sdk::Rejection) -> ex::Rejection {
    match r {
        sdk::Rejection::NotYourTurn => ex::Rejection::NotYourTurn,
        sdk::Rejection::Malformed(t) => ex::Rejection::Malformed(t),
        sdk::Rejection::Illegal(m) => ex::Rejection::Illegal(message_to_wit(m)),
    }
}

fn event_to_wit(e: sdk::Event) -> ex::Event {
    ex::Event {
        text: message_to_wit(e.text),
        audience: match e.audience {
            sdk::Audience::Everyone => ex::Audience::Everyone,
            sdk::Audience::Seats(seats) => ex::Audience::Seats(seats),
        },
        drops: e.drops,
        summary: e.summary.map(|summary| ex::Summary {
            title: message_to_wit(summary.title),
            lines: summary
                .lines
                .into_iter()
                .map(|line| ex::SummaryLine {
                    seat: line.seat,
                    label: message_to_wit(line.label),
                    value: line.value,
                })
                .collect(),
        }),
    }
}

fn part_to_wit(part: sdk::BoardPart) -> ex::BoardPart {
    ex::BoardPart {
        id: part.id,
        kind: match part.kind {
            sdk::PartKind::Map => ex::PartKind::Map,
            sdk::PartKind::Seat(seat) => ex::PartKind::Seat(seat),
            sdk::PartKind::Table => ex::PartKind::Table,
        },
        title: part.title.map(message_to_wit),
        svg: part.svg,
    }
}

fn note_to_wit(note: sdk::PreviewNote) -> ex::PreviewNote {
    ex::PreviewNote {
        level: match note.level {
            sdk::NoteLevel::Info => ex::NoteLevel::Info,
            sdk::NoteLevel::Warning => ex::NoteLevel::Warning,
        },
        text: message_to_wit(note.text),
    }
}

fn result_to_wit(r: sdk::GameResult) -> ex::GameResult {
    ex::GameResult {
        placings: r
            .placings
            .into_iter()
            .map(|p| ex::Placing {
                seat: p.seat,
                rank: p.rank,
                score: p.score,
                tie_breaks: p.tie_breaks,
            })
            .collect(),
        breakdown: r
            .breakdown
            .into_iter()
            .map(|l| ex::ScoreLine {
                seat: l.seat,
                label: message_to_wit(l.label),
                points: l.points,
            })
            .collect(),
        summary: message_to_wit(r.summary),
    }
}
