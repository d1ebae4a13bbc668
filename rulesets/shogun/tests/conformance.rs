//! What every ruleset must do, by the SDK's conformance suite: catalogues complete for every key
//! the game emits, random games that end, snapshots that restore, the same seed the same game,
//! rollout answers the rules take, every variant named and described, and a blank map the editor can start from.

use sdk::OptionValue;
use sdk::testing::Conformance;
use shogun::data::{MOON_MAP, SUN_MAP};

#[test]
fn shogun_conforms() {
    Conformance::new()
        .setup(3, SUN_MAP, &[("years", OptionValue::Integer(1))])
        .setup(
            4,
            MOON_MAP,
            &[("setup", OptionValue::Choice("beginner".into()))],
        )
        .setup(5, SUN_MAP, &[])
        .seeds(1)
        .variants(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../maps/shogun/variants"
        ))
        .run::<shogun::Shogun>();
}
