//! Checkers end to end: the device move generator (written apart from the host's) agrees with
//! the CPU rules move for move, and the generic perft and playout kernels agree with the CPU
//! oracle bit for bit on every backend.

use cubesearch::games::{Checkers, CheckersState, Rules};
use cubesearch::rng::XorShift32;
use cubesearch::testing::{assert_same, executor};
use cubesearch::{Backend, CpuExecutor, Executor, Game, Perft, Playouts};
use cubesearch_games::checkers::device::movelist::{launch_movelists, DeviceMoves};
use rstest::rstest;

/// Children listed per position; enough for every position the tests build.
const MAX_CHILDREN: u32 = 96;

/// Positions met in random games from the start (every ply, the final one included).
fn reachable(game: &Checkers, games: u32, seed: u32) -> Vec<CheckersState> {
    let mut out = Vec::new();
    for g in 0..games {
        let mut rng = XorShift32::for_worker(seed, g);
        let mut s = game.initial();
        loop {
            out.push(s);
            let moves = game.moves(&s);
            if moves.is_empty() {
                break;
            }
            s = game.apply(&s, moves[rng.below(moves.len() as u32) as usize]);
        }
    }
    out
}

/// Hand-made positions with long, branching and crowning captures.
fn special(game: &Checkers) -> Vec<CheckersState> {
    [
        "W:WK26:B14,15,22,23",
        "W:W10:B7,8",
        "W:WK10:B7,8",
        "B:W9,10,17,32:B6",
        "B:W14,23,30:B1,9",
        "W:W29:B25,22",
        "B:WK1:B",
        "W:WK1,K3,K9,K11,K25,K27:BK6,K7,K14,K15,K22,K23,18",
        "B:WK5,K6,K7,K13,K14,K15,K21,K22,K23:BK1,K10",
    ]
    .iter()
    .map(|fen| game.parse_position(fen).unwrap())
    .collect()
}

/// Scattered positions (crowded, many kings, long and branching captures) with at most `most`
/// moves, so that listing them all stays inside lavapipe's loop budget.
fn scattered(game: &Checkers, count: usize, most: usize, seed: u32) -> Vec<CheckersState> {
    let mut rng = XorShift32::for_worker(seed, 0);
    let mut out = Vec::new();
    while out.len() < count {
        let s = game.scattered_position(&mut rng);
        if game.moves(&s).len() <= most {
            out.push(s);
        }
    }
    out
}

fn movelists(
    exec: &Executor,
    game: &Checkers,
    states: &[CheckersState],
) -> Vec<DeviceMoves<CheckersState>> {
    match exec {
        #[cfg(feature = "wgpu")]
        Executor::Wgpu(gpu) => launch_movelists(gpu.client(), game, states, MAX_CHILDREN).unwrap(),
        #[cfg(feature = "cuda")]
        Executor::Cuda(gpu) => launch_movelists(gpu.client(), game, states, MAX_CHILDREN).unwrap(),
        Executor::Cpu(_) => unreachable!("movelists run on a device"),
    }
}

#[rstest]
fn device_moves_equal_the_cpu_moves(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
    #[values(Rules::Longest, Rules::American)] rules: Rules,
) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let game = Checkers::new(rules);
    let mut states = special(&game);
    states.extend(reachable(&game, 24, 5));
    states.extend(scattered(&game, 400, 40, 9));
    let device = movelists(&gpu, &game, &states);
    let (mut captures, mut sequences) = (0, 0);
    for (s, got) in states.iter().zip(&device) {
        let moves = game.moves(s);
        let fen = game.format_position(s);
        assert_eq!(got.outcome, game.outcome(s).code(), "outcome of {fen}");
        assert_eq!(got.count as usize, moves.len(), "move count of {fen}");
        assert!(
            moves.len() <= MAX_CHILDREN as usize,
            "{fen} has {} moves",
            moves.len()
        );
        captures += moves.iter().any(|m| m.jumps > 0) as usize;
        sequences += moves.iter().any(|m| m.jumps > 1) as usize;
        for (i, (&mv, child)) in moves.iter().zip(&got.children).enumerate() {
            assert_eq!(
                *child,
                game.apply(s, mv),
                "child {i} ({}) of {fen}",
                game.format_move(s, mv)
            );
        }
    }
    assert!(captures > 150, "only {captures} positions with a capture");
    assert!(
        sequences > 50,
        "only {sequences} positions with several jumps in a row"
    );
}

const AMERICAN: [u64; 6] = [7, 49, 302, 1469, 7361, 36768];
const LONGEST: [u64; 6] = [7, 49, 302, 1469, 7361, 36473];

#[rstest]
fn perft_from_the_start_matches_the_cpu_and_design(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
    #[values(Rules::Longest, Rules::American)] rules: Rules,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let game = Checkers::new(rules);
    let table = match rules {
        Rules::Longest => LONGEST,
        Rules::American => AMERICAN,
    };
    let root = [game.initial()];
    for depth in 1..=6u32 {
        let got = gpu.perft(&game, &root, depth).unwrap()[0];
        assert_eq!(
            got,
            table[depth as usize - 1],
            "{} depth {depth}",
            rules.name()
        );
    }
}

#[rstest]
fn perft_on_random_positions_matches_the_cpu(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
    #[values(Rules::Longest, Rules::American)] rules: Rules,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let game = Checkers::new(rules);
    let mut roots: Vec<_> = reachable(&game, 8, 17).into_iter().step_by(7).collect();
    roots.extend(special(&game));
    roots.extend(scattered(&game, 40, 12, 31));
    for depth in 1..=3 {
        assert_same(
            &format!("{} perft depth {depth}", rules.name()),
            &cpu.perft(&game, &roots, depth).unwrap(),
            &gpu.perft(&game, &roots, depth).unwrap(),
        );
    }
}

#[rstest]
fn playouts_match_the_cpu_bit_for_bit(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
    #[values(Rules::Longest, Rules::American)] rules: Rules,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    // Kings shuffling to the draw limit make the longest games (255 plies without a capture at
    // most); lavapipe plays them in slices (tests/long_playouts.rs has games past its budget).
    for draw_plies in [255, 50, 8] {
        let game = Checkers { rules, draw_plies };
        let mut roots: Vec<_> = reachable(&game, 4, 23).into_iter().step_by(11).collect();
        roots.push(game.initial());
        roots.extend(scattered(&game, 6, 24, 41));
        for (per_root, seed) in [(1, 1), (32, 0xDEAD_BEEF)] {
            let expected = cpu.playouts(&game, &roots, per_root, seed).unwrap();
            let got = gpu.playouts(&game, &roots, per_root, seed).unwrap();
            assert_same(
                &format!(
                    "{} playouts, draw after {draw_plies}, {per_root} per root, seed {seed}",
                    rules.name()
                ),
                &expected,
                &got,
            );
        }
    }
}

/// Playouts cut into launches of a few plies (each game saved and resumed on the device) count
/// what the CPU counts.
#[rstest]
fn playouts_resumed_every_few_plies_match_the_cpu(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let mut gpu = gpu.with_steps_per_launch(3);
    let mut cpu = CpuExecutor::new(0).unwrap();
    let game = Checkers {
        rules: Rules::American,
        draw_plies: 60,
    };
    let mut roots = scattered(&game, 6, 24, 43);
    roots.push(game.initial());
    let expected = cpu.playouts(&game, &roots, 16, 9).unwrap();
    assert_same(
        "playouts 3 plies a launch",
        &expected,
        &gpu.playouts(&game, &roots, 16, 9).unwrap(),
    );
}

#[test]
fn cpu_playouts_end_in_draws_under_a_short_limit() {
    let mut cpu = CpuExecutor::new(1).unwrap();
    let game = Checkers {
        rules: Rules::American,
        draw_plies: 2,
    };
    let counts = cpu.playouts(&game, &[game.initial()], 20, 3).unwrap()[0];
    // Nothing can be captured in the first two plies from the start.
    assert_eq!(counts.draws, 20);
}
