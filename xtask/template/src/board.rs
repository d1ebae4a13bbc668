//! What each viewer sees: the state as JSON (`view`) and the board as SVG (`render`), with
//! nothing the viewer may not know. The placeholder game hides nothing.

use std::fmt::Write as _;

use sdk::svg::{escape, message_attributes};
use sdk::{BoardPart, Message, PartKind, Viewer};

use super::rules::State;

/// The state as `viewer` may see it.
pub fn view(state: &State, _viewer: Viewer) -> serde_json::Value {
    serde_json::json!({
        "left": state.left,
        "to_move": state.to_move,
        "most_taken": state.settings.most_taken,
        "winner": state.winner,
    })
}

/// A text the client shows in the reader's language (`data-msg`), English in the document.
fn text(out: &mut String, x: u32, y: u32, message: &Message) {
    let english = super::CATALOGUES
        .english()
        .render(message, &|seat| format!("Seat {}", seat + 1));
    let _ = write!(
        out,
        r#"<text x="{x}" y="{y}" font-size="18" {}>{}</text>"#,
        message_attributes(message),
        escape(&english)
    );
}

/// The pile, one counter per circle. When the viewer is to move, each of the last counters is a
/// button that takes it and every counter after it.
pub fn render(state: &State, viewer: Viewer) -> Vec<BoardPart> {
    let per_row = 10;
    let rows = state.settings.counters.div_ceil(per_row);
    let height = 70 + rows * 50;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 540 {height}" font-family="sans-serif">"#
    );
    let caption = match state.winner {
        Some(seat) => Message::new("result.win").seat("seat", seat),
        None => Message::new("board.left").number("left", state.left),
    };
    text(&mut svg, 20, 32, &caption);
    let mine = state.winner.is_none() && viewer.is(state.to_move);
    let takes = state.takes();
    for counter in 0..state.left {
        let (x, y) = (40 + counter % per_row * 50, 80 + counter / per_row * 50);
        // Counting from the end of the pile: the last counter takes one, the one before two.
        let from_end = state.left - counter;
        let button = if mine && takes.contains(&from_end) {
            format!(r#" data-choice="{}""#, from_end - takes.start())
        } else {
            String::new()
        };
        let class = if state.winner.is_none() {
            format!("seat-{}", state.to_move)
        } else {
            "pile".into()
        };
        let _ = write!(
            svg,
            r##"<circle class="{class}" cx="{x}" cy="{y}" r="20" stroke="#333"{button}/>"##
        );
    }
    svg.push_str("</svg>");
    vec![BoardPart::new("pile", PartKind::Map, svg)]
}
