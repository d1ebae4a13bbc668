//! The whole state of a game: plain data, serialised as the snapshot.

use crate::data::Board;
use sdk::{FromOptions, OptionSpec, Options};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

/// The board is shared between copies of a game: the SDK clones the game before every action
/// (to undo a refused one) and the search bot imagines many copies, and the board never changes.
mod shared_board {
    use super::*;

    pub fn serialize<S: Serializer>(board: &Arc<Board>, serializer: S) -> Result<S::Ok, S::Error> {
        board.as_ref().serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Arc<Board>, D::Error> {
        Board::deserialize(deserializer).map(Arc::new)
    }
}

/// A side: 0 or 1, the seat that plays it (the board's first `[[side]]` is seat 0).
pub type Side = usize;

/// The other side.
pub fn other(side: Side) -> Side {
    1 - side
}

/// Where a block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Place {
    /// On the map, in an area.
    Area(usize),
    /// In its side's reinforcement box, ready to muster.
    Reserve,
    /// In its side's bag, to be drawn as reinforcement.
    Bag,
    /// In its side's special box (the Mori box), face up off the map.
    Box,
    /// Out of the game.
    Eliminated,
}

/// One block's changing facts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockState {
    pub place: Place,
    /// Face up for everyone right now (deployed in battle, shown for a muster, declared leader).
    pub shown: bool,
    /// The opponent knows which block this is: it was shown and has not moved since.
    pub known: bool,
    /// Moved or arrived during the current movement phase: it may not move again.
    pub moved: bool,
}

/// The variant options: each completion of the rules has one, with its documented default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Completion 1: who acts after the attacker's first card: `lower-impact` (the side with less
    /// Impact, the attacker on a tie) or `alternate` (the sides take turns).
    pub initiative_lower_impact: bool,
    /// Completion 2: whether a turned block also brings its clan bonus to the challenger.
    pub turned_clan_bonus: bool,
    /// Completion 3: each side loses one block per this much enemy Impact.
    pub casualty_divisor: u32,
    /// Completion 3: the loser loses at least this many blocks.
    pub loser_min_loss: u32,
    /// Completion 4: the loser's survivors retreat to an adjacent area (`true`) or are eliminated.
    pub retreat: bool,
    /// Public source: a defender with at most this many blocks may withdraw into its castle.
    pub siege_limit: u32,
    /// Ours: an empty draw pile is refilled from the shuffled discards.
    pub reshuffle: bool,
    /// Completion 4b: the defender of a castle it controls that loses a field battle there
    /// withdraws its survivors into the castle (a siege to come) instead of retreating.
    pub castle_refuge: bool,
    /// Completion 5: the Impact the besieged side starts a siege with (0: a siege is fought
    /// exactly like a battle).
    pub siege_bonus: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            initiative_lower_impact: true,
            turned_clan_bonus: false,
            casualty_divisor: 7,
            loser_min_loss: 1,
            retreat: true,
            siege_limit: 2,
            reshuffle: true,
            castle_refuge: true,
            siege_bonus: 0,
        }
    }
}

impl FromOptions for Settings {
    fn schema() -> Vec<OptionSpec> {
        let defaults = Settings::default();
        vec![
            OptionSpec::choice(
                "battle-initiative",
                ["lower-impact", "alternate"],
                "lower-impact",
            ),
            OptionSpec::boolean("turned-clan-bonus", defaults.turned_clan_bonus),
            OptionSpec::integer(
                "casualty-divisor",
                1,
                30,
                i64::from(defaults.casualty_divisor),
            ),
            OptionSpec::integer("loser-min-loss", 0, 3, i64::from(defaults.loser_min_loss)),
            OptionSpec::choice("retreat", ["adjacent", "eliminated"], "adjacent"),
            OptionSpec::integer("siege-limit", 0, 8, i64::from(defaults.siege_limit)),
            OptionSpec::boolean("reshuffle", defaults.reshuffle),
            OptionSpec::boolean("castle-refuge", defaults.castle_refuge),
            OptionSpec::integer("siege-bonus", 0, 10, i64::from(defaults.siege_bonus)),
        ]
    }

    fn from_options(options: &Options) -> Settings {
        Settings {
            initiative_lower_impact: options.choice("battle-initiative") == "lower-impact",
            turned_clan_bonus: options.boolean("turned-clan-bonus"),
            casualty_divisor: options.integer("casualty-divisor") as u32,
            loser_min_loss: options.integer("loser-min-loss") as u32,
            retreat: options.choice("retreat") == "adjacent",
            siege_limit: options.integer("siege-limit") as u32,
            reshuffle: options.boolean("reshuffle"),
            castle_refuge: options.boolean("castle-refuge"),
            siege_bonus: options.integer("siege-bonus") as u32,
        }
    }
}

/// A card in a hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandCard {
    /// Index into the board's cards.
    pub card: usize,
    /// The opponent has seen this card (revealed to refute a loyalty challenge).
    pub known: bool,
}

/// How many stacks may move in a movement phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Level {
    /// No card: no stack moves; any cards may be swapped.
    None,
    /// No card: one stack or a muster.
    Minimal,
    /// One card: three stacks, one of which may be a muster.
    Limited,
    /// Two cards: every stack plus one muster.
    Full,
}

/// The bookkeeping of the current movement phase.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Movement {
    pub level: Option<Level>,
    /// Activations used (stacks moved plus a muster at minimal or limited movement).
    pub activations: u32,
    pub mustered: bool,
    /// For each road, the activation that used it.
    pub roads: Vec<Option<u32>>,
    /// The stack being moved: its area and its activation number.
    pub current: Option<(usize, u32)>,
    /// Areas where blocks already on the map started a battle this phase.
    pub battles: Vec<usize>,
    /// Areas fought in during the combat phase that follows (each at most once).
    pub fought: Vec<usize>,
}

/// A block deployed in the current battle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deployed {
    pub block: usize,
    /// The side whose Impact it adds to (its owner's, or the challenger's once turned).
    pub for_side: Side,
    pub impact: i32,
    /// The card that deployed it (none for a leader deployed free).
    pub card: Option<usize>,
    pub special: i32,
    pub turned: bool,
}

/// Where a battle stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// The defender of a castle area decides whether to withdraw into the castle.
    SiegeChoice,
    /// A side may deploy leaders free.
    Opening(Side),
    /// A side may deploy a block with a card (or passes).
    Deploy(Side),
    /// A side picks the blocks a card deploys.
    DeployBlocks(Side, usize),
    /// A side may challenge the loyalty of the blocks just deployed by the other.
    Challenge(Side),
    /// A side chooses its losses.
    Casualties(Side, u32),
    /// The loser chooses where its survivors go.
    Retreat(Side),
}

/// A battle or a siege in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Battle {
    pub area: usize,
    pub attacker: Side,
    pub siege: bool,
    pub stage: Stage,
    pub deployed: Vec<Deployed>,
    /// Cards played in this battle, by side.
    pub cards: [Vec<usize>; 2],
    pub impact: [i32; 2],
    /// The blocks the last card deployed (indices into `deployed`).
    pub last: Vec<usize>,
    /// Whether the attacker's first card has been played (or passed).
    pub first_done: bool,
    /// Who acted last in the alternating-initiative variant.
    pub last_actor: Option<Side>,
    pub winner: Option<Side>,
    /// Losses each side still owes, and blocks each side lost.
    pub owed: [u32; 2],
    pub lost: [u32; 2],
}

/// What the game waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// Both sides discard half their hands (reinforcement).
    ReinforceDiscard { done: [bool; 2] },
    /// Both sides bid a card.
    Bid { bids: [Option<usize>; 2] },
    /// The bid winner chooses who is first this week.
    ChooseFirst { chooser: Side },
    /// The active side chooses its movement level.
    MoveLevel,
    /// The active side discards cards for its level (or, with no movement, swaps cards).
    MoveDiscard { level: Level },
    /// The active side picks a stack, the muster or the end of movement.
    MoveMenu,
    /// Which blocks of the stack in `area` go together.
    MoveBlocks { area: usize },
    /// Where they go.
    MoveDest { area: usize, blocks: Vec<usize> },
    /// Which leader to declare for the leadership bonus.
    MoveLeader {
        blocks: Vec<usize>,
        dest: usize,
        march: bool,
    },
    /// Which card to discard for a forced march.
    MoveMarch {
        blocks: Vec<usize>,
        dest: usize,
        leader: Option<usize>,
    },
    /// Muster: which kind, clan and area.
    MusterPick,
    /// Muster A: which blocks of the clan.
    MusterBlocks { clan: usize, area: usize },
    /// Muster B: which block.
    MusterOne,
    /// Muster B: where.
    MusterWhere { block: usize },
    /// The active side picks the next contested area to fight in.
    CombatPick,
    /// A battle is under way.
    Battle,
    /// The game is over.
    Over,
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ending {
    /// A commander block was eliminated.
    Commander,
    /// A disk whose loss ends the game was lost.
    Disk,
    /// Points after the last week.
    Points,
}

/// The whole game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    #[serde(with = "shared_board")]
    pub board: Arc<Board>,
    pub settings: Settings,
    /// 1-based.
    pub week: u32,
    /// 0 for turn A, 1 for turn B.
    pub turn: u8,
    /// Who is first this week.
    pub first: Side,
    /// 0: first side's movement, 1: its combat, 2: second's movement, 3: its combat.
    pub phase: u8,
    pub blocks: Vec<BlockState>,
    pub hands: [Vec<HandCard>; 2],
    /// Draw piles: no order is kept, a draw picks at random through the host's table.
    pub decks: [Vec<usize>; 2],
    pub discards: [Vec<usize>; 2],
    /// Per area: who controls it (castles and resource areas), if anyone.
    pub control: Vec<Option<Side>>,
    /// Per disk: lost.
    pub disks_lost: Vec<bool>,
    /// The last bids, revealed.
    pub last_bids: [Option<usize>; 2],
    pub step: Step,
    pub movement: Movement,
    pub battle: Option<Battle>,
    /// Sides whose commander has been eliminated, or whose losing disk was lost.
    pub fallen: [bool; 2],
    pub ending: Option<(Side, Ending)>,
}

impl State {
    /// The side whose phase it is.
    pub fn active(&self) -> Side {
        if self.phase < 2 {
            self.first
        } else {
            other(self.first)
        }
    }

    /// Blocks of a side in an area.
    pub fn blocks_in(&self, area: usize, side: Side) -> impl Iterator<Item = usize> + '_ {
        (0..self.blocks.len()).filter(move |&b| {
            self.blocks[b].place == Place::Area(area) && self.board.blocks[b].side == side
        })
    }

    /// How many blocks of a side stand in an area.
    pub fn count_in(&self, area: usize, side: Side) -> usize {
        self.blocks_in(area, side).count()
    }

    /// Blocks of a side in a place off the map (reserve, bag, box).
    pub fn blocks_at(&self, place: Place, side: Side) -> Vec<usize> {
        (0..self.blocks.len())
            .filter(|&b| self.blocks[b].place == place && self.board.blocks[b].side == side)
            .collect()
    }

    /// How many blocks of each side stand in each area, in one pass over the blocks.
    pub fn counts(&self) -> Vec<[usize; 2]> {
        let mut counts = vec![[0, 0]; self.board.areas.len()];
        for (b, block) in self.blocks.iter().enumerate() {
            if let Place::Area(a) = block.place {
                counts[a][self.board.blocks[b].side] += 1;
            }
        }
        counts
    }

    /// Areas where both sides have blocks.
    pub fn contested(&self) -> Vec<usize> {
        self.counts()
            .iter()
            .enumerate()
            .filter(|(_, c)| c[0] > 0 && c[1] > 0)
            .map(|(a, _)| a)
            .collect()
    }

    /// Contested areas not yet fought in during this combat phase.
    pub fn to_fight(&self) -> Vec<usize> {
        self.contested()
            .into_iter()
            .filter(|a| !self.movement.fought.contains(a))
            .collect()
    }

    /// Castles and resource areas a side controls.
    pub fn holdings(&self, side: Side) -> (u32, u32) {
        let mut castles = 0;
        let mut resources = 0;
        for (a, area) in self.board.areas.iter().enumerate() {
            if self.control[a] == Some(side) {
                if area.is_castle() {
                    castles += 1;
                } else if area.is_resource() {
                    resources += 1;
                }
            }
        }
        (castles, resources)
    }

    /// Final points: 2 per castle, 1 per resource area.
    pub fn points(&self, side: Side) -> u32 {
        let (castles, resources) = self.holdings(side);
        2 * castles + resources
    }

    /// The side that wins ties.
    pub fn tie_winner(&self) -> Side {
        self.board
            .sides
            .iter()
            .position(|s| s.wins_ties)
            .unwrap_or(0)
    }
}
