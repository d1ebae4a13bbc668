//! Presentation tests: the SVG board is a well-formed, self-contained document; its texts are
//! catalogue keys with their arguments; it offers the viewer's decision on the board itself; it
//! never shows a secret to someone who may not know it; and every language's catalogue has the
//! same keys and placeholders as the English one.

use std::collections::{BTreeMap, BTreeSet};

use sdk::testing::{ScriptedTable, SeededTable};
use sdk::{
    Action, DecisionKind, Game, Message, MessageArg, OptionSetting, OptionValue, Options,
    PendingDecision, Ruleset, Setup, Table, Viewer, random_action,
};
use shogun::data::SUN_MAP;
use shogun::render::shapes::within;
use shogun::state::Phase;
use shogun::{Shogun, ShogunGame};

mod common;

// ---------------------------------------------------------------------------------------------
// Helpers

/// The whole board as one document (every part stacked), for tests about what it shows.
trait WholeBoard {
    fn board(&self, viewer: Viewer) -> String;
}

impl WholeBoard for ShogunGame {
    fn board(&self, viewer: Viewer) -> String {
        shogun::render::render(&self.state, viewer)
    }
}

fn setup(seats: u32) -> Setup {
    Setup {
        map: SUN_MAP.into(),
        options: Vec::new(),
        seats,
    }
}

fn default_options() -> Options {
    Options::resolve(&Shogun::info().options, &[]).expect("the default options resolve")
}

fn seeded(seed: u8) -> SeededTable {
    SeededTable::new([seed; 32])
}

/// A new sun-side game with the claiming draft.
fn new_game(seats: u32, table: &mut dyn Table) -> ShogunGame {
    Shogun::create(&setup(seats), &default_options(), table).expect("a valid setup")
}

/// Plays random legal answers until `stop` holds (or the game ends); false if it never held.
fn play_until(
    game: &mut ShogunGame,
    table: &mut SeededTable,
    stop: impl Fn(&ShogunGame) -> bool,
) -> bool {
    for _ in 0..5000 {
        if stop(game) {
            return true;
        }
        let pending = game.pending();
        let Some(decision) = pending.first() else {
            return false;
        };
        let action = random_action(&decision.kind, table);
        game.apply(decision.seat, &action, table)
            .expect("a random legal answer is accepted");
    }
    false
}

fn in_planning(game: &ShogunGame) -> bool {
    game.state.phase == Phase::Planning && game.state.plans.iter().all(Option::is_none)
}

/// A 4-seat game at the start of its first planning.
fn planning_game(seed: u8) -> (ShogunGame, SeededTable) {
    let mut table = seeded(seed);
    let mut game = new_game(4, &mut table);
    assert!(
        play_until(&mut game, &mut table, in_planning),
        "the draft leads to planning"
    );
    (game, table)
}

fn position_game(seats: u32, name: &str) -> (ShogunGame, ScriptedTable) {
    let path = format!("{}/tests/positions/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut table = ScriptedTable::new(7);
    let game = Shogun::create_from_position(&setup(seats), &default_options(), &text, &mut table)
        .unwrap_or_else(|e| panic!("position refused: {e}"));
    (game, table)
}

fn decision_of(game: &ShogunGame, seat: u32) -> PendingDecision {
    game.pending()
        .into_iter()
        .find(|d| d.seat == seat)
        .unwrap_or_else(|| panic!("seat {seat} is not pending"))
}

/// The English catalogue, flattened to key -> template.
fn catalogue(language: &str) -> BTreeMap<String, String> {
    let text = Shogun::catalogue(language).unwrap_or_else(|| panic!("no `{language}` catalogue"));
    let catalogue =
        sdk::Catalogue::from_toml(text).unwrap_or_else(|e| panic!("`{language}` catalogue: {e}"));
    catalogue
        .pairs()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The `{name}` placeholders of a template, plurals included.
fn placeholders(template: &str) -> BTreeSet<String> {
    sdk::plural::placeholders(template)
}

/// Values of an attribute over all elements of a document.
fn attribute_values(svg: &str, name: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the render is XML");
    doc.descendants()
        .filter_map(|n| n.attribute(name).map(str::to_string))
        .collect()
}

/// Checks what every render must be: XML with an SVG root and a viewBox, nothing loaded from
/// outside, no script, and every text a known key with the arguments its template names.
fn check_document(svg: &str, english: &BTreeMap<String, String>, context: &str) {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{context}: not XML: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{context}");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg"),
        "{context}"
    );
    assert!(root.attribute("viewBox").is_some(), "{context}: no viewBox");
    for node in doc.descendants().filter(|n| n.is_element()) {
        assert_ne!(node.tag_name().name(), "script", "{context}: a script");
        assert_ne!(node.tag_name().name(), "image", "{context}: an image");
        for attr in node.attributes() {
            let value = attr.value();
            assert!(
                !value.contains("http:") && !value.contains("https:") || attr.name() == "xmlns",
                "{context}: `{value}`"
            );
            if value.contains("url(") {
                assert!(
                    value.contains("url(#"),
                    "{context}: an external url in `{value}`"
                );
            }
        }
        if let Some(key) = node.attribute("data-msg") {
            let template = english
                .get(key)
                .unwrap_or_else(|| panic!("{context}: `{key}` is not in en.toml"));
            let raw = node
                .attribute("data-args")
                .unwrap_or_else(|| panic!("{context}: `{key}` has no data-args"));
            let args: serde_json::Value = serde_json::from_str(raw)
                .unwrap_or_else(|e| panic!("{context}: data-args `{raw}`: {e}"));
            let args = args
                .as_object()
                .unwrap_or_else(|| panic!("{context}: data-args `{raw}` is not an object"));
            for name in placeholders(template) {
                let arg = args
                    .get(&name)
                    .unwrap_or_else(|| panic!("{context}: `{key}` lacks `{name}` in {raw}"));
                match arg {
                    serde_json::Value::Number(_) | serde_json::Value::String(_) => {}
                    serde_json::Value::Object(object) => {
                        if let Some(seat) = object.get("seat") {
                            assert!(seat.is_u64(), "{context}: {raw}");
                        } else {
                            let nested = object
                                .get("key")
                                .and_then(|k| k.as_str())
                                .unwrap_or_else(|| panic!("{context}: {raw}"));
                            assert!(
                                english.contains_key(nested),
                                "{context}: nested key `{nested}` is not in en.toml"
                            );
                        }
                    }
                    other => panic!("{context}: argument `{name}` of `{key}` is {other}"),
                }
            }
            assert!(
                node.text().is_some_and(|t| !t.is_empty()),
                "{context}: `{key}` has no fallback text"
            );
        }
    }
}

fn viewers(seats: u32) -> Vec<Viewer> {
    let mut all: Vec<Viewer> = (0..seats).map(Viewer::Seat).collect();
    all.push(Viewer::Spectator);
    all
}

// ---------------------------------------------------------------------------------------------
// Documents

#[test]
fn every_render_of_a_whole_game_is_a_self_contained_translatable_svg() {
    let english = catalogue("en");
    for (seats, seed) in [(3, 11), (4, 12), (5, 13)] {
        let mut table = seeded(seed);
        let mut game = new_game(seats, &mut table);
        let mut steps = 0;
        let mut phases = BTreeSet::new();
        loop {
            // Every few steps, and at every new phase kind, render for everyone.
            let phase = format!("{:?}", game.state.phase)
                .split([' ', '{'])
                .next()
                .unwrap_or("")
                .to_string();
            if phases.insert(phase.clone()) || steps % 25 == 0 {
                for viewer in viewers(seats) {
                    check_document(
                        &game.board(viewer),
                        &english,
                        &format!("{seats} seats, step {steps}, {phase}, {viewer:?}"),
                    );
                }
            }
            let pending = game.pending();
            let Some(decision) = pending.first() else {
                break;
            };
            let action = random_action(&decision.kind, &mut table);
            game.apply(decision.seat, &action, &mut table)
                .expect("a random legal answer is accepted");
            steps += 1;
        }
        assert!(game.state.is_over(), "the random game ends");
        // The finished board lists every seat's placing.
        let placings = attribute_values(&game.board(Viewer::Spectator), "data-msg")
            .into_iter()
            .filter(|k| k == "render.placing")
            .count();
        assert_eq!(
            placings, seats as usize,
            "{seats} seats: one placing line per seat"
        );
        for phase in ["Draft", "Planning", "Specials", "Actions", "Winter", "Over"] {
            assert!(
                phases.contains(phase),
                "{seats} seats: no render in phase {phase} ({phases:?})"
            );
        }
    }
}

#[test]
fn provinces_are_grouped_under_their_ids_and_owners_carry_seat_classes_and_symbols() {
    let (game, _table) = planning_game(3);
    let svg = game.board(Viewer::Spectator);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    for (p, info) in game.state.board.provinces.iter().enumerate() {
        let id = format!("province-{}", info.id);
        let group = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id.as_str()))
            .unwrap_or_else(|| panic!("no #{id}"));
        let names: Vec<&str> = group
            .descendants()
            .filter_map(|n| n.attribute("data-msg"))
            .collect();
        assert!(
            names.contains(&format!("province.{}", info.id).as_str()),
            "#{id} is not labelled with its name"
        );
        if let Some(owner) = game.state.provinces[p].owner {
            let classes: Vec<&str> = group
                .descendants()
                .filter_map(|n| n.attribute("class"))
                .collect();
            assert!(
                classes.contains(&format!("seat-stroke-{owner}").as_str()),
                "#{id}: no owner ring"
            );
            // The owner's symbol (a fill in the seat's class) beside the armies.
            assert!(
                classes.contains(&format!("seat-{owner}").as_str()),
                "#{id}: no owner symbol"
            );
            let armies = game.state.provinces[p].armies.to_string();
            assert!(
                group
                    .descendants()
                    .any(|n| n.text() == Some(armies.as_str())),
                "#{id}: armies not shown"
            );
        }
    }
    // The document styles the seat classes itself, so it looks right outside the web client.
    let style = doc
        .descendants()
        .find(|n| n.has_tag_name("style"))
        .and_then(|n| n.text())
        .unwrap_or("");
    for seat in 0..5 {
        assert!(
            style.contains(&format!(".seat-{seat}{{fill:")),
            "no default colour for seat {seat}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The viewer's decisions on the board

/// The distinct values of `data-<name>`, as numbers, with how often each appears.
fn indices(svg: &str, name: &str) -> BTreeMap<u32, usize> {
    let mut counts = BTreeMap::new();
    for value in attribute_values(svg, name) {
        *counts
            .entry(
                value
                    .parse::<u32>()
                    .unwrap_or_else(|_| panic!("{name}=`{value}`")),
            )
            .or_insert(0) += 1;
    }
    counts
}

#[test]
fn planning_draws_one_item_per_card_in_hand_and_one_slot_per_space() {
    let (game, _table) = planning_game(5);
    for seat in 0..4 {
        let DecisionKind::Assign(assign) = decision_of(&game, seat).kind else {
            panic!("planning is an assign decision")
        };
        let svg = game.board(Viewer::Seat(seat));
        let items = indices(&svg, "data-item");
        let slots = indices(&svg, "data-slot");
        assert_eq!(
            items.keys().copied().collect::<Vec<_>>(),
            (0..assign.items.len() as u32).collect::<Vec<_>>()
        );
        assert_eq!(
            slots.keys().copied().collect::<Vec<_>>(),
            (0..assign.slots.len() as u32).collect::<Vec<_>>()
        );
        assert!(
            items.values().all(|&n| n == 1) && slots.values().all(|&n| n == 1),
            "each item and slot is drawn once"
        );
        assert!(
            indices(&svg, "data-choice").is_empty(),
            "planning offers no choice"
        );
    }
    let spectator = game.board(Viewer::Spectator);
    assert!(
        indices(&spectator, "data-item").is_empty() && indices(&spectator, "data-slot").is_empty()
    );
}

#[test]
fn the_slot_of_each_space_is_the_space_the_decision_names() {
    let (game, _table) = planning_game(6);
    let DecisionKind::Assign(assign) = decision_of(&game, 0).kind else {
        panic!("assign")
    };
    let svg = game.board(Viewer::Seat(0));
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    for (index, slot) in assign.slots.iter().enumerate() {
        let node = doc
            .descendants()
            .find(|n| n.attribute("data-slot") == Some(index.to_string().as_str()))
            .unwrap_or_else(|| panic!("no slot {index}"));
        let labels: Vec<&str> = node
            .descendants()
            .filter_map(|n| n.attribute("data-msg"))
            .collect();
        // The board shows each space's short label (it must fit a card in every language).
        let short = match slot.label.key.as_str() {
            "slot.bid" => "slot.bid-short".to_string(),
            key => shogun::render::short_label(key).key,
        };
        assert!(
            labels.contains(&short.as_str()),
            "slot {index} should be labelled {short}: {labels:?}"
        );
    }
    for (index, item) in assign.items.iter().enumerate() {
        let node = doc
            .descendants()
            .find(|n| n.attribute("data-item") == Some(index.to_string().as_str()))
            .unwrap_or_else(|| panic!("no item {index}"));
        if item.id.starts_with("province:") {
            let labels: Vec<&str> = node
                .descendants()
                .filter_map(|n| n.attribute("data-msg"))
                .collect();
            assert!(
                labels.contains(&item.label.key.as_str()),
                "item {index} should show {}",
                item.label.key
            );
        }
    }
}

#[test]
fn target_province_choices_are_the_provinces_on_the_map() {
    let (game, _table) = position_game(4, "battle_farmers_defend");
    let DecisionKind::Choose(choose) = decision_of(&game, 0).kind else {
        panic!("a target is a choose decision")
    };
    assert!(!choose.choices.is_empty());
    let svg = game.board(Viewer::Seat(0));
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    for (index, choice) in choose.choices.iter().enumerate() {
        let province = choice
            .id
            .strip_prefix("province:")
            .unwrap_or_else(|| panic!("`{}` is a province", choice.id));
        let group = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(format!("province-{province}").as_str()))
            .unwrap_or_else(|| panic!("no province group for {province}"));
        assert_eq!(
            group.attribute("data-choice"),
            Some(index.to_string().as_str()),
            "{province}"
        );
    }
    assert_eq!(
        indices(&svg, "data-choice").len(),
        choose.choices.len(),
        "only the targets are choices"
    );
    // Nobody else is asked: their boards offer nothing.
    for viewer in [Viewer::Seat(1), Viewer::Spectator] {
        assert!(
            indices(&game.board(viewer), "data-choice").is_empty(),
            "{viewer:?}"
        );
    }
}

#[test]
fn a_move_is_chosen_or_declined_on_the_board() {
    let (game, _table) = position_game(3, "deploy_move");
    let DecisionKind::Choose(choose) = decision_of(&game, 0).kind else {
        panic!("choose")
    };
    let svg = game.board(Viewer::Seat(0));
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    for (index, choice) in choose.choices.iter().enumerate() {
        let element = match choice.id.strip_prefix("province:") {
            Some(province) => format!("province-{province}"),
            None => choice.id.clone(),
        };
        let node = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(element.as_str()))
            .unwrap_or_else(|| panic!("no element for `{}`", choice.id));
        assert_eq!(
            node.attribute("data-choice"),
            Some(index.to_string().as_str()),
            "{}",
            choice.id
        );
    }
    // The declining button is labelled with the choice's own key.
    let button = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("no-move"))
        .expect("a no-move button");
    assert!(
        button
            .descendants()
            .any(|n| n.attribute("data-msg") == Some("choice.no-move"))
    );
}

#[test]
fn special_cards_and_draft_picks_are_chosen_on_the_board() {
    // The special cards, from a planning where every bid is in.
    let (game, _table) = position_game(4, "bids");
    let decision = decision_of(&game, game.state.bid_order[0]);
    let DecisionKind::Choose(choose) = &decision.kind else {
        panic!("choose")
    };
    let svg = game.board(Viewer::Seat(decision.seat));
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    for (index, choice) in choose.choices.iter().enumerate() {
        let space = choice.id.strip_prefix("space:").expect("a special space");
        let node = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(format!("special-{space}").as_str()))
            .unwrap_or_else(|| panic!("no special space {space}"));
        assert_eq!(
            node.attribute("data-choice"),
            Some(index.to_string().as_str())
        );
    }
    // The draft: every face-up card and the blind draw are on the board.
    let mut table = seeded(9);
    let game = new_game(4, &mut table);
    let decision = game.pending().remove(0);
    let DecisionKind::Choose(choose) = &decision.kind else {
        panic!("choose")
    };
    let svg = game.board(Viewer::Seat(decision.seat));
    assert_eq!(
        indices(&svg, "data-choice").len(),
        choose.choices.len(),
        "every draft choice has a board element"
    );
}

// ---------------------------------------------------------------------------------------------
// Secrets

/// Seat 0's planning answer with `first` on the first action space and `bid` on the bid space.
fn plan_with(game: &ShogunGame, first: &str, bid: &str) -> Action {
    let DecisionKind::Assign(assign) = decision_of(game, 0).kind else {
        panic!("assign")
    };
    let item = |id: &str| {
        assign
            .items
            .iter()
            .position(|i| i.id == id)
            .unwrap_or_else(|| panic!("no item {id}")) as u32
    };
    let bid_slot = assign
        .slots
        .iter()
        .position(|s| s.id == "bid")
        .expect("a bid slot") as u32;
    let mut placements = vec![(0, item(first)), (bid_slot, item(bid))];
    // Fill the other spaces with the remaining cards, as the rules ask.
    let mut free: Vec<u32> = (0..assign.items.len() as u32)
        .filter(|i| *i != item(first) && *i != item(bid))
        .collect();
    for slot in 1..assign.slots.len() as u32 {
        if slot != bid_slot
            && let Some(i) = free.pop()
        {
            placements.push((slot, i));
        }
    }
    Action::Assign(placements)
}

#[test]
fn other_seats_and_spectators_never_see_a_plan_or_a_bid() {
    let (game, mut table) = planning_game(21);
    let provinces = game.state.provinces_of(0);
    assert!(
        provinces.len() >= 2,
        "seat 0 holds provinces after the draft"
    );
    let (a, b) = (
        &game.state.board.provinces[provinces[0]].id,
        &game.state.board.provinces[provinces[1]].id,
    );
    // Two games that differ only in seat 0's secret plan.
    let mut first = game.clone();
    let mut second = game.clone();
    first
        .apply(
            0,
            &plan_with(&game, &format!("province:{a}"), "chest:3"),
            &mut table,
        )
        .expect("plan accepted");
    second
        .apply(
            0,
            &plan_with(&game, &format!("province:{b}"), "chest:1"),
            &mut table,
        )
        .expect("plan accepted");
    assert_ne!(first.state.plans[0], second.state.plans[0]);
    for viewer in [
        Viewer::Seat(1),
        Viewer::Seat(2),
        Viewer::Seat(3),
        Viewer::Spectator,
    ] {
        assert_eq!(
            first.board(viewer),
            second.board(viewer),
            "{viewer:?} can tell the plans apart"
        );
    }
    // Seat 0 sees its own plan: the distinctive card sits on the first space of its board.
    assert_ne!(first.board(Viewer::Seat(0)), second.board(Viewer::Seat(0)));
    let svg = first.board(Viewer::Seat(0));
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let spaces: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("plan-space"))
        .collect();
    let first_space: Vec<&str> = spaces[0]
        .descendants()
        .filter_map(|n| n.attribute("data-msg"))
        .collect();
    assert!(
        first_space.contains(&format!("province.{a}").as_str()),
        "seat 0's own plan is shown: {first_space:?}"
    );
    // The spectator's board shows no planning board at all.
    let spectator = first.board(Viewer::Spectator);
    assert!(!spectator.contains("plan-space"));
}

#[test]
fn bids_show_once_revealed() {
    let (game, _table) = position_game(4, "bids");
    // Every plan was given, so the bids are open and the specials are being chosen.
    assert!(game.state.bids_revealed);
    let svg = game.board(Viewer::Spectator);
    let keys = attribute_values(&svg, "data-msg");
    assert!(
        keys.iter().any(|k| k == "render.bid-province"),
        "the province bid is shown"
    );
    assert_eq!(
        keys.iter().filter(|k| *k == "render.bid-chests").count(),
        3,
        "three chest bids are shown"
    );
}

#[test]
fn face_down_action_cards_do_not_reveal_their_identity() {
    let (game, _table) = planning_game(31);
    let revealed = game.state.actions_revealed;
    assert!(
        revealed < game.state.action_layout.len(),
        "some cards are face down at planning"
    );
    // The same game with two face-down cards swapped renders the same for everyone.
    let mut swapped = game.clone();
    let last = swapped.state.action_layout.len() - 1;
    swapped.state.action_layout.swap(revealed, last);
    let mut rotated = game.clone();
    rotated.state.action_layout[revealed..].rotate_left(1);
    for viewer in viewers(4) {
        assert_eq!(game.board(viewer), swapped.board(viewer), "{viewer:?}");
        assert_eq!(game.board(viewer), rotated.board(viewer), "{viewer:?}");
    }
    // The face-up cards are named in the row, in their order; face-down ones are not named.
    let svg = game.board(Viewer::Spectator);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let cards = game.state.board.cards();
    for (position, &action) in game.state.action_layout.iter().enumerate() {
        let id = format!("action-row-{}", position + 1);
        let node = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id.as_str()))
            .unwrap_or_else(|| panic!("no {id}"));
        let keys: Vec<&str> = node
            .descendants()
            .filter_map(|n| n.attribute("data-msg"))
            .collect();
        if position < revealed {
            let short = shogun::render::short_label(&cards.actions[action].name).key;
            assert_eq!(keys, vec![short.as_str()], "{id}");
        } else {
            assert_eq!(keys, vec!["render.face-down"], "{id}");
        }
    }
}

#[test]
fn placements_on_played_action_cards_become_public() {
    let (game, _table) = position_game(4, "battle_farmers_defend");
    // Battle/Move A is being played; seat 0 put Kai on it.
    let svg = game.board(Viewer::Spectator);
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    let node = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("action-row-1"))
        .expect("the first action card");
    let keys: Vec<&str> = node
        .descendants()
        .filter_map(|n| n.attribute("data-msg"))
        .collect();
    assert!(keys.contains(&"province.kai"), "{keys:?}");
    // A card not yet played keeps its placements secret.
    let later = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("action-row-3"))
        .expect("the third action card");
    assert!(!later.descendants().any(|n| {
        n.attribute("data-msg")
            .is_some_and(|k| k.starts_with("province."))
    }));
}

// ---------------------------------------------------------------------------------------------
// Catalogues

#[test]
fn every_language_has_every_english_key_with_the_same_placeholders() {
    let english = catalogue("en");
    assert!(english.len() > 100);
    for language in ["es", "de", "ro"] {
        assert!(
            Shogun::info().languages.iter().any(|l| l == language),
            "{language} is listed"
        );
        let translated = catalogue(language);
        let missing: Vec<&String> = english
            .keys()
            .filter(|k| !translated.contains_key(*k))
            .collect();
        assert!(missing.is_empty(), "{language} lacks {missing:?}");
        let extra: Vec<&String> = translated
            .keys()
            .filter(|k| !english.contains_key(*k))
            .collect();
        assert!(
            extra.is_empty(),
            "{language} has keys English does not: {extra:?}"
        );
        for (key, template) in &english {
            assert_eq!(
                placeholders(&translated[key]),
                placeholders(template),
                "{language}: `{key}`"
            );
            assert!(
                !translated[key].trim().is_empty(),
                "{language}: `{key}` is empty"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Authored maps

/// An authored map whose provinces and regions are not on the printed board.
const FIVE_ISLES: &str = include_str!("../../../maps/shogun/examples/five-isles.toml");

/// The setup option that picks the fixed beginner setup instead of the draft.
fn beginner() -> Vec<OptionSetting> {
    vec![OptionSetting {
        name: "setup".into(),
        value: OptionValue::Choice("beginner".into()),
    }]
}

/// A 4-seat game on `map` with these option settings.
fn game_on(map: &str, settings: Vec<OptionSetting>, table: &mut dyn Table) -> ShogunGame {
    let options = Options::resolve(&Shogun::info().options, &settings).expect("valid options");
    let setup = Setup {
        map: map.into(),
        options: settings,
        seats: 4,
    };
    Shogun::create(&setup, &options, table).expect("a valid setup")
}

/// A message as English text, with any `province.` or `region.` key left raw showing as it is.
fn english_text(message: &Message) -> String {
    let text = Shogun::catalogue("en").expect("an English catalogue");
    sdk::Catalogue::from_toml(text)
        .expect("the English catalogue reads")
        .render(message, &|seat| format!("Player {}", seat + 1))
}

#[test]
fn regression_an_authored_map_showed_catalogue_keys_for_its_province_names() {
    let english = catalogue("en");
    let mut table = seeded(41);
    let mut game = game_on(FIVE_ISLES, Vec::new(), &mut table);
    let board = game.state.board.clone();
    assert_eq!(board.provinces[0].id, "windgate");
    let names: BTreeSet<&str> = board.provinces.iter().map(|p| p.name.as_str()).collect();

    // (1) The board names every province by the map's name, never by a raw key.
    let svg = game.board(Viewer::Spectator);
    check_document(&svg, &english, "five isles, spectator");
    assert!(svg.contains(">Windgate<"), "Windgate is not named");
    let doc = roxmltree::Document::parse(&svg).expect("XML");
    for text in doc.descendants().filter_map(|n| n.text()) {
        assert!(
            !text.starts_with("province.") && !text.starts_with("region."),
            "a raw key on the board: `{text}`"
        );
    }
    for province in &board.provinces {
        assert!(
            !svg.contains(&format!(">province.{}<", province.id)),
            "{}",
            province.id
        );
        let group = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(format!("province-{}", province.id).as_str()))
            .unwrap_or_else(|| panic!("no #province-{}", province.id));
        let label = group
            .descendants()
            .find(|n| n.attribute("data-msg") == Some("name"))
            .unwrap_or_else(|| panic!("#province-{} has no name label", province.id));
        assert_eq!(label.text(), Some(province.name.as_str()));
        let args: serde_json::Value =
            serde_json::from_str(label.attribute("data-args").expect("data-args")).expect("JSON");
        assert_eq!(args["name"], province.name.as_str(), "{}", province.id);
    }

    // (2) The draft's first choices name the face-up cards by the map's names, as plain text.
    let decision = game.pending().remove(0);
    let DecisionKind::Choose(choose) = &decision.kind else {
        panic!("the draft is a choose decision")
    };
    let face_up: Vec<_> = choose
        .choices
        .iter()
        .filter(|c| c.id.starts_with("face-up:"))
        .collect();
    assert!(!face_up.is_empty(), "the draft shows face-up cards");
    for choice in face_up {
        let arg = choice
            .label
            .args
            .iter()
            .find(|(name, _)| name == "province")
            .map(|(_, arg)| arg.clone())
            .expect("a face-up choice names its province");
        let MessageArg::Text(name) = arg else {
            panic!("`{}` names its province by {arg:?}", choice.id)
        };
        assert!(names.contains(name.as_str()), "`{name}` is not on the map");
        assert!(!english_text(&choice.label).contains("province."));
    }
    // The planning of the beginner setup labels each province card with the map's name alone.
    let beginning = game_on(FIVE_ISLES, beginner(), &mut seeded(42));
    let decision = beginning.pending().remove(0);
    let DecisionKind::Assign(assign) = &decision.kind else {
        panic!("planning is an assign decision")
    };
    let mut province_items = 0;
    for item in &assign.items {
        if let Some(id) = item.id.strip_prefix("province:") {
            let p = board.province_by_id(id).expect("a province of the map");
            assert_eq!(
                item.label,
                Message::new("name").text("name", board.provinces[p].name.as_str())
            );
            province_items += 1;
        }
    }
    assert!(province_items > 0, "the beginner setup gives provinces");

    // Nor does the log or the score of a whole game name a province or region by a raw key.
    let mut region_lines = 0;
    loop {
        let pending = game.pending();
        let Some(decision) = pending.first() else {
            break;
        };
        let action = random_action(&decision.kind, &mut table);
        let events = game
            .apply(decision.seat, &action, &mut table)
            .expect("a random legal answer is accepted");
        for event in events {
            let text = english_text(&event.text);
            assert!(
                !text.contains("province.") && !text.contains("region."),
                "a raw key in the log: `{text}`"
            );
        }
    }
    let result = game.result().expect("the random game ends");
    for line in &result.breakdown {
        if let Some((_, arg)) = line.label.args.iter().find(|(name, _)| name == "region") {
            let MessageArg::Text(name) = arg else {
                panic!("a score line names its region by {arg:?}")
            };
            assert!(board.regions.iter().any(|r| &r.name == name), "`{name}`");
            region_lines += 1;
        }
    }
    assert!(region_lines > 0, "some region majority was scored");

    // (3) The printed board keeps its catalogue keys, so every language translates its names.
    let mut table = seeded(43);
    let printed = game_on(SUN_MAP, Vec::new(), &mut table);
    let svg = printed.board(Viewer::Spectator);
    assert!(svg.contains(r#"data-msg="province.aki""#));
    assert!(!svg.contains(r#"data-msg="name""#));
    let decision = printed.pending().remove(0);
    let DecisionKind::Choose(choose) = &decision.kind else {
        panic!("the draft is a choose decision")
    };
    for choice in choose
        .choices
        .iter()
        .filter(|c| c.id.starts_with("face-up:"))
    {
        assert!(
            matches!(
                choice.label.args.as_slice(),
                [(name, MessageArg::Key(key))] if name == "province" && key.starts_with("province.")
            ),
            "{:?}",
            choice.label
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Sizes

/// The font size of a text element: its own attribute or its class's.
fn font_size(node: roxmltree::Node) -> f32 {
    if let Some(size) = node.attribute("font-size") {
        return size.parse().expect("a number");
    }
    match node.attribute("class").unwrap_or("") {
        c if c.split(' ').any(|c| c == "title") => 16.0,
        c if c.split(' ').any(|c| c == "label") => 13.0,
        _ => panic!("a text without a size: {node:?}"),
    }
}

#[test]
fn no_text_of_the_map_is_smaller_than_11_px_at_1280x800_and_no_part_is_smaller_than_13_units() {
    // At 1280x800 the web UI gives the map part 826 x 664 px (the page less its padding, the
    // 400 px side column and the board's frame; the height less the bars above it); its viewBox
    // is scaled to fit (web-ui/styles.css: .game-layout, .board-canvas).
    let five_isles = include_str!("../../../maps/shogun/examples/five-isles.toml");
    for (map, seed) in [
        (SUN_MAP, 21),
        (shogun::data::MOON_MAP, 22),
        (five_isles, 23),
    ] {
        let mut table = seeded(seed);
        let mut game = Shogun::create(
            &Setup {
                map: map.into(),
                options: Vec::new(),
                seats: 4,
            },
            &default_options(),
            &mut table,
        )
        .expect("a game");
        let mut step = 0;
        loop {
            if step % 40 == 0 || game.state.is_over() {
                check_sizes(&game);
            }
            let pending = game.pending();
            let Some(decision) = pending.first() else {
                break;
            };
            let action = random_action(&decision.kind, &mut table);
            game.apply(decision.seat, &action, &mut table)
                .expect("accepted");
            step += 1;
        }
    }
}

fn check_sizes(game: &ShogunGame) {
    for viewer in viewers(game.state.seats) {
        for part in shogun::render::parts(&game.state, viewer) {
            let (w, h) = shogun::render::view_box(&part.svg);
            let doc = roxmltree::Document::parse(&part.svg).expect("XML");
            for text in doc.descendants().filter(|n| n.has_tag_name("text")) {
                let size = font_size(text);
                assert!(
                    size >= shogun::render::MIN_FONT,
                    "{}: {size} in {text:?}",
                    part.id
                );
                if part.kind == shogun::render::Kind::Map {
                    assert!(
                        size >= shogun::render::MAP_MIN_FONT,
                        "map: {size} in {text:?}"
                    );
                    let scale = (826.0 / w).min(664.0 / h);
                    assert!(
                        size * scale >= 11.0,
                        "{w}x{h}: {size} units is {} px",
                        size * scale
                    );
                }
            }
        }
    }
}

#[test]
fn the_board_comes_in_parts_the_map_first_and_the_viewers_own_panel_first_of_the_seats() {
    let english = catalogue("en");
    let (game, _table) = planning_game(4);
    for viewer in viewers(4) {
        let parts = game.render(viewer);
        assert_eq!(parts[0].id, "map");
        assert_eq!(parts[0].kind, sdk::PartKind::Map);
        let seats: Vec<u32> = parts
            .iter()
            .filter_map(|p| match p.kind {
                sdk::PartKind::Seat(seat) => Some(seat),
                _ => None,
            })
            .collect();
        match viewer {
            Viewer::Seat(own) => {
                assert_eq!(seats[0], own);
                assert_eq!(seats.len(), 4);
            }
            Viewer::Spectator => assert_eq!(seats, vec![0, 1, 2, 3]),
        }
        let ids: BTreeSet<&str> = parts.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids.len(), parts.len(), "ids are distinct");
        for part in &parts {
            check_document(
                &part.svg,
                &english,
                &format!("{viewer:?}, part {}", part.id),
            );
            let (w, h) = shogun::render::view_box(&part.svg);
            assert!(w > 0.0 && h > 0.0 && w <= 1100.0, "{}: {w} x {h}", part.id);
            // Whole units, so a picture of the part has the same size in pixels.
            assert_eq!((w.fract(), h.fract()), (0.0, 0.0), "{}: {w} x {h}", part.id);
            if let Some(title) = &part.title {
                assert!(english.contains_key(&title.key), "{}", title.key);
            }
        }
        // Only the planning seat's own board shows its hand and slots.
        let planning = parts.iter().find(|p| p.id == "planning");
        assert_eq!(
            planning.is_some(),
            matches!(viewer, Viewer::Seat(_)),
            "{viewer:?}"
        );
    }
}

#[test]
fn the_drafts_face_up_cards_can_be_picked_on_the_map() {
    let mut table = seeded(31);
    let game = new_game(4, &mut table);
    let decision = game.pending().remove(0);
    let DecisionKind::Choose(choose) = &decision.kind else {
        panic!("the draft asks a choice");
    };
    let map = &game.render(Viewer::Seat(decision.seat))[0].svg;
    let doc = roxmltree::Document::parse(map).expect("XML");
    let draft = game.state.draft.as_ref().expect("the draft");
    for (i, &p) in draft.face_up.iter().enumerate() {
        let index = choose
            .choices
            .iter()
            .position(|c| c.id == format!("face-up:{i}"))
            .expect("a face-up choice");
        let id = format!("province-{}", game.state.board.provinces[p].id);
        let group = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id.as_str()))
            .expect("the province on the map");
        assert_eq!(
            group.attribute("data-choice"),
            Some(index.to_string().as_str())
        );
    }
}

/// The sea route from Tajima to Kaga was drawn straight across Wakasa and Echizen: a sea route
/// crossed the land of provinces it does not join.
#[test]
fn regression_a_sea_route_was_drawn_across_other_provinces_land() {
    for map in [SUN_MAP, shogun::data::MOON_MAP] {
        let setup = Setup {
            map: map.into(),
            options: Vec::new(),
            seats: 5,
        };
        let game = Shogun::create(&setup, &default_options(), &mut seeded(3)).unwrap();
        let svg = game.board(Viewer::Spectator);
        let paths = |marker: &str| -> Vec<Vec<(f32, f32)>> {
            svg.match_indices(marker)
                .filter_map(|(at, _)| {
                    let tag = &svg[at..svg[at..].find("/>")? + at];
                    let d = tag.split(" d=\"").nth(1)?.split('"').next()?;
                    Some(common::path_points(d))
                })
                .collect()
        };
        let lands = paths("<path id=\"land-");
        let routes = paths("<path class=\"sea-route\"");
        assert!(lands.len() > 30 && !routes.is_empty(), "the map is drawn");
        for route in &routes {
            let [from, control, to] = route[..] else {
                panic!("a sea route is one quadratic curve: {route:?}");
            };
            let others: Vec<&Vec<(f32, f32)>> = lands
                .iter()
                .filter(|land| !within(land, from) && !within(land, to))
                .collect();
            for i in 1..10 {
                let t = i as f32 / 10.0;
                let u = 1.0 - t;
                let q = (
                    u * u * from.0 + 2.0 * u * t * control.0 + t * t * to.0,
                    u * u * from.1 + 2.0 * u * t * control.1 + t * t * to.1,
                );
                assert!(
                    !others.iter().any(|land| within(land, q)),
                    "the sea route from {from:?} to {to:?} crosses land at {q:?}"
                );
            }
        }
    }
}
