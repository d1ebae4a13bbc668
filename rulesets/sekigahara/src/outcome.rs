//! What the rules report: typed outcomes, one per step a player can follow. The rules
//! ([`crate::engine`], [`crate::movement`], [`crate::combat`], [`crate::decide`]) say *what*
//! happened, in sides, blocks, areas and counts; [`crate::tell`] alone says it in words.

use crate::state::{Ending, Level, Side};

/// One thing that happened, in the terms of the rules; no text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A side discarded half its hand before reinforcement.
    ReinforceDiscarded { side: Side, cards: usize },
    /// A side placed its bid, face down.
    BidPlaced { side: Side },
    /// Both bids shown: their numbers, seat 0's first, and who won the initiative.
    Bids { winner: Side, numbers: [u32; 2] },
    /// The bid's winner chose who goes first this week.
    First { side: Side, week: u32 },
    /// A side chose how much it moves.
    LevelChosen { side: Side, level: Level },
    /// A side discarded cards for its movement.
    MovementCards { side: Side, cards: usize },
    /// A side moves more blocks of the stack already moving.
    ActivatedMore { side: Side, area: usize },
    /// A side starts moving a stack.
    Activated { side: Side, area: usize },
    /// A side starts mustering.
    MusterStarted { side: Side },
    /// A side ends its movement.
    MovementEnded { side: Side },
    /// A side set out with this many blocks of a stack.
    SetOut {
        side: Side,
        blocks: usize,
        area: usize,
    },
    /// The blocks set out stay where they are.
    Stayed {
        side: Side,
        blocks: usize,
        area: usize,
    },
    /// A route chosen, its leader or forced-march card still to come.
    MovePlanned { side: Side, from: usize, to: usize },
    /// A side discarded a card to force the march.
    ForcedMarch { side: Side },
    /// A side showed the leader that leads its move.
    LeaderDeclared { side: Side, block: usize },
    /// A group moved, and whether it attacks where it stops.
    Moved {
        side: Side,
        blocks: usize,
        from: usize,
        to: usize,
        attack: bool,
    },
    /// Blocks of `side` overran the enemy blocks in an area.
    Overrun {
        side: Side,
        area: usize,
        blocks: usize,
    },
    /// Muster A: a clan and its muster area chosen.
    MusterAChosen {
        side: Side,
        clan: usize,
        area: usize,
    },
    /// Muster B chosen.
    MusterBChosen { side: Side },
    /// Muster B: the block chosen, not shown.
    MusterBBlock { side: Side },
    /// Blocks mustered onto an area, shown (muster A) or hidden (muster B).
    Mustered {
        side: Side,
        blocks: usize,
        area: usize,
        shown: bool,
    },
    /// A block shown by muster A.
    MusterShown { side: Side, block: usize },
    /// A block of the reinforcement box arrived at the box's entry area.
    BoxArrived {
        side: Side,
        block: usize,
        area: usize,
    },
    /// A combat started.
    BattleStarted { attacker: Side, area: usize },
    /// The besieged side withdrew into the castle or came out to fight.
    SiegeAnswered {
        side: Side,
        area: usize,
        withdraw: bool,
    },
    /// A side had no leader to deploy at the opening.
    NoLeader { side: Side },
    /// A block deployed, with or without a card, and the running Impact after it.
    Deployed {
        side: Side,
        block: usize,
        with_card: bool,
        base: i32,
        clan: i32,
        special: i32,
        impact: i32,
        running: [i32; 2],
    },
    /// A card played face up to deploy.
    CardPlayed { side: Side, card: usize },
    /// A loyalty challenge refuted by the deployer's card.
    ChallengeRefuted {
        challenger: Side,
        side: Side,
        card: usize,
    },
    /// A challenged block turned and fights for the challenger.
    BlockTurned {
        challenger: Side,
        block: usize,
        impact: i32,
        running: [i32; 2],
    },
    /// A side did not challenge.
    NoChallenge { side: Side },
    /// A side passed.
    Passed { side: Side },
    /// The deployment is over: who won, with both Impacts.
    BattleWon {
        side: Side,
        area: usize,
        impact: [i32; 2],
    },
    /// A block lost in battle.
    Casualty { side: Side, block: usize },
    /// The beaten defender's survivors went into its castle.
    Refuge {
        side: Side,
        blocks: usize,
        area: usize,
    },
    /// A survivor eliminated for want of a retreat.
    NoRetreat { side: Side, block: usize },
    /// The loser's survivors retreated.
    Retreated {
        side: Side,
        blocks: usize,
        from: usize,
        to: usize,
    },
    /// Replacement cards drawn for blocks lost.
    Replenished { side: Side, cards: usize },
    /// A disk was lost.
    DiskLost { disk: usize, area: usize },
    /// A side won at once.
    WonAtOnce { side: Side, reason: Ending },
    /// A block drawn from the bag; only its side learns which.
    Drawn { side: Side, block: usize },
    /// A side's reinforcements.
    Reinforced {
        side: Side,
        cards: usize,
        blocks: usize,
    },
    /// A week ended: each side's castles, resource areas, points and blocks on the map.
    WeekEnded { week: u32, sides: [WeekLine; 2] },
    /// The last week ended: the winner on points.
    WonOnPoints { side: Side, points: [u32; 2] },
    /// An outcome of a combat step, told with the combat's area.
    InBattle { area: usize, outcome: Box<Outcome> },
}

/// One side's line of a week's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeekLine {
    pub castles: u32,
    pub resources: u32,
    pub points: u32,
    pub on_map: usize,
}

/// The outcomes of one call, worded as they are reported.
pub type Log = sdk::Log<Outcome>;
