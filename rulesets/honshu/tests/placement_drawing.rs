//! How placing a card is drawn (issue 22, item 8): cards large enough to read, a terrain
//! legend, the turned card's footprint for each position choice as a preview of that choice
//! (`data-preview-of`), and over or under drawn as the card will lie.

use honshu::Honshu;
use honshu::engine::footprint;
use sdk::testing::SeededTable;
use sdk::{DecisionKind, Game, PendingDecision, Viewer, random_action};

/// The `data-preview-of` groups of an SVG: (choice index, the group's markup).
fn previews(svg: &str) -> Vec<(usize, String)> {
    let doc = roxmltree::Document::parse(svg).expect("XML");
    doc.descendants()
        .filter_map(|n| {
            let index = n.attribute("data-preview-of")?.parse().ok()?;
            Some((index, svg[n.range()].to_string()))
        })
        .collect()
}

/// The filled squares a piece of markup draws at the map's cell size (a card's squares; the
/// outlines have no fill).
fn filled_squares(markup: &str) -> usize {
    markup
        .match_indices("<rect ")
        .filter(|(at, _)| {
            let tag = &markup[*at..markup[*at..].find('>').unwrap() + at];
            tag.contains(r#"width="30""#) && !tag.contains(r#"fill="none""#)
        })
        .count()
}

fn choice_ids(decision: &PendingDecision) -> Vec<String> {
    match &decision.kind {
        DecisionKind::Choose(choose) => choose.choices.iter().map(|c| c.id.clone()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn each_position_previews_the_turned_cards_footprint_and_over_or_under_is_drawn_as_it_will_lie() {
    let (mut positions, mut one_way_under, mut both) = (0, 0, 0);
    for seed in 1..=3u8 {
        let mut table = SeededTable::new([seed; 32]);
        let mut game = sdk::testing::new_game::<Honshu>(3, "", &[], &mut table);
        while let Some(decision) = game.pending().first().cloned() {
            let seat = decision.seat;
            let ids = choice_ids(&decision);
            let map = || {
                game.render(Viewer::Seat(seat))
                    .into_iter()
                    .find(|p| p.id == format!("map-{seat}"))
                    .unwrap()
                    .svg
            };
            if decision.prompt.key == "prompt.position" {
                let svg = map();
                let shown = previews(&svg);
                let at: Vec<usize> = (0..ids.len())
                    .filter(|&i| ids[i].starts_with("at:"))
                    .collect();
                assert_eq!(
                    shown.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
                    at,
                    "one footprint per position, in order"
                );
                for (_, markup) in &shown {
                    assert_eq!(filled_squares(markup), 6, "the whole card: {markup}");
                }
                positions += 1;
                // Other viewers never see the previews of this seat's choices.
                let spectator = game
                    .render(Viewer::Spectator)
                    .into_iter()
                    .find(|p| p.id == format!("map-{seat}"))
                    .unwrap()
                    .svg;
                assert!(previews(&spectator).is_empty());
            }
            if decision.prompt.key.starts_with("prompt.confirm") {
                let svg = map();
                let player = &game.state.players[seat as usize];
                let (origin, rotation) =
                    (player.draft.origin.unwrap(), player.draft.rotation.unwrap());
                let visible = footprint(origin, rotation)
                    .into_iter()
                    .filter(|s| !player.map.cells.contains_key(s))
                    .count();
                let over = ids.iter().position(|id| id == "over");
                let under = ids.iter().position(|id| id == "under");
                let doc = roxmltree::Document::parse(&svg).unwrap();
                let draft = doc
                    .descendants()
                    .filter(|n| n.attribute("class") == Some("draft"))
                    .map(|n| (n.attribute("data-preview-of"), svg[n.range()].to_string()))
                    .collect::<Vec<_>>();
                match (over, under) {
                    (Some(o), Some(u)) => {
                        both += 1;
                        let o = o.to_string();
                        let u = u.to_string();
                        let of = |i: &str| {
                            draft
                                .iter()
                                .find(|(p, _)| *p == Some(i))
                                .map(|(_, m)| filled_squares(m))
                        };
                        assert_eq!(of(&o), Some(6), "over: the whole card on top");
                        assert_eq!(
                            of(&u),
                            Some(visible),
                            "under: the squares that stay visible"
                        );
                    }
                    (None, Some(_)) => {
                        one_way_under += 1;
                        assert_eq!(draft.len(), 1);
                        assert_eq!(draft[0].0, None, "the only way is drawn, not previewed");
                        assert_eq!(
                            filled_squares(&draft[0].1),
                            visible,
                            "slid under, only {visible} squares show"
                        );
                    }
                    _ => {
                        assert_eq!(draft.len(), 1);
                        assert_eq!(filled_squares(&draft[0].1), 6);
                    }
                }
            }
            let action = random_action(&decision.kind, &mut table);
            game.apply(seat, &action, &mut table).unwrap();
        }
    }
    assert!(
        positions > 10 && both > 0 && one_way_under > 0,
        "{positions} positions, {both} with both layers, {one_way_under} only under"
    );
}

#[test]
fn cards_are_drawn_large_enough_to_read_and_the_table_explains_the_squares() {
    let mut table = SeededTable::new([5; 32]);
    let mut game = sdk::testing::new_game::<Honshu>(3, "", &[], &mut table);
    let parts = game.render(Viewer::Seat(0));
    // A card in the hand is two squares wide and three high: at 14 units a square it showed
    // about 30 x 50 px at 1280x800.
    let hand = &parts.iter().find(|p| p.id == "hand").unwrap().svg;
    let doc = roxmltree::Document::parse(hand).unwrap();
    let squares: Vec<f32> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("card"))
        .flat_map(|card| card.children().filter(|n| n.has_tag_name("rect")))
        .map(|rect| rect.attribute("width").unwrap().parse().unwrap())
        .collect();
    assert_eq!(squares.len(), 6 * 6, "six cards of six squares");
    assert!(squares.iter().all(|&side| side >= 20.0), "{squares:?}");
    let table_svg = &parts.iter().find(|p| p.id == "table").unwrap().svg;
    for key in [
        "terrain.forest",
        "terrain.town",
        "terrain.lake",
        "terrain.fallow",
        "terrain.production",
        "terrain.factory",
    ] {
        assert!(
            table_svg.contains(&format!(r#"data-msg="{key}""#)),
            "the legend names {key}"
        );
    }
    // Every part keeps its content inside its viewBox, the larger cards included.
    for _ in 0..200 {
        for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
            for part in game.render(viewer) {
                let doc = roxmltree::Document::parse(&part.svg).unwrap();
                let view: Vec<f32> = doc
                    .root_element()
                    .attribute("viewBox")
                    .unwrap()
                    .split_whitespace()
                    .map(|n| n.parse().unwrap())
                    .collect();
                for rect in doc.descendants().filter(|n| n.has_tag_name("rect")) {
                    let number = |name: &str| {
                        rect.attribute(name)
                            .map_or(0.0, |v| v.parse::<f32>().unwrap())
                    };
                    let (x, y) = (number("x"), number("y"));
                    let (w, h) = (number("width"), number("height"));
                    assert!(
                        x >= 0.0 && y >= 0.0 && x + w <= view[2] + 0.5 && y + h <= view[3] + 0.5,
                        "{}: a square at {x},{y} ({w}x{h}) leaves the {view:?} frame",
                        part.id
                    );
                }
            }
        }
        let Some(decision) = game.pending().first().cloned() else {
            break;
        };
        let action = random_action(&decision.kind, &mut table);
        game.apply(decision.seat, &action, &mut table).unwrap();
    }
}
