//! The two traits a ruleset author implements.

use crate::{
    Action, BoardPart, Catalogues, Diagnostic, Event, GameResult, MapEditor, Options,
    PendingDecision, PreviewNote, Rejection, RulesetInfo, Seat, Setup, SetupError, Table, Viewer,
};

/// The rules of one board game. Register the implementing type with
/// [`register_ruleset!`](crate::register_ruleset).
///
/// Every method is called by the host through the contract; none of them may keep state between
/// calls except inside a [`Game`].
pub trait Ruleset: 'static {
    /// A game in progress.
    type Game: Game;

    /// The ruleset's description: id, seats, maps, option schema, languages.
    ///
    /// Called when the host loads the component and whenever a client lists rulesets.
    fn info() -> RulesetInfo;

    /// Checks a map given as TOML text and says what is wrong with it, with line and column.
    ///
    /// Called by `tenka map check`, by the map preview page and before every new game. An empty
    /// list, or warnings only, means the map can be played.
    fn validate_map(map: &str) -> Vec<Diagnostic>;

    /// The ruleset's message catalogues, declared once with
    /// [`catalogues!`](crate::catalogues) in a `static`. The default has none, for a ruleset
    /// that writes [`Ruleset::catalogue`] itself.
    fn catalogues() -> &'static Catalogues {
        static NONE: Catalogues = Catalogues::new(&[]);
        &NONE
    }

    /// The message catalogue for `language` as TOML text (`key = "template"`), or `None` when
    /// the ruleset does not ship that language. The default reads [`Ruleset::catalogues`].
    ///
    /// Called by clients to translate every [`Message`](crate::Message) the ruleset produces.
    fn catalogue(language: &str) -> Option<&'static str> {
        Self::catalogues().get(language)
    }

    /// What the map editor can change in this ruleset's maps (see [`MapEditor`]), or `None`
    /// when they are edited as text only (the default).
    ///
    /// Called when the host loads the ruleset. The host checks the schema and offers the text
    /// editor alone for one it refuses.
    fn map_editor() -> Option<MapEditor> {
        None
    }

    /// Starts a new game.
    ///
    /// Called once per game with the setup and the options already resolved against the schema
    /// of [`Ruleset::info`]. Draw every random number the setup needs from `table`.
    fn create(
        setup: &Setup,
        options: &Options,
        table: &mut dyn Table,
    ) -> Result<Self::Game, SetupError>;

    /// Starts a game from a position file (TOML) describing a mid-game state.
    ///
    /// Called by tests and teaching tools. The default refuses: a ruleset without positions.
    fn create_from_position(
        setup: &Setup,
        options: &Options,
        position: &str,
        table: &mut dyn Table,
    ) -> Result<Self::Game, SetupError> {
        let _ = (setup, options, position, table);
        Err(SetupError::Position(
            "this ruleset does not start from positions".into(),
        ))
    }

    /// Rebuilds a game from the bytes of [`Game::snapshot`].
    ///
    /// Called when the host reloads a stored game or recovers from a failed call.
    fn restore(bytes: &[u8]) -> Result<Self::Game, String>;
}

/// A game in progress.
///
/// `Clone` lets the SDK undo a rejected action for you: the game seen after a [`Rejection`] is
/// always the game as it was before the call.
pub trait Game: Clone + 'static {
    /// The decisions the game waits for; several seats at once during simultaneous moves.
    /// An empty list means the game is over.
    ///
    /// Called after every action. The SDK checks each action against this list before
    /// [`Game::apply`] sees it, so `apply` gets only well-shaped actions from pending seats.
    fn pending(&self) -> Vec<PendingDecision>;

    /// Applies one seat's answer to its pending decision and returns what happened.
    ///
    /// Return [`Rejection::Illegal`] for an answer that breaks a rule. The SDK restores the game
    /// as it was before the call, so `apply` may mutate freely before deciding to reject.
    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection>;

    /// Whether [`Game::apply`] checks each action against the seat's decision itself, as a game
    /// that decides through [`Play`](crate::Play) does ([`offer::answer`](crate::offer::answer)
    /// builds the seat's offer once and checks the shape once); then [`Game::answer`] does not
    /// check it a second time. [`decided_by_offers!`](crate::decided_by_offers) sets it.
    const APPLY_CHECKS_ANSWERS: bool = false;

    /// Checks `action` against `seat`'s pending decision, then applies it: what the SDK calls
    /// for every action. Unless [`Game::APPLY_CHECKS_ANSWERS`], it builds [`Game::pending`] and
    /// checks the action with [`check_answer`] before it calls [`Game::apply`].
    fn answer(
        &mut self,
        seat: Seat,
        action: &Action,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        if !Self::APPLY_CHECKS_ANSWERS {
            let pending = self.pending();
            let decision = pending
                .iter()
                .find(|d| d.seat == seat)
                .ok_or(Rejection::NotYourTurn)?;
            check_answer(decision, action)?;
        }
        self.apply(seat, action, table)
    }

    /// The state as `viewer` may see it, as JSON of the ruleset's own shape.
    ///
    /// Must contain nothing `viewer` may not know: the host sends it to that viewer as it is.
    fn view(&self, viewer: Viewer) -> String;

    /// The board as `viewer` sees it, in parts the client lays out for the screen: the map,
    /// a panel per seat, the table's other parts. Each part is an SVG document (see the contract
    /// for the `data-` attributes that tie elements to decisions and texts to catalogues).
    fn render(&self, viewer: Viewer) -> Vec<BoardPart>;

    /// What `action` would do if `seat` sent it now, without doing it: what it costs, what
    /// would be skipped and why.
    ///
    /// Called while a player composes an answer, so the action may pick or place fewer than
    /// the decision's minimum; the SDK has checked everything else of its shape and that the
    /// seat is pending. The default says nothing.
    fn preview(&self, seat: Seat, action: &Action) -> Result<Vec<PreviewNote>, Rejection> {
        let _ = (seat, action);
        Ok(Vec::new())
    }

    /// The result, once [`Game::pending`] is empty.
    fn result(&self) -> Option<GameResult>;

    /// The whole state as bytes, readable by [`Ruleset::restore`].
    fn snapshot(&self) -> Vec<u8>;

    /// A copy in which everything `seat` cannot know is redrawn at random from `table`.
    ///
    /// Called by search bots before they simulate. The default copies the game as it is, which
    /// is right only for a game without hidden information: override it otherwise.
    fn determinize(&self, seat: Seat, table: &mut dyn Table) -> Self {
        let _ = (seat, table);
        self.clone()
    }

    /// A cheap heuristic estimate of the position for `seat`: its expected share of the win,
    /// in `0.0..=1.0`, for bots that cut their search short. The default gives none, and bots
    /// then play out the game to its end. Must not need a table: it changes nothing.
    fn evaluate(&self, seat: Seat) -> Option<f64> {
        let _ = seat;
        None
    }

    /// A quick answer to `seat`'s pending decision, as a sensible player would give it without
    /// thinking ahead: the rollout policy of search bots, which play it in their playouts and
    /// weigh it first among the answers they try. `salt` varies the answer between calls (use
    /// [`Salt`](crate::Salt) to draw from it); the same position and salt must give the same
    /// answer. The default gives none, and bots answer at random. Must not need a table: it
    /// changes nothing. An answer that does not fit the decision is ignored.
    fn rollout_action(&self, seat: Seat, salt: u64) -> Option<Action> {
        let _ = (seat, salt);
        None
    }
}

/// Checks that `action` answers `decision`: [`Action::Back`] only where the decision offers a
/// way back, any other action by [`check_action_shape`]. The SDK calls it before every
/// [`Game::apply`]; the host calls it too, so a refused answer never reaches the ruleset.
pub fn check_answer(decision: &crate::PendingDecision, action: &Action) -> Result<(), Rejection> {
    match action {
        Action::Back if decision.back.is_some() => Ok(()),
        _ => check_action_shape(&decision.kind, action),
    }
}

/// Checks that `action` fits the shape of `decision`. The SDK calls it before every
/// [`Game::apply`]; the host calls it too, to refuse a bad request before reaching the ruleset.
pub fn check_action_shape(
    decision: &crate::DecisionKind,
    action: &Action,
) -> Result<(), Rejection> {
    check_shape(decision, action, Completeness::Complete)
}

/// Checks that `action` fits the shape of `decision` as an answer still being composed: as
/// [`check_action_shape`], except that it may pick or place fewer than the minimum. The SDK calls
/// it before every [`Game::preview`].
pub fn check_draft_shape(decision: &crate::DecisionKind, action: &Action) -> Result<(), Rejection> {
    check_shape(decision, action, Completeness::Draft)
}

/// Why [`Action::Back`] is refused from a decision that offers no way back.
pub(crate) const NO_WAY_BACK: &str = "this decision offers no way back";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Completeness {
    Complete,
    Draft,
}

fn check_shape(
    decision: &crate::DecisionKind,
    action: &Action,
    completeness: Completeness,
) -> Result<(), Rejection> {
    let draft = completeness == Completeness::Draft;
    use crate::DecisionKind;
    let malformed = |text: String| Err(Rejection::Malformed(text));
    match (decision, action) {
        (_, Action::Back) => malformed(NO_WAY_BACK.to_owned()),
        (DecisionKind::Choose(choose), Action::Choose(picks)) => {
            let count = picks.len() as u32;
            if (count < choose.min && !draft) || count > choose.max {
                return malformed(format!(
                    "pick between {} and {} choices, not {count}",
                    choose.min, choose.max
                ));
            }
            for (i, pick) in picks.iter().enumerate() {
                if *pick as usize >= choose.choices.len() {
                    return malformed(format!("choice {pick} does not exist"));
                }
                if picks[..i].contains(pick) {
                    return malformed(format!("choice {pick} is picked twice"));
                }
            }
            Ok(())
        }
        (DecisionKind::Number(range), Action::Number(n)) => {
            if *n < range.min || *n > range.max {
                return malformed(format!("{n} is outside {}..={}", range.min, range.max));
            }
            Ok(())
        }
        (DecisionKind::Assign(assign), Action::Assign(placements)) => {
            if (placements.len() as u32) < assign.min_placements && !draft {
                return malformed(format!(
                    "place at least {} items, not {}",
                    assign.min_placements,
                    placements.len()
                ));
            }
            for (i, (slot, item)) in placements.iter().enumerate() {
                let Some(slot_spec) = assign.slots.get(*slot as usize) else {
                    return malformed(format!("slot {slot} does not exist"));
                };
                if *item as usize >= assign.items.len() {
                    return malformed(format!("item {item} does not exist"));
                }
                if !slot_spec.accepts(*item) {
                    return malformed(format!("slot {slot} does not accept item {item}"));
                }
                if placements[..i].iter().any(|(s, _)| s == slot) {
                    return malformed(format!("slot {slot} is filled twice"));
                }
                if placements[..i].iter().any(|(_, it)| it == item) {
                    return malformed(format!("item {item} is placed twice"));
                }
            }
            Ok(())
        }
        (expected, _) => malformed(format!(
            "the decision expects a `{}` action",
            match expected {
                DecisionKind::Choose(_) => "choose",
                DecisionKind::Number(_) => "number",
                DecisionKind::Assign(_) => "assign",
            }
        )),
    }
}
