//! Texts a review found missing or unclear in Honshu (issue 22, items 6 and 8): when only one of
//! over and under is offered the prompt says why, cards are named by what they show, and the
//! tie-break is named in every language.

use honshu::Honshu;
use honshu::engine::placement_problem;
use honshu::state::Layer;
use sdk::testing::SeededTable;
use sdk::{Catalogue, DecisionKind, Game, MessageArg, Ruleset, random_action};

fn key_arg(message: &sdk::Message, name: &str) -> Option<String> {
    message.args.iter().find_map(|(n, a)| match a {
        MessageArg::Key(key) if n == name => Some(key.clone()),
        _ => None,
    })
}

#[test]
fn regression_only_one_of_over_and_under_was_offered_without_a_reason() {
    let mut one_way = 0;
    let mut cards = 0;
    for seed in 1..=4u8 {
        let mut table = SeededTable::new([seed; 32]);
        let mut game = sdk::testing::new_game::<Honshu>(3, "", &[], &mut table);
        while let Some(decision) = game.pending().first().cloned() {
            let DecisionKind::Choose(choose) = &decision.kind else {
                panic!("Honshu asks only choose decisions")
            };
            for choice in choose.choices.iter().filter(|c| c.id.starts_with("card:")) {
                let detail = choice.detail.as_ref().expect("a card says what it shows");
                assert_eq!(detail.key, "detail.card");
                let squares: i64 = detail
                    .args
                    .iter()
                    .map(|(_, a)| match a {
                        MessageArg::Number(n) => *n,
                        _ => 0,
                    })
                    .sum();
                assert_eq!(squares, 6, "six squares: {detail:?}");
                cards += 1;
            }
            let layers: Vec<&str> = choose
                .choices
                .iter()
                .map(|c| c.id.as_str())
                .filter(|id| *id == "over" || *id == "under")
                .collect();
            match layers[..] {
                [] => {}
                [allowed] => {
                    one_way += 1;
                    assert_eq!(decision.prompt.key, "prompt.confirm-one");
                    assert_eq!(
                        key_arg(&decision.prompt, "layer").as_deref(),
                        Some(if allowed == "over" {
                            "layer.over"
                        } else {
                            "layer.under"
                        })
                    );
                    let player = &game.state.players[decision.seat as usize];
                    let card = player.to_place.unwrap();
                    let other = if allowed == "over" {
                        Layer::Under
                    } else {
                        Layer::Over
                    };
                    let problem = placement_problem(
                        &player.map,
                        game.state.deck.card(card),
                        player.draft.origin.unwrap(),
                        player.draft.rotation.unwrap(),
                        other,
                    )
                    .expect("the other layer breaks a rule");
                    assert_eq!(
                        key_arg(&decision.prompt, "reason"),
                        Some(format!("illegal.{problem}"))
                    );
                }
                _ => assert_eq!(decision.prompt.key, "prompt.confirm"),
            }
            let action = random_action(&decision.kind, &mut table);
            game.apply(decision.seat, &action, &mut table).unwrap();
        }
    }
    assert!(
        one_way > 0 && cards > 0,
        "{one_way} one-way steps, {cards} cards"
    );
}

#[test]
fn regression_the_tie_break_column_was_not_named() {
    for language in Honshu::info().languages {
        let catalogue = Catalogue::from_toml(Honshu::catalogue(&language).unwrap()).unwrap();
        let name = catalogue
            .get("result.tie-breaks")
            .unwrap_or_else(|| panic!("{language}: the tie-break column has no name"));
        assert!(name.chars().count() > 10, "{language}: {name}");
    }
    let english = Catalogue::from_toml(Honshu::catalogue("en").unwrap()).unwrap();
    assert!(
        english
            .get("result.tie-breaks")
            .unwrap()
            .starts_with("Visible fallow squares")
    );
}
