//! The values that cross the contract, as plain Rust data. Each mirrors one item of the WIT
//! package in `sdk/wit/`; see there for the contract's own documentation.

use serde::{Deserialize, Serialize};

/// A seat at the table, numbered from 0 in the order the game was created with.
pub type Seat = u32;

/// Who is looking at the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Viewer {
    /// The player in this seat: sees the public state and their own secrets.
    Seat(Seat),
    /// Someone watching: sees only what is public.
    Spectator,
}

impl Viewer {
    /// Whether this viewer may see the secrets of `seat`.
    pub fn is(&self, seat: Seat) -> bool {
        *self == Viewer::Seat(seat)
    }
}

/// One argument of a translatable [`Message`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageArg {
    /// Plain text shown as it is.
    Text(String),
    /// A whole number, formatted by the client.
    Number(i64),
    /// A seat, shown as that seat's player.
    Seat(Seat),
    /// Another key of the same catalogue, without arguments.
    Key(String),
}

/// A text for people: a catalogue key plus named arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// The catalogue key.
    pub key: String,
    /// The named arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, MessageArg)>,
}

impl Message {
    /// A message without arguments.
    pub fn new(key: impl Into<String>) -> Self {
        Message {
            key: key.into(),
            args: Vec::new(),
        }
    }
    /// Adds a plain-text argument.
    pub fn text(mut self, name: &str, value: impl Into<String>) -> Self {
        self.args
            .push((name.to_owned(), MessageArg::Text(value.into())));
        self
    }
    /// Adds a number argument.
    pub fn number(mut self, name: &str, value: impl Into<i64>) -> Self {
        self.args
            .push((name.to_owned(), MessageArg::Number(value.into())));
        self
    }
    /// Adds a seat argument.
    pub fn seat(mut self, name: &str, seat: Seat) -> Self {
        self.args.push((name.to_owned(), MessageArg::Seat(seat)));
        self
    }
    /// Adds an argument that is itself a catalogue key.
    pub fn key(mut self, name: &str, key: impl Into<String>) -> Self {
        self.args
            .push((name.to_owned(), MessageArg::Key(key.into())));
        self
    }
    /// Adds an argument built beforehand, e.g. a place that is a catalogue key on one map and
    /// plain text on another.
    pub fn arg(mut self, name: &str, value: MessageArg) -> Self {
        self.args.push((name.to_owned(), value));
        self
    }
}

/// Who owns a cube dropped through the battle tower.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CubeOwner {
    /// The cubes of a player.
    Seat(Seat),
    /// Cubes of no seat, named by the ruleset (for example `farmer`).
    Neutral(String),
}

/// A number of cubes of one owner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CubeCount {
    /// Whose cubes.
    pub owner: CubeOwner,
    /// How many.
    pub count: u32,
}

/// One shelf of the battle tower, counted from the top.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TowerShelf {
    /// The chance that a cube falling onto the shelf lodges there.
    pub lodge_chance: f64,
    /// The chance, per cube passing the shelf, that each lodged cube is knocked loose.
    pub release_chance: f64,
}

/// The type of a variant option, with the values it allows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptionKind {
    /// true or false.
    Boolean,
    /// A whole number in `min..=max`.
    Integer {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// A decimal number in `min..=max`.
    Decimal {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
    /// One of the listed names.
    Choice(Vec<String>),
}

/// A value of a variant option.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptionValue {
    /// For [`OptionKind::Boolean`].
    Boolean(bool),
    /// For [`OptionKind::Integer`].
    Integer(i64),
    /// For [`OptionKind::Decimal`].
    Decimal(f64),
    /// For [`OptionKind::Choice`].
    Choice(String),
}

/// A variant option the ruleset declares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptionSpec {
    /// The option's name in variant files.
    pub name: String,
    /// What it changes.
    pub description: Message,
    /// Its type and allowed values.
    pub kind: OptionKind,
    /// Its value when none is given.
    pub default: OptionValue,
}

/// A map shipped with a ruleset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapInfo {
    /// The map's id: its file name without `.toml`.
    pub id: String,
    /// Its display name.
    pub name: Message,
}

impl MapInfo {
    /// The map `id`, named by the catalogue key `map.<id>`.
    pub fn new(id: &str) -> MapInfo {
        MapInfo {
            id: id.to_owned(),
            name: Message::new(format!("map.{id}")),
        }
    }
}

/// What the host and clients need to know about a ruleset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RulesetInfo {
    /// Stable identifier: lowercase letters, digits and dashes.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The ruleset's own version (semver).
    pub version: String,
    /// Fewest seats.
    pub min_seats: u32,
    /// Most seats.
    pub max_seats: u32,
    /// Maps shipped in `maps/<id>/`.
    pub maps: Vec<MapInfo>,
    /// Variant options.
    pub options: Vec<OptionSpec>,
    /// Languages the catalogues cover.
    pub languages: Vec<String>,
}

/// How bad a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The map cannot be played.
    Error,
    /// Playable, but probably not what the author meant.
    Warning,
}

/// One finding about a map file, with where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// 1-based line; 0 for the file as a whole.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// The finding in plain English.
    pub text: String,
}

impl Diagnostic {
    /// An error at a place in the file.
    pub fn error(line: u32, column: u32, text: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            line,
            column,
            text: text.into(),
        }
    }
    /// A warning at a place in the file.
    pub fn warning(line: u32, column: u32, text: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            line,
            column,
            text: text.into(),
        }
    }
    /// Whether this diagnostic stops the map from being played.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A variant option set for one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OptionSetting {
    /// The option's name.
    pub name: String,
    /// Its value.
    pub value: OptionValue,
}

/// Everything a new game is made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    /// The map as TOML text.
    pub map: String,
    /// Options that differ from their defaults.
    pub options: Vec<OptionSetting>,
    /// How many seats.
    pub seats: u32,
}

/// Why a game could not be created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "kebab-case")]
pub enum SetupError {
    /// The seat count is not supported.
    #[error("unsupported seat count: {0}")]
    SeatCount(String),
    /// The map does not pass validation.
    #[error("the map has {} error(s)", .0.iter().filter(|d| d.is_error()).count())]
    Map(Vec<Diagnostic>),
    /// An option is unknown, of the wrong type or out of range.
    #[error("option `{0}`: {1}")]
    Option(String, String),
    /// A position file could not be used.
    #[error("position: {0}")]
    Position(String),
}

/// One thing to pick in a [`ChooseDecision`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// Stable identifier within the decision.
    pub id: String,
    /// What it is called.
    pub label: Message,
    /// What a player needs to know to pick it (a target's owner and armies, say), shown under
    /// the label.
    #[serde(default)]
    pub detail: Option<Message>,
}

impl Choice {
    /// A choice with a label and no detail.
    pub fn new(id: impl Into<String>, label: Message) -> Self {
        Choice {
            id: id.into(),
            label,
            detail: None,
        }
    }

    /// The same choice with a detail line.
    pub fn with_detail(mut self, detail: Message) -> Self {
        self.detail = Some(detail);
        self
    }
}

/// Pick between `min` and `max` distinct choices.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChooseDecision {
    /// What can be picked.
    pub choices: Vec<Choice>,
    /// Fewest picks.
    pub min: u32,
    /// Most picks.
    pub max: u32,
}

/// Pick a whole number in `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberDecision {
    /// Smallest allowed.
    pub min: i64,
    /// Largest allowed.
    pub max: i64,
}

/// Something to place in an [`AssignDecision`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssignItem {
    /// Stable identifier within the decision.
    pub id: String,
    /// What it is called.
    pub label: Message,
}

/// A place items go to in an [`AssignDecision`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssignSlot {
    /// Stable identifier within the decision.
    pub id: String,
    /// What it is called.
    pub label: Message,
    /// Indices into the items this slot accepts; empty means every item.
    #[serde(default)]
    pub accepts: Vec<u32>,
}

impl AssignSlot {
    /// Whether the slot accepts the item with this index.
    pub fn accepts(&self, item: u32) -> bool {
        self.accepts.is_empty() || self.accepts.contains(&item)
    }
}

/// Put items into slots: each slot takes at most one item, each item goes to at most one slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssignDecision {
    /// What can be placed.
    pub items: Vec<AssignItem>,
    /// Where.
    pub slots: Vec<AssignSlot>,
    /// Fewest placements in a legal answer.
    pub min_placements: u32,
}

/// The shape of a decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecisionKind {
    /// Pick among listed choices.
    Choose(ChooseDecision),
    /// Pick a number.
    Number(NumberDecision),
    /// Place items into slots.
    Assign(AssignDecision),
}

/// A decision a seat has to take.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingDecision {
    /// Who decides.
    pub seat: Seat,
    /// What is asked.
    pub prompt: Message,
    /// How it can be answered.
    pub kind: DecisionKind,
    /// Whether answering shows the seat what other seats may not see (its hand, its plan): a
    /// device shared by several people is handed over only before such a decision.
    #[serde(default)]
    pub private: bool,
    /// Set when this decision is a later step of a larger one and the seat may go back to the
    /// step before: the label of the way back. The seat answers it with [`Action::Back`]; the
    /// SDK and the host refuse `Back` from a seat whose decision has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<Message>,
}

impl PendingDecision {
    /// A public decision of `seat` with no way back. Building decisions through this (and
    /// [`PendingDecision::private`], [`PendingDecision::with_back`]) rather than by hand keeps
    /// a ruleset compiling when a later contract adds a field.
    pub fn new(seat: Seat, prompt: Message, kind: DecisionKind) -> Self {
        PendingDecision {
            seat,
            prompt,
            kind,
            private: false,
            back: None,
        }
    }

    /// The same decision, marked as showing the seat what others may not see.
    pub fn private(mut self) -> Self {
        self.private = true;
        self
    }

    /// The same decision, offering a way back to the step before, labelled `label`.
    pub fn with_back(mut self, label: Message) -> Self {
        self.back = Some(label);
        self
    }
}

/// One seat's answer to its pending decision.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Indices into the choices.
    Choose(Vec<u32>),
    /// The number.
    Number(i64),
    /// (slot index, item index) pairs.
    Assign(Vec<(u32, u32)>),
    /// Back to the step before, for a decision whose [`PendingDecision::back`] is set.
    Back,
}

/// Why an action was refused. A refused action changes nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "kebab-case")]
pub enum Rejection {
    /// The seat has no pending decision.
    #[error("it is not this seat's turn")]
    NotYourTurn,
    /// The action does not fit the decision's shape.
    #[error("malformed action: {0}")]
    Malformed(String),
    /// The action breaks a rule.
    #[error("illegal action: {}", .0.key)]
    Illegal(Message),
}

/// Who may see an [`Event`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Audience {
    /// Everyone, spectators included.
    Everyone,
    /// Only these seats.
    Seats(Vec<Seat>),
}

impl Audience {
    /// Whether `viewer` may see an event with this audience.
    pub fn includes(&self, viewer: Viewer) -> bool {
        match (self, viewer) {
            (Audience::Everyone, _) => true,
            (Audience::Seats(seats), Viewer::Seat(seat)) => seats.contains(&seat),
            (Audience::Seats(_), Viewer::Spectator) => false,
        }
    }
}

/// Something that happened, for the game log: one step a player can follow.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// What happened; the caption of its drops.
    pub text: Message,
    /// Who may see it.
    pub audience: Audience,
    /// The battle-tower drops this event explains: indices into the drops made by the same
    /// call, in the order they were made (the call's first drop is 0).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drops: Vec<u32>,
    /// Set when the event closes a stage of the game worth pausing on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
}

impl Event {
    /// An event everyone sees.
    pub fn public(text: Message) -> Self {
        Event {
            text,
            audience: Audience::Everyone,
            drops: Vec::new(),
            summary: None,
        }
    }
    /// An event only `seat` sees.
    pub fn private(seat: Seat, text: Message) -> Self {
        Event {
            text,
            audience: Audience::Seats(vec![seat]),
            drops: Vec::new(),
            summary: None,
        }
    }
    /// The same event, explaining these drops of its call.
    pub fn with_drops(mut self, drops: impl IntoIterator<Item = u32>) -> Self {
        self.drops = drops.into_iter().collect();
        self
    }
    /// The same event, closing a stage with this summary.
    pub fn with_summary(mut self, summary: Summary) -> Self {
        self.summary = Some(summary);
        self
    }
}

/// A stage of the game that has just closed (a season, a year's scoring), shown as a pause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The heading.
    pub title: Message,
    /// The lines, in the order to show them.
    pub lines: Vec<SummaryLine>,
}

/// One line of a [`Summary`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryLine {
    /// Whose line this is; `None` for a line about the table.
    pub seat: Option<Seat>,
    /// What it is about.
    pub label: Message,
    /// A number for its own column (points gained), if any.
    pub value: Option<i64>,
}

/// Where a [`BoardPart`] belongs on the screen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartKind {
    /// The map: the largest area.
    Map,
    /// One seat's own panel.
    Seat(Seat),
    /// Anything else the table shares.
    Table,
}

/// One part of the board as a viewer sees it: an SVG document sized by its `viewBox`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardPart {
    /// Stable identifier within the game (`map`, `seat-2`).
    pub id: String,
    /// Where it belongs.
    pub kind: PartKind,
    /// A heading, if it needs one.
    pub title: Option<Message>,
    /// The SVG document.
    pub svg: String,
}

impl BoardPart {
    /// A part without a title.
    pub fn new(id: impl Into<String>, kind: PartKind, svg: String) -> Self {
        BoardPart {
            id: id.into(),
            kind,
            title: None,
            svg,
        }
    }
}

/// How much a [`PreviewNote`] matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteLevel {
    /// What the answer will do.
    Info,
    /// Something the player probably does not want.
    Warning,
}

/// One thing a preview says about an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewNote {
    /// Info or warning.
    pub level: NoteLevel,
    /// The note.
    pub text: Message,
}

/// One line of a score breakdown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreLine {
    /// Whose points.
    pub seat: Seat,
    /// What for.
    pub label: Message,
    /// How many.
    pub points: i64,
}

/// Where one seat finished.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placing {
    /// The seat.
    pub seat: Seat,
    /// 1 for the winner; shared places share a rank.
    pub rank: u32,
    /// Final score.
    pub score: i64,
    /// Values compared after the score, in order.
    pub tie_breaks: Vec<i64>,
}

impl Placing {
    /// Every seat placed by its score, then its tie breaks, highest first; seats equal on both
    /// share the better rank, and are listed in seat order. `scores` gives each seat's score and
    /// tie breaks.
    pub fn ranked(scores: impl IntoIterator<Item = (Seat, i64, Vec<i64>)>) -> Vec<Placing> {
        let mut scores: Vec<(Seat, i64, Vec<i64>)> = scores.into_iter().collect();
        scores.sort_by(|a, b| (b.1, &b.2).cmp(&(a.1, &a.2)).then(a.0.cmp(&b.0)));
        let mut placings: Vec<Placing> = Vec::with_capacity(scores.len());
        for (i, (seat, score, tie_breaks)) in scores.into_iter().enumerate() {
            let rank = match placings.last() {
                Some(last) if last.score == score && last.tie_breaks == tie_breaks => last.rank,
                _ => i as u32 + 1,
            };
            placings.push(Placing {
                seat,
                rank,
                score,
                tie_breaks,
            });
        }
        placings
    }
}

/// How a finished game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Every seat, best first.
    pub placings: Vec<Placing>,
    /// How the scores came about.
    pub breakdown: Vec<ScoreLine>,
    /// Explains the ranking.
    pub summary: Message,
}

impl GameResult {
    /// `seat`'s share of the win: the winners (every seat ranked first) share 1 equally, the
    /// others get 0. What a [`crate::Game::evaluate`] answers once the game is over.
    pub fn win_share(&self, seat: Seat) -> f64 {
        let winners = self.placings.iter().filter(|p| p.rank == 1).count();
        let won = self.placings.iter().any(|p| p.seat == seat && p.rank == 1);
        if won { 1.0 / winners as f64 } else { 0.0 }
    }

    /// `seat`'s place as a value in `0.0..=1.0`: first 1, last 0, the places between evenly
    /// spaced; seats sharing a place share the values of the places they cover, so a drawn
    /// two-seat game is worth 0.5 to each, never as much as a win. A seat without a placing
    /// counts as last.
    pub fn placing_value(&self, seat: Seat) -> f64 {
        let seats = self.placings.len().max(2) as f64;
        let value_of = |place: f64| (seats - place) / (seats - 1.0);
        let Some(own) = self.placings.iter().find(|p| p.seat == seat) else {
            return 0.0;
        };
        let sharing = self
            .placings
            .iter()
            .filter(|p| p.rank == own.rank)
            .count()
            .max(1);
        let first = f64::from(own.rank).clamp(1.0, seats);
        let covered: f64 = (0..sharing)
            .map(|i| value_of((first + i as f64).min(seats)))
            .sum();
        covered / sharing as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(ranks: &[u32]) -> GameResult {
        GameResult {
            placings: ranks
                .iter()
                .enumerate()
                .map(|(seat, &rank)| Placing {
                    seat: seat as Seat,
                    rank,
                    score: 0,
                    tie_breaks: Vec::new(),
                })
                .collect(),
            breakdown: Vec::new(),
            summary: Message::new("result"),
        }
    }

    #[test]
    fn placings_rank_by_score_then_tie_breaks_and_share_equal_places() {
        let placings = Placing::ranked([
            (0, 5, vec![1]),
            (1, 7, vec![0]),
            (2, 5, vec![2]),
            (3, 5, vec![1]),
        ]);
        let order: Vec<(Seat, u32)> = placings.iter().map(|p| (p.seat, p.rank)).collect();
        assert_eq!(order, vec![(1, 1), (2, 2), (0, 3), (3, 3)]);
    }

    #[test]
    fn a_shared_place_shares_the_values_of_the_places_it_covers() {
        // A win and a loss between two seats, then a draw: half each, never a win for both.
        assert_eq!(result(&[1, 2]).placing_value(0), 1.0);
        assert_eq!(result(&[1, 2]).placing_value(1), 0.0);
        assert_eq!(result(&[1, 1]).placing_value(0), 0.5);
        assert_eq!(result(&[1, 1]).placing_value(1), 0.5);
        // Three seats: places are worth 1, 0.5 and 0; two sharing first get 0.75 each.
        assert_eq!(result(&[1, 2, 3]).placing_value(1), 0.5);
        assert_eq!(result(&[1, 1, 3]).placing_value(0), 0.75);
        assert_eq!(result(&[1, 2, 2]).placing_value(2), 0.25);
        // A seat without a placing counts as last.
        assert_eq!(result(&[1, 2]).placing_value(5), 0.0);
    }
}
