//! What every map checker needs: diagnostics placed by the byte spans a parser reports, the TOML
//! grammar error quoted at its line, and the shapes of ids and colours map files share.

use std::ops::Range;

use crate::{Diagnostic, LineIndex};

/// Collects a map's diagnostics, each placed at the line and column of a span of the map text.
pub struct Report<'a> {
    index: LineIndex<'a>,
    found: Vec<Diagnostic>,
}

impl<'a> Report<'a> {
    /// An empty report on `text`.
    pub fn new(text: &'a str) -> Report<'a> {
        Report {
            index: LineIndex::new(text),
            found: Vec::new(),
        }
    }

    /// Where each line of the text starts.
    pub fn index(&self) -> &LineIndex<'a> {
        &self.index
    }

    /// An error at the start of `span`.
    pub fn error(&mut self, span: &Range<usize>, text: String) {
        let (line, column) = self.index.start(span);
        self.found.push(Diagnostic::error(line, column, text));
    }

    /// A warning at the start of `span`.
    pub fn warning(&mut self, span: &Range<usize>, text: String) {
        let (line, column) = self.index.start(span);
        self.found.push(Diagnostic::warning(line, column, text));
    }

    /// A diagnostic placed by the caller (line 0 for the whole file).
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.found.push(diagnostic);
    }

    /// How many errors were reported so far.
    pub fn error_count(&self) -> usize {
        self.found.iter().filter(|d| d.is_error()).count()
    }

    /// Whether an error was reported.
    pub fn has_errors(&self) -> bool {
        self.found.iter().any(Diagnostic::is_error)
    }

    /// The diagnostics in the order of the text (those of one place in the order reported).
    pub fn finish(mut self) -> Vec<Diagnostic> {
        self.found.sort_by_key(|d| (d.line, d.column));
        self.found
    }
}

/// A TOML grammar error as an error at its place, quoting the offending line, so that a message
/// like "expected u32" names its field too.
pub fn grammar_error(index: &LineIndex<'_>, error: &toml::de::Error) -> Diagnostic {
    let (line, column) = error.span().map_or((0, 0), |span| index.start(&span));
    let mut message = error.message().trim_end().to_string();
    if let Some(source) = index
        .line_text(line)
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        message = format!("{message} (in `{source}`)");
    }
    Diagnostic::error(line, column, message)
}

/// Whether `id` is kebab-case ASCII: lowercase letters and digits in words joined by single `-`.
pub fn is_kebab_id(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Whether `colour` is a CSS hex colour of six digits, `#rrggbb`.
pub fn is_colour(colour: &str) -> bool {
    colour.len() == 7
        && colour.starts_with('#')
        && colour[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_are_placed_by_span_and_sorted_by_place() {
        let text = "a = 1\nb = 2\n";
        let mut report = Report::new(text);
        report.warning(&(6..7), "late".into());
        assert!(!report.has_errors());
        report.error(&(0..1), "early".into());
        assert_eq!(report.error_count(), 1);
        let found = report.finish();
        assert_eq!(
            found,
            vec![
                Diagnostic::error(1, 1, "early"),
                Diagnostic::warning(2, 1, "late"),
            ]
        );
    }

    #[test]
    fn a_grammar_error_quotes_its_line() {
        let text = "[map]\nid = \n";
        let error = toml::from_str::<toml::Table>(text).unwrap_err();
        let diagnostic = grammar_error(&LineIndex::new(text), &error);
        assert!(diagnostic.is_error());
        assert_eq!(diagnostic.line, 2);
        assert!(diagnostic.text.ends_with("(in `id =`)"), "{diagnostic:?}");
    }

    #[test]
    fn ids_are_kebab_case_and_colours_six_hex_digits() {
        for good in ["kai", "sun-2", "a-b-c"] {
            assert!(is_kebab_id(good), "{good}");
        }
        for bad in ["", "Kai", "a--b", "-a", "a-", "a_b", "ō"] {
            assert!(!is_kebab_id(bad), "{bad}");
        }
        assert!(is_colour("#a0B1c2"));
        for bad in ["a0b1c2", "#abc", "#a0b1cg", "#a0b1c2d"] {
            assert!(!is_colour(bad), "{bad}");
        }
    }
}
