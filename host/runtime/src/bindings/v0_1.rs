//! Contract 0.1.0, adapted: components built for it keep loading and their stored games keep
//! replaying. What 0.1.0 lacks gets the value that promises least:
//! - a choice has no detail;
//! - every decision counts as private (a shared device is handed over before each, as 0.1.0
//!   clients did);
//! - events name no drops (clients show a call's drops after its events) and carry no summary;
//! - the board is one part, the map, holding the whole SVG document;
//! - a preview says nothing, once the host has checked the draft's shape;
//! - as for 0.2.0, no decision offers a way back and the game gives no estimate.

older_contract!("../../sdk/wit/since_v0.1.0");

contract_glue!(since "0.1.0");

/// The contract version this module adapts.
pub(crate) const CONTRACT: &str = "0.1.0";

/// The id of the single part a 0.1.0 component's board becomes.
pub(crate) const BOARD_PART_ID: &str = "board";

fn choice_from_wit(c: ex::Choice) -> s::Choice {
    s::Choice::new(c.id, message_from_wit(c.label))
}

fn pending_from_wit(p: ex::PendingDecision) -> s::PendingDecision {
    super::decision_without_way_back(
        p.seat,
        message_from_wit(p.prompt),
        decision_kind_from_wit(p.kind),
        true,
    )
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

/// The whole SVG document becomes the board's one part, the map.
fn board_from_wit(svg: String) -> Vec<s::BoardPart> {
    vec![s::BoardPart::new(BOARD_PART_ID, s::PartKind::Map, svg)]
}
