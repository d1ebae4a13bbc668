//! The game state as plain data: what a snapshot holds and what the rules read and write.

use std::collections::BTreeMap;

use sdk::{FromOptions, OptionSpec, Options, Seat};
use serde::{Deserialize, Serialize};

use crate::data::{Colour, Deck, Layout, Terrain};

/// Rounds in a game.
pub const ROUNDS: u8 = 12;
/// Cards in a hand when it is dealt.
pub const HAND_SIZE: usize = 6;
/// Resources of each colour in the game.
pub const RESOURCES_PER_COLOUR: u8 = 10;
/// What a resource adds to the value of the card it is played with.
pub const RESOURCE_BONUS: u32 = 60;
/// The card number that stands for a seat's starting province on its map.
pub const PROVINCE_CARD: u8 = 0;

/// A square on a personal map: (column, row), growing right and down.
pub type Square = (i32, i32);

/// The visible square at one place of a personal map. Hidden squares are not kept: a card never
/// moves once placed, so nothing hidden can become visible again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub terrain: Terrain,
    /// The card the square belongs to ([`PROVINCE_CARD`] for the starting province).
    pub card: u8,
    /// The resource on a production square, if any.
    pub resource: Option<Colour>,
}

/// A card as it lies on a map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    pub card: u8,
    pub origin: Square,
    /// Quarter turns clockwise from upright.
    pub rotation: u8,
    pub layer: Layer,
}

/// Whether a new card goes on top of the map or is slid under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Layer {
    Over,
    Under,
}

/// One player's personal map.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonalMap {
    pub cells: BTreeMap<Square, Cell>,
    /// Every card on the map, in the order placed (the starting province first).
    pub placed: Vec<Placed>,
}

impl PersonalMap {
    /// Resources on the map, per colour.
    pub fn resources(&self) -> [u8; 4] {
        let mut count = [0u8; 4];
        for cell in self.cells.values() {
            if let Some(colour) = cell.resource {
                count[colour.index()] += 1;
            }
        }
        count
    }

    /// The squares holding a resource, in map order.
    pub fn resource_squares(&self) -> Vec<(Square, Colour)> {
        self.cells
            .iter()
            .filter_map(|(&square, cell)| cell.resource.map(|c| (square, c)))
            .collect()
    }

    /// Map cards on this map (the starting province not counted).
    pub fn map_cards(&self) -> impl Iterator<Item = u8> + '_ {
        self.placed
            .iter()
            .map(|p| p.card)
            .filter(|&c| c != PROVINCE_CARD)
    }
}

/// A placement being put together step by step; nothing is placed until it is confirmed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draft {
    pub rotation: Option<u8>,
    pub origin: Option<Square>,
}

/// One player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The starting province (index into the deck's provinces) and its side (0 = A).
    pub province: usize,
    pub hand: Vec<u8>,
    pub map: PersonalMap,
    /// The cards this seat handed on at the last pass: it knows they are in its neighbour's
    /// hand until they are played.
    pub passed: Vec<u8>,
    /// The card this seat took in the trick and still has to place.
    pub to_place: Option<u8>,
    pub draft: Draft,
}

/// A card played into a trick of 3-5 players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Play {
    pub seat: Seat,
    pub card: u8,
    /// The resource played on the card, and the square it came from.
    pub resource: Option<(Colour, Square)>,
}

impl Play {
    /// The card's value in the trick.
    pub fn value(&self) -> u32 {
        u32::from(self.card)
            + if self.resource.is_some() {
                RESOURCE_BONUS
            } else {
                0
            }
    }
}

/// Which of the two pairs of a 2-player trick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pair {
    /// The two cards revealed from the draw pile.
    Revealed,
    /// The two cards the players played.
    Played,
}

/// Where the game stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// 3-5 players play into the trick in player order. `choosing_resource`: the last play's
    /// seat still says which resource, if any, goes on its card.
    Trick {
        plays: Vec<Play>,
        choosing_resource: bool,
    },
    /// 3-5 players take cards from the trick in the new player order.
    Pick { plays: Vec<Play>, next: usize },
    /// 2 players: both choose a card at once; each choice stays secret until both are in.
    Duel {
        revealed: [u8; 2],
        committed: [Option<u8>; 2],
    },
    /// 2 players: the loser may pay two resources to choose first.
    Fee {
        revealed: [u8; 2],
        played: [u8; 2],
        winner: Seat,
        paying: bool,
    },
    /// 2 players: `chooser` takes a pair; the other seat gets the other pair.
    PairPick {
        revealed: [u8; 2],
        played: [u8; 2],
        chooser: Seat,
    },
    /// 2 players: each keeps one card of its pair, both at once.
    Keep {
        pairs: [[u8; 2]; 2],
        kept: [Option<u8>; 2],
    },
    /// Every seat places the card it took.
    Place,
    /// The game is over and scored.
    Over,
}

/// The optional end-of-game scoring cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScoringCard {
    /// 1: two resources instead of one may go to each factory.
    DoubleDelivery,
    /// 2: a bonus for each row or column of three forests in a line.
    ForestLines,
    /// 3: points for each 2x2 block of fallow.
    FallowBlocks,
    /// 4: every lake square scores a fixed value instead of the usual lake scoring.
    LakeSquares,
    /// 5: points for each town square with town squares on all four sides.
    TownCentres,
    /// 6: points for each visible production square without a resource.
    EmptyProduction,
    /// 7: a bonus for each blue or yellow resource delivered to a factory.
    BlueYellow,
    /// 8: a bonus for each grey or brown resource delivered to a factory.
    GreyBrown,
}

/// The scoring cards by their option names, in card order 1-8.
pub const SCORING_CARDS: [(&str, ScoringCard); 8] = [
    ("double-delivery", ScoringCard::DoubleDelivery),
    ("forest-lines", ScoringCard::ForestLines),
    ("fallow-blocks", ScoringCard::FallowBlocks),
    ("lake-squares", ScoringCard::LakeSquares),
    ("town-centres", ScoringCard::TownCentres),
    ("empty-production", ScoringCard::EmptyProduction),
    ("blue-yellow", ScoringCard::BlueYellow),
    ("grey-brown", ScoringCard::GreyBrown),
];

impl ScoringCard {
    /// The option name, which is also its catalogue key under `scoring-card.`.
    pub fn name(self) -> &'static str {
        SCORING_CARDS
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("", |(name, _)| name)
    }
}

/// Every point value, each a variant option (see `docs/rules/honshu.md` for the defaults).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Points {
    pub forest: i64,
    pub town: i64,
    pub lake: i64,
    /// Per colour, in [`crate::data::COLOURS`] order.
    pub factory: [i64; 4],
    pub forest_line: i64,
    pub fallow_block: i64,
    pub lake_square: i64,
    pub town_centre: i64,
    pub empty_production: i64,
    pub blue_yellow: i64,
    pub grey_brown: i64,
}

/// The option names of the point values, with their defaults.
pub const POINT_OPTIONS: [(&str, i64); 14] = [
    ("forest-points", 1),
    ("town-points", 1),
    ("lake-points", 3),
    ("factory-blue-points", 3),
    ("factory-brown-points", 3),
    ("factory-grey-points", 3),
    ("factory-yellow-points", 3),
    ("forest-line-points", 3),
    ("fallow-block-points", 3),
    ("lake-square-points", 2),
    ("town-centre-points", 3),
    ("empty-production-points", 1),
    ("blue-yellow-bonus", 1),
    ("grey-brown-bonus", 1),
];

impl Points {
    /// The defaults of [`POINT_OPTIONS`].
    pub fn standard() -> Points {
        Points::from_lookup(|name| {
            POINT_OPTIONS
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(0, |(_, v)| *v)
        })
    }

    fn from_lookup(value: impl Fn(&str) -> i64) -> Points {
        Points {
            forest: value("forest-points"),
            town: value("town-points"),
            lake: value("lake-points"),
            factory: [
                value("factory-blue-points"),
                value("factory-brown-points"),
                value("factory-grey-points"),
                value("factory-yellow-points"),
            ],
            forest_line: value("forest-line-points"),
            fallow_block: value("fallow-block-points"),
            lake_square: value("lake-square-points"),
            town_centre: value("town-centre-points"),
            empty_production: value("empty-production-points"),
            blue_yellow: value("blue-yellow-bonus"),
            grey_brown: value("grey-brown-bonus"),
        }
    }
}

/// How the scoring card is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScoringCardRule {
    None,
    Random,
    Fixed(ScoringCard),
}

/// The game's settings, from its options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// 0 for side A of the starting provinces, 1 for side B.
    pub province_side: usize,
    pub scoring_card: ScoringCardRule,
    pub points: Points,
}

impl FromOptions for Settings {
    fn schema() -> Vec<OptionSpec> {
        let mut options = vec![
            OptionSpec::choice("province-side", ["a", "b"], "a"),
            OptionSpec::choice(
                "scoring-card",
                ["none", "random"]
                    .into_iter()
                    .chain(SCORING_CARDS.iter().map(|(name, _)| *name)),
                "none",
            ),
        ];
        options.extend(
            POINT_OPTIONS
                .iter()
                .map(|(name, default)| OptionSpec::integer(name, 0, 20, *default)),
        );
        options
    }

    fn from_options(options: &Options) -> Settings {
        let scoring_card = match options.choice("scoring-card") {
            "none" => ScoringCardRule::None,
            "random" => ScoringCardRule::Random,
            name => SCORING_CARDS
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(ScoringCardRule::None, |(_, c)| ScoringCardRule::Fixed(*c)),
        };
        Settings {
            province_side: usize::from(options.choice("province-side") == "b"),
            scoring_card,
            points: Points::from_lookup(|name| options.integer(name)),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            province_side: 0,
            scoring_card: ScoringCardRule::None,
            points: Points::standard(),
        }
    }
}

/// One seat's final score, part by part.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreSheet {
    pub forests: i64,
    pub town: i64,
    pub lakes: i64,
    pub factories: i64,
    pub scoring_card: i64,
    pub total: i64,
    /// Visible fallow squares: the tie-break.
    pub fallow: i64,
}

impl ScoreSheet {
    /// The scoring categories, as (catalogue key, points), in the order they are shown.
    pub fn lines(&self) -> [(&'static str, i64); 5] {
        [
            ("score.forests", self.forests),
            ("score.town", self.town),
            ("score.lakes", self.lakes),
            ("score.factories", self.factories),
            ("score.scoring-card", self.scoring_card),
        ]
    }
}

/// The whole game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    pub seats: u32,
    pub deck: Deck,
    pub settings: Settings,
    /// The scoring card in play, if the optional rule is used.
    pub scoring_card: Option<ScoringCard>,
    /// The round being played, 1-12.
    pub round: u8,
    /// The player order: `order[0]` holds player-order card 1.
    pub order: Vec<Seat>,
    /// The draw pile; the top is the last card.
    pub draw: Vec<u8>,
    /// Cards out of the game (2 players: each pair's unkept card).
    pub discard: Vec<u8>,
    /// Resources in the common pool, per colour.
    pub pool: [u8; 4],
    pub players: Vec<Player>,
    pub phase: Phase,
    /// The final scores, once the game is over.
    pub scores: Vec<ScoreSheet>,
}

impl State {
    /// The layout of a card as it lies on `seat`'s map ([`PROVINCE_CARD`] for its province).
    pub fn layout_of(&self, seat: Seat, card: u8) -> &Layout {
        if card == PROVINCE_CARD {
            let player = &self.players[seat as usize];
            &self.deck.provinces[player.province].sides[self.settings.province_side]
        } else {
            self.deck.card(card)
        }
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The resources on the table in the current trick.
    pub fn resources_in_trick(&self) -> [u8; 4] {
        let mut count = [0u8; 4];
        if let Phase::Trick { plays, .. } | Phase::Pick { plays, .. } = &self.phase {
            for play in plays {
                if let Some((colour, _)) = play.resource {
                    count[colour.index()] += 1;
                }
            }
        }
        count
    }

    /// The map cards lying in the middle of the table: a trick, a duel's pairs.
    pub fn cards_on_table(&self) -> Vec<u8> {
        match &self.phase {
            Phase::Trick { plays, .. } | Phase::Pick { plays, .. } => {
                plays.iter().map(|p| p.card).collect()
            }
            Phase::Duel {
                revealed,
                committed,
            } => revealed
                .iter()
                .copied()
                .chain(committed.iter().flatten().copied())
                .collect(),
            Phase::Fee {
                revealed, played, ..
            }
            | Phase::PairPick {
                revealed, played, ..
            } => revealed.iter().chain(played).copied().collect(),
            // A card kept is set aside only when both have chosen: until then both pairs lie here.
            Phase::Keep { pairs, .. } => pairs.iter().flatten().copied().collect(),
            Phase::Place | Phase::Over => Vec::new(),
        }
    }
}
