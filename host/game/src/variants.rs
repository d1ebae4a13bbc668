//! Variants: house rules as data. A variant is a TOML file of option values for one ruleset,
//! kept in `maps/<ruleset>/variants/<id>.toml` and checked against the option schema the ruleset
//! declares, so a wrong value is refused with its file, line and option before any game uses it.
//!
//! ```toml
//! [variant]
//! name = "One-year game"
//! description = "The game ends after the first winter."
//!
//! [options]
//! years = 1
//! ```

use std::{
    collections::BTreeMap,
    fmt,
    path::{Path, PathBuf},
};

use sdk::{LineIndex, OptionKind, OptionSetting, OptionSpec, OptionValue};
use serde::{Deserialize, Serialize};

/// A checked variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    /// The file name without `.toml`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// What the variant changes, in words.
    pub description: String,
    /// The option values it sets, in file order, each checked against the schema.
    pub options: Vec<OptionSetting>,
}

/// Why a variant file was refused: where, which option, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct VariantError {
    /// The file.
    pub file: PathBuf,
    /// 1-based line; 0 for the file as a whole.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// The option concerned, when there is one.
    pub option: Option<String>,
    /// What is wrong, in plain English.
    pub message: String,
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file.display(), self.line, self.column)?;
        if let Some(option) = &self.option {
            write!(f, "option `{option}`: ")?;
        }
        f.write_str(&self.message)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantFile {
    variant: Header,
    #[serde(default)]
    options: BTreeMap<String, toml::Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    name: String,
    #[serde(default)]
    description: String,
}

/// Reads and checks one variant file's text against `schema`.
pub fn parse_variant(
    file: &Path,
    text: &str,
    schema: &[OptionSpec],
) -> Result<Variant, VariantError> {
    let lines = LineIndex::new(text);
    let error = |offset: Option<usize>, option: Option<&str>, message: String| {
        let (line, column) = offset.map_or((0, 0), |o| lines.position(o));
        VariantError {
            file: file.to_path_buf(),
            line,
            column,
            option: option.map(str::to_owned),
            message,
        }
    };
    let parsed: VariantFile = toml::from_str(text).map_err(|e| {
        error(
            e.span().map(|s| s.start),
            None,
            e.message().trim().to_owned(),
        )
    })?;
    let mut entries: Vec<(&String, &toml::Spanned<toml::Value>)> = parsed.options.iter().collect();
    // Report and keep options in the order they are written, not alphabetically.
    entries.sort_by_key(|(_, value)| value.span().start);
    let mut options = Vec::with_capacity(entries.len());
    for (name, value) in entries {
        let at = Some(value.span().start);
        let spec = schema
            .iter()
            .find(|spec| &spec.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = schema.iter().map(|s| s.name.as_str()).collect();
                error(
                    at,
                    Some(name),
                    format!("unknown option; this ruleset has: {}", known.join(", ")),
                )
            })?;
        let value = option_value(&spec.kind, value.get_ref())
            .ok_or_else(|| error(at, Some(name), format!("expected {}", spec.kind.describe())))?;
        spec.check(&value)
            .map_err(|e| error(at, Some(name), e.to_string()))?;
        options.push(OptionSetting {
            name: name.clone(),
            value,
        });
    }
    let id = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Variant {
        id,
        name: parsed.variant.name,
        description: parsed.variant.description,
        options,
    })
}

/// Converts a TOML value to an option value of `kind`, or `None` when the types differ.
/// An integer is accepted where a decimal is expected (`0` for `0.0`), never the other way.
fn option_value(kind: &OptionKind, value: &toml::Value) -> Option<OptionValue> {
    match (kind, value) {
        (OptionKind::Boolean, toml::Value::Boolean(b)) => Some(OptionValue::Boolean(*b)),
        (OptionKind::Integer { .. }, toml::Value::Integer(i)) => Some(OptionValue::Integer(*i)),
        (OptionKind::Decimal { .. }, toml::Value::Float(f)) => Some(OptionValue::Decimal(*f)),
        (OptionKind::Decimal { .. }, toml::Value::Integer(i)) => {
            Some(OptionValue::Decimal(*i as f64))
        }
        (OptionKind::Choice(_), toml::Value::String(s)) => Some(OptionValue::Choice(s.clone())),
        _ => None,
    }
}

/// Reads every `*.toml` of a variants folder. Good variants and refused files are both
/// returned, so one broken file hides none of the others. A missing folder has no variants.
pub fn load_variants(dir: &Path, schema: &[OptionSpec]) -> (Vec<Variant>, Vec<VariantError>) {
    let mut variants = Vec::new();
    let mut errors = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (variants, errors);
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for file in files {
        match std::fs::read_to_string(&file) {
            Ok(text) => match parse_variant(&file, &text, schema) {
                Ok(variant) => variants.push(variant),
                Err(e) => errors.push(e),
            },
            Err(e) => errors.push(VariantError {
                file: file.clone(),
                line: 0,
                column: 0,
                option: None,
                message: format!("failed to read: {e}"),
            }),
        }
    }
    (variants, errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdk::Message;

    fn schema() -> Vec<OptionSpec> {
        vec![
            OptionSpec {
                name: "years".into(),
                description: Message::new("option.years"),
                kind: OptionKind::Integer { min: 1, max: 2 },
                default: OptionValue::Integer(2),
            },
            OptionSpec {
                name: "lodge".into(),
                description: Message::new("option.lodge"),
                kind: OptionKind::Decimal { min: 0.0, max: 1.0 },
                default: OptionValue::Decimal(0.15),
            },
            OptionSpec {
                name: "setup".into(),
                description: Message::new("option.setup"),
                kind: OptionKind::Choice(vec!["draft".into(), "beginner".into()]),
                default: OptionValue::Choice("draft".into()),
            },
        ]
    }

    fn parse(text: &str) -> Result<Variant, VariantError> {
        parse_variant(Path::new("variants/test.toml"), text, &schema())
    }

    #[test]
    fn a_good_variant_keeps_its_options_in_file_order() {
        let variant = parse(
            "[variant]\nname = \"Short\"\n[options]\nyears = 1\nlodge = 0\nsetup = \"beginner\"\n",
        )
        .unwrap();
        assert_eq!(variant.id, "test");
        let names: Vec<&str> = variant.options.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["years", "lodge", "setup"]);
        assert_eq!(variant.options[1].value, OptionValue::Decimal(0.0));
    }

    #[test]
    fn an_unknown_option_names_file_line_and_option() {
        let err = parse("[variant]\nname = \"X\"\n[options]\nyears = 1\nyaers = 2\n").unwrap_err();
        assert_eq!((err.line, err.column), (5, 9));
        assert_eq!(err.option.as_deref(), Some("yaers"));
        assert!(
            err.to_string()
                .starts_with("variants/test.toml:5:9: option `yaers`: unknown option"),
            "{err}"
        );
    }

    #[test]
    fn a_wrong_type_is_refused_with_what_was_expected() {
        let err = parse("[variant]\nname = \"X\"\n[options]\nyears = \"one\"\n").unwrap_err();
        assert_eq!(err.line, 4);
        assert!(err.message.contains("a whole number in 1..=2"), "{err}");
    }

    #[test]
    fn an_out_of_range_value_is_refused() {
        let err = parse("[variant]\nname = \"X\"\n[options]\nsetup = \"quick\"\n").unwrap_err();
        assert_eq!((err.line, err.option.as_deref()), (4, Some("setup")));
        assert!(err.message.contains("not one of: draft, beginner"), "{err}");
        let err = parse("[variant]\nname = \"X\"\n[options]\nlodge = 1.5\n").unwrap_err();
        assert!(err.message.contains("outside"), "{err}");
    }

    #[test]
    fn an_unknown_section_or_missing_name_is_refused_with_a_line() {
        let err = parse("[variant]\nname = \"X\"\n[rules]\nyears = 1\n").unwrap_err();
        assert_eq!((err.line, err.column), (3, 2), "{err}");
        assert!(err.message.contains("unknown field `rules`"), "{err}");
        let err = parse("[options]\nyears = 1\n").unwrap_err();
        assert!(err.message.contains("missing field `variant`"), "{err}");
    }
}
