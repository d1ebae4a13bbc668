//! Rulesets that misbehave on purpose, one misbehaviour per cargo feature, so the host's tests
//! can check that a bad component fails only its own call. Never shipped.
//!
//! Without features this is a tiny well-behaved game: two seats take turns naming a number from
//! 0 to 9 for three turns each; the higher total wins. The misbehaviours trigger on the number 7
//! (or, for `huge-output`, on every `view`), so a test can run the same game up to the bad call.

use sdk::{
    Action, DecisionKind, Diagnostic, Event, GameResult, Message, NumberDecision, Options,
    PendingDecision, Placing, Rejection, RulesetInfo, Seat, Setup, SetupError, Table, Viewer,
};

/// The ruleset type.
pub struct Hostile;

/// The number whose `apply` misbehaves.
pub const TRIGGER: i64 = 7;

/// The contract version written into the component: the real one, or one from the future.
#[cfg(all(target_arch = "wasm32", not(feature = "future-contract")))]
const EMBEDDED_VERSION: &[u8; sdk::CONTRACT_VERSION.len()] = {
    let bytes = sdk::CONTRACT_VERSION.as_bytes();
    let mut out = [0u8; sdk::CONTRACT_VERSION.len()];
    let mut i = 0;
    while i < bytes.len() {
        out[i] = bytes[i];
        i += 1;
    }
    &{ out }
};
#[cfg(all(target_arch = "wasm32", feature = "future-contract"))]
const EMBEDDED_VERSION: &[u8; 5] = b"9.0.0";

// `register_ruleset!` always writes the SDK's own version, so this crate registers by hand to be
// able to lie about it.
#[cfg(target_arch = "wasm32")]
#[used]
#[unsafe(link_section = "tenka-contract")]
static CONTRACT_VERSION_SECTION: [u8; EMBEDDED_VERSION.len()] = *EMBEDDED_VERSION;

/// Hands the ruleset to the SDK's export glue, as `register_ruleset!` would.
#[cfg(target_arch = "wasm32")]
#[unsafe(no_mangle)]
fn __tenka_registered_ruleset() -> &'static dyn sdk::native::DynRuleset {
    static RULESET: std::sync::OnceLock<Box<dyn sdk::native::DynRuleset>> =
        std::sync::OnceLock::new();
    RULESET.get_or_init(sdk::native::adapt::<Hostile>).as_ref()
}

/// A game: the numbers named so far.
#[derive(Clone, Debug, Default)]
pub struct HostileGame {
    named: Vec<i64>,
}

const TURNS: usize = 6;

fn misbehave() {
    #[cfg(feature = "endless-loop")]
    {
        let mut counter: u64 = 0;
        loop {
            counter = std::hint::black_box(counter.wrapping_add(1));
        }
    }
    #[cfg(feature = "memory-bomb")]
    {
        let mut hoard: Vec<Vec<u8>> = Vec::new();
        loop {
            hoard.push(std::hint::black_box(vec![1u8; 1 << 20]));
        }
    }
    #[cfg(all(feature = "trap", target_arch = "wasm32"))]
    core::arch::wasm32::unreachable();
}

impl sdk::Game for HostileGame {
    fn pending(&self) -> Vec<PendingDecision> {
        if self.named.len() >= TURNS {
            return Vec::new();
        }
        vec![PendingDecision {
            seat: (self.named.len() % 2) as Seat,
            prompt: Message::new("prompt.number"),
            kind: DecisionKind::Number(NumberDecision { min: 0, max: 9 }),
        }]
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        _table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        let Action::Number(n) = action else {
            return Err(Rejection::Malformed("a number is expected".into()));
        };
        if *n == TRIGGER {
            misbehave();
        }
        self.named.push(*n);
        Ok(vec![Event::public(
            Message::new("event.named")
                .seat("seat", seat)
                .number("n", *n),
        )])
    }

    fn view(&self, _viewer: Viewer) -> String {
        if cfg!(feature = "huge-output") {
            return "x".repeat(32 << 20);
        }
        format!("{{\"named\":{:?}}}", self.named)
    }

    fn render(&self, _viewer: Viewer) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>".into()
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
        self.named.iter().map(|n| *n as u8).collect()
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
        _setup: &Setup,
        _options: &Options,
        _table: &mut dyn Table,
    ) -> Result<HostileGame, SetupError> {
        Ok(HostileGame::default())
    }

    fn restore(bytes: &[u8]) -> Result<HostileGame, String> {
        Ok(HostileGame {
            named: bytes.iter().map(|b| i64::from(*b)).collect(),
        })
    }
}
