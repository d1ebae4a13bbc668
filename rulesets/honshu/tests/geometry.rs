//! The fast placement geometry ([`Grid`]) gives the answers of the plain rules
//! ([`placement_problem`], [`overlap`]) for every corner and rotation of every card waiting to be
//! placed in random games of 2-5 players.

mod common;

use common::{options, setup};
use honshu::Honshu;
use honshu::engine::{Grid, bounds, overlap, placement_problem};
use honshu::state::{Layer, Phase};
use sdk::testing::SeededTable;
use sdk::{Game, Ruleset, random_action};

#[test]
fn the_grid_agrees_with_the_rules_everywhere() {
    for seats in 2..=5u32 {
        let mut seed = [3u8; 32];
        seed[0] = seats as u8;
        let mut table = SeededTable::new(seed);
        let mut game = Honshu::create(&setup(seats), &options(&[]), &mut table).unwrap();
        let mut checked = 0;
        while let Some(decision) = game.pending().first().cloned() {
            if game.state.phase == Phase::Place {
                for player in &game.state.players {
                    let Some(card) = player.to_place else {
                        continue;
                    };
                    let layout = game.state.deck.card(card);
                    let grid = Grid::new(&player.map).unwrap();
                    let (min_x, max_x, min_y, max_y) = bounds(&player.map).unwrap();
                    for rotation in 0..4 {
                        for y in min_y - 4..=max_y + 4 {
                            for x in min_x - 4..=max_x + 4 {
                                let legal = |layer| {
                                    placement_problem(&player.map, layout, (x, y), rotation, layer)
                                        .is_none()
                                };
                                assert_eq!(
                                    grid.layers(layout, (x, y), rotation),
                                    (legal(Layer::Over), legal(Layer::Under)),
                                    "card {card} at {x},{y} turned {rotation}"
                                );
                                assert_eq!(
                                    grid.overlap((x, y), rotation),
                                    overlap(&player.map, (x, y), rotation)
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
            let action = random_action(&decision.kind, &mut table);
            game.apply(decision.seat, &action, &mut table).unwrap();
        }
        assert!(
            checked > 10_000,
            "{seats} seats: only {checked} placements checked"
        );
    }
}
