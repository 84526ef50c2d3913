//! The minimax pipeline: exact on Nim (Bouton's theorem is the oracle), identical values from
//! every strategy on every backend at a depth cut-off, and alpha-beta equal to plain minimax.

use cubesearch::games::Checkers;
use cubesearch::games::Reversi;
use cubesearch::games::{Nim, NimState};
use cubesearch::rng::XorShift32;
use cubesearch::testing::executor;
use cubesearch::{Backend, Executor, Game, GpuGame};
use cubesearch_search::minimax::{
    alphabeta, solve, SearchOptions, Strategy, TranspositionTable, INFINITY,
};
use rstest::rstest;

/// Random Nim positions of 2–8 heaps ≤ 15 holding exactly `objects` objects: a full-depth search
/// stays small, and one depth means one kernel to compile.
fn small_nim(count: usize, objects: u32, seed: u32) -> Vec<NimState> {
    let mut rng = XorShift32::for_worker(seed, 0);
    let mut out = Vec::new();
    while out.len() < count {
        let heaps: Vec<u32> = (0..2 + rng.below(7)).map(|_| rng.below(16)).collect();
        let s = NimState::new(&heaps).unwrap();
        if s.objects() == objects {
            out.push(s);
        }
    }
    out
}

/// Random positions reached by a few random moves from the start.
fn reached<G: Game>(game: &G, count: usize, plies: u32, seed: u32) -> Vec<G::State> {
    let mut rng = XorShift32::for_worker(seed, 0);
    let mut out = Vec::new();
    while out.len() < count {
        let mut s = game.initial();
        for _ in 0..rng.below(plies + 1) {
            let moves = game.moves(&s);
            if moves.is_empty() {
                break;
            }
            s = game.apply(&s, moves[rng.below(moves.len() as u32) as usize]);
        }
        if !game.moves(&s).is_empty() {
            out.push(s);
        }
    }
    out
}

fn strategies(exec: &Executor) -> &'static [Strategy] {
    if exec.is_cpu() {
        &[
            Strategy::Cpu,
            Strategy::CpuSplit,
            Strategy::Split,
            Strategy::Frontier,
        ]
    } else {
        &Strategy::ALL
    }
}

#[rstest]
fn full_depth_nim_agrees_with_bouton(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    // Full depth on every backend, lavapipe included: the walks resume across launches.
    for s in small_nim(10, 7, 4) {
        let depth = s.objects();
        let winning = s.winning_moves();
        for &strategy in strategies(&exec) {
            let solved = solve(&mut exec, &Nim, &s, depth, strategy)
                .unwrap()
                .solution;
            let text = Nim.format_position(&s);
            assert_eq!(
                solved.value,
                if s.nim_sum() != 0 { 1 } else { -1 },
                "{text} with {strategy}"
            );
            if !winning.is_empty() {
                assert!(
                    winning.contains(&solved.best.unwrap()),
                    "{text} with {strategy}: {:?}",
                    solved.best
                );
            }
        }
    }
}

/// Every strategy returns the same value and move as the one-thread CPU search.
fn same_at_depth<G: GpuGame>(exec: &mut Executor, game: &G, positions: &[G::State], depth: u32) {
    for s in positions {
        let reference = solve(exec, game, s, depth, Strategy::Cpu).unwrap().solution;
        for &strategy in strategies(exec) {
            let text = game.format_position(s);
            if strategy == Strategy::V2 && G::MAX_SCORE >= 1 << 15 {
                // v2's 16-bit values cannot hold this game's scores: it must say so.
                let refused = solve(exec, game, s, depth, strategy).unwrap_err();
                assert!(refused.to_string().contains("16 bits"), "{refused}");
                continue;
            }
            let got = solve(exec, game, s, depth, strategy).unwrap().solution;
            assert_eq!(
                (got.value, got.best),
                (reference.value, reference.best),
                "{text}, depth {depth}, {strategy}"
            );
        }
    }
}

#[rstest]
fn depth_limited_values_are_identical_everywhere(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let mut rng = XorShift32::for_worker(8, 0);
    let nim: Vec<NimState> = (0..10)
        .map(|_| {
            NimState::new(
                &(0..2 + rng.below(7))
                    .map(|_| rng.below(16))
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        })
        .filter(|s| s.objects() > 0)
        .collect();
    same_at_depth(&mut exec, &Nim, &nim, 3);
    same_at_depth(&mut exec, &Reversi, &reached(&Reversi, 6, 20, 2), 3);
    same_at_depth(
        &mut exec,
        &Checkers::default(),
        &reached(&Checkers::default(), 6, 20, 5),
        3,
    );
}

/// Every strategy at depth 6 on Reversi and checkers, on every backend: on lavapipe too, where
/// the device walks (v1/v2/v4 below the grandchildren, split and frontier subtrees) run in
/// slices of its loop budget.
#[rstest]
fn deep_values_are_identical_everywhere(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    same_at_depth(&mut exec, &Reversi, &reached(&Reversi, 2, 16, 21), 6);
    same_at_depth(
        &mut exec,
        &Checkers::default(),
        &reached(&Checkers::default(), 2, 16, 22),
        6,
    );
}

/// The frontier strategy deep enough that its host plies meet transpositions (searched once)
/// and its subtrees are several plies deep: the one-thread search's value and move, with the
/// default aspiration window and with windows so narrow (and frontiers so small) that values
/// fall outside them and are searched again.
#[rstest]
fn frontier_search_agrees_at_depth_five(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    use cubesearch_search::minimax::{solve_frontier_with, FrontierOptions};
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let mut searched_again = 0;
    for s in reached(&Reversi, 4, 24, 13) {
        let text = Reversi.format_position(&s);
        let reference = solve(&mut exec, &Reversi, &s, 5, Strategy::Cpu)
            .unwrap()
            .solution;
        let solved = solve(&mut exec, &Reversi, &s, 5, Strategy::Frontier).unwrap();
        let shape = solved.split.expect("the frontier's shape");
        assert!((1..=2).contains(&shape.split), "{text}: {shape:?}");
        assert_eq!(
            (solved.solution.value, solved.solution.best),
            (reference.value, reference.best),
            "{text}"
        );
        for (frontier, aspiration) in [(1, 1), (50, 2), (10_000, 1)] {
            let options = FrontierOptions {
                frontier,
                aspiration,
            };
            let (narrow, shape) = solve_frontier_with(&mut exec, &Reversi, &s, 5, options).unwrap();
            assert_eq!(
                (narrow.value, narrow.best),
                (reference.value, reference.best),
                "{text}: frontier {frontier}, aspiration {aspiration}: {shape:?}"
            );
            // A guess, a search, and one more for each time the value left the window.
            searched_again += usize::from(shape.launches > 2);
        }
    }
    assert!(searched_again > 0, "no narrow window failed");
}

/// Win/loss games keep MTD(f)'s split on the GPU; graded evaluations get the frontier.
#[test]
fn the_default_gpu_strategy_follows_the_score_range() {
    use cubesearch::minimax::default_gpu_strategy;
    assert_eq!(default_gpu_strategy::<Nim>(), Strategy::Split);
    assert_eq!(default_gpu_strategy::<Reversi>(), Strategy::Frontier);
    assert_eq!(default_gpu_strategy::<Checkers>(), Strategy::Frontier);
}

#[rstest]
fn subtree_values_match_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    use cubesearch::SubtreeSearch;
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = cubesearch::CpuExecutor::new(0).unwrap();
    let positions = reached(&Reversi, 40, 30, 7);
    for depth in 0..=2 {
        assert_eq!(
            cpu.search(&Reversi, &positions, depth).unwrap(),
            gpu.search(&Reversi, &positions, depth).unwrap()
        );
    }
}

/// Fail-soft values and node counts in narrow windows are the CPU's, position by position (the
/// device walks the same tree in the same order).
#[rstest]
fn windowed_subtrees_match_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    use cubesearch::SubtreeSearch;
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let limited = gpu.limits().is_some_and(|l| l.loop_iterations.is_some());
    let mut cpu = cubesearch::CpuExecutor::new(0).unwrap();
    let mut rng = XorShift32::for_worker(11, 0);
    let positions = reached(&Reversi, 60, 30, 9);
    let windows: Vec<(i32, i32)> = positions
        .iter()
        .map(|_| {
            let gamma = rng.below(21) as i32 - 10;
            (gamma - 1, gamma)
        })
        .collect();
    for depth in 1..=if limited { 1 } else { 4 } {
        let want = cpu
            .search_windows(&Reversi, &positions, &windows, depth)
            .unwrap();
        let got = gpu
            .search_windows(&Reversi, &positions, &windows, depth)
            .unwrap();
        assert_eq!(got, want, "depth {depth}");
    }
    // Deeper on lavapipe the host walks the upper plies: exact values, which satisfy any window.
    let exact = cpu.search(&Reversi, &positions, 3).unwrap();
    let got = gpu
        .search_windows(&Reversi, &positions, &windows, 3)
        .unwrap();
    for ((&(alpha, beta), &v), &x) in windows.iter().zip(&got.values).zip(&exact) {
        assert!(
            (v <= alpha && x <= v) || (v >= beta && x >= v) || (alpha < v && v < beta && v == x),
            "window ({alpha}, {beta}): fail-soft {v}, exact {x}"
        );
    }
}

/// The split's upper tree is the one alpha-beta visits when its guesses are right (Nim's
/// depth-limited values are all 0, so they are): it visits no more nodes than the sequential
/// search (up to the roots of its two tests), and far fewer than the root split's full windows.
#[rstest]
fn the_split_keeps_the_pruning(#[values(4, 5, 6)] depth: u32) {
    let s = NimState::seed_board(5).unwrap();
    let mut exec = cubesearch::CpuExecutor::new(2).unwrap();
    let (split, _) = cubesearch_search::minimax::solve_split(&mut exec, &Nim, &s, depth).unwrap();
    let root_split = cubesearch_search::minimax::solve_root_split(&Nim, &s, depth);
    let mut options = SearchOptions::default();
    let sequential = cubesearch_search::minimax::solve_sequential(&Nim, &s, depth, &mut options);
    assert_eq!(
        (split.value, split.best),
        (sequential.value, sequential.best)
    );
    let (split, sequential, root_split) = (
        split.nodes.unwrap(),
        sequential.nodes.unwrap(),
        root_split.nodes.unwrap(),
    );
    assert!(
        split <= sequential + sequential / 100 && split * 2 < root_split,
        "split {split} nodes, sequential {sequential}, root split {root_split}"
    );
}

/// Plain negamax without pruning: the reference for alpha-beta.
fn minimax<G: Game>(game: &G, s: &G::State, depth: u32) -> i32 {
    let moves = game.moves(s);
    if depth == 0 || moves.is_empty() {
        return game.score(s);
    }
    moves
        .iter()
        .map(|&m| -minimax(game, &game.apply(s, m), depth - 1))
        .max()
        .unwrap()
}

#[test]
fn alphabeta_equals_plain_minimax_with_and_without_a_table() {
    let reverse: cubesearch::minimax::MoveOrder<Reversi> = |_, _, moves| moves.reverse();
    for s in reached(&Reversi, 20, 40, 3) {
        for depth in 1..=4 {
            let exact = minimax(&Reversi, &s, depth);
            let plain = alphabeta(
                &Reversi,
                &s,
                depth,
                (-INFINITY, INFINITY),
                &mut SearchOptions::default(),
            );
            let mut table = TranspositionTable::new(1 << 16);
            let mut options = SearchOptions {
                table: Some(&mut table),
                ..SearchOptions::default()
            };
            let with_table = alphabeta(&Reversi, &s, depth, (-INFINITY, INFINITY), &mut options);
            let mut options = SearchOptions {
                order: Some(reverse),
                ..SearchOptions::default()
            };
            let reordered = alphabeta(&Reversi, &s, depth, (-INFINITY, INFINITY), &mut options);
            assert_eq!(
                (plain, with_table, reordered),
                (exact, exact, exact),
                "{} depth {depth}",
                Reversi.format_position(&s)
            );
        }
    }
}

/// The move order runs only where two plies or more are left: a node above the leaves scores
/// every child it searches anyway.
#[test]
fn the_move_order_skips_the_nodes_above_the_leaves() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static ORDERED: AtomicUsize = AtomicUsize::new(0);
    let counting: cubesearch::minimax::MoveOrder<Reversi> = |_, _, moves| {
        ORDERED.fetch_add(1, Ordering::Relaxed);
        moves.reverse();
    };
    let start = Reversi.initial();
    let interior = |depth| {
        ORDERED.store(0, Ordering::Relaxed);
        let mut options = SearchOptions {
            order: Some(counting),
            ..SearchOptions::default()
        };
        alphabeta(&Reversi, &start, depth, (-INFINITY, INFINITY), &mut options);
        ORDERED.load(Ordering::Relaxed)
    };
    // Depth 1: the root is above the leaves. Depth 2: the root only (its four children are
    // above the leaves).
    assert_eq!((interior(1), interior(2)), (0, 1));
}

#[test]
fn pruning_visits_fewer_nodes_than_minimax() {
    let s = NimState::new(&[3, 4, 5]).unwrap();
    let mut options = SearchOptions::default();
    alphabeta(&Nim, &s, 6, (-INFINITY, INFINITY), &mut options);
    let full = cubesearch::games::NimState::objects(s); // branching of the root
    assert!(full == 12);
    // perft(6) of 3,4,5 counts every leaf; alpha-beta must see far fewer nodes.
    let leaves =
        cubesearch::perft::perft_split(&mut cubesearch::CpuExecutor::new(1).unwrap(), &Nim, &s, 6)
            .unwrap();
    assert!(
        options.nodes * 10 < leaves,
        "{} nodes vs {leaves} leaves",
        options.nodes
    );
}

/// ProbCut with a margin no score reaches never cuts: the values stay plain minimax's.
#[test]
fn probcut_beyond_every_score_keeps_the_exact_values() {
    use cubesearch::minimax::ProbCut;
    for s in reached(&Reversi, 12, 30, 9) {
        for depth in 3..=5 {
            let mut options = SearchOptions {
                probcut: Some(ProbCut { margin: INFINITY }),
                ..SearchOptions::default()
            };
            let cut = alphabeta(&Reversi, &s, depth, (-INFINITY, INFINITY), &mut options);
            assert_eq!(cut, minimax(&Reversi, &s, depth), "depth {depth}");
        }
    }
}

/// The fitted margin is 1.5 times the root mean square of the deep values minus the shallow
/// ones (depths 3, 4, 5 against 1, 2, 3), and a search with it visits fewer nodes than the
/// exact one, its values within two margins of the exact ones on these positions.
#[test]
fn probcut_fits_its_margin_and_prunes() {
    use cubesearch::minimax::ProbCut;
    let positions = reached(&Reversi, 16, 30, 21);
    let mut squares = 0.0;
    let mut count = 0.0;
    for s in positions.iter().filter(|s| !Reversi.moves(s).is_empty()) {
        for depth in 3..=5 {
            let gap = f64::from(minimax(&Reversi, s, depth) - minimax(&Reversi, s, depth - 2));
            squares += gap * gap;
            count += 1.0;
        }
    }
    let want = (1.5 * (squares / count).sqrt()).round() as i32;
    let fitted = ProbCut::fit(&Reversi, &positions).unwrap();
    assert_eq!(fitted.margin, want);
    // A finished game: the first move always, to the end.
    let mut finished = Reversi.initial();
    while let Some(&mv) = Reversi.moves(&finished).first() {
        finished = Reversi.apply(&finished, mv);
    }
    assert_eq!(ProbCut::fit(&Reversi, &[finished]), None);
    let (mut exact_nodes, mut cut_nodes) = (0, 0);
    for s in positions.iter().filter(|s| !Reversi.moves(s).is_empty()) {
        let mut exact = SearchOptions::default();
        let value = alphabeta(&Reversi, s, 6, (-INFINITY, INFINITY), &mut exact);
        let mut cut = SearchOptions {
            probcut: Some(fitted),
            ..SearchOptions::default()
        };
        let guess = alphabeta(&Reversi, s, 6, (-INFINITY, INFINITY), &mut cut);
        exact_nodes += exact.nodes;
        cut_nodes += cut.nodes;
        assert!(
            (guess - value).abs() <= 2 * fitted.margin,
            "{guess} against {value}"
        );
    }
    assert!(
        cut_nodes < exact_nodes,
        "{cut_nodes} nodes against {exact_nodes}"
    );
}
