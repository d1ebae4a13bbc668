//! Message catalogues: how a [`Message`] becomes a sentence in one language.

use std::collections::BTreeMap;

use crate::{Message, MessageArg};

/// Why a catalogue could not be read.
#[derive(Debug, thiserror::Error)]
#[error("catalogue: {0}")]
pub struct CatalogueError(String);

/// The templates of one language: `key = "template"` pairs, where a template names its
/// arguments as `{name}`. Keys may be grouped in TOML tables (`[action]` + `build-castle = ...`
/// is the key `action.build-castle`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalogue {
    templates: BTreeMap<String, String>,
}

impl Catalogue {
    /// Reads a catalogue from TOML text.
    pub fn from_toml(text: &str) -> Result<Catalogue, CatalogueError> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| CatalogueError(e.to_string()))?;
        let mut templates = BTreeMap::new();
        flatten("", &table, &mut templates)?;
        Ok(Catalogue { templates })
    }

    /// Builds a catalogue from (key, template) pairs, as the contract carries it.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> Catalogue {
        Catalogue {
            templates: pairs.into_iter().collect(),
        }
    }

    /// Every (key, template) pair, sorted by key.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.templates.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The template of a key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.templates.get(key).map(String::as_str)
    }

    /// Renders a message as text. A missing key renders as the key itself, a seat as
    /// `seat_name(seat)`, and a missing argument as `{name}`, so a gap is visible, never fatal.
    pub fn render(&self, message: &Message, seat_name: &dyn Fn(u32) -> String) -> String {
        let Some(template) = self.get(&message.key) else {
            return message.key.clone();
        };
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[open..]);
                return out;
            };
            let name = &after[..close];
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
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        out
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
    fn a_non_string_value_is_refused() {
        assert!(Catalogue::from_toml("count = 3").is_err());
    }
}
