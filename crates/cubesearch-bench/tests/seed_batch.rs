//! The seed's Table 3 lockstep driver plays the same games however the decisions are made: on
//! one CPU thread, on two, and on a GPU in each launch shape.

use cubesearch_bench::seed_batch::{seed_ai_against_random, Decider, DeviceShape};
use cubesearch_core::Backend;
use cubesearch_games::reversi::seed_player::Level;
use cubesearch_search::testing::executor;
use rstest::rstest;

#[rstest]
fn table3_games_are_the_same_however_decided(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for level in [Level::Easy, Level::Medium] {
        let reference = seed_ai_against_random(level, 6, 4, &Decider::Cpu(&one)).unwrap();
        assert_eq!(reference.wins + reference.losses + reference.draws, 6);
        // Whole games (the shortest possible game has 9 plies).
        assert!(reference.moves.iter().all(|m| m.len() >= 9));
        assert!(reference.moves.iter().map(Vec::len).sum::<usize>() > 6 * 40);
        for decider in [
            Decider::Cpu(&two),
            Decider::Device {
                exec: &gpu,
                shape: DeviceShape::Batched,
            },
            Decider::Device {
                exec: &gpu,
                shape: DeviceShape::PerDecision,
            },
            Decider::Device {
                exec: &gpu,
                shape: DeviceShape::WholeGames,
            },
        ] {
            let got = seed_ai_against_random(level, 6, 4, &decider).unwrap();
            assert_eq!(got.moves, reference.moves, "{level:?}");
            assert_eq!(
                (got.wins, got.losses, got.draws, got.decisions),
                (
                    reference.wins,
                    reference.losses,
                    reference.draws,
                    reference.decisions
                )
            );
        }
    }
}
