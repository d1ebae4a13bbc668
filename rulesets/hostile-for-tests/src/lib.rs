//! Rulesets that misbehave on purpose, one misbehaviour per cargo feature, so the host's tests
//! can check that a bad component fails only its own call. Never shipped.
//!
//! Without features this is a tiny well-behaved game: two seats take turns naming a number from
//! 0 to 9 for three turns each; the higher total wins. The misbehaviours trigger on the number 7
//! (or, for `huge-output`, on every `view`), so a test can run the same game up to the bad call.
//!
//! A game's map text may also name one export to misbehave in: `misbehave-in = "render"` (or
//! `create`, `restore`, `pending`, `view`). `create` misbehaves at once; the others once the
//! game is armed, that is once someone has named the number [`ARM`], so a test can start the
//! game, take its recovery point and arm it before the bad call.

use sdk::{
    Action, DecisionKind, Diagnostic, Event, GameResult, Message, NumberDecision, Options,
    PendingDecision, Placing, Rejection, RulesetInfo, Seat, Setup, SetupError, Table, Viewer,
};

/// The ruleset type.
pub struct Hostile;

/// The number whose `apply` misbehaves.
pub const TRIGGER: i64 = 7;

/// The number that arms the export named by the map.
pub const ARM: i64 = 8;

/// An export that can be made to misbehave from the map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// Only `apply` of [`TRIGGER`] misbehaves.
    #[default]
    None,
    /// `create` misbehaves.
    Create,
    /// `restore` of an armed game misbehaves.
    Restore,
    /// `pending` of an armed game misbehaves.
    Pending,
    /// `view` of an armed game misbehaves.
    View,
    /// `render` of an armed game misbehaves.
    Render,
}

impl Target {
    const ALL: [(Target, &'static str); 5] = [
        (Target::Create, "create"),
        (Target::Restore, "restore"),
        (Target::Pending, "pending"),
        (Target::View, "view"),
        (Target::Render, "render"),
    ];

    /// The export named by a map's `misbehave-in = "..."` line.
    fn from_map(map: &str) -> Target {
        let Some(line) = map
            .lines()
            .find(|line| line.trim_start().starts_with("misbehave-in"))
        else {
            return Target::None;
        };
        Target::ALL
            .iter()
            .find(|(_, name)| line.contains(&format!("\"{name}\"")))
            .map_or(Target::None, |(target, _)| *target)
    }

    fn code(self) -> u8 {
        Target::ALL
            .iter()
            .position(|(target, _)| *target == self)
            .map_or(0, |index| index as u8 + 1)
    }

    fn from_code(code: u8) -> Target {
        usize::from(code)
            .checked_sub(1)
            .and_then(|index| Target::ALL.get(index))
            .map_or(Target::None, |(target, _)| *target)
    }
}

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

/// A game: the numbers named so far, and the export its map asked to misbehave in.
#[derive(Clone, Debug, Default)]
pub struct HostileGame {
    named: Vec<i64>,
    target: Target,
}

const TURNS: usize = 6;

/// How many bytes a huge output has: more than the host accepts.
const HUGE_BYTES: usize = 32 << 20;

/// How many entries a huge list has: more than the host accepts.
const HUGE_ITEMS: usize = 200_000;

/// Calls itself with no end; the frame's array keeps the compiler from turning it into a loop.
/// The array is small, so wasmtime's call stack runs out before the stack Rust keeps in linear
/// memory (which would end as an out-of-bounds access instead).
#[cfg(feature = "deep-recursion")]
#[allow(
    unconditional_recursion,
    reason = "the endless recursion is the misbehaviour"
)]
fn dive(depth: u64) -> u64 {
    let frame = std::hint::black_box([depth; 2]);
    dive(std::hint::black_box(depth + 1)).wrapping_add(frame[1])
}

/// Misbehaves in `export` as the component's feature says; `table` is the table of the calls
/// that have one.
fn misbehave(export: &str, table: Option<&mut dyn Table>) {
    let _ = (export, &table);
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
    #[cfg(feature = "deep-recursion")]
    {
        std::hint::black_box(dive(0));
    }
    #[cfg(feature = "panic")]
    panic!("the hostile ruleset panics on purpose in `{export}`");
    #[cfg(feature = "forbidden-import")]
    {
        // The standard library asks WASI's wall clock, which the host gives no ruleset.
        #[expect(
            clippy::disallowed_methods,
            reason = "reading the clock a ruleset may not see is the misbehaviour"
        )]
        let now = std::time::SystemTime::now();
        std::hint::black_box(now);
    }
    #[cfg(feature = "slow-host-calls")]
    if let Some(table) = table {
        // Each drop is one host call, a few units of fuel here and a lot of work on the host.
        let handful = [sdk::CubeCount {
            owner: sdk::CubeOwner::Neutral("flood".into()),
            count: 1_000,
        }];
        loop {
            std::hint::black_box(table.drop_cubes(&handful));
        }
    }
}

impl HostileGame {
    fn armed(&self) -> bool {
        self.named.contains(&ARM)
    }

    /// Whether `target` misbehaves now.
    fn misbehaves_in(&self, target: Target) -> bool {
        self.target == target && self.armed()
    }
}

impl sdk::Game for HostileGame {
    fn pending(&self) -> Vec<PendingDecision> {
        if self.misbehaves_in(Target::Pending) {
            if cfg!(feature = "huge-output") {
                let decision = PendingDecision {
                    private: true,
                    seat: 0,
                    prompt: Message::new("prompt.number"),
                    kind: DecisionKind::Number(NumberDecision { min: 0, max: 9 }),
                    back: None,
                };
                return vec![decision; HUGE_ITEMS];
            }
            misbehave("pending", None);
        }
        if self.named.len() >= TURNS {
            return Vec::new();
        }
        vec![PendingDecision {
            private: true,
            seat: (self.named.len() % 2) as Seat,
            prompt: Message::new("prompt.number"),
            kind: DecisionKind::Number(NumberDecision { min: 0, max: 9 }),
            back: None,
        }]
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        let Action::Number(n) = action else {
            return Err(Rejection::Malformed("a number is expected".into()));
        };
        if *n == TRIGGER {
            if cfg!(feature = "huge-output") {
                let event = Event::public(Message::new("event.flood"));
                return Ok(vec![event; HUGE_ITEMS]);
            }
            misbehave("apply", Some(table));
        }
        self.named.push(*n);
        Ok(vec![Event::public(
            Message::new("event.named")
                .seat("seat", seat)
                .number("n", *n),
        )])
    }

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
