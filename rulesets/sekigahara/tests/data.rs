//! The board file: the test board reads clean, and each broken field is reported at its place.

use sekigahara::data::{AreaKind, Board, CardKind, Start, validate_map};

const SMALL: &str = include_str!("maps/small.toml");

fn errors_of(text: &str) -> Vec<(u32, String)> {
    validate_map(text)
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| (d.line, d.text))
        .collect()
}

fn line_of(text: &str, needle: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle") as u32
        + 1
}

#[test]
fn the_small_board_reads_clean() {
    let (board, warnings) = Board::from_toml(SMALL).expect("clean");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(board.sides.len(), 2);
    assert_eq!(board.weeks(), 3);
    assert_eq!(board.starting_reinforcements, 4, "the default");
    assert_eq!(board.areas.len(), 9);
    let fort = board.area_index("fort").unwrap();
    assert_eq!(board.areas[fort].kind, AreaKind::Castle);
    assert_eq!(board.areas[fort].owner, Some(0));
    assert_eq!(board.disks[board.areas[fort].disk.unwrap()].area, fort);
    assert_eq!(board.capital_of(1), board.area_index("east-capital"));
    let road = board
        .road_between(fort, board.area_index("pass").unwrap())
        .unwrap();
    assert!(board.roads[road].highway);
    assert_eq!(
        board
            .blocks
            .iter()
            .filter(|b| b.start == Start::Box)
            .count(),
        2
    );
    assert_eq!(board.cards.iter().filter(|c| c.side == 0).count(), 20);
    assert_eq!(
        board
            .cards
            .iter()
            .filter(|c| c.kind == CardKind::LoyaltyChallenge && c.clan.is_none())
            .count(),
        4
    );
}

#[test]
fn an_unknown_field_is_an_error_at_its_line() {
    let text = SMALL.replace(
        "kind = \"plain\"\n",
        "kind = \"plain\"\nterrain = \"hills\"\n",
    );
    let errors = errors_of(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, line_of(&text, "terrain"));
    assert!(errors[0].1.contains("terrain"), "{errors:?}");
}

#[test]
fn a_road_to_nowhere_is_an_error_at_its_line() {
    let text = SMALL.replace(
        "between = [\"ford\", \"hill\"]",
        "between = [\"ford\", \"swamp\"]",
    );
    let errors = errors_of(&text);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, line_of(&text, "swamp"));
    assert!(errors[0].1.contains("no area `swamp`"));
}

#[test]
fn a_castle_without_owner_and_a_bad_mon_are_both_reported() {
    let text = SMALL
        .replace(
            "kind = \"castle\"\nowner = \"east\"\n",
            "kind = \"castle\"\n",
        )
        .replace("mon = 4\n", "mon = 5\n");
    let errors = errors_of(&text);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|(_, m)| m.contains("castle `keep` needs its original owner"))
    );
    assert!(
        errors
            .iter()
            .any(|(l, m)| m.contains("mon is 1 to 4") && *l == line_of(&text, "mon = 5"))
    );
}

#[test]
fn a_cut_off_area_a_duplicate_id_and_a_clanless_card_are_reported() {
    let text = SMALL
        .replace("[[road]]\nbetween = [\"farm\", \"east-capital\"]\n", "")
        .replace(
            "[[road]]\nbetween = [\"keep\", \"east-capital\"]\nhighway = true\n",
            "",
        );
    let errors = errors_of(&text);
    assert!(
        errors
            .iter()
            .any(|(_, m)| m.contains("`east-capital` cannot be reached")),
        "{errors:?}"
    );
    let text = SMALL.replace("id = \"red-4\"", "id = \"red-3\"");
    assert!(
        errors_of(&text)
            .iter()
            .any(|(_, m)| m.contains("block `red-3` is defined twice"))
    );
    let text = SMALL.replacen("clan = \"blue\"\nnumber = 6", "number = 6", 1);
    assert!(
        errors_of(&text)
            .iter()
            .any(|(_, m)| m.contains("names its clan"))
    );
}

#[test]
fn a_grammar_error_names_its_line() {
    let text = SMALL.replace("mon = 4\n", "mon = \"four\"\n");
    let errors = errors_of(&text);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, line_of(&text, "four"));
}
