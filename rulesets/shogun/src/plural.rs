//! Plural forms in catalogue templates: the ICU subset the contract allows,
//! `{count, plural, one {# army} other {# armies}}`, where `#` is the number.
//!
//! The categories each language needs are CLDR's cardinal plural categories (Unicode CLDR,
//! "Language Plural Rules", cardinal, for whole numbers): English and German `one`, `other`;
//! Spanish `one`, `many`, `other`; Romanian `one`, `few`, `other`. Clients choose the form with
//! `Intl.PluralRules`; the English fallback texts of the board choose it with [`english`].

use std::collections::BTreeSet;

use sdk::{Catalogue, Message, MessageArg};

/// One piece of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Literal text.
    Text(String),
    /// `{name}`: an argument.
    Arg(String),
    /// `#` inside a plural form: the number of the enclosing plural.
    Number,
    /// `{name, plural, category {...} ...}`.
    Plural {
        /// The argument counted.
        arg: String,
        /// Each category with its form, in the order written.
        forms: Vec<(String, Vec<Piece>)>,
    },
}

/// The CLDR cardinal categories a language's templates must give (whole numbers only).
pub fn categories(language: &str) -> Option<&'static [&'static str]> {
    match language {
        "en" | "de" => Some(&["one", "other"]),
        "es" => Some(&["one", "many", "other"]),
        "ro" => Some(&["one", "few", "other"]),
        _ => None,
    }
}

/// The CLDR cardinal category of the whole number `n` in `language` (the rules for integers).
pub fn category(language: &str, n: i64) -> &'static str {
    let abs = n.unsigned_abs();
    match language {
        "es" if abs == 1 => "one",
        "es" if abs != 0 && abs.is_multiple_of(1_000_000) => "many",
        "ro" if abs == 1 => "one",
        "ro" if abs == 0 || (1..=19).contains(&(abs % 100)) => "few",
        "ro" | "es" => "other",
        _ if abs == 1 => "one",
        _ => "other",
    }
}

/// Parses a template into pieces, or says what is wrong with it.
pub fn parse(template: &str) -> Result<Vec<Piece>, String> {
    let chars: Vec<char> = template.chars().collect();
    let mut at = 0;
    let pieces = parse_until(&chars, &mut at, false, false)?;
    if at != chars.len() {
        return Err(format!("unexpected `}}` at {at}"));
    }
    Ok(pieces)
}

fn parse_until(
    chars: &[char],
    at: &mut usize,
    nested: bool,
    in_plural: bool,
) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    while *at < chars.len() {
        match chars[*at] {
            '}' if nested => break,
            '}' => return Err(format!("unexpected `}}` at {at}")),
            '#' if in_plural => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Number);
                *at += 1;
            }
            '{' => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                *at += 1;
                pieces.push(parse_placeholder(chars, at)?);
            }
            c => {
                text.push(c);
                *at += 1;
            }
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// After `{`: an argument `name}` or a plural `name, plural, ...}`.
fn parse_placeholder(chars: &[char], at: &mut usize) -> Result<Piece, String> {
    let start = *at;
    while *at < chars.len() && chars[*at] != '}' && chars[*at] != ',' {
        *at += 1;
    }
    let name: String = chars[start..*at]
        .iter()
        .collect::<String>()
        .trim()
        .to_string();
    if name.is_empty() || name.contains('{') {
        return Err(format!("bad placeholder at {start}"));
    }
    match chars.get(*at) {
        Some('}') => {
            *at += 1;
            Ok(Piece::Arg(name))
        }
        Some(',') => {
            *at += 1;
            let kind_start = *at;
            while *at < chars.len() && chars[*at] != ',' {
                *at += 1;
            }
            let kind: String = chars[kind_start..*at].iter().collect();
            if kind.trim() != "plural" || *at >= chars.len() {
                return Err(format!(
                    "`{name}`: only `plural` is allowed, got `{}`",
                    kind.trim()
                ));
            }
            *at += 1;
            let mut forms = Vec::new();
            loop {
                while *at < chars.len() && chars[*at].is_whitespace() {
                    *at += 1;
                }
                match chars.get(*at) {
                    Some('}') => {
                        *at += 1;
                        break;
                    }
                    None => return Err(format!("`{name}`: unclosed plural")),
                    _ => {}
                }
                let cat_start = *at;
                while chars
                    .get(*at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '=')
                {
                    *at += 1;
                }
                let category: String = chars[cat_start..*at].iter().collect();
                while *at < chars.len() && chars[*at].is_whitespace() {
                    *at += 1;
                }
                if category.is_empty() || chars.get(*at) != Some(&'{') {
                    return Err(format!("`{name}`: expected `category {{form}}` at {at}"));
                }
                *at += 1;
                let form = parse_until(chars, at, true, true)?;
                if chars.get(*at) != Some(&'}') {
                    return Err(format!("`{name}`: unclosed form `{category}`"));
                }
                *at += 1;
                if forms.iter().any(|(c, _)| *c == category) {
                    return Err(format!("`{name}`: category `{category}` twice"));
                }
                forms.push((category, form));
            }
            Ok(Piece::Plural { arg: name, forms })
        }
        _ => Err(format!("unclosed placeholder at {start}")),
    }
}

/// The argument names a template uses, plural or not.
pub fn placeholders(template: &str) -> BTreeSet<String> {
    fn walk(pieces: &[Piece], names: &mut BTreeSet<String>) {
        for piece in pieces {
            match piece {
                Piece::Arg(name) => {
                    names.insert(name.clone());
                }
                Piece::Plural { arg, forms } => {
                    names.insert(arg.clone());
                    for (_, form) in forms {
                        walk(form, names);
                    }
                }
                Piece::Text(_) | Piece::Number => {}
            }
        }
    }
    let mut names = BTreeSet::new();
    if let Ok(pieces) = parse(template) {
        walk(&pieces, &mut names);
    }
    names
}

/// Every plural of a template: (argument, categories given).
pub fn plurals(template: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    fn walk(pieces: &[Piece], out: &mut Vec<(String, Vec<String>)>) {
        for piece in pieces {
            if let Piece::Plural { arg, forms } = piece {
                out.push((arg.clone(), forms.iter().map(|(c, _)| c.clone()).collect()));
                for (_, form) in forms {
                    walk(form, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&parse(template)?, &mut out);
    Ok(out)
}

/// A message as English text with `catalogue` (the board's fallback text): plurals resolved with
/// the English rules, seats named by `seat_name`, a missing key shown as itself.
pub fn english(
    catalogue: &Catalogue,
    message: &Message,
    seat_name: &dyn Fn(u32) -> String,
) -> String {
    let Some(template) = catalogue.get(&message.key) else {
        return message.key.clone();
    };
    let Ok(pieces) = parse(template) else {
        return template.to_string();
    };
    let mut out = String::new();
    write(&pieces, catalogue, message, seat_name, None, &mut out);
    out
}

fn write(
    pieces: &[Piece],
    catalogue: &Catalogue,
    message: &Message,
    seat_name: &dyn Fn(u32) -> String,
    number: Option<i64>,
    out: &mut String,
) {
    let arg = |name: &str| message.args.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Number => out.push_str(&number.map(|n| n.to_string()).unwrap_or_default()),
            Piece::Arg(name) => match arg(name) {
                Some(MessageArg::Text(text)) => out.push_str(text),
                Some(MessageArg::Number(n)) => out.push_str(&n.to_string()),
                Some(MessageArg::Seat(seat)) => out.push_str(&seat_name(*seat)),
                Some(MessageArg::Key(key)) => {
                    out.push_str(catalogue.get(key).unwrap_or(key));
                }
                None => {
                    out.push('{');
                    out.push_str(name);
                    out.push('}');
                }
            },
            Piece::Plural { arg: name, forms } => {
                let n = match arg(name) {
                    Some(MessageArg::Number(n)) => *n,
                    _ => 0,
                };
                let wanted = category("en", n);
                let exact = format!("={n}");
                let form = forms
                    .iter()
                    .find(|(c, _)| *c == exact)
                    .or_else(|| forms.iter().find(|(c, _)| c == wanted))
                    .or_else(|| forms.iter().find(|(c, _)| c == "other"));
                if let Some((_, form)) = form {
                    write(form, catalogue, message, seat_name, Some(n), out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plural_parses_into_its_forms_and_resolves_by_the_english_rule() {
        let catalogue = Catalogue::from_pairs([(
            "k".to_string(),
            "{player} has {n, plural, one {# army} other {# armies}} in {p}".to_string(),
        )]);
        let one = Message::new("k")
            .number("n", 1)
            .text("p", "Kai")
            .seat("player", 0);
        let seat = |s: u32| format!("P{s}");
        assert_eq!(english(&catalogue, &one, &seat), "P0 has 1 army in Kai");
        let three = Message::new("k")
            .number("n", 3)
            .text("p", "Kai")
            .seat("player", 1);
        assert_eq!(english(&catalogue, &three, &seat), "P1 has 3 armies in Kai");
        assert_eq!(
            plurals("{n, plural, one {# army} other {# armies}}").unwrap(),
            vec![(
                "n".to_string(),
                vec!["one".to_string(), "other".to_string()]
            )]
        );
        assert_eq!(
            placeholders("{a} {n, plural, one {# x {b}} other {#}}"),
            ["a", "b", "n"].into_iter().map(String::from).collect()
        );
    }

    #[test]
    fn broken_plurals_are_refused() {
        for bad in [
            "{n, plural, one {# army}",
            "{n, select, one {a} other {b}}",
            "{n, plural, one {a} one {b} other {c}}",
            "text }",
            "{n, plural, one # army}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cldr_categories_of_whole_numbers() {
        assert_eq!(category("en", 1), "one");
        assert_eq!(category("en", 0), "other");
        assert_eq!(category("de", 2), "other");
        assert_eq!(category("es", 1), "one");
        assert_eq!(category("es", 1_000_000), "many");
        assert_eq!(category("es", 5), "other");
        assert_eq!(category("ro", 1), "one");
        assert_eq!(category("ro", 0), "few");
        assert_eq!(category("ro", 5), "few");
        assert_eq!(category("ro", 19), "few");
        assert_eq!(category("ro", 20), "other");
        assert_eq!(category("ro", 101), "few");
        assert_eq!(category("ro", 120), "other");
    }
}
