//! The map as clients read it: every province is drawn whole inside the map's `viewBox` (issue
//! 22, item 12), carries `data-place` with the key that names it in messages, and every event
//! that names a place names one the map carries, a battle or a move with its origin as `from` and
//! its destination as `to` (the board conventions of docs/sdk.md, "Places").

use std::collections::BTreeSet;
use std::path::PathBuf;

use sdk::testing::SeededTable;
use sdk::{Game, MessageArg, Options, Ruleset, Setup, Viewer, random_action};
use shogun::{Shogun, ShogunGame};

mod common;

/// Every shipped and example Shogun map file, with its path.
fn map_files() -> Vec<(PathBuf, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../maps/shogun");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("examples")] {
        for entry in std::fs::read_dir(&dir).expect("the maps folder") {
            let path = entry.expect("a folder entry").path();
            if path.extension().is_some_and(|e| e == "toml") {
                let text = std::fs::read_to_string(&path).expect("a readable map");
                // The card data lives beside the maps and is not a map.
                if text.contains("[map]") {
                    files.push((path, text));
                }
            }
        }
    }
    files.sort();
    assert!(
        files.len() >= 3,
        "the sun, moon and example maps: {files:?}"
    );
    files
}

fn game_on(map: &str, seats: u32, seed: u8) -> (ShogunGame, SeededTable) {
    let mut table = SeededTable::new([seed; 32]);
    let options = Options::resolve(&Shogun::info().options, &[]).unwrap();
    let setup = Setup {
        map: map.into(),
        options: Vec::new(),
        seats,
    };
    let game = Shogun::create(&setup, &options, &mut table).expect("a game on the map");
    (game, table)
}

fn map_svg(game: &ShogunGame, viewer: Viewer) -> String {
    game.render(viewer)
        .into_iter()
        .find(|part| part.id == "map")
        .expect("a map part")
        .svg
}

#[test]
fn regression_the_map_drawing_cut_the_outermost_provinces_at_its_edges() {
    for (path, text) in map_files() {
        for seats in [3, 5] {
            let (game, _) = game_on(&text, seats, 7);
            let svg = map_svg(&game, Viewer::Spectator);
            let doc = roxmltree::Document::parse(&svg).expect("the map is XML");
            let view_box: Vec<f32> = doc
                .root_element()
                .attribute("viewBox")
                .expect("a viewBox")
                .split_whitespace()
                .map(|n| n.parse().expect("a number"))
                .collect();
            let [x0, y0, w, h] = view_box[..] else {
                panic!("a viewBox of four numbers")
            };
            // The coast is drawn as a 5-unit stroke around each shape: half of it is outside.
            let inside = |(x, y): (f32, f32)| {
                x - 2.5 >= x0 && y - 2.5 >= y0 && x + 2.5 <= x0 + w && y + 2.5 <= y0 + h
            };
            let mut lands = 0;
            for node in doc
                .descendants()
                .filter(|n| n.attribute("id").is_some_and(|id| id.starts_with("land-")))
            {
                lands += 1;
                let id = node.attribute("id").unwrap();
                for point in common::path_points(node.attribute("d").expect("a shape")) {
                    assert!(
                        inside(point),
                        "{}, {seats} seats: {id} reaches {point:?}, outside the viewBox {view_box:?}",
                        path.display()
                    );
                }
            }
            assert_eq!(
                lands,
                game.state.board.provinces.len(),
                "{}: one shape per province",
                path.display()
            );
            // Every province's name stays inside too (a centred text about 0.6 of its size per
            // character wide).
            for text in doc.descendants().filter(|n| {
                n.attribute("data-msg")
                    .is_some_and(|m| m.starts_with("province.") || m == "name")
            }) {
                let x: f32 = text.attribute("x").unwrap().parse().unwrap();
                let y: f32 = text.attribute("y").unwrap().parse().unwrap();
                let half = text.text().unwrap_or("").chars().count() as f32 * 0.6 * 14.0 / 2.0;
                assert!(
                    inside((x - half, y - 14.0)) && inside((x + half, y)),
                    "{}: the name {:?} at {x},{y} leaves the viewBox {view_box:?}",
                    path.display(),
                    text.text()
                );
            }
        }
    }
}

#[test]
fn every_province_on_the_map_carries_its_place_key() {
    for (path, text) in map_files() {
        let (game, _) = game_on(&text, 5, 8);
        let svg = map_svg(&game, Viewer::Seat(0));
        let doc = roxmltree::Document::parse(&svg).expect("the map is XML");
        let places: Vec<&str> = doc
            .descendants()
            .filter_map(|n| n.attribute("data-place"))
            .collect();
        let expected: Vec<String> = game
            .state
            .board
            .provinces
            .iter()
            .map(|p| format!("province.{}", p.id))
            .collect();
        assert_eq!(
            places,
            expected,
            "{}: one data-place per province, in order",
            path.display()
        );
    }
}

/// The printed board's province keys its map carries.
fn places_on(svg: &str) -> BTreeSet<String> {
    let doc = roxmltree::Document::parse(svg).expect("the map is XML");
    doc.descendants()
        .filter_map(|n| n.attribute("data-place"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_event_that_names_a_place_names_one_the_map_carries_from_and_to_for_battles_and_moves() {
    let sun = shogun::data::SUN_MAP;
    let moon = shogun::data::MOON_MAP;
    let mut battles = 0;
    let mut moves = 0;
    for (map, seats, seed) in [(sun, 4, 11), (moon, 5, 12), (sun, 3, 13)] {
        let (mut game, mut table) = game_on(map, seats, seed);
        let places = places_on(&map_svg(&game, Viewer::Spectator));
        while let Some(decision) = game.pending().first().cloned() {
            let action = random_action(&decision.kind, &mut table);
            let events = game
                .apply(decision.seat, &action, &mut table)
                .expect("accepted");
            for event in events {
                let message = &event.text;
                for (name, arg) in &message.args {
                    if let MessageArg::Key(key) = arg
                        && key.starts_with("province.")
                    {
                        assert!(
                            places.contains(key),
                            "`{}` names {key} as `{name}`, which the map does not carry",
                            message.key
                        );
                    }
                }
                let is_battle = message.key.starts_with("log.attack-");
                let is_move = message.key == "log.moved";
                if is_battle || is_move {
                    battles += usize::from(is_battle);
                    moves += usize::from(is_move);
                    for side in ["from", "to"] {
                        assert!(
                            message.args.iter().any(|(name, arg)| name == side
                                && matches!(arg, MessageArg::Key(key) if places.contains(key))),
                            "`{}` does not name its `{side}` place: {message:?}",
                            message.key
                        );
                    }
                    assert!(
                        !message.args.iter().any(|(name, _)| name == "province"),
                        "`{}` names a third place",
                        message.key
                    );
                }
                if message.key.starts_with("log.revolt-") {
                    assert!(
                        message.args.iter().any(
                            |(_, arg)| matches!(arg, MessageArg::Key(key) if places.contains(key))
                        ),
                        "a revolt names its province: {message:?}"
                    );
                }
            }
        }
    }
    assert!(
        battles > 10 && moves > 0,
        "{battles} battles, {moves} moves"
    );
}
