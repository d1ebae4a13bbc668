//! Reading a map file into a [`Board`], with every semantic check.
//!
//! Reading has two stages. First the TOML grammar: an unknown field, a missing field or a wrong
//! type stops there with one error at its place. Then the meaning: every broken reference, one-way
//! border, bad number or cut-off province is reported, all at once, each at its own line.

use super::raw::{RawCards, RawMap, RawProvince};
use super::*;
use sdk::Diagnostic;
use sdk::LineIndex;
use sdk::map_check::{grammar_error, is_colour, is_kebab_id};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use toml::Spanned;

/// The number of provinces in each region of the printed board.
pub(super) const STANDARD_REGION_SIZE: usize = 9;
/// The number of provinces out of play with 3 players on the printed board.
pub(super) const STANDARD_OUT_OF_PLAY: usize = 8;
/// Largest tax or rice value a province may have; the printed board's largest is 7.
pub(super) const MAX_PROVINCE_VALUE: u32 = 20;
/// The player counts Shogun is played with.
pub(super) const PLAYER_COUNTS: [u32; 3] = [3, 4, 5];
/// Event cards two years use: 4 face up per year.
const EVENTS_NEEDED: usize = 8;
/// Special cards needed: one per player with 5 players.
const SPECIALS_NEEDED: usize = 5;
/// The name of the default card file, for diagnostics about it.
const CARDS_FILE: &str = "cards.toml";

/// Which file a card section came from: the map itself, or the default card set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Map,
    DefaultCards,
}

/// Collects diagnostics with their places: in the map, or in the default card set.
struct Report<'a> {
    map: sdk::map_check::Report<'a>,
    cards: LineIndex<'a>,
}

impl<'a> Report<'a> {
    fn new(map_text: &'a str) -> Self {
        Report {
            map: sdk::map_check::Report::new(map_text),
            cards: LineIndex::new(DEFAULT_CARDS),
        }
    }

    fn push(&mut self, error: bool, origin: Origin, span: &Range<usize>, text: String) {
        match (origin, error) {
            (Origin::Map, true) => self.map.error(span, text),
            (Origin::Map, false) => self.map.warning(span, text),
            // The map file does not contain the default cards: point at the whole file and name
            // the default file's own line in the text.
            (Origin::DefaultCards, _) => {
                let (line, column) = self.cards.start(span);
                let text = format!(
                    "{text} (in the default card set, {CARDS_FILE} line {line}, column {column}; \
                     override it in the map's [cards] section)"
                );
                self.map.push(if error {
                    Diagnostic::error(0, 0, text)
                } else {
                    Diagnostic::warning(0, 0, text)
                });
            }
        }
    }

    fn error(&mut self, span: &Range<usize>, text: String) {
        self.map.error(span, text);
    }

    fn warning(&mut self, span: &Range<usize>, text: String) {
        self.map.warning(span, text);
    }

    fn error_count(&self) -> usize {
        self.map.error_count()
    }

    fn has_errors(&self) -> bool {
        self.map.has_errors()
    }

    fn finish(self) -> Vec<Diagnostic> {
        self.map.finish()
    }
}

/// A TOML grammar error in the default card file, at its place in that file.
fn cards_grammar_error(error: &toml::de::Error) -> Diagnostic {
    let found = grammar_error(&LineIndex::new(DEFAULT_CARDS), error);
    Diagnostic::error(
        0,
        0,
        format!(
            "{CARDS_FILE} line {}, column {}: {}",
            found.line, found.column, found.text
        ),
    )
}

/// Parses the embedded default card file.
fn parse_default_cards() -> Result<RawCards, Diagnostic> {
    toml::from_str::<RawCards>(DEFAULT_CARDS).map_err(|e| cards_grammar_error(&e))
}

/// The default card set, checked against no particular board. The crate's tests prove the file
/// clean; should it ever not be, the numbers read so far are kept and the rest left empty.
pub(super) fn default_cards() -> Cards {
    let raw = parse_default_cards().unwrap_or_default();
    let mut report = Report::new("");
    let merged = merge_cards(RawCards::default(), raw, &mut report);
    build_cards(&merged)
}

/// Reads and checks a map file.
pub(super) fn read_board(text: &str) -> Result<(Board, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut raw: RawMap = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(e) => return Err(vec![grammar_error(&LineIndex::new(text), &e)]),
    };
    let default = match parse_default_cards() {
        Ok(default) => default,
        Err(diagnostic) => return Err(vec![diagnostic]),
    };
    let mut report = Report::new(text);
    let override_cards = raw
        .cards
        .take()
        .map(Spanned::into_inner)
        .unwrap_or_default();
    let cards = merge_cards(override_cards, default, &mut report);

    check_header(&raw, &mut report);
    let regions = check_regions(&raw, &mut report);
    let provinces = check_provinces(&raw, &regions, &mut report);
    let errors_before = report.error_count();
    check_borders(&raw, &provinces, &mut report);
    check_region_sizes(&raw, &regions, &mut report);
    // Connectivity means little while borders are broken: report those first.
    if report.error_count() == errors_before {
        check_connected(&raw, &provinces, &mut report);
    }
    check_cards(&cards, &mut report);
    check_player_counts(&raw, &cards, &mut report);
    check_beginner_setup(&raw, &provinces, &cards, &mut report);

    if report.has_errors() {
        return Err(report.finish());
    }
    let board = build_board(raw, &regions, &provinces, &cards);
    Ok((board, report.finish()))
}

// ----- the map -----

fn check_header(raw: &RawMap, report: &mut Report<'_>) {
    let header = raw.map.get_ref();
    if header.ruleset.get_ref() != "shogun" {
        report.error(
            &header.ruleset.span(),
            format!(
                "[map] field `ruleset` is \"{}\", but this is a map for \"shogun\"",
                header.ruleset.get_ref()
            ),
        );
    }
    if !is_kebab_id(header.id.get_ref()) {
        report.error(
            &header.id.span(),
            format!(
                "[map] field `id` \"{}\" must be kebab-case ASCII (like \"shogun-sun\")",
                header.id.get_ref()
            ),
        );
    }
}

/// Checks the regions; returns region id -> index for the first of each id.
fn check_regions(raw: &RawMap, report: &mut Report<'_>) -> BTreeMap<String, RegionId> {
    let mut ids: BTreeMap<String, RegionId> = BTreeMap::new();
    if raw.region.is_empty() {
        report.error(&raw.map.span(), "the map has no [[region]]".to_string());
    }
    for (index, region) in raw.region.iter().enumerate() {
        let region = region.get_ref();
        let id = region.id.get_ref();
        if !is_kebab_id(id) {
            report.error(
                &region.id.span(),
                format!("region field `id` \"{id}\" must be kebab-case ASCII (like \"brown\")"),
            );
        }
        if let Some(&first) = ids.get(id) {
            let first_span = raw.region[first].get_ref().id.span();
            let (line, _) = report.map.index().start(&first_span);
            report.error(
                &region.id.span(),
                format!("region `{id}` is listed twice (first at line {line})"),
            );
        } else {
            ids.insert(id.clone(), index);
        }
        if !is_colour(region.colour.get_ref()) {
            report.error(
                &region.colour.span(),
                format!(
                    "region `{id}`: field `colour` \"{}\" must be #rrggbb",
                    region.colour.get_ref()
                ),
            );
        }
    }
    ids
}

/// Checks each province on its own; returns province id -> index for the first of each id.
fn check_provinces(
    raw: &RawMap,
    regions: &BTreeMap<String, RegionId>,
    report: &mut Report<'_>,
) -> BTreeMap<String, ProvinceId> {
    let mut ids: BTreeMap<String, ProvinceId> = BTreeMap::new();
    if raw.province.is_empty() {
        report.error(&raw.map.span(), "the map has no [[province]]".to_string());
    }
    for (index, spanned) in raw.province.iter().enumerate() {
        let province = spanned.get_ref();
        let id = province.id.get_ref();
        if !is_kebab_id(id) {
            report.error(
                &province.id.span(),
                format!(
                    "province field `id` \"{id}\" must be kebab-case ASCII (like \"awa-boso\")"
                ),
            );
        }
        if let Some(&first) = ids.get(id) {
            let first_span = raw.province[first].get_ref().id.span();
            let (line, _) = report.map.index().start(&first_span);
            report.error(
                &province.id.span(),
                format!("province `{id}` is listed twice (first at line {line}); a province belongs to one region"),
            );
        } else {
            ids.insert(id.clone(), index);
        }
        match &province.region {
            None => report.error(
                &spanned.span(),
                format!("province `{id}` is in no region: add a `region` field"),
            ),
            Some(region) if !regions.contains_key(region.get_ref()) => report.error(
                &region.span(),
                format!(
                    "province `{id}`: field `region` names unknown region `{}`",
                    region.get_ref()
                ),
            ),
            Some(_) => {}
        }
        if !(1..=3).contains(province.spaces.get_ref()) {
            report.error(
                &province.spaces.span(),
                format!(
                    "province `{id}`: field `spaces` is {}, but a province has 1 to 3 building spaces",
                    province.spaces.get_ref()
                ),
            );
        }
        for (field, value) in [("tax", &province.tax), ("rice", &province.rice)] {
            if *value.get_ref() > MAX_PROVINCE_VALUE {
                report.error(
                    &value.span(),
                    format!(
                        "province `{id}`: field `{field}` is {}, more than the largest sensible value {MAX_PROVINCE_VALUE}",
                        value.get_ref()
                    ),
                );
            }
        }
        if let Some(outline) = &province.outline {
            let points = outline.get_ref();
            if points.len() < 3 || points.iter().flatten().any(|v| !v.is_finite()) {
                report.error(
                    &outline.span(),
                    format!(
                        "province `{id}`: field `outline` needs at least 3 points of finite numbers"
                    ),
                );
            }
        }
        if !province.x.is_finite() || !province.y.is_finite() {
            report.error(
                &province.id.span(),
                format!("province `{id}`: fields `x` and `y` must be finite numbers"),
            );
        }
    }
    // Drawing positions: two provinces on the same spot cannot be told apart.
    for (a, first) in raw.province.iter().enumerate() {
        for second in raw.province.iter().skip(a + 1) {
            let (p, q) = (first.get_ref(), second.get_ref());
            if (p.x - q.x).abs() < 1.0 && (p.y - q.y).abs() < 1.0 {
                report.warning(
                    &q.id.span(),
                    format!(
                        "province `{}` is drawn on the same spot as `{}`",
                        q.id.get_ref(),
                        p.id.get_ref()
                    ),
                );
            }
        }
    }
    ids
}

/// Which list a neighbour was named in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Link {
    Land,
    Sea,
}

impl Link {
    fn field(self) -> &'static str {
        match self {
            Link::Land => "borders",
            Link::Sea => "sea-routes",
        }
    }
}

fn links(province: &RawProvince) -> impl Iterator<Item = (Link, &Spanned<String>)> {
    province
        .borders
        .iter()
        .map(|n| (Link::Land, n))
        .chain(province.sea_routes.iter().map(|n| (Link::Sea, n)))
}

/// Checks the neighbour lists: known names, no self-loops, no repeats, and every border listed
/// on both sides with the same kind.
fn check_borders(raw: &RawMap, provinces: &BTreeMap<String, ProvinceId>, report: &mut Report<'_>) {
    // (from, to) -> kind, for the first mention.
    let mut listed: BTreeMap<(ProvinceId, ProvinceId), Link> = BTreeMap::new();
    for (from, spanned) in raw.province.iter().enumerate() {
        let province = spanned.get_ref();
        let id = province.id.get_ref();
        if provinces.get(id) != Some(&from) {
            continue; // a repeated province was reported already
        }
        for (link, neighbour) in links(province) {
            let name = neighbour.get_ref();
            let field = link.field();
            let Some(&to) = provinces.get(name) else {
                report.error(
                    &neighbour.span(),
                    format!("province `{id}`: field `{field}` names unknown province `{name}`"),
                );
                continue;
            };
            if to == from {
                report.error(
                    &neighbour.span(),
                    format!("province `{id}`: field `{field}` names the province itself"),
                );
                continue;
            }
            if let Some(&earlier) = listed.get(&(from, to)) {
                let text = if earlier == link {
                    format!("province `{id}`: field `{field}` names `{name}` twice")
                } else {
                    format!("province `{id}` names `{name}` both in `borders` and in `sea-routes`")
                };
                report.error(&neighbour.span(), text);
                continue;
            }
            listed.insert((from, to), link);
        }
    }
    for (from, spanned) in raw.province.iter().enumerate() {
        let province = spanned.get_ref();
        let id = province.id.get_ref();
        if provinces.get(id) != Some(&from) {
            continue;
        }
        for (link, neighbour) in links(province) {
            let Some(&to) = provinces.get(neighbour.get_ref()) else {
                continue;
            };
            if to == from || listed.get(&(from, to)) != Some(&link) {
                continue;
            }
            let name = neighbour.get_ref();
            let field = link.field();
            match listed.get(&(to, from)) {
                None => report.error(
                    &neighbour.span(),
                    format!(
                        "one-way border: province `{id}` lists `{name}` in `{field}`, but `{name}` does not list `{id}`"
                    ),
                ),
                Some(&back) if back != link => report.error(
                    &neighbour.span(),
                    format!(
                        "province `{id}` lists `{name}` in `{field}`, but `{name}` lists `{id}` in `{}`: a border is either land or sea",
                        back.field()
                    ),
                ),
                Some(_) => {}
            }
        }
    }
}

/// Regions must not be empty, and should have the standard 9 provinces.
fn check_region_sizes(raw: &RawMap, regions: &BTreeMap<String, RegionId>, report: &mut Report<'_>) {
    let mut sizes = vec![0usize; raw.region.len()];
    for province in &raw.province {
        if let Some(region) = &province.get_ref().region
            && let Some(&r) = regions.get(region.get_ref())
        {
            sizes[r] += 1;
        }
    }
    for (region, size) in raw.region.iter().zip(sizes) {
        let region = region.get_ref();
        let id = region.id.get_ref();
        if size == 0 {
            report.error(&region.id.span(), format!("region `{id}` has no province"));
        } else if size != STANDARD_REGION_SIZE {
            report.warning(
                &region.id.span(),
                format!(
                    "region `{id}` has {size} provinces; the printed board's regions have {STANDARD_REGION_SIZE}"
                ),
            );
        }
    }
}

/// Every province must be reachable from the first, by land or sea; with 3 players, every province
/// in play must be reachable through provinces in play.
fn check_connected(
    raw: &RawMap,
    provinces: &BTreeMap<String, ProvinceId>,
    report: &mut Report<'_>,
) {
    let errors_before = report.error_count();
    let adjacency: Vec<Vec<ProvinceId>> = raw
        .province
        .iter()
        .map(|p| {
            links(p.get_ref())
                .filter_map(|(_, n)| provinces.get(n.get_ref()).copied())
                .collect()
        })
        .collect();
    // A repeated province (already an error) takes no part.
    let first = |p: usize| provinces.get(raw.province[p].get_ref().id.get_ref()) == Some(&p);
    let all: Vec<bool> = (0..raw.province.len()).map(first).collect();
    let in_play_3: Vec<bool> = (0..raw.province.len())
        .map(|p| first(p) && !raw.province[p].get_ref().out_of_play_with_3)
        .collect();
    for (allowed, situation) in [(&all, ""), (&in_play_3, " with 3 players")] {
        let Some(start) = allowed.iter().position(|&a| a) else {
            continue;
        };
        let reached = reachable(&adjacency, allowed, start);
        if !situation.is_empty() && report.error_count() > errors_before {
            break; // the whole board is cut already: the 3-player board is too, for the same reason
        }
        let start_id = raw.province[start].get_ref().id.get_ref();
        for (p, province) in raw.province.iter().enumerate() {
            if allowed[p] && !reached[p] {
                let id = province.get_ref().id.get_ref();
                report.error(
                    &province.get_ref().id.span(),
                    format!(
                        "province `{id}` cannot be reached from `{start_id}`{situation}: the board is not connected"
                    ),
                );
            }
        }
    }
}

fn reachable(adjacency: &[Vec<ProvinceId>], allowed: &[bool], start: ProvinceId) -> Vec<bool> {
    let mut reached = vec![false; adjacency.len()];
    let mut stack = vec![start];
    reached[start] = true;
    while let Some(p) = stack.pop() {
        for &q in &adjacency[p] {
            if allowed[q] && !reached[q] {
                reached[q] = true;
                stack.push(q);
            }
        }
    }
    reached
}

/// The standard number of provinces out of play, and enough provinces for every player count.
fn check_player_counts(raw: &RawMap, cards: &MergedCards, report: &mut Report<'_>) {
    let out: Vec<&Spanned<RawProvince>> = raw
        .province
        .iter()
        .filter(|p| p.get_ref().out_of_play_with_3)
        .collect();
    if out.len() != STANDARD_OUT_OF_PLAY {
        report.warning(
            &raw.map.span(),
            format!(
                "{} out of play with 3 players (`out-of-play-with-3`); the printed board has {STANDARD_OUT_OF_PLAY}",
                match out.len() {
                    1 => "1 province is".to_string(),
                    n => format!("{n} provinces are"),
                }
            ),
        );
    }
    let Some((groups, _)) = &cards.countryside_groups else {
        return;
    };
    let total = raw.province.len();
    for players in PLAYER_COUNTS {
        let per_player = groups
            .get_ref()
            .iter()
            .filter(|g| g.get_ref().players.get_ref().contains(&players))
            .count();
        let needed = per_player * players as usize;
        let available = if players == 3 {
            total - out.len()
        } else {
            total
        };
        if available < needed {
            report.error(
                &raw.map.span(),
                format!(
                    "with {players} players only {available} provinces are in play, but {players} players x {per_player} countryside groups need {needed}"
                ),
            );
        }
    }
}

// ----- the cards -----

/// A card section with the file it came from.
type FromFile<T> = Option<(T, Origin)>;

/// The card set after applying a map's override to the default, each section with its origin.
struct MergedCards {
    cubes_per_player: FromFile<Spanned<u32>>,
    farmers: FromFile<Spanned<u32>>,
    tower_load_per_player: FromFile<Spanned<u32>>,
    tower_load_farmers: FromFile<Spanned<u32>>,
    tower_shelves: FromFile<Spanned<Vec<Spanned<raw::RawShelf>>>>,
    starting_chests: FromFile<Spanned<Vec<Spanned<raw::RawStartingChests>>>>,
    countryside_groups: FromFile<Spanned<Vec<Spanned<raw::RawGroup>>>>,
    provisions: FromFile<Spanned<Vec<Spanned<raw::RawProvisionRow>>>>,
    action: FromFile<Vec<Spanned<raw::RawAction>>>,
    special: FromFile<Vec<Spanned<raw::RawSpecial>>>,
    event: FromFile<Vec<Spanned<raw::RawEvent>>>,
    beginner_setup: FromFile<Vec<Spanned<raw::RawBeginnerSeat>>>,
    event_deck: FromFile<Vec<Spanned<raw::RawEventDeck>>>,
}

fn pick<T>(from_map: Option<T>, default: Option<T>) -> FromFile<T> {
    from_map
        .map(|v| (v, Origin::Map))
        .or_else(|| default.map(|v| (v, Origin::DefaultCards)))
}

/// Applies the map's `[cards]` sections over the default ones; a section missing from both is an
/// error (only possible if the default file itself lacks it).
fn merge_cards(from_map: RawCards, default: RawCards, report: &mut Report<'_>) -> MergedCards {
    let merged = MergedCards {
        cubes_per_player: pick(from_map.cubes_per_player, default.cubes_per_player),
        farmers: pick(from_map.farmers, default.farmers),
        tower_load_per_player: pick(
            from_map.tower_load_per_player,
            default.tower_load_per_player,
        ),
        tower_load_farmers: pick(from_map.tower_load_farmers, default.tower_load_farmers),
        tower_shelves: pick(from_map.tower_shelves, default.tower_shelves),
        starting_chests: pick(from_map.starting_chests, default.starting_chests),
        countryside_groups: pick(from_map.countryside_groups, default.countryside_groups),
        provisions: pick(from_map.provisions, default.provisions),
        action: pick(from_map.action, default.action),
        special: pick(from_map.special, default.special),
        event: pick(from_map.event, default.event),
        beginner_setup: pick(from_map.beginner_setup, default.beginner_setup),
        event_deck: pick(from_map.event_deck, default.event_deck),
    };
    let missing = [
        ("cubes-per-player", merged.cubes_per_player.is_none()),
        ("farmers", merged.farmers.is_none()),
        (
            "tower-load-per-player",
            merged.tower_load_per_player.is_none(),
        ),
        ("tower-load-farmers", merged.tower_load_farmers.is_none()),
        ("tower-shelves", merged.tower_shelves.is_none()),
        ("starting-chests", merged.starting_chests.is_none()),
        ("countryside-groups", merged.countryside_groups.is_none()),
        ("provisions", merged.provisions.is_none()),
        ("action", merged.action.is_none()),
        ("special", merged.special.is_none()),
        ("event", merged.event.is_none()),
    ];
    for (field, is_missing) in missing {
        if is_missing {
            report.push(
                true,
                Origin::DefaultCards,
                &(0..0),
                format!("the card set has no `{field}`"),
            );
        }
    }
    merged
}

/// Checks one list of event cards: unique ids and enough cards for two years. `what` names the
/// list in messages: "the card set" or "event deck `x`".
fn check_events(
    events: &[Spanned<raw::RawEvent>],
    fallback: &Range<usize>,
    what: &str,
    origin: Origin,
    report: &mut Report<'_>,
) {
    check_unique_ids(
        events.iter().map(|e| &e.get_ref().id),
        "event card",
        origin,
        report,
    );
    if events.len() < EVENTS_NEEDED {
        let span = events
            .first()
            .map_or_else(|| fallback.clone(), |e| e.span());
        report.push(
            true,
            origin,
            &span,
            format!(
                "{what} has {} event cards; two years use {EVENTS_NEEDED}",
                events.len()
            ),
        );
    }
}

/// Checks the `[[event-deck]]` tables: kebab-case ids, none called `standard` (the option's value
/// for the card set's own events), none twice, each a playable list of events.
fn check_event_decks(
    decks: &[Spanned<raw::RawEventDeck>],
    origin: Origin,
    report: &mut Report<'_>,
) {
    check_unique_ids(
        decks.iter().map(|d| &d.get_ref().id),
        "event deck",
        origin,
        report,
    );
    for deck in decks {
        let id = &deck.get_ref().id;
        if !is_kebab_id(id.get_ref()) || id.get_ref() == STANDARD_EVENT_DECK {
            report.push(
                true,
                origin,
                &id.span(),
                format!(
                    "event deck id `{}` must be kebab-case and not `{STANDARD_EVENT_DECK}`",
                    id.get_ref()
                ),
            );
        }
        check_events(
            &deck.get_ref().event,
            &deck.span(),
            &format!("event deck `{}`", id.get_ref()),
            origin,
            report,
        );
    }
}

/// Checks the card set's own consistency.
fn check_cards(cards: &MergedCards, report: &mut Report<'_>) {
    if let Some((events, origin)) = &cards.event {
        check_events(events, &(0..0), "the card set", *origin, report);
    }
    if let Some((decks, origin)) = &cards.event_deck {
        check_event_decks(decks, *origin, report);
    }
    if let Some((specials, origin)) = &cards.special {
        check_unique_ids(
            specials.iter().map(|s| &s.get_ref().id),
            "special card",
            *origin,
            report,
        );
        if specials.len() < SPECIALS_NEEDED {
            let span = specials.first().map_or(0..0, |s| s.span());
            report.push(
                true,
                *origin,
                &span,
                format!(
                    "the card set has {} special cards; 5 players need {SPECIALS_NEEDED}",
                    specials.len()
                ),
            );
        }
    }
    if let Some((actions, origin)) = &cards.action {
        check_unique_ids(
            actions.iter().map(|a| &a.get_ref().id),
            "action card",
            *origin,
            report,
        );
        for action in actions {
            let a = action.get_ref();
            let recruits = matches!(
                a.kind,
                ActionKind::Recruit5 | ActionKind::Recruit3 | ActionKind::Recruit1Move
            );
            if recruits && a.armies == 0 {
                report.push(
                    true,
                    *origin,
                    &a.id.span(),
                    format!(
                        "action `{}`: a recruit action needs `armies` of 1 or more",
                        a.id.get_ref()
                    ),
                );
            }
        }
    }
    if let Some((rows, origin)) = &cards.provisions {
        let mut previous: Option<u32> = None;
        for row in rows.get_ref() {
            let from = *row.get_ref().shortfall_from.get_ref();
            let bad = match previous {
                None => from != 0,
                Some(p) => from <= p,
            };
            if bad {
                report.push(
                    true,
                    *origin,
                    &row.get_ref().shortfall_from.span(),
                    "`provisions`: rows must start at `shortfall-from = 0` and grow strictly"
                        .to_string(),
                );
            }
            previous = Some(from);
        }
        if rows.get_ref().is_empty() {
            report.push(
                true,
                *origin,
                &rows.span(),
                "`provisions` is empty".to_string(),
            );
        }
    }
    if let Some((groups, origin)) = &cards.countryside_groups {
        for group in groups.get_ref() {
            let players = group.get_ref().players.get_ref();
            if let Some(bad) = players.iter().find(|p| !PLAYER_COUNTS.contains(p)) {
                report.push(
                    true,
                    *origin,
                    &group.get_ref().players.span(),
                    format!("`countryside-groups`: Shogun has 3 to 5 players, not {bad}"),
                );
            }
            if *group.get_ref().armies.get_ref() == 0 {
                report.push(
                    true,
                    *origin,
                    &group.get_ref().armies.span(),
                    "`countryside-groups`: a group needs 1 army or more".to_string(),
                );
            }
        }
    }
    if let Some((chests, origin)) = &cards.starting_chests {
        for players in PLAYER_COUNTS {
            let count = chests
                .get_ref()
                .iter()
                .filter(|c| *c.get_ref().players.get_ref() == players)
                .count();
            if count != 1 {
                report.push(
                    true,
                    *origin,
                    &chests.span(),
                    format!(
                        "`starting-chests` must give the chests for {players} players exactly once"
                    ),
                );
            }
        }
    }
    if let Some((shelves, origin)) = &cards.tower_shelves {
        if shelves.get_ref().is_empty() {
            report.push(
                true,
                *origin,
                &shelves.span(),
                "`tower-shelves` is empty".to_string(),
            );
        }
        for shelf in shelves.get_ref() {
            let lodge = &shelf.get_ref().lodge_chance;
            let release = &shelf.get_ref().release_chance;
            if !(0.0..1.0).contains(lodge.get_ref()) {
                report.push(
                    true,
                    *origin,
                    &lodge.span(),
                    "`tower-shelves`: `lodge-chance` must be at least 0 and below 1".to_string(),
                );
            }
            if !(0.0..=1.0).contains(release.get_ref()) {
                report.push(
                    true,
                    *origin,
                    &release.span(),
                    "`tower-shelves`: `release-chance` must be between 0 and 1".to_string(),
                );
            }
        }
    }
    for (load, total, what) in [
        (
            &cards.tower_load_per_player,
            &cards.cubes_per_player,
            "cubes-per-player",
        ),
        (&cards.tower_load_farmers, &cards.farmers, "farmers"),
    ] {
        if let (Some((load, origin)), Some((total, _))) = (load, total)
            && load.get_ref() > total.get_ref()
        {
            report.push(
                true,
                *origin,
                &load.span(),
                format!(
                    "the tower is loaded with {} cubes, more than `{what}` ({})",
                    load.get_ref(),
                    total.get_ref()
                ),
            );
        }
    }
}

fn check_unique_ids<'s>(
    ids: impl Iterator<Item = &'s Spanned<String>>,
    what: &str,
    origin: Origin,
    report: &mut Report<'_>,
) {
    let mut seen = BTreeSet::new();
    for id in ids {
        if !seen.insert(id.get_ref().clone()) {
            report.push(
                true,
                origin,
                &id.span(),
                format!("{what} `{}` is listed twice", id.get_ref()),
            );
        }
    }
}

/// The beginner setup must name provinces of this map that are in play, once per player count,
/// with one seat per player and exactly the armies of that player count's countryside groups.
fn check_beginner_setup(
    raw: &RawMap,
    provinces: &BTreeMap<String, ProvinceId>,
    cards: &MergedCards,
    report: &mut Report<'_>,
) {
    let Some((seats, origin)) = &cards.beginner_setup else {
        return;
    };
    let origin = *origin;
    let groups: BTreeMap<u32, Vec<u32>> = match &cards.countryside_groups {
        Some((groups, _)) => PLAYER_COUNTS
            .iter()
            .map(|&n| {
                let mut armies: Vec<u32> = groups
                    .get_ref()
                    .iter()
                    .filter(|g| g.get_ref().players.get_ref().contains(&n))
                    .map(|g| *g.get_ref().armies.get_ref())
                    .collect();
                armies.sort_unstable();
                (n, armies)
            })
            .collect(),
        None => BTreeMap::new(),
    };
    // players -> (seat numbers, province -> seat)
    let mut seen_seats: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    let mut used: BTreeMap<(u32, String), u32> = BTreeMap::new();
    for entry in seats {
        let seat = entry.get_ref();
        let players = *seat.players.get_ref();
        let number = *seat.seat.get_ref();
        if !PLAYER_COUNTS.contains(&players) {
            report.push(
                true,
                origin,
                &seat.players.span(),
                format!("beginner setup: `players` is {players}, but Shogun has 3 to 5 players"),
            );
            continue;
        }
        if number == 0 || number > players {
            report.push(
                true,
                origin,
                &seat.seat.span(),
                format!("beginner setup: `seat` is {number}, but {players} players have seats 1 to {players}"),
            );
        } else if !seen_seats.entry(players).or_default().insert(number) {
            report.push(
                true,
                origin,
                &seat.seat.span(),
                format!("beginner setup: seat {number} for {players} players is listed twice"),
            );
        }
        for (name, armies) in &seat.provinces {
            let Some(&p) = provinces.get(name) else {
                report.push(
                    true,
                    origin,
                    &armies.span(),
                    format!("beginner setup for {players} players, seat {number}: field `provinces` names unknown province `{name}`"),
                );
                continue;
            };
            if players == 3 && raw.province[p].get_ref().out_of_play_with_3 {
                report.push(
                    true,
                    origin,
                    &armies.span(),
                    format!("beginner setup for 3 players, seat {number}: province `{name}` is out of play with 3 players"),
                );
            }
            if let Some(other) = used.insert((players, name.clone()), number) {
                report.push(
                    true,
                    origin,
                    &armies.span(),
                    format!("beginner setup for {players} players: province `{name}` is given to seat {other} and to seat {number}"),
                );
            }
        }
        if let Some(expected) = groups.get(&players) {
            let mut armies: Vec<u32> = seat.provinces.values().map(|a| *a.get_ref()).collect();
            armies.sort_unstable();
            if &armies != expected {
                report.push(
                    true,
                    origin,
                    &entry.span(),
                    format!(
                        "beginner setup for {players} players, seat {number}: armies {armies:?} do not match the countryside groups {expected:?}"
                    ),
                );
            }
        }
    }
    for (players, numbers) in &seen_seats {
        if numbers.len() != *players as usize {
            let span = seats.first().map_or(0..0, |s| s.span());
            report.push(
                true,
                origin,
                &span,
                format!(
                    "beginner setup for {players} players has {} seats, not {players}",
                    numbers.len()
                ),
            );
        }
    }
}

// ----- building the board -----

fn build_events(events: &[Spanned<raw::RawEvent>]) -> Vec<EventCard> {
    events
        .iter()
        .map(|e| {
            let e = e.get_ref();
            let f = &e.effect;
            EventCard {
                id: e.id.get_ref().clone(),
                name: e.name.clone(),
                winter_rice_loss: e.winter_rice_loss,
                effect: EventEffect {
                    theatre_removes_revolt: f.theatre_removes_revolt,
                    neutral_farmers: f.neutral_farmers,
                    castle_defender_bonus: f.castle_defender_bonus,
                    temple_protection: f.temple_protection,
                    tax_min: f.tax_min,
                    tax_max: f.tax_max,
                    rice_min: f.rice_min,
                    rice_max: f.rice_max,
                    recruit_5: f.recruit_5,
                    recruit_3: f.recruit_3,
                },
            }
        })
        .collect()
}

fn build_cards(cards: &MergedCards) -> Cards {
    let number = |v: &FromFile<Spanned<u32>>| v.as_ref().map_or(0, |(v, _)| *v.get_ref());
    Cards {
        events: cards
            .event
            .as_ref()
            .map_or_else(Vec::new, |(events, _)| build_events(events)),
        event_decks: cards
            .event_deck
            .as_ref()
            .map_or_else(Vec::new, |(decks, _)| {
                decks
                    .iter()
                    .map(|d| {
                        let d = d.get_ref();
                        EventDeck {
                            id: d.id.get_ref().clone(),
                            description: d.description.clone(),
                            events: build_events(&d.event),
                        }
                    })
                    .collect()
            }),
        specials: cards
            .special
            .as_ref()
            .map_or_else(Vec::new, |(specials, _)| {
                specials
                    .iter()
                    .map(|s| {
                        let s = s.get_ref();
                        let f = &s.effect;
                        SpecialCard {
                            id: s.id.get_ref().clone(),
                            name: s.name.clone(),
                            effect: SpecialEffect {
                                attack_bonus: f.attack_bonus,
                                defence_bonus: f.defence_bonus,
                                tax_bonus: f.tax_bonus,
                                rice_bonus: f.rice_bonus,
                                recruit_5_bonus: f.recruit_5_bonus,
                            },
                        }
                    })
                    .collect()
            }),
        actions: cards.action.as_ref().map_or_else(Vec::new, |(actions, _)| {
            actions
                .iter()
                .map(|a| {
                    let a = a.get_ref();
                    ActionCard {
                        id: a.id.get_ref().clone(),
                        name: a.name.clone(),
                        kind: a.kind,
                        cost: a.cost,
                        armies: a.armies,
                    }
                })
                .collect()
        }),
        provisions: cards
            .provisions
            .as_ref()
            .map_or_else(Vec::new, |(rows, _)| {
                rows.get_ref()
                    .iter()
                    .map(|r| {
                        let r = r.get_ref();
                        ProvisionRow {
                            shortfall_from: *r.shortfall_from.get_ref(),
                            revolts: r.revolts,
                            extra_farmers: r.extra_farmers,
                        }
                    })
                    .collect()
            }),
        countryside_groups: cards.countryside_groups.as_ref().map_or_else(
            Vec::new,
            |(groups, _)| {
                groups
                    .get_ref()
                    .iter()
                    .map(|g| {
                        let g = g.get_ref();
                        CountrysideGroup {
                            label: g.label.clone(),
                            armies: *g.armies.get_ref(),
                            players: g.players.get_ref().clone(),
                        }
                    })
                    .collect()
            },
        ),
        starting_chests: cards
            .starting_chests
            .as_ref()
            .map_or_else(Vec::new, |(chests, _)| {
                chests
                    .get_ref()
                    .iter()
                    .map(|c| StartingChests {
                        players: *c.get_ref().players.get_ref(),
                        chests: c.get_ref().chests,
                    })
                    .collect()
            }),
        cubes_per_player: number(&cards.cubes_per_player),
        farmers: number(&cards.farmers),
        tower_load_per_player: number(&cards.tower_load_per_player),
        tower_load_farmers: number(&cards.tower_load_farmers),
        tower_shelves: cards
            .tower_shelves
            .as_ref()
            .map_or_else(Vec::new, |(shelves, _)| {
                shelves
                    .get_ref()
                    .iter()
                    .map(|s| sdk::TowerShelf {
                        lodge_chance: *s.get_ref().lodge_chance.get_ref(),
                        release_chance: *s.get_ref().release_chance.get_ref(),
                    })
                    .collect()
            }),
        beginner_setup: cards
            .beginner_setup
            .as_ref()
            .map_or_else(Vec::new, |(seats, _)| {
                seats
                    .iter()
                    .map(|s| {
                        let s = s.get_ref();
                        BeginnerSeat {
                            players: *s.players.get_ref(),
                            seat: *s.seat.get_ref(),
                            provinces: s
                                .provinces
                                .iter()
                                .map(|(province, armies)| Placement {
                                    province: province.clone(),
                                    armies: *armies.get_ref(),
                                })
                                .collect(),
                        }
                    })
                    .collect()
            }),
    }
}

/// Builds the board from a map that passed every check.
fn build_board(
    raw: RawMap,
    regions: &BTreeMap<String, RegionId>,
    provinces: &BTreeMap<String, ProvinceId>,
    cards: &MergedCards,
) -> Board {
    let cards = build_cards(cards);
    let header = raw.map.into_inner();
    let mut neighbours: Vec<Vec<ProvinceId>> = Vec::with_capacity(raw.province.len());
    let mut sea_routes = Vec::new();
    let mut built = Vec::with_capacity(raw.province.len());
    for (index, province) in raw.province.into_iter().enumerate() {
        let p = province.into_inner();
        let mut list: Vec<ProvinceId> = links(&p)
            .filter_map(|(_, n)| provinces.get(n.get_ref()).copied())
            .collect();
        list.sort_unstable();
        list.dedup();
        neighbours.push(list);
        for n in &p.sea_routes {
            if let Some(&other) = provinces.get(n.get_ref()) {
                sea_routes.push((index.min(other), index.max(other)));
            }
        }
        let region = p
            .region
            .as_ref()
            .and_then(|r| regions.get(r.get_ref()).copied())
            .unwrap_or_default();
        built.push(Province {
            id: p.id.into_inner(),
            name: p.name,
            region,
            tax: p.tax.into_inner(),
            rice: p.rice.into_inner(),
            spaces: p.spaces.into_inner(),
            out_of_play_with_3: p.out_of_play_with_3,
            x: p.x,
            y: p.y,
            outline: p
                .outline
                .map(|o| o.into_inner().into_iter().map(|[x, y]| (x, y)).collect()),
        });
    }
    sea_routes.sort_unstable();
    sea_routes.dedup();
    Board {
        id: header.id.into_inner(),
        name: header.name,
        side: header.side,
        assumptions: header.assumptions,
        regions: raw
            .region
            .into_iter()
            .map(|r| {
                let r = r.into_inner();
                Region {
                    id: r.id.into_inner(),
                    name: r.name,
                    colour: r.colour.into_inner(),
                }
            })
            .collect(),
        provinces: built,
        neighbours,
        sea_routes,
        cards,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the card set of a map text as a map check does, and compares the findings as
    /// (line, text) pairs.
    fn assert_card_findings(text: &str, expected: &[(u32, &str)]) {
        let raw: RawMap = toml::from_str(text).expect("parses");
        let mut report = Report::new(text);
        let cards = merge_cards(
            raw.cards.expect("cards").into_inner(),
            parse_default_cards().expect("cards.toml parses"),
            &mut report,
        );
        check_cards(&cards, &mut report);
        let found = report.finish();
        let texts: Vec<(u32, &str)> = found.iter().map(|d| (d.line, d.text.as_str())).collect();
        assert_eq!(texts, expected);
    }

    #[test]
    fn the_default_card_file_is_complete_and_consistent() {
        let raw = parse_default_cards().expect("cards.toml parses");
        let mut report = Report::new("");
        let merged = merge_cards(RawCards::default(), raw, &mut report);
        check_cards(&merged, &mut report);
        assert_eq!(report.finish(), Vec::<Diagnostic>::new());
    }

    #[test]
    fn a_card_set_missing_a_section_is_reported_with_the_section_name() {
        let mut without_farmers = parse_default_cards().expect("cards.toml parses");
        without_farmers.farmers = None;
        let mut report = Report::new("");
        merge_cards(RawCards::default(), without_farmers, &mut report);
        let found = report.finish();
        assert_eq!(found.len(), 1);
        assert!(found[0].text.contains("the card set has no `farmers`"));
    }

    #[test]
    fn card_numbers_out_of_range_are_errors() {
        let text = "[map]\nid = \"x\"\nname = \"X\"\nruleset = \"shogun\"\nside = \"x\"\n\
                    [cards]\ntower-shelves = [{ lodge-chance = 1.5, release-chance = 0.1 }]\n\
                    starting-chests = [{ players = 3, chests = 18 }]\n";
        assert_card_findings(
            text,
            &[
                (
                    7,
                    "`tower-shelves`: `lodge-chance` must be at least 0 and below 1",
                ),
                (
                    8,
                    "`starting-chests` must give the chests for 4 players exactly once",
                ),
                (
                    8,
                    "`starting-chests` must give the chests for 5 players exactly once",
                ),
            ],
        );
    }

    #[test]
    fn the_default_card_set_ships_the_open_war_event_deck() {
        let cards = Cards::default_set();
        assert_eq!(cards.event_deck_choices(), ["standard", "open-war"]);
        let deck = cards.event_deck("open-war").expect("open-war");
        assert_eq!(deck.events.len(), cards.events.len());
        assert!(!deck.description.is_empty());
    }

    #[test]
    fn a_bad_event_deck_is_reported_at_its_line() {
        let event = "[[cards.event-deck.event]]\nid = \"e\"\nname = \"event.tax-min\"\n\
                     winter-rice-loss = 1\n";
        let text = format!(
            "[map]\nid = \"x\"\nname = \"X\"\nruleset = \"shogun\"\nside = \"x\"\n\
             [[cards.event-deck]]\nid = \"standard\"\n{event}\
             [[cards.event-deck]]\nid = \"standard\"\n"
        );
        assert_card_findings(
            &text,
            &[
                (
                    7,
                    "event deck id `standard` must be kebab-case and not `standard`",
                ),
                (
                    8,
                    "event deck `standard` has 1 event cards; two years use 8",
                ),
                (
                    12,
                    "event deck `standard` has 0 event cards; two years use 8",
                ),
                (13, "event deck `standard` is listed twice"),
                (
                    13,
                    "event deck id `standard` must be kebab-case and not `standard`",
                ),
            ],
        );
    }
}
