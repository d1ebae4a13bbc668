//! Texts a review found misleading (issue 22, item 6), each read as a player reads it, in whole
//! random games: what they say must be what happens.

use sdk::testing::SeededTable;
use sdk::{
    Catalogue, DecisionKind, Event, Game, Message, MessageArg, Options, Ruleset, Setup,
    random_action,
};
use shogun::state::Phase;
use shogun::{Shogun, ShogunGame};

fn number(message: &Message, name: &str) -> Option<i64> {
    message.args.iter().find_map(|(n, v)| match v {
        MessageArg::Number(x) if n == name => Some(*x),
        _ => None,
    })
}

fn catalogue(language: &str) -> Catalogue {
    Catalogue::from_toml(Shogun::catalogue(language).unwrap())
        .unwrap()
        .with_language(language)
}

fn read(language: &str, message: &Message) -> String {
    catalogue(language).render(message, &|seat| format!("Bot {}", seat + 1))
}

/// Plays a random 4-seat game, calling `look` before each answer and `told` with its events.
fn play(seed: u8, mut look: impl FnMut(&ShogunGame), mut told: impl FnMut(&ShogunGame, &[Event])) {
    let mut table = SeededTable::new([seed; 32]);
    let options = Options::resolve(&Shogun::info().options, &[]).unwrap();
    let setup = Setup {
        map: shogun::data::SUN_MAP.into(),
        options: Vec::new(),
        seats: 4,
    };
    let mut game = Shogun::create(&setup, &options, &mut table).unwrap();
    while let Some(decision) = game.pending().first().cloned() {
        look(&game);
        let action = random_action(&decision.kind, &mut table);
        let events = game.apply(decision.seat, &action, &mut table).unwrap();
        told(&game, &events);
    }
}

/// "Turn order position 4" on the fourth of five spaces, with four players: the seat then acted
/// third. A space's number is not a position; the choice says how many lower spaces are taken.
#[test]
fn regression_a_special_space_was_called_a_turn_order_position() {
    let mut seen = 0;
    play(
        31,
        |game| {
            if !matches!(game.state.phase, Phase::Specials { .. }) {
                return;
            }
            for decision in game.pending() {
                let DecisionKind::Choose(choose) = &decision.kind else {
                    panic!("special cards are chosen")
                };
                for choice in &choose.choices {
                    let detail = choice.detail.as_ref().expect("a detail");
                    let space = number(detail, "space").unwrap() as usize;
                    let before = game.state.special_holder[..space - 1]
                        .iter()
                        .filter(|h| h.is_some())
                        .count() as i64;
                    assert_eq!(number(detail, "before"), Some(before));
                    let text = read("en", detail);
                    assert!(!text.contains("position"), "{text}");
                    seen += 1;
                }
            }
        },
        |_, _| {},
    );
    assert!(seen > 20);
}

/// "The next action card is Deploy 3 armies" after action 1, while the next one carried out was
/// the Temple: it meant that card 6 is turned face up.
#[test]
fn regression_a_card_turned_face_up_was_called_the_next_action() {
    let mut seen = 0;
    play(
        32,
        |_| {},
        |game, events| {
            for event in events
                .iter()
                .filter(|e| e.text.key == "log.action-revealed")
            {
                let position = number(&event.text, "position").expect("a position") as usize;
                assert!((6..=10).contains(&position), "{position}");
                let card =
                    &game.state.board.cards().actions[game.state.action_layout[position - 1]];
                assert!(
                    event
                        .text
                        .args
                        .iter()
                        .any(|(n, a)| n == "action" && *a == MessageArg::Key(card.name.clone())),
                    "card {position} is {}: {:?}",
                    card.name,
                    event.text
                );
                assert!(game.state.actions_revealed >= position);
                assert!(!read("en", &event.text).contains("next"));
                seen += 1;
            }
        },
    );
    assert!(seen >= 10, "{seen} cards turned");
}

/// "Bot 3 (search): 1 army defend" and "1 Bauer verteidigen".
#[test]
fn regression_one_army_defend() {
    let player = Message::new("choice.detail-attack-player")
        .seat("owner", 2)
        .number("armies", 1);
    let neutral = Message::new("choice.detail-attack-neutral").number("farmers", 1);
    assert_eq!(read("en", &player), "Attack Bot 3: 1 army defends");
    assert_eq!(read("en", &neutral), "Attack neutral: 1 farmer defends");
    let three = Message::new("choice.detail-attack-player")
        .seat("owner", 2)
        .number("armies", 3);
    assert_eq!(read("en", &three), "Attack Bot 3: 3 armies defend");
    assert!(read("de", &neutral).ends_with("1 Bauer verteidigt"));
    assert!(read("es", &player).ends_with("defiende 1 ejército"));
}

/// "Armies 36" was the supply, not the armies on the board, and "Tower: 1 · tray: 0" said not
/// what the numbers count.
#[test]
fn regression_the_seat_panel_called_the_supply_armies() {
    for language in ["en", "es", "de", "ro"] {
        let catalogue = catalogue(language);
        let supply = catalogue.get("render.supply").unwrap();
        let armies = catalogue.get("summary.armies").unwrap();
        assert_ne!(supply, armies, "{language}");
        let tray = catalogue.get("render.tower-tray").unwrap();
        assert!(
            tray.split("{tower}").next().unwrap().chars().count() > 12,
            "{language}: `{tray}` does not say what the tower figure counts"
        );
    }
    assert_eq!(
        catalogue("en").get("render.supply"),
        Some("Armies in supply")
    );
}
