//! Shogun's shipped variants (`maps/shogun/variants/*.toml`): each is checked against the
//! ruleset's real option schema, each plays to the end with random bots and shows its effect, and
//! a broken variant is refused with its file, line and option.

use std::path::{Path, PathBuf};

use host::variants::{Variant, VariantError, load_variants, parse_variant};
use sdk::native::{DynGame, adapt};
use sdk::testing::SeededTable;
use sdk::{GameResult, OptionSetting, Ruleset, Setup, TableExt, random_action};
use shogun::Shogun;
use shogun::data::{STANDARD_EVENT_DECK, SUN_MAP};
use shogun::state::State;

/// The folder of Shogun's shipped variants.
fn variants_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../maps/shogun/variants")
}

/// Every shipped variant, checked against Shogun's schema; fails the test on any refused file.
fn shipped_variants() -> Vec<Variant> {
    let (variants, errors) = load_variants(&variants_dir(), &Shogun::info().options);
    assert!(errors.is_empty(), "refused shipped variants: {errors:?}");
    variants
}

fn variant(id: &str) -> Variant {
    shipped_variants()
        .into_iter()
        .find(|v| v.id == id)
        .unwrap_or_else(|| panic!("no shipped variant `{id}`"))
}

/// A table seeded from a small number, as the host would from a game's seed.
fn table(seed: u64) -> SeededTable {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    SeededTable::new(bytes)
}

/// The state inside a native game, read back from its snapshot.
pub(crate) fn state_of(game: &dyn DynGame) -> State {
    Shogun::restore(&game.snapshot())
        .expect("a Shogun snapshot")
        .state
}

/// Creates a game of Shogun on `map` through the native adapter, as the host does.
pub(crate) fn create(
    map: &str,
    options: &[OptionSetting],
    seats: u32,
    seed: u64,
) -> (Box<dyn DynGame>, SeededTable) {
    let mut table = table(seed);
    let setup = Setup {
        map: map.into(),
        options: options.to_vec(),
        seats,
    };
    let game = adapt::<Shogun>()
        .create(&setup, &mut table)
        .unwrap_or_else(|e| panic!("{seats} seats: the game was not created: {e}"));
    (game, table)
}

/// Random bots answer a random pending decision until none is left; returns the result.
pub(crate) fn play_to_the_end(game: &mut dyn DynGame, table: &mut SeededTable) -> GameResult {
    let mut steps = 0;
    loop {
        let pending = game.pending();
        if pending.is_empty() {
            break;
        }
        steps += 1;
        assert!(steps < 5000, "the game does not end");
        let decision = &pending[table.pick_index(pending.len())];
        let action = random_action(&decision.kind, table);
        game.apply(decision.seat, &action, table)
            .unwrap_or_else(|e| panic!("a random legal action was rejected: {e:?}"));
    }
    game.result()
        .expect("a game nobody has to decide in has a result")
}

#[test]
fn every_shipped_variant_passes_the_real_option_schema() {
    let mut ids: Vec<String> = shipped_variants().into_iter().map(|v| v.id).collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "beginner",
            "no-events",
            "one-year",
            "open-war",
            "standard",
            "sticky-tower"
        ]
    );
    assert!(variant("standard").options.is_empty());
}

#[test]
fn every_shipped_variant_plays_to_the_end_with_random_bots() {
    for (i, variant) in shipped_variants().iter().enumerate() {
        let (mut game, mut table) = create(SUN_MAP, &variant.options, 4, 100 + i as u64);
        let result = play_to_the_end(game.as_mut(), &mut table);
        assert_eq!(result.placings.len(), 4, "{}", variant.id);
        assert!(state_of(game.as_ref()).is_over(), "{}", variant.id);
    }
}

#[test]
fn a_one_year_game_ends_after_the_first_winter_and_the_standard_one_after_the_second() {
    for (id, last_year) in [("one-year", 1), ("standard", 2)] {
        let (mut game, mut table) = create(SUN_MAP, &variant(id).options, 3, 7);
        play_to_the_end(game.as_mut(), &mut table);
        let state = state_of(game.as_ref());
        assert_eq!(
            (state.year, state.settings.years),
            (last_year, last_year),
            "{id}"
        );
    }
}

#[test]
fn the_beginner_variant_starts_with_the_card_set_s_fixed_provinces() {
    let (game, _) = create(SUN_MAP, &variant("beginner").options, 4, 3);
    let state = state_of(game.as_ref());
    assert!(state.draft.is_none(), "the beginner setup skips the draft");
    for seat in state.board.cards().beginner_setup_for(4) {
        for placement in &seat.provinces {
            let p = state
                .board
                .province_by_id(&placement.province)
                .expect("a province of the sun side");
            assert_eq!(state.provinces[p].owner, Some(seat.seat - 1));
            assert_eq!(state.provinces[p].armies, placement.armies);
        }
    }
}

#[test]
fn the_sticky_tower_and_no_events_variants_set_the_game_s_settings() {
    let (game, _) = create(SUN_MAP, &variant("sticky-tower").options, 3, 1);
    let settings = state_of(game.as_ref()).settings;
    assert_eq!(
        (settings.tower_lodge_chance, settings.tower_release_chance),
        (0.3, 0.01)
    );
    let (game, _) = create(SUN_MAP, &variant("no-events").options, 3, 1);
    assert!(!state_of(game.as_ref()).settings.events);
}

#[test]
fn the_open_war_variant_plays_the_open_war_event_deck_from_the_card_data() {
    let (standard, _) = create(SUN_MAP, &[], 5, 2);
    let standard = state_of(standard.as_ref());
    let (open_war, _) = create(SUN_MAP, &variant("open-war").options, 5, 2);
    let open_war = state_of(open_war.as_ref());
    let deck = standard
        .board
        .cards()
        .event_deck("open-war")
        .expect("the card data ships the open-war deck");
    assert_eq!(open_war.board.cards().events, deck.events);
    assert_ne!(open_war.board.cards().events, standard.board.cards().events);
    // The house rule the deck describes: no temple protection, no cap on taxes.
    assert!(
        standard
            .board
            .cards()
            .events
            .iter()
            .any(|e| e.effect.temple_protection)
    );
    assert!(
        open_war
            .board
            .cards()
            .events
            .iter()
            .all(|e| !e.effect.temple_protection && e.effect.tax_max.is_none())
    );
}

#[test]
fn the_event_deck_option_offers_standard_and_every_deck_of_the_card_data() {
    let info = Shogun::info();
    let spec = info
        .options
        .iter()
        .find(|o| o.name == "event-deck")
        .expect("Shogun declares `event-deck`");
    assert_eq!(
        spec.kind,
        sdk::OptionKind::Choice(vec![STANDARD_EVENT_DECK.into(), "open-war".into()])
    );
    assert_eq!(
        spec.default,
        sdk::OptionValue::Choice(STANDARD_EVENT_DECK.into())
    );
}

#[test]
fn a_map_whose_card_set_lacks_the_chosen_deck_is_refused_naming_the_option() {
    let map = format!("{SUN_MAP}\n[cards]\nevent-deck = []\n");
    let setup = Setup {
        map,
        options: variant("open-war").options,
        seats: 3,
    };
    let err = adapt::<Shogun>()
        .create(&setup, &mut table(1))
        .err()
        .expect("no open-war deck on this map");
    match err {
        sdk::SetupError::Option(option, message) => {
            assert_eq!(option, "event-deck");
            assert!(message.contains("no event deck `open-war`"), "{message}");
        }
        other => panic!("expected an option error, got {other:?}"),
    }
}

/// Writes `files` into a fresh folder and loads it as a Shogun variants folder.
fn load_folder(name: &str, files: &[(&str, &str)]) -> (Vec<Variant>, Vec<VariantError>) {
    let dir = std::env::temp_dir().join(format!("tenka-variants-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let loaded = load_variants(&dir, &Shogun::info().options);
    std::fs::remove_dir_all(&dir).unwrap();
    loaded
}

#[test]
fn a_broken_variant_is_refused_with_its_file_line_and_option_and_hides_no_other() {
    let header = "[variant]\nname = \"Broken\"\n\n[options]\n";
    let unknown = format!("{header}years = 1\nyaers = 2\n");
    let wrong_type = format!("{header}years = \"one\"\n");
    let out_of_range = format!("{header}events = true\nyears = 3\n");
    let unknown_deck = format!("{header}event-deck = \"peaceful\"\n");
    let (variants, errors) = load_folder(
        "broken",
        &[
            ("a-unknown.toml", &unknown),
            ("b-wrong-type.toml", &wrong_type),
            ("c-out-of-range.toml", &out_of_range),
            ("d-unknown-deck.toml", &unknown_deck),
            ("e-good.toml", &format!("{header}years = 1\n")),
        ],
    );
    assert_eq!(variants.len(), 1, "the good file still loads");
    assert_eq!(variants[0].id, "e-good");
    let found: Vec<(String, u32, Option<&str>)> = errors
        .iter()
        .map(|e| {
            let file = e.file.file_name().unwrap().to_string_lossy().into_owned();
            (file, e.line, e.option.as_deref())
        })
        .collect();
    assert_eq!(
        found,
        [
            ("a-unknown.toml".to_string(), 6, Some("yaers")),
            ("b-wrong-type.toml".to_string(), 5, Some("years")),
            ("c-out-of-range.toml".to_string(), 6, Some("years")),
            ("d-unknown-deck.toml".to_string(), 5, Some("event-deck")),
        ]
    );
    assert!(
        errors[0].message.contains("unknown option"),
        "{}",
        errors[0]
    );
    assert!(errors[1].message.contains("expected"), "{}", errors[1]);
    assert!(errors[3].message.contains("open-war"), "{}", errors[3]);
    // The one-line form a user sees names file, line, column and option.
    let shown = errors[2].to_string();
    assert!(
        shown.contains("c-out-of-range.toml:6:9: option `years`:"),
        "{shown}"
    );
}

#[test]
fn a_tower_chance_above_one_is_refused_by_the_real_schema() {
    let err = parse_variant(
        Path::new("house.toml"),
        "[variant]\nname = \"X\"\n[options]\ntower-lodge-chance = 1.5\n",
        &Shogun::info().options,
    )
    .unwrap_err();
    assert_eq!(
        (err.line, err.option.as_deref()),
        (4, Some("tower-lodge-chance"))
    );
}
