//! TD(0) training on the GPU: with one unit the device plays and learns exactly as the CPU's
//! single-thread trainer (same games, same weights within float rounding), and a short run with
//! many units learns (greedy play gets better than with untrained weights).

use cubesearch::kernels::fib::GpuTiles;
use cubesearch::learn::{play, seed_shapes, CpuTd, NTupleNetwork, TdEngine};
use cubesearch::testing::executor;
use cubesearch::{Backend, TdUpdate};
use cubesearch_games::fib::{Fib, Pow2, Sliding, TileRule};
use rstest::rstest;

/// Trains `games` games from zero weights with one GPU unit (game order as the CPU's) and with
/// the CPU single-thread trainer; returns (CPU scores, GPU scores, CPU net, GPU net).
fn one_unit_run<T: GpuTiles>(
    backend: Backend,
    games: u32,
    alpha: f32,
    seed: u32,
) -> Option<(Vec<u64>, Vec<u64>, NTupleNetwork, NTupleNetwork)> {
    let exec = executor(backend)?;
    let game = Sliding::<T>::new();
    let mut cpu_net = NTupleNetwork::for_game::<T>(&seed_shapes()).unwrap();
    let cpu_scores = CpuTd { threads: 1 }
        .train(&game, &mut cpu_net, games, alpha, seed)
        .unwrap();
    let mut gpu_net = NTupleNetwork::for_game::<T>(&seed_shapes()).unwrap();
    let mut engine: Box<dyn TdEngine<T>> = exec.td_engine::<T>(Some(1));
    let step = alpha / gpu_net.lookups() as f32;
    let mut gpu_scores = Vec::new();
    engine
        .play(&gpu_net, 0, games as u64, seed, step, &mut |e| {
            gpu_scores.push(e.score);
            Ok(())
        })
        .unwrap();
    engine.sync(&mut gpu_net).unwrap();
    Some((cpu_scores, gpu_scores, cpu_net, gpu_net))
}

fn assert_same_weights(what: &str, cpu: &NTupleNetwork, gpu: &NTupleNetwork) {
    let mut changed = 0;
    for t in 0..cpu.shapes().len() {
        let (c, g) = (cpu.table(t), gpu.table(t));
        for (i, (a, b)) in c.iter().zip(&g).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * a.abs().max(1.0),
                "{what}: table {t} weight {i}: CPU {a}, GPU {b}"
            );
            changed += (*a != 0.0) as usize;
        }
    }
    assert!(changed > 100, "{what}: only {changed} weights learned");
}

fn one_unit_equals_cpu<T: GpuTiles>(backend: Backend) {
    let Some((cpu_scores, gpu_scores, cpu_net, gpu_net)) = one_unit_run::<T>(backend, 6, 0.1, 5)
    else {
        return;
    };
    assert_eq!(cpu_scores, gpu_scores, "{}: game scores", T::NAME);
    assert_same_weights(T::NAME, &cpu_net, &gpu_net);
}

#[rstest]
fn one_unit_trains_exactly_as_the_cpu_single_thread_trainer(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    one_unit_equals_cpu::<Fib>(backend);
    one_unit_equals_cpu::<Pow2>(backend);
}

#[rstest]
fn the_td_update_executor_trains_on_every_backend(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(mut exec) = executor(backend) else {
        return;
    };
    let game = Sliding::<Pow2>::new();
    let mut net = NTupleNetwork::for_game::<Pow2>(&seed_shapes()).unwrap();
    let scores = exec.train(&game, &mut net, 40, 0.1, 3).unwrap();
    assert_eq!(scores.len(), 40);
    assert!(scores.iter().all(|&s| s > 0));
    assert!(net.table(0).iter().any(|&w| w != 0.0));
    // A network of the other game is refused, not trained.
    let mut wrong = NTupleNetwork::for_game::<Fib>(&seed_shapes()).unwrap();
    assert!(exec.train(&game, &mut wrong, 1, 0.1, 3).is_err());
}

/// Mean greedy score (CPU, 300 games, fixed seed) before and after `games` of GPU training.
fn gpu_learning<T: TileRule + GpuTiles>(backend: Backend, games: u64) -> Option<(f64, f64)> {
    let exec = executor(backend)?;
    let game = Sliding::<T>::new();
    let mut net = NTupleNetwork::for_game::<T>(&seed_shapes()).unwrap();
    let untrained = play(&game, &net, 300, 99, 0).unwrap().mean_score;
    let mut engine = exec.td_engine::<T>(Some(32));
    let step = 0.1 / net.lookups() as f32;
    let mut n = 0;
    engine
        .play(&net, 0, games, 7, step, &mut |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
    assert_eq!(n, games);
    engine.sync(&mut net).unwrap();
    let trained = play(&game, &net, 300, 99, 0).unwrap().mean_score;
    Some((untrained, trained))
}

#[rstest]
fn gpu_training_improves_greedy_play(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some((untrained, trained)) = gpu_learning::<Pow2>(backend, 600) else {
        return;
    };
    eprintln!("2048: greedy untrained {untrained:.0}, after GPU training {trained:.0}");
    assert!(
        trained > 1.2 * untrained,
        "untrained {untrained}, trained {trained}"
    );
}
