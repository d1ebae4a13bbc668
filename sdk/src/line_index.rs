//! Turning byte offsets of a text (a map, a variant file) into the 1-based line and column a
//! [`Diagnostic`](crate::Diagnostic) names. Parsers such as `toml` report byte spans; people read
//! lines and columns, counted in characters.

use std::ops::Range;

/// Where each line of a text starts, to turn byte offsets into lines and columns. Build it once
/// per text and ask it for as many positions as needed.
pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text`.
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, line_starts }
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn position(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |prefix| prefix.chars().count());
        (to_u32(line + 1), to_u32(column + 1))
    }

    /// The text of a 1-based line, without its line break.
    pub fn line_text(&self, line: u32) -> Option<&'a str> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        let start = *self.line_starts.get(index)?;
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |&e| e);
        Some(self.text[start..end].trim_end_matches(['\n', '\r']))
    }

    /// The 1-based line and column where a span starts.
    pub fn start(&self, span: &Range<usize>) -> (u32, u32) {
        self.position(span.start)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::LineIndex;

    #[test]
    fn offsets_become_one_based_lines_and_character_columns() {
        let index = LineIndex::new("ab\nnō x\n\nlast");
        assert_eq!(index.position(0), (1, 1));
        assert_eq!(index.position(1), (1, 2));
        assert_eq!(index.position(3), (2, 1));
        // "nō " is 4 bytes but 3 characters: the column counts characters.
        assert_eq!(index.position(7), (2, 4));
        assert_eq!(index.position(9), (3, 1));
        assert_eq!(index.position(10), (4, 1));
        assert_eq!(index.position(1000), (4, 5));
        assert_eq!(index.line_text(2), Some("nō x"));
        assert_eq!(index.line_text(4), Some("last"));
        assert_eq!(index.line_text(0), None);
        assert_eq!(index.line_text(5), None);
    }
}
