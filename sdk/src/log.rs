//! What the rules report during one call: typed outcomes, worded in one place.
//!
//! A ruleset's rules push its own outcome type (seats, pieces, places, counts; no text) into a
//! [`Log`]; the log words each one at once through the ruleset's [`Tell`] implementation, with
//! whatever context the ruleset gives it (usually the state as it stood when the outcome
//! happened). So the rules hold no catalogue key, the words live in the one module that
//! implements [`Tell`], and that module need not be imported by the rules or by the outcome
//! type's module.

use crate::Event;

/// How a ruleset words its outcomes: the events that tell one, from `context`.
pub trait Tell {
    /// What the words may read besides the outcome: the game's state, or `()`.
    type Context: ?Sized;

    /// The events that tell `self`, in order.
    fn tell(&self, context: &Self::Context) -> Vec<Event>;
}

/// The outcomes of one call in order, each with the battle-tower drop it explains, and the
/// events that tell them.
#[derive(Debug)]
pub struct Log<O> {
    outcomes: Vec<O>,
    drops: Vec<Option<u32>>,
    events: Vec<Event>,
    /// Drops made through the tower so far in this call.
    dropped: u32,
}

impl<O> Default for Log<O> {
    fn default() -> Self {
        Log {
            outcomes: Vec::new(),
            drops: Vec::new(),
            events: Vec::new(),
            dropped: 0,
        }
    }
}

impl<O: Tell> Log<O> {
    /// An empty log for a new call.
    pub fn new() -> Self {
        Log::default()
    }

    /// Reports an outcome that explains no drop, worded from `context`.
    pub fn push(&mut self, context: &O::Context, outcome: O) {
        self.push_with_drop(context, outcome, None);
    }

    /// Reports an outcome that explains a drop (when there was one), worded from `context`.
    pub fn push_with_drop(&mut self, context: &O::Context, outcome: O, drop: Option<u32>) {
        self.events.extend(
            outcome
                .tell(context)
                .into_iter()
                .map(|event| event.with_drops(drop)),
        );
        self.outcomes.push(outcome);
        self.drops.push(drop);
    }
}

impl<O> Log<O> {
    /// Counts a drop made through the tower and returns its index in this call.
    pub fn count_drop(&mut self) -> u32 {
        self.dropped += 1;
        self.dropped - 1
    }

    /// Whether nothing was reported yet.
    pub fn is_empty(&self) -> bool {
        self.outcomes.is_empty()
    }

    /// The outcomes, in order.
    pub fn outcomes(&self) -> &[O] {
        &self.outcomes
    }

    /// The outcomes in order, each with the drop it explains.
    pub fn told(&self) -> impl Iterator<Item = (&O, Option<u32>)> {
        self.outcomes.iter().zip(self.drops.iter().copied())
    }

    /// The events that tell the outcomes, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The outcomes in order, each with the drop it explains, for a caller that tells them
    /// again in a larger context.
    pub fn into_outcomes(self) -> Vec<(O, Option<u32>)> {
        self.outcomes.into_iter().zip(self.drops).collect()
    }

    /// The events that tell the outcomes, in order.
    pub fn into_events(self) -> Vec<Event> {
        self.events
    }
}

#[cfg(test)]
mod tests {
    use super::{Log, Tell};
    use crate::{Event, Message};

    #[derive(Debug, PartialEq)]
    struct Scored(i64);

    impl Tell for Scored {
        type Context = str;
        fn tell(&self, player: &str) -> Vec<Event> {
            vec![Event::public(
                Message::new("scored")
                    .text("player", player)
                    .number("points", self.0),
            )]
        }
    }

    #[test]
    fn each_outcome_is_told_when_pushed_with_its_drop() {
        let mut log = Log::new();
        assert!(log.is_empty());
        log.push("ann", Scored(2));
        let drop = log.count_drop();
        log.push_with_drop("bo", Scored(5), Some(drop));
        assert_eq!(log.outcomes(), &[Scored(2), Scored(5)]);
        assert_eq!(
            log.told().map(|(_, drop)| drop).collect::<Vec<_>>(),
            vec![None, Some(0)]
        );
        let events = log.into_events();
        assert_eq!(events.len(), 2);
        assert_eq!(events[1].drops, vec![0]);
        assert_eq!(
            events[1].text,
            Message::new("scored")
                .text("player", "bo")
                .number("points", 5)
        );
    }
}
