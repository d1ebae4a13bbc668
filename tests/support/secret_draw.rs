//! A small ruleset made to test the game server: every seat secretly plans a number each round,
//! the plans are revealed together, cubes go through the battle tower, and every secret carries
//! a `secret-<seat>-` marker so tests can look for leaks in anything another seat receives.
//!
//! Shared by the integration tests and the `tenka-test-server` binary. The game takes a
//! [`Twist`]: the plain game has none, `support/twisted.rs` has the misbehaving ones.

use std::marker::PhantomData;

use sdk::{
    Action, Choice, ChooseDecision, CubeCount, CubeOwner, DecisionKind, Diagnostic, Event,
    GameResult, MapEditor, MapInfo, Message, OptionKind, OptionSpec, OptionValue, Options,
    PendingDecision, Placing, Rejection, RulesetInfo, Seat, Setup, SetupError, Table, Viewer,
};
use serde::{Deserialize, Serialize};

/// What a variant of the game changes; each hook gets the game as the plain rules left it.
pub trait Twist: Sized + 'static {
    /// The ruleset's id.
    const ID: &'static str;
    /// The ruleset's name.
    const NAME: &'static str = Self::ID;

    /// The board.
    fn render(game: &DrawGame<Self>, viewer: Viewer) -> String {
        game.board_svg(viewer)
    }

    /// The result.
    fn result(game: &DrawGame<Self>) -> Option<GameResult> {
        game.final_result()
    }

    /// The pending decisions, given how many actions the game has applied.
    fn pending(game: &DrawGame<Self>, applied: u32) -> Vec<PendingDecision> {
        let _ = applied;
        game.plans_owed()
    }

    /// The map editor schema.
    fn map_editor() -> Option<MapEditor> {
        None
    }
}

/// The game as its rules say.
pub struct Plain;

impl Twist for Plain {
    const ID: &'static str = "secret-draw";
    const NAME: &'static str = "Secret draw";
}

/// The ruleset, with the twist `T`.
pub struct SecretDraw<T = Plain>(PhantomData<fn() -> T>);

/// A game of it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct DrawGame<T = Plain> {
    rounds: u32,
    round: u32,
    /// Each seat's face-down card: a secret of that seat for the whole game.
    cards: Vec<String>,
    /// This round's plans: (number, secret marker), until all are in.
    plans: Vec<Option<(u32, String)>>,
    scores: Vec<i64>,
    #[serde(skip)]
    twist: PhantomData<fn() -> T>,
}

impl<T> Clone for DrawGame<T> {
    fn clone(&self) -> Self {
        DrawGame {
            rounds: self.rounds,
            round: self.round,
            cards: self.cards.clone(),
            plans: self.plans.clone(),
            scores: self.scores.clone(),
            twist: PhantomData,
        }
    }
}

/// The catalogue shipped for `en`.
const ENGLISH: &str = r#"
[plan]
prompt = "Plan a number"
made = "You planned {number} ({secret})"
submitted = "{seat} has planned"
revealed = "{seat} planned {number}"
[score]
total = "Points"
"#;

impl<T: Twist> sdk::Ruleset for SecretDraw<T> {
    type Game = DrawGame<T>;

    fn info() -> RulesetInfo {
        RulesetInfo {
            id: T::ID.into(),
            name: T::NAME.into(),
            version: "1.0.0".into(),
            min_seats: 2,
            max_seats: 5,
            maps: vec![MapInfo {
                id: "square".into(),
                name: Message::new("map.square"),
            }],
            options: vec![OptionSpec {
                name: "rounds".into(),
                description: Message::new("option.rounds"),
                kind: OptionKind::Integer { min: 1, max: 50 },
                default: OptionValue::Integer(3),
            }],
            languages: vec!["en".into()],
        }
    }

    fn validate_map(map: &str) -> Vec<Diagnostic> {
        match map.parse::<toml::Table>() {
            Ok(table) if table.get("name").is_some_and(toml::Value::is_str) => Vec::new(),
            Ok(_) => vec![Diagnostic::error(0, 0, "the map needs a `name`")],
            Err(error) => vec![Diagnostic::error(1, 1, error.to_string())],
        }
    }

    fn catalogue(language: &str) -> Option<&'static str> {
        (language == "en").then_some(ENGLISH)
    }

    fn map_editor() -> Option<MapEditor> {
        T::map_editor()
    }

    fn create(
        setup: &Setup,
        options: &Options,
        table: &mut dyn Table,
    ) -> Result<DrawGame<T>, SetupError> {
        let errors: Vec<Diagnostic> = Self::validate_map(&setup.map);
        if !errors.is_empty() {
            return Err(SetupError::Map(errors));
        }
        let rounds = match options.get("rounds") {
            Some(OptionValue::Integer(rounds)) => *rounds as u32,
            _ => 3,
        };
        let cards = (0..setup.seats)
            .map(|seat| format!("secret-{seat}-card-{:016x}", table.next_u64()))
            .collect();
        Ok(DrawGame {
            rounds,
            round: 0,
            cards,
            plans: vec![None; setup.seats as usize],
            scores: vec![0; setup.seats as usize],
            twist: PhantomData,
        })
    }

    fn restore(bytes: &[u8]) -> Result<DrawGame<T>, String> {
        serde_json::from_slice(bytes).map_err(|error| error.to_string())
    }
}

impl<T> DrawGame<T> {
    fn over(&self) -> bool {
        self.round >= self.rounds
    }

    /// How many actions the game has applied: every seat's plan of each finished round, and the
    /// plans in so far.
    fn actions_applied(&self) -> u32 {
        let planned = self.plans.iter().filter(|plan| plan.is_some()).count() as u32;
        self.round * self.plans.len() as u32 + planned
    }

    /// The whole board, one SVG document.
    pub fn board_svg(&self, viewer: Viewer) -> String {
        let choices = match viewer {
            Viewer::Seat(seat) if !self.over() && self.plans[seat as usize].is_none() => (0..3)
                .map(|i| {
                    format!(
                        "<rect data-choice=\"{i}\" x=\"{}\" y=\"0\" width=\"10\" height=\"10\"/>",
                        i * 12
                    )
                })
                .collect::<String>(),
            _ => String::new(),
        };
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text data-msg=\"round\">{}</text>{choices}</svg>",
            self.round
        )
    }

    /// The plan each seat still owes this round.
    pub fn plans_owed(&self) -> Vec<PendingDecision> {
        if self.over() {
            return Vec::new();
        }
        (0..self.plans.len() as u32)
            .filter(|seat| self.plans[*seat as usize].is_none())
            .map(|seat| PendingDecision {
                private: true,
                seat,
                prompt: Message::new("plan.prompt"),
                kind: DecisionKind::Choose(ChooseDecision {
                    choices: (1..=3)
                        .map(|n| {
                            Choice::new(
                                n.to_string(),
                                Message::new("plan.number").number("number", n),
                            )
                        })
                        .collect(),
                    min: 1,
                    max: 1,
                }),
                back: None,
            })
            .collect()
    }
}

impl<T: Twist> sdk::Game for DrawGame<T> {
    fn pending(&self) -> Vec<PendingDecision> {
        T::pending(self, self.actions_applied())
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        let Action::Choose(picks) = action else {
            return Err(Rejection::Malformed("choose a number".into()));
        };
        let number = picks[0] + 1;
        let secret = format!(
            "secret-{seat}-plan-{}-{:016x}",
            self.round,
            table.next_u64()
        );
        let mut events = vec![
            Event::private(
                seat,
                Message::new("plan.made")
                    .number("number", number)
                    .text("secret", secret.clone()),
            ),
            Event::public(Message::new("plan.submitted").seat("seat", seat)),
        ];
        self.plans[seat as usize] = Some((number, secret));
        if self.plans.iter().all(Option::is_some) {
            let plans: Vec<(u32, String)> =
                self.plans.iter_mut().filter_map(Option::take).collect();
            for (seat, (number, _)) in plans.iter().enumerate() {
                events.push(Event::public(
                    Message::new("plan.revealed")
                        .seat("seat", seat as u32)
                        .number("number", *number),
                ));
            }
            let cubes: Vec<CubeCount> = plans
                .iter()
                .enumerate()
                .map(|(seat, (number, _))| CubeCount {
                    owner: CubeOwner::Seat(seat as u32),
                    count: *number,
                })
                .collect();
            for out in table.drop_cubes(&cubes) {
                if let CubeOwner::Seat(seat) = out.owner {
                    self.scores[seat as usize] += i64::from(out.count);
                }
            }
            self.round += 1;
        }
        Ok(events)
    }

    fn view(&self, viewer: Viewer) -> String {
        let mine = match viewer {
            Viewer::Seat(seat) => serde_json::json!({
                "card": self.cards[seat as usize],
                "plan": self.plans[seat as usize].as_ref().map(|(number, secret)| (number, secret)),
            }),
            Viewer::Spectator => serde_json::Value::Null,
        };
        serde_json::json!({
            "round": self.round,
            "rounds": self.rounds,
            "scores": self.scores,
            "planned": self.plans.iter().map(Option::is_some).collect::<Vec<_>>(),
            "mine": mine,
        })
        .to_string()
    }

    fn render(&self, viewer: Viewer) -> Vec<sdk::BoardPart> {
        vec![sdk::BoardPart::new(
            "board",
            sdk::PartKind::Map,
            T::render(self, viewer),
        )]
    }

    fn result(&self) -> Option<GameResult> {
        T::result(self)
    }

    fn snapshot(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

impl<T> DrawGame<T> {
    /// The placings by score once the last round is revealed.
    pub fn final_result(&self) -> Option<GameResult> {
        if !self.over() {
            return None;
        }
        let mut order: Vec<Seat> = (0..self.scores.len() as u32).collect();
        order.sort_by_key(|seat| std::cmp::Reverse(self.scores[*seat as usize]));
        let placings = order
            .iter()
            .map(|seat| Placing {
                seat: *seat,
                rank: 1 + self
                    .scores
                    .iter()
                    .filter(|score| **score > self.scores[*seat as usize])
                    .count() as u32,
                score: self.scores[*seat as usize],
                tie_breaks: Vec::new(),
            })
            .collect();
        Some(GameResult {
            placings,
            breakdown: Vec::new(),
            summary: Message::new("score.total"),
        })
    }
}
