//! The deck as data: 60 map cards and the starting provinces, read from TOML with every finding
//! located at its line and column. The shipped deck is `maps/honshu/deck.toml`, compiled in;
//! another file of the same shape can replace it (see `docs/rules/honshu.md`).

use std::collections::BTreeMap;

use sdk::Diagnostic;
use sdk::map_check::{Report, grammar_error};
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// The shipped deck.
pub const STANDARD_DECK: &str = include_str!("../../../maps/honshu/deck.toml");

/// Squares on a card: 2 columns by 3 rows, listed row by row as the card stands upright.
pub const SQUARES: usize = 6;
/// How many map cards a deck has: 12 rounds of 5 players use every one of them.
pub const MAP_CARDS: usize = 60;
/// Starting provinces needed: one per player at the largest table.
pub const MIN_PROVINCES: usize = 5;

/// The colour of a resource, its production squares and its factories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Colour {
    Blue,
    Brown,
    Grey,
    Yellow,
}

/// Every colour, in the order resource counts are kept.
pub const COLOURS: [Colour; 4] = [Colour::Blue, Colour::Brown, Colour::Grey, Colour::Yellow];

impl Colour {
    /// The colour's name in data files and catalogue keys.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Blue => "blue",
            Colour::Brown => "brown",
            Colour::Grey => "grey",
            Colour::Yellow => "yellow",
        }
    }

    /// The index of the colour in per-colour arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    fn parse(name: &str) -> Option<Colour> {
        COLOURS.into_iter().find(|c| c.name() == name)
    }
}

/// What a square of a card shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Terrain {
    Forest,
    Town,
    Lake,
    Fallow,
    Production(Colour),
    Factory(Colour),
}

impl Terrain {
    /// The terrain's name in data files, and its catalogue key under `terrain.`.
    pub fn name(self) -> String {
        match self {
            Terrain::Forest => "forest".into(),
            Terrain::Town => "town".into(),
            Terrain::Lake => "lake".into(),
            Terrain::Fallow => "fallow".into(),
            Terrain::Production(c) => format!("production-{}", c.name()),
            Terrain::Factory(c) => format!("factory-{}", c.name()),
        }
    }

    /// Reads a terrain name as written in a deck file.
    pub fn parse(name: &str) -> Option<Terrain> {
        match name {
            "forest" => Some(Terrain::Forest),
            "town" => Some(Terrain::Town),
            "lake" => Some(Terrain::Lake),
            "fallow" => Some(Terrain::Fallow),
            _ => {
                if let Some(colour) = name.strip_prefix("production-") {
                    Colour::parse(colour).map(Terrain::Production)
                } else if let Some(colour) = name.strip_prefix("factory-") {
                    Colour::parse(colour).map(Terrain::Factory)
                } else {
                    None
                }
            }
        }
    }
}

/// The six squares of one card, row by row.
pub type Layout = [Terrain; SQUARES];

/// One starting province card: side A and side B.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Province {
    /// Its id in the deck file.
    pub id: String,
    /// Side A, then side B.
    pub sides: [Layout; 2],
}

/// A checked deck.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deck {
    /// The map cards: card number `n` is at index `n - 1`.
    pub cards: Vec<Layout>,
    /// The starting provinces.
    pub provinces: Vec<Province>,
}

impl Deck {
    /// The deck a setup plays with: the shipped one for an empty text, else the deck file the
    /// setup carries.
    pub fn of_setup(map_text: &str) -> Result<Deck, sdk::SetupError> {
        if map_text.trim().is_empty() {
            Ok(Deck::standard())
        } else {
            Deck::from_toml(map_text).map_err(sdk::SetupError::Map)
        }
    }

    /// The shipped deck.
    pub fn standard() -> Deck {
        Deck::from_toml(STANDARD_DECK).expect("the shipped deck is checked by the tests")
    }

    /// Reads and checks a deck file: the deck, or every error found (warnings are dropped).
    pub fn from_toml(text: &str) -> Result<Deck, Vec<Diagnostic>> {
        let (deck, diagnostics) = read(text);
        match deck {
            Some(deck) if !diagnostics.iter().any(Diagnostic::is_error) => Ok(deck),
            _ => Err(diagnostics),
        }
    }

    /// The layout of map card `number` (1-based).
    pub fn card(&self, number: u8) -> &Layout {
        &self.cards[usize::from(number) - 1]
    }
}

/// Every finding about a deck file, errors and warnings, in file order.
pub fn validate(text: &str) -> Vec<Diagnostic> {
    read(text).1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeck {
    deck: RawHeader,
    #[serde(default)]
    card: Vec<Spanned<RawCard>>,
    #[serde(default)]
    province: Vec<Spanned<RawProvince>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    ruleset: Spanned<String>,
    #[allow(dead_code, reason = "read so that a deck file can name itself")]
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCard {
    number: Spanned<i64>,
    squares: Spanned<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvince {
    id: Spanned<String>,
    a: Spanned<Vec<Spanned<String>>>,
    b: Spanned<Vec<Spanned<String>>>,
}

/// Reads the six squares of a card side, reporting each bad one at its place.
fn layout(
    report: &mut Report<'_>,
    what: &str,
    squares: &Spanned<Vec<Spanned<String>>>,
) -> Option<Layout> {
    if squares.get_ref().len() != SQUARES {
        report.error(
            &squares.span(),
            format!(
                "{what} has {} squares; a card has {SQUARES} (2 columns by 3 rows)",
                squares.get_ref().len()
            ),
        );
        return None;
    }
    let mut terrains = Vec::with_capacity(SQUARES);
    for square in squares.get_ref() {
        match Terrain::parse(square.get_ref()) {
            Some(terrain) => terrains.push(terrain),
            None => report.error(
                &square.span(),
                format!(
                    "{what}: unknown terrain `{}` (forest, town, lake, fallow, production-<colour>, \
                     factory-<colour>; colours blue, brown, grey, yellow)",
                    square.get_ref()
                ),
            ),
        }
    }
    terrains.try_into().ok()
}

/// Whether a card can always be slid under a map: a card whose four corners are all lakes can
/// only ever go on top.
fn has_dry_corner(layout: &Layout) -> bool {
    [0, 1, 4, 5].iter().any(|&i| layout[i] != Terrain::Lake)
}

fn read(text: &str) -> (Option<Deck>, Vec<Diagnostic>) {
    let mut report = Report::new(text);
    let raw: RawDeck = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(error) => return (None, vec![grammar_error(report.index(), &error)]),
    };
    if raw.deck.ruleset.get_ref() != "honshu" {
        report.error(
            &raw.deck.ruleset.span(),
            format!(
                "this deck is for `{}`, not honshu",
                raw.deck.ruleset.get_ref()
            ),
        );
    }
    let mut cards: BTreeMap<usize, Layout> = BTreeMap::new();
    let mut numbers_seen: Vec<i64> = Vec::new();
    for card in &raw.card {
        let number = *card.get_ref().number.get_ref();
        let what = format!("card {number}");
        let number_span = card.get_ref().number.span();
        let in_range = (1..=MAP_CARDS as i64).contains(&number);
        if !in_range {
            report.error(
                &number_span,
                format!("card number {number} is outside 1-{MAP_CARDS}"),
            );
        } else if numbers_seen.contains(&number) {
            report.error(&number_span, format!("card {number} is listed twice"));
        }
        numbers_seen.push(number);
        if let Some(layout) = layout(&mut report, &what, &card.get_ref().squares) {
            if !has_dry_corner(&layout) {
                report.warning(
                    &card.get_ref().squares.span(),
                    format!("{what}: every corner is a lake, so it can never be slid under a map"),
                );
            }
            if in_range {
                cards.entry(number as usize).or_insert(layout);
            }
        }
    }
    let missing: Vec<String> = (1..=MAP_CARDS)
        .filter(|n| {
            !cards.contains_key(n)
                && !raw
                    .card
                    .iter()
                    .any(|c| *c.get_ref().number.get_ref() == *n as i64)
        })
        .map(|n| n.to_string())
        .collect();
    if !missing.is_empty() {
        report.push(Diagnostic::error(
            0,
            0,
            format!(
                "the deck needs map cards 1-{MAP_CARDS}; missing: {}",
                missing.join(", ")
            ),
        ));
    }
    let mut provinces = Vec::new();
    for province in &raw.province {
        let p = province.get_ref();
        let id = p.id.get_ref().clone();
        if provinces.iter().any(|known: &Province| known.id == id) {
            report.error(&p.id.span(), format!("province `{id}` is listed twice"));
        }
        let a = layout(&mut report, &format!("province {id} side a"), &p.a);
        let b = layout(&mut report, &format!("province {id} side b"), &p.b);
        for (side, squares, layout) in [("a", &p.a, &a), ("b", &p.b, &b)] {
            if let Some(layout) = layout
                && !layout.iter().any(|t| matches!(t, Terrain::Production(_)))
            {
                report.warning(
                    &squares.span(),
                    format!("province {id} side {side} has no production square: its player starts without a resource"),
                );
            }
        }
        if let (Some(a), Some(b)) = (a, b) {
            provinces.push(Province { id, sides: [a, b] });
        }
    }
    if raw.province.len() < MIN_PROVINCES {
        report.push(Diagnostic::error(
            0,
            0,
            format!(
                "the deck has {} starting provinces; 5 players need at least {MIN_PROVINCES}",
                raw.province.len()
            ),
        ));
    }
    let deck = (cards.len() == MAP_CARDS).then(|| Deck {
        cards: cards.into_values().collect(),
        provinces,
    });
    (deck, report.finish())
}
