//! Contract 0.3.0, adapted: components built for it keep loading and their stored games keep
//! replaying. What 0.3.0 lacks gets the value that promises least:
//! - the ruleset describes no map editor schema (its maps are edited as text).
//!
//! Everything else maps one-to-one to the SDK's types.

wasmtime::component::bindgen!({
    path: "../../sdk/wit/since_v0.3.0",
    world: "ruleset",
    imports: { default: trappable },
    // These four interfaces are the same in 0.3.0 and 0.4.0: reuse 0.4.0's types and host
    // traits, so they are implemented once (`imports.rs`). Only `rules` is generated anew.
    with: {
        "tenka:ruleset/types": super::v0_4::tenka::ruleset::types,
        "tenka:ruleset/random": super::v0_4::tenka::ruleset::random,
        "tenka:ruleset/battle-tower": super::v0_4::tenka::ruleset::battle_tower,
        "tenka:ruleset/log": super::v0_4::tenka::ruleset::log,
    },
});

contract_glue!();

/// The contract version this module binds.
pub(crate) const CONTRACT: &str = "0.3.0";

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

/// 0.3.0 has the action `back`.
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
