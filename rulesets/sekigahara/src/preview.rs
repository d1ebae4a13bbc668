//! What an answer would do, said before it is sent: the route's overruns, a stop in enemy
//! presence (a battle) and the forced-march card it costs.

use sdk::{Action, Message, NoteLevel, PreviewNote, Rejection, Seat};

use crate::ask::{Act, asks};
use crate::state::State;

/// The notes for an answer being composed.
pub fn preview(state: &State, seat: Seat, action: &Action) -> Result<Vec<PreviewNote>, Rejection> {
    let mut notes = Vec::new();
    let offer = asks(state)
        .into_iter()
        .find(|offer| offer.seat == seat)
        .ok_or(Rejection::NotYourTurn)?;
    for act in offer.into_draft_answer(action)?.into_moves() {
        let Act::Dest(route) = act else { continue };
        for &area in &route.overruns {
            notes.push(PreviewNote {
                level: NoteLevel::Info,
                text: Message::new("preview.overrun").arg("area", crate::names::area(state, area)),
            });
        }
        if route.battle {
            notes.push(PreviewNote {
                level: NoteLevel::Warning,
                text: Message::new("preview.stop")
                    .arg("area", crate::names::area(state, route.dest)),
            });
        }
        if route.needs_march {
            notes.push(PreviewNote {
                level: NoteLevel::Warning,
                text: Message::new("preview.march"),
            });
        }
        if route.needs_leader {
            notes.push(PreviewNote {
                level: NoteLevel::Info,
                text: Message::new("preview.leader"),
            });
        }
        notes.push(PreviewNote {
            level: NoteLevel::Info,
            text: Message::new("preview.path").number("steps", route.roads.len() as i64),
        });
    }
    Ok(notes)
}
