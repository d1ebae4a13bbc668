//! The board drawn for a seat: every area a place with its catalogue key, highways heavier,
//! the seat's choices clickable, its hand drawn for it alone. With SEKIGAHARA_DUMP set to a
//! folder, the parts are also written there to look at.

mod common;

use common::{new_game, table};
use sdk::{DecisionKind, Game, PartKind, Viewer, random_action};
use sekigahara::data::AreaKind;

const BOARD: &str = include_str!("../../../maps/sekigahara/japan-1600.toml");

#[test]
fn the_map_marks_every_area_as_a_place_draws_highways_heavier_and_offers_the_choices() {
    let mut t = table(5);
    let mut game = new_game(BOARD, &mut t);
    let mut checked_choices = 0;
    for _ in 0..400 {
        let Some(decision) = game.pending().first().cloned() else {
            break;
        };
        let parts = game.render(Viewer::Seat(decision.seat));
        let map = &parts
            .iter()
            .find(|p| p.kind == PartKind::Map)
            .expect("a map")
            .svg;
        for area in &game.state.board.areas {
            assert!(
                map.contains(&format!("data-place=\"area.{}\"", area.id)),
                "{}",
                area.id
            );
        }
        let highways = game.state.board.roads.iter().filter(|r| r.highway).count();
        assert_eq!(map.matches("class=\"highway\"").count(), highways);
        assert!(
            parts
                .iter()
                .any(|p| p.kind == PartKind::Seat(decision.seat)),
            "the seat's own hand"
        );
        let other = game.render(Viewer::Seat(1 - decision.seat));
        assert!(
            !other
                .iter()
                .any(|p| p.kind == PartKind::Seat(decision.seat))
        );
        if let DecisionKind::Choose(choose) = &decision.kind
            && choose.choices.iter().any(|c| c.id.starts_with("area."))
        {
            let all: String = parts.iter().map(|p| p.svg.as_str()).collect();
            assert!(all.contains("data-choice=\""), "area choices are clickable");
            checked_choices += 1;
        }
        if let Ok(folder) = std::env::var("SEKIGAHARA_DUMP") {
            for part in &parts {
                std::fs::write(format!("{folder}/{}.svg", part.id), &part.svg).expect("dump");
            }
        }
        let action = random_action(&decision.kind, &mut t);
        game.apply(decision.seat, &action, &mut t).expect("legal");
    }
    assert!(checked_choices > 10);
}

/// Regression: a step of a game (a bot's above all) was told as "made a move" when its answer
/// gave no event: choosing a stack, which blocks go, a muster's kind, the card of a deployment, a
/// challenge not made. Every answer now tells both seats what it did, and a move's route names
/// its origin and destination as places so the map can draw it.
#[test]
fn regression_every_answer_tells_both_seats_what_it_did() {
    for seed in 0..6 {
        let mut t = table(100 + seed);
        let mut game = new_game(BOARD, &mut t);
        let mut answers = 0;
        while let Some(decision) = game.pending().first().cloned() {
            let prompt = decision.prompt.key.clone();
            let action = random_action(&decision.kind, &mut t);
            let events = game.apply(decision.seat, &action, &mut t).expect("legal");
            assert!(
                events.iter().any(|e| e.audience == sdk::Audience::Everyone),
                "seed {seed}: the answer to {prompt} ({action:?}) tells nobody what it did"
            );
            for event in &events {
                if event.text.key == "event.move-planned" {
                    let keys: Vec<&str> = event
                        .text
                        .args
                        .iter()
                        .map(|(name, _)| name.as_str())
                        .collect();
                    assert!(keys.contains(&"from") && keys.contains(&"to"));
                }
            }
            answers += 1;
            assert!(answers < 20_000, "seed {seed}: the game ends");
        }
    }
}

/// The x and y of each clickable block of a map drawing, and where the first one starts.
fn clickable_blocks(map: &str) -> (Vec<(f32, f32)>, Option<usize>) {
    let marker = r#"<g class="block" data-choice=""#;
    let mut found = Vec::new();
    for (at, _) in map.match_indices(marker) {
        let rest = &map[at..];
        let attr = |name: &str| -> f32 {
            let start = rest.find(&format!(" {name}=\"")).expect("attribute") + name.len() + 3;
            let end = start + rest[start..].find('"').expect("closing quote");
            rest[start..end].parse().expect("a number")
        };
        found.push((attr("x"), attr("y")));
    }
    (found, map.find(marker))
}

/// Regression: a block the player had to pick (a leader to declare, a block to deploy or lose)
/// lay under the other blocks of its pile, so a click on it landed on another block, and an
/// area's name placed away from its node moved the middle of the area's button off the node.
/// The blocks to pick are now drawn whole, apart and over everything else, and an area's
/// button is its node alone (its name is a second button for the same choice).
#[test]
fn regression_blocks_to_pick_are_drawn_apart_on_top_and_an_area_button_is_its_node() {
    let mut t = table(7);
    let mut game = new_game(BOARD, &mut t);
    let mut piles_checked = 0;
    for _ in 0..3000 {
        let Some(decision) = game.pending().first().cloned() else {
            break;
        };
        let parts = game.render(Viewer::Seat(decision.seat));
        let map = &parts
            .iter()
            .find(|p| p.kind == PartKind::Map)
            .expect("a map")
            .svg;
        for group in map.split(r#"<g class="area""#).skip(1) {
            let node = &group[..group.find("</g>").expect("closed")];
            assert!(
                !node.contains("<text"),
                "an area's button holds no name: {node}"
            );
        }
        let (blocks, first) = clickable_blocks(map);
        if !blocks.is_empty() {
            let last_area = map.rfind(r#"<g class="area""#).expect("areas");
            assert!(
                first.expect("a block") > last_area,
                "blocks to pick are drawn last"
            );
            for (i, a) in blocks.iter().enumerate() {
                for b in &blocks[i + 1..] {
                    assert!(
                        (a.0 - b.0).abs() >= 18.0 || (a.1 - b.1).abs() >= 18.0,
                        "blocks to pick overlap: {a:?} {b:?}"
                    );
                }
            }
            piles_checked += 1;
        }
        let action = random_action(&decision.kind, &mut t);
        game.apply(decision.seat, &action, &mut t).expect("legal");
    }
    assert!(
        piles_checked > 5,
        "piles to pick from were drawn ({piles_checked})"
    );
}

/// Regression: at 1280x800 the names of the crowded areas (Sekigahara, Ōgaki, Gifu; Ueda and
/// Komoro) ran into each other's nodes, each centred under its own. No name of the shipped
/// board covers another name or node now, its width guessed at 7.8 units a letter of the
/// 13-unit font.
#[test]
fn regression_area_names_of_the_shipped_board_do_not_overlap() {
    let mut t = table(1);
    let game = new_game(BOARD, &mut t);
    let parts = game.render(Viewer::Seat(0));
    let map = &parts
        .iter()
        .find(|p| p.kind == PartKind::Map)
        .expect("a map")
        .svg;
    let number = |text: &str, name: &str| -> f32 {
        let start = text.find(&format!(" {name}=\"")).expect("attribute") + name.len() + 3;
        let end = start + text[start..].find('"').expect("closing quote");
        text[start..end].parse().expect("a number")
    };
    let frames: Vec<(f32, f32, f32, f32, &str)> = map
        .split(r#"<g class="area-name""#)
        .skip(1)
        .zip(&game.state.board.areas)
        .map(|(group, area)| {
            let (x, y) = (number(group, "x"), number(group, "y"));
            let half = area.name.chars().count() as f32 * 3.9;
            (x - half, y - 12.0, x + half, y + 3.0, area.id.as_str())
        })
        .collect();
    assert_eq!(frames.len(), game.state.board.areas.len());
    // Apart, or touching by at most two units (a name's frame is a guess to a letter anyway).
    let apart = |a: &(f32, f32, f32, f32, &str), b: &(f32, f32, f32, f32, &str)| {
        a.2 <= b.0 + 2.0 || b.2 <= a.0 + 2.0 || a.3 <= b.1 + 2.0 || b.3 <= a.1 + 2.0
    };
    let mut covered = Vec::new();
    for (i, a) in frames.iter().enumerate() {
        for b in &frames[i + 1..] {
            assert!(apart(a, b), "the names of {} and {} overlap", a.4, b.4);
        }
        // Nor does a name cover another area's node, as drawn: a castle's square with its
        // battlements, a capital's and a resource area's ring, a plain area's smaller one.
        for area in &game.state.board.areas {
            let (half, top) = match area.kind {
                AreaKind::Castle => (20.0, 26.0),
                AreaKind::Capital => (22.0, 22.0),
                AreaKind::Resource => (20.0, 20.0),
                AreaKind::Plain => (16.0, 16.0),
            };
            let node = (
                area.x - half,
                area.y - top,
                area.x + half,
                area.y + half,
                "",
            );
            if !apart(a, &node) {
                covered.push(format!(
                    "the name of {} covers the node of {}",
                    a.4, area.id
                ));
            }
        }
    }
    assert!(covered.is_empty(), "{covered:#?}");
}

#[test]
fn regression_table_panel_text_was_7_px_on_a_phone() {
    // The table panel was drawn 600 units wide with 13-unit text: a phone shows it about 377 px
    // wide, so its text was some 8 px (7 px glyphs). It is now drawn narrow enough that a
    // phone's panel shows no text under 12 px, through a whole game (boxes and battles wrap
    // into rows instead of widening the drawing).
    const PHONE_PANEL_PX: f32 = 377.0;
    let mut t = table(11);
    let mut game = new_game(BOARD, &mut t);
    let mut drawn = 0;
    for _ in 0..600 {
        let Some(decision) = game.pending().first().cloned() else {
            break;
        };
        let parts = game.render(Viewer::Seat(decision.seat));
        let svg = &parts
            .iter()
            .find(|p| p.kind == PartKind::Table)
            .expect("a table panel")
            .svg;
        let view_box: Vec<f32> = svg
            .split("viewBox=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a view box")
            .split(' ')
            .map(|n| n.parse().unwrap())
            .collect();
        let scale = (PHONE_PANEL_PX / view_box[2]).min(1.5);
        for size in svg.split("font-size=\"").skip(1) {
            let size: f32 = size.split('"').next().unwrap().parse().unwrap();
            assert!(
                size * scale >= 10.9,
                "a {size}-unit text shows at {:.1} px in a {}-unit-wide panel",
                size * scale,
                view_box[2]
            );
        }
        drawn += 1;
        let action = random_action(&decision.kind, &mut t);
        let _ = game.apply(decision.seat, &action, &mut t);
    }
    assert!(drawn > 100, "{drawn} boards drawn");
}
