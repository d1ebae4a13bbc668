//! The board as SVG parts: the map (areas joined by roads, highways heavier, castles and capitals
//! marked, control shown, each stack a pile of blocks with its count) and a table part (week,
//! hands, boxes, the battle under way).
//!
//! A viewer sees its own blocks with their mon and symbol; the opponent's as blank blocks of
//! their side's colour, except blocks shown to everyone. Every area carries
//! `data-place="area.<id>"`; elements a pending choice names carry `data-choice`.

use sdk::svg::{escape, message_attributes};
use sdk::{BoardPart, Message, MessageArg, PartKind, Viewer};

use crate::ask::{Act, asks};
use crate::data::{AreaKind, Symbol};
use crate::names;
use crate::state::*;
use crate::view::identity_visible;

const MARGIN: f32 = 60.0;
const NODE: f32 = 20.0;
const BLOCK: f32 = 18.0;

fn text(x: f32, y: f32, size: u32, anchor: &str, message: &Message) -> String {
    let fallback = match message.args.first() {
        Some((_, MessageArg::Text(t))) if message.key == names::NAME_KEY => t.clone(),
        _ => String::new(),
    };
    text_with(x, y, size, anchor, message, &fallback)
}

/// A translatable text whose fallback (before the client translates it) is given.
fn text_with(x: f32, y: f32, size: u32, anchor: &str, message: &Message, fallback: &str) -> String {
    format!(
        r#"<text x="{x:.0}" y="{y:.0}" font-size="{size}" text-anchor="{anchor}" {}>{}</text>"#,
        message_attributes(message),
        escape(fallback)
    )
}

fn area_label(state: &State, a: usize) -> Message {
    match names::area(state, a) {
        MessageArg::Key(key) => Message::new(key),
        other => Message::new(names::NAME_KEY).arg(names::NAME_KEY, other),
    }
}

/// The choice index of each act the viewer may pick now.
fn choice_of(state: &State, viewer: Viewer) -> Vec<(usize, Act)> {
    asks(state)
        .into_iter()
        .filter(|ask| viewer.is(ask.seat))
        .flat_map(|ask| {
            ask.into_choices()
                .into_iter()
                .enumerate()
                .map(|(i, (_, act))| (i, act))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn area_choice(choices: &[(usize, Act)], a: usize) -> Option<usize> {
    choices.iter().find_map(|(i, act)| match act {
        Act::Area(x) | Act::Stack(x) if *x == a => Some(*i),
        Act::Dest(route) if route.dest == a => Some(*i),
        Act::MusterA(_, x) if *x == a => Some(*i),
        _ => None,
    })
}

fn block_choice(choices: &[(usize, Act)], b: usize) -> Option<usize> {
    choices.iter().find_map(|(i, act)| match act {
        Act::Block(x) | Act::Leader(x) if *x == b => Some(*i),
        _ => None,
    })
}

fn choice_attr(index: Option<usize>) -> String {
    index.map_or(String::new(), |i| format!(r#" data-choice="{i}""#))
}

/// The side's colour from the board file: what a board shows where no client styles the
/// `seat-N` classes (a PNG from `tenka map render`); the web client's seat colours win over it.
fn side_colour(state: &State, side: Side) -> String {
    escape(&state.board.sides[side].colour)
}

/// One block: own (or shown) with mon pips and its symbol, else blank in its side's colour.
fn block_svg(
    state: &State,
    viewer: Viewer,
    b: usize,
    x: f32,
    y: f32,
    choice: Option<usize>,
) -> String {
    let def = &state.board.blocks[b];
    let side = def.side;
    let mut svg = format!(
        r#"<g class="block"{}><rect class="seat-{side}" fill="{}" x="{x:.1}" y="{y:.1}" width="{BLOCK}" height="{BLOCK}" rx="2" stroke="black" stroke-width="1"/>"#,
        choice_attr(choice),
        side_colour(state, side)
    );
    if identity_visible(state, viewer, b) {
        // A band of the clan's own shade, then the mon as pips and the symbol as a mark.
        let hue = (def.clan * 67 % 360) as u32;
        svg += &format!(
            r#"<rect x="{x:.1}" y="{y:.1}" width="{BLOCK}" height="4" fill="hsl({hue},70%,45%)"/>"#
        );
        for pip in 0..def.mon {
            let px = x + 3.5 + f32::from(pip) * 3.2;
            svg += &format!(
                r#"<circle cx="{px:.1}" cy="{:.1}" r="1.3" fill="white" stroke="black" stroke-width="0.4"/>"#,
                y + 8.0
            );
        }
        let (cx, cy) = (x + BLOCK / 2.0, y + 13.0);
        svg += &match def.symbol {
            Some(Symbol::Gun) => format!(
                r#"<line x1="{:.1}" y1="{cy:.1}" x2="{:.1}" y2="{cy:.1}" stroke="black" stroke-width="1.5"/>"#,
                cx - 5.0,
                cx + 5.0
            ),
            Some(Symbol::Cavalry) => format!(
                r#"<path d="M{:.1},{:.1} L{cx:.1},{:.1} L{:.1},{:.1} Z" fill="black"/>"#,
                cx - 3.0,
                cy + 1.5,
                cy - 2.5,
                cx + 3.0,
                cy + 1.5
            ),
            None if def.leader => format!(
                r#"<path d="M{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1}" fill="none" stroke="black" stroke-width="1"/>"#,
                cx - 3.0,
                cy + 2.0,
                cx - 3.0,
                cy - 3.0,
                cx + 3.0,
                cy - 1.5,
                cx - 3.0,
                cy
            ),
            None => String::new(),
        };
        if def.commander || def.any_card {
            svg += &format!(
                r#"<rect x="{:.1}" y="{:.1}" width="3" height="4" fill="white" stroke="black" stroke-width="0.5"/>"#,
                x + BLOCK - 4.0,
                y + 5.0
            );
        }
    }
    svg + "</g>"
}

/// A box on the map: left, top, right, bottom.
type Frame = (f32, f32, f32, f32);

fn overlap(a: Frame, b: Frame) -> f32 {
    let w = a.2.min(b.2) - a.0.max(b.0);
    let h = a.3.min(b.3) - a.1.max(b.1);
    if w > 0.0 && h > 0.0 { w * h } else { 0.0 }
}

/// Where each area's name goes (the centre of its baseline): under its node, above it, shifted
/// to a side or lower down, wherever it covers least of the other names, nodes and stacks'
/// places, a place further from under the node counting as a little covered.
/// Only the board counts, never the stacks of the moment, so a name stays put all game. The width
/// is guessed from the board's own name (the client translates it, and names in the shipped
/// languages are about as long).
fn label_places(state: &State) -> Vec<(f32, f32)> {
    const CHAR: f32 = 7.8;
    // Covering another name weighs most, a node (with its battlements and disk) less, a
    // stack's place least (it is often empty).
    const NAME: f32 = 20.0;
    const HARD: f32 = 10.0;
    let areas = &state.board.areas;
    let mut taken: Vec<(Frame, f32)> = Vec::new();
    for area in areas {
        let node = (
            area.x - NODE,
            area.y - NODE - 8.0,
            area.x + NODE + 6.0,
            area.y + NODE,
        );
        let side = BLOCK + 9.0;
        let left = (
            area.x - NODE - 6.0 - side,
            area.y - NODE,
            area.x - NODE,
            area.y + NODE + 4.0,
        );
        let right = (
            area.x + NODE,
            area.y - NODE,
            area.x + NODE + 6.0 + side,
            area.y + NODE + 4.0,
        );
        taken.extend([(node, HARD), (left, 1.0), (right, 1.0)]);
    }
    let half = |a: usize| areas[a].name.chars().count() as f32 * CHAR / 2.0;
    let frame = |a: usize, (x, y): (f32, f32)| (x - half(a), y - 12.0, x + half(a), y + 3.0);
    // Each place with what moving the name there costs: the further from under the node, the
    // less clearly the name belongs to it.
    let candidates = |a: usize| {
        let (area, h) = (&areas[a], half(a));
        [
            (area.x, area.y + NODE + 16.0, 0.0),
            (area.x, area.y - NODE - 12.0, 40.0),
            (area.x + h - NODE, area.y + NODE + 16.0, 60.0),
            (area.x - h + NODE, area.y + NODE + 16.0, 60.0),
            (area.x, area.y + NODE + 30.0, 80.0),
        ]
    };
    let best = |a: usize, names: &[Option<(f32, f32)>]| {
        candidates(a)
            .iter()
            .map(|&(x, y, cost)| {
                let here = frame(a, (x, y));
                let board: f32 = taken.iter().map(|&(t, w)| w * overlap(here, t)).sum();
                let others: f32 = names
                    .iter()
                    .enumerate()
                    .filter_map(|(b, place)| place.filter(|_| b != a).map(|p| frame(b, p)))
                    .map(|t| NAME * overlap(here, t))
                    .sum();
                (board + others + cost, x, y)
            })
            .min_by(|p, q| p.0.partial_cmp(&q.0).expect("finite"))
            .map(|(_, x, y)| (x, y))
            .expect("candidates")
    };
    // Placed one by one, then each placed again knowing where all the others went (a name
    // placed early could not make way for one placed later).
    let mut places: Vec<Option<(f32, f32)>> = vec![None; areas.len()];
    for _ in 0..3 {
        for a in 0..areas.len() {
            places[a] = Some(best(a, &places));
        }
    }
    let places: Vec<(f32, f32)> = places.into_iter().flatten().collect();
    places
}

fn map_svg(state: &State, viewer: Viewer) -> String {
    let areas = &state.board.areas;
    let min_x = areas.iter().map(|a| a.x).fold(f32::MAX, f32::min) - MARGIN;
    let min_y = areas.iter().map(|a| a.y).fold(f32::MAX, f32::min) - MARGIN;
    let max_x = areas.iter().map(|a| a.x).fold(f32::MIN, f32::max) + MARGIN;
    let max_y = areas.iter().map(|a| a.y).fold(f32::MIN, f32::max) + MARGIN + 20.0;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="{min_x:.0} {min_y:.0} {:.0} {:.0}" font-family="sans-serif">"#,
        max_x - min_x,
        max_y - min_y
    );
    svg += &format!(
        r##"<rect x="{min_x:.0}" y="{min_y:.0}" width="{:.0}" height="{:.0}" fill="#efe6cf"/>"##,
        max_x - min_x,
        max_y - min_y
    );
    // Roads first, highways heavier; roads used this phase dashed.
    for (r, road) in state.board.roads.iter().enumerate() {
        let (a, b) = (&areas[road.a], &areas[road.b]);
        let width = if road.highway { 5 } else { 2 };
        let dash = if state.movement.roads.get(r).copied().flatten().is_some() {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        svg += &format!(
            r##"<line class="{}" x1="{:.0}" y1="{:.0}" x2="{:.0}" y2="{:.0}" stroke="#7a5c3a" stroke-width="{width}"{dash}/>"##,
            if road.highway { "highway" } else { "road" },
            a.x,
            a.y,
            b.x,
            b.y
        );
    }
    let choices = choice_of(state, viewer);
    let labels = label_places(state);
    let mut on_top = String::new();
    // The routes on offer: each path drawn over the roads.
    for (index, act) in &choices {
        if let Act::Dest(route) = act {
            let points: Vec<String> = route
                .path
                .iter()
                .map(|&a| format!("{:.0},{:.0}", areas[a].x, areas[a].y))
                .collect();
            svg += &format!(
                r##"<polyline class="route" data-preview-of="{index}" points="{}" fill="none" stroke="#2a7ab0" stroke-width="3" stroke-opacity="0.6"/>"##,
                points.join(" ")
            );
        }
    }
    for (a, area) in areas.iter().enumerate() {
        let key = names::place_key(state, a);
        let choice = area_choice(&choices, a);
        let control = state.control[a];
        svg += &format!(
            r#"<g class="area" data-place="{}"{}>"#,
            escape(&key),
            choice_attr(choice)
        );
        let ring = match control {
            Some(side) => format!(
                r#" class="seat-{side}" fill="{}""#,
                side_colour(state, side)
            ),
            None => r#" fill="white""#.to_string(),
        };
        let highlight = if choice.is_some() {
            r##" stroke="#2a7ab0" stroke-width="4""##
        } else {
            r#" stroke="black" stroke-width="1.5""#
        };
        match area.kind {
            AreaKind::Castle => {
                svg += &format!(
                    r#"<rect{ring} x="{:.0}" y="{:.0}" width="{}" height="{}"{highlight}/>"#,
                    area.x - NODE,
                    area.y - NODE,
                    2.0 * NODE,
                    2.0 * NODE
                );
                // Battlements.
                for i in 0..3 {
                    svg += &format!(
                        r#"<rect x="{:.0}" y="{:.0}" width="8" height="6" fill="black"/>"#,
                        area.x - NODE + 2.0 + i as f32 * 13.0,
                        area.y - NODE - 6.0
                    );
                }
            }
            AreaKind::Capital => {
                svg += &format!(
                    r#"<circle{ring} cx="{:.0}" cy="{:.0}" r="{}"{highlight}/><circle cx="{:.0}" cy="{:.0}" r="{}" fill="none" stroke="black" stroke-width="1.5"/>"#,
                    area.x,
                    area.y,
                    NODE + 2.0,
                    area.x,
                    area.y,
                    NODE - 3.0
                );
            }
            AreaKind::Resource => {
                svg += &format!(
                    r#"<circle{ring} cx="{:.0}" cy="{:.0}" r="{}"{highlight}/><path d="M{:.0},{:.0} l5,5 l-5,5 l-5,-5 Z" fill="black"/>"#,
                    area.x,
                    area.y,
                    NODE,
                    area.x,
                    area.y + NODE - 12.0
                );
            }
            AreaKind::Plain => {
                svg += &format!(
                    r#"<circle fill="white" cx="{:.0}" cy="{:.0}" r="{}"{highlight}/>"#,
                    area.x,
                    area.y,
                    NODE - 4.0
                );
            }
        }
        if let Some(d) = area.disk
            && !state.disks_lost[d]
        {
            svg += &format!(
                r##"<circle cx="{:.0}" cy="{:.0}" r="6" fill="#d4a017" stroke="black"/>"##,
                area.x + NODE,
                area.y - NODE
            );
        }
        svg += "</g>";
        // The name in a group of its own (a button for the same choice), so that the area's
        // own group is the node alone and a click on its middle lands on the node wherever the
        // name was placed.
        let (lx, ly) = labels[a];
        svg += &format!(
            r#"<g class="area-name"{}>{}</g>"#,
            choice_attr(choice),
            text(lx, ly, 13, "middle", &area_label(state, a))
        );
        // The stacks: each side's pile beside the node, with its count. A pile whose blocks the
        // viewer may pick is drawn as a column without overlaps, those blocks first, so each
        // is whole and can be clicked; otherwise the first four are stacked.
        for side in 0..2 {
            let mut blocks: Vec<usize> = state.blocks_in(a, side).collect();
            if blocks.is_empty() {
                continue;
            }
            let picking = blocks.iter().any(|&b| block_choice(&choices, b).is_some());
            if picking {
                blocks.sort_by_key(|&b| block_choice(&choices, b).is_none());
            }
            let mut pile = String::new();
            let (shown, step_x, step_y) = if picking {
                (6, 0.0, BLOCK + 3.0)
            } else {
                (4, 3.0, 5.0)
            };
            let x0 = if side == 0 {
                area.x - NODE - 6.0 - BLOCK
            } else {
                area.x + NODE + 6.0
            };
            for (i, &b) in blocks.iter().take(shown).enumerate() {
                let y = area.y - NODE + i as f32 * step_y;
                let x = x0
                    + if side == 0 {
                        -(i as f32) * step_x
                    } else {
                        i as f32 * step_x
                    };
                pile += &block_svg(state, viewer, b, x, y, block_choice(&choices, b));
            }
            // The count under the pile, or over the column of a pile being picked from.
            let count_y = if picking {
                area.y - NODE - 4.0
            } else {
                area.y + NODE + 2.0
            };
            pile += &format!(
                r#"<text x="{:.0}" y="{count_y:.0}" font-size="13" font-weight="bold" text-anchor="middle">{}</text>"#,
                x0 + BLOCK / 2.0,
                blocks.len()
            );
            // A pile being picked from is drawn over everything else, so nothing covers it.
            if picking {
                on_top += &pile;
            } else {
                svg += &pile;
            }
        }
    }
    svg + &on_top + "</svg>"
}

/// Width of the table panel's drawing. Narrow on purpose: the panel is read on a phone at about
/// its own width (a 600-wide drawing showed its 13-unit text at 8 px there), and beside the map
/// on a laptop; each side's figures take two short lines rather than one long one.
const TABLE_W: f32 = 360.0;
/// Where the second column of figures starts.
const TABLE_COLUMN: f32 = 190.0;
/// The pitch of a row of blocks in the table panel.
const TABLE_BLOCK_ROW: f32 = BLOCK + 6.0;

/// The week and turn, each side's points, hand, reinforcements and bag with its reinforcement
/// and special boxes as blocks, and a battle's Impact with the blocks deployed so far.
fn table_svg(state: &State, viewer: Viewer) -> String {
    let mut body = text(
        10.0,
        20.0,
        15,
        "start",
        &Message::new("render.week")
            .number("week", i64::from(state.week))
            .number("weeks", i64::from(state.board.weeks()))
            .text("turn", if state.turn == 0 { "A" } else { "B" }),
    );
    let choices = choice_of(state, viewer);
    let per_row = ((TABLE_W - 40.0) / (BLOCK + 4.0)).floor().max(1.0) as usize;
    let mut y = 46.0;
    for side in 0..2usize {
        body += &format!(
            r#"<rect class="seat-{side}" fill="{}" x="10" y="{:.0}" width="14" height="14" stroke="black"/>"#,
            side_colour(state, side),
            y - 12.0
        );
        body += &text(
            30.0,
            y,
            13,
            "start",
            &Message::new("render.points").number("points", i64::from(state.points(side))),
        );
        body += &text(
            TABLE_COLUMN,
            y,
            13,
            "start",
            &Message::new("render.hand").number("count", state.hands[side].len() as i64),
        );
        y += 19.0;
        body += &text(
            30.0,
            y,
            13,
            "start",
            &Message::new("render.reserve")
                .number("count", state.blocks_at(Place::Reserve, side).len() as i64),
        );
        body += &text(
            TABLE_COLUMN,
            y,
            13,
            "start",
            &Message::new("render.bag")
                .number("count", state.blocks_at(Place::Bag, side).len() as i64),
        );
        // The side's reinforcement box and special box, as blocks, in as many rows as they take.
        let boxed: Vec<usize> = state
            .blocks_at(Place::Reserve, side)
            .into_iter()
            .chain(state.blocks_at(Place::Box, side))
            .collect();
        for (i, &b) in boxed.iter().enumerate() {
            let x = 30.0 + (i % per_row) as f32 * (BLOCK + 4.0);
            let top = y + 8.0 + (i / per_row) as f32 * TABLE_BLOCK_ROW;
            body += &block_svg(state, viewer, b, x, top, block_choice(&choices, b));
        }
        let rows = boxed.len().div_ceil(per_row) as f32;
        y += 8.0 + rows * TABLE_BLOCK_ROW;
        // The next side's first line, or the battle's, sits below this side's blocks.
        y += 22.0;
    }
    if let Some(battle) = &state.battle {
        body += &text(
            10.0,
            y,
            14,
            "start",
            &Message::new("render.impact")
                .number("own", i64::from(battle.impact[0]))
                .number("other", i64::from(battle.impact[1])),
        );
        let per_row = ((TABLE_W - 20.0) / (BLOCK + 8.0)).floor().max(1.0) as usize;
        for (i, d) in battle.deployed.iter().enumerate() {
            let x = 10.0 + (i % per_row) as f32 * (BLOCK + 8.0);
            let top = y + 8.0 + (i / per_row) as f32 * (TABLE_BLOCK_ROW + 14.0);
            body += &block_svg(state, viewer, d.block, x, top, None);
            body += &format!(
                r#"<text x="{:.0}" y="{:.0}" font-size="11" text-anchor="middle">{}</text>"#,
                x + BLOCK / 2.0,
                top + BLOCK + 12.0,
                d.impact
            );
        }
        let rows = battle.deployed.len().div_ceil(per_row) as f32;
        y += 8.0 + rows * (TABLE_BLOCK_ROW + 14.0) + 16.0;
    }
    // `y` is where a next line's baseline would be: the drawing ends just above it.
    let height = (y - 12.0).ceil();
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {TABLE_W:.0} {height:.0}" font-family="sans-serif">{body}</svg>"#
    )
}

/// Width of a card in the hand, and the distance from one card to the next.
const CARD_W: f32 = 84.0;
const CARD_PITCH: f32 = 92.0;
/// The hand is drawn in rows of this many cards: narrow enough to be read on a phone, and a
/// short hand is not blown up to the panel's width.
const HAND_ROW: usize = 4;
const CARD_ROW_PITCH: f32 = 98.0;

/// The viewer's hand as cards it may click when a decision lists them. A card's face is its clan
/// and its kind on two lines (a name on one line would overflow the card in some languages),
/// and its corner number.
fn hand_svg(state: &State, side: Side, viewer: Viewer) -> String {
    let hand = &state.hands[side];
    let width = (HAND_ROW as f32 * CARD_PITCH + 10.0) as u32;
    let rows = hand.len().div_ceil(HAND_ROW).max(1);
    let height = (rows as f32 * CARD_ROW_PITCH + 12.0) as u32;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let choices = choice_of(state, viewer);
    for (i, h) in hand.iter().enumerate() {
        let x = 10.0 + (i % HAND_ROW) as f32 * CARD_PITCH;
        let top = (i / HAND_ROW) as f32 * CARD_ROW_PITCH;
        let choice = choices.iter().find_map(|(index, act)| match act {
            Act::Card(c) if *c == h.card => Some(*index),
            _ => None,
        });
        let def = &state.board.cards[h.card];
        svg += &format!(
            r#"<g class="card"{}><rect x="{x:.0}" y="{:.0}" width="{CARD_W}" height="90" rx="5" fill="white" stroke="black" stroke-width="{}"/>"#,
            choice_attr(choice),
            top + 10.0,
            if choice.is_some() { 3 } else { 1 }
        );
        let middle = x + CARD_W / 2.0;
        let (upper, lower) = match def.clan {
            Some(clan) => {
                let hue = (clan * 67 % 360) as u32;
                svg += &format!(
                    r#"<rect x="{x:.0}" y="{:.0}" width="{CARD_W}" height="14" rx="5" fill="hsl({hue},70%,45%)"/>"#,
                    top + 10.0
                );
                let name = match names::clan(state, clan) {
                    MessageArg::Key(key) => Message::new(key),
                    other => Message::new(names::NAME_KEY).arg(names::NAME_KEY, other),
                };
                (name, Message::new(crate::tell::kind_key(def.kind)))
            }
            None => (
                Message::new("face.challenge-1"),
                Message::new("face.challenge-2"),
            ),
        };
        svg += &format!(
            r#"<g font-weight="bold">{}</g>"#,
            text(middle, top + 46.0, 12, "middle", &upper)
        );
        svg += &text(middle, top + 64.0, 12, "middle", &lower);
        svg += &format!(
            r#"<text x="{:.0}" y="{:.0}" font-size="16" font-weight="bold" text-anchor="end">{}</text>"#,
            x + CARD_W - 5.0,
            top + 94.0,
            def.number
        );
        svg += "</g>";
    }
    svg + "</svg>"
}

/// Every part a viewer sees.
pub fn parts(state: &State, viewer: Viewer) -> Vec<BoardPart> {
    let mut parts = vec![
        BoardPart::new("map", PartKind::Map, map_svg(state, viewer)),
        BoardPart::new("table", PartKind::Table, table_svg(state, viewer)),
    ];
    if let Viewer::Seat(seat) = viewer
        && (seat as usize) < 2
    {
        parts.push(BoardPart::new(
            format!("seat-{seat}"),
            PartKind::Seat(seat),
            hand_svg(state, seat as usize, viewer),
        ));
    }
    parts
}
