//! Contract 0.1.0, adapted: components built for it keep loading and their stored games keep
//! replaying. What 0.1.0 lacks gets the value that promises least:
//! - a choice has no detail;
//! - every decision counts as private (a shared device is handed over before each, as 0.1.0
//!   clients did);
//! - events name no drops (clients show a call's drops after its events) and carry no summary;
//! - the board is one part, the map, holding the whole SVG document;
//! - a preview says nothing, once the host has checked the draft's shape;
//! - as for 0.2.0, no decision offers a way back and the game gives no estimate.

wasmtime::component::bindgen!({
    path: "../../sdk/wit/since_v0.1.0",
    world: "ruleset",
    imports: { default: trappable },
    // These four interfaces are the same in 0.1.0 and 0.4.0: reuse 0.4.0's types and host
    // traits, so they are implemented once (`imports.rs`). Only `rules` is generated anew.
    with: {
        "tenka:ruleset/types": super::v0_4::tenka::ruleset::types,
        "tenka:ruleset/random": super::v0_4::tenka::ruleset::random,
        "tenka:ruleset/battle-tower": super::v0_4::tenka::ruleset::battle_tower,
        "tenka:ruleset/log": super::v0_4::tenka::ruleset::log,
    },
});

contract_glue!();

/// The contract version this module adapts.
pub(crate) const CONTRACT: &str = "0.1.0";

/// The id of the single part a 0.1.0 component's board becomes.
pub(crate) const BOARD_PART_ID: &str = "board";

fn choice_from_wit(c: ex::Choice) -> s::Choice {
    s::Choice::new(c.id, message_from_wit(c.label))
}

/// Built from the SDK's constructor, so a field a later contract adds gets its default here
/// without touching this adapter.
fn pending_from_wit(p: ex::PendingDecision) -> s::PendingDecision {
    let decision = s::PendingDecision::new(
        p.seat,
        message_from_wit(p.prompt),
        decision_kind_from_wit(p.kind),
    );
    s::PendingDecision {
        private: true,
        ..decision
    }
}

/// 0.1.0 has no action `back`.
fn back_to_wit() -> Option<ex::Action> {
    None
}

fn event_from_wit(e: ex::Event) -> s::Event {
    s::Event {
        text: message_from_wit(e.text),
        audience: audience_from_wit(e.audience),
        drops: Vec::new(),
        summary: None,
    }
}

pub(crate) fn render(
    instance: &Ruleset,
    store: &mut Store<StoreState>,
    game: ResourceAny,
    viewer: s::Viewer,
) -> wasmtime::Result<Vec<s::BoardPart>> {
    let svg =
        instance
            .tenka_ruleset_rules()
            .game()
            .call_render(store, game, viewer_to_wit(viewer))?;
    Ok(vec![s::BoardPart::new(
        BOARD_PART_ID,
        s::PartKind::Map,
        svg,
    )])
}
