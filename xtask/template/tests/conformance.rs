//! What every ruleset must do, by the SDK's conformance suite (docs/sdk.md, section 7), played at
//! every seat count the ruleset takes and with every variant it ships: catalogues complete in
//! every language, random games that end, snapshots that restore, the same seed the same game,
//! rollout answers the rules take. The same file in every ruleset made from the template.

use sdk::{OptionValue, Ruleset as _};

/// The ruleset under test.
type Tested = template_ruleset::TemplateRuleset;

/// The ruleset's variant files.
const VARIANTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../maps/",
    env!("CARGO_PKG_NAME"),
    "/variants"
);

/// Each variant file's options, read against the schema (a variant that does not fit fails).
fn variants() -> Vec<Vec<(String, OptionValue)>> {
    let schema = Tested::info().options;
    let mut variants = Vec::new();
    for entry in std::fs::read_dir(VARIANTS).expect("the variants folder") {
        let path = entry.expect("a variant file").path();
        let text = std::fs::read_to_string(&path).expect("a variant file reads");
        let file: toml::Table = text.parse().expect("a variant file is TOML");
        let options = file.get("options").and_then(|o| o.as_table());
        let options = options.into_iter().flatten().map(|(name, value)| {
            let spec = schema.iter().find(|spec| &spec.name == name);
            let spec = spec.unwrap_or_else(|| panic!("{path:?}: no option `{name}`"));
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            let value = spec
                .parse(&text)
                .unwrap_or_else(|e| panic!("{path:?}: {e}"));
            (name.clone(), value)
        });
        variants.push(options.collect());
    }
    variants
}

#[test]
fn template_ruleset_conforms() {
    let info = Tested::info();
    let mut suite = sdk::testing::Conformance::new().variants(VARIANTS);
    for seats in info.min_seats..=info.max_seats {
        suite = suite.setup(seats, "", &[]);
    }
    for options in variants() {
        let options: Vec<(&str, OptionValue)> = options
            .iter()
            .map(|(name, value)| (name.as_str(), value.clone()))
            .collect();
        suite = suite.setup(info.min_seats, "", &options);
    }
    suite.run::<Tested>();
}
