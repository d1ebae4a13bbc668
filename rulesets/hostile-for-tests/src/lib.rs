//! Rulesets that misbehave on purpose, one misbehaviour per cargo feature, so the host's tests
//! can check that a bad component fails only its own call. Never shipped.
//!
//! Without features this is a tiny well-behaved game: two seats take turns naming a number from
//! 0 to 9 for three turns each; the higher total wins. The misbehaviours trigger on the number 7
//! (or, for `huge-output`, on every `view`), so a test can run the same game up to the bad call.
//!
//! A game's map text may also name one export to misbehave in: `misbehave-in = "render"` (or
//! `create`, `restore`, `pending`, `view`). `create` misbehaves at once; the others once the
//! game is armed, that is once someone has named the number [`ARM`], so a test can start the
//! game, take its recovery point and arm it before the bad call.

mod game;
mod misbehave;
mod target;

pub use game::HostileGame;
pub use target::{ARM, TRIGGER, Target};

/// The ruleset type.
pub struct Hostile;

/// The contract version written into the component: the real one, or one from the future.
#[cfg(all(target_arch = "wasm32", not(feature = "future-contract")))]
const EMBEDDED_VERSION: &[u8; sdk::CONTRACT_VERSION.len()] = {
    let bytes = sdk::CONTRACT_VERSION.as_bytes();
    let mut out = [0u8; sdk::CONTRACT_VERSION.len()];
    let mut i = 0;
    while i < bytes.len() {
        out[i] = bytes[i];
        i += 1;
    }
    &{ out }
};
#[cfg(all(target_arch = "wasm32", feature = "future-contract"))]
const EMBEDDED_VERSION: &[u8; 5] = b"9.0.0";

// `register_ruleset!` always writes the SDK's own version, so this crate registers by hand to be
// able to lie about it.
#[cfg(target_arch = "wasm32")]
#[used]
#[unsafe(link_section = "tenka-contract")]
static CONTRACT_VERSION_SECTION: [u8; EMBEDDED_VERSION.len()] = *EMBEDDED_VERSION;

/// Hands the ruleset to the SDK's export glue, as `register_ruleset!` would.
#[cfg(target_arch = "wasm32")]
#[unsafe(no_mangle)]
fn __tenka_registered_ruleset() -> &'static dyn sdk::native::DynRuleset {
    static RULESET: std::sync::OnceLock<Box<dyn sdk::native::DynRuleset>> =
        std::sync::OnceLock::new();
    RULESET.get_or_init(sdk::native::adapt::<Hostile>).as_ref()
}
