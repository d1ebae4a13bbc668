//! The pauses of the game: a season's summary after its last action, and each winter's scoring
//! (per seat the points for provinces, buildings and regional majorities, the rice left, the
//! revolts and how they ended) before the next year starts.

use sdk::{Message, ScoreLine, Seat, Summary, SummaryLine};

use crate::state::State;

/// The catalogue key of a season (0 spring, 1 summer, 2 autumn).
pub fn season_key(season: u32) -> &'static str {
    match season {
        0 => "season.spring",
        1 => "season.summer",
        _ => "season.autumn",
    }
}

fn seat_line(seat: Seat, label: Message, value: i64) -> SummaryLine {
    SummaryLine {
        seat: Some(seat),
        label,
        value: Some(value),
    }
}

/// Where every seat stands after the season's last action: provinces, armies on the board, war
/// chests and rice.
pub fn season(state: &State) -> Summary {
    let mut lines = Vec::new();
    for seat in 0..state.seats {
        let player = &state.players[seat as usize];
        lines.push(seat_line(
            seat,
            Message::new("summary.provinces"),
            state.provinces_of(seat).len() as i64,
        ));
        lines.push(seat_line(
            seat,
            Message::new("summary.armies"),
            i64::from(state.armies_on_board(seat)),
        ));
        lines.push(seat_line(
            seat,
            Message::new("summary.chests-held"),
            i64::from(player.chests),
        ));
        lines.push(seat_line(
            seat,
            Message::new("summary.rice-held"),
            i64::from(player.rice),
        ));
    }
    Summary {
        title: Message::new("summary.season")
            .key("season", season_key(state.season))
            .number("year", state.year),
        lines,
    }
}

/// A winter's scoring: first the revolts and their outcome (table lines), then per seat the rice
/// left after the winter loss, each scoring line of `scores`, this winter's points and the
/// victory points in all.
pub fn winter(state: &State, scores: &[ScoreLine], loss: u32) -> Summary {
    let mut lines = Vec::new();
    for revolt in &state.winter_revolts {
        let key = if revolt.kept {
            "summary.revolt-kept"
        } else {
            "summary.revolt-lost"
        };
        lines.push(SummaryLine {
            seat: None,
            label: Message::new(key)
                .arg("province", state.province_arg(revolt.province))
                .seat("player", revolt.owner),
            value: None,
        });
    }
    if state.winter_revolts.is_empty() {
        lines.push(SummaryLine {
            seat: None,
            label: Message::new("summary.no-revolts"),
            value: None,
        });
    }
    // The value column holds this winter's points only: the rice kept and the running total of
    // every winter so far are said in words, so that no line reads as points it is not.
    for seat in 0..state.seats {
        let player = &state.players[seat as usize];
        lines.push(SummaryLine {
            seat: Some(seat),
            label: Message::new("summary.rice-left")
                .number("loss", loss)
                .number("rice", player.rice),
            value: None,
        });
        let mut this_winter = 0;
        for score in scores.iter().filter(|l| l.seat == seat) {
            this_winter += score.points;
            lines.push(seat_line(seat, score.label.clone(), score.points));
        }
        lines.push(seat_line(
            seat,
            Message::new("summary.winter-points"),
            this_winter,
        ));
        lines.push(SummaryLine {
            seat: Some(seat),
            label: Message::new("summary.total")
                .number("year", state.year)
                .number("vp", player.vp),
            value: None,
        });
    }
    Summary {
        title: Message::new("summary.winter").number("year", state.year),
        lines,
    }
}
