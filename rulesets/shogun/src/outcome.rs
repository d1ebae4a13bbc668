//! What the rules report: typed outcomes, one per step a player can follow, each with the
//! battle-tower drop it explains. The rules ([`crate::engine`], [`crate::decide`]) say *what*
//! happened; [`crate::tell`] alone says it in words (catalogue messages).

use sdk::{ScoreLine, Seat};

use crate::data::ProvinceId;
use crate::state::{Battle, CardRef};

/// Why a planned action was skipped in full (decision 12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// The card's province is no longer the seat's, or was lost this season.
    ProvinceLost,
    /// Too few war chests to pay for the action.
    NoChests,
    /// Too few armies in supply to deploy.
    NoArmies,
    /// The building is already there.
    AlreadyBuilt,
    /// The province has no free building space.
    NoSpace,
    /// A Battle/Move from a province with one army.
    OneArmy,
    /// A Battle/Move with no province to go to.
    NoTarget,
}

/// How a battle against another seat ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BattleEnd {
    /// The attacker took the province.
    Won,
    /// The defender kept it.
    Held,
    /// Nobody is left in it: the province is devastated.
    Devastated,
}

/// One thing that happened, in the terms of the rules. Seats, provinces, cards (indices into the
/// card set) and counts; no text.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The draft starts with this seat.
    DraftFirst { seat: Seat },
    /// A seat took a face-up province card in the draft.
    TookFaceUp { seat: Seat, province: ProvinceId },
    /// A seat drew a province card blind; only it learns which.
    DrewBlind { seat: Seat, province: ProvinceId },
    /// A seat placed a group of armies on the card it took in the draft.
    Claimed {
        seat: Seat,
        province: ProvinceId,
        armies: u32,
    },
    /// A year began.
    YearBegan { year: u32 },
    /// A season (0 spring, 1 summer, 2 autumn) began.
    SeasonBegan { year: u32, season: u32 },
    /// A seat gave its plan.
    Planned { seat: Seat },
    /// This season's event was drawn (an index into the card set's events).
    EventDrawn { event: usize },
    /// A seat's bid was revealed: a chest card at the chests it paid, a province card or none.
    Bid { seat: Seat, bid: Option<CardRef> },
    /// A seat took the special card (`special`, an index into the card set) on `space` (from 0).
    SpecialTaken {
        seat: Seat,
        space: usize,
        special: usize,
    },
    /// A seat's place in the turn order (from 0).
    TurnOrder { seat: Seat, position: usize },
    /// The action card (an index into the card set) on the space `slot` (from 0) was turned up.
    ActionRevealed { action: usize, slot: usize },
    /// A seat's planned action (an index into the card set) was skipped.
    Skipped {
        seat: Seat,
        action: usize,
        reason: SkipReason,
    },
    /// A seat deployed armies from its supply.
    Deployed {
        seat: Seat,
        province: ProvinceId,
        armies: u32,
    },
    /// A theatre took revolt markers off its province.
    RevoltMarkersRemoved { province: ProvinceId, markers: u32 },
    /// A seat built the building of an action card (an index into the card set).
    Built {
        seat: Seat,
        action: usize,
        province: ProvinceId,
    },
    /// A seat confiscated rice.
    RiceConfiscated {
        seat: Seat,
        province: ProvinceId,
        rice: u32,
    },
    /// A seat collected taxes.
    TaxesCollected {
        seat: Seat,
        province: ProvinceId,
        chests: u32,
    },
    /// A seat moved armies between two of its provinces.
    Moved {
        seat: Seat,
        from: ProvinceId,
        to: ProvinceId,
        armies: u32,
    },
    /// A seat chose where to move, before saying how many armies go.
    MoveChosen {
        seat: Seat,
        from: ProvinceId,
        to: ProvinceId,
    },
    /// A seat chose whom to attack, before saying how many armies go.
    TargetChosen {
        seat: Seat,
        from: ProvinceId,
        to: ProvinceId,
    },
    /// A seat sent armies into battle; it is asked about its special card's cube next.
    BattleArmies { seat: Seat, battle: Battle },
    /// The defender is asked about its special card's cube.
    DefenceAsked {
        seat: Seat,
        defender: Seat,
        battle: Battle,
    },
    /// A seat left its deployed armies where they are.
    MoveDeclined { seat: Seat, from: ProvinceId },
    /// A seat went back from the count to the choice of a target.
    TargetWithdrawn { seat: Seat, from: ProvinceId },
    /// A battle against the farmers of a neutral province: what went into the tower, what came
    /// out, and whether the attacker took it.
    NeutralBattle {
        seat: Seat,
        from: ProvinceId,
        to: ProvinceId,
        armies: u32,
        farmers: u32,
        out: u32,
        out_farmers: u32,
        won: bool,
    },
    /// A battle against another seat: what went into the tower, what came out, how it ended and
    /// how many armies stand in the province after it.
    Battle {
        seat: Seat,
        defender: Seat,
        from: ProvinceId,
        to: ProvinceId,
        armies: u32,
        defending: u32,
        out: u32,
        out_defending: u32,
        out_farmers: u32,
        end: BattleEnd,
        left: u32,
    },
    /// Farmers revolted in a seat's province: what went into the tower, what came out, and
    /// whether the owner kept the province.
    Revolt {
        province: ProvinceId,
        owner: Seat,
        farmers: u32,
        armies: u32,
        out_farmers: u32,
        out: u32,
        kept: bool,
    },
    /// The season's last action was played.
    SeasonOver { year: u32, season: u32 },
    /// Winter began.
    WinterBegan { year: u32 },
    /// A seat's winter provisions: the rice lost, the rice left, the shortfall and the revolts
    /// it causes.
    WinterRice {
        seat: Seat,
        loss: u32,
        rice: u32,
        shortfall: u32,
        revolts: u32,
    },
    /// A seat's victory points after the winter's scoring.
    Score { seat: Seat, vp: u32 },
    /// The winter was scored with these lines (the winter's rice loss was `loss`).
    WinterScored {
        year: u32,
        lines: Vec<ScoreLine>,
        loss: u32,
    },
    /// The game is over.
    GameOver,
}

/// What the rules report during one call: the outcomes in order, each with the drop it explains,
/// and the events that tell them, each told from the state as it stood when it happened (by
/// [`crate::tell`], through `sdk::Tell`).
pub type Log = sdk::Log<Outcome>;
