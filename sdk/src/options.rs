//! Variant options resolved against a ruleset's schema.

use crate::{Message, OptionKind, OptionSetting, OptionSpec, OptionValue};

/// A ruleset's settings as a typed value, read from its options in one place: the schema that
/// declares each option and the reading of each, side by side, so the rules never ask for an
/// option by name. Name the schema in [`RulesetInfo::options`](crate::RulesetInfo) and read the
/// settings once when a game starts.
pub trait FromOptions: Sized {
    /// The options, in the order clients show them.
    fn schema() -> Vec<OptionSpec>;

    /// The settings `options` (resolved against [`FromOptions::schema`]) choose.
    fn from_options(options: &Options) -> Self;

    /// The settings of the defaults: what a game without a variant plays with.
    fn defaults() -> Self {
        let options = Options::resolve(&Self::schema(), &[])
            .expect("the defaults of a schema fit the schema");
        Self::from_options(&options)
    }
}

/// Why an option setting does not fit the schema.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OptionError {
    /// No option of that name is declared.
    #[error("unknown option `{0}`")]
    Unknown(String),
    /// The value is of another type than the option.
    #[error("option `{name}` expects {expected}")]
    WrongType {
        /// The option.
        name: String,
        /// What it takes, in words.
        expected: String,
    },
    /// The value is outside what the option allows.
    #[error("option `{name}`: {reason}")]
    OutOfRange {
        /// The option.
        name: String,
        /// Why, in words.
        reason: String,
    },
    /// The same option is set twice.
    #[error("option `{0}` is set twice")]
    Duplicate(String),
}

impl OptionError {
    /// The name of the option concerned.
    pub fn option(&self) -> &str {
        match self {
            OptionError::Unknown(name) | OptionError::Duplicate(name) => name,
            OptionError::WrongType { name, .. } | OptionError::OutOfRange { name, .. } => name,
        }
    }
}

impl OptionSpec {
    /// An option whose description is the catalogue key `option.<name>`.
    pub fn new(name: &str, kind: OptionKind, default: OptionValue) -> OptionSpec {
        OptionSpec {
            name: name.to_owned(),
            description: Message::new(format!("option.{name}")),
            kind,
            default,
        }
    }

    /// A true-or-false option (see [`OptionSpec::new`] for its description).
    pub fn boolean(name: &str, default: bool) -> OptionSpec {
        OptionSpec::new(name, OptionKind::Boolean, OptionValue::Boolean(default))
    }

    /// A whole-number option in `min..=max`.
    pub fn integer(name: &str, min: i64, max: i64, default: i64) -> OptionSpec {
        OptionSpec::new(
            name,
            OptionKind::Integer { min, max },
            OptionValue::Integer(default),
        )
    }

    /// A decimal option in `min..=max`.
    pub fn decimal(name: &str, min: f64, max: f64, default: f64) -> OptionSpec {
        OptionSpec::new(
            name,
            OptionKind::Decimal { min, max },
            OptionValue::Decimal(default),
        )
    }

    /// An option naming one of `choices`.
    pub fn choice<S: Into<String>>(
        name: &str,
        choices: impl IntoIterator<Item = S>,
        default: &str,
    ) -> OptionSpec {
        OptionSpec::new(
            name,
            OptionKind::Choice(choices.into_iter().map(Into::into).collect()),
            OptionValue::Choice(default.to_owned()),
        )
    }

    /// Checks that `value` is of this option's kind and within its bounds.
    pub fn check(&self, value: &OptionValue) -> Result<(), OptionError> {
        let out_of_range = |reason: String| OptionError::OutOfRange {
            name: self.name.clone(),
            reason,
        };
        match (&self.kind, value) {
            (OptionKind::Boolean, OptionValue::Boolean(_)) => Ok(()),
            (OptionKind::Integer { min, max }, OptionValue::Integer(v)) => {
                if v < min || v > max {
                    Err(out_of_range(format!("{v} is outside {min}..={max}")))
                } else {
                    Ok(())
                }
            }
            (OptionKind::Decimal { min, max }, OptionValue::Decimal(v)) => {
                if !v.is_finite() || v < min || v > max {
                    Err(out_of_range(format!("{v} is outside {min}..={max}")))
                } else {
                    Ok(())
                }
            }
            (OptionKind::Choice(names), OptionValue::Choice(v)) => {
                if names.contains(v) {
                    Ok(())
                } else {
                    Err(out_of_range(format!(
                        "`{v}` is not one of: {}",
                        names.join(", ")
                    )))
                }
            }
            (kind, _) => Err(OptionError::WrongType {
                name: self.name.clone(),
                expected: kind.describe(),
            }),
        }
    }

    /// Reads a value of this option's kind from text, as typed on a command line
    /// (`true`, `3`, `0.15`, `beginner`), and checks it.
    pub fn parse(&self, text: &str) -> Result<OptionValue, OptionError> {
        let wrong = || OptionError::WrongType {
            name: self.name.clone(),
            expected: self.kind.describe(),
        };
        let value = match &self.kind {
            OptionKind::Boolean => OptionValue::Boolean(text.parse().map_err(|_| wrong())?),
            OptionKind::Integer { .. } => OptionValue::Integer(text.parse().map_err(|_| wrong())?),
            OptionKind::Decimal { .. } => OptionValue::Decimal(text.parse().map_err(|_| wrong())?),
            OptionKind::Choice(_) => OptionValue::Choice(text.to_owned()),
        };
        self.check(&value)?;
        Ok(value)
    }
}

impl OptionKind {
    /// The kind in words, for error messages.
    pub fn describe(&self) -> String {
        match self {
            OptionKind::Boolean => "true or false".into(),
            OptionKind::Integer { min, max } => format!("a whole number in {min}..={max}"),
            OptionKind::Decimal { min, max } => format!("a number in {min}..={max}"),
            OptionKind::Choice(names) => format!("one of: {}", names.join(", ")),
        }
    }
}

/// Every option of a ruleset with its value for one game: the settings given, defaults for the
/// rest. Built with [`Options::resolve`], so every value fits the schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    values: Vec<(String, OptionValue)>,
}

impl Options {
    /// Checks `settings` against `schema` and fills in defaults.
    pub fn resolve(
        schema: &[OptionSpec],
        settings: &[OptionSetting],
    ) -> Result<Options, OptionError> {
        for (i, setting) in settings.iter().enumerate() {
            if settings[..i].iter().any(|s| s.name == setting.name) {
                return Err(OptionError::Duplicate(setting.name.clone()));
            }
            let spec = schema
                .iter()
                .find(|spec| spec.name == setting.name)
                .ok_or_else(|| OptionError::Unknown(setting.name.clone()))?;
            spec.check(&setting.value)?;
        }
        let values = schema
            .iter()
            .map(|spec| {
                let value = settings
                    .iter()
                    .find(|s| s.name == spec.name)
                    .map_or_else(|| spec.default.clone(), |s| s.value.clone());
                (spec.name.clone(), value)
            })
            .collect();
        Ok(Options { values })
    }

    /// The settings that differ from the defaults, in schema order: what a game record stores.
    pub fn non_default(&self, schema: &[OptionSpec]) -> Vec<OptionSetting> {
        self.values
            .iter()
            .filter(|(name, value)| {
                schema
                    .iter()
                    .any(|spec| &spec.name == name && &spec.default != value)
            })
            .map(|(name, value)| OptionSetting {
                name: name.clone(),
                value: value.clone(),
            })
            .collect()
    }

    /// Every option and its value, in schema order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OptionValue)> {
        self.values
            .iter()
            .map(|(name, value)| (name.as_str(), value))
    }

    /// The value of an option, or `None` if the schema has no such option.
    pub fn get(&self, name: &str) -> Option<&OptionValue> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The value of a boolean option. Panics if the schema declares no such boolean: that is a
    /// bug in the ruleset, which the host reports as a failed call.
    pub fn boolean(&self, name: &str) -> bool {
        match self.get(name) {
            Some(OptionValue::Boolean(v)) => *v,
            other => panic!("option `{name}` is not a declared boolean: {other:?}"),
        }
    }

    /// The value of an integer option. Panics like [`Options::boolean`].
    pub fn integer(&self, name: &str) -> i64 {
        match self.get(name) {
            Some(OptionValue::Integer(v)) => *v,
            other => panic!("option `{name}` is not a declared integer: {other:?}"),
        }
    }

    /// The value of a decimal option. Panics like [`Options::boolean`].
    pub fn decimal(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(OptionValue::Decimal(v)) => *v,
            other => panic!("option `{name}` is not a declared decimal: {other:?}"),
        }
    }

    /// The value of a choice option. Panics like [`Options::boolean`].
    pub fn choice(&self, name: &str) -> &str {
        match self.get(name) {
            Some(OptionValue::Choice(v)) => v,
            other => panic!("option `{name}` is not a declared choice: {other:?}"),
        }
    }
}
