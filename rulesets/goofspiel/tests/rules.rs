//! Goofspiel's own rules, beside the conformance suite: who takes a prize, what a seat may know
//! of another's bid, and what the search bots may imagine.

use goofspiel::rules::{Settings, State};
use sdk::testing::SeededTable;
use sdk::{Action, FromOptions, Game, Viewer};

fn new_game(seats: u32, settings: Settings) -> (State, SeededTable) {
    let mut table = SeededTable::new([7; 32]);
    let state = State::new(seats, settings, &mut table);
    (state, table)
}

/// `seat` bids `card` (a card of its hand).
fn bid(state: &mut State, table: &mut SeededTable, seat: u32, card: u8) {
    let index = state.hands[seat as usize]
        .iter()
        .position(|&held| held == card)
        .expect("a card of the hand");
    state
        .apply(seat, &Action::Choose(vec![index as u32]), table)
        .expect("a legal bid");
}

#[test]
fn the_highest_bid_takes_the_prize_and_every_bid_card_is_spent() {
    let (mut state, mut table) = new_game(3, Settings::defaults());
    let prize = state.prize.expect("a prize is up");
    bid(&mut state, &mut table, 0, 4);
    bid(&mut state, &mut table, 1, 9);
    assert_eq!(
        state.won[1],
        Vec::<u8>::new(),
        "nothing is shown before the last bid"
    );
    bid(&mut state, &mut table, 2, 2);
    assert_eq!(state.won, vec![vec![], vec![prize], vec![]]);
    assert_eq!(state.points(1), u32::from(prize));
    for (hand, spent) in state.hands.iter().zip([4, 9, 2]) {
        assert_eq!(hand.len(), 12);
        assert!(!hand.contains(&spent));
    }
    assert_eq!(
        state.bids,
        vec![None; 3],
        "the next prize starts without bids"
    );
    assert_eq!(state.deck.len(), 11, "the next prize is up");
}

#[test]
fn a_tie_for_the_best_bid_sets_the_prize_aside_even_with_a_lower_bid_alone() {
    let (mut state, mut table) = new_game(3, Settings::defaults());
    let prize = state.prize.expect("a prize is up");
    bid(&mut state, &mut table, 0, 8);
    bid(&mut state, &mut table, 1, 8);
    bid(&mut state, &mut table, 2, 3);
    assert!(state.won.iter().all(Vec::is_empty), "nobody takes it");
    assert_eq!(state.set_aside, vec![prize]);
    assert_eq!(state.last.as_ref().and_then(|last| last.taker), None);
}

#[test]
fn in_the_lowest_wins_variant_the_lowest_bid_takes_the_prize() {
    let settings = Settings {
        cards: 13,
        lowest_wins: true,
    };
    let (mut state, mut table) = new_game(2, settings);
    let prize = state.prize.expect("a prize is up");
    bid(&mut state, &mut table, 0, 1);
    bid(&mut state, &mut table, 1, 13);
    assert_eq!(state.won, vec![vec![prize], vec![]]);
}

#[test]
fn a_bid_not_yet_shown_changes_nothing_another_viewer_sees() {
    // Two games alike but for the card seat 1 bid: seat 0 and a spectator must not tell them apart.
    let (mut low, mut table) = new_game(2, Settings::defaults());
    let mut high = low.clone();
    bid(&mut low, &mut table, 1, 2);
    bid(&mut high, &mut table, 1, 12);
    for viewer in [Viewer::Seat(0), Viewer::Spectator] {
        assert_eq!(low.view(viewer), high.view(viewer), "{viewer:?}'s view");
        assert_eq!(
            low.render(viewer),
            high.render(viewer),
            "{viewer:?}'s board"
        );
    }
    assert_ne!(
        low.view(Viewer::Seat(1)),
        high.view(Viewer::Seat(1)),
        "the bidder sees its bid"
    );
    // And the events: the card for the bidder alone.
    let mut table = SeededTable::new([1; 32]);
    let events = high
        .clone()
        .apply(0, &Action::Choose(vec![0]), &mut table)
        .expect("a legal bid");
    let private: Vec<_> = events
        .iter()
        .filter(|event| event.text.key == "event.own-bid")
        .collect();
    assert_eq!(private.len(), 1);
    assert_eq!(private[0].audience, sdk::Audience::Seats(vec![0]));
}

#[test]
fn determinizing_keeps_what_the_seat_knows_and_redraws_the_rest() {
    let (mut state, mut table) = new_game(2, Settings::defaults());
    bid(&mut state, &mut table, 1, 6);
    let imagined = state.determinize(0, &mut table);
    assert_eq!(imagined.hands, state.hands, "hands are common knowledge");
    assert_eq!(imagined.prize, state.prize, "the prize is face up");
    let (mut deck, mut known) = (imagined.deck.clone(), state.deck.clone());
    deck.sort_unstable();
    known.sort_unstable();
    assert_eq!(deck, known, "the same cards face down, in some order");
    let guess = imagined.bids[1].expect("seat 1 has bid");
    assert!(
        state.hands[1].contains(&guess),
        "a bid seat 1 could have made"
    );
    assert_eq!(imagined.bids[0], None);
    // Seat 1 knows its own bid.
    assert_eq!(state.determinize(1, &mut table).bids[1], Some(6));
}

#[test]
fn a_whole_game_hands_out_every_prize_once() {
    let settings = Settings {
        cards: 7,
        lowest_wins: false,
    };
    let (mut state, mut table) = new_game(2, settings);
    for _ in 0..7 {
        for seat in 0..2 {
            let card = state.hands[seat as usize][0];
            bid(&mut state, &mut table, seat, card);
        }
    }
    assert!(state.pending().is_empty(), "the game is over");
    assert!(state.hands.iter().all(Vec::is_empty));
    // The same card each time: every prize is a tie.
    assert_eq!(
        state.set_aside.iter().map(|&p| u32::from(p)).sum::<u32>(),
        28
    );
    let result = state.result().expect("a result");
    assert_eq!(result.summary.key, "result.shared");
    assert!(result.placings.iter().all(|placing| placing.rank == 1));
}
