//! The board as one SVG part: a three-by-three grid, each mark a circle coloured by its seat,
//! each free cell clickable (`data-choice`) for the seat to move.

use sdk::{BoardPart, Game, PartKind, Viewer};

use crate::Board;

/// The board `viewer` sees.
pub fn parts(board: &Board, viewer: Viewer) -> Vec<BoardPart> {
    let mut svg = String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300">"#);
    let mine = board
        .pending()
        .first()
        .is_some_and(|decision| viewer.is(decision.seat));
    let mut choice = 0;
    for (cell, mark) in board.cells().iter().enumerate() {
        let (x, y) = (cell % 3 * 100, cell / 3 * 100);
        match mark {
            Some(seat) => {
                svg += &format!(
                    r#"<rect x="{x}" y="{y}" width="100" height="100" fill="white" stroke="black"/><circle class="seat-{seat}" cx="{}" cy="{}" r="35"/>"#,
                    x + 50,
                    y + 50
                )
            }
            None if mine => {
                svg += &format!(
                    r#"<rect x="{x}" y="{y}" width="100" height="100" fill="white" stroke="black" data-choice="{choice}"/>"#
                );
                choice += 1;
            }
            None => {
                svg += &format!(
                    r#"<rect x="{x}" y="{y}" width="100" height="100" fill="white" stroke="black"/>"#
                )
            }
        }
    }
    vec![BoardPart::new("board", PartKind::Map, svg + "</svg>")]
}
