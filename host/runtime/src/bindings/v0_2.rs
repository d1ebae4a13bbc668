//! Contract 0.2.0, adapted: components built for it keep loading and their stored games keep
//! replaying. What 0.2.0 lacks gets the value that promises least:
//! - no decision offers a way back (the host refuses the action `back` before calling);
//! - the game gives no estimate of a position (`evaluate` is none);
//! - as for 0.3.0, no map editor schema and no quick answers for playouts.
//!
//! Everything else maps one-to-one to the SDK's types.

older_contract!("../../sdk/wit/since_v0.2.0");

contract_glue!(since "0.2.0");

/// The contract version this module binds.
pub(crate) const CONTRACT: &str = "0.2.0";

fn pending_from_wit(p: ex::PendingDecision) -> s::PendingDecision {
    super::decision_without_way_back(
        p.seat,
        message_from_wit(p.prompt),
        decision_kind_from_wit(p.kind),
        p.private,
    )
}

/// 0.2.0 has no action `back`.
fn back_to_wit() -> Option<ex::Action> {
    None
}
