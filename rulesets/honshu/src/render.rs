//! What each viewer sees, drawn as SVG panels: one personal map per seat (the viewer's first),
//! and table panels for the trick, the player order and resources, and the viewer's own hand.
//!
//! Every step of a placement is drawn where it happens: the hand panel shows the card in its
//! four rotations (each a button for that rotation), the viewer's map marks every square where
//! the card's top-left corner may go (each a button), then shows the card in place, outlined,
//! while the player confirms over or under, or goes back.

use std::fmt::Write as _;

use sdk::svg::escape;
use sdk::{BoardPart, Catalogue, DecisionKind, Message, PartKind, Seat, Viewer};

use crate::data::{Colour, Layout, Terrain};
use crate::decide;
use crate::engine::{bounds, footprint};
use crate::state::*;

/// The side of one square on a map, in pixels.
const CELL: i32 = 30;
/// The side of one square on a card in a hand or trick: large enough that a card's squares can
/// be told apart in the side column at 1280x800 (at 14 a card was about 30x50 px there).
const MINI: i32 = 22;

/// Where a panel goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanelKind {
    /// A seat's personal map.
    Seat(Seat),
    /// The middle of the table, or the viewer's hand.
    Table,
}

/// One panel of the board.
#[derive(Clone, Debug)]
pub struct Panel {
    pub id: String,
    pub kind: PanelKind,
    pub title: Option<Message>,
    pub width: i32,
    pub height: i32,
    /// The panel's content, without the enclosing `<svg>`.
    pub body: String,
}

impl Panel {
    /// The panel as a document of its own.
    pub fn document(&self) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" font-family="sans-serif">{}</svg>"#,
            self.body,
            w = self.width,
            h = self.height
        )
    }
}

fn english() -> &'static Catalogue {
    crate::CATALOGUES.english()
}

/// The English text of a message, for the document's own content (clients translate it).
fn fallback(english: &Catalogue, message: &Message) -> String {
    english.render(message, &|seat| format!("seat {}", seat + 1))
}

fn text(out: &mut String, english: &Catalogue, x: i32, y: i32, message: &Message, attrs: &str) {
    let _ = write!(
        out,
        r#"<text x="{x}" y="{y}" {attrs} {}>{}</text>"#,
        sdk::svg::message_attributes(message),
        escape(&fallback(english, message))
    );
}

fn terrain_fill(terrain: Terrain) -> &'static str {
    match terrain {
        Terrain::Forest => "#2e7d32",
        Terrain::Town => "#c62828",
        Terrain::Lake => "#4fc3f7",
        Terrain::Fallow => "#d7ccc8",
        Terrain::Production(_) => "#fff8e1",
        Terrain::Factory(_) => "#616161",
    }
}

fn colour_fill(colour: Colour) -> &'static str {
    match colour {
        Colour::Blue => "#1565c0",
        Colour::Brown => "#6d4c41",
        Colour::Grey => "#9e9e9e",
        Colour::Yellow => "#fbc02d",
    }
}

/// One square: its terrain, a colour mark for production and factory squares, a resource cube.
fn square(out: &mut String, x: i32, y: i32, size: i32, terrain: Terrain, resource: Option<Colour>) {
    let _ = write!(
        out,
        r##"<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="{}" stroke="#333" stroke-width="0.5"><title>{}</title></rect>"##,
        terrain_fill(terrain),
        terrain.name()
    );
    let inset = size / 4;
    match terrain {
        Terrain::Production(c) => {
            let _ = write!(
                out,
                r#"<circle cx="{}" cy="{}" r="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
                x + size / 2,
                y + size / 2,
                size / 3,
                colour_fill(c)
            );
        }
        Terrain::Factory(c) => {
            let _ = write!(
                out,
                r#"<path d="M{} {} L{} {} L{} {} Z" fill="{}"/>"#,
                x + inset,
                y + size - inset,
                x + size / 2,
                y + inset,
                x + size - inset,
                y + size - inset,
                colour_fill(c)
            );
        }
        _ => {}
    }
    if let Some(c) = resource {
        let cube = size / 3;
        let _ = write!(
            out,
            r##"<rect x="{}" y="{}" width="{cube}" height="{cube}" fill="{}" stroke="#000" stroke-width="1" class="resource"/>"##,
            x + size / 2 - cube / 2,
            y + size / 2 - cube / 2,
            colour_fill(c)
        );
    }
}

/// A card drawn small and upright (or turned), with its number.
fn mini_card(out: &mut String, x: i32, y: i32, card: u8, layout: &Layout, rotation: u8) {
    let _ = write!(out, r#"<g class="card" data-card="{card}">"#);
    for (i, terrain) in layout.iter().enumerate() {
        let (sx, sy) = footprint((0, 0), rotation)[i];
        square(out, x + sx * MINI, y + sy * MINI, MINI, *terrain, None);
    }
    let _ = write!(
        out,
        r##"<text x="{}" y="{}" font-size="13" fill="#000" font-weight="700">{card}</text></g>"##,
        x,
        y - 2
    );
}

/// The choice index of each choice id in `viewer`'s decision.
fn choice_index(state: &State, viewer: Viewer) -> Vec<String> {
    let Viewer::Seat(seat) = viewer else {
        return Vec::new();
    };
    match decide::decision_of(state, seat).map(|d| d.kind) {
        Some(DecisionKind::Choose(choose)) => choose.choices.into_iter().map(|c| c.id).collect(),
        _ => Vec::new(),
    }
}

fn button(ids: &[String], id: &str) -> String {
    ids.iter().position(|i| i == id).map_or(String::new(), |i| {
        format!(r#" data-choice="{i}" style="cursor:pointer""#)
    })
}

/// The card at `origin`, turned by `rotation`: laid over the map (`under` is `None`), all its
/// squares drawn and outlined; or slid under `under`, the map, where only its squares outside the
/// map show (the squares of the map it goes under stay as they are) and its whole outline is
/// dashed.
fn draw_card(
    out: &mut String,
    layout: &Layout,
    (origin, rotation): (Square, u8),
    under: Option<&PersonalMap>,
    px: &dyn Fn(i32) -> i32,
    py: &dyn Fn(i32) -> i32,
) {
    let covered = |square: &Square| under.is_some_and(|map| map.cells.contains_key(square));
    for (i, (x, y)) in footprint(origin, rotation).into_iter().enumerate() {
        if !covered(&(x, y)) {
            square(out, px(x), py(y), CELL, layout[i], None);
        }
    }
    if under.is_none() {
        outline(out, origin, rotation, px, py);
        return;
    }
    for (x, y) in footprint(origin, rotation) {
        let _ = write!(
            out,
            r##"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="none" stroke="#ff6f00" stroke-width="2" stroke-dasharray="5 3"/>"##,
            px(x),
            py(y)
        );
    }
}

/// Where the card goes: each of its squares outlined.
fn outline(
    out: &mut String,
    origin: Square,
    rotation: u8,
    px: &dyn Fn(i32) -> i32,
    py: &dyn Fn(i32) -> i32,
) {
    for (x, y) in footprint(origin, rotation) {
        let _ = write!(
            out,
            r##"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="none" stroke="#ff6f00" stroke-width="3"/>"##,
            px(x),
            py(y)
        );
    }
}

/// The terrain legend: a square of each kind with what it is.
fn legend(out: &mut String, english: &Catalogue, y: &mut i32) {
    *y += 26;
    text(
        out,
        english,
        6,
        *y,
        &Message::new("render.legend"),
        r#"font-size="13" font-weight="700""#,
    );
    let kinds = [
        (Terrain::Forest, "terrain.forest"),
        (Terrain::Town, "terrain.town"),
        (Terrain::Lake, "terrain.lake"),
        (Terrain::Fallow, "terrain.fallow"),
        (Terrain::Production(Colour::Blue), "terrain.production"),
        (Terrain::Factory(Colour::Blue), "terrain.factory"),
    ];
    for (terrain, key) in kinds {
        *y += 24;
        square(out, 10, *y - 16, 20, terrain, None);
        text(
            out,
            english,
            38,
            *y,
            &Message::new(key),
            r#"font-size="12""#,
        );
    }
}

/// The personal map of `seat` as `viewer` sees it.
fn map_panel(state: &State, seat: Seat, viewer: Viewer, english: &Catalogue) -> Panel {
    let player = &state.players[seat as usize];
    let ids = if viewer.is(seat) {
        choice_index(state, viewer)
    } else {
        Vec::new()
    };
    let (min_x, max_x, min_y, max_y) = bounds(&player.map).unwrap_or((0, 0, 0, 0));
    // Room around the map for a card placed at its edge (3 squares) and the score line.
    let (left, top) = (min_x - 3, min_y - 3);
    let columns = max_x - min_x + 7;
    let rows = max_y - min_y + 7;
    let px = |x: i32| (x - left) * CELL;
    let py = |y: i32| (y - top) * CELL + 20;
    let mut out = String::new();
    let _ = write!(
        out,
        r##"<rect x="0" y="0" width="{}" height="{}" fill="#f5f0e6" class="seat-{seat}" fill-opacity="0.15"/>"##,
        columns * CELL,
        rows * CELL + 24
    );
    text(
        &mut out,
        english,
        4,
        15,
        &Message::new("render.map-title")
            .seat("player", seat)
            .number("cards", player.map.placed.len() as i64),
        r#"font-size="13""#,
    );
    let _ = write!(out, r#"<g class="map" data-seat="{seat}">"#);
    for (&(x, y), cell) in &player.map.cells {
        square(&mut out, px(x), py(y), CELL, cell.terrain, cell.resource);
    }
    // Card edges: a thick line between squares of different cards, so each card can be seen.
    for (&(x, y), cell) in &player.map.cells {
        for (dx, dy) in [(1, 0), (0, 1)] {
            let other = player.map.cells.get(&(x + dx, y + dy));
            if other.is_some_and(|o| o.card != cell.card) {
                let (x1, y1) = (px(x + dx), py(y + dy));
                let (x2, y2) = if dx == 1 {
                    (x1, y1 + CELL)
                } else {
                    (x1 + CELL, y1)
                };
                let _ = write!(
                    out,
                    r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#000" stroke-width="2.5"/>"##
                );
            }
        }
    }
    out.push_str("</g>");
    if viewer.is(seat)
        && let Some(card) = player.to_place
    {
        let layout = state.deck.card(card);
        match (player.draft.rotation, player.draft.origin) {
            (Some(rotation), None) => {
                // Each square where the card's top-left corner may go is a button; hovering or
                // tapping one shows the turned card's footprint there (`data-preview-of`, which
                // clients show only while that choice is hovered, focused or tapped).
                let mut previews = String::new();
                for (index, id) in ids.iter().enumerate() {
                    if let Some(s) = id.strip_prefix("at:")
                        && let Some((x, y)) = s.split_once(',')
                        && let (Ok(x), Ok(y)) = (x.parse::<i32>(), y.parse::<i32>())
                    {
                        let _ = write!(
                            out,
                            r##"<g class="origin"{}><rect x="{}" y="{}" width="{}" height="{}" fill="#ffeb3b" fill-opacity="0.45" stroke="#f57f17" stroke-width="2" stroke-dasharray="4 2"/></g>"##,
                            button(&ids, id),
                            px(x) + 4,
                            py(y) + 4,
                            CELL - 8,
                            CELL - 8
                        );
                        let _ = write!(
                            previews,
                            r#"<g class="footprint" data-preview-of="{index}" pointer-events="none" opacity="0.85">"#
                        );
                        draw_card(&mut previews, layout, ((x, y), rotation), None, &px, &py);
                        previews.push_str("</g>");
                    }
                }
                // Over the marks, so a preview is seen whole.
                out.push_str(&previews);
            }
            (Some(rotation), Some(origin)) => {
                // The card as it will lie: over the map, or under it with only the squares that
                // stay visible. With both allowed, each is a preview of its choice over an
                // outline of where the card goes.
                let over = ids.iter().position(|id| id == "over");
                let under = ids.iter().position(|id| id == "under");
                let map = &player.map;
                match (over, under) {
                    (Some(over), Some(under)) => {
                        outline(&mut out, origin, rotation, &px, &py);
                        let _ = write!(
                            out,
                            r#"<g class="draft" data-preview-of="{over}" pointer-events="none">"#
                        );
                        draw_card(&mut out, layout, (origin, rotation), None, &px, &py);
                        out.push_str("</g>");
                        let _ = write!(
                            out,
                            r#"<g class="draft" data-preview-of="{under}" pointer-events="none">"#
                        );
                        draw_card(&mut out, layout, (origin, rotation), Some(map), &px, &py);
                        out.push_str("</g>");
                    }
                    (None, Some(_)) => {
                        out.push_str(r#"<g class="draft" pointer-events="none">"#);
                        draw_card(&mut out, layout, (origin, rotation), Some(map), &px, &py);
                        out.push_str("</g>");
                    }
                    _ => {
                        out.push_str(r#"<g class="draft" pointer-events="none">"#);
                        draw_card(&mut out, layout, (origin, rotation), None, &px, &py);
                        out.push_str("</g>");
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(sheet) = state.scores.get(seat as usize) {
        text(
            &mut out,
            english,
            4,
            rows * CELL + 18,
            &Message::new("render.score")
                .number("points", sheet.total)
                .number("forests", sheet.forests)
                .number("town", sheet.town)
                .number("lakes", sheet.lakes)
                .number("factories", sheet.factories)
                .number("card", sheet.scoring_card),
            r#"font-size="12""#,
        );
    }
    Panel {
        id: format!("map-{seat}"),
        kind: PanelKind::Seat(seat),
        title: Some(Message::new("render.map").seat("player", seat)),
        width: columns * CELL,
        height: rows * CELL + 24,
        body: out,
    }
}

/// The middle of the table: round, player order, the trick or the duel's pairs, the pool.
fn table_panel(state: &State, viewer: Viewer, english: &Catalogue) -> Panel {
    let ids = choice_index(state, viewer);
    let mut out = String::new();
    let width = 520;
    text(
        &mut out,
        english,
        6,
        16,
        &Message::new("render.round").number("round", state.round),
        r#"font-size="14" font-weight="700""#,
    );
    // One line per seat: names are the players' own and of any length, so side by side they
    // ran into each other.
    let mut y = 20;
    for (place, &seat) in state.order.iter().enumerate() {
        y += 16;
        text(
            &mut out,
            english,
            6,
            y,
            &Message::new("render.order")
                .number("place", place as i64 + 1)
                .seat("player", seat),
            &format!(r#"font-size="12" class="seat-{seat}""#),
        );
    }
    y += 24;
    let mut cards: Vec<(u8, Option<Colour>, Option<Seat>)> = Vec::new();
    match &state.phase {
        Phase::Trick { plays, .. } | Phase::Pick { plays, .. } => {
            cards = plays
                .iter()
                .map(|p| (p.card, p.resource.map(|(c, _)| c), Some(p.seat)))
                .collect();
        }
        _ => cards.extend(state.cards_on_table().into_iter().map(|c| (c, None, None))),
    }
    // A duel card stays face down to the other seat until both are in.
    let hidden: Vec<u8> = match &state.phase {
        Phase::Duel { committed, .. } => committed
            .iter()
            .enumerate()
            .filter(|(s, _)| !viewer.is(*s as Seat))
            .filter_map(|(_, c)| *c)
            .collect(),
        _ => Vec::new(),
    };
    for (i, (card, resource, seat)) in cards.iter().enumerate() {
        let x = 10 + i as i32 * (MINI * 2 + 28);
        let _ = write!(out, r#"<g{}>"#, button(&ids, &format!("card:{card}")));
        if hidden.contains(card) {
            let _ = write!(
                out,
                r##"<rect x="{x}" y="{}" width="{}" height="{}" fill="#2b3a55"/>"##,
                y + 4,
                MINI * 2,
                MINI * 3
            );
        } else {
            mini_card(&mut out, x, y + 14, *card, state.deck.card(*card), 0);
        }
        if let Some(colour) = resource {
            let _ = write!(
                out,
                r##"<rect x="{}" y="{}" width="10" height="10" fill="{}" stroke="#000"/>"##,
                x + MINI * 2 + 3,
                y + 16,
                colour_fill(*colour)
            );
        }
        if let Some(seat) = seat {
            let _ = write!(
                out,
                r#"<circle cx="{}" cy="{}" r="5" class="seat-{seat}"/>"#,
                x + MINI,
                y + 14 + MINI * 3 + 9
            );
        }
        out.push_str("</g>");
    }
    y += 14 + MINI * 3 + 26;
    // Two colours a line, half the panel each: a count in words ("10 im Vorrat") is longer
    // than a quarter of it.
    for (i, colour) in crate::data::COLOURS.iter().enumerate() {
        if i > 0 && i % 2 == 0 {
            y += 20;
        }
        let x = 10 + (i % 2) as i32 * (width / 2);
        let _ = write!(
            out,
            r##"<rect x="{x}" y="{}" width="12" height="12" fill="{}" stroke="#000"/>"##,
            y - 11,
            colour_fill(*colour)
        );
        text(
            &mut out,
            english,
            x + 16,
            y,
            &Message::new("render.pool").number("count", i64::from(state.pool[i])),
            r#"font-size="12""#,
        );
    }
    legend(&mut out, english, &mut y);
    if let Some(card) = state.scoring_card {
        y += 20;
        text(
            &mut out,
            english,
            6,
            y,
            &Message::new("render.scoring-card")
                .key("card", format!("scoring-card.{}", card.name())),
            r#"font-size="12""#,
        );
    }
    Panel {
        id: "table".into(),
        kind: PanelKind::Table,
        title: Some(Message::new("render.table")),
        width,
        height: y + 10,
        body: out,
    }
}

/// The viewer's hand, and the card being placed in its four rotations.
fn hand_panel(state: &State, seat: Seat, english: &Catalogue) -> Panel {
    let ids = choice_index(state, Viewer::Seat(seat));
    let player = &state.players[seat as usize];
    let mut out = String::new();
    text(
        &mut out,
        english,
        6,
        14,
        &Message::new("render.hand").number("count", player.hand.len() as i64),
        r#"font-size="13""#,
    );
    for (i, &card) in player.hand.iter().enumerate() {
        let x = 10 + i as i32 * (MINI * 2 + 14);
        let _ = write!(out, r#"<g{}>"#, button(&ids, &format!("card:{card}")));
        mini_card(&mut out, x, 34, card, state.deck.card(card), 0);
        out.push_str("</g>");
    }
    let mut height = 34 + MINI * 3 + 10;
    if let Some(card) = player.to_place {
        // The card, then the steps on a line of their own: on one line the hint was cut.
        text(
            &mut out,
            english,
            6,
            height + 14,
            &Message::new("render.placing").number("card", card),
            r#"font-size="13" font-weight="700""#,
        );
        text(
            &mut out,
            english,
            6,
            height + 30,
            &Message::new("render.placing-steps"),
            r#"font-size="13""#,
        );
        height += 16;
        for rotation in 0..4u8 {
            let x = 10 + i32::from(rotation) * (MINI * 3 + 20);
            let chosen = player.draft.rotation == Some(rotation);
            let _ = write!(out, r#"<g{}>"#, button(&ids, &format!("rotate:{rotation}")));
            if chosen {
                let _ = write!(
                    out,
                    r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#ff6f00" stroke-width="3"/>"##,
                    x - 4,
                    height + 30,
                    MINI * 3 + 8,
                    MINI * 3 + 8
                );
            }
            mini_card(
                &mut out,
                x,
                height + 36,
                card,
                state.deck.card(card),
                rotation,
            );
            out.push_str("</g>");
        }
        height += 36 + MINI * 3 + 12;
    }
    Panel {
        id: "hand".into(),
        kind: PanelKind::Table,
        title: Some(Message::new("render.hand-title")),
        width: 520,
        height,
        body: out,
    }
}

/// Every panel `viewer` sees: its own map first, then the others, the table, its hand.
pub fn panels(state: &State, viewer: Viewer) -> Vec<Panel> {
    let english = english();
    let mut seats: Vec<Seat> = (0..state.seats).collect();
    if let Viewer::Seat(me) = viewer {
        seats.retain(|&s| s != me);
        seats.insert(0, me);
    }
    let mut panels: Vec<Panel> = seats
        .into_iter()
        .map(|s| map_panel(state, s, viewer, english))
        .collect();
    panels.push(table_panel(state, viewer, english));
    if let Viewer::Seat(me) = viewer {
        panels.push(hand_panel(state, me, english));
    }
    panels
}

/// The board as `viewer` sees it, one part per panel: the maps (the viewer's first), the table,
/// the viewer's hand.
pub fn render(state: &State, viewer: Viewer) -> Vec<BoardPart> {
    panels(state, viewer)
        .into_iter()
        .map(|panel| {
            let kind = match panel.kind {
                PanelKind::Seat(seat) => PartKind::Seat(seat),
                PanelKind::Table => PartKind::Table,
            };
            let mut part = BoardPart::new(panel.id.clone(), kind, panel.document());
            part.title = panel.title;
            part
        })
        .collect()
}
