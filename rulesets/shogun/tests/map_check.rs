//! The map checker on the shipped boards and on one broken fixture per diagnostic.
//!
//! Every fixture in `tests/maps/` is `tiny.toml` (a small valid map) changed in one place; each
//! test asserts the exact errors it produces: their lines and what they say.

use sdk::{Diagnostic, Severity};
use shogun::data::{ActionKind, Board, Cards, MOON_MAP, SUN_MAP, validate_map};
use std::collections::BTreeSet;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/maps/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

fn errors(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    diagnostics.iter().filter(|d| d.is_error()).collect()
}

/// Asserts that the fixture has exactly these errors: (line, a fragment of the text), in order.
fn assert_errors(name: &str, expected: &[(u32, &str)]) {
    let diagnostics = validate_map(&fixture(name));
    let found = errors(&diagnostics);
    assert_eq!(
        found.len(),
        expected.len(),
        "{name}: expected {expected:?}, found {found:#?}"
    );
    for (diagnostic, (line, fragment)) in found.iter().zip(expected) {
        assert_eq!(diagnostic.line, *line, "{name}: {diagnostic:?}");
        assert!(
            diagnostic.column > 0 || *line == 0,
            "{name}: no column in {diagnostic:?}"
        );
        assert!(
            diagnostic.text.contains(fragment),
            "{name}: {:?} does not contain {fragment:?}",
            diagnostic.text
        );
    }
    assert!(
        Board::from_toml(&fixture(name)).is_err(),
        "{name}: a map with errors must not load"
    );
}

fn board(text: &str) -> Board {
    match Board::from_toml(text) {
        Ok((board, _)) => board,
        Err(diagnostics) => panic!("map does not load: {diagnostics:#?}"),
    }
}

fn id_pair(board: &Board, a: &str, b: &str) -> (usize, usize) {
    let find = |id| {
        board
            .province_by_id(id)
            .unwrap_or_else(|| panic!("no province {id}"))
    };
    (find(a), find(b))
}

// ----- the shipped boards -----

#[test]
fn both_board_sides_pass_the_checker_without_any_finding() {
    assert_eq!(validate_map(SUN_MAP), Vec::<Diagnostic>::new());
    assert_eq!(validate_map(MOON_MAP), Vec::<Diagnostic>::new());
}

/// The numbers every side shares, from the printed province table.
fn assert_printed_numbers(board: &Board) {
    assert_eq!(board.provinces.len(), 45);
    assert_eq!(board.regions.len(), 5);
    for r in 0..board.regions.len() {
        assert_eq!(
            board.provinces_in_region(r).len(),
            9,
            "{}",
            board.regions[r].id
        );
    }
    let out: BTreeSet<&str> = board
        .provinces
        .iter()
        .filter(|p| p.out_of_play_with_3)
        .map(|p| p.id.as_str())
        .collect();
    let expected: BTreeSet<&str> = [
        "mutsu", "echigo", "kazusa", "awa-boso", "izumo", "iwami", "sanuki", "tosa",
    ]
    .into();
    assert_eq!(out, expected);
    assert_eq!(board.provinces.iter().map(|p| p.tax).sum::<u32>(), 220);
    assert_eq!(board.provinces.iter().map(|p| p.rice).sum::<u32>(), 140);
    assert_eq!(board.provinces.iter().map(|p| p.spaces).sum::<u32>(), 87);

    // The source lists 98 edges including Kai-Mikawa, which is not a border.
    let edges = board.edges();
    assert_eq!(edges.len(), 97);
    let sea: Vec<(usize, usize)> = edges
        .iter()
        .copied()
        .filter(|&(a, b)| board.is_sea_route(a, b))
        .collect();
    assert_eq!(sea.len(), 6);
    for (a, b) in [
        ("aki", "iyo"),
        ("awa-boso", "izu"),
        ("awa-shikoku", "kii"),
        ("harima", "sanuki"),
        ("izu", "shima"),
        ("kaga", "tajima"),
    ] {
        let (a, b) = id_pair(board, a, b);
        assert!(board.is_sea_route(a, b) && board.is_sea_route(b, a));
        assert!(board.are_neighbours(a, b) && board.are_neighbours(b, a));
    }
    let (kai, mikawa) = id_pair(board, "kai", "mikawa");
    assert!(!board.are_neighbours(kai, mikawa));
    let (harima, tamba) = id_pair(board, "harima", "tamba");
    assert!(board.are_neighbours(harima, tamba) && !board.is_sea_route(harima, tamba));

    let names = |id: &str| -> BTreeSet<String> {
        let p = board.province_by_id(id).expect("province");
        board
            .neighbours(p)
            .iter()
            .map(|&n| board.provinces[n].id.clone())
            .collect()
    };
    assert_eq!(
        names("awa-boso"),
        ["izu", "kazusa"].map(String::from).into()
    );
    assert_eq!(names("noto"), ["etchu", "kaga"].map(String::from).into());
    assert_eq!(names("shinano").len(), 9);

    let awa = &board.provinces[board.province_by_id("awa-shikoku").expect("province")];
    assert_eq!(awa.name, "Awa-Shikoku");
    assert_eq!((awa.tax, awa.rice, awa.spaces), (4, 2, 2));
    for p in &board.provinces {
        assert!(
            (0.0..=1000.0).contains(&p.x) && (0.0..=700.0).contains(&p.y),
            "{p:?}"
        );
    }
}

fn region_of(board: &Board, id: &str) -> String {
    let p = board.province_by_id(id).expect("province");
    board.regions[board.provinces[p].region].id.clone()
}

#[test]
fn the_sun_side_has_the_printed_provinces_regions_and_borders() {
    let sun = board(SUN_MAP);
    assert_eq!((sun.id.as_str(), sun.side.as_str()), ("shogun-sun", "sun"));
    assert_printed_numbers(&sun);
    assert_eq!(Board::shipped("sun"), Some(sun.clone()));
    assert_eq!(Board::shipped("moon"), Some(board(MOON_MAP)));
    assert_eq!(Board::shipped("star"), None);
    assert_eq!(region_of(&sun, "hitachi"), "brown");
    assert_eq!(region_of(&sun, "kai"), "yellow");
    assert_eq!(region_of(&sun, "sanuki"), "purple");
    assert_eq!(region_of(&sun, "mimasaka"), "green");
}

#[test]
fn the_moon_side_regroups_regions_and_states_its_assumptions() {
    let sun = board(SUN_MAP);
    let moon = board(MOON_MAP);
    assert_eq!(moon.side, "moon");
    assert_printed_numbers(&moon);
    for (province, region) in [
        ("echizen", "brown"),
        ("wakasa", "brown"),
        ("hitachi", "yellow"),
        ("kai", "red"),
        ("mimasaka", "red"),
        ("shinano", "red"),
        ("owari", "purple"),
        ("sanuki", "green"),
        ("mutsu", "brown"),
    ] {
        assert_eq!(region_of(&moon, province), region, "{province}");
    }
    // Borders are assumed to be the sun side's, and the file says so.
    let edge_ids = |b: &Board| -> BTreeSet<(String, String)> {
        b.edges()
            .into_iter()
            .map(|(x, y)| {
                let (x, y) = (b.provinces[x].id.clone(), b.provinces[y].id.clone());
                if x < y { (x, y) } else { (y, x) }
            })
            .collect()
    };
    assert_eq!(edge_ids(&moon), edge_ids(&sun));
    assert_eq!(moon.assumptions.len(), 3);
    assert!(MOON_MAP.contains("# ASSUMPTIONS"));
}

#[test]
fn a_board_survives_a_serde_round_trip_with_its_cards() {
    let sun = board(SUN_MAP);
    let json = serde_json::to_string(&sun).expect("serialise");
    let back: Board = serde_json::from_str(&json).expect("deserialise");
    assert_eq!(back, sun);
    assert_eq!(back.cards().events.len(), 12);
}

// ----- the default card set -----

#[test]
fn the_default_cards_carry_the_printed_numbers() {
    let cards: &Cards = &Cards::default_set();
    assert_eq!(cards.events.len(), 12);
    assert_eq!(
        cards.events.iter().map(|e| e.winter_rice_loss).sum::<u32>(),
        40
    );
    let event = |id: &str| {
        cards
            .events
            .iter()
            .find(|e| e.id == id)
            .unwrap_or_else(|| panic!("no {id}"))
            .effect
            .clone()
    };
    assert_eq!(event("event-0").theatre_removes_revolt, 1);
    assert_eq!(event("event-2").neutral_farmers, Some(2));
    assert_eq!(event("event-4").castle_defender_bonus, 1);
    assert!(event("event-8").temple_protection);
    assert_eq!(event("event-6").tax_max, Some(5));
    assert_eq!(event("event-7").tax_min, Some(6));
    assert_eq!(event("event-9").rice_min, Some(4));
    assert_eq!(event("event-10").rice_max, Some(3));
    assert_eq!(
        (event("event-11").recruit_5, event("event-11").recruit_3),
        (Some(3), Some(2))
    );
    assert_eq!(
        event("event-6"),
        shogun::data::EventEffect {
            tax_max: Some(5),
            ..Default::default()
        }
    );

    assert_eq!(cards.specials.len(), 5);
    let recruitment = cards
        .specials
        .iter()
        .find(|s| s.id == "recruitment")
        .expect("recruitment special");
    assert_eq!(recruitment.effect.recruit_5_bonus, 1);

    assert_eq!(cards.actions.len(), 10);
    let cost = |kind| cards.action(kind).map(|a| (a.cost, a.armies));
    assert_eq!(cost(ActionKind::BuildCastle), Some((3, 0)));
    assert_eq!(cost(ActionKind::BuildTemple), Some((2, 0)));
    assert_eq!(cost(ActionKind::BuildTheatre), Some((1, 0)));
    assert_eq!(cost(ActionKind::Recruit5), Some((3, 5)));
    assert_eq!(cost(ActionKind::Recruit3), Some((2, 3)));
    assert_eq!(cost(ActionKind::Recruit1Move), Some((1, 1)));
    assert_eq!(
        cards
            .actions
            .iter()
            .filter(|a| a.kind == ActionKind::BattleMove)
            .count(),
        2
    );

    let table: Vec<(u32, u32)> = (0..=9).map(|s| cards.provisions_for(s)).collect();
    assert_eq!(
        table,
        [
            (0, 0),
            (1, 1),
            (1, 2),
            (2, 2),
            (2, 2),
            (2, 3),
            (2, 3),
            (3, 3),
            (3, 3),
            (3, 3)
        ]
    );
    assert_eq!(cards.groups_for(5), [5, 4, 4, 3, 3, 2, 2]);
    assert_eq!(cards.groups_for(4).iter().sum::<u32>(), 25);
    assert_eq!(cards.groups_for(3).len(), 9);
    assert_eq!(
        [3, 4, 5].map(|n| cards.starting_chests_for(n)),
        [Some(18), Some(15), Some(12)]
    );
    assert_eq!(cards.starting_chests_for(6), None);
    assert_eq!((cards.cubes_per_player, cards.farmers), (62, 20));
    assert_eq!(
        (cards.tower_load_per_player, cards.tower_load_farmers),
        (7, 10)
    );
    assert_eq!(cards.tower_shelves.len(), 2);
    assert!(
        cards
            .tower_shelves
            .iter()
            .all(|s| s.lodge_chance == 0.15 && s.release_chance == 1.0 / 40.0)
    );
    for players in [3, 4, 5] {
        let seats = cards.beginner_setup_for(players);
        assert_eq!(seats.len(), players as usize);
        for seat in seats {
            let armies: u32 = seat.provinces.iter().map(|p| p.armies).sum();
            assert_eq!(armies, cards.groups_for(players).iter().sum::<u32>());
        }
    }
    let first = cards.beginner_setup_for(3)[0];
    assert!(
        first
            .provinces
            .iter()
            .any(|p| p.province == "suruga" && p.armies == 5)
    );
    assert_eq!(board(SUN_MAP).cards(), cards);
}

#[test]
fn a_map_card_section_replaces_only_the_parts_it_names() {
    let tiny = board(&fixture("tiny"));
    assert_eq!(tiny.cards().groups_for(5), [1]);
    assert_eq!(tiny.cards().beginner_setup_for(3).len(), 3);
    assert_eq!(tiny.cards().events, Cards::default_set().events);
}

// ----- one fixture per diagnostic -----

#[test]
fn the_tiny_base_map_loads_with_warnings_only() {
    let diagnostics = validate_map(&fixture("tiny"));
    assert!(errors(&diagnostics).is_empty(), "{diagnostics:#?}");
    let warnings: Vec<(u32, &str)> = diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.severity, Severity::Warning);
            (d.line, d.text.as_str())
        })
        .collect();
    assert_eq!(
        warnings,
        [
            (
                2,
                "1 province is out of play with 3 players (`out-of-play-with-3`); the printed board has 8"
            ),
            (
                9,
                "region `east` has 3 provinces; the printed board's regions have 9"
            ),
            (
                14,
                "region `west` has 3 provinces; the printed board's regions have 9"
            ),
        ]
    );
}

#[test]
fn an_unknown_field_is_an_error_naming_its_line_and_field() {
    assert_errors("unknown-field", &[(22, "unknown field `taxes`")]);
    assert_errors("unknown-card-field", &[(90, "unknown field `farmer`")]);
}

#[test]
fn a_missing_field_is_an_error_naming_the_field_and_its_table() {
    assert_errors(
        "missing-field",
        &[(40, "missing field `rice` (in `[[province]]`)")],
    );
}

#[test]
fn a_syntax_error_names_its_line() {
    assert_errors("syntax-error", &[(31, "(in `name = \"B`)")]);
}

#[test]
fn a_border_naming_an_unknown_province_is_an_error() {
    assert_errors(
        "unknown-border",
        &[(
            27,
            "province `a`: field `borders` names unknown province `nowhere`",
        )],
    );
}

#[test]
fn a_province_naming_an_unknown_region_is_an_error() {
    assert_errors(
        "unknown-region",
        &[(
            43,
            "province `c`: field `region` names unknown region `north`",
        )],
    );
}

#[test]
fn a_one_way_border_fails_with_its_line() {
    assert_errors(
        "one-way-border",
        &[(
            73,
            "one-way border: province `e` lists `f` in `borders`, but `f` does not list `e`",
        )],
    );
}

#[test]
fn self_loops_and_repeated_borders_are_errors() {
    assert_errors(
        "self-border",
        &[(
            27,
            "province `a`: field `borders` names the province itself",
        )],
    );
    assert_errors(
        "repeated-border",
        &[(27, "province `a`: field `borders` names `b` twice")],
    );
}

#[test]
fn a_border_that_is_land_on_one_side_and_sea_on_the_other_is_an_error() {
    assert_errors(
        "land-and-sea",
        &[
            (
                50,
                "`d` lists `c` in `borders`: a border is either land or sea",
            ),
            (
                61,
                "`c` lists `d` in `sea-routes`: a border is either land or sea",
            ),
        ],
    );
}

#[test]
fn a_province_in_no_region_or_in_two_is_an_error() {
    assert_errors(
        "no-region",
        &[(40, "province `c` is in no region: add a `region` field")],
    );
    assert_errors(
        "province-twice",
        &[(88, "province `b` is listed twice (first at line 30)")],
    );
}

#[test]
fn an_empty_region_is_an_error() {
    assert_errors("empty-region", &[(14, "region `west` has no province")]);
}

#[test]
fn province_values_out_of_range_are_errors() {
    assert_errors(
        "bad-spaces",
        &[(
            46,
            "province `c`: field `spaces` is 4, but a province has 1 to 3 building spaces",
        )],
    );
    assert_errors(
        "bad-tax",
        &[(
            22,
            "province `a`: field `tax` is 50, more than the largest sensible value 20",
        )],
    );
    assert_errors("bad-rice", &[(23, "(in `rice = -1`)")]);
}

#[test]
fn an_unreachable_province_is_an_error() {
    assert_errors(
        "disconnected",
        &[
            (
                53,
                "province `d` cannot be reached from `a`: the board is not connected",
            ),
            (
                65,
                "province `e` cannot be reached from `a`: the board is not connected",
            ),
            (
                76,
                "province `f` cannot be reached from `a`: the board is not connected",
            ),
        ],
    );
}

#[test]
fn a_board_cut_in_two_by_the_3_player_removals_is_an_error() {
    assert_errors(
        "disconnected-with-3",
        &[
            (54, "province `d` cannot be reached from `a` with 3 players"),
            (66, "province `e` cannot be reached from `a` with 3 players"),
        ],
    );
}

#[test]
fn too_few_provinces_for_the_countryside_groups_is_an_error() {
    assert_errors(
        "too-few-in-play",
        &[(
            2,
            "with 4 players only 6 provinces are in play, but 4 players x 2 countryside groups need 8",
        )],
    );
}

#[test]
fn a_beginner_setup_must_name_provinces_in_play() {
    assert_errors(
        "setup-unknown-province",
        &[(94, "field `provinces` names unknown province `z`")],
    );
    assert_errors(
        "setup-out-of-play",
        &[(94, "seat 1: province `f` is out of play with 3 players")],
    );
}

#[test]
fn the_default_beginner_setup_must_match_the_map() {
    let diagnostics = validate_map(&fixture("default-setup-mismatch"));
    let found = errors(&diagnostics);
    assert!(!found.is_empty());
    // The default cards are not in the map file: line 0, and the text names the card file's line.
    assert!(
        found
            .iter()
            .all(|d| d.line == 0 && d.text.contains("cards.toml line"))
    );
    assert!(
        found
            .iter()
            .any(|d| d.text.contains("names unknown province `suruga`")),
        "{found:#?}"
    );
}

#[test]
fn two_provinces_on_the_same_spot_are_a_warning_only() {
    let diagnostics = validate_map(&fixture("same-spot"));
    assert!(errors(&diagnostics).is_empty(), "{diagnostics:#?}");
    assert!(
        diagnostics
            .iter()
            .any(|d| d.line == 30 && d.text == "province `b` is drawn on the same spot as `a`"),
        "{diagnostics:#?}"
    );
    assert!(Board::from_toml(&fixture("same-spot")).is_ok());
}

#[test]
fn a_map_for_another_ruleset_is_an_error() {
    assert_errors(
        "wrong-ruleset",
        &[(
            5,
            "[map] field `ruleset` is \"chess\", but this is a map for \"shogun\"",
        )],
    );
}

#[test]
fn a_province_may_carry_its_outline_and_a_broken_one_is_an_error() {
    let tiny = fixture("tiny");
    let at = tiny.find("[[province]]").expect("a province");
    let line_end = at + tiny[at..].find('\n').unwrap() + 1;
    let with = |outline: &str| format!("{}{outline}\n{}", &tiny[..line_end], &tiny[line_end..]);
    let good = with("outline = [[0, 0], [40, 0], [40, 30], [0, 30]]");
    let board = board(&good);
    assert_eq!(
        board.provinces[0].outline,
        Some(vec![(0.0, 0.0), (40.0, 0.0), (40.0, 30.0), (0.0, 30.0)])
    );
    assert_eq!(board.provinces[1].outline, None);
    let bad = with("outline = [[0, 0], [40, 0]]");
    let diagnostics = validate_map(&bad);
    let found = errors(&diagnostics);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].text.contains("`outline` needs at least 3 points"),
        "{found:?}"
    );
    assert!(found[0].line > 0);
}
