//! Helpers for native tests of a ruleset: a [`Table`] with seeded random numbers and a battle
//! tower whose output the test scripts, so a test can set up exactly the battle it is about, and
//! [`check_catalogues`] for the message catalogues, and [`replay_digest`] to pin fixed-seed games
//! before a rewrite of the rules, and the [`Conformance`] suite every ruleset runs.

mod conformance;

pub use conformance::Conformance;

use std::collections::VecDeque;

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{
    Action, Catalogue, CubeCount, DecisionKind, Game, LogLevel, OptionSetting, OptionValue,
    Options, Ruleset, Seat, Setup, Table, TowerShelf,
};

/// One drop into a [`ScriptedTable`]'s tower, as the test can inspect it afterwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedDrop {
    /// What the ruleset dropped in.
    pub dropped: Vec<CubeCount>,
    /// What the table said came out.
    pub came_out: Vec<CubeCount>,
}

/// Seeded randomness plus a tower that returns scripted outputs in order. When no output is
/// scripted, everything dropped comes out: an "open" tower, the simplest predictable model.
///
/// The script is not checked against what was dropped: a test may make cubes "fall out" that
/// were lodged in a real tower from earlier drops.
pub struct ScriptedTable {
    rng: ChaCha8Rng,
    outputs: VecDeque<Vec<CubeCount>>,
    /// Every drop so far, oldest first.
    pub drops: Vec<RecordedDrop>,
    /// The shelves the ruleset configured, if it did.
    pub shelves: Option<Vec<TowerShelf>>,
    /// Every log line so far.
    pub log: Vec<(LogLevel, String)>,
}

impl ScriptedTable {
    /// A table whose random numbers come from `seed`.
    pub fn new(seed: u64) -> Self {
        ScriptedTable {
            rng: ChaCha8Rng::seed_from_u64(seed),
            outputs: VecDeque::new(),
            drops: Vec::new(),
            shelves: None,
            log: Vec::new(),
        }
    }

    /// Queues what the next unscripted drop returns.
    pub fn then_tower_returns(&mut self, cubes: Vec<CubeCount>) -> &mut Self {
        self.outputs.push_back(cubes);
        self
    }

    /// How many scripted outputs are still queued.
    pub fn scripted_outputs_left(&self) -> usize {
        self.outputs.len()
    }
}

impl Table for ScriptedTable {
    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn below(&mut self, bound: u64) -> u64 {
        assert!(bound >= 1, "below(0) is a ruleset bug");
        self.rng.random_range(0..bound)
    }

    fn configure_tower(&mut self, shelves: &[TowerShelf]) -> Result<(), String> {
        if !self.drops.is_empty() {
            return Err("the tower can only be configured before the first drop".into());
        }
        self.shelves = Some(shelves.to_vec());
        Ok(())
    }

    fn drop_cubes(&mut self, cubes: &[CubeCount]) -> Vec<CubeCount> {
        let came_out = self.outputs.pop_front().unwrap_or_else(|| cubes.to_vec());
        self.drops.push(RecordedDrop {
            dropped: cubes.to_vec(),
            came_out: came_out.clone(),
        });
        came_out
    }

    fn log(&mut self, level: LogLevel, line: &str) {
        self.log.push((level, line.to_owned()));
    }
}

/// A [`Table`] like the host's: a ChaCha20 stream from a 256-bit seed and the real
/// [`TowerModel`](crate::tower::TowerModel). Use it to play whole random games natively.
pub struct SeededTable {
    rng: rand_chacha::ChaCha20Rng,
    tower: crate::tower::TowerModel,
    dropped_any: bool,
}

impl SeededTable {
    /// A table seeded with `seed`, with the default two-shelf tower.
    pub fn new(seed: [u8; 32]) -> Self {
        SeededTable {
            rng: rand_chacha::ChaCha20Rng::from_seed(seed),
            tower: crate::tower::TowerModel::default(),
            dropped_any: false,
        }
    }

    /// The cubes lodged in the tower, per owner: the host's secret, open to tests.
    pub fn tower_contents(&self) -> Vec<CubeCount> {
        self.tower.contents()
    }
}

impl Table for SeededTable {
    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn below(&mut self, bound: u64) -> u64 {
        assert!(bound >= 1, "below(0) is a ruleset bug");
        self.rng.random_range(0..bound)
    }

    fn configure_tower(&mut self, shelves: &[TowerShelf]) -> Result<(), String> {
        if self.dropped_any {
            return Err("the tower can only be configured before the first drop".into());
        }
        self.tower = crate::tower::TowerModel::new(shelves.to_vec())?;
        Ok(())
    }

    fn drop_cubes(&mut self, cubes: &[CubeCount]) -> Vec<CubeCount> {
        self.dropped_any = true;
        let rng = &mut self.rng;
        self.tower.drop(cubes, &mut || rng.next_u64())
    }

    fn log(&mut self, _level: LogLevel, _line: &str) {}
}

/// Option settings, as a [`Setup`] carries them, from (name, value) pairs.
pub fn settings(pairs: &[(&str, OptionValue)]) -> Vec<OptionSetting> {
    pairs
        .iter()
        .map(|(name, value)| OptionSetting {
            name: (*name).to_owned(),
            value: value.clone(),
        })
        .collect()
}

/// The options of `R`: its defaults with these changed. Panics on a setting its schema refuses.
pub fn options<R: Ruleset>(pairs: &[(&str, OptionValue)]) -> Options {
    Options::resolve(&R::info().options, &settings(pairs))
        .unwrap_or_else(|error| panic!("options refused: {error}"))
}

/// A new game of `R` for `seats` players on `map` (TOML text, empty for none), with these
/// options changed from their defaults, set up with `table`. Panics when `R` refuses the setup.
pub fn new_game<R: Ruleset>(
    seats: u32,
    map: &str,
    pairs: &[(&str, OptionValue)],
    table: &mut dyn Table,
) -> R::Game {
    let setup = Setup {
        map: map.to_owned(),
        options: settings(pairs),
        seats,
    };
    R::create(&setup, &options::<R>(pairs), table)
        .unwrap_or_else(|error| panic!("setup refused: {error}"))
}

/// The ids of the choices `seat` is asked to pick from now; empty when it is asked nothing or
/// to give a number or an assignment.
pub fn choice_ids<G: Game>(game: &G, seat: Seat) -> Vec<String> {
    let pending = game.pending();
    let Some(decision) = pending.iter().find(|d| d.seat == seat) else {
        return Vec::new();
    };
    match &decision.kind {
        DecisionKind::Choose(choose) => choose.choices.iter().map(|c| c.id.clone()).collect(),
        _ => Vec::new(),
    }
}

/// The answer of `seat` that picks the choices with these ids, in this order. Panics, naming
/// the choices there are, when one is not offered.
pub fn pick<G: Game>(game: &G, seat: Seat, ids: &[&str]) -> Action {
    let offered = choice_ids(game, seat);
    let index = |id: &&str| {
        let found = offered.iter().position(|choice| choice == id);
        found.unwrap_or_else(|| panic!("seat {seat} has no choice `{id}`: {offered:?}")) as u32
    };
    Action::Choose(ids.iter().map(index).collect())
}

/// Everything wrong with a ruleset's message catalogues, one finding per line; empty when
/// nothing is. Use it in a test: `assert!(check_catalogues::<MyGame>().is_empty(), ...)`.
///
/// English (`en`) is the reference and must be among `info().languages`. Each listed language
/// must have a catalogue that reads as TOML, whose templates parse and whose plurals give exactly
/// the CLDR categories of the language ([`Catalogue::check_plurals`]); each besides English must
/// have exactly the English keys with the same placeholders and counted arguments
/// ([`Catalogue::check_translation`]). The English catalogue must have the keys `info()` names:
/// each option's description and each map's name.
pub fn check_catalogues<R: Ruleset>() -> Vec<String> {
    let info = R::info();
    let mut findings = Vec::new();
    let read = |language: &str, findings: &mut Vec<String>| match R::catalogue(language) {
        None => {
            findings.push(format!("{language}: no catalogue"));
            None
        }
        Some(text) => match Catalogue::from_toml(text) {
            Ok(catalogue) => Some(catalogue.with_language(language)),
            Err(error) => {
                findings.push(format!("{language}: {error}"));
                None
            }
        },
    };
    if !info.languages.iter().any(|l| l == "en") {
        findings.push("`en` is not among info().languages".to_string());
    }
    let Some(english) = read("en", &mut findings) else {
        return findings;
    };
    findings.extend(english.check_plurals());
    let named = info
        .options
        .iter()
        .map(|option| &option.description.key)
        .chain(info.maps.iter().map(|map| &map.name.key));
    for key in named {
        if english.get(key).is_none() {
            findings.push(format!("en: `{key}`, named by info(), is missing"));
        }
    }
    for language in info.languages.iter().filter(|l| *l != "en") {
        if let Some(catalogue) = read(language, &mut findings) {
            findings.extend(catalogue.check_plurals());
            findings.extend(catalogue.check_translation(&english));
        }
    }
    findings
}

/// FNV-1a, 64 bits, over a sequence of parts: small, and stable across platforms and toolchains,
/// so a digest recorded once can be pinned in a test.
#[derive(Clone, Copy, Debug)]
pub struct Digest(pub u64);

impl Default for Digest {
    fn default() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    /// Adds one part's bytes, then a separator, so that ("ab", "c") and ("a", "bc") differ.
    pub fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
    }

    /// Adds a value's `Debug` text as one part.
    pub fn text(&mut self, value: impl std::fmt::Debug) {
        self.add(format!("{value:?}").as_bytes());
    }
}

/// Plays `game` on with random answers drawn from `table` (at most `most_answers`), digesting
/// its snapshot, then every pending list, answer and event list, then the final snapshot, the
/// spectator's view, the result and the table's next random number. Pin the digests of a few
/// fixed-seed games before rewriting how the rules are written: a digest that moves means a
/// stored game would no longer replay. `each_step` sees the game and its pending decisions
/// before each answer (for checks of the test's own). Panics if the ruleset refuses an answer
/// the SDK drew from a pending decision.
pub fn replay_digest<G: crate::Game>(
    game: &mut G,
    table: &mut SeededTable,
    most_answers: usize,
    mut each_step: impl FnMut(&G, &[crate::PendingDecision]),
) -> u64 {
    use crate::TableExt as _;
    let mut digest = Digest::default();
    digest.add(&game.snapshot());
    for _ in 0..most_answers {
        let pending = game.pending();
        digest.text(&pending);
        if pending.is_empty() {
            break;
        }
        each_step(game, &pending);
        let decision = &pending[table.pick_index(pending.len())];
        let action = crate::random_action(&decision.kind, table);
        digest.text(&action);
        let events = game
            .apply(decision.seat, &action, table)
            .unwrap_or_else(|e| panic!("refused: {e:?}"));
        digest.text(&events);
    }
    digest.add(&game.snapshot());
    digest.add(game.view(crate::Viewer::Spectator).as_bytes());
    digest.text(game.result());
    digest.text(table.next_u64());
    digest.0
}
