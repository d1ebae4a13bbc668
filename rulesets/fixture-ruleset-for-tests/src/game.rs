//! The game: its phases, the decisions of each, the tower drops and the scoring; and the
//! ruleset type that creates and restores it.

use serde::{Deserialize, Serialize};

use sdk::{
    Action, Answer, AssignDecision, AssignItem, AssignSlot, BoardPart, Choice, CubeCount,
    CubeOwner, Diagnostic, Event, GameResult, Message, NoteLevel, NumberDecision, Offer,
    OptionSpec, Options, PartKind, Placing, PreviewNote, Rejection, RulesetInfo, ScoreLine, Seat,
    Setup, SetupError, Summary, SummaryLine, Table, TableExt, TowerShelf, Viewer,
};

use crate::map::{FixtureMap, parse_map};

/// The ruleset's id, as the host lists it.
pub const ID: &str = "fixture-ruleset-for-tests";

/// The ruleset type registered with the SDK.
pub struct Fixture;

/// How prize cards score, the `scoring` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scoring {
    /// A card scores its face value.
    Face,
    /// Cards of 7 or more score double.
    DoubleHigh,
}

/// Where a round stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Seats without a bid still have to bid.
    Bid,
    /// The round's winner picks one of the offered prizes.
    Pick {
        /// The seat that picks.
        winner: Seat,
        /// The prize values on offer.
        offer: Vec<i64>,
    },
    /// Seats draw tokens in seat order; `next` is the seat to draw.
    Draw {
        /// The seat to draw.
        next: Seat,
    },
    /// The game is over.
    Over,
}

/// A game of the fixture ruleset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixtureGame {
    seats: u32,
    rounds: u32,
    round: u32,
    use_tower: bool,
    scoring: Scoring,
    map: FixtureMap,
    hands: Vec<Vec<u8>>,
    bids: Vec<Option<Vec<u8>>>,
    phase: Phase,
    prize_points: Vec<i64>,
    draw_costs: Vec<i64>,
}

/// A position file: a game in its bid step of a given round.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Position {
    round: u32,
    scores: Vec<i64>,
    hands: Vec<Vec<u8>>,
}

fn draw_token(table: &mut dyn Table) -> u8 {
    table.below(6) as u8 + 1
}

impl FixtureGame {
    fn new(setup: &Setup, options: &Options, table: &mut dyn Table) -> Result<Self, SetupError> {
        let (map, findings) = parse_map(&setup.map);
        let Some(map) = map else {
            return Err(SetupError::Map(findings));
        };
        let use_tower = options.boolean("tower");
        if use_tower {
            let lodge = options.decimal("lodge");
            let shelf = TowerShelf {
                lodge_chance: lodge,
                release_chance: 0.025,
            };
            table
                .configure_tower(&[shelf, shelf])
                .map_err(|e| SetupError::Option("lodge".into(), e))?;
        }
        let seats = setup.seats;
        let hands = (0..seats)
            .map(|_| (0..map.start_tokens).map(|_| draw_token(table)).collect())
            .collect();
        let mut game = FixtureGame {
            seats,
            rounds: options.integer("rounds") as u32,
            round: 1,
            use_tower,
            scoring: match options.choice("scoring") {
                "double-high" => Scoring::DoubleHigh,
                _ => Scoring::Face,
            },
            map,
            hands,
            bids: vec![None; seats as usize],
            phase: Phase::Bid,
            prize_points: vec![0; seats as usize],
            draw_costs: vec![0; seats as usize],
        };
        let mut events = Vec::new();
        game.start_round(table, &mut events);
        Ok(game)
    }

    fn score(&self, seat: Seat) -> i64 {
        self.prize_points[seat as usize] + self.draw_costs[seat as usize]
    }

    fn hand_value(&self, seat: Seat) -> i64 {
        self.hands[seat as usize]
            .iter()
            .map(|v| i64::from(*v))
            .sum()
    }

    /// Starts the bid step: a seat with no tokens bids nothing.
    fn start_round(&mut self, table: &mut dyn Table, events: &mut Vec<Event>) {
        self.phase = Phase::Bid;
        for seat in 0..self.seats as usize {
            self.bids[seat] = if self.hands[seat].is_empty() {
                Some(Vec::new())
            } else {
                None
            };
        }
        if self.bids.iter().all(Option::is_some) {
            self.resolve_bids(table, events);
        }
    }

    fn resolve_bids(&mut self, table: &mut dyn Table, events: &mut Vec<Event>) {
        let bids: Vec<i64> = self
            .bids
            .iter()
            .map(|b| b.iter().flatten().map(|v| i64::from(*v)).sum())
            .collect();
        let mut out = vec![0i64; self.seats as usize];
        // The round's outcome explains the drop, when there is one (the call's only drop).
        let drops: Vec<u32> = if self.use_tower { vec![0] } else { Vec::new() };
        if self.use_tower {
            let mut cubes: Vec<CubeCount> = bids
                .iter()
                .enumerate()
                .filter(|(_, bid)| **bid > 0)
                .map(|(seat, bid)| CubeCount {
                    owner: CubeOwner::Seat(seat as Seat),
                    count: *bid as u32,
                })
                .collect();
            cubes.push(CubeCount {
                owner: CubeOwner::Neutral("dust".into()),
                count: 2,
            });
            for came in table.drop_cubes(&cubes) {
                if let CubeOwner::Seat(seat) = came.owner
                    && seat < self.seats
                {
                    out[seat as usize] += i64::from(came.count);
                }
            }
        }
        let strengths: Vec<i64> = bids.iter().zip(&out).map(|(b, o)| b + o).collect();
        for seat in 0..self.seats {
            let s = seat as usize;
            events.push(Event::public(
                Message::new("event.bids-revealed")
                    .seat("seat", seat)
                    .number("bid", bids[s])
                    .number("out", out[s])
                    .number("strength", strengths[s]),
            ));
        }
        let best = strengths.iter().copied().max().unwrap_or(0);
        let leaders: Vec<usize> = (0..strengths.len())
            .filter(|s| strengths[*s] == best)
            .collect();
        let summary = Summary {
            title: Message::new("summary.round").number("round", self.round),
            lines: (0..self.seats)
                .map(|seat| SummaryLine {
                    seat: Some(seat),
                    label: Message::new("summary.strength"),
                    value: Some(strengths[seat as usize]),
                })
                .collect(),
        };
        if let [winner] = leaders[..] {
            events.push(
                Event::public(
                    Message::new("event.round-won")
                        .seat("seat", winner as Seat)
                        .number("round", self.round),
                )
                .with_drops(drops)
                .with_summary(summary),
            );
            let offer = (0..3)
                .map(|_| self.map.deck[table.pick_index(self.map.deck.len())])
                .collect();
            self.phase = Phase::Pick {
                winner: winner as Seat,
                offer,
            };
        } else {
            events.push(
                Event::public(Message::new("event.round-tied").number("round", self.round))
                    .with_drops(drops)
                    .with_summary(summary),
            );
            self.phase = Phase::Draw { next: 0 };
        }
    }

    fn prize_value(&self, face: i64) -> i64 {
        match self.scoring {
            Scoring::DoubleHigh if face >= 7 => face * 2,
            _ => face,
        }
    }

    /// A seat's bid: its tokens into two bid slots; each item's move is its index in the hand.
    fn bid_offer(&self, seat: Seat) -> Offer<i64> {
        let items = self.hands[seat as usize]
            .iter()
            .enumerate()
            .map(|(i, value)| AssignItem {
                id: format!("token-{i}"),
                label: Message::new("token.value").number("value", *value),
            })
            .collect();
        let slot = |id: &str| AssignSlot {
            id: id.into(),
            label: Message::new(format!("slot.{id}")),
            accepts: Vec::new(),
        };
        let decision = AssignDecision {
            items,
            slots: vec![slot("bid-1"), slot("bid-2")],
            min_placements: 1,
        };
        let indices = (0..self.hands[seat as usize].len() as i64).collect();
        Offer::assign(seat, Message::new("prompt.bid"), decision, indices).private(true)
    }
}

/// Each move is a number: a token's index in the hand, a prize's face value or a count drawn.
impl sdk::Play for FixtureGame {
    type Move = i64;

    fn offers(&self) -> Vec<Offer<i64>> {
        match &self.phase {
            Phase::Bid => (0..self.seats)
                .filter(|s| self.bids[*s as usize].is_none())
                .map(|s| self.bid_offer(s))
                .collect(),
            Phase::Pick { winner, offer } => {
                let prize = |(i, value): (usize, &i64)| {
                    let label = Message::new("prize.value").number("value", *value);
                    let points = self.prize_value(*value);
                    let detail = Message::new("prize.scores").number("points", points);
                    let choice = Choice::new(format!("prize-{i}"), label).with_detail(detail);
                    (choice, *value)
                };
                let choices = offer.iter().enumerate().map(prize).collect();
                vec![Offer::choose_one(
                    *winner,
                    Message::new("prompt.prize"),
                    choices,
                )]
            }
            Phase::Draw { next } => {
                let range = NumberDecision { min: 0, max: 2 };
                vec![Offer::number(
                    *next,
                    Message::new("prompt.draw"),
                    range,
                    |n| n,
                )]
            }
            Phase::Over => Vec::new(),
        }
    }

    fn play(
        &mut self,
        seat: Seat,
        answer: Answer<i64>,
        table: &mut dyn Table,
    ) -> Result<Vec<Event>, Rejection> {
        let mut events = Vec::new();
        match (&self.phase, answer) {
            (Phase::Bid, Answer::Assigned(placements)) => {
                let hand = &self.hands[seat as usize];
                let tokens: Vec<u8> = placements.iter().map(|(_, i)| hand[*i as usize]).collect();
                let total: i64 = tokens.iter().map(|v| i64::from(*v)).sum();
                if let Some(cap) = self.map.bid_cap
                    && total > cap
                {
                    return Err(Rejection::Illegal(Message::new("illegal.bid-too-high")));
                }
                let mut used: Vec<usize> = placements.iter().map(|(_, i)| *i as usize).collect();
                used.sort_unstable_by(|a, b| b.cmp(a));
                for index in used {
                    self.hands[seat as usize].remove(index);
                }
                self.bids[seat as usize] = Some(tokens);
                events.push(Event::public(
                    Message::new("event.bid-placed").seat("seat", seat),
                ));
                if self.bids.iter().all(Option::is_some) {
                    self.resolve_bids(table, &mut events);
                }
            }
            (Phase::Pick { .. }, Answer::Chosen(faces)) => {
                let value = self.prize_value(faces[0]);
                self.prize_points[seat as usize] += value;
                events.push(Event::public(
                    Message::new("event.prize-taken")
                        .seat("seat", seat)
                        .number("value", value),
                ));
                self.phase = Phase::Draw { next: 0 };
            }
            (Phase::Draw { next }, Answer::Number(count)) => {
                let drawn: Vec<u8> = (0..count).map(|_| draw_token(table)).collect();
                // Checked after the draw on purpose: the tokens were drawn from the table's
                // random stream, so a rejection here tests that the host rolls the stream back.
                let held = (self.hands[seat as usize].len() + drawn.len()) as i64;
                if let Some(limit) = self.map.hand_limit
                    && !drawn.is_empty()
                    && held > limit
                {
                    return Err(Rejection::Illegal(Message::new("illegal.hand-limit")));
                }
                self.draw_costs[seat as usize] -= count;
                events.push(Event::public(
                    Message::new("event.drew")
                        .seat("seat", seat)
                        .number("count", count),
                ));
                if !drawn.is_empty() {
                    let values: Vec<String> = drawn.iter().map(u8::to_string).collect();
                    events.push(Event::private(
                        seat,
                        Message::new("event.drew-secret").text("values", values.join(", ")),
                    ));
                }
                self.hands[seat as usize].extend(drawn);
                if next + 1 < self.seats {
                    self.phase = Phase::Draw { next: next + 1 };
                } else if self.round >= self.rounds {
                    self.phase = Phase::Over;
                } else {
                    self.round += 1;
                    self.start_round(table, &mut events);
                }
            }
            // The SDK reads the action through the seat's offer first.
            _ => return Err(Rejection::Malformed("unexpected action".into())),
        }
        Ok(events)
    }
}

impl sdk::Game for FixtureGame {
    sdk::decided_by_offers!();

    fn view(&self, viewer: Viewer) -> String {
        let bidding = self.phase == Phase::Bid;
        let seats: Vec<serde_json::Value> = (0..self.seats)
            .map(|seat| {
                let s = seat as usize;
                let mine = viewer.is(seat);
                let bid = match &self.bids[s] {
                    Some(tokens) if mine || !bidding => serde_json::json!(tokens),
                    Some(_) => serde_json::json!("hidden"),
                    None => serde_json::Value::Null,
                };
                serde_json::json!({
                    "seat": seat,
                    "score": self.score(seat),
                    "tokens": self.hands[s].len(),
                    "hand": if mine { serde_json::json!(self.hands[s]) } else { serde_json::Value::Null },
                    "bid": bid,
                })
            })
            .collect();
        let phase = match &self.phase {
            Phase::Bid => serde_json::json!({"step": "bid"}),
            Phase::Pick { winner, offer } => {
                serde_json::json!({"step": "pick", "winner": winner, "offer": offer})
            }
            Phase::Draw { next } => serde_json::json!({"step": "draw", "next": next}),
            Phase::Over => serde_json::json!({"step": "over"}),
        };
        serde_json::json!({
            "round": self.round,
            "rounds": self.rounds,
            "phase": phase,
            "seats": seats,
        })
        .to_string()
    }

    fn render(&self, viewer: Viewer) -> Vec<BoardPart> {
        // The table: the round, and the prizes on offer (clickable by the seat that picks).
        let mut table =
            String::from("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 400 200\">");
        table.push_str(&format!(
            "<text x=\"10\" y=\"20\" data-msg=\"prompt.bid\" data-args=\"{{}}\">round {}</text>",
            self.round
        ));
        if let Phase::Pick { winner, offer } = &self.phase
            && viewer.is(*winner)
        {
            for (i, value) in offer.iter().enumerate() {
                table.push_str(&format!(
                    "<text x=\"{}\" y=\"150\" data-choice=\"{i}\" data-msg=\"prize.value\" \
                     data-args='{{\"value\":{value}}}'>{value}</text>",
                    10 + 40 * i
                ));
            }
        }
        table.push_str("</svg>");
        let mut parts = vec![BoardPart::new("table", PartKind::Map, table)];
        // The viewer's hand and bid slots, a panel of its own.
        if let Viewer::Seat(seat) = viewer {
            let mut hand =
                String::from("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 400 130\">");
            for (i, value) in self.hands[seat as usize].iter().enumerate() {
                hand.push_str(&format!(
                    "<rect x=\"{}\" y=\"10\" width=\"30\" height=\"30\" data-item=\"{i}\"/>\
                     <text x=\"{}\" y=\"30\">{value}</text>",
                    10 + 40 * i,
                    20 + 40 * i
                ));
            }
            if self.phase == Phase::Bid && self.bids[seat as usize].is_none() {
                for slot in 0..2 {
                    hand.push_str(&format!(
                        "<rect x=\"{}\" y=\"60\" width=\"30\" height=\"30\" data-slot=\"{slot}\"/>",
                        10 + 40 * slot
                    ));
                }
            }
            hand.push_str("</svg>");
            let mut part = BoardPart::new(format!("hand-{seat}"), PartKind::Seat(seat), hand);
            part.title = Some(Message::new("part.hand"));
            parts.push(part);
        }
        parts
    }

    fn preview(&self, seat: Seat, action: &Action) -> Result<Vec<PreviewNote>, Rejection> {
        let mut notes = Vec::new();
        match (&self.phase, action) {
            (Phase::Bid, Action::Assign(placements)) => {
                let hand = &self.hands[seat as usize];
                let total: i64 = placements
                    .iter()
                    .map(|(_, item)| i64::from(hand[*item as usize]))
                    .sum();
                notes.push(PreviewNote {
                    level: NoteLevel::Info,
                    text: Message::new("preview.bid-total").number("total", total),
                });
                if let Some(cap) = self.map.bid_cap
                    && total > cap
                {
                    notes.push(PreviewNote {
                        level: NoteLevel::Warning,
                        text: Message::new("illegal.bid-too-high"),
                    });
                }
            }
            (Phase::Draw { .. }, Action::Number(count)) => {
                let held = self.hands[seat as usize].len() as i64 + count;
                if let Some(limit) = self.map.hand_limit
                    && *count > 0
                    && held > limit
                {
                    notes.push(PreviewNote {
                        level: NoteLevel::Warning,
                        text: Message::new("illegal.hand-limit"),
                    });
                }
            }
            _ => {}
        }
        Ok(notes)
    }

    fn result(&self) -> Option<GameResult> {
        if self.phase != Phase::Over {
            return None;
        }
        let mut order: Vec<Seat> = (0..self.seats).collect();
        let key = |seat: &Seat| (self.score(*seat), self.hand_value(*seat));
        order.sort_by(|a, b| key(b).cmp(&key(a)).then(a.cmp(b)));
        let mut placings: Vec<Placing> = Vec::new();
        for (index, seat) in order.iter().enumerate() {
            let rank = match placings.last() {
                Some(previous) if key(&previous.seat) == key(seat) => previous.rank,
                _ => index as u32 + 1,
            };
            placings.push(Placing {
                seat: *seat,
                rank,
                score: self.score(*seat),
                tie_breaks: vec![self.hand_value(*seat)],
            });
        }
        let breakdown = (0..self.seats)
            .flat_map(|seat| {
                [
                    ScoreLine {
                        seat,
                        label: Message::new("score.prizes"),
                        points: self.prize_points[seat as usize],
                    },
                    ScoreLine {
                        seat,
                        label: Message::new("score.draws"),
                        points: self.draw_costs[seat as usize],
                    },
                ]
            })
            .collect();
        Some(GameResult {
            placings,
            breakdown,
            summary: Message::new("summary.ranked"),
        })
    }

    fn snapshot(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    fn determinize(&self, seat: Seat, table: &mut dyn Table) -> Self {
        let mut copy = self.clone();
        let bidding = self.phase == Phase::Bid;
        for other in (0..self.seats).filter(|s| *s != seat) {
            let o = other as usize;
            for token in copy.hands[o].iter_mut() {
                *token = draw_token(table);
            }
            if bidding && let Some(bid) = copy.bids[o].as_mut() {
                for token in bid.iter_mut() {
                    *token = draw_token(table);
                }
            }
        }
        copy
    }
}

impl sdk::Ruleset for Fixture {
    type Game = FixtureGame;

    fn info() -> RulesetInfo {
        RulesetInfo {
            id: ID.into(),
            name: "Fixture (tests only)".into(),
            version: "0.1.0".into(),
            min_seats: 2,
            max_seats: 4,
            maps: Vec::new(),
            options: vec![
                OptionSpec::integer("rounds", 1, 10, 3),
                OptionSpec::boolean("tower", true),
                OptionSpec::decimal("lodge", 0.0, 1.0, 0.15),
                OptionSpec::choice("scoring", ["face", "double-high"], "face"),
            ],
            languages: vec!["en".into()],
        }
    }

    fn validate_map(map: &str) -> Vec<Diagnostic> {
        parse_map(map).1
    }

    fn catalogue(language: &str) -> Option<&'static str> {
        (language == "en").then_some(include_str!("../catalogue.en.toml"))
    }

    fn create(
        setup: &Setup,
        options: &Options,
        table: &mut dyn Table,
    ) -> Result<FixtureGame, SetupError> {
        FixtureGame::new(setup, options, table)
    }

    fn create_from_position(
        setup: &Setup,
        options: &Options,
        position: &str,
        table: &mut dyn Table,
    ) -> Result<FixtureGame, SetupError> {
        let position: Position =
            toml::from_str(position).map_err(|e| SetupError::Position(e.message().to_owned()))?;
        let seats = setup.seats as usize;
        if position.scores.len() != seats || position.hands.len() != seats {
            return Err(SetupError::Position(format!(
                "scores and hands must list {seats} seats"
            )));
        }
        let mut game = FixtureGame::new(setup, options, table)?;
        if position.round == 0 || position.round > game.rounds {
            return Err(SetupError::Position(format!(
                "round {} is outside 1..={}",
                position.round, game.rounds
            )));
        }
        if position
            .hands
            .iter()
            .flatten()
            .any(|v| !(1..=6).contains(v))
        {
            return Err(SetupError::Position("tokens are worth 1 to 6".into()));
        }
        game.round = position.round;
        game.prize_points = position.scores;
        game.hands = position.hands;
        let mut events = Vec::new();
        game.start_round(table, &mut events);
        Ok(game)
    }

    fn restore(bytes: &[u8]) -> Result<FixtureGame, String> {
        postcard::from_bytes(bytes).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sdk::testing::SeededTable;

    fn play_random(seed: u8, seats: u32) -> (usize, GameResult) {
        let ruleset = sdk::native::adapt::<Fixture>();
        let mut table = SeededTable::new([seed; 32]);
        let setup = Setup {
            map: String::new(),
            options: Vec::new(),
            seats,
        };
        let mut game = ruleset.create(&setup, &mut table).unwrap();
        let mut actions = 0;
        while let Some(decision) = game.pending().into_iter().next() {
            let action = sdk::random_action(&decision.kind, &mut table);
            game.apply(decision.seat, &action, &mut table).unwrap();
            actions += 1;
        }
        (actions, game.result().unwrap())
    }

    #[test]
    fn random_games_end_with_every_seat_placed() {
        for seed in 0..20 {
            let (actions, result) = play_random(seed, 2 + u32::from(seed) % 3);
            assert!(actions >= 3, "a game takes several decisions");
            assert_eq!(result.placings[0].rank, 1);
            assert!(result.placings.windows(2).all(|w| w[0].score >= w[1].score));
        }
    }

    #[test]
    fn the_catalogue_passes_the_sdk_checks_and_renders_its_plurals() {
        let findings = sdk::testing::check_catalogues::<Fixture>();
        assert!(findings.is_empty(), "{}", findings.join("\n"));
        let catalogue = sdk::Catalogue::from_toml(include_str!("../catalogue.en.toml")).unwrap();
        let seat = |s: u32| format!("Seat {}", s + 1);
        let drew = |n: i64| {
            Message::new("event.drew")
                .seat("seat", 0)
                .number("count", n)
        };
        assert_eq!(catalogue.render(&drew(0), &seat), "Seat 1 draws no tokens");
        assert_eq!(catalogue.render(&drew(1), &seat), "Seat 1 draws 1 token");
        assert_eq!(catalogue.render(&drew(3), &seat), "Seat 1 draws 3 tokens");
    }

    #[test]
    fn a_bad_map_is_reported_with_its_line() {
        let findings = validate("start-tokens = 4\ndeck = [1, 99]\n");
        assert!(
            findings.iter().any(|d| d.is_error() && d.line == 2),
            "{findings:?}"
        );
        let findings = validate("deck = [1, 2, 3]\n");
        assert!(findings.iter().all(|d| !d.is_error()) && !findings.is_empty());
        assert!(validate("").is_empty());
        assert!(validate("colour = 3").iter().any(Diagnostic::is_error));
    }

    fn validate(text: &str) -> Vec<Diagnostic> {
        <Fixture as sdk::Ruleset>::validate_map(text)
    }
}
