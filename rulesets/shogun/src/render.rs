//! The board as SVG, in parts a client lays out for its screen: the map (provinces as regions of
//! land with their borders, coast and sea routes), one panel per seat (the viewer's own first),
//! and the table's parts (the calendar with this year's events, the action cards, the special
//! cards, the viewer's planning board and hand, the draft, the result, the legend). Each part is
//! a document with its own `viewBox`, sized to its content.
//!
//! Sizes: the map is drawn at most 1000 x 720 units and the web UI shows it about 826 px wide on a
//! 1280x800 laptop screen (its column beside a 400 px side column), so no text of it is smaller
//! than [`MAP_MIN_FONT`] units (11.6 px there); other parts are narrow enough to be shown at
//! [`MIN_FONT`] units near their own size.
//!
//! The documents show only what their viewer may know (the same secrets as [`crate::view`]):
//! other seats' plans and bids before they are revealed, face-down action cards, the order of the
//! event and draft decks and the tower's contents never appear. The elements that answer the
//! viewer's pending decision carry `data-choice`, `data-item` and `data-slot` (see the contract),
//! and every text carries its catalogue key so the client can translate it.

pub mod shapes;
mod svg;

use std::fmt::Write as _;

use sdk::{Catalogue, DecisionKind, Message, PendingDecision, Seat, Viewer};

use crate::data::{ActionKind, ProvinceId};
use crate::state::{CardRef, Draft, Phase, Stage, State};
use sdk::svg::escape;
use svg::{Icon, Svg, icon, num, seat_symbol};

/// The smallest font size of any text, in the units of its part.
pub const MIN_FONT: f32 = 13.0;
/// The smallest font size of any text of the map, in its units: the map is scaled down to fit.
pub const MAP_MIN_FONT: f32 = 14.0;
/// The map's drawing area (province positions are scaled into it) and the margin around it.
const MAP_AREA_W: f32 = 860.0;
const MAP_AREA_H: f32 = 600.0;
const MAP_MARGIN: f32 = 50.0;
/// How far a province's land reaches at least and at most from its position, and the width of a
/// strait between provinces joined by sea.
const LAND_MIN: f32 = 42.0;
const LAND_MAX: f32 = 72.0;
const STRAIT: f32 = 22.0;
/// The width of the water between touching provinces that do not border each other.
const NO_BORDER: f32 = 14.0;

/// The seats' default colours (the Okabe-Ito palette the web client uses too), so the document
/// looks right on its own.
const SEAT_COLOURS: [&str; 8] = [
    "#d55e00", "#0072b2", "#009e73", "#e69f00", "#cc79a7", "#56b4e9", "#f0e442", "#000000",
];

const INK: &str = "#1d1d1f";
const PAPER: &str = "#fffdf8";
const LINE: &str = "#7a6a55";
const SEA: &str = "#c9dde6";
const COAST: &str = "#4f7383";
const CHOICE: &str = "#1a56db";

/// Where a part belongs (the contract's part kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The map.
    Map,
    /// One seat's panel.
    Seat(Seat),
    /// Anything else on the table.
    Table,
}

/// One part of the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// A stable id: `map`, `seat-2`, `actions`, ...
    pub id: String,
    /// Where it belongs.
    pub kind: Kind,
    /// Its heading, if any.
    pub title: Option<Message>,
    /// The SVG document.
    pub svg: String,
}

fn part(id: &str, kind: Kind, title: Option<&str>, svg: String) -> Part {
    Part {
        id: id.into(),
        kind,
        title: title.map(Message::new),
        svg,
    }
}

/// The English catalogue, for the documents' fallback texts: parsed once per instance, not
/// once per drawing (parsing it was most of a render's time).
fn english() -> &'static Catalogue {
    crate::CATALOGUES.english()
}

/// The board as `viewer` sees it, as the contract's parts.
pub fn board_parts(state: &State, viewer: Viewer) -> Vec<sdk::BoardPart> {
    parts(state, viewer)
        .into_iter()
        .map(|part| sdk::BoardPart {
            id: part.id,
            kind: match part.kind {
                Kind::Map => sdk::PartKind::Map,
                Kind::Seat(seat) => sdk::PartKind::Seat(seat),
                Kind::Table => sdk::PartKind::Table,
            },
            title: part.title,
            svg: part.svg,
        })
        .collect()
}

/// The board as `viewer` sees it, in parts: the map first, then the seats (the viewer's own
/// first), then the table's parts.
pub fn parts(state: &State, viewer: Viewer) -> Vec<Part> {
    let decision = match viewer {
        Viewer::Seat(seat) => crate::decide::pending(state)
            .into_iter()
            .find(|d| d.seat == seat),
        Viewer::Spectator => None,
    };
    let choices = Choices::of(decision.as_ref());
    let mut out = vec![part("map", Kind::Map, None, map(state, viewer, &choices))];
    let mut seats: Vec<Seat> = (0..state.seats).collect();
    if let Viewer::Seat(own) = viewer {
        seats.retain(|&s| s != own);
        seats.insert(0, own);
    }
    for seat in seats {
        out.push(part(
            &format!("seat-{seat}"),
            Kind::Seat(seat),
            None,
            seat_panel(state, seat, viewer),
        ));
    }
    if let Some(result) = crate::view::result(state) {
        out.push(part(
            "result",
            Kind::Table,
            Some("render.final-result"),
            final_result(&result),
        ));
    }
    out.push(part(
        "calendar",
        Kind::Table,
        Some("render.events"),
        calendar(state, decision.as_ref()),
    ));
    match (&state.draft, viewer) {
        (Some(draft), _) if state.phase == Phase::Draft => out.push(part(
            "draft",
            Kind::Table,
            Some("render.draft"),
            draft_area(state, draft, viewer, &choices),
        )),
        (_, Viewer::Seat(seat))
            if matches!(
                state.phase,
                Phase::Planning | Phase::Specials { .. } | Phase::Actions { .. }
            ) =>
        {
            out.push(part(
                "planning",
                Kind::Table,
                Some("render.planning-board"),
                planning_board(state, seat, decision.as_ref()),
            ))
        }
        _ => {}
    }
    out.push(part(
        "actions",
        Kind::Table,
        Some("render.action-row"),
        action_row(state),
    ));
    out.push(part(
        "specials",
        Kind::Table,
        Some("render.specials"),
        specials(state, &choices),
    ));
    out.push(part("legend", Kind::Table, None, legend()));
    out
}

/// The whole board as one document: the parts stacked, the map on top (for a single picture,
/// such as a map's preview).
pub fn render(state: &State, viewer: Viewer) -> String {
    let parts = parts(state, viewer);
    let sizes: Vec<(f32, f32)> = parts.iter().map(|p| view_box(&p.svg)).collect();
    let width = sizes.iter().map(|s| s.0).fold(0.0, f32::max);
    let height: f32 = sizes.iter().map(|s| s.1 + 10.0).sum();
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif">"#,
        w = num(width),
        h = num(height)
    );
    let mut y = 0.0;
    for (part, (w, h)) in parts.iter().zip(sizes) {
        let inner = part
            .svg
            .replacen("<svg ", &format!(r#"<svg x="0" y="{}" "#, num(y)), 1);
        out.push_str(&inner);
        let _ = w;
        y += h + 10.0;
    }
    out.push_str("</svg>");
    out
}

/// The width and height of a part's `viewBox`.
pub fn view_box(svg: &str) -> (f32, f32) {
    let Some(start) = svg.find(r#"viewBox=""#) else {
        return (0.0, 0.0);
    };
    let rest = &svg[start + 9..];
    let numbers: Vec<f32> = rest
        .split('"')
        .next()
        .unwrap_or("")
        .split(' ')
        .filter_map(|n| n.parse().ok())
        .collect();
    match numbers[..] {
        [_, _, w, h] => (w, h),
        _ => (0.0, 0.0),
    }
}

/// The choices of the viewer's pending `choose` decision, by id.
struct Choices {
    ids: Vec<String>,
}

impl Choices {
    fn of(decision: Option<&PendingDecision>) -> Choices {
        let ids = match decision.map(|d| &d.kind) {
            Some(DecisionKind::Choose(choose)) => {
                choose.choices.iter().map(|c| c.id.clone()).collect()
            }
            _ => Vec::new(),
        };
        Choices { ids }
    }

    /// The ` data-choice="i"` attribute for the choice with this id, or nothing.
    fn attr(&self, id: &str) -> String {
        match self.ids.iter().position(|c| c == id) {
            Some(index) => format!(r#" data-choice="{index}""#),
            None => String::new(),
        }
    }
}

/// A new part: its style, its patterns and its background.
fn begin(width: f32, height: f32, background: &str) -> Svg {
    let mut doc = Svg::new(width, height, english());
    let mut css = String::new();
    for (seat, colour) in SEAT_COLOURS.iter().enumerate() {
        let _ = write!(
            css,
            ".seat-{seat}{{fill:{colour}}}.seat-stroke-{seat}{{stroke:{colour}}}"
        );
    }
    css.push_str(".title{font-weight:700;font-size:16px}.label{font-size:13px;fill:#4a4033}.halo{paint-order:stroke;stroke:#fffdf8;stroke-width:3px;stroke-linejoin:round}");
    doc.raw(&format!("<style>{css}</style>"));
    doc.raw(&format!(
        r##"<defs><marker id="shogun-arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 Z" fill="{INK}"/></marker><pattern id="shogun-card-back" width="12" height="12" patternUnits="userSpaceOnUse"><rect width="12" height="12" fill="#2b3a55"/><path d="M0,6 L6,0 L12,6 L6,12 Z" fill="none" stroke="#4a5d82" stroke-width="1"/></pattern><pattern id="shogun-out-of-play" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#dcd6c8"/><path d="M0,8 L8,0" stroke="#b3ab98" stroke-width="1.5"/></pattern></defs>"##
    ));
    doc.raw(&format!(
        r#"<rect width="{}" height="{}" fill="{background}"/>"#,
        num(width.ceil()),
        num(height.ceil())
    ));
    doc
}

/// A region colour mixed with white, for the province fills.
fn lighten(colour: &str, amount: f32) -> String {
    let hex = colour.trim_start_matches('#');
    if hex.len() != 6 {
        return "#dddddd".into();
    }
    let channel = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(200) as f32;
    let mix = |c: f32| (c + (255.0 - c) * amount).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(channel(0)),
        mix(channel(2)),
        mix(channel(4))
    )
}

// ---------------------------------------------------------------------------------------------
// The map

/// How map coordinates become drawing coordinates, and the drawing's size.
struct Frame {
    scale: f32,
    dx: f32,
    dy: f32,
    width: f32,
    height: f32,
}

/// Scales the provinces' positions into the map's drawing area, so a map of any coordinate range
/// is drawn about 1000 units wide.
fn frame(state: &State) -> Frame {
    let finite = |v: f32| if v.is_finite() { Some(v) } else { None };
    let xs: Vec<f32> = state
        .board
        .provinces
        .iter()
        .filter_map(|p| finite(p.x))
        .collect();
    let ys: Vec<f32> = state
        .board
        .provinces
        .iter()
        .filter_map(|p| finite(p.y))
        .collect();
    let (min_x, max_x) = (
        xs.iter().copied().fold(f32::MAX, f32::min),
        xs.iter().copied().fold(f32::MIN, f32::max),
    );
    let (min_y, max_y) = (
        ys.iter().copied().fold(f32::MAX, f32::min),
        ys.iter().copied().fold(f32::MIN, f32::max),
    );
    if xs.is_empty() || ys.is_empty() {
        return Frame {
            scale: 1.0,
            dx: MAP_MARGIN,
            dy: MAP_MARGIN,
            width: MAP_AREA_W + 2.0 * MAP_MARGIN,
            height: MAP_AREA_H + 2.0 * MAP_MARGIN,
        };
    }
    let (span_x, span_y) = ((max_x - min_x).max(1.0), (max_y - min_y).max(1.0));
    let scale = (MAP_AREA_W / span_x).min(MAP_AREA_H / span_y);
    Frame {
        scale,
        dx: MAP_MARGIN - min_x * scale,
        dy: MAP_MARGIN - min_y * scale,
        width: span_x * scale + 2.0 * MAP_MARGIN,
        height: span_y * scale + 2.0 * MAP_MARGIN,
    }
}

/// Where a province is drawn.
fn at(frame: &Frame, state: &State, p: ProvinceId) -> (f32, f32) {
    let province = &state.board.provinces[p];
    let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
    (
        finite(province.x) * frame.scale + frame.dx,
        finite(province.y) * frame.scale + frame.dy,
    )
}

/// The shape of every province in drawing coordinates: its own outline from the map file when it
/// has one, otherwise generated from the positions (see [`shapes`]).
fn province_shapes(state: &State, frame: &Frame) -> Vec<Vec<shapes::Point>> {
    let board = &state.board;
    let points: Vec<shapes::Point> = (0..board.provinces.len())
        .map(|p| at(frame, state, p))
        .collect();
    let neighbours: Vec<Vec<usize>> = (0..board.provinces.len())
        .map(|p| {
            board
                .neighbours(p)
                .iter()
                .copied()
                .filter(|&q| !board.is_sea_route(p, q))
                .collect()
        })
        .collect();
    let radii = shapes::land_radii(&points, &neighbours, LAND_MIN, LAND_MAX);
    let gap = |a: usize, b: usize| {
        if board.is_sea_route(a, b) {
            STRAIT
        } else if board.neighbours(a).contains(&b) {
            0.0
        } else {
            NO_BORDER
        }
    };
    let cells = shapes::cells(&shapes::Sites {
        points: &points,
        radii: &radii,
        gap: &gap,
    });
    let mut cells = cells;
    for (p, cell) in cells.iter_mut().enumerate() {
        if let Some(outline) = &board.provinces[p].outline {
            *cell = outline
                .iter()
                .map(|&(x, y)| (x * frame.scale + frame.dx, y * frame.scale + frame.dy))
                .collect();
        }
    }
    cells
}

fn path(polygon: &[shapes::Point]) -> String {
    let mut d = String::new();
    for (i, (x, y)) in polygon.iter().enumerate() {
        let _ = write!(
            d,
            "{}{},{}",
            if i == 0 { "M" } else { "L" },
            num(*x),
            num(*y)
        );
    }
    d.push('Z');
    d
}

/// The province an ongoing action or winter revolt is about: (from, to).
fn focus(state: &State) -> (Option<ProvinceId>, Option<ProvinceId>) {
    match &state.phase {
        Phase::Actions {
            stage: Stage::MoveTarget { from } | Stage::BattleTarget { from },
            ..
        } => (Some(*from), None),
        Phase::Actions {
            stage: Stage::MoveCount { from, to } | Stage::BattleCount { from, to },
            ..
        } => (Some(*from), Some(*to)),
        Phase::Actions {
            stage: Stage::RecruitBonus { province },
            ..
        } => (Some(*province), None),
        Phase::Actions {
            stage: Stage::AttackBonus { battle } | Stage::DefenceBonus { battle },
            ..
        } => (Some(battle.from), Some(battle.to)),
        _ => (None, None),
    }
}

/// The choice id that picks province `p` in the viewer's decision: a target, a revolt, or in the
/// draft the face-up card showing it.
fn province_choice(state: &State, p: ProvinceId, choices: &Choices) -> String {
    let direct = choices.attr(&format!("province:{}", state.board.provinces[p].id));
    if !direct.is_empty() {
        return direct;
    }
    match (&state.draft, &state.phase) {
        (Some(draft), Phase::Draft) => draft
            .face_up
            .iter()
            .position(|&q| q == p)
            .map(|i| choices.attr(&format!("face-up:{i}")))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// How far a province's drawing reaches from its position, besides its shape: the army badge
/// and the revolt marker to the left and right, the name above, the tax and rice row below.
const DRAWN_LEFT: f32 = 34.0;
const DRAWN_RIGHT: f32 = 46.0;
const DRAWN_UP: f32 = 28.0;
const DRAWN_DOWN: f32 = 30.0;
/// Sea left around the outermost drawing, so the coast of the outermost provinces shows.
const EDGE_SEA: f32 = 12.0;

/// Widens the frame so that everything drawn fits in it: the shapes (a generated shape reaches
/// up to [`LAND_MAX`] from its position, an outline anywhere), their coast and every province's
/// name and figures. Scaling the positions into the drawing area alone cut the outermost
/// provinces (Mutsu, Iwami, Tosa, Iyo) at the edges. Shifts `cells`, drawn in the old frame,
/// with it.
fn fit_drawing(state: &State, frame: &mut Frame, cells: &mut [Vec<shapes::Point>]) {
    let mut bounds = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    let mut include = |(x0, y0, x1, y1): (f32, f32, f32, f32)| {
        bounds = (
            bounds.0.min(x0),
            bounds.1.min(y0),
            bounds.2.max(x1),
            bounds.3.max(y1),
        );
    };
    for cell in cells.iter() {
        for &(x, y) in cell {
            include((x, y, x, y));
        }
    }
    for p in 0..state.board.provinces.len() {
        let (x, y) = at(frame, state, p);
        let name = state.board.provinces[p].name.chars().count() as f32;
        // The name is centred, 14 units, bold: about 0.62 of its size per character.
        let half_name = name * 0.62 * 14.0 / 2.0;
        include((
            x - DRAWN_LEFT.max(half_name),
            y - DRAWN_UP,
            x + DRAWN_RIGHT.max(half_name),
            y + DRAWN_DOWN,
        ));
    }
    if bounds.0 > bounds.2 {
        return;
    }
    // The coast is a 5-unit stroke around the shapes.
    let (shift_x, shift_y) = (
        (EDGE_SEA - bounds.0).max(0.0),
        (EDGE_SEA - bounds.1).max(0.0),
    );
    frame.dx += shift_x;
    frame.dy += shift_y;
    frame.width = (frame.width + shift_x).max(bounds.2 + shift_x + EDGE_SEA);
    frame.height = (frame.height + shift_y).max(bounds.3 + shift_y + EDGE_SEA);
    for cell in cells.iter_mut() {
        for point in cell.iter_mut() {
            point.0 += shift_x;
            point.1 += shift_y;
        }
    }
}

fn map(state: &State, viewer: Viewer, choices: &Choices) -> String {
    let mut frame = frame(state);
    let mut cells = province_shapes(state, &frame);
    fit_drawing(state, &mut frame, &mut cells);
    let mut doc = begin(frame.width, frame.height, SEA);
    let board = &state.board;
    let region_colour = |p: ProvinceId| {
        board
            .regions
            .get(board.provinces[p].region)
            .map(|r| r.colour.as_str())
            .unwrap_or("#999999")
    };
    // The coast: every shape's thick outline under all the fills, so it shows only towards the sea.
    let mut coast = format!(
        r#"<g id="coast" fill="{COAST}" stroke="{COAST}" stroke-width="5" stroke-linejoin="round">"#
    );
    for cell in cells.iter().filter(|c| c.len() >= 3) {
        let _ = write!(coast, r#"<path d="{}"/>"#, path(cell));
    }
    coast.push_str("</g>");
    doc.raw(&coast);
    // The land, province by province, in its region's colour; borders are the shapes' edges.
    for (p, cell) in cells.iter().enumerate() {
        if cell.len() < 3 {
            continue;
        }
        let fill = if state.in_play(p) {
            lighten(region_colour(p), 0.55)
        } else {
            "url(#shogun-out-of-play)".to_string()
        };
        doc.raw(&format!(
            r##"<path id="land-{}" d="{}" fill="{fill}" stroke="#8a7d68" stroke-width="1.2" stroke-linejoin="round"/>"##,
            escape(&board.provinces[p].id),
            path(cell)
        ));
    }
    let points: Vec<shapes::Point> = (0..board.provinces.len())
        .map(|p| at(&frame, state, p))
        .collect();
    // Each shape's bounding box, so that a point is tested against the few shapes it may be in:
    // testing every shape cost about a fifth of a whole render.
    let bounds: Vec<(f32, f32, f32, f32)> = cells
        .iter()
        .map(|cell| {
            cell.iter().fold(
                (f32::MAX, f32::MAX, f32::MIN, f32::MIN),
                |(x0, y0, x1, y1), &(x, y)| (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
            )
        })
        .collect();
    // Sea routes: dashed curves over the water between the two provinces.
    for (a, b) in board.edges() {
        if !board.is_sea_route(a, b) {
            continue;
        }
        let ((ax, ay), (bx, by)) = (points[a], points[b]);
        let (mx, my) = ((ax + bx) / 2.0, (ay + by) / 2.0);
        let (dx, dy) = (bx - ax, by - ay);
        // Bowed towards open water: of a few curves, the one crossing the least land of other
        // provinces, then the one whose points keep furthest from every other province (a less
        // bowed one on a tie). Clearance from the provinces' centres alone drew Tajima-Kaga
        // straight across Wakasa and Echizen.
        let curve = |(cx, cy): (f32, f32), t: f32| {
            let u = 1.0 - t;
            (
                u * u * ax + 2.0 * u * t * cx + t * t * bx,
                u * u * ay + 2.0 * u * t * cy + t * t * by,
            )
        };
        let clearance = |control: (f32, f32)| {
            [0.2, 0.35, 0.5, 0.65, 0.8]
                .iter()
                .map(|&t| {
                    let (qx, qy) = curve(control, t);
                    points
                        .iter()
                        .enumerate()
                        .filter(|&(p, _)| p != a && p != b)
                        .map(|(_, &(px, py))| (px - qx).powi(2) + (py - qy).powi(2))
                        .fold(f32::MAX, f32::min)
                })
                .fold(f32::MAX, f32::min)
        };
        let over_land = |control: (f32, f32)| {
            (1..10)
                .map(|i| curve(control, i as f32 / 10.0))
                .filter(|&(qx, qy)| {
                    cells
                        .iter()
                        .zip(&bounds)
                        .enumerate()
                        .any(|(p, (cell, bound))| {
                            let &(x0, y0, x1, y1) = bound;
                            p != a
                                && p != b
                                && (x0..=x1).contains(&qx)
                                && (y0..=y1).contains(&qy)
                                && shapes::within(cell, (qx, qy))
                        })
                })
                .count()
        };
        let mut best = ((mx, my), over_land((mx, my)), clearance((mx, my)));
        for bow in [0.15, 0.3, 0.45, 0.6, 0.8] {
            for side in [1.0, -1.0] {
                let control = (mx - dy * bow * side, my + dx * bow * side);
                let land = over_land(control);
                if land > best.1 {
                    continue;
                }
                let score = clearance(control);
                if land < best.1 || score > best.2 * 1.05 {
                    best = (control, land, score);
                }
            }
        }
        let (cx, cy) = best.0;
        let live = state.in_play(a) && state.in_play(b);
        doc.raw(&format!(
            r##"<path class="sea-route" d="M{},{} Q{},{} {},{}" fill="none" stroke="{}" stroke-width="3.5" stroke-dasharray="10 6" stroke-linecap="round"/>"##,
            num(ax),
            num(ay),
            num(cx),
            num(cy),
            num(bx),
            num(by),
            if live { "#1f5f8b" } else { "#9fb8c2" }
        ));
    }
    let (from, to) = focus(state);
    let revolting: Vec<ProvinceId> = match &state.phase {
        Phase::Winter { queue, .. } => queue.clone(),
        _ => Vec::new(),
    };
    let taken = match (&state.draft, viewer) {
        (Some(draft), Viewer::Seat(seat)) if crate::engine::drafter(draft, state.seats) == seat => {
            draft.taken
        }
        _ => None,
    };
    for p in 0..board.provinces.len() {
        let mark = if Some(p) == from || Some(p) == taken {
            Some(INK)
        } else if revolting.contains(&p) {
            Some("#8c1c13")
        } else {
            None
        };
        province(&mut doc, state, p, &cells[p], points[p], choices, mark);
    }
    if let (Some(from), Some(to)) = (from, to) {
        let ((ax, ay), (bx, by)) = (points[from], points[to]);
        let (dx, dy) = (bx - ax, by - ay);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        doc.raw(&format!(
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{INK}" stroke-width="5" marker-end="url(#shogun-arrow)"/>"##,
            num(ax + ux * 22.0),
            num(ay + uy * 22.0),
            num(bx - ux * 24.0),
            num(by - uy * 24.0)
        ));
    }
    if !choices.attr("no-move").is_empty() {
        // Top left, over the printed board's open sea.
        let (x, y) = (8.0, 8.0);
        doc.raw(&format!(
            r#"<g id="no-move" class="button"{}>"#,
            choices.attr("no-move")
        ));
        doc.raw(&format!(
            r##"<rect x="{}" y="{}" width="200" height="34" rx="8" fill="{PAPER}" stroke="{CHOICE}" stroke-width="3"/>"##,
            num(x),
            num(y)
        ));
        doc.text(
            x + 100.0,
            y + 23.0,
            &Message::new("choice.no-move"),
            r#"font-size="15" font-weight="700" text-anchor="middle""#,
        );
        doc.raw("</g>");
    }
    doc.finish()
}

/// One province: its land (a button when it answers the viewer's decision), the owner's edge,
/// name, armies, building spaces, tax and rice values, revolt markers.
fn province(
    doc: &mut Svg,
    state: &State,
    p: ProvinceId,
    cell: &[shapes::Point],
    (x, y): (f32, f32),
    choices: &Choices,
    mark: Option<&str>,
) {
    let info = &state.board.provinces[p];
    let here = &state.provinces[p];
    let choice = province_choice(state, p, choices);
    // `data-place` is the key that names the province in messages (docs/sdk.md, "Places"), so
    // a client can show on the map the places an event names.
    doc.raw(&format!(
        r#"<g id="province-{}" class="province" data-place="province.{}"{choice}>"#,
        escape(&info.id),
        escape(&info.id)
    ));
    // The shape drawn again inside the group: what a click lands on, and the owner's edge.
    let inset: Vec<shapes::Point> = cell
        .iter()
        .map(|&(cx, cy)| (x + (cx - x) * 0.9, y + (cy - y) * 0.9))
        .collect();
    if cell.len() >= 3 {
        // A transparent fill, so a click anywhere on the province lands on its group.
        let edge = match here.owner {
            Some(owner) => format!(r#"class="seat-stroke-{owner}" stroke-width="4""#),
            None => r#"stroke="none""#.to_string(),
        };
        doc.raw(&format!(
            r##"<path d="{}" fill="#ffffff" fill-opacity="0" {edge} stroke-linejoin="round"/>"##,
            path(&inset)
        ));
        if !choice.is_empty() {
            let inner: Vec<shapes::Point> = cell
                .iter()
                .map(|&(cx, cy)| (x + (cx - x) * 0.78, y + (cy - y) * 0.78))
                .collect();
            doc.raw(&format!(
                r##"<path d="{}" fill="#ffffff" fill-opacity="0.4" stroke="{CHOICE}" stroke-width="3.5" stroke-dasharray="8 4" stroke-linejoin="round"/>"##,
                path(&inner)
            ));
        }
    }
    if let Some(colour) = mark {
        doc.raw(&format!(
            r#"<path d="{}" fill="none" stroke="{colour}" stroke-width="4" pointer-events="none"/>"#,
            path(&inset)
        ));
    }
    let in_play = state.in_play(p);
    doc.text(
        x,
        y - 12.0,
        &state.province_label(p),
        &format!(
            r#"class="halo" font-size="14" font-weight="700" text-anchor="middle"{}"#,
            if in_play { "" } else { r##" fill="#6e6759""## }
        ),
    );
    if !in_play {
        doc.text(
            x,
            y + 8.0,
            &Message::new("render.out-of-play"),
            &format!(
                r##"class="halo" font-size="{}" text-anchor="middle" fill="#6e6759""##,
                num(MAP_MIN_FONT)
            ),
        );
        doc.raw("</g>");
        return;
    }
    if here.armies > 0 || here.owner.is_some() {
        army_badge(doc, here.owner, here.armies, x - 13.0, y + 5.0);
    }
    // Building spaces to the right of the armies: built ones first.
    let built: Vec<Icon> = [
        (here.castle, Icon::Castle),
        (here.temple, Icon::Temple),
        (here.theatre, Icon::Theatre),
    ]
    .into_iter()
    .filter_map(|(b, i)| b.then_some(i))
    .collect();
    let spaces = info.spaces.max(built.len() as u32) as usize;
    for s in 0..spaces {
        let (sx, sy) = (x + 8.0 + s as f32 * 11.0, y - 1.0);
        match built.get(s) {
            Some(&kind) => {
                doc.raw(&format!(
                    r#"<rect x="{}" y="{}" width="10" height="12" fill="{PAPER}" stroke="{INK}" stroke-width="0.8"/>"#,
                    num(sx),
                    num(sy)
                ));
                doc.raw(&icon(kind, sx + 5.0, sy + 6.0, 9.0));
            }
            None => doc.raw(&format!(
                r##"<rect x="{}" y="{}" width="10" height="12" fill="{PAPER}" fill-opacity="0.7" stroke="#6e6759" stroke-width="0.8" stroke-dasharray="2 1.5"/>"##,
                num(sx),
                num(sy)
            )),
        }
    }
    // Tax (a coin) and rice (a green token) with their values, under the armies.
    let row = y + 25.0;
    doc.raw(&format!(
        r##"<circle cx="{}" cy="{}" r="6" fill="#e8c547" stroke="#8a6d0b"/>"##,
        num(x - 19.0),
        num(row - 5.0)
    ));
    doc.number(
        x - 10.0,
        row,
        info.tax,
        &format!(
            r#"class="halo" font-size="{}" font-weight="700""#,
            num(MAP_MIN_FONT)
        ),
    );
    doc.raw(&format!(
        r##"<rect x="{}" y="{}" width="11" height="11" rx="3" fill="#b9d98a" stroke="#5c7a29"/>"##,
        num(x + 4.0),
        num(row - 10.5)
    ));
    doc.number(
        x + 17.0,
        row,
        info.rice,
        &format!(
            r#"class="halo" font-size="{}" font-weight="700""#,
            num(MAP_MIN_FONT)
        ),
    );
    if here.revolts > 0 {
        doc.raw(&icon(Icon::Revolt, x + 34.0, row - 5.0, 16.0));
        doc.number(
            x + 34.0,
            row - 0.5,
            here.revolts,
            &format!(
                r##"font-size="{}" font-weight="700" text-anchor="middle" fill="#ffffff""##,
                num(MAP_MIN_FONT)
            ),
        );
    }
    doc.raw("</g>");
}

/// The armies in a province: the owner's symbol and the count, on a white badge edged in the
/// owner's colour, centred on (`x`, `y`).
fn army_badge(doc: &mut Svg, owner: Option<Seat>, armies: u32, x: f32, y: f32) {
    let edge = match owner {
        Some(seat) => format!(r#"class="seat-stroke-{seat}""#),
        None => r##"stroke="#6e6759""##.to_string(),
    };
    doc.raw(&format!(
        r#"<rect x="{}" y="{}" width="38" height="19" rx="4" fill="{PAPER}" {edge} stroke-width="2.5"/>"#,
        num(x - 19.0),
        num(y - 10.0)
    ));
    if let Some(seat) = owner {
        doc.raw(&seat_symbol(
            seat,
            x - 9.0,
            y - 0.5,
            5.5,
            &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="0.8""#),
        ));
    }
    doc.number(
        x + 7.0,
        y + 5.0,
        armies,
        r#"font-size="14" font-weight="700" text-anchor="middle""#,
    );
}

/// What the map's symbols mean.
fn legend() -> String {
    let keys = [
        "render.legend-border",
        "render.legend-water",
        "render.legend-sea",
        "render.castle",
        "render.temple",
        "render.theatre",
        "render.revolt",
        "render.legend-tax",
        "render.legend-rice",
    ];
    let row = |i: usize| 16.0 + i as f32 * 24.0;
    let mut doc = begin(300.0, row(keys.len()), PAPER);
    let symbols = [
        format!(
            r##"<rect x="8" y="{}" width="24" height="14" fill="#e8d9c0" stroke="#8a7d68" stroke-width="1.2"/>"##,
            num(row(0) - 7.0)
        ),
        format!(
            r##"<rect x="8" y="{}" width="24" height="14" fill="{SEA}" stroke="{COAST}" stroke-width="2"/>"##,
            num(row(1) - 7.0)
        ),
        format!(
            r##"<line x1="8" y1="{y}" x2="32" y2="{y}" stroke="#1f5f8b" stroke-width="3" stroke-dasharray="7 4"/>"##,
            y = num(row(2))
        ),
        icon(Icon::Castle, 20.0, row(3), 12.0),
        icon(Icon::Temple, 20.0, row(4), 12.0),
        icon(Icon::Theatre, 20.0, row(5), 12.0),
        icon(Icon::Revolt, 20.0, row(6), 14.0),
        format!(
            r##"<circle cx="20" cy="{}" r="7" fill="#e8c547" stroke="#8a6d0b"/>"##,
            num(row(7))
        ),
        format!(
            r##"<rect x="13" y="{}" width="14" height="14" rx="4" fill="#b9d98a" stroke="#5c7a29"/>"##,
            num(row(8) - 7.0)
        ),
    ];
    for (i, (symbol, key)) in symbols.iter().zip(keys).enumerate() {
        doc.raw(symbol);
        doc.text(40.0, row(i) + 5.0, &Message::new(key), r#"font-size="13""#);
    }
    doc.finish()
}

// ---------------------------------------------------------------------------------------------
// The seats

/// The width of a seat's panel (and the other narrow parts), its height, and the width of a
/// column of its figures.
pub const PANEL_W: f32 = 420.0;
const PANEL_H: f32 = 184.0;
/// See [`PANEL_W`].
pub const STAT_COLUMN: f32 = 132.0;

fn seat_panel(state: &State, seat: Seat, viewer: Viewer) -> String {
    let cards = state.board.cards();
    let player = &state.players[seat as usize];
    let own = viewer.is(seat);
    let mut doc = begin(PANEL_W, PANEL_H, PAPER);
    doc.raw(&format!(
        r#"<g id="seat-{seat}"><rect x="1" y="1" width="{}" height="{}" rx="6" fill="{PAPER}" stroke="{}" stroke-width="{}"/>"#,
        num(PANEL_W - 2.0),
        num(PANEL_H - 2.0),
        if own { INK } else { "#c8bfa8" },
        if own { 2.5 } else { 1.0 }
    ));
    doc.raw(&format!(
        r#"<rect x="1" y="1" width="10" height="{}" rx="3" class="seat-{seat}"/>"#,
        num(PANEL_H - 2.0)
    ));
    doc.raw(&seat_symbol(
        seat,
        28.0,
        20.0,
        9.0,
        &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="1""#),
    ));
    doc.text(
        44.0,
        26.0,
        &Message::new("render.seat").seat("player", seat),
        r#"font-size="17" font-weight="700""#,
    );
    if own {
        doc.text(
            PANEL_W - 10.0,
            26.0,
            &Message::new("render.you"),
            r##"font-size="13" text-anchor="end" fill="#8c1c13""##,
        );
    }
    // Two rows of three columns, each wide enough for its label in every language
    // (`catalogues::seat_panel_labels_fit_their_columns`).
    let mut stats = vec![
        ("render.chests", Some(player.chests)),
        ("render.rice", Some(player.rice)),
        ("render.vp", Some(player.vp)),
        (
            "render.province-cards",
            Some(state.provinces_of(seat).len() as u32),
        ),
        ("render.supply", Some(player.supply)),
    ];
    let in_turn = matches!(state.phase, Phase::Actions { .. } | Phase::Winter { .. });
    if let Some(position) = state.turn_order.iter().position(|&s| s == seat)
        && in_turn
    {
        stats.push(("render.turn-order", Some(position as u32 + 1)));
    }
    for (i, (key, value)) in stats.iter().enumerate() {
        let sx = 20.0 + (i % 3) as f32 * STAT_COLUMN;
        let sy = 46.0 + (i / 3) as f32 * 42.0;
        doc.text(sx, sy, &Message::new(*key), r#"class="label""#);
        if let Some(value) = value {
            doc.number(sx, sy + 20.0, value, r#"font-size="18" font-weight="700""#);
        }
    }
    // A line of its own, under the status, so that it can say what the numbers are.
    doc.text(
        20.0,
        152.0,
        &Message::new("render.tower-tray")
            .number("tower", player.in_tower)
            .number("tray", player.tray),
        r#"class="label""#,
    );
    if let Some(special) = state.special_of(seat) {
        doc.text(
            20.0,
            172.0,
            &Message::new(cards.specials[special].name.clone()),
            r##"font-size="13" fill="#1f5f8b""##,
        );
    }
    let status = match (&state.phase, &state.plans[seat as usize]) {
        (Phase::Planning, Some(_)) => Some(Message::new("render.planned")),
        (Phase::Planning, None) => Some(Message::new("render.planning")),
        (_, Some(plan)) if state.bids_revealed => Some(match plan.bid {
            Some(CardRef::Chest(v)) => Message::new("render.bid-chests").number("chests", v),
            Some(CardRef::Province(p)) => {
                Message::new("render.bid-province").arg("province", state.province_arg(p))
            }
            None => Message::new("render.bid-none"),
        }),
        _ => None,
    };
    if let Some(status) = status {
        doc.text(
            PANEL_W - 10.0,
            132.0,
            &status,
            r#"font-size="13" text-anchor="end""#,
        );
    }
    doc.raw("</g>");
    doc.finish()
}

// ---------------------------------------------------------------------------------------------
// The table

fn specials(state: &State, choices: &Choices) -> String {
    let cards = state.board.cards();
    let spaces = state.special_layout.len();
    let mut doc = begin(PANEL_W, spaces as f32 * 42.0 + 4.0, PAPER);
    for (space, &special) in state.special_layout.iter().enumerate() {
        let y = 2.0 + space as f32 * 42.0;
        let choice = choices.attr(&format!("space:{}", space + 1));
        doc.raw(&format!(
            r#"<g id="special-{}" class="special"{choice}>"#,
            space + 1
        ));
        doc.raw(&format!(
            r#"<rect x="1" y="{}" width="{}" height="36" rx="5" fill="{PAPER}" stroke="{}" stroke-width="{}"/>"#,
            num(y),
            num(PANEL_W - 2.0),
            if choice.is_empty() { "#c8bfa8" } else { CHOICE },
            if choice.is_empty() { 1.0 } else { 3.0 }
        ));
        doc.raw(&format!(
            r##"<circle cx="19" cy="{}" r="11" fill="#4a4033"/>"##,
            num(y + 18.0)
        ));
        doc.number(
            19.0,
            y + 23.0,
            space + 1,
            r##"font-size="13" font-weight="700" fill="#ffffff" text-anchor="middle""##,
        );
        doc.text(
            38.0,
            y + 23.0,
            &Message::new(cards.specials[special].name.clone()),
            r#"font-size="13""#,
        );
        if let Some(Some(holder)) = state.special_holder.get(space) {
            doc.raw(&seat_symbol(
                *holder,
                PANEL_W - 20.0,
                y + 18.0,
                9.0,
                &format!(r#"class="seat-{holder}" stroke="{INK}" stroke-width="1""#),
            ));
        }
        doc.raw("</g>");
    }
    doc.finish()
}

/// The icon of an action card.
fn action_icon(kind: ActionKind) -> Icon {
    match kind {
        ActionKind::BuildCastle => Icon::Castle,
        ActionKind::BuildTemple => Icon::Temple,
        ActionKind::BuildTheatre => Icon::Theatre,
        ActionKind::ConfiscateRice => Icon::Rice,
        ActionKind::CollectTaxes => Icon::Chest,
        ActionKind::Recruit5 | ActionKind::Recruit3 | ActionKind::Recruit1Move => Icon::Armies,
        ActionKind::BattleMove => Icon::Battle,
    }
}

/// The short label of an action card (`action-short.<id>`), sized to fit a card in every
/// language: see [`CARD_W`] and the catalogue test.
pub fn short_label(card_name: &str) -> Message {
    Message::new(card_name.replacen("action.", "action-short.", 1))
}

/// The width of an action card and the font size of its label: a label of
/// `(CARD_W - 8) / (0.6 * CARD_FONT)` characters fits.
pub const CARD_W: f32 = 112.0;
/// See [`CARD_W`].
pub const CARD_FONT: f32 = 13.0;

/// The action row: the cards in the order they are carried out (two rows of five), face up or
/// face down, and under each card already played, what every seat had placed on it.
fn action_row(state: &State) -> String {
    let cards = state.board.cards();
    let played = crate::view::actions_played(state);
    let current = match state.phase {
        Phase::Actions { step, .. } => Some(step),
        _ => None,
    };
    let per_row = 5;
    let lines = if played > 0 { state.seats as f32 } else { 0.0 };
    let card_h = 90.0 + lines * 17.0;
    let rows = state.action_layout.len().div_ceil(per_row);
    let mut doc = begin(
        per_row as f32 * (CARD_W + 6.0) + 4.0,
        rows as f32 * (card_h + 8.0) + 2.0,
        "#f4ecd8",
    );
    for (position, &action) in state.action_layout.iter().enumerate() {
        let x = 2.0 + (position % per_row) as f32 * (CARD_W + 6.0);
        let y = 2.0 + (position / per_row) as f32 * (card_h + 8.0);
        let face_up = position < state.actions_revealed.max(played);
        doc.raw(&format!(
            r#"<g id="action-row-{}" class="action-card">"#,
            position + 1
        ));
        if face_up {
            let card = &cards.actions[action];
            let stroke = if Some(position) == current {
                ("#8c1c13", 4.0)
            } else {
                (LINE, 1.2)
            };
            doc.raw(&format!(
                r#"<rect x="{}" y="{}" width="{}" height="84" rx="6" fill="{PAPER}" stroke="{}" stroke-width="{}"><title>{}</title></rect>"#,
                num(x),
                num(y),
                num(CARD_W),
                stroke.0,
                stroke.1,
                escape(&card.name)
            ));
            doc.raw(&icon(
                action_icon(card.kind),
                x + CARD_W / 2.0,
                y + 38.0,
                28.0,
            ));
            if card.cost > 0 {
                doc.raw(&icon(Icon::Chest, x + CARD_W - 30.0, y + 15.0, 14.0));
                doc.number(
                    x + CARD_W - 8.0,
                    y + 20.0,
                    card.cost,
                    r#"font-size="13" font-weight="700" text-anchor="end""#,
                );
            }
            doc.text(
                x + CARD_W / 2.0,
                y + 74.0,
                &short_label(&card.name),
                &format!(r#"font-size="{}" text-anchor="middle""#, num(CARD_FONT)),
            );
        } else {
            doc.raw(&format!(
                r##"<rect x="{}" y="{}" width="{}" height="84" rx="6" fill="url(#shogun-card-back)" stroke="#1d2638" stroke-width="1.2"/><circle cx="{}" cy="{}" r="18" fill="none" stroke="#c9b27c" stroke-width="2"/>"##,
                num(x),
                num(y),
                num(CARD_W),
                num(x + CARD_W / 2.0),
                num(y + 40.0)
            ));
            doc.text(
                x + CARD_W / 2.0,
                y + 76.0,
                &Message::new("render.face-down"),
                r##"font-size="13" text-anchor="middle" fill="#e8dcc0""##,
            );
        }
        doc.raw(&format!(
            r##"<circle cx="{}" cy="{}" r="10" fill="#4a4033"/>"##,
            num(x + 14.0),
            num(y + 14.0)
        ));
        doc.number(
            x + 14.0,
            y + 18.5,
            position + 1,
            r##"font-size="13" font-weight="700" fill="#ffffff" text-anchor="middle""##,
        );
        // Once a card has been played, everyone's placements on it are public.
        if position < played {
            let mut line = 0.0;
            for seat in 0..state.seats {
                let Some(card) = state.plans[seat as usize]
                    .as_ref()
                    .and_then(|plan| plan.actions.get(action).copied().flatten())
                else {
                    continue;
                };
                let ly = y + 100.0 + line * 17.0;
                doc.raw(&seat_symbol(
                    seat,
                    x + 6.0,
                    ly - 5.0,
                    5.0,
                    &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="0.6""#),
                ));
                card_name(&mut doc, state, card, x + 14.0, ly, r#"font-size="13""#);
                line += 1.0;
            }
        }
        doc.raw("</g>");
    }
    doc.finish()
}

/// The name of a card placed in a plan: a province's name or a war chest card's value.
fn card_name(doc: &mut Svg, state: &State, card: CardRef, x: f32, y: f32, attrs: &str) {
    match card {
        CardRef::Province(p) => doc.text(x, y, &state.province_label(p), attrs),
        CardRef::Chest(v) => {
            doc.raw(&icon(Icon::Chest, x + 6.0, y - 4.0, 11.0));
            doc.number(x + 15.0, y, v, attrs);
        }
    }
}

/// The width of the calendar: an event's name of 75 characters fits at 13 units.
pub const CALENDAR_W: f32 = 600.0;

/// The calendar: year, season and phase, then this season's event and the year's face-up events
/// with their winter rice loss, the event deck and the farmers in the tray.
fn calendar(state: &State, decision: Option<&PendingDecision>) -> String {
    let cards = state.board.cards();
    let width = CALENDAR_W;
    let events = usize::from(state.current_event.is_some()) + state.year_events.len();
    let mut doc = begin(width, 86.0 + events as f32 * 42.0 + 26.0, PAPER);
    let season = Message::new("render.year-season")
        .number("year", state.year)
        .key("season", crate::summary::season_key(state.season));
    doc.text(4.0, 20.0, &season, r#"class="title""#);
    let phase = match state.phase {
        Phase::Draft => "render.phase-draft",
        Phase::Planning => "render.phase-planning",
        Phase::Specials { .. } => "render.phase-specials",
        Phase::Actions { .. } => "render.phase-actions",
        Phase::Winter { .. } => "render.phase-winter",
        Phase::Over => "render.phase-over",
    };
    doc.text(
        width - 4.0,
        20.0,
        &Message::new(phase),
        r##"class="title" fill="#4a4033" text-anchor="end""##,
    );
    let status = match (decision, crate::view::result(state)) {
        (Some(decision), _) => Some(decision.prompt.clone()),
        (None, Some(result)) => Some(result.summary),
        _ => None,
    };
    if let Some(status) = status {
        doc.text(
            4.0,
            44.0,
            &status,
            r##"font-size="14" font-weight="700" fill="#8c1c13""##,
        );
    } else {
        let waiting: Vec<Seat> = crate::decide::pending(state)
            .iter()
            .map(|d| d.seat)
            .collect();
        if !waiting.is_empty() {
            doc.text(
                4.0,
                44.0,
                &Message::new("render.waiting"),
                r#"font-size="14""#,
            );
            for (i, &seat) in waiting.iter().enumerate() {
                doc.raw(&seat_symbol(
                    seat,
                    150.0 + i as f32 * 26.0,
                    39.0,
                    8.0,
                    &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="1""#),
                ));
            }
        }
    }
    let mut y = 60.0;
    let winter = matches!(state.phase, Phase::Winter { .. } | Phase::Over);
    let mut row = |doc: &mut Svg, event: usize, current: bool| {
        let card = &cards.events[event];
        doc.raw(&format!(
            r#"<rect x="1" y="{}" width="{}" height="38" rx="5" fill="{}" stroke="{}" stroke-width="{}"/>"#,
            num(y),
            num(width - 2.0),
            if current { "#fbeed0" } else { PAPER },
            if current { "#8c1c13" } else { "#c8bfa8" },
            if current { 2.5 } else { 1.0 }
        ));
        doc.text(
            8.0,
            y + 16.0,
            &Message::new(card.name.clone()),
            r#"font-size="13""#,
        );
        // After autumn the one event left is the winter card: its rice loss is no longer an if.
        let note = if current {
            Message::new("render.this-season").number("rice", card.winter_rice_loss)
        } else if winter {
            Message::new("render.winter-card").number("rice", card.winter_rice_loss)
        } else {
            Message::new("render.winter-loss").number("rice", card.winter_rice_loss)
        };
        doc.text(8.0, y + 32.0, &note, r##"font-size="13" fill="#4a4033""##);
        y += 42.0;
    };
    if let Some(event) = state.current_event {
        row(&mut doc, event, true);
    }
    for &event in &state.year_events {
        row(&mut doc, event, false);
    }
    doc.text(
        4.0,
        y + 18.0,
        &Message::new("render.event-deck").number("cards", state.event_deck.len() as i64),
        r#"class="label""#,
    );
    doc.text(
        width / 2.0,
        y + 18.0,
        &Message::new("render.tray-farmers").number("farmers", state.tray_farmers),
        r#"class="label""#,
    );
    doc.finish()
}

/// A province card: region stripe and name.
fn province_card(
    doc: &mut Svg,
    state: &State,
    p: ProvinceId,
    x: f32,
    y: f32,
    w: f32,
    highlight: bool,
) {
    let region = state
        .board
        .regions
        .get(state.board.provinces[p].region)
        .map(|r| r.colour.as_str())
        .unwrap_or("#999999");
    doc.raw(&format!(
        r#"<rect x="{}" y="{}" width="{}" height="42" rx="4" fill="{PAPER}" stroke="{}" stroke-width="{}"/><rect x="{}" y="{}" width="{}" height="9" rx="2" fill="{}"/>"#,
        num(x),
        num(y),
        num(w),
        if highlight { CHOICE } else { LINE },
        if highlight { 3.0 } else { 1.0 },
        num(x + 2.0),
        num(y + 2.0),
        num(w - 4.0),
        escape(region)
    ));
    doc.text(
        x + w / 2.0,
        y + 31.0,
        &state.province_label(p),
        r#"font-size="13" font-weight="700" text-anchor="middle""#,
    );
}

/// A war chest card.
fn chest_card(doc: &mut Svg, value: u32, x: f32, y: f32) {
    doc.raw(&format!(
        r##"<rect x="{}" y="{}" width="52" height="42" rx="4" fill="#f3e2b3" stroke="{LINE}"/>"##,
        num(x),
        num(y)
    ));
    doc.raw(&icon(Icon::Chest, x + 16.0, y + 21.0, 16.0));
    doc.number(
        x + 38.0,
        y + 27.0,
        value,
        r#"font-size="17" font-weight="700" text-anchor="middle""#,
    );
}

/// The width of a province card in the hand: the longest printed-board name at 13 units.
const HAND_CARD_W: f32 = 100.0;

/// The viewer's planning board (ten action spaces and the bid space) and hand. While the plan is
/// asked for, spaces carry `data-slot` and cards `data-item`; afterwards the plan is shown.
fn planning_board(state: &State, seat: Seat, decision: Option<&PendingDecision>) -> String {
    let cards = state.board.cards();
    let assign = match decision.map(|d| &d.kind) {
        Some(DecisionKind::Assign(assign)) => Some(assign),
        _ => None,
    };
    let plan = state.plans[seat as usize].as_ref();
    let per_row = 6;
    let spaces = cards.actions.len() + 1;
    let space_w = CARD_W;
    let space_h = 76.0;
    let rows = spaces.div_ceil(per_row);
    let width = per_row as f32 * (space_w + 6.0) + 4.0;
    let hand_top = rows as f32 * (space_h + 6.0) + 10.0;
    let hand_rows = assign.map_or(0, |a| {
        let mut x = 0.0;
        let mut rows = 1;
        for item in &a.items {
            let w = if item.id.starts_with("province:") {
                HAND_CARD_W
            } else {
                52.0
            };
            if x + w > width - 4.0 {
                rows += 1;
                x = 0.0;
            }
            x += w + 6.0;
        }
        rows
    });
    let height = hand_top
        + if hand_rows > 0 {
            24.0 + hand_rows as f32 * 48.0
        } else {
            0.0
        };
    let mut doc = begin(width, height, "#f4ecd8");
    let slot_index = |id: &str| -> String {
        assign
            .and_then(|a| a.slots.iter().position(|s| s.id == id))
            .map(|i| format!(r#" data-slot="{i}""#))
            .unwrap_or_default()
    };
    for space in 0..spaces {
        let x = 2.0 + (space % per_row) as f32 * (space_w + 6.0);
        let y = 2.0 + (space / per_row) as f32 * (space_h + 6.0);
        let (id, label, placed) = if space < cards.actions.len() {
            let card = &cards.actions[space];
            (
                format!("action:{}", card.id),
                short_label(&card.name),
                plan.and_then(|p| p.actions[space]),
            )
        } else {
            (
                "bid".to_string(),
                Message::new("slot.bid-short"),
                plan.and_then(|p| p.bid),
            )
        };
        let slot = slot_index(&id);
        doc.raw(&format!(r#"<g class="plan-space"{slot}>"#));
        doc.raw(&format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}" rx="5" fill="{}" stroke="{LINE}" stroke-dasharray="{}"/>"#,
            num(x),
            num(y),
            num(space_w),
            num(space_h),
            if id == "bid" { "#efe2c4" } else { "#ece3cf" },
            if slot.is_empty() { "none" } else { "5 3" }
        ));
        doc.text(
            x + space_w / 2.0,
            y + 16.0,
            &label,
            &format!(r#"font-size="{}" text-anchor="middle""#, num(CARD_FONT)),
        );
        match placed {
            Some(CardRef::Province(p)) => {
                province_card(&mut doc, state, p, x + 4.0, y + 26.0, space_w - 8.0, false)
            }
            Some(CardRef::Chest(v)) => {
                chest_card(&mut doc, v, x + (space_w - 52.0) / 2.0, y + 26.0)
            }
            None => {
                let kind = cards.actions.get(space).map(|c| action_icon(c.kind));
                if let Some(kind) = kind {
                    doc.raw(&format!(
                        r#"<g opacity="0.35">{}</g>"#,
                        icon(kind, x + space_w / 2.0, y + 48.0, 22.0)
                    ));
                }
            }
        }
        doc.raw("</g>");
    }
    if let Some(assign) = assign {
        doc.text(
            2.0,
            hand_top + 14.0,
            &Message::new("render.hand"),
            r#"class="title""#,
        );
        let (mut x, mut y) = (2.0, hand_top + 22.0);
        for (index, item) in assign.items.iter().enumerate() {
            let card = if let Some(id) = item.id.strip_prefix("province:") {
                state.board.province_by_id(id).map(CardRef::Province)
            } else {
                item.id
                    .strip_prefix("chest:")
                    .and_then(|v| v.parse().ok())
                    .map(CardRef::Chest)
            };
            let Some(card) = card else { continue };
            let w = match card {
                CardRef::Province(_) => HAND_CARD_W,
                CardRef::Chest(_) => 52.0,
            };
            if x + w > width - 4.0 {
                x = 2.0;
                y += 48.0;
            }
            doc.raw(&format!(r#"<g class="hand-card" data-item="{index}">"#));
            match card {
                CardRef::Province(p) => province_card(&mut doc, state, p, x, y, w, false),
                CardRef::Chest(v) => chest_card(&mut doc, v, x, y),
            }
            doc.raw("</g>");
            x += w + 6.0;
        }
    }
    doc.finish()
}

/// The placings of a finished game, best first, with the war chests that break ties.
fn final_result(result: &sdk::GameResult) -> String {
    let mut doc = begin(PANEL_W, 12.0 + result.placings.len() as f32 * 30.0, PAPER);
    for (i, placing) in result.placings.iter().enumerate() {
        let y = 24.0 + i as f32 * 30.0;
        let seat = placing.seat;
        doc.raw(&seat_symbol(
            seat,
            14.0,
            y - 5.0,
            8.0,
            &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="1""#),
        ));
        let chests = placing.tie_breaks.first().copied().unwrap_or(0);
        let line = Message::new("render.placing")
            .number("rank", placing.rank)
            .seat("player", seat)
            .number("vp", placing.score)
            .number("chests", chests);
        doc.text(30.0, y, &line, r#"font-size="15""#);
    }
    doc.finish()
}

/// The claiming draft: the face-up cards, the deck (its size only) and every seat's countryside
/// groups still to place.
fn draft_area(state: &State, draft: &Draft, viewer: Viewer, choices: &Choices) -> String {
    let groups_w = draft.groups.iter().map(Vec::len).max().unwrap_or(0) as f32 * 32.0 + 30.0;
    let width = (2.0f32 * 130.0 + 160.0).max(groups_w) + 4.0;
    let height = 76.0 + state.seats as f32 * 34.0;
    let mut doc = begin(width, height, "#f4ecd8");
    let y = 4.0;
    for (i, &p) in draft.face_up.iter().enumerate() {
        let x = 2.0 + i as f32 * 130.0;
        let choice = choices.attr(&format!("face-up:{i}"));
        doc.raw(&format!(r#"<g class="draft-card"{choice}>"#));
        province_card(&mut doc, state, p, x, y, 120.0, !choice.is_empty());
        doc.raw("</g>");
    }
    let deck_x = 2.0 + 2.0 * 130.0;
    let choice = choices.attr("blind");
    doc.raw(&format!(r#"<g class="draft-deck"{choice}>"#));
    doc.raw(&format!(
        r##"<rect x="{}" y="{}" width="80" height="42" rx="4" fill="url(#shogun-card-back)" stroke="{}" stroke-width="{}"><title>{}</title></rect>"##,
        num(deck_x),
        num(y),
        if choice.is_empty() { "#1d2638" } else { CHOICE },
        if choice.is_empty() { 1.0 } else { 3.0 },
        draft.deck.len()
    ));
    doc.number(
        deck_x + 40.0,
        y + 27.0,
        draft.deck.len(),
        r##"font-size="16" font-weight="700" fill="#ffffff" text-anchor="middle""##,
    );
    doc.raw("</g>");
    doc.text(
        deck_x + 86.0,
        y + 26.0,
        &Message::new("render.deck"),
        r#"class="label""#,
    );
    let drafter = crate::engine::drafter(draft, state.seats);
    for seat in 0..state.seats {
        let x = 16.0;
        let gy = 56.0 + seat as f32 * 34.0;
        doc.raw(&seat_symbol(
            seat,
            x,
            gy + 14.0,
            8.0,
            &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="1""#),
        ));
        if seat == drafter {
            doc.raw(&format!(
                r##"<circle cx="{}" cy="{}" r="13" fill="none" stroke="#8c1c13" stroke-width="2"/>"##,
                num(x),
                num(gy + 14.0)
            ));
        }
        let groups = draft.groups.get(seat as usize).cloned().unwrap_or_default();
        for (i, &armies) in groups.iter().enumerate() {
            let gx = x + 20.0 + i as f32 * 32.0;
            let choice = if viewer.is(seat) {
                choices.attr(&format!("group:{armies}"))
            } else {
                String::new()
            };
            doc.raw(&format!(r#"<g class="draft-group"{choice}>"#));
            doc.raw(&format!(
                r#"<rect x="{}" y="{}" width="28" height="28" rx="4" fill="{PAPER}" class="seat-stroke-{seat}" stroke-width="{}"/>"#,
                num(gx),
                num(gy),
                if choice.is_empty() { 2.0 } else { 4.0 }
            ));
            doc.number(
                gx + 14.0,
                gy + 19.0,
                armies,
                r#"font-size="14" font-weight="700" text-anchor="middle""#,
            );
            doc.raw("</g>");
        }
    }
    doc.finish()
}
