//! What each viewer sees: the state as JSON (`view`) and the board as SVG (`render`). A seat's
//! bid stays out of every other viewer's view and board until every bid is in, and the prize
//! deck's order out of everyone's: only its size shows.

use std::fmt::Write as _;

use sdk::svg::{escape, message_attributes};
use sdk::{BoardPart, Message, PartKind, Seat, Viewer};

use super::rules::State;

/// The state as `viewer` may see it: every hand (they are common knowledge) and the prizes, but
/// of this prize's bids only whether each seat has bid, and the viewer's own.
pub fn view(state: &State, viewer: Viewer) -> serde_json::Value {
    let seats: Vec<serde_json::Value> = (0..state.seats())
        .map(|seat| {
            let bid = state.bids[seat as usize];
            let mut entry = serde_json::json!({
                "hand": state.hands[seat as usize],
                "won": state.won[seat as usize],
                "points": state.points(seat),
                "has_bid": bid.is_some(),
            });
            if viewer.is(seat) {
                entry["bid"] = serde_json::json!(bid);
            }
            entry
        })
        .collect();
    serde_json::json!({
        "cards": state.settings.cards,
        "lowest_wins": state.settings.lowest_wins,
        "prize": state.prize,
        "face_down": state.deck.len(),
        "set_aside": state.set_aside,
        "last": state.last.as_ref().map(|last| serde_json::json!({
            "prize": last.prize,
            "bids": last.bids,
            "taker": last.taker,
        })),
        "seats": seats,
    })
}

/// A text the client shows in the reader's language (`data-msg`), English in the document.
fn text(out: &mut String, x: u32, y: u32, size: u32, message: &Message) {
    let english = super::CATALOGUES
        .english()
        .render(message, &|seat| format!("Seat {}", seat + 1));
    let _ = write!(
        out,
        r#"<text x="{x}" y="{y}" font-size="{size}" {}>{}</text>"#,
        message_attributes(message),
        escape(&english)
    );
}

/// A card face: `value` in a rounded box, `class` colouring it, `extra` its other attributes.
fn card(out: &mut String, x: u32, y: u32, (width, height): (u32, u32), value: u8, extra: &str) {
    let _ = write!(
        out,
        r##"<g{extra}><rect x="{x}" y="{y}" width="{width}" height="{height}" rx="6" fill="#fffdf5" stroke="#333" stroke-width="2"/><text x="{}" y="{}" font-size="{}" text-anchor="middle" font-weight="700">{value}</text></g>"##,
        x + width / 2,
        y + height / 2 + height / 7,
        height * 2 / 5
    );
}

/// The width of the table part.
const WIDTH: u32 = 640;

/// The table: the prize on offer, the last prize's bids shown, and the viewer's own hand, whose
/// cards are the buttons of its bid.
fn table(state: &State, viewer: Viewer) -> String {
    let mut body = String::new();
    match state.prize {
        Some(prize) => {
            text(&mut body, 20, 28, 18, &Message::new("board.prize"));
            card(&mut body, 20, 40, (90, 126), prize, "");
            let left = Message::new("board.face-down").number("left", state.deck.len() as u32);
            text(&mut body, 20, 190, 15, &left);
        }
        None => text(&mut body, 20, 28, 18, &Message::new("board.over")),
    }
    if state.settings.lowest_wins {
        text(&mut body, 20, 212, 15, &Message::new("board.lowest-wins"));
    }
    if let Some(last) = &state.last {
        let heading = Message::new("board.last").number("prize", last.prize);
        text(&mut body, 170, 28, 18, &heading);
        for (seat, &bid) in (0..).zip(&last.bids) {
            let x = 170 + seat * 110;
            card(
                &mut body,
                x,
                40,
                (60, 84),
                bid,
                &format!(r#" class="seat-{seat}""#),
            );
            let who = if last.taker == Some(seat) {
                Message::new("board.took").seat("seat", seat)
            } else {
                Message::new("board.bidder").seat("seat", seat)
            };
            text(&mut body, x, 144, 14, &who);
        }
        if last.taker.is_none() {
            text(&mut body, 170, 168, 15, &Message::new("board.tie"));
        }
    }
    let mut height = 230;
    if let Viewer::Seat(me) = viewer {
        hand(&mut body, state, me, &mut height);
    }
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif">{body}</svg>"#
    )
}

/// The viewer's hand under the table, from `height` down: each card a button while the viewer
/// is to bid, the secret bid raised and outlined once made.
fn hand(body: &mut String, state: &State, me: Seat, height: &mut u32) {
    let cards = &state.hands[me as usize];
    let bid = state.bids[me as usize];
    let caption = match bid {
        Some(card) => Message::new("board.your-bid").number("card", card),
        None if state.prize.is_some() => Message::new("board.your-hand"),
        None => return,
    };
    text(body, 20, *height, 16, &caption);
    let asked = bid.is_none();
    for (index, &value) in cards.iter().enumerate() {
        let x = 20 + index as u32 * 46;
        let raised = bid == Some(value);
        let y = *height + if raised { 10 } else { 22 };
        let extra = if asked {
            format!(r#" data-choice="{index}" style="cursor:pointer""#)
        } else if raised {
            format!(r#" class="seat-{me}""#)
        } else {
            String::new()
        };
        card(body, x, y, (40, 56), value, &extra);
    }
    *height += 90;
}

/// One seat's panel: its points, the prizes it took, whether it has bid, and its hand (every
/// hand is common knowledge; a bid not yet shown is still in it).
fn seat_panel(state: &State, seat: Seat) -> String {
    let mut body = format!(r#"<rect x="0" y="0" width="10" height="110" class="seat-{seat}"/>"#);
    let points = Message::new("board.points")
        .seat("seat", seat)
        .number("points", state.points(seat));
    text(&mut body, 20, 22, 16, &points);
    let status = match (state.prize, state.bids[seat as usize]) {
        (None, _) => None,
        (Some(_), Some(_)) => Some("board.has-bid"),
        (Some(_), None) => Some("board.bidding"),
    };
    if let Some(status) = status {
        text(&mut body, 20, 44, 14, &Message::new(status));
    }
    let won: Vec<String> = state.won[seat as usize].iter().map(u8::to_string).collect();
    let won = if won.is_empty() {
        Message::new("board.no-prize")
    } else {
        Message::new("board.won").text("prizes", won.join(" "))
    };
    text(&mut body, 20, 66, 14, &won);
    for (index, &value) in state.hands[seat as usize].iter().enumerate() {
        card(&mut body, 20 + index as u32 * 24, 78, (20, 28), value, "");
    }
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 340 110" font-family="sans-serif">{body}</svg>"#
    )
}

/// The board as `viewer` sees it: the table, then a panel per seat.
pub fn render(state: &State, viewer: Viewer) -> Vec<BoardPart> {
    let mut parts = vec![BoardPart::new("table", PartKind::Map, table(state, viewer))];
    parts.extend((0..state.seats()).map(|seat| {
        BoardPart::new(
            format!("seat-{seat}"),
            PartKind::Seat(seat),
            seat_panel(state, seat),
        )
    }));
    parts
}
