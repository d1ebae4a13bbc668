//! What every ruleset must do, by the SDK's conformance suite: catalogues complete for every key
//! the game emits, random games that end, snapshots that restore, the same seed the same game,
//! rollout answers the rules take, every variant named and described, and a blank deck the editor can start from.

use sdk::OptionValue;
use sdk::testing::Conformance;

#[test]
fn honshu_conforms() {
    let choice = |value: &str| OptionValue::Choice(value.into());
    Conformance::new()
        .setup(2, "", &[("scoring-card", choice("random"))])
        .setup(3, "", &[("province-side", choice("b"))])
        .setup(5, "", &[])
        .variants(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../maps/honshu/variants"
        ))
        .run::<honshu::Honshu>();
}
