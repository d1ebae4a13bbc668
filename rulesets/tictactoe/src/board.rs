//! The board and what can be read off it: who won, which cells are free, whose turn it is.

use sdk::Seat;

/// A game: each cell empty (`None`) or marked by a seat.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Board {
    pub(crate) cells: [Option<Seat>; 9],
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

impl Board {
    pub(crate) fn winner(&self) -> Option<Seat> {
        LINES.iter().find_map(|&[a, b, c]| {
            let seat = self.cells[a]?;
            (self.cells[b] == Some(seat) && self.cells[c] == Some(seat)).then_some(seat)
        })
    }

    /// Whose mark each cell holds, row by row.
    pub fn cells(&self) -> &[Option<Seat>; 9] {
        &self.cells
    }

    pub(crate) fn free(&self) -> impl Iterator<Item = usize> + '_ {
        (0..9).filter(|&cell| self.cells[cell].is_none())
    }

    pub(crate) fn over(&self) -> bool {
        self.winner().is_some() || self.free().next().is_none()
    }

    /// Seat 0 moves when both have marked as many cells.
    pub(crate) fn to_move(&self) -> Seat {
        (self.cells.iter().flatten().count() % 2) as Seat
    }
}
