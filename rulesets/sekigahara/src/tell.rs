//! The one place outcomes are worded: each [`Outcome`] as the catalogue messages that tell it.
//! Names of places, clans, blocks and cards come from [`crate::names`]; they read only the
//! board, so an outcome is told the same whenever it is told.

use sdk::{Event, Message, Rejection, Summary, SummaryLine, Tell};

use crate::data::{CardKind, Symbol};
use crate::names;
use crate::outcome::Outcome;
use crate::state::{Ending, Level, State, other};

impl Tell for Outcome {
    type Context = State;

    fn tell(&self, state: &State) -> Vec<Event> {
        if let Outcome::Drawn { side, block } = *self {
            // The side alone learns which block it drew.
            return vec![Event::private(
                side as u32,
                Message::new("event.drawn").arg("block", names::block_arg(state, block)),
            )];
        }
        if let Outcome::InBattle { area, outcome } = self {
            // Every step of a combat names its area, so the map marks where it is fought while
            // the step is told (the templates need not show it).
            let place = names::area(state, *area);
            let mut events = outcome.tell(state);
            for event in &mut events {
                if !event.text.args.iter().any(|(name, _)| name == "area") {
                    event.text.args.push(("area".to_string(), place.clone()));
                }
            }
            return events;
        }
        let event = Event::public(words(self, state));
        vec![match self {
            Outcome::WeekEnded { week, sides } => event.with_summary(Summary {
                title: Message::new("summary.week").number("week", i64::from(*week)),
                lines: sides
                    .iter()
                    .enumerate()
                    .flat_map(|(side, line)| {
                        [
                            SummaryLine {
                                seat: Some(side as u32),
                                label: Message::new("summary.holdings")
                                    .number("castles", i64::from(line.castles))
                                    .number("resources", i64::from(line.resources)),
                                value: Some(i64::from(line.points)),
                            },
                            SummaryLine {
                                seat: Some(side as u32),
                                label: Message::new("summary.blocks")
                                    .number("blocks", line.on_map as i64),
                                value: None,
                            },
                        ]
                    })
                    .collect(),
            }),
            _ => event,
        }]
    }
}

/// The public line of an outcome.
fn words(outcome: &Outcome, state: &State) -> Message {
    let area = |a: usize| names::area(state, a);
    let block = |b: usize| names::block_arg(state, b);
    let said = |key: &str, side: usize| Message::new(key).seat("side", side as u32);
    match *outcome {
        Outcome::ReinforceDiscarded { side, cards } => {
            said("event.reinforce-discard", side).number("cards", cards as i64)
        }
        Outcome::BidPlaced { side } => said("event.bid-placed", side),
        Outcome::Bids { winner, numbers } => Message::new("event.bids")
            .seat("winner", winner as u32)
            .number("n0", i64::from(numbers[0]))
            .number("n1", i64::from(numbers[1])),
        Outcome::First { side, week } => said("event.first", side).number("week", i64::from(week)),
        Outcome::LevelChosen { side, level } => {
            said("event.level", side).key("level", level_key(level))
        }
        Outcome::MovementCards { side, cards } => {
            said("event.movement-cards", side).number("cards", cards as i64)
        }
        Outcome::ActivatedMore { side, area: a } => {
            said("event.activate-more", side).arg("area", area(a))
        }
        Outcome::Activated { side, area: a } => said("event.activate", side).arg("area", area(a)),
        Outcome::MusterStarted { side } => said("event.muster-start", side),
        Outcome::MovementEnded { side } => said("event.movement-end", side),
        Outcome::SetOut {
            side,
            blocks,
            area: a,
        } => said("event.set-out", side)
            .number("blocks", blocks as i64)
            .arg("area", area(a)),
        Outcome::Stayed {
            side,
            blocks,
            area: a,
        } => said("event.stay", side)
            .number("blocks", blocks as i64)
            .arg("area", area(a)),
        Outcome::MovePlanned { side, from, to } => said("event.move-planned", side)
            .arg("from", area(from))
            .arg("to", area(to)),
        Outcome::ForcedMarch { side } => said("event.forced-march", side),
        Outcome::LeaderDeclared { side, block: b } => {
            said("event.leader-declared", side).arg("block", block(b))
        }
        Outcome::Moved {
            side,
            blocks,
            from,
            to,
            attack,
        } => said(
            if attack {
                "event.move-attack"
            } else {
                "event.move"
            },
            side,
        )
        .number("blocks", blocks as i64)
        .arg("from", area(from))
        .arg("to", area(to)),
        Outcome::Overrun {
            side,
            area: a,
            blocks,
        } => said("event.overrun", side)
            .arg("area", area(a))
            .number("blocks", blocks as i64),
        Outcome::MusterAChosen {
            side,
            clan,
            area: a,
        } => said("event.muster-a-chosen", side)
            .arg("clan", names::clan(state, clan))
            .arg("area", area(a)),
        Outcome::MusterBChosen { side } => said("event.muster-b-chosen", side),
        Outcome::MusterBBlock { side } => said("event.muster-b-block", side),
        Outcome::Mustered {
            side,
            blocks,
            area: a,
            shown,
        } => said(
            if shown {
                "event.muster-a"
            } else {
                "event.muster-b"
            },
            side,
        )
        .number("blocks", blocks as i64)
        .arg("area", area(a)),
        Outcome::MusterShown { side, block: b } => {
            said("event.muster-shown", side).arg("block", block(b))
        }
        Outcome::BoxArrived {
            side,
            block: b,
            area: a,
        } => said("event.box-arrives", side)
            .arg("block", block(b))
            .arg("area", area(a)),
        Outcome::BattleStarted { attacker, area: a } => Message::new("event.battle")
            .seat("attacker", attacker as u32)
            .arg("area", area(a)),
        Outcome::SiegeAnswered {
            side,
            area: a,
            withdraw,
        } => said(
            if withdraw {
                "event.siege"
            } else {
                "event.field-battle"
            },
            side,
        )
        .arg("area", area(a)),
        Outcome::NoLeader { side } => said("event.no-leader", side),
        Outcome::Deployed {
            side,
            block: b,
            with_card,
            base,
            clan,
            special,
            impact,
            running,
        } => {
            let symbol = state.board.blocks[b].symbol;
            // A block without a symbol is told without one ("no symbol" said nothing useful).
            let key = match (with_card, symbol) {
                (true, Some(_)) => "event.deploy",
                (true, None) => "event.deploy-plain",
                (false, _) => "event.deploy-leader",
            };
            said(key, side)
                .arg("block", block(b))
                .key("symbol", symbol_key(symbol))
                .number("base", base)
                .number("clan", clan)
                .number("special", special)
                .number("impact", impact)
                .number("own", running[side])
                .number("other", running[other(side)])
        }
        Outcome::CardPlayed { side, card } => {
            card_words(state, said("event.card-played", side), card)
        }
        Outcome::ChallengeRefuted {
            challenger,
            side,
            card,
        } => {
            let text = Message::new("event.challenge-refuted")
                .seat("challenger", challenger as u32)
                .seat("side", side as u32);
            card_words(state, text, card)
        }
        Outcome::BlockTurned {
            challenger,
            block: b,
            impact,
            running,
        } => Message::new("event.block-turned")
            .seat("challenger", challenger as u32)
            .arg("block", block(b))
            .number("impact", impact)
            .number("own", running[challenger])
            .number("other", running[other(challenger)]),
        Outcome::NoChallenge { side } => said("event.no-challenge", side),
        Outcome::Passed { side } => said("event.pass", side),
        Outcome::BattleWon {
            side,
            area: a,
            impact,
        } => said("event.battle-won", side)
            .arg("area", area(a))
            .number("winner", impact[side])
            .number("loser", impact[other(side)]),
        Outcome::Casualty { side, block: b } => said("event.casualty", side).arg("block", block(b)),
        Outcome::Refuge {
            side,
            blocks,
            area: a,
        } => said("event.refuge", side)
            .number("blocks", blocks as i64)
            .arg("area", area(a)),
        Outcome::NoRetreat { side, block: b } => {
            said("event.no-retreat", side).arg("block", block(b))
        }
        Outcome::Retreated {
            side,
            blocks,
            from,
            to,
        } => said("event.retreat", side)
            .number("blocks", blocks as i64)
            .arg("from", area(from))
            .arg("to", area(to)),
        Outcome::Replenished { side, cards } => {
            said("event.replenish", side).number("cards", cards as i64)
        }
        Outcome::DiskLost { disk, area: a } => Message::new("event.disk-lost")
            .arg("disk", names::disk(state, disk))
            .arg("area", area(a)),
        Outcome::WonAtOnce { side, reason } => said(
            match reason {
                Ending::Commander => "event.win-commander",
                _ => "event.win-disk",
            },
            side,
        ),
        Outcome::Reinforced {
            side,
            cards,
            blocks,
        } => said("event.reinforce", side)
            .number("cards", cards as i64)
            .number("blocks", blocks as i64),
        Outcome::WeekEnded { week, .. } => {
            Message::new("event.week-end").number("week", i64::from(week))
        }
        Outcome::WonOnPoints { side, points } => said("event.win-points", side)
            .number("p0", i64::from(points[0]))
            .number("p1", i64::from(points[1])),
        Outcome::Drawn { .. } | Outcome::InBattle { .. } => unreachable!("told above"),
    }
}

/// A card's number, kind and clan appended to `text`.
fn card_words(state: &State, text: Message, card: usize) -> Message {
    let def = &state.board.cards[card];
    let text = text
        .number("n", i64::from(def.number))
        .key("kind", kind_key(def.kind));
    match def.clan {
        Some(clan) => text.arg("clan", names::clan(state, clan)),
        None => text,
    }
}

/// The catalogue key of a card kind.
pub fn kind_key(kind: CardKind) -> &'static str {
    match kind {
        CardKind::Double => "kind.double",
        CardKind::Sword => "kind.sword",
        CardKind::Plain => "kind.plain",
        CardKind::LoyaltyChallenge => "kind.challenge",
    }
}

/// The catalogue key of a block's symbol.
pub fn symbol_key(symbol: Option<Symbol>) -> &'static str {
    match symbol {
        Some(Symbol::Gun) => "symbol.gun",
        Some(Symbol::Cavalry) => "symbol.cavalry",
        None => "symbol.none",
    }
}

/// The catalogue key of a movement level.
pub fn level_key(level: Level) -> &'static str {
    match level {
        Level::None => "level.none",
        Level::Minimal => "level.minimal",
        Level::Limited => "level.limited",
        Level::Full => "level.full",
    }
}

/// Why a move along a route that no longer exists is refused.
pub fn route_refused() -> Rejection {
    Rejection::Illegal(Message::new("reject.route"))
}
