//! Message catalogues: how a [`Message`] becomes a sentence in one language.

use std::collections::BTreeMap;

use crate::plural::{self, Piece};
use crate::{Message, MessageArg};

/// A ruleset's catalogues, one TOML text per language, declared once with
/// [`catalogues!`](crate::catalogues): both [`RulesetInfo::languages`](crate::RulesetInfo) and
/// [`Ruleset::catalogue`](crate::Ruleset::catalogue) are read from it. English (`en`) comes
/// first and has every key the ruleset emits.
///
/// Keep it in a `static`, so the English catalogue is parsed once per instance.
pub struct Catalogues {
    texts: &'static [(&'static str, &'static str)],
    english: std::sync::OnceLock<Catalogue>,
}

impl Catalogues {
    /// The catalogues of these (language, TOML text) pairs.
    pub const fn new(texts: &'static [(&'static str, &'static str)]) -> Catalogues {
        Catalogues {
            texts,
            english: std::sync::OnceLock::new(),
        }
    }

    /// The languages, in the order declared.
    pub fn languages(&self) -> Vec<String> {
        self.texts
            .iter()
            .map(|(language, _)| (*language).to_string())
            .collect()
    }

    /// The catalogue text of `language`, if the ruleset ships it.
    pub fn get(&self, language: &str) -> Option<&'static str> {
        self.texts
            .iter()
            .find(|(shipped, _)| *shipped == language)
            .map(|(_, text)| *text)
    }

    /// The English catalogue, parsed on first use; empty if there is none or it does not read
    /// (the catalogue check of `sdk::testing` reports both).
    pub fn english(&self) -> &Catalogue {
        self.english.get_or_init(|| {
            self.get("en")
                .and_then(|text| Catalogue::from_toml(text).ok())
                .unwrap_or_default()
        })
    }
}

/// Declares a ruleset's catalogues once, as `language => path` pairs (paths relative to the
/// file, as for `include_str!`), English first:
///
/// ```text
/// pub static CATALOGUES: sdk::Catalogues = sdk::catalogues! {
///     "en" => "../i18n/en.toml",
///     "de" => "../i18n/de.toml",
/// };
/// ```
///
/// Hand it to [`Ruleset::catalogues`](crate::Ruleset::catalogues) and name its
/// [`languages`](Catalogues::languages) in `info()`.
#[macro_export]
macro_rules! catalogues {
    ($($language:literal => $path:literal),+ $(,)?) => {
        $crate::Catalogues::new(&[$(($language, include_str!($path))),+])
    };
}

/// Why a catalogue could not be read.
#[derive(Debug, thiserror::Error)]
#[error("catalogue: {0}")]
pub struct CatalogueError(String);

/// The templates of one language: `key = "template"` pairs, where a template names its
/// arguments as `{name}` and counts with plural forms,
/// `{armies, plural, =0 {no armies} one {# army} other {# armies}}` (see [`crate::plural`]).
/// Keys may be grouped in TOML tables (`[action]` + `build-castle = ...` is the key
/// `action.build-castle`).
///
/// A catalogue knows its language, which chooses the plural forms: English unless told otherwise
/// with [`Catalogue::with_language`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalogue {
    templates: BTreeMap<String, String>,
    language: Option<String>,
}

impl Catalogue {
    /// Reads a catalogue from TOML text.
    pub fn from_toml(text: &str) -> Result<Catalogue, CatalogueError> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| CatalogueError(e.to_string()))?;
        let mut templates = BTreeMap::new();
        flatten("", &table, &mut templates)?;
        Ok(Catalogue {
            templates,
            language: None,
        })
    }

    /// Builds a catalogue from (key, template) pairs, as the contract carries it.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> Catalogue {
        Catalogue {
            templates: pairs.into_iter().collect(),
            language: None,
        }
    }

    /// The same catalogue in `language` (a tag such as `ro` or `pt-BR`), whose plural rules
    /// [`Catalogue::render`] then applies.
    pub fn with_language(mut self, language: impl Into<String>) -> Catalogue {
        self.language = Some(language.into());
        self
    }

    /// The catalogue's language: `en` unless set with [`Catalogue::with_language`].
    pub fn language(&self) -> &str {
        self.language.as_deref().unwrap_or("en")
    }

    /// Every (key, template) pair, sorted by key.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.templates.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The template of a key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.templates.get(key).map(String::as_str)
    }

    /// A name as a message argument: the catalogue key `key` when this catalogue translates it,
    /// else `text` as it is. A ruleset names the places of its printed board by key and those of
    /// an authored map (which no catalogue knows) by the map's own name; ask the English
    /// catalogue, which has every key the ruleset emits.
    pub fn key_or_text(&self, key: String, text: &str) -> MessageArg {
        if self.templates.contains_key(&key) {
            MessageArg::Key(key)
        } else {
            MessageArg::Text(text.to_string())
        }
    }

    /// Renders a message as text. A plural shows the form for its number in the catalogue's
    /// language (an exact match such as `=0` first, then the CLDR category, then `other`), with
    /// `#` as the number. A missing key renders as the key itself, a seat as `seat_name(seat)`,
    /// and a missing argument (or a plural whose argument is not a number) as `{name}`, so a gap
    /// is visible, never fatal. A template that does not parse has its `{name}`s replaced and
    /// the rest shown as it is.
    pub fn render(&self, message: &Message, seat_name: &dyn Fn(u32) -> String) -> String {
        let Some(template) = self.get(&message.key) else {
            return message.key.clone();
        };
        let mut out = String::with_capacity(template.len());
        match plural::parse(template) {
            Ok(pieces) => self.write(&pieces, message, seat_name, None, &mut out),
            Err(_) => self.write_plain(template, message, seat_name, &mut out),
        }
        out
    }

    fn write_arg(
        &self,
        name: &str,
        message: &Message,
        seat_name: &dyn Fn(u32) -> String,
        out: &mut String,
    ) {
        match message.args.iter().find(|(n, _)| n == name) {
            Some((_, MessageArg::Text(text))) => out.push_str(text),
            Some((_, MessageArg::Number(n))) => out.push_str(&n.to_string()),
            Some((_, MessageArg::Seat(seat))) => out.push_str(&seat_name(*seat)),
            Some((_, MessageArg::Key(key))) => out.push_str(self.get(key).unwrap_or(key)),
            None => {
                out.push('{');
                out.push_str(name);
                out.push('}');
            }
        }
    }

    fn write(
        &self,
        pieces: &[Piece],
        message: &Message,
        seat_name: &dyn Fn(u32) -> String,
        number: Option<i64>,
        out: &mut String,
    ) {
        for piece in pieces {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Number => match number {
                    Some(n) => out.push_str(&n.to_string()),
                    None => out.push('#'),
                },
                Piece::Arg(name) => self.write_arg(name, message, seat_name, out),
                Piece::Plural { arg, forms } => {
                    let n = message.args.iter().find_map(|(name, value)| match value {
                        MessageArg::Number(n) if name == arg => Some(*n),
                        _ => None,
                    });
                    let form = n.and_then(|n| plural::select(forms, self.language(), n));
                    match (n, form) {
                        (Some(n), Some(form)) => {
                            self.write(form, message, seat_name, Some(n), out);
                        }
                        _ => {
                            out.push('{');
                            out.push_str(arg);
                            out.push('}');
                        }
                    }
                }
            }
        }
    }

    /// A template that does not parse: its `{name}`s replaced, the rest as it is.
    fn write_plain(
        &self,
        template: &str,
        message: &Message,
        seat_name: &dyn Fn(u32) -> String,
        out: &mut String,
    ) {
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[open..]);
                return;
            };
            self.write_arg(&after[..close], message, seat_name, out);
            rest = &after[close + 1..];
        }
        out.push_str(rest);
    }

    /// What is wrong with the catalogue's templates, one finding per line, empty when nothing
    /// is: a template that does not parse, or a plural whose categories are not exactly those
    /// its language uses for whole numbers (CLDR cardinal, plus `other`; exact matches such as
    /// `=0` may be added freely), or a language the SDK has no plural rules for.
    pub fn check_plurals(&self) -> Vec<String> {
        let language = self.language();
        let mut findings = Vec::new();
        let needed = plural::categories(language);
        let mut sorted_needed = needed.unwrap_or_default().to_vec();
        sorted_needed.sort_unstable();
        for (key, template) in &self.templates {
            let plurals = match plural::plurals(template) {
                Ok(plurals) => plurals,
                Err(error) => {
                    findings.push(format!("{language}: `{key}` does not parse: {error}"));
                    continue;
                }
            };
            for (arg, selectors) in plurals {
                let Some(needed) = needed else {
                    findings.push(format!(
                        "{language}: `{key}` counts `{arg}`, but the SDK has no plural rules for \
                         `{language}` (add them to sdk/src/plural.rs)"
                    ));
                    continue;
                };
                let mut named: Vec<&str> = selectors
                    .iter()
                    .map(String::as_str)
                    .filter(|c| !c.starts_with('='))
                    .collect();
                named.sort_unstable();
                if named != sorted_needed {
                    findings.push(format!(
                        "{language}: `{key}`, plural of `{arg}`: categories {named:?}, CLDR needs \
                         {needed:?}"
                    ));
                }
            }
        }
        findings
    }

    /// What this translation lacks or adds compared to `english` (the reference catalogue), one
    /// finding per line, empty when nothing: a key missing or extra, an empty template, a
    /// template whose placeholders or counted arguments differ from English.
    pub fn check_translation(&self, english: &Catalogue) -> Vec<String> {
        let language = self.language();
        let mut findings = Vec::new();
        for key in english.templates.keys() {
            if !self.templates.contains_key(key) {
                findings.push(format!("{language}: `{key}` is missing"));
            }
        }
        for (key, template) in &self.templates {
            let Some(reference) = english.get(key) else {
                findings.push(format!(
                    "{language}: `{key}` is not in the English catalogue"
                ));
                continue;
            };
            if template.trim().is_empty() {
                findings.push(format!("{language}: `{key}` is empty"));
            }
            let (ours, theirs) = (
                plural::placeholders(template),
                plural::placeholders(reference),
            );
            if ours != theirs {
                findings.push(format!(
                    "{language}: `{key}` has placeholders {ours:?}, English {theirs:?}"
                ));
            }
            let counted = |t: &str| -> Vec<String> {
                let mut args: Vec<String> = plural::plurals(t)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(arg, _)| arg)
                    .collect();
                args.sort_unstable();
                args
            };
            let (ours, theirs) = (counted(template), counted(reference));
            if ours != theirs {
                findings.push(format!(
                    "{language}: `{key}` counts {ours:?}, English counts {theirs:?}"
                ));
            }
        }
        findings
    }
}

fn flatten(
    prefix: &str,
    table: &toml::Table,
    out: &mut BTreeMap<String, String>,
) -> Result<(), CatalogueError> {
    for (key, value) in table {
        let full = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            toml::Value::String(template) => {
                out.insert(full, template.clone());
            }
            toml::Value::Table(inner) => flatten(&full, inner, out)?,
            other => {
                return Err(CatalogueError(format!(
                    "`{full}` must be a string, not {}",
                    other.type_str()
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_arguments_and_nested_keys() {
        let catalogue = Catalogue::from_toml(
            "[log]\nattack = \"{player} attacks {province} with {armies} armies\"\n[province]\nkai = \"Kai\"\n",
        )
        .unwrap();
        let message = Message::new("log.attack")
            .seat("player", 2)
            .key("province", "province.kai")
            .number("armies", 4);
        assert_eq!(
            catalogue.render(&message, &|s| format!("Seat {}", s + 1)),
            "Seat 3 attacks Kai with 4 armies"
        );
    }

    #[test]
    fn a_missing_key_or_argument_stays_visible() {
        let catalogue = Catalogue::from_toml("greeting = \"hello {name}\"").unwrap();
        assert_eq!(
            catalogue.render(&Message::new("nope"), &|_| String::new()),
            "nope"
        );
        assert_eq!(
            catalogue.render(&Message::new("greeting"), &|_| String::new()),
            "hello {name}"
        );
    }

    #[test]
    fn plurals_follow_the_language_of_the_catalogue() {
        let template = "{player} draws {count, plural, =0 {nothing} one {# card} few {# cards (few)} many {# cards (many)} other {# cards}}";
        let message = |n| Message::new("k").seat("player", 0).number("count", n);
        let render = |language: &str, n| {
            Catalogue::from_pairs([("k".to_string(), template.to_string())])
                .with_language(language)
                .render(&message(n), &|s| format!("P{s}"))
        };
        assert_eq!(render("en", 0), "P0 draws nothing");
        assert_eq!(render("en", 1), "P0 draws 1 card");
        assert_eq!(render("en", 5), "P0 draws 5 cards");
        assert_eq!(render("ro", 5), "P0 draws 5 cards (few)");
        assert_eq!(render("ro", 20), "P0 draws 20 cards");
        assert_eq!(render("ro", 0), "P0 draws nothing");
        assert_eq!(render("es", 2_000_000), "P0 draws 2000000 cards (many)");
        assert_eq!(render("xx", 1), "P0 draws 1 cards");
        // Without a language a catalogue is English.
        let english = Catalogue::from_pairs([("k".to_string(), template.to_string())]);
        assert_eq!(english.language(), "en");
        assert_eq!(
            english.render(&message(1), &|s| format!("P{s}")),
            "P0 draws 1 card"
        );
        // A plural without its number stays visible; `#` outside a plural is text.
        assert_eq!(
            english.render(&Message::new("k").seat("player", 1), &|s| format!("P{s}")),
            "P1 draws {count}"
        );
        let hash =
            Catalogue::from_toml("k = \"# {n} {n, plural, one {# (#)} other {#}}\"").unwrap();
        assert_eq!(
            hash.render(&Message::new("k").number("n", 1), &|_| String::new()),
            "# 1 1 (1)"
        );
    }

    #[test]
    fn a_template_that_does_not_parse_still_shows_its_arguments() {
        let catalogue = Catalogue::from_toml("k = \"{n} } {n, plural, one {x}\"").unwrap();
        assert_eq!(
            catalogue.render(&Message::new("k").number("n", 2), &|_| String::new()),
            "2 } {n, plural, one {x}"
        );
    }

    #[test]
    fn plural_categories_are_checked_against_the_language() {
        let text = "[a]\nok = \"{n, plural, =0 {none} one {#} other {#}}\"\nbad = \"{n, plural, one {#} few {#} other {#}}\"\nbroken = \"{n, plural, one {#}}\"\nplain = \"{x}\"\n";
        let english = Catalogue::from_toml(text).unwrap();
        let findings = english.check_plurals();
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert!(findings[0].contains("`a.bad`") && findings[0].contains("few"));
        assert!(findings[1].contains("`a.broken` does not parse"));
        let romanian = Catalogue::from_toml(
            "k = \"{n, plural, one {#} few {#} other {#}}\"\nj = \"{n, plural, one {#} other {#}}\"",
        )
        .unwrap()
        .with_language("ro");
        let findings = romanian.check_plurals();
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(findings[0].starts_with("ro: `j`"));
        let unknown = Catalogue::from_toml("k = \"{n, plural, other {#}}\"\nj = \"{x}\"")
            .unwrap()
            .with_language("xx");
        assert_eq!(unknown.check_plurals().len(), 1);
    }

    #[test]
    fn a_translation_is_checked_against_english() {
        let english = Catalogue::from_toml(
            "a = \"{x} and {n, plural, one {# y} other {# ys}}\"\nb = \"B\"\nc = \"{z}\"",
        )
        .unwrap();
        let good = Catalogue::from_toml(
            "a = \"{n, plural, one {# Y} other {# Ys}} und {x}\"\nb = \"Be\"\nc = \"{z}!\"",
        )
        .unwrap()
        .with_language("de");
        assert_eq!(good.check_translation(&english), Vec::<String>::new());
        let bad = Catalogue::from_toml("a = \"{x} {n}\"\nb = \" \"\nd = \"D\"")
            .unwrap()
            .with_language("de");
        let findings = bad.check_translation(&english);
        assert_eq!(findings.len(), 4, "{findings:?}");
        assert!(findings.iter().any(|f| f.contains("`c` is missing")));
        assert!(
            findings
                .iter()
                .any(|f| f.contains("`d` is not in the English"))
        );
        assert!(findings.iter().any(|f| f.contains("`b` is empty")));
        assert!(findings.iter().any(|f| f.contains("`a` counts []")));
    }

    #[test]
    fn a_non_string_value_is_refused() {
        assert!(Catalogue::from_toml("count = 3").is_err());
    }
}
