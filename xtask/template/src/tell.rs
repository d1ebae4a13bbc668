//! The words of the game: each outcome of the rules told as the events players read. The one
//! module that holds the catalogue keys of events; the rules report outcomes, never text.

use sdk::{Event, Message, Tell};

use super::rules::Outcome;

impl Tell for Outcome {
    type Context = ();

    fn tell(&self, (): &()) -> Vec<Event> {
        let text = match *self {
            Outcome::Took { seat, count, left } => Message::new("event.took")
                .seat("seat", seat)
                .number("count", count)
                .number("left", left),
            Outcome::Won { seat } => Message::new("event.won").seat("seat", seat),
        };
        vec![Event::public(text)]
    }
}
