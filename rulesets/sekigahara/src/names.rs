//! How places, clans and blocks are named in messages: by their catalogue key when the shipped
//! catalogue has one (the shipped board), by the board file's own name otherwise (a table's
//! own board).

use sdk::{Catalogue, Message, MessageArg};

use crate::state::State;

/// The catalogue key of a template that shows a name as it is.
pub const NAME_KEY: &str = "name";

/// The English catalogue, which has every key the ruleset emits.
fn english() -> &'static Catalogue {
    crate::CATALOGUES.english()
}

fn arg(kind: &str, id: &str, name: &str) -> MessageArg {
    english().key_or_text(format!("{kind}.{id}"), name)
}

/// The catalogue key of an area, used as its `data-place` and as a `key` message argument.
pub fn place_key(state: &State, area: usize) -> String {
    format!("area.{}", state.board.areas[area].id)
}

/// An area as a message argument.
pub fn area(state: &State, area: usize) -> MessageArg {
    let def = &state.board.areas[area];
    arg("area", &def.id, &def.name)
}

/// A disk as a message argument.
pub fn disk(state: &State, d: usize) -> MessageArg {
    let def = &state.board.disks[d];
    arg("disk", &def.id, &def.name)
}

/// A clan as a message argument.
pub fn clan(state: &State, clan: usize) -> MessageArg {
    let def = &state.board.clans[clan];
    arg("clan", &def.id, &def.name)
}

/// A block as a message: its own name when it has one, else its clan and mon.
pub fn block(state: &State, block: usize) -> Message {
    let def = &state.board.blocks[block];
    let key = format!("block.{}", def.id);
    if english().get(&key).is_some() {
        Message::new(key)
    } else if let Some(name) = &def.name {
        Message::new(NAME_KEY).text(NAME_KEY, name.clone())
    } else {
        Message::new("block.generic")
            .arg("clan", clan(state, def.clan))
            .number("mon", i64::from(def.mon))
    }
}

/// A block as a message argument (its label flattened to text or key).
pub fn block_arg(state: &State, b: usize) -> MessageArg {
    let def = &state.board.blocks[b];
    let key = format!("block.{}", def.id);
    // A block without a name of its own is told by its clan and mon, in the reader's language
    // when the catalogue names that clan (the shipped board), else as the board file writes it.
    let unit = format!("unit.{}-{}", state.board.clans[def.clan].id, def.mon);
    if english().get(&key).is_some() {
        MessageArg::Key(key)
    } else if def.name.is_none() && english().get(&unit).is_some() {
        MessageArg::Key(unit)
    } else {
        MessageArg::Text(
            def.name
                .clone()
                .unwrap_or_else(|| format!("{} {}", state.board.clans[def.clan].name, def.mon)),
        )
    }
}

/// A card as a message.
pub fn card(state: &State, card: usize) -> Message {
    let def = &state.board.cards[card];
    match def.clan {
        None => Message::new("card.challenge").number("n", i64::from(def.number)),
        Some(c) => Message::new(match def.kind {
            crate::data::CardKind::Double => "card.double",
            crate::data::CardKind::Sword => "card.sword",
            _ => "card.plain",
        })
        .arg("clan", clan(state, c))
        .number("n", i64::from(def.number)),
    }
}
