//! The Tenka SDK: everything a ruleset author needs, and nothing of the host.
//!
//! A ruleset is the rules of one board game. Write it as two types:
//!
//! - one implementing [`Ruleset`]: the game's description ([`RulesetInfo`]), its map checker and
//!   its message catalogues, and a constructor for games;
//! - one implementing [`Game`]: a game in progress, which says whose decision is pending
//!   ([`PendingDecision`]), applies one seat's [`Action`], and shows the state to one
//!   [`Viewer`] at a time.
//!
//! Register the first with [`register_ruleset!`] and build the crate as a `cdylib` for
//! `wasm32-wasip2`: the result is a component the host loads.
//!
//! Randomness and the battle tower come from the host through a [`Table`]: a ruleset has no
//! other source of chance, so every game replays bit-for-bit.
//!
//! The contract itself is the WIT package in `sdk/wit/`; its bindings stay private to this crate.

mod catalogue;
mod dynamic;
mod editor;
mod line_index;
mod log;
mod options;
mod random_action;
mod ruleset;
mod salt;
mod table;
mod types;

pub mod map_check;
pub mod offer;
pub mod plural;
pub mod snapshot;
pub mod svg;
pub mod tower;

#[cfg(feature = "testing")]
pub mod testing;

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod guest;

#[cfg(any(
    test,
    all(
        target_arch = "wasm32",
        not(target_feature = "atomics"),
        feature = "size-class-allocator"
    )
))]
mod allocator;

/// Every component built with the SDK allocates through it (see `allocator.rs`); a ruleset that
/// brings its own global allocator turns off the `size-class-allocator` feature.
#[cfg(all(
    target_arch = "wasm32",
    not(target_feature = "atomics"),
    feature = "size-class-allocator"
))]
#[global_allocator]
static ALLOCATOR: allocator::SizeClassAllocator = allocator::SizeClassAllocator::new();

// The author-facing API, in the order an author meets it.
pub use crate::catalogue::{Catalogue, CatalogueError, Catalogues};
pub use crate::editor::{
    ConnectionStorage, EditorConnection, EditorField, EditorPlaces, FieldKind, MapEditor, RowTable,
};
pub use crate::line_index::LineIndex;
pub use crate::log::{Log, Tell};
pub use crate::offer::{Answer, Offer, OfferKind, Play};
pub use crate::options::{FromOptions, OptionError, Options};
pub use crate::random_action::random_action;
pub use crate::ruleset::{Game, Ruleset};
pub use crate::ruleset::{check_action_shape, check_answer, check_draft_shape};
pub use crate::salt::Salt;
pub use crate::table::{LogLevel, Table, TableExt};
pub use crate::types::{
    Action, AssignDecision, AssignItem, AssignSlot, Audience, BoardPart, Choice, ChooseDecision,
    CubeCount, CubeOwner, DecisionKind, Diagnostic, Event, GameResult, MapInfo, Message,
    MessageArg, NoteLevel, NumberDecision, OptionKind, OptionSetting, OptionSpec, OptionValue,
    PartKind, PendingDecision, Placing, PreviewNote, Rejection, RulesetInfo, ScoreLine, Seat,
    Setup, SetupError, Severity, Summary, SummaryLine, TowerShelf, Viewer,
};

/// The object-safe form of a ruleset. The host uses it to run a ruleset natively, without
/// WebAssembly, in tests and benchmarks, and [`register_ruleset!`] hands it to the component's
/// glue; authors never need it, so it stays out of their documentation.
#[doc(hidden)]
pub mod native {
    pub use crate::dynamic::{DynGame, DynRuleset, adapt};
}

/// The version of the WIT contract this SDK implements: the newest `wit/since_v*` folder (a test
/// holds the two, `README.md` and `PENDING_CHANGES.md` together). The host refuses a component
/// whose embedded version it does not support, naming both versions.
pub const CONTRACT_VERSION: &str = "0.4.0";

/// The name of the custom section that carries [`CONTRACT_VERSION`] in a built component.
pub const CONTRACT_SECTION: &str = "tenka-contract";

/// Registers the type implementing [`Ruleset`] as this component's ruleset.
///
/// ```text
/// struct MyGame;
/// impl sdk::Ruleset for MyGame { /* ... */ }
/// sdk::register_ruleset!(MyGame);
/// ```
#[macro_export]
macro_rules! register_ruleset {
    ($ruleset:ty) => {
        /// The contract version, readable by the host before it instantiates the component.
        #[cfg(target_arch = "wasm32")]
        #[used]
        #[unsafe(link_section = "tenka-contract")]
        static __TENKA_CONTRACT_VERSION: [u8; $crate::CONTRACT_VERSION.len()] = {
            let bytes = $crate::CONTRACT_VERSION.as_bytes();
            let mut out = [0u8; $crate::CONTRACT_VERSION.len()];
            let mut i = 0;
            while i < bytes.len() {
                out[i] = bytes[i];
                i += 1;
            }
            out
        };

        /// Hands the registered ruleset to the SDK's export glue.
        #[cfg(target_arch = "wasm32")]
        #[unsafe(no_mangle)]
        fn __tenka_registered_ruleset() -> &'static dyn $crate::native::DynRuleset {
            static RULESET: ::std::sync::OnceLock<
                ::std::boxed::Box<dyn $crate::native::DynRuleset>,
            > = ::std::sync::OnceLock::new();
            RULESET
                .get_or_init(|| $crate::native::adapt::<$ruleset>())
                .as_ref()
        }
    };
}

/// The folder of the calling ruleset's variant files, `maps/<package name>/variants` in the
/// workspace, for `testing::Conformance::every_seat_count_and_variant` (the `testing` feature) in its tests.
#[macro_export]
macro_rules! variants_folder {
    () => {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../maps/",
            env!("CARGO_PKG_NAME"),
            "/variants"
        )
    };
}

#[cfg(test)]
mod version_tests {
    //! The contract version is written in one place, [`CONTRACT_VERSION`]; everything else that
    //! names it is checked against it here.

    use super::CONTRACT_VERSION;

    fn read(relative: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
    }

    /// The versions of the `wit/since_v*` folders, oldest first.
    fn wit_versions() -> Vec<Vec<u32>> {
        let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("wit");
        let mut versions: Vec<Vec<u32>> = std::fs::read_dir(wit)
            .expect("the wit folder")
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().into_string().ok()?;
                let version = name.strip_prefix("since_v")?;
                version.split('.').map(|part| part.parse().ok()).collect()
            })
            .collect();
        versions.sort();
        versions
    }

    fn dotted(version: &[u32]) -> String {
        version
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".")
    }

    #[test]
    fn the_contract_version_is_the_newest_wit_folder() {
        let newest = wit_versions().pop().expect("at least one wit folder");
        assert_eq!(dotted(&newest), CONTRACT_VERSION);
        let wit = read(&format!("wit/since_v{CONTRACT_VERSION}/ruleset.wit"));
        assert!(
            wit.contains(&format!("package tenka:ruleset@{CONTRACT_VERSION};")),
            "the newest folder's package is another version"
        );
    }

    #[test]
    fn the_readme_and_pending_changes_name_the_current_contract() {
        let readme = read("README.md");
        assert!(
            readme.contains(&format!("current contract: `{CONTRACT_VERSION}`")),
            "README.md does not name {CONTRACT_VERSION} as the current contract"
        );
        for version in wit_versions() {
            let row = format!("| {} |", dotted(&version));
            assert!(
                readme.contains(&row),
                "README.md's table has no row for contract {}",
                dotted(&version)
            );
        }
        let pending = read("PENDING_CHANGES.md");
        assert!(
            pending.contains(&format!("`tenka:ruleset@{CONTRACT_VERSION}`")),
            "PENDING_CHANGES.md is not about the current contract, {CONTRACT_VERSION}"
        );
    }

    #[test]
    fn the_wit_header_names_files_that_exist() {
        // The header points readers at the host's adapter; a path that moved misleads them.
        let wit = read(&format!("wit/since_v{CONTRACT_VERSION}/ruleset.wit"));
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace");
        for word in wit.split(['`', ' ', '(', ')', ',', ';']) {
            let path = word.trim_end_matches(['.', ':']);
            if path.ends_with(".rs") || path.ends_with(".md") {
                assert!(
                    root.join(path).exists(),
                    "the WIT names `{path}`, which does not exist"
                );
            }
        }
    }
}
