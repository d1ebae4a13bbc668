//! The words of the rules: every outcome ([`Outcome`]) told as the events players read, with the
//! catalogue keys of the game's story. The only module that turns what happened into text; the
//! rules themselves hold no catalogue key of an event.

use sdk::{Event, Message, Seat, Summary, SummaryLine};

use crate::data::Colour;
use crate::outcome::Outcome;
use crate::state::Layer;

/// The catalogue key of a colour, as an argument.
fn colour_key(colour: Colour) -> String {
    format!("colour.{}", colour.name())
}

impl sdk::Tell for Outcome {
    type Context = ();

    fn tell(&self, (): &()) -> Vec<Event> {
        events(self)
    }
}

/// The events that tell `outcome`.
pub fn events(outcome: &Outcome) -> Vec<Event> {
    let public = |message: Message| vec![Event::public(message)];
    let own = |seat: Seat, message: Message| vec![Event::private(seat, message)];
    // A placing step: who, and which card.
    let told = |key: &str, seat: Seat, card: u8| {
        Message::new(key).seat("player", seat).number("card", card)
    };
    match outcome {
        Outcome::CardPlayed { seat, card } => public(told("event.card-played", *seat, *card)),
        Outcome::ResourcePlayed {
            seat,
            colour,
            value,
        } => public(
            Message::new("event.resource-played")
                .seat("player", *seat)
                .key("colour", colour_key(*colour))
                .number("value", *value),
        ),
        Outcome::NoResource { seat, card } => public(told("event.no-resource", *seat, *card)),
        Outcome::NewOrder { first } => {
            public(Message::new("event.new-order").seat("first", *first))
        }
        Outcome::CardTaken { seat, card } => public(told("event.card-taken", *seat, *card)),
        Outcome::DuelCommitted { seat, card } => vec![
            Event::private(
                *seat,
                Message::new("event.duel-committed").number("card", *card),
            ),
            // Everyone learns that a card was chosen, not which.
            Event::public(Message::new("event.duel-chosen").seat("player", *seat)),
        ],
        Outcome::DuelRevealed { cards, winner } => public(
            Message::new("event.duel-revealed")
                .number("first", cards[0])
                .number("second", cards[1])
                .seat("winner", *winner),
        ),
        Outcome::FeeAnswered { seat, winner, pay } => public(if *pay {
            Message::new("event.fee-paying").seat("player", *seat)
        } else {
            Message::new("event.fee-declined")
                .seat("player", *seat)
                .seat("winner", *winner)
        }),
        Outcome::FeePaid { seat } => public(Message::new("event.fee-paid").seat("player", *seat)),
        Outcome::PairTaken { seat, cards } => public(
            Message::new("event.pair-taken")
                .seat("player", *seat)
                .number("first", cards[0])
                .number("second", cards[1]),
        ),
        Outcome::KeepChosen { seat } => {
            public(Message::new("event.keep-chosen").seat("player", *seat))
        }
        Outcome::Kept {
            seat,
            card,
            discarded,
        } => public(told("event.kept", *seat, *card).number("discarded", *discarded)),
        // A placement in progress is the placing seat's own business until it is confirmed:
        // only that seat is told its steps, so others never watch a card being turned.
        Outcome::PlacingBack { seat, card } => own(*seat, told("event.placing-back", *seat, *card)),
        Outcome::PlacingRotated {
            seat,
            card,
            rotation,
        } => own(
            *seat,
            told("event.placing-rotated", *seat, *card)
                .number("degrees", i64::from(*rotation) * 90),
        ),
        Outcome::PlacingPosition { seat, card, .. } => {
            own(*seat, told("event.placing-position", *seat, *card))
        }
        Outcome::Placed {
            seat,
            card,
            layer,
            resources,
        } => {
            let key = match layer {
                Layer::Over => "event.placed-over",
                Layer::Under => "event.placed-under",
            };
            let mut events = public(told(key, *seat, *card));
            let colour = |key: &str, colour: &Colour| {
                Event::public(
                    Message::new(key)
                        .seat("player", *seat)
                        .key("colour", colour_key(*colour)),
                )
            };
            events.extend(
                resources
                    .gained
                    .iter()
                    .map(|c| colour("event.resource-gained", c)),
            );
            events.extend(
                resources
                    .short
                    .iter()
                    .map(|c| colour("event.pool-empty", c)),
            );
            events.extend(
                resources
                    .discarded
                    .iter()
                    .map(|c| colour("event.resource-covered", c)),
            );
            events
        }
        Outcome::Unplaceable { seat, card } => public(told("event.unplaceable", *seat, *card)),
        Outcome::NewHands => public(Message::new("event.new-hands")),
        Outcome::HandsPassed { step } => public(Message::new(if *step == 1 {
            "event.passed-left"
        } else {
            "event.passed-right"
        })),
        Outcome::Round { round } => public(Message::new("event.round").number("round", *round)),
        Outcome::Scored { sheets } => scored(sheets),
    }
}

/// Every seat's final score; the last closes the game, its summary the scoring sheet of every
/// seat.
fn scored(sheets: &[crate::state::ScoreSheet]) -> Vec<Event> {
    let mut events = Vec::new();
    let mut lines = Vec::new();
    for (seat, sheet) in sheets.iter().enumerate() {
        events.push(Event::public(
            Message::new("event.final-score")
                .seat("player", seat as Seat)
                .number("points", sheet.total),
        ));
        for (label, points) in sheet.lines() {
            lines.push(SummaryLine {
                seat: Some(seat as Seat),
                label: Message::new(label),
                value: Some(points),
            });
        }
        // The sheet's total, then the tie-break in words (it is not points).
        lines.push(SummaryLine {
            seat: Some(seat as Seat),
            label: Message::new("summary.total"),
            value: Some(sheet.total),
        });
        lines.push(SummaryLine {
            seat: Some(seat as Seat),
            label: Message::new("summary.fallow-visible").number("fallow", sheet.fallow),
            value: None,
        });
    }
    if let Some(last) = events.pop() {
        events.push(last.with_summary(Summary {
            title: Message::new("summary.final-title"),
            lines,
        }));
    }
    events
}
