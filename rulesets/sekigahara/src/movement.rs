//! Movement: the areas a group can reach and by which path, moving it, overruns, the muster and
//! the box's arrivals.

use sdk::Table;

use crate::data::AreaKind;
use crate::engine::{eliminate, replenish, update_control};
use crate::outcome::{Log, Outcome};
use crate::state::*;

/// How far the speed can rise: base 1 plus highway, leadership and forced march.
const MAX_SPEED: usize = 4;
/// A group of this many blocks or more cannot move.
pub const IMMOBILE: usize = 17;
/// Overrun needs this many blocks per enemy block.
pub const OVERRUN_RATIO: usize = 4;

/// One way to reach an area.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub dest: usize,
    /// Areas from the start to the destination.
    pub path: Vec<usize>,
    pub roads: Vec<usize>,
    /// The whole path is on highway.
    pub highway: bool,
    /// Leadership from a castle or the capital of the start area.
    pub free_leadership: bool,
    /// A leader must be declared.
    pub needs_leader: bool,
    /// A card must be discarded for a forced march.
    pub needs_march: bool,
    /// Areas whose enemies are overrun on the way.
    pub overruns: Vec<usize>,
    /// The group stops in enemy presence at the destination: a battle.
    pub battle: bool,
    /// The group's speed with the bonuses used.
    pub speed: usize,
}

impl Route {
    fn cost(&self) -> u32 {
        u32::from(self.needs_leader) + 2 * u32::from(self.needs_march)
    }
}

/// The stack-size penalty: -1 for the 5th, 9th, 13th and 17th block.
pub fn size_penalty(blocks: usize) -> usize {
    blocks.saturating_sub(1) / 4
}

/// Whether the start area gives leadership without a leader: a castle of the side's colour that
/// it controls, or its own capital.
pub fn free_leadership(state: &State, side: Side, area: usize) -> bool {
    let def = &state.board.areas[area];
    match def.kind {
        AreaKind::Castle => def.owner == Some(side) && state.control[area] == Some(side),
        AreaKind::Capital => def.owner == Some(side),
        _ => false,
    }
}

/// Whether enemies of `side` in `area` hold its castle (and so cannot be overrun).
pub fn holds_castle(state: &State, enemy: Side, area: usize) -> bool {
    state.board.areas[area].is_castle()
        && state.control[area] == Some(enemy)
        && state.count_in(area, enemy) > 0
}

/// Whether `mine` blocks of `side` (besides those already there) overrun the enemies in `area`.
pub fn overruns(state: &State, side: Side, area: usize, mine: usize) -> bool {
    overruns_counted(state, &state.counts(), side, area, mine)
}

/// [`overruns`] with the blocks per area already counted.
fn overruns_counted(
    state: &State,
    counts: &[[usize; 2]],
    side: Side,
    area: usize,
    mine: usize,
) -> bool {
    let enemy = other(side);
    let enemies = counts[area][enemy];
    let held = state.board.areas[area].is_castle() && state.control[area] == Some(enemy);
    enemies > 0 && !held && mine + counts[area][side] >= OVERRUN_RATIO * enemies
}

/// The cheapest route to every area the group can reach, by destination.
pub fn routes(state: &State, side: Side, from: usize, group: &[usize]) -> Vec<Route> {
    let n = group.len();
    if n == 0 || n >= IMMOBILE {
        return Vec::new();
    }
    let penalty = size_penalty(n);
    let free = free_leadership(state, side, from);
    let has_leader = group.iter().any(|&b| state.board.blocks[b].leader);
    let can_march = !state.hands[side].is_empty();
    let max = (MAX_SPEED).saturating_sub(penalty);
    let activation = state.movement.current.map(|(_, id)| id);
    let counts = state.counts();
    let mut best: Vec<Option<Route>> = vec![None; state.board.areas.len()];
    let mut path = vec![from];
    let mut roads = Vec::new();
    let mut overrun = Vec::new();
    explore(
        state,
        &counts,
        side,
        n,
        max,
        activation,
        &mut path,
        &mut roads,
        &mut overrun,
        &mut |path, roads, overrun, battle| {
            let length = roads.len();
            let highway = roads.iter().all(|&r| state.board.roads[r].highway);
            let base = 1 + usize::from(highway);
            let dest = *path.last().unwrap_or(&from);
            for (leader, march) in [(false, false), (true, false), (false, true), (true, true)] {
                if leader && !free && !has_leader || march && !can_march {
                    continue;
                }
                let lead = usize::from(leader || free);
                let speed = (base + lead + usize::from(march)).saturating_sub(penalty);
                if length > speed {
                    continue;
                }
                // The cheapest way found for this path; keep it only if it beats the best
                // route known to the same area (fewer costs, then fewer areas).
                let needs_leader = leader && !free;
                let cost = u32::from(needs_leader) + 2 * u32::from(march);
                let better = best[dest]
                    .as_ref()
                    .is_none_or(|old| (cost, path.len()) < (old.cost(), old.path.len()));
                if better {
                    best[dest] = Some(Route {
                        dest,
                        path: path.to_vec(),
                        roads: roads.to_vec(),
                        highway,
                        free_leadership: free,
                        needs_leader,
                        needs_march: march,
                        overruns: overrun.to_vec(),
                        battle,
                        speed,
                    });
                }
                break;
            }
        },
    );
    best.into_iter().flatten().collect()
}

#[expect(
    clippy::too_many_arguments,
    reason = "the depth-first search carries its path and limits"
)]
fn explore(
    state: &State,
    counts: &[[usize; 2]],
    side: Side,
    n: usize,
    max: usize,
    activation: Option<u32>,
    path: &mut Vec<usize>,
    roads: &mut Vec<usize>,
    overrun: &mut Vec<usize>,
    found: &mut PathVisitor<'_>,
) {
    if roads.len() >= max {
        return;
    }
    let here = *path.last().expect("a path starts somewhere");
    for &r in &state.board.areas[here].roads {
        if let Some(user) = state.movement.roads[r]
            && Some(user) != activation
        {
            continue;
        }
        let next = state.board.roads[r].other(here);
        if path.contains(&next) {
            continue;
        }
        path.push(next);
        roads.push(r);
        let enemies = counts[next][other(side)];
        if enemies == 0 {
            found(path, roads, overrun, false);
            explore(
                state, counts, side, n, max, activation, path, roads, overrun, found,
            );
        } else if overruns_counted(state, counts, side, next, n) {
            overrun.push(next);
            found(path, roads, overrun, false);
            explore(
                state, counts, side, n, max, activation, path, roads, overrun, found,
            );
            overrun.pop();
        } else {
            found(path, roads, overrun, true);
        }
        path.pop();
        roads.pop();
    }
}

/// Called for every path found: its areas, its roads, the areas overrun, whether it ends in a
/// battle.
type PathVisitor<'a> = dyn FnMut(&[usize], &[usize], &[usize], bool) + 'a;

/// Eliminates the enemies of `side` in `area` by overrun; they draw replacement cards.
pub fn overrun(state: &mut State, side: Side, area: usize, table: &mut dyn Table, log: &mut Log) {
    let enemy = other(side);
    let victims: Vec<usize> = state.blocks_in(area, enemy).collect();
    for &b in &victims {
        eliminate(state, b);
    }
    log.push(
        state,
        Outcome::Overrun {
            side,
            area,
            blocks: victims.len(),
        },
    );
    replenish(state, enemy, victims.len() as u32, table, log);
}

/// What leads a move besides its route: the leader declared, the forced-march card.
#[derive(Clone, Copy, Debug, Default)]
pub struct Led {
    pub leader: Option<usize>,
    pub march: Option<usize>,
}

/// Moves a group along a route.
pub fn move_group(
    state: &mut State,
    side: Side,
    group: &[usize],
    route: &Route,
    led: Led,
    table: &mut dyn Table,
    log: &mut Log,
) {
    let Led { leader, march } = led;
    if let Some(card) = march {
        crate::engine::discard(state, side, card);
        log.push(state, Outcome::ForcedMarch { side });
        box_arrivals(state, side, 1, table, log);
    }
    if let Some(l) = leader {
        state.blocks[l].shown = true;
        log.push(state, Outcome::LeaderDeclared { side, block: l });
    }
    let activation = state.movement.current.map_or(0, |(_, id)| id);
    for (i, &r) in route.roads.iter().enumerate() {
        state.movement.roads[r] = Some(activation);
        let area = route.path[i + 1];
        if state.count_in(area, other(side)) > 0 && overruns(state, side, area, group.len()) {
            overrun(state, side, area, table, log);
        }
        if state.count_in(area, other(side)) == 0 && state.board.areas[area].is_resource() {
            state.control[area] = Some(side);
        }
    }
    let from = route.path[0];
    for &b in group {
        let block = &mut state.blocks[b];
        block.place = Place::Area(route.dest);
        block.moved = true;
        block.known = Some(b) == leader;
        block.shown = Some(b) == leader;
    }
    log.push(
        state,
        Outcome::Moved {
            side,
            blocks: group.len(),
            from,
            to: route.dest,
            attack: route.battle,
        },
    );
    if route.battle && !state.movement.battles.contains(&route.dest) {
        state.movement.battles.push(route.dest);
    }
    update_control(state, log);
}

/// Areas where a side may muster: its clans' muster areas without enemies, or with a battle
/// started there this phase by blocks on the map.
pub fn muster_allowed(state: &State, side: Side, area: usize) -> bool {
    state.count_in(area, other(side)) == 0 || state.movement.battles.contains(&area)
}

/// Friendly muster areas: those of any clan of the side.
pub fn friendly_musters(state: &State, side: Side) -> Vec<usize> {
    let counts = state.counts();
    (0..state.board.areas.len())
        .filter(|&a| {
            state.board.areas[a]
                .muster
                .iter()
                .any(|&c| state.board.clans[c].side == side)
                && (counts[a][other(side)] == 0 || state.movement.battles.contains(&a))
        })
        .collect()
}

/// Puts blocks from the reinforcement box onto a muster area.
pub fn muster(
    state: &mut State,
    side: Side,
    blocks: &[usize],
    area: usize,
    shown: bool,
    table: &mut dyn Table,
    log: &mut Log,
) {
    for &b in blocks {
        let block = &mut state.blocks[b];
        block.place = Place::Area(area);
        block.moved = true;
        block.shown = shown;
        block.known = shown;
    }
    state.movement.mustered = true;
    log.push(
        state,
        Outcome::Mustered {
            side,
            blocks: blocks.len(),
            area,
            shown,
        },
    );
    if shown {
        // Muster A shows each block: one line each, so that every name is translated.
        for &b in blocks {
            log.push(state, Outcome::MusterShown { side, block: b });
        }
    }
    if overruns(state, side, area, 0) {
        overrun(state, side, area, table, log);
    }
    update_control(state, log);
}

/// For each card the side discarded in its movement phase, one block of its box arrives at the
/// box's entry area, the leader last. They arrive hidden and cannot move this phase.
pub fn box_arrivals(
    state: &mut State,
    side: Side,
    cards: usize,
    table: &mut dyn Table,
    log: &mut Log,
) {
    let Some(entry) = state.board.sides[side].box_entry else {
        return;
    };
    for _ in 0..cards {
        let mut waiting = state.blocks_at(Place::Box, side);
        if waiting.is_empty() {
            break;
        }
        waiting.sort_by_key(|&b| state.board.blocks[b].leader);
        let b = waiting[0];
        let block = &mut state.blocks[b];
        block.place = Place::Area(entry);
        block.moved = true;
        block.known = true;
        block.shown = false;
        log.push(
            state,
            Outcome::BoxArrived {
                side,
                block: b,
                area: entry,
            },
        );
        if overruns(state, side, entry, 0) {
            overrun(state, side, entry, table, log);
        } else if state.count_in(entry, other(side)) > 0 && !state.movement.battles.contains(&entry)
        {
            state.movement.battles.push(entry);
        }
    }
    update_control(state, log);
}

/// Blocks of the active side in an area that may still move this phase.
pub fn movable(state: &State, area: usize) -> Vec<usize> {
    let side = state.active();
    state
        .blocks_in(area, side)
        .filter(|&b| !state.blocks[b].moved)
        .collect()
}

/// How many blocks of the active side may still move, per area, in one pass.
pub fn movable_counts(state: &State) -> Vec<usize> {
    let side = state.active();
    let mut counts = vec![0; state.board.areas.len()];
    for (b, block) in state.blocks.iter().enumerate() {
        if let Place::Area(a) = block.place
            && !block.moved
            && state.board.blocks[b].side == side
        {
            counts[a] += 1;
        }
    }
    counts
}

/// How many more stacks may start moving, and whether the muster is still open.
pub fn movement_left(state: &State) -> (bool, bool) {
    let m = &state.movement;
    let (stacks, muster) = match m.level {
        Some(Level::Minimal) => (m.activations < 1, m.activations < 1),
        Some(Level::Limited) => (m.activations < 3, m.activations < 3),
        Some(Level::Full) => (true, true),
        _ => (false, false),
    };
    (stacks, muster && !m.mustered)
}

/// The muster A options (clan, area) open to the active side, and whether muster B is.
pub fn muster_options(state: &State) -> (Vec<(usize, usize)>, bool) {
    let side = state.active();
    let reserve = state.blocks_at(Place::Reserve, side);
    if reserve.is_empty() {
        return (Vec::new(), false);
    }
    let counts = state.counts();
    let allowed = |a: usize| counts[a][other(side)] == 0 || state.movement.battles.contains(&a);
    let mut a_options = Vec::new();
    for (a, area) in state.board.areas.iter().enumerate() {
        for &c in &area.muster {
            if state.board.clans[c].side == side
                && reserve.iter().any(|&b| state.board.blocks[b].clan == c)
                && allowed(a)
            {
                a_options.push((c, a));
            }
        }
    }
    // Muster A options in clan order, as the clans are listed.
    a_options.sort_unstable();
    let b_option = !friendly_musters(state, side).is_empty();
    (a_options, b_option)
}
