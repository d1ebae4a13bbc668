//! The words of the game: each outcome of the rules told as the events players read. The one
//! module that holds the catalogue keys of events; the rules report outcomes, never text.

use sdk::{Event, Message, Tell};

use super::rules::Outcome;

impl Tell for Outcome {
    type Context = ();

    fn tell(&self, (): &()) -> Vec<Event> {
        match self {
            // The card for the bidder alone; for everyone, only that a bid was made.
            Outcome::Bid { seat, card, prize } => vec![
                Event::private(
                    *seat,
                    Message::new("event.own-bid")
                        .number("card", *card)
                        .number("prize", *prize),
                ),
                Event::public(Message::new("event.bid").seat("seat", *seat)),
            ],
            Outcome::Shown { prize, bids, taker } => {
                let shown = (0..).zip(bids).map(|(seat, bid)| {
                    Message::new("event.shown")
                        .seat("seat", seat)
                        .number("card", *bid)
                });
                let taken = match taker {
                    Some(seat) => Message::new("event.took")
                        .seat("seat", *seat)
                        .number("prize", *prize),
                    None => Message::new("event.tie").number("prize", *prize),
                };
                shown.chain([taken]).map(Event::public).collect()
            }
            Outcome::Prize { prize, left } => vec![Event::public(
                Message::new("event.prize")
                    .number("prize", *prize)
                    .number("left", *left),
            )],
        }
    }
}
