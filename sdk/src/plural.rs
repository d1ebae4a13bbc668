//! Plural forms in catalogue templates: the ICU subset the contract allows,
//! `{armies, plural, =0 {no armies} one {# army} other {# armies}}`, where `#` is the number.
//!
//! A plural gives a form for each CLDR cardinal category its language uses for whole numbers,
//! always including `other`, and may add exact matches (`=0`), which win over the categories.
//! [`Catalogue::render`](crate::Catalogue::render) picks the form with [`category`];
//! [`Catalogue::check_plurals`](crate::Catalogue::check_plurals) checks a catalogue against
//! [`categories`].
//!
//! The rules are those of the Unicode CLDR, "Language Plural Rules" (cardinal), as of CLDR 38 and
//! unchanged since (CLDR 46): the ones browsers' `Intl.PluralRules` apply, so the host's texts and
//! the clients' agree. Only the integer operands matter, since message numbers are whole numbers.
//! The `intl_pluralrules` crate was not used: its rules are those of CLDR 37, before Spanish
//! `many` and the current Romanian `few`.

use std::collections::BTreeSet;

/// The CLDR plural categories, in CLDR's order.
pub const CLDR_CATEGORIES: [&str; 6] = ["zero", "one", "two", "few", "many", "other"];

/// One piece of a parsed template.
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
        /// Each selector (`one`, `=0`) with its form, in the order written.
        forms: Vec<(String, Vec<Piece>)>,
    },
}

/// The language part of a tag: `pt-BR` and `pt_BR` are `pt`.
fn base(language: &str) -> String {
    language
        .split(['-', '_'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// The CLDR cardinal categories `language` uses for whole numbers, `other` always last, or `None`
/// for a language the SDK has no rules for yet (add them here, with a test, citing CLDR).
pub fn categories(language: &str) -> Option<&'static [&'static str]> {
    match base(language).as_str() {
        // CLDR: one = "i = 1 and v = 0".
        "en" | "de" => Some(&["one", "other"]),
        // CLDR: one = "n = 1"; many = "e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or ...".
        "es" => Some(&["one", "many", "other"]),
        // CLDR: one = "i = 1 and v = 0"; few = "v != 0 or n = 0 or n != 1 and n % 100 = 1..19".
        "ro" => Some(&["one", "few", "other"]),
        // CLDR: one = "v = 0 and i % 10 = 1 and i % 100 != 11"; few = "v = 0 and i % 10 = 2..4
        // and i % 100 != 12..14"; many = "v = 0 and i % 10 = 0 or v = 0 and i % 10 = 5..9 or
        // v = 0 and i % 100 = 11..14"; other is for fractions only, but ICU still requires it.
        "ru" => Some(&["one", "few", "many", "other"]),
        _ => None,
    }
}

/// The CLDR cardinal category of the whole number `n` in `language`; `other` (CLDR's root rule)
/// for a language without rules (see [`categories`]).
pub fn category(language: &str, n: i64) -> &'static str {
    let abs = n.unsigned_abs();
    match base(language).as_str() {
        "en" | "de" if abs == 1 => "one",
        "es" if abs == 1 => "one",
        "es" if abs != 0 && abs.is_multiple_of(1_000_000) => "many",
        "ro" if abs == 1 => "one",
        "ro" if abs == 0 || (1..=19).contains(&(abs % 100)) => "few",
        "ru" if abs % 10 == 1 && abs % 100 != 11 => "one",
        "ru" if (2..=4).contains(&(abs % 10)) && !(12..=14).contains(&(abs % 100)) => "few",
        "ru" => "many",
        _ => "other",
    }
}

/// Parses a template into pieces, or says what is wrong with it: an unbalanced brace, a
/// placeholder other than `{name}` and `{name, plural, ...}`, a selector that is neither a CLDR
/// category nor `=` and a whole number, a selector given twice, or a plural without `other`.
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

fn skip_spaces(chars: &[char], at: &mut usize) {
    while chars.get(*at).is_some_and(|c| c.is_whitespace()) {
        *at += 1;
    }
}

/// After `{`: an argument `name}` or a plural `name, plural, ...}`.
fn parse_placeholder(chars: &[char], at: &mut usize) -> Result<Piece, String> {
    let start = *at;
    while *at < chars.len() && !matches!(chars[*at], '}' | ',' | '{') {
        *at += 1;
    }
    let name: String = chars[start..*at]
        .iter()
        .collect::<String>()
        .trim()
        .to_string();
    if name.is_empty() || chars.get(*at) == Some(&'{') {
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
            let mut forms: Vec<(String, Vec<Piece>)> = Vec::new();
            loop {
                skip_spaces(chars, at);
                match chars.get(*at) {
                    Some('}') => {
                        *at += 1;
                        break;
                    }
                    None => return Err(format!("`{name}`: unclosed plural")),
                    _ => {}
                }
                let selector_start = *at;
                while chars
                    .get(*at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '=' || *c == '-')
                {
                    *at += 1;
                }
                let selector: String = chars[selector_start..*at].iter().collect();
                skip_spaces(chars, at);
                if selector.is_empty() || chars.get(*at) != Some(&'{') {
                    return Err(format!("`{name}`: expected `category {{form}}` at {at}"));
                }
                let exact = selector
                    .strip_prefix('=')
                    .is_some_and(|n| n.parse::<i64>().is_ok());
                if !exact && !CLDR_CATEGORIES.contains(&selector.as_str()) {
                    return Err(format!(
                        "`{name}`: `{selector}` is neither a CLDR category ({}) nor `=` and a \
                         whole number",
                        CLDR_CATEGORIES.join(", ")
                    ));
                }
                *at += 1;
                let form = parse_until(chars, at, true, true)?;
                if chars.get(*at) != Some(&'}') {
                    return Err(format!("`{name}`: unclosed form `{selector}`"));
                }
                *at += 1;
                if forms.iter().any(|(c, _)| *c == selector) {
                    return Err(format!("`{name}`: `{selector}` twice"));
                }
                forms.push((selector, form));
            }
            if !forms.iter().any(|(c, _)| c == "other") {
                return Err(format!("`{name}`: a plural needs an `other` form"));
            }
            Ok(Piece::Plural { arg: name, forms })
        }
        _ => Err(format!("unclosed placeholder at {start}")),
    }
}

/// The argument names a template uses, plural or not (none if it does not parse).
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

/// Every plural of a template, nested ones included: (argument counted, selectors given).
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

/// The form a plural shows for `n`: an exact match first, then the category of `n` in
/// `language`, then `other`.
pub(crate) fn select<'a>(
    forms: &'a [(String, Vec<Piece>)],
    language: &str,
    n: i64,
) -> Option<&'a [Piece]> {
    let exact = |(selector, _): &&(String, Vec<Piece>)| {
        selector
            .strip_prefix('=')
            .and_then(|m| m.parse::<i64>().ok())
            == Some(n)
    };
    let wanted = category(language, n);
    forms
        .iter()
        .find(exact)
        .or_else(|| forms.iter().find(|(c, _)| c == wanted))
        .or_else(|| forms.iter().find(|(c, _)| c == "other"))
        .map(|(_, form)| form.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_plural_parses_into_its_forms() {
        assert_eq!(
            plurals("{n, plural, =0 {none} one {# army} other {# armies}}").unwrap(),
            vec![("n".to_string(), strings(&["=0", "one", "other"]))]
        );
        assert_eq!(
            placeholders("{a} {n, plural, one {# x {b}} other {#}}"),
            ["a", "b", "n"].into_iter().map(String::from).collect()
        );
        assert_eq!(
            parse("# {n, plural, other {#}}").unwrap(),
            vec![
                Piece::Text("# ".into()),
                Piece::Plural {
                    arg: "n".into(),
                    forms: vec![("other".into(), vec![Piece::Number])]
                }
            ]
        );
    }

    #[test]
    fn broken_plurals_are_refused() {
        for bad in [
            "{n, plural, one {# army}",
            "{n, plural, one {# army} other {# armies}",
            "{n, select, one {a} other {b}}",
            "{n, plural, one {a} one {b} other {c}}",
            "{n, plural, one {a}}",
            "{n, plural, single {a} other {b}}",
            "{n, plural, =x {a} other {b}}",
            "text }",
            "{n, plural, one # army}",
            "{n{m}}",
            "{}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn exact_matches_win_over_categories() {
        let Piece::Plural { forms, .. } =
            &parse("{n, plural, =0 {none} =1 {just one} one {one} other {#}}").unwrap()[0]
        else {
            panic!("a plural");
        };
        assert_eq!(
            select(forms, "en", 0),
            Some(&[Piece::Text("none".into())][..])
        );
        assert_eq!(
            select(forms, "en", 1),
            Some(&[Piece::Text("just one".into())][..])
        );
        assert_eq!(select(forms, "en", 7), Some(&[Piece::Number][..]));
    }

    #[test]
    fn cldr_categories_of_whole_numbers() {
        assert_eq!(category("en", 1), "one");
        assert_eq!(category("en", -1), "one");
        assert_eq!(category("en", 0), "other");
        assert_eq!(category("en-GB", 1), "one");
        assert_eq!(category("de", 2), "other");
        assert_eq!(category("es", 1), "one");
        assert_eq!(category("es", 0), "other");
        assert_eq!(category("es", 1_000_000), "many");
        assert_eq!(category("es", 3_000_000), "many");
        assert_eq!(category("es", 1_000_001), "other");
        assert_eq!(category("es", 5), "other");
        assert_eq!(category("ro", 1), "one");
        assert_eq!(category("ro", 0), "few");
        assert_eq!(category("ro", 5), "few");
        assert_eq!(category("ro", 19), "few");
        assert_eq!(category("ro", 20), "other");
        assert_eq!(category("ro", 101), "few");
        assert_eq!(category("ro", 119), "few");
        assert_eq!(category("ro", 120), "other");
        assert_eq!(category("ru", 1), "one");
        assert_eq!(category("ru", 21), "one");
        assert_eq!(category("ru", 11), "many");
        assert_eq!(category("ru", 2), "few");
        assert_eq!(category("ru", 24), "few");
        assert_eq!(category("ru", 12), "many");
        assert_eq!(category("ru", 0), "many");
        assert_eq!(category("ru", 5), "many");
        assert_eq!(category("ru", 111), "many");
        assert_eq!(category("ru", 101), "one");
        assert_eq!(category("xx", 1), "other");
    }

    #[test]
    fn every_category_a_language_lists_is_reached_and_no_other() {
        for language in ["en", "de", "es", "ro", "ru"] {
            let listed = categories(language).unwrap();
            assert_eq!(listed.last(), Some(&"other"));
            // Russian's `other` is for fractions only; whole numbers never reach it.
            let listed: Vec<&str> = match language {
                "ru" => listed[..listed.len() - 1].to_vec(),
                _ => listed.to_vec(),
            };
            let mut reached: Vec<&str> = (0..1_000)
                .chain((1..=5).map(|k| k * 1_000_000))
                .map(|n| category(language, n))
                .collect();
            reached.sort_unstable();
            reached.dedup();
            let mut sorted = listed.to_vec();
            sorted.sort_unstable();
            assert_eq!(reached, sorted, "{language}");
        }
        assert_eq!(categories("xx"), None);
        assert_eq!(categories("pt-BR"), None);
    }
}
