//! Contract 0.4.0, the current one: the SDK's types map one-to-one.

wasmtime::component::bindgen!({
    path: "../../sdk/wit/since_v0.4.0",
    world: "ruleset",
    // Every import may trap: `random.below(0)` is a ruleset bug that fails the call.
    imports: { default: trappable },
});

contract_glue!(since "0.3.0");

/// The contract version this module binds.
pub(crate) const CONTRACT: &str = "0.4.0";

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
