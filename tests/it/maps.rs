//! The worked example of an original Shogun map (`maps/shogun/examples/five-isles.toml`): it
//! passes the ruleset's map check and plays to the end with 3, 4 and 5 random bots.

use std::path::Path;

use sdk::native::adapt;
use sdk::{OptionSetting, OptionValue};
use shogun::Shogun;

use crate::variants::{create, play_to_the_end, state_of};

fn example_map() -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../maps/shogun/examples/five-isles.toml");
    std::fs::read_to_string(path).expect("the example map is shipped")
}

#[test]
fn the_example_map_passes_the_map_check_without_a_finding() {
    let diagnostics = adapt::<Shogun>().validate_map(&example_map());
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let (board, _) = shogun::data::Board::from_toml(&example_map()).expect("a clean map");
    assert_eq!(
        (board.id.as_str(), board.provinces.len()),
        ("five-isles", 45)
    );
    // An original board: none of its provinces is one of the printed board's.
    let printed = shogun::data::Board::shipped("sun").expect("the sun side");
    assert!(
        board
            .provinces
            .iter()
            .all(|p| printed.province_by_id(&p.id).is_none())
    );
}

#[test]
fn the_example_map_plays_to_the_end_with_three_four_and_five_random_bots() {
    let map = example_map();
    for seats in 3..=5 {
        let (mut game, mut table) = create(&map, &[], seats, 40 + u64::from(seats));
        let result = play_to_the_end(game.as_mut(), &mut table);
        assert_eq!(result.placings.len(), seats as usize);
        let state = state_of(game.as_ref());
        assert_eq!(state.board.id, "five-isles");
        assert_eq!(state.year, 2, "{seats} seats: two years were played");
        // With 3 players the 8 provinces out of play stay empty all game.
        for (p, province) in state.provinces.iter().enumerate() {
            if !state.in_play(p) {
                assert_eq!(province.owner, None, "{seats} seats: province {p}");
            }
        }
    }
}

#[test]
fn the_example_map_s_own_beginner_setup_is_dealt_for_every_player_count() {
    let map = example_map();
    let beginner = [OptionSetting {
        name: "setup".into(),
        value: OptionValue::Choice("beginner".into()),
    }];
    for seats in 3..=5 {
        let (game, _) = create(&map, &beginner, seats, 9);
        let state = state_of(game.as_ref());
        let setup = state.board.cards().beginner_setup_for(seats);
        assert_eq!(setup.len(), seats as usize);
        for seat in setup {
            let owned = state.provinces_of(seat.seat - 1).len();
            assert_eq!(
                owned,
                seat.provinces.len(),
                "{seats} seats, seat {}",
                seat.seat
            );
        }
    }
}

#[test]
fn a_map_without_a_beginner_setup_still_plays_with_the_draft() {
    // The example with its own beginner setup replaced by none at all.
    let full = example_map();
    let cut = full
        .find("\n[cards]")
        .expect("the example has a [cards] section");
    let map = format!("{}\n[cards]\nbeginner-setup = []\n", &full[..cut]);
    assert!(adapt::<Shogun>().validate_map(&map).is_empty());
    let (mut game, mut table) = create(&map, &[], 4, 5);
    assert_eq!(play_to_the_end(game.as_mut(), &mut table).placings.len(), 4);
    let beginner = sdk::Setup {
        map,
        options: vec![OptionSetting {
            name: "setup".into(),
            value: OptionValue::Choice("beginner".into()),
        }],
        seats: 4,
    };
    let refused = adapt::<Shogun>()
        .create(&beginner, &mut sdk::testing::SeededTable::new([0; 32]))
        .err()
        .expect("no beginner setup to deal");
    assert!(
        refused
            .to_string()
            .contains("no beginner setup for 4 players"),
        "{refused}"
    );
}
