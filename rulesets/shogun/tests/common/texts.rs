//! Every text a player reads, formatted with the ruleset's own catalogues in every language it
//! ships: the prompts, choices, items and slots of every pending decision, every event with its
//! summary, the result, the titles of the board's parts and every translatable text of their SVG
//! (`data-msg` + `data-args`). A text is wrong when a placeholder is left unfilled (`{name}`), a
//! key is shown raw, or it reads "null", "undefined" or "NaN", which is what a client prints for
//! an argument that is absent or not a number.
//!
//! Shared by the rule tests of every shipped ruleset (Shogun, Honshu, tic-tac-toe), which include
//! this file by path, so the one check is the same for all of them.

#![allow(
    dead_code,
    reason = "each ruleset's test uses a different part of the helpers"
)]

use std::collections::BTreeMap;

use sdk::{Audience, Catalogue, DecisionKind, Event, Game, Message, MessageArg, Ruleset, Viewer};

/// The catalogues of every language a ruleset lists, read and with their plural rules.
pub struct Catalogues {
    pub by_language: BTreeMap<String, Catalogue>,
}

impl Catalogues {
    /// Reads the catalogue of every language in `R::info().languages`.
    pub fn of<R: Ruleset>() -> Catalogues {
        let by_language = R::info()
            .languages
            .iter()
            .map(|language| {
                let text = R::catalogue(language)
                    .unwrap_or_else(|| panic!("no catalogue for listed language {language}"));
                let catalogue = Catalogue::from_toml(text)
                    .unwrap_or_else(|e| panic!("{language}: {e}"))
                    .with_language(language.as_str());
                (language.clone(), catalogue)
            })
            .collect();
        Catalogues { by_language }
    }

    /// What is wrong with `message` as read in each language, one finding per problem.
    pub fn check(&self, message: &Message, context: &str) -> Vec<String> {
        let mut findings = Vec::new();
        for (language, catalogue) in &self.by_language {
            if catalogue.get(&message.key).is_none() {
                findings.push(format!(
                    "{context} [{language}]: no template for `{}`",
                    message.key
                ));
                continue;
            }
            for (name, arg) in &message.args {
                if let MessageArg::Key(key) = arg
                    && catalogue.get(key).is_none()
                {
                    findings.push(format!(
                        "{context} [{language}]: argument `{name}` of `{}` names `{key}`, which the catalogue lacks",
                        message.key
                    ));
                }
                if let MessageArg::Text(text) = arg
                    && text.is_empty()
                {
                    findings.push(format!(
                        "{context} [{language}]: argument `{name}` of `{}` is empty",
                        message.key
                    ));
                }
            }
            let text = catalogue.render(message, &|seat| format!("Seat {}", seat + 1));
            for placeholder in sdk::plural::placeholders(catalogue.get(&message.key).unwrap_or(""))
            {
                if text.contains(&format!("{{{placeholder}}}")) {
                    findings.push(format!(
                        "{context} [{language}]: `{}` leaves {{{placeholder}}} unfilled: {text:?}",
                        message.key
                    ));
                }
            }
            for word in ["null", "undefined", "NaN"] {
                if text
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|part| part == word)
                {
                    findings.push(format!(
                        "{context} [{language}]: `{}` reads {word:?}: {text:?}",
                        message.key
                    ));
                }
            }
        }
        findings
    }
}

/// Every message a pending decision shows: the prompt, then each choice's label and detail, or
/// each item's and slot's label.
pub fn decision_messages(decision: &sdk::PendingDecision) -> Vec<Message> {
    let mut out = vec![decision.prompt.clone()];
    match &decision.kind {
        DecisionKind::Choose(choose) => {
            for choice in &choose.choices {
                out.push(choice.label.clone());
                out.extend(choice.detail.clone());
            }
        }
        DecisionKind::Number(_) => {}
        DecisionKind::Assign(assign) => {
            out.extend(assign.items.iter().map(|item| item.label.clone()));
            out.extend(assign.slots.iter().map(|slot| slot.label.clone()));
        }
    }
    out
}

/// Every message of an event: its text, and its summary's title and lines.
pub fn event_messages(event: &Event) -> Vec<Message> {
    let mut out = vec![event.text.clone()];
    if let Some(summary) = &event.summary {
        out.push(summary.title.clone());
        out.extend(summary.lines.iter().map(|line| line.label.clone()));
    }
    out
}

/// Undoes the escaping of `sdk::svg::escape`.
fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every translatable text of an SVG document, as the messages its `data-msg` and `data-args`
/// attributes stand for (see `sdk::svg::message_attributes`).
pub fn svg_messages(svg: &str) -> Vec<Message> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find("data-msg=\"") {
        rest = &rest[at + "data-msg=\"".len()..];
        let Some(end) = rest.find('"') else { break };
        let mut message = Message::new(unescape(&rest[..end]));
        rest = &rest[end + 1..];
        let tag_end = rest.find('>').unwrap_or(rest.len());
        if let Some(args_at) = rest[..tag_end].find("data-args='") {
            let args = &rest[args_at + "data-args='".len()..];
            let args_end = args.find('\'').expect("data-args is closed");
            let json: serde_json::Value =
                serde_json::from_str(&unescape(&args[..args_end])).expect("data-args is JSON");
            for (name, value) in json.as_object().expect("data-args is an object") {
                let arg = match value {
                    serde_json::Value::Number(n) => MessageArg::Number(
                        n.as_i64()
                            .unwrap_or_else(|| panic!("argument {name} is not a whole number")),
                    ),
                    serde_json::Value::String(text) => MessageArg::Text(text.clone()),
                    serde_json::Value::Object(object) => {
                        if let Some(seat) = object.get("seat") {
                            MessageArg::Seat(seat.as_u64().expect("a seat number") as u32)
                        } else if let Some(key) = object.get("key") {
                            MessageArg::Key(key.as_str().expect("a key").to_string())
                        } else {
                            panic!("argument {name} is neither a seat nor a key: {value}")
                        }
                    }
                    other => panic!("argument {name} is {other}, which no client can show"),
                };
                message.args.push((name.clone(), arg));
            }
        }
        out.push(message);
    }
    out
}

/// Whether `viewer` sees `event`.
pub fn sees(event: &Event, viewer: Viewer) -> bool {
    match (&event.audience, viewer) {
        (Audience::Everyone, _) => true,
        (Audience::Seats(seats), Viewer::Seat(seat)) => seats.contains(&seat),
        (Audience::Seats(_), Viewer::Spectator) => false,
    }
}

/// The viewers of a game of `seats` seats: every seat, then a spectator.
pub fn viewers(seats: u32) -> Vec<Viewer> {
    (0..seats)
        .map(Viewer::Seat)
        .chain(std::iter::once(Viewer::Spectator))
        .collect()
}

/// Every text of the game as it stands, for every viewer: pending decisions, the board's parts
/// and, once it is over, the result.
pub fn check_position<G: Game>(
    game: &G,
    seats: u32,
    catalogues: &Catalogues,
    context: &str,
) -> Vec<String> {
    let mut findings = Vec::new();
    for decision in game.pending() {
        for message in decision_messages(&decision) {
            findings.extend(catalogues.check(
                &message,
                &format!("{context}, decision of seat {}", decision.seat),
            ));
        }
    }
    for viewer in viewers(seats) {
        for part in game.render(viewer) {
            let where_ = format!("{context}, part {} seen by {viewer:?}", part.id);
            if let Some(title) = &part.title {
                findings.extend(catalogues.check(title, &where_));
            }
            for message in svg_messages(&part.svg) {
                findings.extend(catalogues.check(&message, &where_));
            }
        }
    }
    if let Some(result) = game.result() {
        findings.extend(catalogues.check(&result.summary, &format!("{context}, result")));
        for line in &result.breakdown {
            findings.extend(catalogues.check(&line.label, &format!("{context}, result line")));
        }
    }
    findings
}

/// Findings stop being collected past this many, so a broken text does not flood the output.
pub const MOST_FINDINGS: usize = 40;

/// Plays a whole game of `R` from `setup` with random legal answers drawn from a table seeded
/// with `seed`, checking every text at every step and that every answer is told to every viewer
/// (an answer nobody is told of shows as an empty "made a move" caption), or to its own seat
/// alone for a step the others may not see yet. Returns the findings, each once.
pub fn check_whole_game<R: Ruleset>(setup: &sdk::Setup, seed: [u8; 32]) -> Vec<String> {
    let catalogues = Catalogues::of::<R>();
    let mut table = sdk::testing::SeededTable::new(seed);
    let options = sdk::Options::resolve(&R::info().options, &setup.options).expect("options");
    let mut game = R::create(setup, &options, &mut table).expect("a game");
    let seats = setup.seats;
    let mut findings = check_position(&game, seats, &catalogues, "start");
    let mut step = 0;
    while let Some(decision) = game.pending().first().cloned() {
        let action = sdk::random_action(&decision.kind, &mut table);
        let events = game
            .apply(decision.seat, &action, &mut table)
            .expect("a random legal answer is accepted");
        step += 1;
        let context = format!("{seats} seats, step {step}");
        for event in &events {
            for message in event_messages(event) {
                findings.extend(catalogues.check(&message, &format!("{context}, event")));
            }
        }
        // A step only its seat is told of (a placement before it is confirmed) is that seat's
        // alone: the others learn of it when it is done.
        let own_step = !events.is_empty()
            && events
                .iter()
                .all(|event| event.audience == Audience::Seats(vec![decision.seat]));
        for viewer in viewers(seats) {
            if own_step && viewer != Viewer::Seat(decision.seat) {
                continue;
            }
            if !events.iter().any(|event| sees(event, viewer)) {
                findings.push(format!(
                    "{viewer:?} is told nothing of an answer to `{}`",
                    decision.prompt.key
                ));
            }
        }
        findings.extend(check_position(&game, seats, &catalogues, &context));
        if findings.len() > MOST_FINDINGS * 10 {
            break;
        }
    }
    let unique: std::collections::BTreeSet<String> = findings.into_iter().collect();
    unique.into_iter().collect()
}
