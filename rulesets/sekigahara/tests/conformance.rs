//! What every ruleset must do, by the SDK's conformance suite: catalogues complete for every key
//! the game emits (asked of the games' own events, decisions, boards and results), random games
//! that end, snapshots that restore, the same seed the same game, rollout answers the rules take,
//! every variant named and described, and a blank map the editor can start from.

use sdk::OptionValue;
use sdk::testing::Conformance;

const SHIPPED: &str = include_str!("../../../maps/sekigahara/japan-1600.toml");
const SMALL: &str = include_str!("maps/small.toml");

#[test]
fn sekigahara_conforms() {
    Conformance::new()
        .setup(2, SHIPPED, &[])
        .setup(
            2,
            SMALL,
            &[("retreat", OptionValue::Choice("eliminated".into()))],
        )
        .variants(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../maps/sekigahara/variants"
        ))
        .run::<sekigahara::Sekigahara>();
}
