//! What contract 0.2 adds, over a whole random game of 3: the board in parts (a map per seat,
//! the viewer's first; the table; the viewer's hand, for seats only), private decisions exactly
//! when a hand is shown, details on placement choices, a summary closing the final scoring.

use honshu::state::Phase;
use honshu::{Honshu, HonshuGame};
use sdk::testing::SeededTable;
use sdk::{DecisionKind, Game, Options, PartKind, Ruleset, Setup, Viewer, random_action};

fn new_game(seats: u32, table: &mut SeededTable) -> HonshuGame {
    let setup = Setup {
        map: String::new(),
        options: Vec::new(),
        seats,
    };
    let options = Options::resolve(&Honshu::info().options, &[]).unwrap();
    Honshu::create(&setup, &options, table).unwrap()
}

fn check_parts(game: &HonshuGame, viewer: Viewer, choices: usize) {
    let parts = game.render(viewer);
    let seats: Vec<u32> = parts
        .iter()
        .filter_map(|p| match p.kind {
            PartKind::Seat(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(seats.len(), game.state.seats as usize, "one map per seat");
    if let Viewer::Seat(me) = viewer {
        assert_eq!(parts[0].kind, PartKind::Seat(me), "the viewer's map first");
    }
    assert!(
        !parts.iter().any(|p| p.kind == PartKind::Map),
        "no shared map"
    );
    let tables: Vec<&str> = parts
        .iter()
        .filter(|p| p.kind == PartKind::Table)
        .map(|p| p.id.as_str())
        .collect();
    let expected: &[&str] = if viewer == Viewer::Spectator {
        &["table"]
    } else {
        &["table", "hand"]
    };
    assert_eq!(tables, expected);
    for part in &parts {
        assert!(part.svg.starts_with("<svg") && part.svg.ends_with("</svg>"));
        assert!(part.title.is_some(), "{} has a title", part.id);
        for (at, _) in part.svg.match_indices("data-choice=\"") {
            let rest = &part.svg[at + 13..];
            let index: usize = rest[..rest.find('"').unwrap()].parse().unwrap();
            assert!(
                index < choices,
                "{}: data-choice {index} of {choices}",
                part.id
            );
        }
    }
}

#[test]
fn parts_private_decisions_details_and_the_final_summary() {
    let mut table = SeededTable::new([3u8; 32]);
    let mut game = new_game(3, &mut table);
    let mut last_events = Vec::new();
    let mut details = 0;
    while let Some(decision) = game.pending().first().cloned() {
        let DecisionKind::Choose(choose) = &decision.kind else {
            panic!("Honshu asks only choose decisions");
        };
        let shows_hand = match &game.state.phase {
            Phase::Trick {
                choosing_resource, ..
            } => !choosing_resource,
            Phase::Duel { .. } => true,
            _ => false,
        };
        assert_eq!(decision.private, shows_hand, "{:?}", game.state.phase);
        for choice in &choose.choices {
            if choice.id.starts_with("at:") || choice.id == "over" || choice.id == "under" {
                assert!(choice.detail.is_some(), "{} has a detail", choice.id);
                details += 1;
            }
        }
        check_parts(&game, Viewer::Seat(decision.seat), choose.choices.len());
        check_parts(&game, Viewer::Spectator, 0);
        let action = random_action(&decision.kind, &mut table);
        last_events = game.apply(decision.seat, &action, &mut table).unwrap();
    }
    assert!(details > 0);
    let summary = last_events
        .last()
        .and_then(|e| e.summary.clone())
        .expect("the final scoring closes with a summary");
    assert_eq!(summary.title.key, "summary.final-title");
    assert_eq!(
        summary.lines.len(),
        3 * 7,
        "five categories, the total and the tie-break per seat"
    );
    let result = game.result().unwrap();
    for placing in &result.placings {
        let own: Vec<_> = summary
            .lines
            .iter()
            .filter(|l| l.seat == Some(placing.seat))
            .collect();
        // The final scoring gives each seat's total under its categories (the review found a
        // sheet without totals), then the tie-break in words, with no value of its own.
        let categories: i64 = own[..5].iter().filter_map(|l| l.value).sum();
        assert_eq!(own[5].label.key, "summary.total");
        assert_eq!(own[5].value, Some(placing.score), "seat {}", placing.seat);
        assert_eq!(categories, placing.score, "seat {}", placing.seat);
        assert_eq!(own[6].label.key, "summary.fallow-visible");
        assert_eq!(own[6].value, None);
        assert!(
            own[6]
                .label
                .args
                .iter()
                .any(|(n, a)| n == "fallow" && *a == sdk::MessageArg::Number(placing.tie_breaks[0])),
            "{:?}",
            own[6]
        );
    }
}

/// The texts of an SVG part: (x, y, font size, text), read from its `<text>` elements.
fn texts(svg: &str) -> Vec<(i32, i32, i32, String)> {
    let attribute = |tag: &str, name: &str| -> Option<i32> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()?.parse().ok()
    };
    svg.match_indices("<text ")
        .filter_map(|(at, _)| {
            let rest = &svg[at..];
            let (tag, rest) = rest.split_once('>')?;
            let (content, _) = rest.split_once("</text>")?;
            let size = attribute(tag, "font-size").unwrap_or(12);
            Some((
                attribute(tag, "x")?,
                attribute(tag, "y")?,
                size,
                content.to_owned(),
            ))
        })
        .collect()
}

/// The table drew the player order side by side, 100 units apart, and the pool's four counts 70
/// apart: "1. Bot 3 (random)" ran into "2. Player 1", and "10 in the pool" into the next count.
#[test]
fn regression_the_table_drew_seat_names_and_pool_counts_over_each_other() {
    let mut table = SeededTable::new([9; 32]);
    let game = new_game(5, &mut table);
    let parts = game.render(Viewer::Spectator);
    let svg = &parts.iter().find(|p| p.id == "table").unwrap().svg;
    let texts = texts(svg);
    assert!(
        texts.len() >= 5 + 4,
        "the order and the pool are drawn: {texts:?}"
    );
    // A generous width for the English text (wider than most glyphs of the font); translations
    // and longer names are what the room beyond it is for.
    let width = |size: i32, text: &str| text.chars().count() as i32 * size * 7 / 10;
    for (i, a) in texts.iter().enumerate() {
        for b in &texts[i + 1..] {
            let same_line = (a.1 - b.1).abs() < a.2.max(b.2);
            let (left, right) = if a.0 <= b.0 { (a, b) } else { (b, a) };
            assert!(
                !same_line || left.0 + width(left.2, &left.3) <= right.0,
                "{:?} runs into {:?}",
                left.3,
                right.3
            );
        }
    }
}
