//! Template ruleset, made by `cargo xtask new-ruleset`: the rules of the template's placeholder
//! game (take one to three counters in turn; who takes the last wins) until you write your own.
//! Start with docs/sdk.md, "A new ruleset in an afternoon".

// This file is the ruleset's registration and nothing else: the same in every ruleset made from
// the template (a test of `xtask` holds it to the template's `src/lib.rs`), so write the game in
// `rules` (the state, what each seat is asked, what an answer does), `tell` (how each outcome is
// worded) and `board` (what each viewer sees).

pub mod board;
pub mod rules;
pub mod tell;

/// The message catalogues, one per language the web UI offers; English has every key.
pub static CATALOGUES: sdk::Catalogues = sdk::catalogues! {
    "en" => "../i18n/en.toml",
    "de" => "../i18n/de.toml",
    "es" => "../i18n/es.toml",
    "ro" => "../i18n/ro.toml",
    "ru" => "../i18n/ru.toml",
};

/// The ruleset, as the host sees it.
pub struct TemplateRuleset;

impl sdk::Ruleset for TemplateRuleset {
    type Game = rules::State;

    fn info() -> sdk::RulesetInfo {
        sdk::RulesetInfo {
            id: env!("CARGO_PKG_NAME").into(),
            name: "Template ruleset".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            min_seats: *rules::SEATS.start(),
            max_seats: *rules::SEATS.end(),
            maps: Vec::new(),
            options: <rules::Settings as sdk::FromOptions>::schema(),
            languages: CATALOGUES.languages(),
        }
    }

    /// The game is played without a map: there is nothing in one to check.
    fn validate_map(_map: &str) -> Vec<sdk::Diagnostic> {
        Vec::new()
    }

    fn catalogues() -> &'static sdk::Catalogues {
        &CATALOGUES
    }

    fn create(
        setup: &sdk::Setup,
        options: &sdk::Options,
        table: &mut dyn sdk::Table,
    ) -> Result<rules::State, sdk::SetupError> {
        let settings = <rules::Settings as sdk::FromOptions>::from_options(options);
        Ok(rules::State::new(setup.seats, settings, table))
    }

    fn restore(bytes: &[u8]) -> Result<rules::State, String> {
        sdk::snapshot::read(bytes)
    }
}

impl sdk::Game for rules::State {
    fn pending(&self) -> Vec<sdk::PendingDecision> {
        rules::pending(self)
    }

    fn apply(
        &mut self,
        seat: sdk::Seat,
        action: &sdk::Action,
        table: &mut dyn sdk::Table,
    ) -> Result<Vec<sdk::Event>, sdk::Rejection> {
        let mut log = sdk::Log::new();
        rules::apply(self, seat, action, table, &mut log)?;
        Ok(log.into_events())
    }

    fn view(&self, viewer: sdk::Viewer) -> String {
        board::view(self, viewer).to_string()
    }

    fn render(&self, viewer: sdk::Viewer) -> Vec<sdk::BoardPart> {
        board::render(self, viewer)
    }

    fn result(&self) -> Option<sdk::GameResult> {
        rules::result(self)
    }

    fn snapshot(&self) -> Vec<u8> {
        sdk::snapshot::write(self)
    }

    fn determinize(&self, seat: sdk::Seat, table: &mut dyn sdk::Table) -> Self {
        rules::determinize(self, seat, table)
    }

    fn rollout_action(&self, seat: sdk::Seat, salt: u64) -> Option<sdk::Action> {
        rules::rollout_action(self, seat, salt)
    }
}

sdk::register_ruleset!(TemplateRuleset);
