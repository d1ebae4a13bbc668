//! The words of the rules: every outcome ([`Outcome`]) told as the events players read, with the
//! catalogue keys of the log. The only module that turns what happened into text; the rules
//! themselves hold no catalogue key.

use sdk::{Event, Message};

use crate::data::ProvinceId;
use crate::outcome::{BattleEnd, Outcome, SkipReason};
use crate::state::{CardRef, State};
use crate::summary::season_key;

/// The catalogue key of why an action was skipped.
pub fn reason_key(reason: SkipReason) -> &'static str {
    match reason {
        SkipReason::ProvinceLost => "reason.province-lost",
        SkipReason::NoChests => "reason.no-chests",
        SkipReason::NoArmies => "reason.no-armies",
        SkipReason::AlreadyBuilt => "reason.already-built",
        SkipReason::NoSpace => "reason.no-space",
        SkipReason::OneArmy => "reason.one-army",
        SkipReason::NoTarget => "reason.no-target",
    }
}

impl sdk::Tell for Outcome {
    type Context = State;

    fn tell(&self, state: &State) -> Vec<Event> {
        events(state, self)
    }
}

/// The events that tell `outcome`, from `state` as it stands when it happened (the names come
/// from the board; the season's summary from where everyone stands).
pub fn events(state: &State, outcome: &Outcome) -> Vec<Event> {
    let place = |p: ProvinceId| state.province_arg(p);
    let cards = state.board.cards();
    let public = |message: Message| vec![Event::public(message)];
    match outcome {
        Outcome::DraftFirst { seat } => {
            public(Message::new("log.draft-first").seat("player", *seat))
        }
        Outcome::TookFaceUp { seat, province } => public(
            Message::new("log.takes-face-up")
                .seat("player", *seat)
                .arg("province", place(*province)),
        ),
        Outcome::DrewBlind { seat, province } => vec![
            Event::public(Message::new("log.draws-blind").seat("player", *seat)),
            Event::private(
                *seat,
                Message::new("log.drew-blind").arg("province", place(*province)),
            ),
        ],
        Outcome::Claimed {
            seat,
            province,
            armies,
        } => public(
            Message::new("log.claimed")
                .seat("player", *seat)
                .arg("province", place(*province))
                .number("armies", *armies),
        ),
        Outcome::YearBegan { year } => public(Message::new("log.year").number("year", *year)),
        Outcome::SeasonBegan { year, season } => public(
            Message::new("log.season")
                .key("season", season_key(*season))
                .number("year", *year),
        ),
        Outcome::Planned { seat } => public(Message::new("log.planned").seat("player", *seat)),
        Outcome::EventDrawn { event } => {
            public(Message::new("log.event").key("event", cards.events[*event].name.clone()))
        }
        Outcome::Bid { seat, bid } => public(match bid {
            Some(CardRef::Chest(paid)) => Message::new("log.bid-chests")
                .seat("player", *seat)
                .number("chests", *paid),
            Some(CardRef::Province(p)) => Message::new("log.bid-province")
                .seat("player", *seat)
                .arg("province", place(*p)),
            None => Message::new("log.bid-none").seat("player", *seat),
        }),
        Outcome::SpecialTaken {
            seat,
            space,
            special,
        } => public(
            Message::new("log.special")
                .seat("player", *seat)
                .key("special", cards.specials[*special].name.clone())
                .number("space", *space as i64 + 1),
        ),
        Outcome::TurnOrder { seat, position } => public(
            Message::new("log.turn-order")
                .seat("player", *seat)
                .number("position", *position as i64 + 1),
        ),
        Outcome::ActionRevealed { action, slot } => public(
            Message::new("log.action-revealed")
                .key("action", cards.actions[*action].name.clone())
                .number("position", *slot as i64 + 1),
        ),
        Outcome::Skipped {
            seat,
            action,
            reason,
        } => public(
            Message::new("log.skipped")
                .seat("player", *seat)
                .key("action", cards.actions[*action].name.clone())
                .key("reason", reason_key(*reason)),
        ),
        Outcome::Deployed {
            seat,
            province,
            armies,
        } => public(
            Message::new("log.deployed")
                .seat("player", *seat)
                .number("armies", *armies)
                .arg("province", place(*province)),
        ),
        Outcome::RevoltMarkersRemoved { province, markers } => public(
            Message::new("log.revolt-removed")
                .arg("province", place(*province))
                .number("markers", *markers),
        ),
        Outcome::Built {
            seat,
            action,
            province,
        } => public(
            Message::new("log.built")
                .seat("player", *seat)
                .key("action", cards.actions[*action].name.clone())
                .arg("province", place(*province)),
        ),
        Outcome::RiceConfiscated {
            seat,
            province,
            rice,
        } => public(
            Message::new("log.rice")
                .seat("player", *seat)
                .number("rice", *rice)
                .arg("province", place(*province)),
        ),
        Outcome::TaxesCollected {
            seat,
            province,
            chests,
        } => public(
            Message::new("log.taxes")
                .seat("player", *seat)
                .number("chests", *chests)
                .arg("province", place(*province)),
        ),
        Outcome::Moved {
            seat,
            from,
            to,
            armies,
        } => public(
            Message::new("log.moved")
                .seat("player", *seat)
                .number("armies", *armies)
                .arg("from", place(*from))
                .arg("to", place(*to)),
        ),
        Outcome::MoveChosen { seat, from, to } => public(
            Message::new("log.move-chosen")
                .seat("player", *seat)
                .arg("from", place(*from))
                .arg("to", place(*to)),
        ),
        Outcome::TargetChosen { seat, from, to } => public(
            Message::new("log.target-chosen")
                .seat("player", *seat)
                .arg("from", place(*from))
                .arg("to", place(*to)),
        ),
        Outcome::BattleArmies { seat, battle } => public(
            Message::new("log.battle-armies")
                .seat("player", *seat)
                .number("armies", battle.armies)
                .arg("from", place(battle.from))
                .arg("to", place(battle.to)),
        ),
        Outcome::DefenceAsked {
            seat,
            defender,
            battle,
        } => public(
            Message::new("log.defence-asked")
                .seat("player", *seat)
                .seat("defender", *defender)
                .number("armies", battle.armies + battle.attack_bonus)
                .arg("from", place(battle.from))
                .arg("to", place(battle.to)),
        ),
        Outcome::MoveDeclined { seat, from } => public(
            Message::new("log.no-move")
                .seat("player", *seat)
                .arg("province", place(*from)),
        ),
        Outcome::TargetWithdrawn { seat, from } => public(
            Message::new("log.target-withdrawn")
                .seat("player", *seat)
                .arg("from", place(*from)),
        ),
        Outcome::NeutralBattle {
            seat,
            from,
            to,
            armies,
            farmers,
            out,
            out_farmers,
            won,
        } => {
            let key = if *won {
                "log.attack-neutral-won"
            } else {
                "log.attack-neutral-lost"
            };
            public(
                Message::new(key)
                    .seat("player", *seat)
                    .arg("to", place(*to))
                    .arg("from", place(*from))
                    .number("armies", *armies)
                    .number("farmers", *farmers)
                    .number("out", *out)
                    .number("outfarmers", *out_farmers)
                    .number("left", out.saturating_sub(*out_farmers)),
            )
        }
        Outcome::Battle {
            seat,
            defender,
            from,
            to,
            armies,
            defending,
            out,
            out_defending,
            out_farmers,
            end,
            left,
        } => {
            let key = match end {
                BattleEnd::Won => "log.attack-player-won",
                BattleEnd::Held => "log.attack-player-held",
                BattleEnd::Devastated => "log.attack-player-devastated",
            };
            public(
                Message::new(key)
                    .seat("player", *seat)
                    .arg("to", place(*to))
                    .arg("from", place(*from))
                    .seat("defender", *defender)
                    .number("armies", *armies)
                    .number("defending", *defending)
                    .number("out", *out)
                    .number("outdefending", *out_defending)
                    .number("outfarmers", *out_farmers)
                    .number("left", *left),
            )
        }
        Outcome::Revolt {
            province,
            owner,
            farmers,
            armies,
            out_farmers,
            out,
            kept,
        } => {
            let key = if *kept {
                "log.revolt-put-down"
            } else {
                "log.revolt-devastated"
            };
            public(
                Message::new(key)
                    .arg("province", place(*province))
                    .seat("player", *owner)
                    .number("farmers", *farmers)
                    .number("armies", *armies)
                    .number("outfarmers", *out_farmers)
                    .number("out", *out)
                    .number("left", out.saturating_sub(*out_farmers)),
            )
        }
        Outcome::SeasonOver { year, season } => vec![
            // A pause after the season's last action, with where everyone stands.
            Event::public(
                Message::new("log.season-over")
                    .key("season", season_key(*season))
                    .number("year", *year),
            )
            .with_summary(crate::summary::season(state)),
        ],
        Outcome::WinterBegan { year } => public(Message::new("log.winter").number("year", *year)),
        Outcome::WinterRice {
            seat,
            loss,
            rice,
            shortfall,
            revolts,
        } => public(
            Message::new("log.winter-rice")
                .seat("player", *seat)
                .number("loss", *loss)
                .number("rice", *rice)
                .number("shortfall", *shortfall)
                .number("revolts", *revolts),
        ),
        Outcome::Score { seat, vp } => public(
            Message::new("log.score")
                .seat("player", *seat)
                .number("vp", *vp),
        ),
        Outcome::WinterScored { year, lines, loss } => vec![
            // Asks the host to keep this winter's board and scores in the game record, and the
            // players to pause on the scoring.
            Event::public(Message::new("milestone.winter-scored").number("year", *year))
                .with_summary(crate::summary::winter(state, lines, *loss)),
        ],
        Outcome::GameOver => public(Message::new("log.game-over")),
    }
}
