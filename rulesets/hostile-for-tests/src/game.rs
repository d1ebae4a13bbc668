//! The tiny game the misbehaviours hide in: two seats name numbers from 0 to 9 in turn.

use sdk::{
    Answer, Diagnostic, Event, GameResult, Message, NumberDecision, Offer, Options, Placing,
    Rejection, RulesetInfo, Seat, Setup, SetupError, Table, Viewer,
};

use crate::Hostile;
use crate::misbehave::{HUGE_BYTES, HUGE_ITEMS, misbehave};
use crate::target::{ARM, TRIGGER, Target};

/// A game: the numbers named so far, and the export its map asked to misbehave in.
#[derive(Clone, Debug, Default)]
pub struct HostileGame {
    named: Vec<i64>,
    target: Target,
}

const TURNS: usize = 6;

impl HostileGame {
    fn armed(&self) -> bool {
        self.named.contains(&ARM)
    }

    /// Whether `target` misbehaves now.
    fn misbehaves_in(&self, target: Target) -> bool {
        self.target == target && self.armed()
    }
}

/// A seat names a number: the offer's one move is the number itself.
impl sdk::Play for HostileGame {
    type Move = i64;

    fn offers(&self) -> Vec<Offer<i64>> {
        let name = |seat| {
            let range = NumberDecision { min: 0, max: 9 };
            Offer::number(seat, Message::new("prompt.number"), range, |n| n).private(true)
        };
        if self.misbehaves_in(Target::Pending) {
            if cfg!(feature = "huge-output") {
                return vec![name(0); HUGE_ITEMS];
            }
            misbehave("pending", None);
        }
        if self.named.len() >= TURNS {
            return Vec::new();
        }
        vec![name((self.named.len() % 2) as Seat)]
    }

    fn play(
        &mut self,
        seat: Seat,
        answer: Answer<i64>,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        let n = answer
            .single()
            .ok_or_else(|| Rejection::Malformed("a number is expected".into()))?;
        if n == TRIGGER {
            if cfg!(feature = "huge-output") {
                let event = Event::public(Message::new("event.flood"));
                return Ok(vec![event; HUGE_ITEMS]);
            }
            misbehave("apply", Some(table));
        }
        self.named.push(n);
        Ok(vec![Event::public(
            Message::new("event.named")
                .seat("seat", seat)
                .number("n", n),
        )])
    }
}

impl sdk::Game for HostileGame {
    sdk::decided_by_offers!();

    fn view(&self, _viewer: Viewer) -> String {
        if self.misbehaves_in(Target::View) || self.target == Target::None {
            if cfg!(feature = "huge-output") {
                return "x".repeat(HUGE_BYTES);
            }
            if self.target == Target::View {
                misbehave("view", None);
            }
        }
        format!("{{\"named\":{:?}}}", self.named)
    }

    fn render(&self, _viewer: Viewer) -> Vec<sdk::BoardPart> {
        let board = |svg: String| vec![sdk::BoardPart::new("board", sdk::PartKind::Map, svg)];
        if self.misbehaves_in(Target::Render) {
            if cfg!(feature = "huge-output") {
                // Past the 8 MiB limit on output, well within the memory budget.
                return board(format!("<svg>{}</svg>", "x".repeat(10 << 20)));
            }
            misbehave("render", None);
        }
        board("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".into())
    }

    fn result(&self) -> Option<GameResult> {
        if self.named.len() < TURNS {
            return None;
        }
        let total = |seat: usize| self.named.iter().skip(seat).step_by(2).sum::<i64>();
        let (a, b) = (total(0), total(1));
        let placing = |seat: Seat, score: i64, other: i64| Placing {
            seat,
            rank: if score >= other { 1 } else { 2 },
            score,
            tie_breaks: Vec::new(),
        };
        let mut placings = vec![placing(0, a, b), placing(1, b, a)];
        placings.sort_by_key(|p| p.rank);
        Some(GameResult {
            placings,
            breakdown: Vec::new(),
            summary: Message::new("summary"),
        })
    }

    fn snapshot(&self) -> Vec<u8> {
        std::iter::once(self.target.code())
            .chain(self.named.iter().map(|n| *n as u8))
            .collect()
    }
}

impl sdk::Ruleset for Hostile {
    type Game = HostileGame;

    fn info() -> RulesetInfo {
        let id = if cfg!(feature = "endless-loop") {
            "hostile-endless-loop"
        } else if cfg!(feature = "memory-bomb") {
            "hostile-memory-bomb"
        } else if cfg!(feature = "trap") {
            "hostile-trap"
        } else if cfg!(feature = "huge-output") {
            "hostile-huge-output"
        } else if cfg!(feature = "future-contract") {
            "hostile-future-contract"
        } else if cfg!(feature = "deep-recursion") {
            "hostile-deep-recursion"
        } else if cfg!(feature = "panic") {
            "hostile-panic"
        } else if cfg!(feature = "slow-host-calls") {
            "hostile-slow-host-calls"
        } else if cfg!(feature = "forbidden-import") {
            "hostile-forbidden-import"
        } else {
            "hostile-harmless"
        };
        RulesetInfo {
            id: id.into(),
            name: id.into(),
            version: "0.1.0".into(),
            min_seats: 2,
            max_seats: 2,
            maps: Vec::new(),
            options: Vec::new(),
            languages: Vec::new(),
        }
    }

    fn validate_map(_map: &str) -> Vec<Diagnostic> {
        Vec::new()
    }

    fn catalogue(_language: &str) -> Option<&'static str> {
        None
    }

    fn create(
        setup: &Setup,
        _options: &Options,
        table: &mut dyn Table,
    ) -> Result<HostileGame, SetupError> {
        let target = Target::from_map(&setup.map);
        if target == Target::Create {
            misbehave("create", Some(table));
        }
        Ok(HostileGame {
            named: Vec::new(),
            target,
        })
    }

    fn restore(bytes: &[u8]) -> Result<HostileGame, String> {
        let (target, named) = bytes.split_first().ok_or("an empty snapshot")?;
        let game = HostileGame {
            named: named.iter().map(|b| i64::from(*b)).collect(),
            target: Target::from_code(*target),
        };
        if game.misbehaves_in(Target::Restore) {
            misbehave("restore", None);
        }
        Ok(game)
    }
}
