//! Which export a game misbehaves in, and the numbers that trigger and arm it.

/// The number whose `apply` misbehaves.
pub const TRIGGER: i64 = 7;

/// The number that arms the export named by the map.
pub const ARM: i64 = 8;

/// An export that can be made to misbehave from the map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// Only `apply` of [`TRIGGER`] misbehaves.
    #[default]
    None,
    /// `create` misbehaves.
    Create,
    /// `restore` of an armed game misbehaves.
    Restore,
    /// `pending` of an armed game misbehaves.
    Pending,
    /// `view` of an armed game misbehaves.
    View,
    /// `render` of an armed game misbehaves.
    Render,
}

impl Target {
    const ALL: [(Target, &'static str); 5] = [
        (Target::Create, "create"),
        (Target::Restore, "restore"),
        (Target::Pending, "pending"),
        (Target::View, "view"),
        (Target::Render, "render"),
    ];

    /// The export named by a map's `misbehave-in = "..."` line.
    pub(crate) fn from_map(map: &str) -> Target {
        let Some(line) = map
            .lines()
            .find(|line| line.trim_start().starts_with("misbehave-in"))
        else {
            return Target::None;
        };
        Target::ALL
            .iter()
            .find(|(_, name)| line.contains(&format!("\"{name}\"")))
            .map_or(Target::None, |(target, _)| *target)
    }

    pub(crate) fn code(self) -> u8 {
        Target::ALL
            .iter()
            .position(|(target, _)| *target == self)
            .map_or(0, |index| index as u8 + 1)
    }

    pub(crate) fn from_code(code: u8) -> Target {
        usize::from(code)
            .checked_sub(1)
            .and_then(|index| Target::ALL.get(index))
            .map_or(Target::None, |(target, _)| *target)
    }
}
