//! The board as SVG: the map drawn from the map data, the players' holdings, the action row, the
//! special cards, the year's events, and the viewer's own planning board and hand.
//!
//! The document shows only what its viewer may know (the same secrets as [`crate::view`]): other
//! seats' plans and bids before they are revealed, face-down action cards, the order of the event
//! and draft decks and the tower's contents never appear. The elements that answer the viewer's
//! pending decision carry `data-choice`, `data-item` and `data-slot` (see the contract), and every
//! text carries its catalogue key so the client can translate it.

mod svg;

use std::fmt::Write as _;

use sdk::{Catalogue, DecisionKind, Message, PendingDecision, Seat, Viewer};

use crate::data::{ActionKind, ProvinceId};
use crate::state::{CardRef, Draft, Phase, Stage, State};
use svg::{Icon, Svg, esc, icon, num, seat_symbol};

/// The document's size.
const WIDTH: f32 = 1600.0;
const HEIGHT: f32 = 1300.0;
/// The map area: map coordinates (about 1000 x 700 for the shipped maps) are scaled to fit it,
/// at most by `MAX_SCALE` so the shipped maps keep their proportions with the disc size.
const MAP_LEFT: f32 = 8.0;
const MAP_TOP: f32 = 46.0;
const MAP_WIDTH: f32 = 1162.0;
const MAP_HEIGHT: f32 = 824.0;
const MAX_SCALE: f32 = 1.2;
/// The radius of a province's disc.
const R: f32 = 32.0;
/// Where the right-hand panel (players, special cards, events) begins.
const PANEL_X: f32 = 1180.0;
const PANEL_W: f32 = 410.0;

/// The seats' default colours (the Okabe-Ito palette the web client uses too), so the document
/// looks right on its own.
const SEAT_COLOURS: [&str; 8] = [
    "#d55e00", "#0072b2", "#009e73", "#e69f00", "#cc79a7", "#56b4e9", "#f0e442", "#000000",
];

const INK: &str = "#1d1d1f";
const PAPER: &str = "#fffdf8";
const LINE: &str = "#7a6a55";

/// The board as `viewer` sees it.
pub fn render(state: &State, viewer: Viewer) -> String {
    let english = Catalogue::from_toml(crate::CATALOGUE_EN).unwrap_or_default();
    let decision = match viewer {
        Viewer::Seat(seat) => crate::decide::pending(state)
            .into_iter()
            .find(|d| d.seat == seat),
        Viewer::Spectator => None,
    };
    let choices = Choices::of(decision.as_ref());
    let mut doc = Svg::new(WIDTH, HEIGHT, english);
    style(&mut doc);
    header(&mut doc, state, decision.as_ref());
    map(&mut doc, state, viewer, &choices);
    players(&mut doc, state, viewer);
    specials(&mut doc, state, &choices);
    action_row(&mut doc, state);
    events(&mut doc, state);
    match (&state.draft, viewer) {
        (Some(draft), _) if state.phase == Phase::Draft => {
            draft_area(&mut doc, state, draft, viewer, &choices)
        }
        (_, Viewer::Seat(seat))
            if matches!(
                state.phase,
                Phase::Planning | Phase::Specials { .. } | Phase::Actions { .. }
            ) =>
        {
            planning_board(&mut doc, state, seat, decision.as_ref())
        }
        _ => {}
    }
    if let Some(result) = crate::final_result(state) {
        final_result(&mut doc, &result);
    }
    doc.finish()
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

fn style(doc: &mut Svg) {
    let mut css = String::new();
    for (seat, colour) in SEAT_COLOURS.iter().enumerate() {
        let _ = write!(
            css,
            ".seat-{seat}{{fill:{colour}}}.seat-stroke-{seat}{{stroke:{colour}}}"
        );
    }
    css.push_str(".title{font-weight:700;font-size:15px}.small{font-size:10px}.label{font-size:11px;fill:#4a4033}");
    doc.raw(&format!("<style>{css}</style>"));
    doc.raw(&format!(
        r##"<defs><marker id="shogun-arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 Z" fill="{INK}"/></marker><pattern id="shogun-card-back" width="12" height="12" patternUnits="userSpaceOnUse"><rect width="12" height="12" fill="#2b3a55"/><path d="M0,6 L6,0 L12,6 L6,12 Z" fill="none" stroke="#4a5d82" stroke-width="1"/></pattern><pattern id="shogun-out-of-play" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#dcd6c8"/><path d="M0,8 L8,0" stroke="#b3ab98" stroke-width="1.5"/></pattern></defs>"##
    ));
    doc.raw(r##"<rect width="1600" height="1300" fill="#f4ecd8"/>"##);
}

/// The map coordinates of a province, scaled into the map area.
fn at(state: &State, p: ProvinceId) -> (f32, f32) {
    let (scale, dx, dy) = frame(state);
    let province = &state.board.provinces[p];
    (province.x * scale + dx, province.y * scale + dy)
}

/// The scale and offsets that fit every province's disc into the map area, centred, so a map
/// with coordinates of any range is drawn whole.
fn frame(state: &State) -> (f32, f32, f32) {
    let provinces = &state.board.provinces;
    let fold = |f: fn(&crate::data::Province) -> f32, pick: fn(f32, f32) -> f32, start: f32| {
        provinces
            .iter()
            .map(f)
            .filter(|v| v.is_finite())
            .fold(start, pick)
    };
    let (min_x, max_x) = (
        fold(|p| p.x, f32::min, f32::MAX),
        fold(|p| p.x, f32::max, f32::MIN),
    );
    let (min_y, max_y) = (
        fold(|p| p.y, f32::min, f32::MAX),
        fold(|p| p.y, f32::max, f32::MIN),
    );
    if min_x > max_x || min_y > max_y {
        return (1.0, MAP_LEFT, MAP_TOP);
    }
    let margin = R + 16.0;
    let (span_x, span_y) = ((max_x - min_x).max(1.0), (max_y - min_y).max(1.0));
    let scale = ((MAP_WIDTH - 2.0 * margin) / span_x)
        .min((MAP_HEIGHT - 2.0 * margin) / span_y)
        .min(MAX_SCALE);
    let dx = MAP_LEFT + (MAP_WIDTH - span_x * scale) / 2.0 - min_x * scale;
    let dy = MAP_TOP + (MAP_HEIGHT - span_y * scale) / 2.0 - min_y * scale;
    (scale, dx, dy)
}

/// A region colour mixed with white, for the province discs.
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

fn header(doc: &mut Svg, state: &State, decision: Option<&PendingDecision>) {
    let season = Message::new("render.year-season")
        .number("year", state.year)
        .key("season", crate::engine::season_key(state.season));
    doc.text(20.0, 30.0, &season, r#"class="title""#);
    let phase = match state.phase {
        Phase::Draft => "render.phase-draft",
        Phase::Planning => "render.phase-planning",
        Phase::Specials { .. } => "render.phase-specials",
        Phase::Actions { .. } => "render.phase-actions",
        Phase::Winter { .. } => "render.phase-winter",
        Phase::Over => "render.phase-over",
    };
    doc.text(
        220.0,
        30.0,
        &Message::new(phase),
        r##"class="title" fill="#4a4033""##,
    );
    if let Some(decision) = decision {
        doc.text(
            400.0,
            30.0,
            &decision.prompt,
            r##"font-size="15" font-weight="700" fill="#8c1c13""##,
        );
        return;
    }
    if let Some(result) = crate::final_result(state) {
        doc.text(
            400.0,
            30.0,
            &result.summary,
            r##"font-size="15" font-weight="700" fill="#8c1c13""##,
        );
        return;
    }
    let waiting: Vec<Seat> = crate::decide::pending(state)
        .iter()
        .map(|d| d.seat)
        .collect();
    if waiting.is_empty() {
        return;
    }
    doc.text(
        400.0,
        30.0,
        &Message::new("render.waiting"),
        r##"font-size="13" fill="#4a4033""##,
    );
    for (i, &seat) in waiting.iter().enumerate() {
        let x = 560.0 + i as f32 * 120.0;
        doc.raw(&seat_symbol(
            seat,
            x,
            25.0,
            7.0,
            &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="1""#),
        ));
        doc.text(
            x + 12.0,
            30.0,
            &Message::new("render.seat").seat("player", seat),
            r#"font-size="13""#,
        );
    }
}

/// The provinces an ongoing action or winter revolt is about: (from, to).
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

fn map(doc: &mut Svg, state: &State, viewer: Viewer, choices: &Choices) {
    doc.raw(r##"<rect x="8" y="46" width="1162" height="824" rx="10" fill="#d4e4ea" stroke="#9fb8c2"/>"##);
    // Region halos: one opaque disc per province in a translucent group, so a region reads as one
    // tinted area.
    for (r, region) in state.board.regions.iter().enumerate() {
        let mut group = format!(r#"<g opacity="0.35" fill="{}">"#, esc(&region.colour));
        for p in state.board.provinces_in_region(r) {
            if state.in_play(p) {
                let (x, y) = at(state, p);
                let _ = write!(
                    group,
                    r#"<circle cx="{}" cy="{}" r="{}"/>"#,
                    num(x),
                    num(y),
                    num(R + 14.0)
                );
            }
        }
        group.push_str("</g>");
        doc.raw(&group);
    }
    for (a, b) in state.board.edges() {
        let (ax, ay) = at(state, a);
        let (bx, by) = at(state, b);
        let live = state.in_play(a) && state.in_play(b);
        let style = match (state.board.is_sea_route(a, b), live) {
            (true, true) => r##"stroke="#1f5f8b" stroke-width="3" stroke-dasharray="10 6""##,
            (true, false) => r##"stroke="#9fb8c2" stroke-width="2" stroke-dasharray="10 6""##,
            (false, true) => r##"stroke="#6b5b45" stroke-width="4""##,
            (false, false) => r##"stroke="#b3ab98" stroke-width="2""##,
        };
        doc.raw(&format!(
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" {style} stroke-linecap="round"/>"#,
            num(ax),
            num(ay),
            num(bx),
            num(by)
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
    for p in 0..state.board.provinces.len() {
        province(doc, state, p, choices);
    }
    // Marks over every disc: the province an action starts from (or the card just claimed) in
    // black, this winter's revolts in red.
    for p in 0..state.board.provinces.len() {
        let colour = if Some(p) == from || Some(p) == taken {
            INK
        } else if revolting.contains(&p) {
            "#8c1c13"
        } else {
            continue;
        };
        let (x, y) = at(state, p);
        doc.raw(&format!(
            r#"<circle cx="{}" cy="{}" r="{}" fill="none" stroke="{colour}" stroke-width="4" pointer-events="none"/>"#,
            num(x),
            num(y),
            num(R + 7.0)
        ));
    }
    if !choices.attr("no-move").is_empty() {
        let (x, y) = (PANEL_X, 6.0);
        doc.raw(&format!(
            r#"<g id="no-move" class="button"{}>"#,
            choices.attr("no-move")
        ));
        doc.raw(&format!(
            r##"<rect x="{}" y="{}" width="196" height="34" rx="8" fill="{PAPER}" stroke="#1a56db" stroke-width="3"/>"##,
            num(x),
            num(y)
        ));
        doc.text(
            x + 98.0,
            y + 23.0,
            &Message::new("choice.no-move"),
            r#"font-size="14" font-weight="700" text-anchor="middle""#,
        );
        doc.raw("</g>");
    }
    if let (Some(from), Some(to)) = (from, to) {
        let (ax, ay) = at(state, from);
        let (bx, by) = at(state, to);
        let (dx, dy) = (bx - ax, by - ay);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ux, uy) = (dx / len, dy / len);
        doc.raw(&format!(
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{INK}" stroke-width="5" marker-end="url(#shogun-arrow)"/>"##,
            num(ax + ux * (R + 4.0)),
            num(ay + uy * (R + 4.0)),
            num(bx - ux * (R + 6.0)),
            num(by - uy * (R + 6.0))
        ));
    }
    legend(doc);
}

/// One province: disc in its region's colour, owner ring, name, armies, building spaces, tax and
/// rice values, revolt markers.
fn province(doc: &mut Svg, state: &State, p: ProvinceId, choices: &Choices) {
    let info = &state.board.provinces[p];
    let here = &state.provinces[p];
    let (x, y) = at(state, p);
    let choice = choices.attr(&format!("province:{}", info.id));
    doc.raw(&format!(
        r#"<g id="province-{}" class="province"{choice}>"#,
        esc(&info.id)
    ));
    if !state.in_play(p) {
        doc.raw(&format!(
            r##"<circle cx="{}" cy="{}" r="{}" fill="url(#shogun-out-of-play)" stroke="#a39e92" stroke-dasharray="4 3"/>"##,
            num(x),
            num(y),
            num(R)
        ));
        doc.text(
            x,
            y - 4.0,
            &state.province_label(p),
            r##"font-size="10" text-anchor="middle" fill="#6e6759""##,
        );
        doc.text(
            x,
            y + 10.0,
            &Message::new("render.out-of-play"),
            r##"font-size="8" text-anchor="middle" fill="#6e6759""##,
        );
        doc.raw("</g>");
        return;
    }
    let region = state
        .board
        .regions
        .get(info.region)
        .map(|r| r.colour.as_str())
        .unwrap_or("#999999");
    if !choice.is_empty() {
        doc.raw(&format!(
            r##"<circle cx="{}" cy="{}" r="{}" fill="#ffffff" fill-opacity="0.6" stroke="#1a56db" stroke-width="3" stroke-dasharray="7 4"/>"##,
            num(x),
            num(y),
            num(R + 11.0)
        ));
    }
    doc.raw(&format!(
        r#"<circle cx="{}" cy="{}" r="{}" fill="{}" stroke="{}" stroke-width="2"/>"#,
        num(x),
        num(y),
        num(R),
        lighten(region, 0.6),
        esc(region)
    ));
    if let Some(owner) = here.owner {
        doc.raw(&format!(
            r#"<circle cx="{}" cy="{}" r="{}" fill="none" class="seat-stroke-{owner}" stroke-width="5"/>"#,
            num(x),
            num(y),
            num(R + 2.0)
        ));
    }
    doc.text(
        x,
        y - 13.0,
        &state.province_label(p),
        r#"font-size="10" font-weight="700" text-anchor="middle""#,
    );
    if here.armies > 0 || here.owner.is_some() {
        army_badge(doc, here.owner, here.armies, x, y);
    }
    // Building spaces: built ones first, castle, temple, theatre.
    let built: Vec<Icon> = [
        (here.castle, Icon::Castle),
        (here.temple, Icon::Temple),
        (here.theatre, Icon::Theatre),
    ]
    .into_iter()
    .filter_map(|(b, i)| b.then_some(i))
    .collect();
    let spaces = info.spaces.max(built.len() as u32);
    let left = x - (spaces as f32 * 13.0 - 2.0) / 2.0;
    for s in 0..spaces as usize {
        let sx = left + s as f32 * 13.0;
        let sy = y + 10.0;
        match built.get(s) {
            Some(&kind) => {
                doc.raw(&format!(
                    r#"<rect x="{}" y="{}" width="11" height="11" fill="{PAPER}" stroke="{INK}" stroke-width="0.8"/>"#,
                    num(sx),
                    num(sy)
                ));
                doc.raw(&icon(kind, sx + 5.5, sy + 5.5, 9.0));
            }
            None => doc.raw(&format!(
                r##"<rect x="{}" y="{}" width="11" height="11" fill="{PAPER}" fill-opacity="0.7" stroke="#6e6759" stroke-width="0.8" stroke-dasharray="2 1.5"/>"##,
                num(sx),
                num(sy)
            )),
        }
    }
    // Tax (a coin) and rice (a green token) values at the lower corners.
    doc.raw(&format!(
        r##"<circle cx="{}" cy="{}" r="7.5" fill="#e8c547" stroke="#8a6d0b"/>"##,
        num(x - 25.0),
        num(y + 22.0)
    ));
    doc.number(
        x - 25.0,
        y + 25.5,
        info.tax,
        r#"font-size="10" font-weight="700" text-anchor="middle""#,
    );
    doc.raw(&format!(
        r##"<rect x="{}" y="{}" width="15" height="15" rx="4" fill="#b9d98a" stroke="#5c7a29"/>"##,
        num(x + 17.5),
        num(y + 14.5)
    ));
    doc.number(
        x + 25.0,
        y + 25.5,
        info.rice,
        r#"font-size="10" font-weight="700" text-anchor="middle""#,
    );
    if here.revolts > 0 {
        doc.raw(&icon(Icon::Revolt, x + 25.0, y - 24.0, 18.0));
        doc.number(
            x + 25.0,
            y - 20.5,
            here.revolts,
            r##"font-size="10" font-weight="700" text-anchor="middle" fill="#ffffff""##,
        );
    }
    doc.raw("</g>");
}

/// The armies in a province: the owner's symbol and the count, on a white badge edged in the
/// owner's colour.
fn army_badge(doc: &mut Svg, owner: Option<Seat>, armies: u32, x: f32, y: f32) {
    let edge = match owner {
        Some(seat) => format!(r#"class="seat-stroke-{seat}""#),
        None => r##"stroke="#6e6759""##.to_string(),
    };
    doc.raw(&format!(
        r#"<rect x="{}" y="{}" width="36" height="17" rx="4" fill="{PAPER}" {edge} stroke-width="2.5"/>"#,
        num(x - 18.0),
        num(y - 9.0)
    ));
    if let Some(seat) = owner {
        doc.raw(&seat_symbol(
            seat,
            x - 8.5,
            y - 0.5,
            5.5,
            &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="0.8""#),
        ));
    }
    doc.number(
        x + 6.0,
        y + 4.5,
        armies,
        r#"font-size="13" font-weight="700" text-anchor="middle""#,
    );
}

/// Explains the symbols, in the empty sea at the map's lower left.
fn legend(doc: &mut Svg) {
    let (x, y) = (20.0, 60.0);
    doc.raw(&format!(
        r##"<rect x="{}" y="{}" width="200" height="196" rx="6" fill="{PAPER}" fill-opacity="0.85" stroke="#9fb8c2"/>"##,
        num(x),
        num(y)
    ));
    let row = |i: usize| y + 20.0 + i as f32 * 22.0;
    let symbols = [
        format!(
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#6b5b45" stroke-width="4"/>"##,
            num(x + 8.0),
            num(row(0)),
            num(x + 32.0),
            num(row(0))
        ),
        format!(
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#1f5f8b" stroke-width="3" stroke-dasharray="7 4"/>"##,
            num(x + 8.0),
            num(row(1)),
            num(x + 32.0),
            num(row(1))
        ),
        icon(Icon::Castle, x + 20.0, row(2), 12.0),
        icon(Icon::Temple, x + 20.0, row(3), 12.0),
        icon(Icon::Theatre, x + 20.0, row(4), 12.0),
        icon(Icon::Revolt, x + 20.0, row(5), 14.0),
        format!(
            r##"<circle cx="{}" cy="{}" r="7.5" fill="#e8c547" stroke="#8a6d0b"/>"##,
            num(x + 20.0),
            num(row(6))
        ),
        format!(
            r##"<rect x="{}" y="{}" width="15" height="15" rx="4" fill="#b9d98a" stroke="#5c7a29"/>"##,
            num(x + 12.5),
            num(row(7) - 7.5)
        ),
    ];
    let keys = [
        "render.legend-border",
        "render.legend-sea",
        "render.castle",
        "render.temple",
        "render.theatre",
        "render.revolt",
        "render.legend-tax",
        "render.legend-rice",
    ];
    for (i, (symbol, key)) in symbols.iter().zip(keys).enumerate() {
        doc.raw(symbol);
        doc.text(
            x + 40.0,
            row(i) + 4.0,
            &Message::new(key),
            r#"font-size="11""#,
        );
    }
}

fn players(doc: &mut Svg, state: &State, viewer: Viewer) {
    let cards = state.board.cards();
    let height = 112.0;
    for seat in 0..state.seats {
        let player = &state.players[seat as usize];
        let top = 50.0 + seat as f32 * (height + 6.0);
        let x = PANEL_X;
        let own = viewer.is(seat);
        doc.raw(&format!(
            r#"<g id="seat-{seat}"><rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="{PAPER}" stroke="{}" stroke-width="{}"/>"#,
            num(x),
            num(top),
            num(PANEL_W),
            num(height),
            if own { INK } else { "#c8bfa8" },
            if own { 2.5 } else { 1.0 }
        ));
        doc.raw(&format!(
            r#"<rect x="{}" y="{}" width="10" height="{}" rx="3" class="seat-{seat}"/>"#,
            num(x),
            num(top),
            num(height)
        ));
        doc.raw(&seat_symbol(
            seat,
            x + 28.0,
            top + 20.0,
            9.0,
            &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="1""#),
        ));
        doc.text(
            x + 44.0,
            top + 26.0,
            &Message::new("render.seat").seat("player", seat),
            r#"font-size="16" font-weight="700""#,
        );
        if own {
            doc.text(
                x + PANEL_W - 10.0,
                top + 26.0,
                &Message::new("render.you"),
                r##"font-size="12" text-anchor="end" fill="#8c1c13""##,
            );
        }
        // Holdings, one icon and number each.
        let stats = [
            (Message::new("render.chests"), player.chests),
            (Message::new("render.rice"), player.rice),
            (Message::new("render.vp"), player.vp),
            (
                Message::new("render.province-cards"),
                state.provinces_of(seat).len() as u32,
            ),
            (Message::new("render.supply"), player.supply),
        ];
        for (i, (label, value)) in stats.iter().enumerate() {
            let sx = x + 20.0 + i as f32 * 78.0;
            doc.text(sx, top + 44.0, label, r#"class="label""#);
            doc.number(sx, top + 63.0, value, r#"font-size="17" font-weight="700""#);
        }
        doc.text(
            x + 20.0,
            top + 82.0,
            &Message::new("render.tower-tray")
                .number("tower", player.in_tower)
                .number("tray", player.tray),
            r#"class="label""#,
        );
        if let Some(position) = state.turn_order.iter().position(|&s| s == seat)
            && matches!(state.phase, Phase::Actions { .. } | Phase::Winter { .. })
        {
            doc.text(
                x + 230.0,
                top + 82.0,
                &Message::new("render.turn").number("position", position as i64 + 1),
                r#"font-size="11" font-weight="700""#,
            );
        }
        if let Some(special) = state.special_of(seat) {
            doc.text(
                x + 20.0,
                top + 102.0,
                &Message::new(cards.specials[special].name.clone()),
                r##"font-size="11" fill="#1f5f8b""##,
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
                x + PANEL_W - 10.0,
                top + 102.0,
                &status,
                r#"font-size="11" text-anchor="end""#,
            );
        }
        doc.raw("</g>");
    }
}

fn specials(doc: &mut Svg, state: &State, choices: &Choices) {
    let cards = state.board.cards();
    let top = 50.0 + 5.0 * 118.0 + 16.0;
    doc.text(
        PANEL_X,
        top,
        &Message::new("render.specials"),
        r#"class="title""#,
    );
    for (space, &special) in state.special_layout.iter().enumerate() {
        let y = top + 10.0 + space as f32 * 40.0;
        let choice = choices.attr(&format!("space:{}", space + 1));
        doc.raw(&format!(
            r#"<g id="special-{}" class="special"{choice}>"#,
            space + 1
        ));
        doc.raw(&format!(
            r#"<rect x="{}" y="{}" width="{}" height="34" rx="5" fill="{}" stroke="{}" stroke-width="{}"/>"#,
            num(PANEL_X),
            num(y),
            num(PANEL_W),
            PAPER,
            if choice.is_empty() { "#c8bfa8" } else { "#1a56db" },
            if choice.is_empty() { 1.0 } else { 3.0 }
        ));
        doc.raw(&format!(
            r##"<circle cx="{}" cy="{}" r="11" fill="#4a4033"/>"##,
            num(PANEL_X + 18.0),
            num(y + 17.0)
        ));
        doc.number(
            PANEL_X + 18.0,
            y + 21.5,
            space + 1,
            r##"font-size="12" font-weight="700" fill="#ffffff" text-anchor="middle""##,
        );
        doc.text(
            PANEL_X + 38.0,
            y + 22.0,
            &Message::new(cards.specials[special].name.clone()),
            r#"font-size="12""#,
        );
        if let Some(Some(holder)) = state.special_holder.get(space) {
            doc.raw(&seat_symbol(
                *holder,
                PANEL_X + PANEL_W - 20.0,
                y + 17.0,
                9.0,
                &format!(r#"class="seat-{holder}" stroke="{INK}" stroke-width="1""#),
            ));
        }
        doc.raw("</g>");
    }
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

/// The action row: the cards in the order they are carried out, face up or face down, and
/// under each card already played, what every seat had placed on it.
fn action_row(doc: &mut Svg, state: &State) {
    let cards = state.board.cards();
    let top = 890.0;
    doc.text(
        20.0,
        top + 10.0,
        &Message::new("render.action-row"),
        r#"class="title""#,
    );
    let played = crate::view::actions_played(state);
    let current = match state.phase {
        Phase::Actions { step, .. } => Some(step),
        _ => None,
    };
    for (position, &action) in state.action_layout.iter().enumerate() {
        let x = 20.0 + position as f32 * 114.0;
        let y = top + 20.0;
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
                r#"<rect x="{}" y="{}" width="108" height="96" rx="6" fill="{PAPER}" stroke="{}" stroke-width="{}"/>"#,
                num(x),
                num(y),
                stroke.0,
                stroke.1
            ));
            doc.raw(&icon(action_icon(card.kind), x + 54.0, y + 42.0, 30.0));
            if card.cost > 0 {
                doc.raw(&icon(Icon::Chest, x + 79.0, y + 15.0, 14.0));
                doc.number(
                    x + 100.0,
                    y + 21.0,
                    card.cost,
                    r#"font-size="11" font-weight="700" text-anchor="end""#,
                );
            }
            doc.text(
                x + 54.0,
                y + 84.0,
                &Message::new(card.name.clone()),
                r#"font-size="9.5" text-anchor="middle""#,
            );
        } else {
            doc.raw(&format!(
                r##"<rect x="{}" y="{}" width="108" height="96" rx="6" fill="url(#shogun-card-back)" stroke="#1d2638" stroke-width="1.2"/><circle cx="{}" cy="{}" r="20" fill="none" stroke="#c9b27c" stroke-width="2"/>"##,
                num(x),
                num(y),
                num(x + 54.0),
                num(y + 48.0)
            ));
            doc.text(
                x + 54.0,
                y + 84.0,
                &Message::new("render.face-down"),
                r##"font-size="9.5" text-anchor="middle" fill="#e8dcc0""##,
            );
        }
        doc.raw(&format!(
            r##"<circle cx="{}" cy="{}" r="10" fill="#4a4033"/>"##,
            num(x + 14.0),
            num(y + 14.0)
        ));
        doc.number(
            x + 14.0,
            y + 18.0,
            position + 1,
            r##"font-size="11" font-weight="700" fill="#ffffff" text-anchor="middle""##,
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
                let ly = y + 112.0 + line * 14.0;
                doc.raw(&seat_symbol(
                    seat,
                    x + 6.0,
                    ly - 4.0,
                    4.5,
                    &format!(r#"class="seat-{seat}" stroke="{INK}" stroke-width="0.6""#),
                ));
                card_name(doc, state, card, x + 14.0, ly, r#"font-size="10""#);
                line += 1.0;
            }
        }
        doc.raw("</g>");
    }
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

/// This season's event and the year's face-up events with their winter rice loss.
fn events(doc: &mut Svg, state: &State) {
    let cards = state.board.cards();
    let top = 890.0;
    doc.text(
        PANEL_X,
        top + 10.0,
        &Message::new("render.events"),
        r#"class="title""#,
    );
    let mut y = top + 20.0;
    let mut row = |doc: &mut Svg, event: usize, current: bool| {
        let card = &cards.events[event];
        doc.raw(&format!(
            r#"<rect x="{}" y="{}" width="{}" height="32" rx="5" fill="{}" stroke="{}" stroke-width="{}"/>"#,
            num(PANEL_X),
            num(y),
            num(PANEL_W),
            if current { "#fbeed0" } else { PAPER },
            if current { "#8c1c13" } else { "#c8bfa8" },
            if current { 2.5 } else { 1.0 }
        ));
        doc.text(
            PANEL_X + 8.0,
            y + 13.0,
            &Message::new(card.name.clone()),
            r#"font-size="10.5""#,
        );
        // After autumn the one event left is the winter card: its rice loss is no longer an if.
        let winter = matches!(state.phase, Phase::Winter { .. } | Phase::Over);
        let note = if current {
            Message::new("render.this-season").number("rice", card.winter_rice_loss)
        } else if winter {
            Message::new("render.winter-card").number("rice", card.winter_rice_loss)
        } else {
            Message::new("render.winter-loss").number("rice", card.winter_rice_loss)
        };
        doc.text(
            PANEL_X + 8.0,
            y + 27.0,
            &note,
            r##"class="small" fill="#4a4033""##,
        );
        y += 36.0;
    };
    if let Some(event) = state.current_event {
        row(doc, event, true);
    }
    for &event in &state.year_events {
        row(doc, event, false);
    }
    doc.text(
        PANEL_X,
        y + 14.0,
        &Message::new("render.event-deck").number("cards", state.event_deck.len() as i64),
        r#"class="label""#,
    );
    doc.text(
        PANEL_X + 200.0,
        y + 14.0,
        &Message::new("render.tray-farmers").number("farmers", state.tray_farmers),
        r#"class="label""#,
    );
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
        r#"<rect x="{}" y="{}" width="{}" height="40" rx="4" fill="{PAPER}" stroke="{}" stroke-width="{}"/><rect x="{}" y="{}" width="{}" height="9" rx="2" fill="{}"/>"#,
        num(x),
        num(y),
        num(w),
        if highlight { "#1a56db" } else { LINE },
        if highlight { 3.0 } else { 1.0 },
        num(x + 2.0),
        num(y + 2.0),
        num(w - 4.0),
        esc(region)
    ));
    doc.text(
        x + w / 2.0,
        y + 29.0,
        &state.province_label(p),
        r#"font-size="10.5" font-weight="700" text-anchor="middle""#,
    );
}

/// A war chest card.
fn chest_card(doc: &mut Svg, value: u32, x: f32, y: f32) {
    doc.raw(&format!(
        r##"<rect x="{}" y="{}" width="52" height="40" rx="4" fill="#f3e2b3" stroke="{LINE}"/>"##,
        num(x),
        num(y)
    ));
    doc.raw(&icon(Icon::Chest, x + 16.0, y + 20.0, 16.0));
    doc.number(
        x + 38.0,
        y + 26.0,
        value,
        r#"font-size="16" font-weight="700" text-anchor="middle""#,
    );
}

/// The viewer's planning board (ten action spaces and the bid space) and hand. While the plan is
/// asked for, spaces carry `data-slot` and cards `data-item`; afterwards the plan is shown.
fn planning_board(doc: &mut Svg, state: &State, seat: Seat, decision: Option<&PendingDecision>) {
    let cards = state.board.cards();
    let assign = match decision.map(|d| &d.kind) {
        Some(DecisionKind::Assign(assign)) => Some(assign),
        _ => None,
    };
    let plan = state.plans[seat as usize].as_ref();
    let top = 1100.0;
    doc.text(
        20.0,
        top + 8.0,
        &Message::new("render.planning-board"),
        r#"class="title""#,
    );
    let slot_index = |id: &str| -> String {
        assign
            .and_then(|a| a.slots.iter().position(|s| s.id == id))
            .map(|i| format!(r#" data-slot="{i}""#))
            .unwrap_or_default()
    };
    let spaces = cards.actions.len() + 1;
    let width = ((1150.0 - 6.0 * spaces as f32) / spaces as f32).min(98.0);
    for space in 0..spaces {
        let x = 20.0 + space as f32 * (width + 6.0);
        let y = top + 16.0;
        let (id, label, placed) = if space < cards.actions.len() {
            let card = &cards.actions[space];
            (
                format!("action:{}", card.id),
                Message::new(card.name.clone()),
                plan.and_then(|p| p.actions[space]),
            )
        } else {
            (
                "bid".to_string(),
                Message::new("slot.bid"),
                plan.and_then(|p| p.bid),
            )
        };
        let slot = slot_index(&id);
        doc.raw(&format!(r#"<g class="plan-space"{slot}>"#));
        doc.raw(&format!(
            r#"<rect x="{}" y="{}" width="{}" height="70" rx="5" fill="{}" stroke="{LINE}" stroke-dasharray="{}"/>"#,
            num(x),
            num(y),
            num(width),
            if id == "bid" { "#efe2c4" } else { "#ece3cf" },
            if slot.is_empty() { "none" } else { "5 3" }
        ));
        doc.text(
            x + width / 2.0,
            y + 12.0,
            &label,
            r#"font-size="8.5" text-anchor="middle""#,
        );
        match placed {
            Some(CardRef::Province(p)) => {
                province_card(doc, state, p, x + 4.0, y + 22.0, width - 8.0, false)
            }
            Some(CardRef::Chest(v)) => chest_card(doc, v, x + (width - 52.0) / 2.0, y + 22.0),
            None => {
                let kind = cards.actions.get(space).map(|c| action_icon(c.kind));
                if let Some(kind) = kind {
                    doc.raw(&format!(
                        r#"<g opacity="0.35">{}</g>"#,
                        icon(kind, x + width / 2.0, y + 42.0, 22.0)
                    ));
                }
            }
        }
        doc.raw("</g>");
    }
    let Some(assign) = assign else { return };
    doc.text(
        20.0,
        top + 104.0,
        &Message::new("render.hand"),
        r#"class="title""#,
    );
    let (mut x, mut y) = (20.0, top + 112.0);
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
            CardRef::Province(_) => 86.0,
            CardRef::Chest(_) => 52.0,
        };
        if x + w > 1160.0 {
            x = 20.0;
            y += 46.0;
        }
        doc.raw(&format!(r#"<g class="hand-card" data-item="{index}">"#));
        match card {
            CardRef::Province(p) => province_card(doc, state, p, x, y, w, false),
            CardRef::Chest(v) => chest_card(doc, v, x, y),
        }
        doc.raw("</g>");
        x += w + 6.0;
    }
}

/// The claiming draft: the face-up cards, the deck (its size only) and every seat's countryside
/// groups still to place.
/// The placings of a finished game, best first, with the war chests that break ties.
fn final_result(doc: &mut Svg, result: &sdk::GameResult) {
    let top = 1100.0;
    doc.text(
        20.0,
        top + 8.0,
        &Message::new("render.final-result"),
        r#"class="title""#,
    );
    for (i, placing) in result.placings.iter().enumerate() {
        let y = top + 36.0 + i as f32 * 30.0;
        let seat = placing.seat;
        doc.raw(&seat_symbol(
            seat,
            30.0,
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
        doc.text(46.0, y, &line, r#"font-size="15""#);
    }
}

fn draft_area(doc: &mut Svg, state: &State, draft: &Draft, viewer: Viewer, choices: &Choices) {
    let top = 1100.0;
    doc.text(
        20.0,
        top + 8.0,
        &Message::new("render.draft"),
        r#"class="title""#,
    );
    let y = top + 20.0;
    for (i, &p) in draft.face_up.iter().enumerate() {
        let x = 20.0 + i as f32 * 130.0;
        let choice = choices.attr(&format!("face-up:{i}"));
        doc.raw(&format!(r#"<g class="draft-card"{choice}>"#));
        province_card(doc, state, p, x, y, 120.0, !choice.is_empty());
        doc.raw("</g>");
    }
    let deck_x = 20.0 + 2.0 * 130.0;
    let choice = choices.attr("blind");
    doc.raw(&format!(r#"<g class="draft-deck"{choice}>"#));
    doc.raw(&format!(
        r##"<rect x="{}" y="{}" width="80" height="40" rx="4" fill="url(#shogun-card-back)" stroke="{}" stroke-width="{}"/>"##,
        num(deck_x),
        num(y),
        if choice.is_empty() { "#1d2638" } else { "#1a56db" },
        if choice.is_empty() { 1.0 } else { 3.0 }
    ));
    doc.number(
        deck_x + 40.0,
        y + 26.0,
        draft.deck.len(),
        r##"font-size="15" font-weight="700" fill="#ffffff" text-anchor="middle""##,
    );
    doc.raw("</g>");
    doc.text(
        deck_x,
        y + 56.0,
        &Message::new("render.deck"),
        r#"class="label""#,
    );
    let drafter = crate::engine::drafter(draft, state.seats);
    for seat in 0..state.seats {
        let x = 420.0;
        let gy = y - 6.0 + seat as f32 * 34.0;
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
            let gx = x + 20.0 + i as f32 * 30.0;
            let choice = if viewer.is(seat) {
                choices.attr(&format!("group:{armies}"))
            } else {
                String::new()
            };
            doc.raw(&format!(r#"<g class="draft-group"{choice}>"#));
            doc.raw(&format!(
                r#"<rect x="{}" y="{}" width="26" height="26" rx="4" fill="{PAPER}" class="seat-stroke-{seat}" stroke-width="{}"/>"#,
                num(gx),
                num(gy + 1.0),
                if choice.is_empty() { 2.0 } else { 4.0 }
            ));
            doc.number(
                gx + 13.0,
                gy + 19.0,
                armies,
                r#"font-size="13" font-weight="700" text-anchor="middle""#,
            );
            doc.raw("</g>");
        }
    }
}
