//! What every ruleset must do, by the SDK's conformance suite (docs/sdk.md, section 7), played at
//! every seat count the ruleset takes and with every variant it ships: catalogues complete in
//! every language, random games that end, snapshots that restore, the same seed the same game,
//! rollout answers the rules take. The same file in every ruleset made from the template.

/// The ruleset under test.
type Tested = goofspiel::Goofspiel;

#[test]
fn goofspiel_conforms() {
    let variants = sdk::variants_folder!();
    sdk::testing::Conformance::every_seat_count_and_variant::<Tested>(variants).run::<Tested>();
}
