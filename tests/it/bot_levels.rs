//! The three bot levels (information-set tree search) on tutorial-sized positions, with fixed
//! seeds and iteration budgets: tic-tac-toe's hard bot never loses and sees a win or a loss one
//! move ahead; the search never disturbs the real game and answers the same way for the same
//! seed.

use host::NewGame as _;
use std::sync::Arc;

use host::bots::{Bot, BotKind, InfoSetBot, InfoSetSettings, play_out};
use host::{GameSpec, LoadedRuleset, Session};
use sdk::{Action, DecisionKind, PendingDecision, Viewer};

use crate::runtime_support::{fixture_wasm, spec};

/// Tic-tac-toe compiled natively, in a runtime of its own (the bots see only the contract).
fn tictactoe() -> Arc<LoadedRuleset> {
    crate::runtime_support::native::<tictactoe::TicTacToe>()
}

fn tictactoe_game(ruleset: &Arc<LoadedRuleset>, seed_byte: u8) -> Session {
    ruleset
        .new_game(GameSpec {
            map_toml: String::new(),
            options: Vec::new(),
            seats: 2,
            seed: [seed_byte; 32],
            position: None,
        })
        .unwrap()
}

/// The answer that marks `cell` (0 to 8, row by row) in a tic-tac-toe decision.
fn mark(decision: &PendingDecision, cell: usize) -> Action {
    let DecisionKind::Choose(choose) = &decision.kind else {
        panic!("tic-tac-toe asks to choose a cell");
    };
    let index = choose
        .choices
        .iter()
        .position(|choice| choice.id == cell.to_string())
        .expect("the cell is free");
    Action::Choose(vec![index as u32])
}

/// The cell an answer marks.
fn cell_of(decision: &PendingDecision, action: &Action) -> usize {
    let (DecisionKind::Choose(choose), Action::Choose(picks)) = (&decision.kind, action) else {
        panic!("tic-tac-toe asks to choose a cell");
    };
    choose.choices[picks[0] as usize].id.parse().unwrap()
}

/// A game after `cells` were marked in turn from the first seat, and the decision then pending.
fn after(ruleset: &Arc<LoadedRuleset>, cells: &[usize]) -> (Session, PendingDecision) {
    let mut session = tictactoe_game(ruleset, 1);
    for &cell in cells {
        let decision = session.pending().unwrap().remove(0);
        let action = mark(&decision, cell);
        session.apply(decision.seat, &action).unwrap();
    }
    let decision = session.pending().unwrap().remove(0);
    (session, decision)
}

/// Two tic-tac-toe bots: the hard one in `hard_seat`, `other` in the other seat.
fn hard_against(other: BotKind, hard_seat: u32, seed: &[u8; 32]) -> Vec<Box<dyn Bot>> {
    (0..2)
        .map(|seat| {
            let kind = if seat == hard_seat {
                BotKind::Hard
            } else {
                other
            };
            kind.create(seed, seat)
        })
        .collect()
}

#[test]
fn the_hard_bot_never_loses_tic_tac_toe_to_the_random_bot() {
    let ruleset = tictactoe();
    let (mut wins, mut draws) = (0, 0);
    for game in 0..40u8 {
        let hard_seat = u32::from(game % 2);
        let seed = [game; 32];
        let mut session = tictactoe_game(&ruleset, game);
        let mut bots = hard_against(BotKind::Random, hard_seat, &seed);
        play_out(&mut session, &mut bots, 20).unwrap();
        let result = session.result().unwrap().unwrap();
        let hard = result
            .placings
            .iter()
            .find(|p| p.seat == hard_seat)
            .unwrap();
        let other = result
            .placings
            .iter()
            .find(|p| p.seat != hard_seat)
            .unwrap();
        assert!(
            hard.rank <= other.rank,
            "game {game}: the hard bot in seat {hard_seat} lost: {result:?}"
        );
        if hard.rank < other.rank {
            wins += 1;
        } else {
            draws += 1;
        }
    }
    // Against random moves a sound player wins most games, not only draws them.
    assert!(wins > draws, "the hard bot won {wins} and drew {draws}");
}

#[test]
fn the_hard_bot_never_loses_tic_tac_toe_to_itself_and_draws() {
    // Two perfect players always draw; a search that lost here would have missed a threat.
    let ruleset = tictactoe();
    for game in 0..4u8 {
        let seed = [100 + game; 32];
        let mut session = tictactoe_game(&ruleset, game);
        let mut bots: Vec<Box<dyn Bot>> = (0..2).map(|s| BotKind::Hard.create(&seed, s)).collect();
        play_out(&mut session, &mut bots, 20).unwrap();
        let result = session.result().unwrap().unwrap();
        assert!(
            result.placings.iter().all(|p| p.rank == 1),
            "game {game} between hard bots was not a draw: {result:?}"
        );
    }
}

/// The hard bot answered the first seat's edge opening (cell 3) with the far corner (cell 2),
/// and lost to a fork three moves later: 800 iterations of playouts a few actions long did not
/// reach the fork. Every reply of the hard bot to every opening must keep the draw.
#[test]
fn regression_hard_answered_an_opening_with_a_move_that_loses_to_a_fork() {
    let ruleset = tictactoe();
    for opening in 0..9 {
        for seed in 0..2u8 {
            let (mut session, decision) = after(&ruleset, &[opening]);
            let mut bot = BotKind::Hard.create(&[seed; 32], decision.seat);
            let reply = cell_of(&decision, &bot.decide(&mut session, &decision).unwrap());
            let mut board = [0u8; 9];
            board[opening] = 1;
            board[reply] = 2;
            assert!(
                minimax(&mut board, 1) <= 0,
                "seed {seed}: after {opening} the hard bot played {reply}, which loses"
            );
        }
    }
}

#[test]
fn a_bot_whose_deadline_passed_answers_after_one_look() {
    // A server's bot that waited for a thinking slot has spent its time: it answers at once,
    // as a bot of a single iteration would, and thinks as usual at its next decision.
    let ruleset = tictactoe();
    let (mut session, decision) = after(&ruleset, &[0]);
    let hard = BotKind::Hard.level_settings().unwrap();
    let mut late = InfoSetBot::new(decision.seat, &[3; 32], hard.clone());
    late.think_until(std::time::Instant::now());
    let one_look = InfoSetSettings {
        iterations: 1,
        min_actions: 0,
        ..hard.clone()
    };
    let mut single = InfoSetBot::new(decision.seat, &[3; 32], one_look);
    assert_eq!(
        late.decide(&mut session, &decision).unwrap(),
        single.decide(&mut session, &decision).unwrap()
    );
    // The deadline was for that decision only: the next one gets the whole budget, and a
    // whole budget blocks the loss in one that a single look may miss.
    let (mut session, decision) = after(&ruleset, &[0, 4, 1]);
    let action = late.decide(&mut session, &decision).unwrap();
    assert_eq!(cell_of(&decision, &action), 2);
}

#[test]
fn every_level_takes_a_win_in_one() {
    // X (seat 0) holds the top left and top middle, O the middle row's first two: X to move
    // wins at the top right, and O would win at the middle right if X looked elsewhere.
    let ruleset = tictactoe();
    for kind in [BotKind::Normal, BotKind::Hard] {
        for seed in 0..5u8 {
            let (mut session, decision) = after(&ruleset, &[0, 3, 1, 4]);
            let mut bot = kind.create(&[seed; 32], decision.seat);
            let action = bot.decide(&mut session, &decision).unwrap();
            assert_eq!(cell_of(&decision, &action), 2, "{kind:?}, seed {seed}");
        }
    }
}

#[test]
fn the_hard_bot_blocks_a_loss_in_one() {
    // X holds the top left and top middle, O the centre: O (seat 1) to move must block the top
    // right, or X wins next.
    let ruleset = tictactoe();
    for seed in 0..5u8 {
        let (mut session, decision) = after(&ruleset, &[0, 4, 1]);
        let mut bot = BotKind::Hard.create(&[seed; 32], decision.seat);
        let action = bot.decide(&mut session, &decision).unwrap();
        assert_eq!(cell_of(&decision, &action), 2, "seed {seed}");
    }
}

#[test]
fn the_easy_bot_still_mostly_takes_a_win_in_one() {
    // Easy makes mistakes, but sensible ones: a win in one is seen most of the time.
    let ruleset = tictactoe();
    let taken = (0..20u8)
        .filter(|&seed| {
            let (mut session, decision) = after(&ruleset, &[0, 3, 1, 4]);
            let mut bot = BotKind::Easy.create(&[seed; 32], decision.seat);
            let action = bot.decide(&mut session, &decision).unwrap();
            cell_of(&decision, &action) == 2
        })
        .count();
    assert!(taken >= 14, "easy took the win in {taken} of 20");
}

#[test]
fn a_level_never_disturbs_the_real_game_and_answers_alike_for_a_seed() {
    let ruleset = fixture_wasm();
    for kind in [BotKind::Easy, BotKind::Normal] {
        let mut searched = ruleset.new_game(spec(2, 8)).unwrap();
        let mut untouched = ruleset.new_game(spec(2, 8)).unwrap();
        let decision = searched.pending().unwrap().remove(0);
        let first = kind
            .create(&[1; 32], decision.seat)
            .decide(&mut searched, &decision)
            .unwrap();
        let again = kind
            .create(&[1; 32], decision.seat)
            .decide(&mut searched, &decision)
            .unwrap();
        assert_eq!(first, again, "{kind:?} answers alike for one seed");
        assert_eq!(sdk::check_action_shape(&decision.kind, &first), Ok(()));
        // Determinizing and playing out games drew nothing from the real game's stream or tower.
        assert_eq!(searched.version(), 0);
        assert_eq!(
            searched.tower_contents().unwrap(),
            untouched.tower_contents().unwrap()
        );
        searched.apply(decision.seat, &first).unwrap();
        untouched.apply(decision.seat, &first).unwrap();
        assert_eq!(
            searched.view(Viewer::Spectator).unwrap(),
            untouched.view(Viewer::Spectator).unwrap()
        );
    }
}

/// Asking a ruleset for rollout answers must not change what a bot plays where it gives none:
/// tic-tac-toe gives none, and whole games of the normal level with its rollout policy on go
/// move for move as with it off.
#[test]
fn a_ruleset_without_rollout_answers_gets_the_bots_it_had() {
    let ruleset = tictactoe();
    let settings = |rollout_policy| InfoSetSettings {
        rollout_policy,
        ..BotKind::Normal.level_settings().unwrap()
    };
    for seed in 0..3u8 {
        let records: Vec<_> = [true, false]
            .into_iter()
            .map(|policy| {
                let mut session = tictactoe_game(&ruleset, seed);
                let mut bots: Vec<Box<dyn Bot>> = (0..2)
                    .map(|seat| {
                        Box::new(InfoSetBot::new(seat, &[seed; 32], settings(policy)))
                            as Box<dyn Bot>
                    })
                    .collect();
                play_out(&mut session, &mut bots, 100).unwrap();
                session.record().unwrap()
            })
            .collect();
        assert_eq!(records[0].actions, records[1].actions, "seed {seed}");
    }
}

#[test]
fn every_bot_kind_is_named_as_the_server_and_command_line_spell_it() {
    for kind in BotKind::ALL {
        assert_eq!(kind.name().parse::<BotKind>(), Ok(kind));
        assert!(
            host::server::api::BOT_NAMES.contains(&kind.name()),
            "the server accepts {}",
            kind.name()
        );
        assert_eq!(kind.create(&[0; 32], 0).name(), kind.name());
    }
    assert_eq!(host::server::api::BOT_NAMES.len(), BotKind::ALL.len());
    assert!("strong".parse::<BotKind>().is_err());
}

/// Shogun compiled natively, in a runtime of its own.
fn shogun_native() -> Arc<LoadedRuleset> {
    crate::runtime_support::native::<shogun::Shogun>()
}

/// The last action of the last autumn: seat 0 battles or moves from Kai (ten armies). Seat 1 leads
/// by three points once the winter is scored (its castle in Musashi takes the region's castle
/// majority). Musashi holds one army of seat 1's, Sagami twelve. Taking Musashi and its castle
/// wins the game; a move into seat 0's own provinces keeps it second, and attacking Sagami, or
/// Musashi with a single army, risks the battle for nothing.
const LAST_BATTLE: &str = r#"
year = 2
season = "autumn"
phase = "actions"
step = 10
actions = ["build-castle", "build-temple", "build-theatre", "confiscate-rice", "collect-taxes", "recruit-5", "recruit-3", "recruit-1-move", "battle-move-a", "battle-move-b"]
specials = ["gold", "rice", "recruitment", "attack", "defence"]
events = []
current-event = "event-10"
turn-order = [0, 1, 2]

[[seat]]
chests = 5
rice = 20
vp = 20
plan = { battle-move-b = "kai" }

[[seat]]
chests = 5
rice = 20
vp = 21

[[seat]]
chests = 5
rice = 20

[[province]]
id = "kai"
owner = 0
armies = 10

[[province]]
id = "shinano"
owner = 0
armies = 1

[[province]]
id = "suruga"
owner = 0
armies = 1

[[province]]
id = "totomi"
owner = 0
armies = 1

[[province]]
id = "musashi"
owner = 1
armies = 1
castle = true

[[province]]
id = "sagami"
owner = 1
armies = 12

[[province]]
id = "bingo"
owner = 2
armies = 2
"#;

/// A Shogun game at [`LAST_BATTLE`], seat 0 to pick its battle target.
fn last_battle() -> Session {
    shogun_native()
        .new_game(GameSpec {
            map_toml: include_str!("../../maps/shogun/sun.toml").to_owned(),
            options: Vec::new(),
            seats: 3,
            seed: [9; 32],
            position: Some(LAST_BATTLE.to_owned()),
        })
        .expect("the position loads")
}

#[test]
fn the_hard_bot_takes_shoguns_obviously_winning_battle() {
    let mut session = last_battle();
    let decision = session.pending().unwrap().remove(0);
    let DecisionKind::Choose(choose) = &decision.kind else {
        panic!("seat 0 picks a battle target: {decision:?}");
    };
    let ids: Vec<&str> = choose.choices.iter().map(|c| c.id.as_str()).collect();
    assert!(
        ids.contains(&"province:musashi") && ids.contains(&"province:sagami"),
        "{ids:?}"
    );
    let mut bot = BotKind::Hard.create(&[4; 32], decision.seat);
    let target = bot.decide(&mut session, &decision).unwrap();
    let Action::Choose(picks) = &target else {
        panic!("{target:?}");
    };
    assert_eq!(choose.choices[picks[0] as usize].id, "province:musashi");
    session.apply(decision.seat, &target).unwrap();
    // How many armies attack: one against one is a coin toss; the bot sends enough to be sure.
    let decision = session.pending().unwrap().remove(0);
    let DecisionKind::Number(range) = decision.kind else {
        panic!("seat 0 says how many armies attack: {decision:?}");
    };
    let Action::Number(armies) = bot.decide(&mut session, &decision).unwrap() else {
        panic!("a number of armies");
    };
    assert!(
        armies >= 4 && armies <= range.max,
        "the hard bot attacked with {armies} of {}",
        range.max
    );
}

#[test]
fn a_search_cut_short_without_an_estimate_plays_to_the_end() {
    // Tic-tac-toe gives no estimate: a bot told to stop its playouts at once still plays them
    // to the end, so it still sees a loss two moves ahead and blocks it.
    let ruleset = tictactoe();
    for seed in 0..5u8 {
        let (mut session, decision) = after(&ruleset, &[0, 4, 1]);
        let settings = InfoSetSettings {
            playout_depth: Some(0),
            ..BotKind::Hard.level_settings().unwrap()
        };
        let mut bot = InfoSetBot::new(decision.seat, &[seed; 32], settings);
        let action = bot.decide(&mut session, &decision).unwrap();
        assert_eq!(cell_of(&decision, &action), 2, "seed {seed}");
    }
}

#[test]
fn a_search_cut_at_once_takes_shoguns_winning_battle() {
    // A search told to stop its playouts at once asks for an estimate after every action from
    // there: Shogun gives none until the season's actions are done (here the last battle of the
    // game), so the playout goes on to where the position can be judged, and the search still
    // sees that taking Musashi wins.
    let mut session = last_battle();
    let decision = session.pending().unwrap().remove(0);
    let DecisionKind::Choose(choose) = &decision.kind else {
        panic!("seat 0 picks a battle target: {decision:?}");
    };
    let settings = InfoSetSettings {
        playout_depth: Some(0),
        ..BotKind::Normal.level_settings().unwrap()
    };
    let mut bot = InfoSetBot::new(decision.seat, &[4; 32], settings);
    let Action::Choose(picks) = bot.decide(&mut session, &decision).unwrap() else {
        panic!("a battle target");
    };
    assert_eq!(choose.choices[picks[0] as usize].id, "province:musashi");
}

/// The value of a tic-tac-toe board for the player to move, with perfect play from here on:
/// 1 a win, 0 a draw, -1 a loss. `board` holds 0 (free), 1 (first seat) or 2 (second seat).
pub(crate) fn minimax(board: &mut [u8; 9], mover: u8) -> i32 {
    const LINES: [[usize; 3]; 8] = [
        [0, 1, 2],
        [3, 4, 5],
        [6, 7, 8],
        [0, 3, 6],
        [1, 4, 7],
        [2, 5, 8],
        [0, 4, 8],
        [2, 4, 6],
    ];
    let other = 3 - mover;
    if LINES
        .iter()
        .any(|line| line.iter().all(|&cell| board[cell] == other))
    {
        return -1;
    }
    let mut best = None;
    for cell in 0..9 {
        if board[cell] == 0 {
            board[cell] = mover;
            let value = -minimax(board, other);
            board[cell] = 0;
            best = Some(best.map_or(value, |best: i32| best.max(value)));
        }
    }
    best.unwrap_or(0)
}

/// The bots valued a shared place as the best of the places it covers: a drawn game counted as
/// a win for both seats, so the hard bot could not tell winning from drawing (it let a double
/// threat go, and after the first seat took a corner it sometimes answered with another corner,
/// a lost position, at any budget). Every move of the hard bot against the easy one is checked
/// against perfect play: it never makes a position worse than it was.
#[test]
fn regression_a_draw_counted_as_much_as_a_win() {
    let ruleset = tictactoe();
    for game in 0..60u8 {
        let hard_seat = u32::from(game % 2);
        let seed = [game.wrapping_mul(7).wrapping_add(3); 32];
        let mut session = tictactoe_game(&ruleset, game);
        let mut bots = hard_against(BotKind::Easy, hard_seat, &seed);
        let mut board = [0u8; 9];
        let mut moves = Vec::new();
        while let Some(decision) = session.pending().unwrap().into_iter().next() {
            let seat = decision.seat;
            let action = bots[seat as usize].decide(&mut session, &decision).unwrap();
            let cell = cell_of(&decision, &action);
            let mover = seat as u8 + 1;
            if seat == hard_seat {
                let before = minimax(&mut board.clone(), mover);
                let mut played = board;
                played[cell] = mover;
                let after = -minimax(&mut played, 3 - mover);
                assert_eq!(
                    after, before,
                    "game {game}: after {moves:?} the hard bot (seat {seat}) marked {cell}, \
                     turning a position worth {before} into one worth {after}"
                );
            }
            board[cell] = mover;
            moves.push(cell);
            session.apply(seat, &action).unwrap();
        }
    }
}
