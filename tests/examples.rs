//! The examples are part of the API's contract: `connect4` is compiled here as a module and its
//! device rules are held to its host rules on every backend, as a user's CI would do.

#[allow(dead_code)]
#[path = "../examples/connect4.rs"]
mod connect4;

use connect4::ConnectFour;
use cubesearch::minimax::{self, Strategy};
use cubesearch::testing::{assert_same, executor};
use cubesearch::{perft, Backend, CpuExecutor, Game, Playouts};
use rstest::rstest;

/// Positions reached by random columns from the empty board (finished games included).
fn positions(count: usize) -> Vec<connect4::Position> {
    cubesearch::games::sample::random_positions(&ConnectFour, count, 30, 4)
}

#[test]
fn host_perft_follows_from_the_rules() {
    let mut cpu = CpuExecutor::new(0).unwrap();
    let root = ConnectFour.initial();
    // No game can end before the 7th stone: every sequence of columns is legal up to 6 plies,
    // and at 7 plies only the 7 that fill one column 7 times are not.
    for depth in 1..=6 {
        assert_eq!(
            perft::perft_split(&mut cpu, &ConnectFour, &root, depth).unwrap(),
            7u64.pow(depth)
        );
    }
    assert_eq!(
        perft::perft_split(&mut cpu, &ConnectFour, &root, 7).unwrap(),
        7u64.pow(7) - 7
    );
}

#[rstest]
fn device_rules_equal_the_host_rules(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(mut gpu) = executor(backend) else {
        return;
    };
    let mut cpu = CpuExecutor::new(0).unwrap();
    let roots = positions(200);
    // Perft walks every move of the device's list; playouts draw the same moves as the host.
    for depth in 1..=2 {
        let on_cpu = cubesearch::Perft::perft(&mut cpu, &ConnectFour, &roots, depth).unwrap();
        let on_gpu = cubesearch::Perft::perft(&mut gpu, &ConnectFour, &roots, depth).unwrap();
        assert_same(&format!("perft({depth})"), &on_cpu, &on_gpu);
    }
    let on_cpu = cpu.playouts(&ConnectFour, &roots, 8, 99).unwrap();
    let on_gpu = gpu.playouts(&ConnectFour, &roots, 8, 99).unwrap();
    assert_same("playouts", &on_cpu, &on_gpu);
    let root = ConnectFour.parse_position("4453").unwrap();
    assert_eq!(
        perft::perft_split(&mut gpu, &ConnectFour, &root, 5).unwrap(),
        perft::perft_split(&mut cpu, &ConnectFour, &root, 5).unwrap()
    );
    for strategy in [Strategy::Split, Strategy::Frontier, Strategy::V1] {
        let want = minimax::solve(&mut gpu, &ConnectFour, &root, 3, Strategy::Cpu)
            .unwrap()
            .solution;
        let got = minimax::solve(&mut gpu, &ConnectFour, &root, 3, strategy)
            .unwrap()
            .solution;
        assert_eq!((got.value, got.best), (want.value, want.best), "{strategy}");
    }
}

#[test]
fn bad_positions_are_refused() {
    for bad in ["8", "4x", "1111111"] {
        assert!(ConnectFour.parse_position(bad).is_err(), "{bad}");
    }
    let won = ConnectFour.parse_position("1212121").unwrap();
    assert_eq!(ConnectFour.outcome(&won), cubesearch::Outcome::Loss);
    assert!(ConnectFour.moves(&won).is_empty());
}
