//! The rules as functions over [`State`]: setting up, the geometry of placing a card, the end of
//! a trick and of a round, and the final scoring. [`crate::decide`] turns them into decisions.
//! What happens is reported as typed [`Outcome`]s into a [`Log`]; [`crate::tell`] words them, so
//! no catalogue key of an event is written here.

use std::collections::BTreeSet;

use sdk::{Seat, SetupError, Table, TableExt};

use crate::data::{COLOURS, Colour, Deck, Layout, MAP_CARDS, SQUARES, Terrain};
use crate::outcome::{Log, Outcome, PlacementOutcome};
use crate::state::*;

/// Starts a game: provinces dealt at random with a resource on each production square, a
/// random player order, six cards to each hand, the scoring card if one is drawn.
pub fn new_game(
    deck: Deck,
    settings: Settings,
    seats: u32,
    table: &mut dyn Table,
) -> Result<State, SetupError> {
    if !(2..=5).contains(&seats) {
        return Err(SetupError::SeatCount(format!(
            "Honshu is played by 2 to 5 players, not {seats}"
        )));
    }
    if deck.provinces.len() < seats as usize {
        return Err(SetupError::Map(vec![sdk::Diagnostic::error(
            0,
            0,
            format!("{seats} players need {seats} starting provinces"),
        )]));
    }
    let mut provinces: Vec<usize> = (0..deck.provinces.len()).collect();
    table.shuffle(&mut provinces);
    let mut order: Vec<Seat> = (0..seats).collect();
    table.shuffle(&mut order);
    let mut draw: Vec<u8> = (1..=MAP_CARDS as u8).collect();
    table.shuffle(&mut draw);
    let scoring_card = match settings.scoring_card {
        ScoringCardRule::None => None,
        ScoringCardRule::Fixed(card) => Some(card),
        ScoringCardRule::Random => Some(SCORING_CARDS[table.pick_index(SCORING_CARDS.len())].1),
    };
    let mut state = State {
        seats,
        deck,
        settings,
        scoring_card,
        round: 1,
        order,
        draw,
        discard: Vec::new(),
        pool: [RESOURCES_PER_COLOUR; 4],
        players: Vec::new(),
        phase: Phase::Place,
        scores: Vec::new(),
    };
    for seat in 0..seats {
        let province = provinces[seat as usize];
        state.players.push(Player {
            province,
            hand: Vec::new(),
            map: PersonalMap::default(),
            passed: Vec::new(),
            to_place: None,
            draft: Draft::default(),
        });
        let layout = *state.layout_of(seat, PROVINCE_CARD);
        let player = &mut state.players[seat as usize];
        place_unchecked(
            &mut player.map,
            &mut state.pool,
            PROVINCE_CARD,
            &layout,
            (0, 0),
            0,
            Layer::Over,
        );
    }
    deal_hands(&mut state);
    start_trick(&mut state);
    Ok(state)
}

/// Deals six cards from the draw pile to each seat, in seat order.
fn deal_hands(state: &mut State) {
    for player in &mut state.players {
        for _ in 0..HAND_SIZE {
            if let Some(card) = state.draw.pop() {
                player.hand.push(card);
            }
        }
        player.hand.sort_unstable();
        player.passed.clear();
    }
}

/// Opens the trick phase of the current round.
fn start_trick(state: &mut State) {
    state.phase = if state.seats == 2 {
        let first = state
            .draw
            .pop()
            .expect("24 cards are revealed of the 36 left with 2 players");
        let second = state.draw.pop().expect("see above");
        Phase::Duel {
            revealed: [first, second],
            committed: [None, None],
        }
    } else {
        Phase::Trick {
            plays: Vec::new(),
            choosing_resource: false,
        }
    };
}

/// The square of a card's square `index` on the map, for a card with its top-left corner at
/// `origin` turned `rotation` quarter turns clockwise.
pub fn square_of(origin: Square, rotation: u8, index: usize) -> Square {
    let (column, row) = ((index % 2) as i32, (index / 2) as i32);
    let (dx, dy) = match rotation % 4 {
        0 => (column, row),
        1 => (2 - row, column),
        2 => (1 - column, 2 - row),
        _ => (row, 1 - column),
    };
    (origin.0 + dx, origin.1 + dy)
}

/// The squares a card covers, by square index.
pub fn footprint(origin: Square, rotation: u8) -> [Square; SQUARES] {
    std::array::from_fn(|i| square_of(origin, rotation, i))
}

/// How many squares of the map a card at `origin` turned `rotation` lies on, and how many of
/// them hold a resource: what placing it over covers, what placing it under leaves visible.
pub fn overlap(map: &PersonalMap, origin: Square, rotation: u8) -> (usize, usize) {
    let cells: Vec<_> = footprint(origin, rotation)
        .iter()
        .filter_map(|s| map.cells.get(s))
        .collect();
    let resources = cells.iter().filter(|c| c.resource.is_some()).count();
    (cells.len(), resources)
}

/// Why a placement breaks the rules: its catalogue key under `illegal.`.
pub fn placement_problem(
    map: &PersonalMap,
    layout: &Layout,
    origin: Square,
    rotation: u8,
    layer: Layer,
) -> Option<&'static str> {
    let squares = footprint(origin, rotation);
    let overlapping = squares.iter().filter(|s| map.cells.contains_key(s)).count();
    if overlapping == 0 {
        return Some("not-touching");
    }
    match layer {
        Layer::Over => {
            let covers_lake = squares
                .iter()
                .any(|s| map.cells.get(s).is_some_and(|c| c.terrain == Terrain::Lake));
            covers_lake.then_some("covers-lake")
        }
        Layer::Under => {
            if overlapping == SQUARES {
                return Some("all-hidden");
            }
            let hides_lake = squares
                .iter()
                .zip(layout)
                .any(|(s, t)| *t == Terrain::Lake && map.cells.contains_key(s));
            hides_lake.then_some("hides-lake")
        }
    }
}

/// The layers in which a card may go at `origin` turned `rotation`.
pub fn legal_layers(
    map: &PersonalMap,
    layout: &Layout,
    origin: Square,
    rotation: u8,
) -> Vec<Layer> {
    [Layer::Over, Layer::Under]
        .into_iter()
        .filter(|&layer| placement_problem(map, layout, origin, rotation, layer).is_none())
        .collect()
}

/// A square of [`Grid`] holds a visible square of the map.
const OCCUPIED: u8 = 1;
/// A square of [`Grid`] holds a visible lake.
const LAKE: u8 = 2;
/// A square of [`Grid`] holds a resource.
const RESOURCE: u8 = 4;

/// The map as a dense array over its bounds, for the questions asked of every corner at once
/// (where a card may go, how much it would cover): the same answers as [`placement_problem`]
/// and [`overlap`], without a tree lookup per square.
pub struct Grid {
    min_x: i32,
    min_y: i32,
    max_x: i32,
    max_y: i32,
    width: usize,
    flags: Vec<u8>,
}

impl Grid {
    /// The grid of a map; `None` for an empty map.
    pub fn new(map: &PersonalMap) -> Option<Grid> {
        let (min_x, max_x, min_y, max_y) = bounds(map)?;
        let width = (max_x - min_x + 1) as usize;
        let height = (max_y - min_y + 1) as usize;
        let mut flags = vec![0u8; width * height];
        for (&(x, y), cell) in &map.cells {
            let mut flag = OCCUPIED;
            if cell.terrain == Terrain::Lake {
                flag |= LAKE;
            }
            if cell.resource.is_some() {
                flag |= RESOURCE;
            }
            flags[(y - min_y) as usize * width + (x - min_x) as usize] = flag;
        }
        Some(Grid {
            min_x,
            min_y,
            max_x,
            max_y,
            width,
            flags,
        })
    }

    /// The flags of a square; 0 off the map.
    fn at(&self, (x, y): Square) -> u8 {
        if x < self.min_x || x > self.max_x || y < self.min_y || y > self.max_y {
            return 0;
        }
        self.flags[(y - self.min_y) as usize * self.width + (x - self.min_x) as usize]
    }

    /// Whether the card may go at `origin` turned `rotation` over the map, and whether under it
    /// (the answers of [`placement_problem`]).
    pub fn layers(&self, layout: &Layout, origin: Square, rotation: u8) -> (bool, bool) {
        let mut overlapping = 0;
        let mut covers_lake = false;
        let mut hides_lake = false;
        for (index, square) in footprint(origin, rotation).into_iter().enumerate() {
            let flag = self.at(square);
            if flag & OCCUPIED != 0 {
                overlapping += 1;
                covers_lake |= flag & LAKE != 0;
                hides_lake |= layout[index] == Terrain::Lake;
            }
        }
        if overlapping == 0 {
            return (false, false);
        }
        (!covers_lake, overlapping < SQUARES && !hides_lake)
    }

    /// Whether the card fits at `origin` turned `rotation` in some layer.
    pub fn fits(&self, layout: &Layout, origin: Square, rotation: u8) -> bool {
        let (over, under) = self.layers(layout, origin, rotation);
        over || under
    }

    /// The answer of [`overlap`]: squares of the map under the card, and resources on them.
    pub fn overlap(&self, origin: Square, rotation: u8) -> (usize, usize) {
        let mut squares = 0;
        let mut resources = 0;
        for square in footprint(origin, rotation) {
            let flag = self.at(square);
            squares += usize::from(flag & OCCUPIED != 0);
            resources += usize::from(flag & RESOURCE != 0);
        }
        (squares, resources)
    }

    /// Every top-left corner the card, turned `rotation`, could take while touching the map, in
    /// row-then-column order.
    fn corners(&self, rotation: u8) -> impl Iterator<Item = Square> + use<> {
        let (width, height) = if rotation.is_multiple_of(2) {
            (2, 3)
        } else {
            (3, 2)
        };
        let (min_x, max_x) = (self.min_x, self.max_x);
        ((self.min_y - height + 1)..=self.max_y)
            .flat_map(move |y| ((min_x - width + 1)..=max_x).map(move |x| (x, y)))
    }

    /// [`legal_origins`] on this grid.
    pub fn legal_origins(&self, layout: &Layout, rotation: u8) -> Vec<Square> {
        self.corners(rotation)
            .filter(|&origin| self.fits(layout, origin, rotation))
            .collect()
    }

    /// Whether the card, turned `rotation`, fits anywhere: the first legal corner is enough.
    pub fn has_legal_origin(&self, layout: &Layout, rotation: u8) -> bool {
        self.corners(rotation)
            .any(|origin| self.fits(layout, origin, rotation))
    }

    /// [`legal_rotations`] on this grid.
    pub fn legal_rotations(&self, layout: &Layout) -> Vec<u8> {
        (0..4)
            .filter(|&r| self.has_legal_origin(layout, r))
            .collect()
    }
}

/// Every top-left corner at which the card, turned `rotation`, may go in some layer, in
/// row-then-column order.
pub fn legal_origins(map: &PersonalMap, layout: &Layout, rotation: u8) -> Vec<Square> {
    Grid::new(map).map_or_else(Vec::new, |grid| grid.legal_origins(layout, rotation))
}

/// The rotations in which the card can go somewhere.
pub fn legal_rotations(map: &PersonalMap, layout: &Layout) -> Vec<u8> {
    Grid::new(map).map_or_else(Vec::new, |grid| grid.legal_rotations(layout))
}

/// The smallest and largest column and row of the map.
pub fn bounds(map: &PersonalMap) -> Option<(i32, i32, i32, i32)> {
    let mut squares = map.cells.keys();
    let first = squares.next()?;
    Some(
        squares.fold((first.0, first.0, first.1, first.1), |(a, b, c, d), s| {
            (a.min(s.0), b.max(s.0), c.min(s.1), d.max(s.1))
        }),
    )
}

/// Lays a card without checking the rules: the new visible production squares get a resource
/// from the pool, covered resources go back to it.
pub fn place_unchecked(
    map: &mut PersonalMap,
    pool: &mut [u8; 4],
    card: u8,
    layout: &Layout,
    origin: Square,
    rotation: u8,
    layer: Layer,
) -> PlacementOutcome {
    let mut outcome = PlacementOutcome::default();
    for (index, square) in footprint(origin, rotation).into_iter().enumerate() {
        let existing = map.cells.get(&square).copied();
        if existing.is_some() && layer == Layer::Under {
            continue;
        }
        if let Some(colour) = existing.and_then(|c| c.resource) {
            pool[colour.index()] += 1;
            outcome.discarded.push(colour);
        }
        let terrain = layout[index];
        let resource = match terrain {
            Terrain::Production(colour) if pool[colour.index()] > 0 => {
                pool[colour.index()] -= 1;
                outcome.gained.push(colour);
                Some(colour)
            }
            Terrain::Production(colour) => {
                outcome.short.push(colour);
                None
            }
            _ => None,
        };
        map.cells.insert(
            square,
            Cell {
                terrain,
                card,
                resource,
            },
        );
    }
    map.placed.push(Placed {
        card,
        origin,
        rotation,
        layer,
    });
    outcome
}

/// Enters the map phase; a seat whose card fits nowhere (possible only with a deck whose
/// cards are all lake corners) loses it to the discard.
pub fn start_map_phase(state: &mut State, log: &mut Log) {
    state.phase = Phase::Place;
    for seat in 0..state.seats {
        let Some(card) = state.players[seat as usize].to_place else {
            continue;
        };
        let layout = *state.deck.card(card);
        if legal_rotations(&state.players[seat as usize].map, &layout).is_empty() {
            state.players[seat as usize].to_place = None;
            state.discard.push(card);
            log.push(&(), Outcome::Unplaceable { seat, card });
        }
    }
    finish_map_phase_if_done(state, log);
}

/// Once every seat has placed, ends the round: passes or deals hands, then opens the next
/// trick, or scores after the twelfth round.
pub fn finish_map_phase_if_done(state: &mut State, log: &mut Log) {
    if state.players.iter().any(|p| p.to_place.is_some()) {
        return;
    }
    if state.round == ROUNDS {
        score_game(state, log);
        return;
    }
    match state.round {
        3 => pass_hands(state, 1, log),
        9 => pass_hands(state, state.seats - 1, log),
        6 => {
            deal_hands(state);
            log.push(&(), Outcome::NewHands);
        }
        _ => {}
    }
    state.round += 1;
    log.push(&(), Outcome::Round { round: state.round });
    start_trick(state);
}

/// Hands every hand to the seat `step` places on (1: to the left, seats - 1: to the right).
fn pass_hands(state: &mut State, step: u32, log: &mut Log) {
    let hands: Vec<Vec<u8>> = state
        .players
        .iter_mut()
        .map(|p| std::mem::take(&mut p.hand))
        .collect();
    for (from, hand) in hands.into_iter().enumerate() {
        let to = (from as u32 + step) % state.seats;
        state.players[from].passed = hand.clone();
        let receiver = &mut state.players[to as usize];
        receiver.hand = hand;
        receiver.hand.sort_unstable();
    }
    log.push(&(), Outcome::HandsPassed { step });
}

/// A card left a seat's hand: it is no longer one its neighbour knows about.
pub fn forget_passed(state: &mut State, card: u8) {
    for player in &mut state.players {
        player.passed.retain(|&c| c != card);
    }
}

/// The new player order of a trick of 3-5: highest value first.
pub fn order_from_trick(plays: &[Play]) -> Vec<Seat> {
    let mut ranked: Vec<&Play> = plays.iter().collect();
    ranked.sort_by_key(|p| std::cmp::Reverse(p.value()));
    ranked.into_iter().map(|p| p.seat).collect()
}

/// Orthogonally connected groups of visible squares of one terrain.
pub fn districts(map: &PersonalMap, terrain: Terrain) -> Vec<usize> {
    let mut seen: BTreeSet<Square> = BTreeSet::new();
    let mut sizes = Vec::new();
    for (&start, cell) in &map.cells {
        if cell.terrain != terrain || !seen.insert(start) {
            continue;
        }
        let mut stack = vec![start];
        let mut size = 0;
        while let Some((x, y)) = stack.pop() {
            size += 1;
            for next in [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)] {
                if map.cells.get(&next).is_some_and(|c| c.terrain == terrain) && seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        sizes.push(size);
    }
    sizes
}

fn count(map: &PersonalMap, terrain: Terrain) -> i64 {
    map.cells.values().filter(|c| c.terrain == terrain).count() as i64
}

fn is(map: &PersonalMap, square: Square, terrain: Terrain) -> bool {
    map.cells.get(&square).is_some_and(|c| c.terrain == terrain)
}

/// The final score of one map.
pub fn score_map(map: &PersonalMap, points: &Points, card: Option<ScoringCard>) -> ScoreSheet {
    let mut sheet = ScoreSheet {
        forests: count(map, Terrain::Forest) * points.forest,
        town: districts(map, Terrain::Town).into_iter().max().unwrap_or(0) as i64 * points.town,
        fallow: count(map, Terrain::Fallow),
        ..ScoreSheet::default()
    };
    sheet.lakes = if card == Some(ScoringCard::LakeSquares) {
        count(map, Terrain::Lake) * points.lake_square
    } else {
        districts(map, Terrain::Lake)
            .into_iter()
            .map(|size| (size as i64 - 1) * points.lake)
            .sum()
    };
    let capacity = if card == Some(ScoringCard::DoubleDelivery) {
        2
    } else {
        1
    };
    let resources = map.resources();
    let mut delivered = [0i64; 4];
    for colour in COLOURS {
        let factories = count(map, Terrain::Factory(colour));
        delivered[colour.index()] = i64::from(resources[colour.index()]).min(factories * capacity);
        sheet.factories += delivered[colour.index()] * points.factory[colour.index()];
    }
    sheet.scoring_card = match card {
        None | Some(ScoringCard::DoubleDelivery) | Some(ScoringCard::LakeSquares) => 0,
        Some(ScoringCard::ForestLines) => forest_lines(map) * points.forest_line,
        Some(ScoringCard::FallowBlocks) => {
            map.cells
                .keys()
                .filter(|&&(x, y)| {
                    [(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)]
                        .iter()
                        .all(|&s| is(map, s, Terrain::Fallow))
                })
                .count() as i64
                * points.fallow_block
        }
        Some(ScoringCard::TownCentres) => {
            map.cells
                .iter()
                .filter(|&(&(x, y), c)| {
                    c.terrain == Terrain::Town
                        && [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
                            .iter()
                            .all(|&s| is(map, s, Terrain::Town))
                })
                .count() as i64
                * points.town_centre
        }
        Some(ScoringCard::EmptyProduction) => {
            map.cells
                .values()
                .filter(|c| matches!(c.terrain, Terrain::Production(_)) && c.resource.is_none())
                .count() as i64
                * points.empty_production
        }
        Some(ScoringCard::BlueYellow) => {
            (delivered[Colour::Blue.index()] + delivered[Colour::Yellow.index()])
                * points.blue_yellow
        }
        Some(ScoringCard::GreyBrown) => {
            (delivered[Colour::Grey.index()] + delivered[Colour::Brown.index()]) * points.grey_brown
        }
    };
    sheet.total = sheet.forests + sheet.town + sheet.lakes + sheet.factories + sheet.scoring_card;
    sheet
}

/// Runs of three forests in a row or column: each maximal run of length n counts n / 3 times.
fn forest_lines(map: &PersonalMap) -> i64 {
    let mut lines = 0;
    for (&(x, y), cell) in &map.cells {
        if cell.terrain != Terrain::Forest {
            continue;
        }
        for (dx, dy) in [(1, 0), (0, 1)] {
            if is(map, (x - dx, y - dy), Terrain::Forest) {
                continue; // not the start of a run
            }
            let mut length = 0;
            while is(map, (x + dx * length, y + dy * length), Terrain::Forest) {
                length += 1;
            }
            lines += i64::from(length / 3);
        }
    }
    lines
}

/// Scores every map and ends the game.
fn score_game(state: &mut State, log: &mut Log) {
    state.scores = state
        .players
        .iter()
        .map(|p| score_map(&p.map, &state.settings.points, state.scoring_card))
        .collect();
    log.push(
        &(),
        Outcome::Scored {
            sheets: state.scores.clone(),
        },
    );
    state.phase = Phase::Over;
}
