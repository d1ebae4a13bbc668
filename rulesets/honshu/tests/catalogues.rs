//! Every plural of every catalogue renders whole for any count (the SDK's conformance suite
//! checks the rest: `tests/conformance.rs`).

use honshu::Honshu;
use sdk::{Catalogue, Ruleset};

#[test]
fn plurals_render_in_the_language_of_the_catalogue() {
    for language in Honshu::info().languages {
        let catalogue = Catalogue::from_toml(Honshu::catalogue(&language).unwrap())
            .unwrap()
            .with_language(language.as_str());
        let mut plurals = 0;
        for (key, template) in catalogue.pairs() {
            let counted: Vec<String> = sdk::plural::plurals(template)
                .unwrap()
                .into_iter()
                .map(|(arg, _)| arg)
                .collect();
            plurals += counted.len();
            if counted.is_empty() {
                continue;
            }
            for n in [0, 1, 2, 5, 21, 101] {
                let mut message = sdk::Message::new(key);
                for name in sdk::plural::placeholders(template) {
                    message = if counted.contains(&name) {
                        message.number(&name, n)
                    } else {
                        message.text(&name, "x")
                    };
                }
                let text = catalogue.render(&message, &|seat| format!("P{seat}"));
                assert!(
                    !text.contains('{') && !text.contains('#'),
                    "{language}: `{key}` with {n}: {text}"
                );
            }
        }
        assert!(plurals > 0, "{language}: no plural");
    }
}
