//! The map: its TOML shape and the checks that locate every finding.

use serde::{Deserialize, Serialize};

use sdk::Diagnostic;

/// The map: prize deck, starting tokens and an optional bid cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FixtureMap {
    /// Prize card values, drawn with replacement.
    #[serde(default = "default_deck")]
    pub deck: Vec<i64>,
    /// Tokens each seat starts with.
    #[serde(default = "default_start_tokens")]
    pub start_tokens: i64,
    /// The largest bid total allowed, if any.
    #[serde(default)]
    pub bid_cap: Option<i64>,
    /// The most tokens a hand may hold after drawing, if any.
    #[serde(default)]
    pub hand_limit: Option<i64>,
}

fn default_deck() -> Vec<i64> {
    (1..=9).collect()
}

fn default_start_tokens() -> i64 {
    4
}

fn line_of(text: &str, key: &str) -> u32 {
    text.lines()
        .position(|line| line.trim_start().starts_with(key))
        .map_or(0, |i| i as u32 + 1)
}

fn line_and_column(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    (line, column)
}

/// Reads and checks a map, returning it with every finding.
pub fn parse_map(text: &str) -> (Option<FixtureMap>, Vec<Diagnostic>) {
    let map: FixtureMap = match toml::from_str(text) {
        Ok(map) => map,
        Err(error) => {
            let (line, column) = error
                .span()
                .map_or((0, 0), |span| line_and_column(text, span.start));
            return (None, vec![Diagnostic::error(line, column, error.message())]);
        }
    };
    let mut findings = Vec::new();
    let deck_line = line_of(text, "deck");
    if map.deck.len() < 3 {
        findings.push(Diagnostic::error(
            deck_line,
            1,
            format!("the deck needs at least 3 cards, not {}", map.deck.len()),
        ));
    } else if map.deck.len() < 5 {
        findings.push(Diagnostic::warning(
            deck_line,
            1,
            "a deck of fewer than 5 cards repeats prizes often",
        ));
    }
    for value in &map.deck {
        if !(1..=20).contains(value) {
            findings.push(Diagnostic::error(
                deck_line,
                1,
                format!("prize {value} is outside 1..=20"),
            ));
        }
    }
    if !(1..=8).contains(&map.start_tokens) {
        findings.push(Diagnostic::error(
            line_of(text, "start-tokens"),
            1,
            format!("start-tokens {} is outside 1..=8", map.start_tokens),
        ));
    }
    if let Some(cap) = map.bid_cap
        && cap < 1
    {
        findings.push(Diagnostic::error(
            line_of(text, "bid-cap"),
            1,
            format!("bid-cap {cap} leaves no legal bid"),
        ));
    }
    if let Some(limit) = map.hand_limit
        && limit < 1
    {
        findings.push(Diagnostic::error(
            line_of(text, "hand-limit"),
            1,
            format!("hand-limit {limit} leaves no room for a token"),
        ));
    }
    let playable = !findings.iter().any(Diagnostic::is_error);
    (playable.then_some(map), findings)
}
