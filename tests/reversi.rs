//! Reversi end to end: the device rules, the generic playout and perft kernels and the CPU oracle
//! agree bit for bit on every backend, and the exact endgame solved with a device's help equals
//! the CPU solver's.

use cubesearch::games::{Board, Reversi};
use cubesearch::perft::perft_divide;
use cubesearch::testing::random_positions;
use cubesearch::testing::{assert_same, executor};
use cubesearch::{Backend, CpuExecutor, Executor, Game, Perft, Playouts, Result};
use cubesearch_games::reversi::device::children::launch_children;
use cubesearch_games::reversi::endgame::{solve_on, DeviceOptions, Solver};
use cubesearch_kernels::scores::launch_scores;
use rstest::rstest;

/// Children the children kernel keeps per position (no reachable position has more moves).
const MAX_CHILDREN: u32 = 40;

/// Each state's move count and children, played on the device.
fn device_children(exec: &Executor, states: &[Board]) -> Result<Vec<(u32, Vec<Board>)>> {
    match exec {
        Executor::Cpu(_) => unreachable!("the children kernel runs on a GPU executor"),
        #[cfg(feature = "wgpu")]
        Executor::Wgpu(gpu) => launch_children(gpu.client(), &Reversi, states, MAX_CHILDREN),
        #[cfg(feature = "cuda")]
        Executor::Cuda(gpu) => launch_children(gpu.client(), &Reversi, states, MAX_CHILDREN),
    }
}

/// Each state's leaf score, computed on the device.
fn device_scores(exec: &Executor, states: &[Board]) -> Result<Vec<i32>> {
    match exec {
        Executor::Cpu(_) => unreachable!("the scores kernel runs on a GPU executor"),
        #[cfg(feature = "wgpu")]
        Executor::Wgpu(gpu) => launch_scores(gpu.client(), &Reversi, states),
        #[cfg(feature = "cuda")]
        Executor::Cuda(gpu) => launch_scores(gpu.client(), &Reversi, states),
    }
}

/// The evaluation the GPU search strategies score leaves with equals the host's, finished games
/// (scaled final scores) included.
#[rstest]
fn every_score_matches_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let mut states = random_positions(&Reversi, 2000, 70, 33);
    states.push(Reversi.initial());
    let expected: Vec<i32> = states.iter().map(|s| Reversi.score(s)).collect();
    let finished = states
        .iter()
        .filter(|s| Reversi.moves(s).is_empty())
        .count();
    let distinct: std::collections::BTreeSet<i32> = expected.iter().copied().collect();
    assert!(
        finished > 0 && distinct.len() > 200,
        "{finished} finished, {} values",
        distinct.len()
    );
    assert_eq!(device_scores(&gpu, &states).unwrap(), expected);
}

#[rstest]
fn every_child_matches_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let mut states = random_positions(&Reversi, 600, 70, 21);
    states.push(Reversi.initial());
    let passes = states
        .iter()
        .filter(|s| Reversi.moves(s) == [cubesearch::games::ReversiMove::Pass])
        .count();
    let finished = states
        .iter()
        .filter(|s| Reversi.moves(s).is_empty())
        .count();
    assert!(
        passes > 0 && finished > 0,
        "{passes} passes, {finished} finished games"
    );
    let expected: Vec<(u32, Vec<Board>)> = states
        .iter()
        .map(|s| {
            let moves = Reversi.moves(s);
            let children = moves.iter().map(|&m| Reversi.apply(s, m)).collect();
            (moves.len() as u32, children)
        })
        .collect();
    let got = device_children(&gpu, &states).unwrap();
    assert_same("reversi children", &expected, &got);
}

#[rstest]
fn perft_from_the_start_matches_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let start = [Reversi.initial()];
    // docs/RULES.md's table.
    let table = [4, 12, 56, 244, 1396, 8200];
    for (depth, nodes) in (1..=6).zip(table) {
        let expected = cpu.perft(&Reversi, &start, depth).unwrap();
        assert_eq!(expected, [nodes], "cpu depth {depth}");
        assert_eq!(
            gpu.perft(&Reversi, &start, depth).unwrap(),
            expected,
            "depth {depth}"
        );
    }
}

#[rstest]
fn perft_on_random_positions_matches_the_cpu(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let roots = random_positions(&Reversi, 60, 70, 33);
    for depth in 1..=4 {
        let expected = cpu.perft(&Reversi, &roots, depth).unwrap();
        let got = gpu.perft(&Reversi, &roots, depth).unwrap();
        assert_same(&format!("reversi perft depth {depth}"), &expected, &got);
    }
}

#[rstest]
fn perft_divide_is_the_same_on_every_backend(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let root = Reversi.initial();
    let mut cpu = CpuExecutor::new(1).unwrap();
    for depth in [1, 4] {
        let reference = perft_divide(&mut cpu, &Reversi, &root, depth, |_, _| {}).unwrap();
        let got = perft_divide(&mut exec, &Reversi, &root, depth, |_, _| {}).unwrap();
        assert_eq!(got, reference, "depth {depth}");
        assert_eq!(got.nodes, got.divide.iter().map(|(_, n)| n).sum::<u64>());
    }
}

#[rstest]
fn playouts_match_the_cpu_bit_for_bit(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let mut roots = random_positions(&Reversi, 30, 70, 4);
    roots.push(Reversi.initial());
    for (per_root, seed) in [(1, 1), (16, 7), (64, 0xDEAD_BEEF)] {
        let expected = cpu.playouts(&Reversi, &roots, per_root, seed).unwrap();
        let got = gpu.playouts(&Reversi, &roots, per_root, seed).unwrap();
        assert_same(
            &format!("reversi playouts, {per_root} per root, seed {seed}"),
            &expected,
            &got,
        );
    }
}

#[test]
fn playouts_of_a_finished_game_repeat_its_result() {
    let mut cpu = CpuExecutor::new(1).unwrap();
    // White to move has lost 0–7: black discs on a1, b1, c1 and the four centre squares.
    let mut squares: Vec<char> = "-".repeat(64).chars().collect();
    for s in [0, 1, 2, 27, 28, 35, 36] {
        squares[s] = 'X';
    }
    let text: String = squares.into_iter().collect();
    let over = Reversi.parse_position(&(text + " O")).unwrap();
    let counts = cpu.playouts(&Reversi, &[over], 10, 1).unwrap()[0];
    assert_eq!((counts.wins, counts.draws, counts.losses()), (0, 0, 10));
}

/// Endgames of 12 to 14 empties (with passes, wins, draws and losses among them) solved with
/// their nodes of at most 6 empties on the executor have the CPU solver's exact values, and a
/// best move of that value.
#[rstest]
fn the_endgame_on_an_executor_equals_the_solver(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let mut solver = Solver::new();
    let options = DeviceOptions { leaf_empties: 6 };
    let mut values = std::collections::BTreeSet::new();
    let endgames = random_positions(&Reversi, 600, 60, 56)
        .into_iter()
        .filter(|b| (12..=14).contains(&b.empty().count_ones()) && !Reversi.moves(b).is_empty());
    for board in endgames.take(12) {
        let exact = solver.solve(&board).value;
        let (got, _) = solve_on(&mut exec, &board, &options).unwrap();
        let position = Reversi.format_position(&board);
        assert_eq!(got.value, exact, "{position}");
        let after = Reversi.apply(&board, got.best.expect("a move"));
        assert_eq!(-solver.solve(&after).value, exact, "{position}");
        values.insert(exact);
    }
    assert!(values.len() > 6, "{values:?}");
}
