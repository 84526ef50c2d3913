//! Nim end to end: the device rules, the generic playout and perft kernels and the CPU oracle
//! agree bit for bit on every backend.

use cubesearch::games::{Nim, NimState};
use cubesearch::minimax::{self, Strategy};
use cubesearch::perft::perft_divide;
use cubesearch::testing::{assert_same, executor};
use cubesearch::{Backend, CpuExecutor, Game, Outcome, Perft, Playouts, Stop};
use proptest::prelude::*;
use rstest::rstest;

/// Random Nim positions: 1 to 8 heaps of 0 to 15 (all-empty boards included).
fn random_positions(count: usize, seed: u32) -> Vec<NimState> {
    let mut rng = cubesearch::rng::XorShift32::for_worker(seed, 0);
    (0..count)
        .map(|_| {
            let heaps: Vec<u32> = (0..1 + rng.below(8)).map(|_| rng.below(16)).collect();
            NimState::new(&heaps).unwrap()
        })
        .collect()
}

#[rstest]
fn playouts_match_the_cpu_bit_for_bit(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let mut roots = random_positions(40, 3);
    roots.push(NimState::seed_board(8).unwrap());
    for (per_root, seed) in [(1, 1), (48, 7), (1024, 0xDEAD_BEEF)] {
        let expected = cpu.playouts(&Nim, &roots, per_root, seed).unwrap();
        let got = gpu.playouts(&Nim, &roots, per_root, seed).unwrap();
        assert_same(
            &format!("nim playouts, {per_root} per root, seed {seed}"),
            &expected,
            &got,
        );
    }
}

#[test]
fn playouts_of_a_finished_game_are_all_losses() {
    let mut cpu = CpuExecutor::new(1).unwrap();
    let empty = NimState::new(&[0, 0]).unwrap();
    let counts = cpu.playouts(&Nim, &[empty], 10, 1).unwrap()[0];
    assert_eq!((counts.wins, counts.draws, counts.losses()), (0, 0, 10));
}

#[test]
fn a_single_object_is_always_won() {
    let mut cpu = CpuExecutor::new(1).unwrap();
    let one = NimState::new(&[1]).unwrap();
    assert_eq!(cpu.playouts(&Nim, &[one], 16, 9).unwrap()[0].wins, 16);
}

#[rstest]
fn perft_matches_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let roots = random_positions(300, 11);
    for depth in 1..=4 {
        let expected = cpu.perft(&Nim, &roots, depth).unwrap();
        let got = gpu.perft(&Nim, &roots, depth).unwrap();
        assert_same(&format!("nim perft depth {depth}"), &expected, &got);
    }
}

#[rstest]
fn perft_divide_is_the_same_on_every_backend(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let root = NimState::seed_board(4).unwrap();
    let mut cpu = CpuExecutor::new(1).unwrap();
    for depth in [1, 3, 5] {
        let reference = perft_divide(&mut cpu, &Nim, &root, depth, |_, _| {}).unwrap();
        let got = perft_divide(&mut exec, &Nim, &root, depth, |_, _| {}).unwrap();
        assert_eq!(got, reference, "depth {depth}");
        assert_eq!(got.nodes, got.divide.iter().map(|(_, n)| n).sum::<u64>());
    }
}

proptest! {
    /// With perfect information, the side to move loses exactly when the nim-sum is zero; check
    /// the rules against Bouton by exhaustive search on small boards.
    #[test]
    fn exhaustive_search_agrees_with_bouton(heaps in proptest::collection::vec(0u32..6, 1..4)) {
        fn wins(s: &NimState) -> bool {
            Nim.outcome(s) == Outcome::Ongoing && Nim.moves(s).iter().any(|&m| !wins(&Nim.apply(s, m)))
        }
        let s = NimState::new(&heaps).unwrap();
        prop_assert_eq!(wins(&s), s.nim_sum() != 0);
    }

    /// `solve nim` without a strategy answers by the nim-sum: the value a search finds, and a
    /// best move after which the opponent is lost.
    #[test]
    fn the_exact_solver_agrees_with_search(heaps in proptest::collection::vec(0u32..6, 1..4)) {
        use cubesearch_games::registry::TwoPlayerGame;
        let s = NimState::new(&heaps).unwrap();
        let exact = (Nim::exact_solver().unwrap().solve)(&Nim, &s, 1, &Stop::new()).unwrap();
        let mut cpu = CpuExecutor::new(1).unwrap();
        let searched = minimax::solve(&mut cpu, &Nim, &s, 32, Strategy::Cpu).unwrap();
        prop_assert_eq!(exact.value, searched.solution.value);
        prop_assert_eq!(exact.best.is_none(), Nim.outcome(&s) != Outcome::Ongoing);
        if let (Some(best), 1) = (exact.best, exact.value) {
            prop_assert_eq!(Nim.apply(&s, best).nim_sum(), 0);
        }
    }
}

/// Deep subtrees per unit: on lavapipe a walk must resume over several launches, since the
/// driver stops an invocation's loops after 65535 iterations (eight heaps of 15 at depth 3 need
/// more).
#[rstest]
fn deep_perft_survives_loop_limited_drivers(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let roots = [
        NimState::new(&[15; 8]).unwrap(),
        Nim.parse_position("9,12,5,8").unwrap(),
    ];
    assert_same(
        "deep nim perft",
        &cpu.perft(&Nim, &roots, 3).unwrap(),
        &gpu.perft(&Nim, &roots, 3).unwrap(),
    );
}

/// Walks cut into launches of a few steps give what one launch gives: perft and alpha-beta
/// subtrees stop mid-walk, keep their stacks on the device and go on, on every GPU.
#[rstest]
fn walks_resume_across_launches(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
    #[values(1, 7, 1000)] steps: u32,
) {
    use cubesearch::SubtreeSearch;
    let Some(gpu) = executor(backend) else {
        return;
    };
    let mut gpu = gpu.with_steps_per_launch(steps);
    let mut cpu = CpuExecutor::new(0).unwrap();
    // Small boards: with one step a launch, every move is a launch.
    let roots: Vec<NimState> = ["3,4,5", "1,2,3,4", "2,2", "7", "0", "1,1,1", "6,1,3"]
        .map(|p| Nim.parse_position(p).unwrap())
        .into();
    for depth in [1, 2, 4] {
        assert_same(
            &format!("nim perft({depth}), {steps} steps a launch"),
            &cpu.perft(&Nim, &roots, depth).unwrap(),
            &gpu.perft(&Nim, &roots, depth).unwrap(),
        );
    }
    let windows: Vec<(i32, i32)> = (0..roots.len() as i32).map(|i| (-1 - i % 2, 1)).collect();
    for depth in [1, 3, 6] {
        let on_cpu = cpu.search_windows(&Nim, &roots, &windows, depth).unwrap();
        let on_gpu = gpu.search_windows(&Nim, &roots, &windows, depth).unwrap();
        assert_same(
            &format!("nim negamax({depth}), {steps} steps a launch"),
            &on_cpu.values,
            &on_gpu.values,
        );
    }
}

/// The split and frontier strategies solve Nim to the end on every GPU: their device walks
/// resume across launches, so lavapipe's loop budget no longer caps the depth (1,3,5,7 failed
/// there before, its host part over 16M positions). Bouton: the nim-sum is 0, a loss.
#[rstest]
fn gpu_strategies_solve_nim_to_the_end(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
    #[values(Strategy::Split, Strategy::Frontier)] strategy: Strategy,
) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let root = Nim.parse_position("1,3,5,7").unwrap();
    let solved = minimax::solve(&mut gpu, &Nim, &root, 16, strategy).unwrap();
    assert_eq!(solved.solution.value, -1, "{strategy}");
    let root = Nim.parse_position("1,3,5,6").unwrap();
    let solved = minimax::solve(&mut gpu, &Nim, &root, 15, strategy).unwrap();
    assert_eq!(solved.solution.value, 1, "{strategy}");
    let after = Nim.apply(&root, solved.solution.best.unwrap());
    assert_eq!(
        after.nim_sum(),
        0,
        "{strategy}: the best move leaves a nim-sum of 0"
    );
}

/// The effort estimate follows Nim's shrinking piles ply by ply: from the start, depth 15 has
/// 30,270,240 move paths (counted), and the estimate is within a factor of two of it, where
/// the last counted ply's branching, kept to depth 15, said 1.7e13.
#[test]
fn the_perft_estimate_follows_the_shrinking_piles() {
    use cubesearch_players::effort::TreeSize;
    let size = TreeSize::estimate(&Nim, &Nim.initial(), 15);
    assert!(!size.exact);
    let truth = 30_270_240.0;
    assert!(
        (truth / 2.0..truth * 2.0).contains(&size.leaves),
        "estimate {:.3e}",
        size.leaves
    );
}
