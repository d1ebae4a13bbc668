//! Contract 0.4.0, the current one: the SDK's types map one-to-one.

wasmtime::component::bindgen!({
    path: "../../sdk/wit/since_v0.4.0",
    world: "ruleset",
    // Every import may trap: `random.below(0)` is a ruleset bug that fails the call.
    imports: { default: trappable },
});

contract_glue!();

/// The contract version this module binds.
pub(crate) const CONTRACT: &str = "0.4.0";

fn choice_from_wit(c: ex::Choice) -> s::Choice {
    s::Choice {
        id: c.id,
        label: message_from_wit(c.label),
        detail: c.detail.map(message_from_wit),
    }
}

fn pending_from_wit(p: ex::PendingDecision) -> s::PendingDecision {
    s::PendingDecision {
        seat: p.seat,
        prompt: message_from_wit(p.prompt),
        kind: decision_kind_from_wit(p.kind),
        private: p.private,
        back: p.back.map(message_from_wit),
    }
}

/// 0.4.0 has the action `back`.
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

/// The ruleset's quick answer for `seat`'s pending decision (0.4.0's `rollout-action`).
pub(crate) fn rollout_action(
    instance: &Ruleset,
    store: &mut Store<StoreState>,
    game: ResourceAny,
    seat: s::Seat,
    salt: u64,
) -> wasmtime::Result<Option<s::Action>> {
    let action = instance
        .tenka_ruleset_rules()
        .game()
        .call_rollout_action(store, game, seat, salt)?;
    Ok(action.map(|action| match action {
        ex::Action::Choose(picks) => s::Action::Choose(picks),
        ex::Action::Number(n) => s::Action::Number(n),
        ex::Action::Assign(pairs) => s::Action::Assign(pairs),
        ex::Action::Back => s::Action::Back,
    }))
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

pub(crate) fn render(
    instance: &Ruleset,
    store: &mut Store<StoreState>,
    game: ResourceAny,
    viewer: s::Viewer,
) -> wasmtime::Result<Vec<s::BoardPart>> {
    let parts =
        instance
            .tenka_ruleset_rules()
            .game()
            .call_render(store, game, viewer_to_wit(viewer))?;
    Ok(parts
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
        .collect())
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

fn field_from_wit(f: ex::EditorField) -> s::EditorField {
    s::EditorField {
        name: f.name,
        kind: match f.kind {
            ex::FieldKind::String => s::FieldKind::String,
            ex::FieldKind::Integer => s::FieldKind::Integer,
            ex::FieldKind::Number => s::FieldKind::Number,
            ex::FieldKind::Boolean => s::FieldKind::Boolean,
            ex::FieldKind::List => s::FieldKind::List,
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

/// What the map editor can change, as the ruleset describes it (not yet checked: see
/// `LoadedRuleset::map_editor`).
pub(crate) fn map_editor(
    instance: &Ruleset,
    store: &mut Store<StoreState>,
) -> wasmtime::Result<Option<s::MapEditor>> {
    let Some(schema) = instance.tenka_ruleset_rules().call_map_editor(store)? else {
        return Ok(None);
    };
    Ok(Some(s::MapEditor {
        places: schema.places.map(|p| s::EditorPlaces {
            table: p.table,
            id: p.id,
            name: p.name,
            x: p.x,
            y: p.y,
            key_prefix: p.key_prefix,
            fields: p.fields.into_iter().map(field_from_wit).collect(),
        }),
        connections: schema
            .connections
            .into_iter()
            .map(|c| s::EditorConnection {
                kind: c.kind,
                description: c.description,
                storage: match c.storage {
                    ex::ConnectionStorage::Field(field) => s::ConnectionStorage::Field(field),
                    ex::ConnectionStorage::Table(t) => s::ConnectionStorage::Table {
                        table: t.table,
                        endpoints: t.endpoints,
                        flag: t.flag,
                    },
                },
            })
            .collect(),
        tables: schema
            .tables
            .into_iter()
            .map(|t| s::RowTable {
                table: t.table,
                key: t.key,
                description: t.description,
                fields: t.fields.into_iter().map(field_from_wit).collect(),
            })
            .collect(),
        blank_map: schema.blank_map,
    }))
}
