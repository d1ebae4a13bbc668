//! Tic-tac-toe, the smallest complete ruleset: two seats take turns marking one of nine cells;
//! three in a row wins, a full board is a draw. The first example of `docs/sdk.md`, and the game
//! `cargo xtask bench` plays on Tenka and on boardgame.io side by side.

use sdk::*;

/// The ruleset.
pub struct TicTacToe;

/// A game: each cell empty (`None`) or marked by a seat.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Board {
    cells: [Option<Seat>; 9],
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
    fn winner(&self) -> Option<Seat> {
        LINES.iter().find_map(|&[a, b, c]| {
            let seat = self.cells[a]?;
            (self.cells[b] == Some(seat) && self.cells[c] == Some(seat)).then_some(seat)
        })
    }

    fn free(&self) -> impl Iterator<Item = usize> + '_ {
        (0..9).filter(|&cell| self.cells[cell].is_none())
    }

    fn over(&self) -> bool {
        self.winner().is_some() || self.free().next().is_none()
    }

    /// Seat 0 moves when both have marked as many cells.
    fn to_move(&self) -> Seat {
        (self.cells.iter().flatten().count() % 2) as Seat
    }
}

impl Ruleset for TicTacToe {
    type Game = Board;

    fn info() -> RulesetInfo {
        RulesetInfo {
            id: "tictactoe".into(),
            name: "Tic-tac-toe".into(),
            version: "0.1.0".into(),
            min_seats: 2,
            max_seats: 2,
            maps: Vec::new(), // No map: the board is always three by three.
            options: Vec::new(),
            languages: Self::catalogues().languages(),
        }
    }

    fn validate_map(_map: &str) -> Vec<Diagnostic> {
        Vec::new()
    }

    fn catalogues() -> &'static Catalogues {
        static CATALOGUES: Catalogues = sdk::catalogues! { "en" => "../catalogue.en.toml" };
        &CATALOGUES
    }

    fn create(_: &Setup, _: &Options, _: &mut dyn Table) -> Result<Board, SetupError> {
        Ok(Board::default())
    }

    fn restore(bytes: &[u8]) -> Result<Board, String> {
        let mut board = Board::default();
        for (cell, byte) in board.cells.iter_mut().zip(bytes) {
            *cell = byte.checked_sub(1).map(Seat::from);
        }
        Ok(board)
    }
}

impl Game for Board {
    fn pending(&self) -> Vec<PendingDecision> {
        if self.over() {
            return Vec::new();
        }
        let choices = self
            .free()
            .map(|cell| {
                Choice::new(
                    cell.to_string(),
                    Message::new("cell").number("n", cell as i64 + 1),
                )
            })
            .collect();
        vec![PendingDecision {
            seat: self.to_move(),
            prompt: Message::new("prompt.mark"),
            private: false,
            kind: DecisionKind::Choose(ChooseDecision {
                choices,
                min: 1,
                max: 1,
            }),
            back: None,
        }]
    }

    fn apply(
        &mut self,
        seat: Seat,
        action: &Action,
        _: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        // The SDK has checked the seat and that exactly one listed choice is picked.
        let Action::Choose(picks) = action else {
            return Err(Rejection::Malformed("choose a cell".into()));
        };
        let cell = self.free().nth(picks[0] as usize).expect("a listed choice");
        self.cells[cell] = Some(seat);
        let text = Message::new("event.mark")
            .seat("seat", seat)
            .number("n", cell as i64 + 1);
        Ok(vec![Event::public(text)])
    }

    fn view(&self, _viewer: Viewer) -> String {
        let cells: Vec<String> = self
            .cells
            .iter()
            .map(|cell| match cell {
                Some(seat) => seat.to_string(),
                None => "null".into(),
            })
            .collect();
        format!("{{\"cells\":[{}]}}", cells.join(","))
    }

    fn render(&self, viewer: Viewer) -> Vec<BoardPart> {
        let mut svg =
            String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 300">"#);
        let mine = self
            .pending()
            .first()
            .is_some_and(|decision| viewer.is(decision.seat));
        let mut choice = 0;
        for (cell, mark) in self.cells.iter().enumerate() {
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

    fn result(&self) -> Option<GameResult> {
        if !self.over() {
            return None;
        }
        let winner = self.winner();
        let placings = (0..2)
            .map(|seat| {
                let won = winner == Some(seat);
                let rank = if winner.is_some() && !won { 2 } else { 1 };
                Placing {
                    seat,
                    rank,
                    score: i64::from(won),
                    tie_breaks: Vec::new(),
                }
            })
            .collect();
        let summary = match winner {
            Some(seat) => Message::new("result.win").seat("seat", seat),
            None => Message::new("result.draw"),
        };
        Some(GameResult {
            placings,
            breakdown: Vec::new(),
            summary,
        })
    }

    fn snapshot(&self) -> Vec<u8> {
        self.cells
            .iter()
            .map(|cell| cell.map_or(0, |seat| seat as u8 + 1))
            .collect()
    }
}

sdk::register_ruleset!(TicTacToe);

#[cfg(test)]
mod tests {
    use super::*;
    use sdk::testing::SeededTable;

    #[test]
    fn the_first_seat_wins_on_the_diagonal_when_both_take_the_lowest_free_cell() {
        let mut board = Board::default();
        let mut table = SeededTable::new([0; 32]);
        for turn in 0..7 {
            let pending = board.pending();
            assert_eq!(pending.len(), 1);
            assert_eq!(pending[0].seat, turn % 2);
            board
                .apply(turn % 2, &Action::Choose(vec![0]), &mut table)
                .unwrap();
        }
        assert!(board.pending().is_empty());
        let result = board.result().unwrap();
        assert_eq!((result.placings[0].seat, result.placings[0].rank), (0, 1));
        assert_eq!(TicTacToe::restore(&board.snapshot()).unwrap(), board);
    }
}
