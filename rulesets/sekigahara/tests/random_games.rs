//! Whole random games on the small board: they always end (an instant win or after the last
//! week), blocks and cards are conserved at every step, and no step shows a seat what it may
//! not know (the view, the events, the board drawn for it).

mod common;

use common::{SMALL, new_game, table};
use sdk::{Game, MessageArg, Viewer, random_action};
use sekigahara::state::{Place, State, Step};
use sekigahara::{SekigaharaGame, names};

fn games() -> u64 {
    std::env::var("SEKIGAHARA_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60)
}

/// Every card of each deck is in exactly one place; blocks never leave the roster.
fn check_conservation(state: &State, context: &str) {
    let mut seen = vec![0u32; state.board.cards.len()];
    for side in 0..2 {
        for h in &state.hands[side] {
            seen[h.card] += 1;
        }
        for &c in state.decks[side].iter().chain(&state.discards[side]) {
            seen[c] += 1;
        }
    }
    if let Some(battle) = &state.battle {
        for cards in &battle.cards {
            for &c in cards {
                seen[c] += 1;
            }
        }
    }
    if let Step::Bid { bids } = &state.step {
        for c in bids.iter().flatten() {
            seen[*c] += 1;
        }
    }
    for (c, n) in seen.iter().enumerate() {
        assert_eq!(*n, 1, "{context}: card {c} is in {n} places");
    }
    for side in 0..2 {
        for h in &state.hands[side] {
            assert_eq!(
                state.board.cards[h.card].side, side,
                "{context}: a card in the wrong hand"
            );
        }
    }
    assert_eq!(state.blocks.len(), state.board.blocks.len(), "{context}");
    for (b, block) in state.blocks.iter().enumerate() {
        if let Place::Area(a) = block.place {
            assert!(
                a < state.board.areas.len(),
                "{context}: block {b} off the board"
            );
        }
    }
}

/// The blocks of `side` the other side may not see now: face down on the map, in the
/// reinforcement box or in the bag. With `unknown`, only those it cannot know either (not seen
/// since they last moved, not standing where the board file starts them).
fn hidden_blocks(state: &State, side: usize, unknown: bool) -> Vec<usize> {
    (0..state.blocks.len())
        .filter(|&b| {
            let block = &state.blocks[b];
            state.board.blocks[b].side == side
                && !block.shown
                && !(unknown && block.known)
                && matches!(block.place, Place::Area(_) | Place::Reserve | Place::Bag)
        })
        .collect()
}

fn check_secrets(game: &SekigaharaGame, events: &[sdk::Event], context: &str) {
    let state = &game.state;
    for side in 0..2usize {
        let viewer = Viewer::Seat((1 - side) as u32);
        let view = game.view(viewer);
        let render: String = game.render(viewer).into_iter().map(|p| p.svg).collect();
        let parsed: serde_json::Value = serde_json::from_str(&view).expect("the view is JSON");
        let hand = parsed["sides"][side]["hand"]
            .as_array()
            .expect("a hand list");
        let known = state.hands[side].iter().filter(|h| h.known).count();
        assert_eq!(
            hand.len(),
            known,
            "{context}: the opponent sees unknown hand cards"
        );
        for b in hidden_blocks(state, side, false) {
            let id = &state.board.blocks[b].id;
            let quoted = format!("\"{id}\"");
            assert!(
                !view.contains(&quoted),
                "{context}: {id} shown in the opponent's view"
            );
            assert!(
                !render.contains(id.as_str()),
                "{context}: {id} drawn for the opponent"
            );
        }
        for b in hidden_blocks(state, side, true) {
            let id = &state.board.blocks[b].id;
            let arg = names::block_arg(state, b);
            for event in events {
                if event.audience.includes(viewer) {
                    for (_, value) in &event.text.args {
                        assert!(
                            !matches!((value, &arg), (MessageArg::Text(a), MessageArg::Text(b)) if a == b && a.contains(id.as_str()))
                                && value != &MessageArg::Key(format!("block.{id}")),
                            "{context}: an event names hidden {id}"
                        );
                    }
                }
            }
        }
        // A bid is secret until both are in.
        if let Step::Bid { bids } = &state.step
            && bids[side].is_some()
        {
            assert!(parsed["sides"][side]["last_bid"].is_null() || state.last_bids[side].is_some());
        }
    }
}

fn play(board: &str, seed: u64) -> SekigaharaGame {
    let mut table = table(seed);
    let mut game = new_game(board, &mut table);
    let mut steps = 0;
    let mut events = Vec::new();
    loop {
        let context = format!("seed {seed}, step {steps}, week {}", game.state.week);
        check_conservation(&game.state, &context);
        check_secrets(&game, &events, &context);
        let pending = game.pending();
        let Some(decision) = pending.first() else {
            break;
        };
        let action = random_action(&decision.kind, &mut table);
        game.preview(decision.seat, &action)
            .unwrap_or_else(|e| panic!("{context}: preview refused a legal answer: {e}"));
        events = game
            .apply(decision.seat, &action, &mut table)
            .unwrap_or_else(|e| {
                panic!("{context}: a legal-shaped random answer was refused: {e:?} {decision:?}")
            });
        steps += 1;
        assert!(steps < 20_000, "{context}: the game does not end");
    }
    game
}

#[test]
fn random_games_end_with_blocks_and_cards_conserved_and_secrets_kept() {
    let mut endings = [0u32; 3];
    for seed in 0..games() {
        let game = play(SMALL, seed);
        let state = &game.state;
        let (_, ending) = state.ending.expect("a finished game has a winner");
        endings[ending as usize] += 1;
        assert!(game.result().is_some());
        if ending == sekigahara::state::Ending::Points {
            assert_eq!(
                state.week,
                state.board.weeks(),
                "seed {seed}: scored before the last week"
            );
        }
    }
    eprintln!("endings (commander, disk, points): {endings:?}");
}

/// The shipped board names its leaders by catalogue keys: no event may name a hidden one.
#[test]
fn random_games_on_the_shipped_board_keep_every_secret() {
    let board = include_str!("../../../maps/sekigahara/japan-1600.toml");
    for seed in 0..games() / 10 {
        let game = play(board, 1000 + seed);
        assert!(game.state.ending.is_some());
    }
}
