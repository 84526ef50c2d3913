//! The alpha-beta Reversi player: it beats random play, iterative deepening returns the value of
//! a plain fixed-depth search, a time budget is honoured, and `exec=gpu` (the evaluation on the
//! device) chooses a move of the same value as the CPU search.

use cubesearch::games::{Board, Reversi};
use cubesearch::players::PlayerSpec;
use cubesearch::players::{play_game, Player};
use cubesearch::testing::random_positions;
use cubesearch::{Backend, Game, Stop};
use cubesearch_players::builtin::RandomPlayer;
use cubesearch_search::minimax::{
    alphabeta, order_by_score, solve_iterative, SearchOptions, TranspositionTable, INFINITY,
};
use std::time::{Duration, Instant};

fn player(spec: &str) -> Box<dyn Player<Reversi>> {
    spec.parse::<PlayerSpec<Reversi>>()
        .unwrap()
        .build(Backend::Wgpu, 7)
        .unwrap()
}

/// The plain negamax value of `s` at `depth` (alpha-beta, full window, no table or ordering).
fn value(s: &Board, depth: u32) -> i32 {
    alphabeta(
        &Reversi,
        s,
        depth,
        (-INFINITY, INFINITY),
        &mut SearchOptions::default(),
    )
}

#[test]
fn depth_3_beats_random_in_at_least_95_of_100_games() {
    let mut ab = player("alphabeta:depth=3");
    let mut wins = 0;
    for game in 0..100u32 {
        let mut random = RandomPlayer::new(1000 + game);
        // Colours alternate: alpha-beta moves first in even games.
        let won = if game % 2 == 0 {
            let players: [&mut dyn Player<Reversi>; 2] = [&mut *ab, &mut random];
            play_game(&Reversi, Reversi.initial(), players, |_, _, _| Ok(()))
                .unwrap()
                .result
                == 1
        } else {
            let players: [&mut dyn Player<Reversi>; 2] = [&mut random, &mut *ab];
            play_game(&Reversi, Reversi.initial(), players, |_, _, _| Ok(()))
                .unwrap()
                .result
                == -1
        };
        wins += won as u32;
    }
    assert!(wins >= 95, "{wins} wins of 100");
}

#[test]
fn iterative_deepening_returns_the_fixed_depth_value_and_a_move_that_has_it() {
    let mut table = TranspositionTable::new(1 << 16);
    for s in random_positions(&Reversi, 12, 40, 17) {
        if Reversi.moves(&s).is_empty() {
            continue;
        }
        for depth in 1..=4 {
            table.clear();
            let mut options = SearchOptions {
                order: Some(order_by_score::<Reversi>),
                table: Some(&mut table),
                ..SearchOptions::default()
            };
            let found = solve_iterative(&Reversi, &s, depth, &Stop::new(), &mut options);
            assert_eq!(found.depth, depth);
            assert_eq!(found.solution.value, value(&s, depth), "depth {depth}");
            let best = found.solution.best.unwrap();
            assert_eq!(
                -value(&Reversi.apply(&s, best), depth - 1),
                found.solution.value
            );
        }
    }
}

#[test]
fn a_time_budget_is_honoured_and_still_deepens() {
    let start = Reversi.initial();
    let mut options = SearchOptions::default();
    let began = Instant::now();
    let budget = Duration::from_millis(200);
    let stop = Stop::new().with_deadline(began + budget);
    let found = solve_iterative(&Reversi, &start, 60, &stop, &mut options);
    // The clock is read every 1024 nodes: allow a little beyond the budget, never a whole
    // further iteration.
    assert!(began.elapsed() < budget * 2, "{:?}", began.elapsed());
    assert!(
        found.depth >= 2 && found.depth < 60,
        "depth {}",
        found.depth
    );
    assert!(Reversi
        .moves(&start)
        .contains(&found.solution.best.unwrap()));
    let mut timed = player("alphabeta:time=50ms");
    let mv = timed.choose(&Reversi, &start).unwrap();
    assert!(Reversi.moves(&start).contains(&mv));
}

/// A raised stop ends a search of any depth within a few nodes, and the deepest finished
/// iteration answers; so does a player told of the stop through its limits.
#[test]
fn a_raised_stop_ends_a_deep_search_with_a_legal_move() {
    let start = Reversi.initial();
    let stop = Stop::new();
    let raiser = stop.clone();
    let began = Instant::now();
    let waker = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        raiser.request(1);
    });
    let found = solve_iterative(&Reversi, &start, 60, &stop, &mut SearchOptions::default());
    waker.join().unwrap();
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    assert!(
        found.depth >= 1 && found.depth < 60,
        "depth {}",
        found.depth
    );
    assert!(Reversi
        .moves(&start)
        .contains(&found.solution.best.unwrap()));

    let mut deep = player("alphabeta:depth=40");
    let stopped = Stop::new();
    stopped.request(1);
    deep.set_limits(&cubesearch::players::MoveLimits {
        stop: Some(stopped),
        ..Default::default()
    });
    let began = Instant::now();
    let mv = deep.choose(&Reversi, &start).unwrap();
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    assert!(Reversi.moves(&start).contains(&mv));
}

#[test]
fn gpu_moves_have_the_cpu_search_value() {
    let mut gpu = player("alphabeta:depth=3,exec=gpu");
    assert!(gpu.name().contains("wgpu"), "{}", gpu.name());
    for s in random_positions(&Reversi, 6, 40, 23) {
        if Reversi.moves(&s).is_empty() {
            continue;
        }
        let mv = gpu.choose(&Reversi, &s).unwrap();
        assert_eq!(-value(&Reversi.apply(&s, mv), 2), value(&s, 3));
    }
}

#[test]
fn bad_alphabeta_specs_are_parse_errors() {
    for spec in [
        "alphabeta",
        "alphabeta:depth=x",
        "alphabeta:depth=3,exec=tpu",
        "alphabeta:depth=3,strategy=v9,exec=gpu",
        "alphabeta:speed=3",
    ] {
        // Refused as it is read, before any executor starts.
        let err = spec.parse::<PlayerSpec<Reversi>>().expect_err(spec);
        assert!(matches!(err, cubesearch::Error::Parse(_)), "{spec}: {err}");
    }
}

/// The CPU player keeps its transposition table from move to move: two plies on, its search
/// of the same depth visits fewer nodes than a fresh player's and finds a move of the same
/// value.
#[test]
fn the_transposition_table_is_kept_between_moves() {
    use cubesearch::players::Limit;
    use cubesearch_players::alphabeta::AlphaBetaPlayer;
    let game = Reversi;
    let mut kept = AlphaBetaPlayer::<Reversi>::cpu(Limit::Depth(6), "kept");
    let first = kept.choose(&game, &game.initial()).unwrap();
    let after_first = game.apply(&game.initial(), first);
    let reply = game.moves(&after_first)[0];
    let now = game.apply(&after_first, reply);
    let second = kept.choose(&game, &now).unwrap();
    let mut fresh = AlphaBetaPlayer::<Reversi>::cpu(Limit::Depth(6), "fresh");
    let fresh_move = fresh.choose(&game, &now).unwrap();
    assert!(
        kept.last_nodes < fresh.last_nodes,
        "kept {} nodes, fresh {}",
        kept.last_nodes,
        fresh.last_nodes
    );
    // Here both moves are worth the same at depth 6 (entries from deeper searches may in
    // general steer the kept player to another move; none does in this line).
    let value = |mv| {
        let mut options = SearchOptions::default();
        -alphabeta(
            &game,
            &game.apply(&now, mv),
            5,
            (-INFINITY, INFINITY),
            &mut options,
        )
    };
    assert_eq!(value(second), value(fresh_move));
}

/// A GPU walk obeys its executor's stop between launches: a perft of years ends at once with
/// `Interrupted`, and the GPU alpha-beta player, told of a raised stop, still answers a legal
/// move (one CPU ply when no depth finished).
#[test]
fn a_raised_stop_ends_gpu_walks_and_the_gpu_player_still_moves() {
    use cubesearch::{Error, Perft};
    let mut gpu = cubesearch::testing::executor(Backend::Wgpu).unwrap();
    let stop = Stop::new();
    stop.request(1);
    gpu.set_stop(&stop);
    let began = Instant::now();
    let counted = gpu.perft(&Reversi, &[Reversi.initial()], 20);
    assert!(matches!(counted, Err(Error::Interrupted(_))), "{counted:?}");
    assert!(
        began.elapsed() < Duration::from_secs(20),
        "{:?}",
        began.elapsed()
    );
    gpu.set_stop(&Stop::new());
    assert_eq!(gpu.perft(&Reversi, &[Reversi.initial()], 2).unwrap(), [12]);

    let mut deep = player("alphabeta:depth=12,exec=gpu");
    deep.set_limits(&cubesearch::players::MoveLimits {
        stop: Some(stop),
        ..Default::default()
    });
    let start = Reversi.initial();
    let mv = deep.choose(&Reversi, &start).unwrap();
    assert!(Reversi.moves(&start).contains(&mv));
}

/// A learned player fits its ProbCut margin on games of its own evaluation when it is made,
/// and is made even where those games never end: here a constant evaluation shuffles checkers
/// kings about (the games are cut off), and it still moves.
#[test]
fn a_learned_player_is_made_where_its_own_games_never_end() {
    use cubesearch::games::Checkers;
    use cubesearch::players::Limit;
    use cubesearch_players::alphabeta::AlphaBetaPlayer;
    use cubesearch_players::learned::Evaluated;
    let flat = Evaluated::new(Checkers::default(), Box::new(|_, _| 0)).with_probcut();
    let mut learned =
        AlphaBetaPlayer::<Checkers>::cpu(Limit::Depth(3), "flat").with_evaluation(flat);
    let game = Checkers::default();
    let mv = learned.choose(&game, &game.initial()).unwrap();
    assert!(game.moves(&game.initial()).contains(&mv));
}
