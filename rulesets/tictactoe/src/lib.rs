//! Tic-tac-toe, the smallest complete ruleset: two seats take turns marking one of nine cells;
//! three in a row wins, a full board is a draw. The first example of `docs/sdk.md`, and the game
//! `cargo xtask bench` plays on Tenka and on boardgame.io side by side.

use sdk::*;

mod board;
mod render;

pub use board::Board;

/// The ruleset.
pub struct TicTacToe;

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

/// Each free cell is offered as the move of marking it, in order.
impl Play for Board {
    type Move = usize;

    fn offers(&self) -> Vec<Offer<usize>> {
        if self.over() {
            return Vec::new();
        }
        let label = |cell: usize| Message::new("cell").number("n", cell as i64 + 1);
        let choices = self
            .free()
            .map(|cell| (Choice::new(cell.to_string(), label(cell)), cell))
            .collect();
        let prompt = Message::new("prompt.mark");
        vec![Offer::choose_one(self.to_move(), prompt, choices)]
    }

    fn play(
        &mut self,
        seat: Seat,
        answer: Answer<usize>,
        _: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        // The SDK has checked the seat and read the one cell picked.
        let cell = answer.single().expect("one choice is picked");
        self.cells[cell] = Some(seat);
        let text = Message::new("event.mark")
            .seat("seat", seat)
            .number("n", cell as i64 + 1);
        Ok(vec![Event::public(text)])
    }
}

impl Game for Board {
    decided_by_offers!();

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
        render::parts(self, viewer)
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
