//! What every ruleset must do, checked in one place: call [`Conformance::run`] from a test of the
//! ruleset with a few setups, and keep the ruleset's own tests for its own rules.
//!
//! For each setup and seed it plays a whole game through the SDK's adapter (what the host calls),
//! answering at random or with the ruleset's rollout policy, and checks that:
//!
//! - the catalogues pass [`check_catalogues`](super::check_catalogues);
//! - every key the game emits is in the English catalogue (so, by that check, in every
//!   language): the keys of events, summaries, prompts, choices, ways back, results, rejections
//!   and the texts and titles of the boards drawn for every viewer, and the keys they pass as
//!   arguments;
//! - every seat an event is told to, a decision asks or a message names is a seat of the game;
//! - the game ends within [`Conformance::most_answers`] with a result that places every seat
//!   once;
//! - the rollout policy's answers fit their decisions and the rules take them;
//! - a snapshot restores to a game with the same snapshot and decisions;
//! - the same seed plays the same game twice, answer for answer and event for event;
//! - a blank map of the map editor is TOML the ruleset reads, and cannot be played as it is;
//! - with [`Conformance::variants`], every variant file is named (`variant.<id>`) and described
//!   (`variant.<id>.description`) in English, so in every language: the lobby shows both.

use std::collections::BTreeSet;

use crate::native::{DynGame, DynRuleset, adapt};
use crate::{
    Catalogue, Event, Message, MessageArg, OptionSetting, OptionSpec, OptionValue, PendingDecision,
    Rejection, Ruleset, Seat, Setup, TableExt, Viewer, check_action_shape, random_action,
};

use super::{Digest, SeededTable, check_catalogues};

/// The games the conformance suite plays, and how long they may take.
#[derive(Clone, Debug)]
pub struct Conformance {
    /// The setups to play, each with every seed in `1..=seeds`.
    pub setups: Vec<Setup>,
    /// Games per setup.
    pub seeds: u64,
    /// The most answers a game may take, refused ones included, before it counts as endless.
    pub most_answers: usize,
    /// Boards are drawn for every viewer every this many answers (and at the start and end).
    pub render_every: usize,
    /// The folder of the ruleset's variant files, whose names and descriptions are checked.
    pub variants: Option<std::path::PathBuf>,
}

impl Default for Conformance {
    fn default() -> Self {
        Conformance {
            setups: Vec::new(),
            seeds: 2,
            most_answers: 20_000,
            render_every: 40,
            variants: None,
        }
    }
}

impl Conformance {
    /// No setups yet, two games each.
    pub fn new() -> Conformance {
        Conformance::default()
    }

    /// Adds a setup: `seats` players on `map` (TOML text; empty for a ruleset without maps),
    /// with these options changed from their defaults.
    pub fn setup(mut self, seats: u32, map: &str, options: &[(&str, OptionValue)]) -> Conformance {
        self.setups.push(Setup {
            map: map.to_owned(),
            options: super::settings(options),
            seats,
        });
        self
    }

    /// The suite of a ruleset played without a map: a setup for every seat count `R` takes,
    /// with the default options, and one for each variant file in `folder` (`*.toml`, its
    /// `[options]` read against `R`'s schema; one that does not fit panics) at the fewest
    /// seats, the variant files' names and descriptions checked too. Name the folder with
    /// [`variants_folder!`](crate::variants_folder).
    pub fn every_seat_count_and_variant<R: Ruleset>(
        folder: impl Into<std::path::PathBuf>,
    ) -> Conformance {
        let folder = folder.into();
        let info = R::info();
        let mut suite = Conformance::new();
        for seats in info.min_seats..=info.max_seats {
            suite = suite.setup(seats, "", &[]);
        }
        for options in variant_options(&info.options, &folder) {
            suite.setups.push(Setup {
                map: String::new(),
                options,
                seats: info.min_seats,
            });
        }
        suite.variants(folder)
    }

    /// Games per setup.
    pub fn seeds(mut self, seeds: u64) -> Conformance {
        self.seeds = seeds;
        self
    }

    /// Checks the variant files (`*.toml`) in `folder`; a test names it from its manifest
    /// folder, `concat!(env!("CARGO_MANIFEST_DIR"), "/../../maps/<ruleset>/variants")`.
    pub fn variants(mut self, folder: impl Into<std::path::PathBuf>) -> Conformance {
        self.variants = Some(folder.into());
        self
    }

    /// Runs every check on `R`; panics with every finding.
    pub fn run<R: Ruleset>(&self)
    where
        R::Game: Send,
    {
        assert!(
            !self.setups.is_empty(),
            "the suite needs at least one setup"
        );
        let mut findings = check_catalogues::<R>();
        let english = R::catalogue("en")
            .and_then(|text| Catalogue::from_toml(text).ok())
            .unwrap_or_default();
        let ruleset = adapt::<R>();
        let mut checker = Checker {
            english: &english,
            missing: BTreeSet::new(),
            findings: Vec::new(),
            seats: 0,
        };
        checker.blank_map(ruleset.as_ref());
        if let Some(folder) = &self.variants {
            checker.variants(folder);
        }
        for setup in &self.setups {
            for seed in 1..=self.seeds {
                let first = checker.play(ruleset.as_ref(), setup, seed, self);
                let again = checker.play(ruleset.as_ref(), setup, seed, self);
                if first != again {
                    checker.findings.push(format!(
                        "{} seats, seed {seed}: the same seed played another game",
                        setup.seats
                    ));
                }
            }
        }
        checker.findings.sort();
        checker.findings.dedup();
        findings.extend(checker.findings);
        findings.extend(
            checker
                .missing
                .into_iter()
                .map(|key| format!("en: `{key}` is emitted but not catalogued")),
        );
        assert!(
            findings.is_empty(),
            "the ruleset does not conform:\n- {}",
            findings.join("\n- ")
        );
    }
}

/// The options of each variant file (`*.toml`) in `folder`, read against `schema`, in the
/// order of their file names; panics on a file that cannot be read or does not fit.
fn variant_options(schema: &[OptionSpec], folder: &std::path::Path) -> Vec<Vec<OptionSetting>> {
    let entries =
        std::fs::read_dir(folder).unwrap_or_else(|error| panic!("{}: {error}", folder.display()));
    let mut paths: Vec<_> = entries
        .map(|entry| entry.expect("a variant file").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).expect("a variant file reads");
            let file: toml::Table = text.parse().expect("a variant file is TOML");
            let options = file.get("options").and_then(|o| o.as_table());
            let read = |(name, value): (&String, &toml::Value)| {
                let spec = schema.iter().find(|spec| &spec.name == name);
                let spec = spec.unwrap_or_else(|| panic!("{path:?}: no option `{name}`"));
                let text = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                let value = spec
                    .parse(&text)
                    .unwrap_or_else(|e| panic!("{path:?}: {e}"));
                OptionSetting {
                    name: name.clone(),
                    value,
                }
            };
            options.into_iter().flatten().map(read).collect()
        })
        .collect()
}

struct Checker<'a> {
    english: &'a Catalogue,
    missing: BTreeSet<String>,
    findings: Vec<String>,
    /// The seats of the game being played.
    seats: u32,
}

impl Checker<'_> {
    fn key(&mut self, key: &str) {
        if self.english.get(key).is_none() {
            self.missing.insert(key.to_owned());
        }
    }

    fn seat(&mut self, seat: Seat, what: &str) {
        if seat >= self.seats {
            self.findings
                .push(format!("{what} names seat {seat} of {}", self.seats));
        }
    }

    fn message(&mut self, message: &Message) {
        self.key(&message.key);
        for (_, arg) in &message.args {
            match arg {
                MessageArg::Key(key) => self.key(key),
                MessageArg::Seat(seat) => self.seat(*seat, &format!("`{}`", message.key)),
                MessageArg::Text(_) | MessageArg::Number(_) => {}
            }
        }
    }

    fn event(&mut self, event: &Event) {
        self.message(&event.text);
        if let crate::Audience::Seats(seats) = &event.audience {
            for &seat in seats {
                self.seat(seat, &format!("the audience of `{}`", event.text.key));
            }
        }
        if let Some(summary) = &event.summary {
            self.message(&summary.title);
            for line in &summary.lines {
                self.message(&line.label);
            }
        }
    }

    fn decision(&mut self, decision: &PendingDecision) {
        self.seat(decision.seat, &format!("`{}`", decision.prompt.key));
        self.message(&decision.prompt);
        if let Some(back) = &decision.back {
            self.message(back);
        }
        match &decision.kind {
            crate::DecisionKind::Choose(choose) => {
                for choice in &choose.choices {
                    self.message(&choice.label);
                    if let Some(detail) = &choice.detail {
                        self.message(detail);
                    }
                }
            }
            crate::DecisionKind::Assign(assign) => {
                for item in &assign.items {
                    self.message(&item.label);
                }
                for slot in &assign.slots {
                    self.message(&slot.label);
                }
            }
            crate::DecisionKind::Number(_) => {}
        }
    }

    /// The boards every viewer sees: their titles and every translatable text.
    fn boards(&mut self, game: &dyn DynGame) {
        let viewers = (0..self.seats).map(Viewer::Seat).chain([Viewer::Spectator]);
        for viewer in viewers {
            for part in game.render(viewer) {
                if let Some(title) = &part.title {
                    self.message(title);
                }
                for key in svg_keys(&part.svg) {
                    self.key(&key);
                }
            }
        }
    }

    fn blank_map(&mut self, ruleset: &dyn DynRuleset) {
        let Some(blank) = ruleset.map_editor().and_then(|editor| editor.blank_map) else {
            return;
        };
        if let Err(error) = blank.parse::<toml::Table>() {
            self.findings
                .push(format!("the editor's blank map is not TOML: {error}"));
        }
        let lines = blank.lines().count() as u32;
        let found = ruleset.validate_map(&blank);
        if !found.iter().any(|d| d.is_error()) {
            self.findings
                .push("the editor's blank map can be played as it is".into());
        }
        for diagnostic in found.iter().filter(|d| d.line > lines) {
            self.findings.push(format!(
                "the blank map's finding is past its last line: {diagnostic:?}"
            ));
        }
    }

    /// Every variant file in `folder` is named and described.
    fn variants(&mut self, folder: &std::path::Path) {
        let ids: Vec<String> = std::fs::read_dir(folder)
            .map(|entries| {
                entries
                    .filter_map(|entry| Some(entry.ok()?.path()))
                    .filter(|path| path.extension().is_some_and(|e| e == "toml"))
                    .filter_map(|path| Some(path.file_stem()?.to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        if ids.is_empty() {
            self.findings
                .push(format!("no variant file in {}", folder.display()));
        }
        for id in ids {
            self.key(&format!("variant.{id}"));
            self.key(&format!("variant.{id}.description"));
        }
    }

    /// Plays one game; returns its digest.
    fn play(
        &mut self,
        ruleset: &dyn DynRuleset,
        setup: &Setup,
        seed: u64,
        suite: &Conformance,
    ) -> u64 {
        let context = format!("{} seats, seed {seed}", setup.seats);
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8] = setup.seats as u8;
        let mut table = SeededTable::new(bytes);
        let mut game = match ruleset.create(setup, &mut table) {
            Ok(game) => game,
            Err(error) => {
                self.findings
                    .push(format!("{context}: the game does not start: {error:?}"));
                return 0;
            }
        };
        self.seats = setup.seats;
        let mut digest = Digest::default();
        self.boards(game.as_ref());
        for answer in 0..suite.most_answers {
            let pending = game.pending();
            if pending.is_empty() {
                break;
            }
            for decision in &pending {
                self.decision(decision);
            }
            if answer % suite.render_every == 0 {
                self.boards(game.as_ref());
            }
            if answer % 16 == 0 {
                self.restores(ruleset, game.as_ref(), &context);
            }
            let decision = &pending[table.pick_index(pending.len())];
            let salt = seed ^ (answer as u64).rotate_left(29);
            let policy = if answer % 2 == 0 {
                game.rollout_action(decision.seat, salt)
            } else {
                None
            };
            let (action, from_policy) = match policy {
                Some(action) => (action, true),
                None => (random_action(&decision.kind, &mut table), false),
            };
            if from_policy && let Err(error) = check_action_shape(&decision.kind, &action) {
                self.findings.push(format!(
                    "{context}: the rollout policy's {action:?} does not fit `{}`: {error:?}",
                    decision.prompt.key
                ));
                return digest.0;
            }
            digest.text(&action);
            match game.apply(decision.seat, &action, &mut table) {
                Ok(events) => {
                    for event in &events {
                        self.event(event);
                    }
                    digest.text(&events);
                }
                Err(rejection) => {
                    if let Rejection::Illegal(message) = &rejection {
                        self.message(message);
                    }
                    if from_policy {
                        self.findings.push(format!(
                            "{context}: the rules refused the rollout policy's {action:?} for \
                             `{}`: {rejection:?}",
                            decision.prompt.key
                        ));
                        return digest.0;
                    }
                }
            }
        }
        self.boards(game.as_ref());
        if !game.pending().is_empty() {
            self.findings.push(format!(
                "{context}: the game did not end within {} answers",
                suite.most_answers
            ));
            return digest.0;
        }
        match game.result() {
            None => self
                .findings
                .push(format!("{context}: the game ended without a result")),
            Some(result) => {
                self.message(&result.summary);
                for line in &result.breakdown {
                    self.message(&line.label);
                }
                let mut placed: Vec<Seat> = result.placings.iter().map(|p| p.seat).collect();
                placed.sort_unstable();
                if placed != (0..setup.seats).collect::<Vec<_>>() {
                    self.findings.push(format!(
                        "{context}: the result places seats {placed:?}, not each seat once"
                    ));
                }
                digest.text(&result);
            }
        }
        digest.add(&game.snapshot());
        digest.0
    }

    fn restores(&mut self, ruleset: &dyn DynRuleset, game: &dyn DynGame, context: &str) {
        let snapshot = game.snapshot();
        match ruleset.restore(&snapshot) {
            Err(error) => self
                .findings
                .push(format!("{context}: a snapshot does not restore: {error}")),
            Ok(restored) => {
                if restored.snapshot() != snapshot || restored.pending() != game.pending() {
                    self.findings.push(format!(
                        "{context}: a restored game differs from the game it was taken from"
                    ));
                }
            }
        }
    }
}

/// The catalogue keys a board's SVG passes to clients: each `data-msg`, and each key argument
/// of its `data-args`.
fn svg_keys(svg: &str) -> Vec<String> {
    let unescape = |text: &str| {
        text.replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    };
    let mut keys = Vec::new();
    for (marker, end) in [("data-msg=\"", "\""), ("&quot;key&quot;:&quot;", "&quot;")] {
        let mut rest = svg;
        while let Some(at) = rest.find(marker) {
            rest = &rest[at + marker.len()..];
            let Some(stop) = rest.find(end) else { break };
            keys.push(unescape(&rest[..stop]));
            rest = &rest[stop..];
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    #[test]
    fn board_keys_are_read_from_the_message_attributes() {
        let message = crate::Message::new("label.o'hara")
            .key("clan", "clan.date")
            .number("n", 3);
        let svg = format!(
            "<text {}>x</text><text data-msg=\"plain\">y</text>",
            crate::svg::message_attributes(&message)
        );
        assert_eq!(
            super::svg_keys(&svg),
            vec!["label.o'hara", "plain", "clan.date"]
        );
    }
}
