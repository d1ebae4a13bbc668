//! Contract 0.3.0, adapted: components built for it keep loading and their stored games keep
//! replaying. What 0.3.0 lacks gets the value that promises least:
//! - the ruleset describes no map editor schema (its maps are edited as text);
//! - the ruleset gives no quick answer for playouts.
//!
//! Everything else maps one-to-one to the SDK's types.

older_contract!("../../sdk/wit/since_v0.3.0");

contract_glue!(since "0.3.0");

/// The contract version this module binds.
pub(crate) const CONTRACT: &str = "0.3.0";
