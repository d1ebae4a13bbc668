//! The card set and the game's fixed numbers, as data.

use serde::{Deserialize, Serialize};

/// Everything of Shogun that is a number or a card rather than a rule: events, specials, actions,
/// the provisions table, countryside groups, starting chests, cube counts, the tower and the
/// beginner setup. The default set is `maps/shogun/cards.toml`; a map may override any part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cards {
    /// The event cards (12 in the box).
    pub events: Vec<EventCard>,
    /// The special cards (5); a card's position on the board sets turn order.
    pub specials: Vec<SpecialCard>,
    /// The action cards (10), in the order of the action spaces' printing.
    pub actions: Vec<ActionCard>,
    /// The winter provisions table, sorted by `shortfall_from`.
    pub provisions: Vec<ProvisionRow>,
    /// The countryside groups of the individual board.
    pub countryside_groups: Vec<CountrysideGroup>,
    /// Starting war chests per player, by player count.
    pub starting_chests: Vec<StartingChests>,
    /// Army cubes each player owns.
    pub cubes_per_player: u32,
    /// Farmer cubes in the game.
    pub farmers: u32,
    /// Cubes of each player dropped into the tower at setup.
    pub tower_load_per_player: u32,
    /// Farmer cubes dropped into the tower at setup.
    pub tower_load_farmers: u32,
    /// The tower's shelves, top first.
    pub tower_shelves: Vec<sdk::TowerShelf>,
    /// The fixed beginner setup: one entry per seat and player count.
    pub beginner_setup: Vec<BeginnerSeat>,
    /// Named alternatives to `events`, chosen with the `event-deck` option (a house rule).
    pub event_decks: Vec<EventDeck>,
}

/// The name of the `event-deck` choice that keeps the card set's own `events`.
pub const STANDARD_EVENT_DECK: &str = "standard";

/// A named event deck: a whole list of event cards that replaces the card set's `events` when a
/// game chooses it with the `event-deck` option.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventDeck {
    /// Its id, the option's value, e.g. `open-war`.
    pub id: String,
    /// What the deck changes, in words, for players choosing it.
    pub description: String,
    /// Its event cards, in the same form as the card set's own.
    pub events: Vec<EventCard>,
}

/// An event card: its effect for one season, and its rice loss when it is the winter card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventCard {
    /// Its id, e.g. `event-0`.
    pub id: String,
    /// The catalogue key of its name.
    pub name: String,
    /// Rice each player loses when this is the winter card.
    pub winter_rice_loss: u32,
    /// What it changes in the season it applies to.
    pub effect: EventEffect,
}

/// An event's effect as data. Every field defaults to "no change", so an engine applies any event
/// generically: a `None` limit means the action's normal yield.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventEffect {
    /// Revolt markers a Nō theatre built this season removes from its province.
    pub theatre_removes_revolt: u32,
    /// Farmer cubes defending an attacked neutral province (normally 1).
    pub neutral_farmers: Option<u32>,
    /// Extra defender cubes from supply when the attacked province has a castle.
    pub castle_defender_bonus: u32,
    /// Provinces with a temple cannot be attacked this season.
    pub temple_protection: bool,
    /// Collect taxes yields at least this many chests.
    pub tax_min: Option<u32>,
    /// Collect taxes yields at most this many chests.
    pub tax_max: Option<u32>,
    /// Confiscate rice yields at least this much rice.
    pub rice_min: Option<u32>,
    /// Confiscate rice yields at most this much rice.
    pub rice_max: Option<u32>,
    /// Armies the "recruit 5" action places instead of its usual number.
    pub recruit_5: Option<u32>,
    /// Armies the "recruit 3" action places instead of its usual number.
    pub recruit_3: Option<u32>,
}

/// A special card: a bonus for the season, and (by where it lies) turn order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecialCard {
    /// Its id, e.g. `attack`.
    pub id: String,
    /// The catalogue key of its name.
    pub name: String,
    /// What it adds.
    pub effect: SpecialEffect,
}

/// A special card's bonus as data; every field defaults to 0.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecialEffect {
    /// Extra attacker cubes from supply in a Battle/Move battle.
    pub attack_bonus: u32,
    /// Extra defender cubes from supply when attacked by a player.
    pub defence_bonus: u32,
    /// Extra chests from Collect taxes.
    pub tax_bonus: u32,
    /// Extra rice from Confiscate rice.
    pub rice_bonus: u32,
    /// Extra armies from the "recruit 5" action (after the event).
    pub recruit_5_bonus: u32,
}

/// What an action card does; the rules engine implements each kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionKind {
    /// Build a castle.
    BuildCastle,
    /// Build a temple.
    BuildTemple,
    /// Build a Nō theatre.
    BuildTheatre,
    /// Confiscate rice.
    ConfiscateRice,
    /// Collect taxes.
    CollectTaxes,
    /// Recruit 5 armies (the event's `recruit_5` and the special's bonus apply).
    #[serde(rename = "recruit-5")]
    Recruit5,
    /// Recruit 3 armies (the event's `recruit_3` applies).
    #[serde(rename = "recruit-3")]
    Recruit3,
    /// Recruit 1 army, then move to one adjacent own province.
    #[serde(rename = "recruit-1-move")]
    Recruit1Move,
    /// Battle or move into one adjacent province.
    BattleMove,
}

/// An action card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionCard {
    /// Its id, e.g. `build-castle`; unique in the set.
    pub id: String,
    /// The catalogue key of its name.
    pub name: String,
    /// What it does.
    pub kind: ActionKind,
    /// War chests it costs.
    pub cost: u32,
    /// Armies it places (recruit actions; 0 otherwise).
    pub armies: u32,
}

/// One row of the winter provisions table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProvisionRow {
    /// The smallest shortfall (provinces minus rice) of this row.
    pub shortfall_from: u32,
    /// Provinces that revolt.
    pub revolts: u32,
    /// Extra farmers joining each revolt.
    pub extra_farmers: u32,
}

/// A countryside group of the individual board: armies claimed together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountrysideGroup {
    /// Its printed letter, e.g. `A`.
    pub label: String,
    /// Armies in the group.
    pub armies: u32,
    /// Player counts it is used with.
    pub players: Vec<u32>,
}

/// Starting war chests for one player count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartingChests {
    /// The player count.
    pub players: u32,
    /// Chests each player starts with.
    pub chests: u32,
}

/// The beginner setup of one seat for one player count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeginnerSeat {
    /// The player count this setup is for.
    pub players: u32,
    /// The seat, 1-based.
    pub seat: u32,
    /// Provinces and armies, sorted by province id.
    pub provinces: Vec<Placement>,
}

/// Armies placed on one province.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The province's id.
    pub province: String,
    /// How many armies.
    pub armies: u32,
}

impl Cards {
    /// The default card set: `maps/shogun/cards.toml`, checked by this crate's tests.
    pub fn default_set() -> Cards {
        super::check::default_cards()
    }

    /// The armies of each countryside group used with this many players, in file order.
    pub fn groups_for(&self, players: u32) -> Vec<u32> {
        self.countryside_groups
            .iter()
            .filter(|g| g.players.contains(&players))
            .map(|g| g.armies)
            .collect()
    }

    /// Starting chests with this many players.
    pub fn starting_chests_for(&self, players: u32) -> Option<u32> {
        self.starting_chests
            .iter()
            .find(|s| s.players == players)
            .map(|s| s.chests)
    }

    /// The provisions row for a rice shortfall: `(revolts, extra farmers per revolt)`.
    pub fn provisions_for(&self, shortfall: u32) -> (u32, u32) {
        self.provisions
            .iter()
            .rev()
            .find(|row| row.shortfall_from <= shortfall)
            .map_or((0, 0), |row| (row.revolts, row.extra_farmers))
    }

    /// The beginner setup for this many players, one entry per seat, by seat.
    pub fn beginner_setup_for(&self, players: u32) -> Vec<&BeginnerSeat> {
        let mut seats: Vec<&BeginnerSeat> = self
            .beginner_setup
            .iter()
            .filter(|s| s.players == players)
            .collect();
        seats.sort_by_key(|s| s.seat);
        seats
    }

    /// The event deck of this id, if the set has one.
    pub fn event_deck(&self, id: &str) -> Option<&EventDeck> {
        self.event_decks.iter().find(|deck| deck.id == id)
    }

    /// The values of the `event-deck` option: `standard`, then every deck of the set in file
    /// order.
    pub fn event_deck_choices(&self) -> Vec<String> {
        std::iter::once(STANDARD_EVENT_DECK.to_string())
            .chain(self.event_decks.iter().map(|deck| deck.id.clone()))
            .collect()
    }

    /// The action card of this kind, if the set has one.
    pub fn action(&self, kind: ActionKind) -> Option<&ActionCard> {
        self.actions.iter().find(|a| a.kind == kind)
    }
}
