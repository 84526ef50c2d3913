//! TD(0) training on the GPU: with one unit the device plays and learns exactly as the CPU's
//! single-thread trainer (same games, same weights bit for bit), and a short run with
//! many units learns (greedy play gets better than with untrained weights).

use cubesearch::games::seed_shapes;
use cubesearch::learn::{play, TdOrder};
use cubesearch::testing::{executor, lane_exchanges};
use cubesearch::train::{engine_on, CpuEngine, GpuTd, TdEngine, TdGames};
use cubesearch::Backend;
use cubesearch::NTupleNetwork;
use cubesearch_games::fib::GpuTiles;
use cubesearch_games::fib::{Fib, Pow2, Sliding, TileRule};
use cubesearch_games::{Game2048, Game2584};
use cubesearch_kernels::td::Stream;
use cubesearch_learn::runner::Sharing;
use cubesearch_learn::testing::AveragedRun;
use rstest::rstest;

/// A game as a trainer reports it: score, moves, progress.
type Played = (u64, u32, u32);

/// Trains `games` games from zero weights with one GPU unit (game order as the CPU's) and with
/// the CPU single-thread trainer, with temporal coherence if `coherent`; returns (CPU games,
/// GPU games, CPU net, GPU net), a game as its score, moves and progress.
fn one_unit_run<T: GpuTiles>(
    backend: Backend,
    stages: &[u32],
    coherent: bool,
    games: u32,
    alpha: f32,
    seed: u32,
) -> Option<(Vec<Played>, Vec<Played>, NTupleNetwork, NTupleNetwork)> {
    let exec = executor(backend)?;
    let game = Sliding::<T>::new();
    let run = |engine: &mut dyn TdEngine<Sliding<T>>| {
        let mut net = NTupleNetwork::staged::<Sliding<T>>(&seed_shapes(), stages).unwrap();
        if coherent {
            net.enable_coherence().expect("coherence fits");
        }
        let step = alpha / net.lookups() as f32;
        let mut played = Vec::new();
        engine
            .play(
                &game,
                &net,
                TdGames {
                    first: 0,
                    count: games as u64,
                    seed,
                    step,
                },
                &mut |e| {
                    played.push((e.score, e.moves, e.progress));
                    Ok(())
                },
            )
            .unwrap();
        engine.sync(&mut net).unwrap();
        (played, net)
    };
    let (cpu, cpu_net) = run(&mut CpuEngine {
        threads: 1,
        sharing: Sharing::Copies,
        order: TdOrder::Backward,
        stop: Default::default(),
    });
    let (gpu, gpu_net) = run(engine_on::<Sliding<T>>(&exec, Some(1)).as_mut());
    Some((cpu, gpu, cpu_net, gpu_net))
}

/// Every table of every stage alike, and each learned.
fn assert_same_weights(what: &str, cpu: &NTupleNetwork, gpu: &NTupleNetwork) {
    for t in 0..cpu.tables() {
        let (c, g) = (cpu.table(t), gpu.table(t));
        cubesearch::testing::assert_same_weights(&format!("{what}: table {t}"), &c, &g);
        let changed = c.iter().filter(|a| **a != 0.0).count();
        assert!(
            changed > 10,
            "{what}: only {changed} weights of table {t} learned"
        );
    }
}

fn one_unit_equals_cpu<T: GpuTiles>(backend: Backend, stages: &[u32], coherent: bool) {
    // Temporal coherence at Guei et al.'s alpha 1.0.
    let alpha = if coherent { 1.0 } else { 0.1 };
    let Some((cpu_scores, gpu_scores, cpu_net, gpu_net)) =
        one_unit_run::<T>(backend, stages, coherent, 6, alpha, 5)
    else {
        return;
    };
    let what = format!("{}, coherence {coherent}", T::NAME);
    assert_eq!(cpu_scores, gpu_scores, "{what}: game scores");
    assert_same_weights(&what, &cpu_net, &gpu_net);
}

#[rstest]
fn one_unit_trains_exactly_as_the_cpu_single_thread_trainer(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    one_unit_equals_cpu::<Fib>(backend, &[], false);
    one_unit_equals_cpu::<Pow2>(backend, &[], false);
    // Three stages (a new one once the two largest tiles sum to 64 and to 128), each reached by
    // these games.
    one_unit_equals_cpu::<Pow2>(backend, &[64, 128], false);
}

/// With temporal coherence too: one unit of the game makes its updates in the CPU's order,
/// each at its weight's rate.
#[rstest]
fn one_unit_learns_with_temporal_coherence_exactly_as_the_cpu(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    one_unit_equals_cpu::<Fib>(backend, &[], true);
    one_unit_equals_cpu::<Pow2>(backend, &[64], true);
}

/// Temporal coherence's sums make the round trip through the device and a weights file: one
/// unit resumed from a file that keeps them (6 games, saved, 6 more on a fresh engine) learns
/// bit for bit what 12 games in one run learn, its sums too.
#[rstest]
fn a_resumed_coherent_device_run_goes_on_from_its_files_sums(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(exec) = executor(backend) else {
        return;
    };
    let game = Game2048::new();
    let fresh = || {
        let mut net = NTupleNetwork::staged::<Game2048>(&seed_shapes(), &[64]).unwrap();
        net.enable_coherence().expect("coherence fits");
        net
    };
    let step = 1.0 / fresh().lookups() as f32;
    let play = |net: &mut NTupleNetwork, first: u64, games: u64| {
        let mut engine = engine_on::<Game2048>(&exec, Some(1));
        engine
            .play(
                &game,
                net,
                TdGames {
                    first,
                    count: games,
                    seed: 5,
                    step,
                },
                &mut |_| Ok(()),
            )
            .unwrap();
        engine.sync(net).unwrap();
    };
    let mut unbroken = fresh();
    play(&mut unbroken, 0, 12);
    let mut half = fresh();
    play(&mut half, 0, 6);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.safetensors");
    half.save(&path, 6, 0.0).unwrap();
    let (mut resumed, meta) = NTupleNetwork::load_with_coherence::<Game2048>(&path, None).unwrap();
    assert!(meta.coherence);
    play(&mut resumed, 6, 6);
    let bits = |values: Vec<f32>| values.iter().map(|w| w.to_bits()).collect::<Vec<_>>();
    for t in 0..unbroken.tables() {
        assert!(
            bits(resumed.table(t)) == bits(unbroken.table(t)),
            "table {t}"
        );
        let sums = |net: &NTupleNetwork| net.coherence_table(t).unwrap().map(bits);
        assert!(sums(&resumed) == sums(&unbroken), "table {t}'s sums");
        assert!(
            sums(&unbroken)[1].iter().any(|&a| a != 0),
            "table {t} learned"
        );
    }
}

/// One unit has 16 result slots: 20 games go round the ring and still come back in
/// order, each the CPU trainer's game.
#[rstest]
fn games_past_the_result_ring_come_back_in_order(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some((cpu_scores, gpu_scores, cpu_net, gpu_net)) =
        one_unit_run::<Pow2>(backend, &[], false, 20, 0.1, 9)
    else {
        return;
    };
    assert_eq!(gpu_scores.len(), 20);
    assert_eq!(cpu_scores, gpu_scores);
    assert_same_weights("2048, 20 games", &cpu_net, &gpu_net);
}

/// Every backend's engine learns through the one seam, [`TdEngine::learn_games`].
#[rstest]
fn every_backends_engine_learns_through_the_one_seam(
    #[values(Backend::Cpu, Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(exec) = executor(backend) else {
        return;
    };
    let game = Sliding::<Pow2>::new();
    let mut net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let mut engine = engine_on::<Sliding<Pow2>>(&exec, None);
    let scores = engine.learn_games(&game, &mut net, 40, 0.1, 3).unwrap();
    assert_eq!(scores.len(), 40);
    assert!(scores.iter().all(|&s| s > 0));
    assert!(net.table(0).iter().any(|&w| w != 0.0));
    // A network of the other game is refused, not trained.
    let mut wrong = NTupleNetwork::for_game::<Game2584>(&seed_shapes()).unwrap();
    assert!(engine.learn_games(&game, &mut wrong, 1, 0.1, 3).is_err());
}

/// Mean greedy score (CPU, 300 games, fixed seed) before and after `games` of GPU training.
fn gpu_learning<T: TileRule + GpuTiles>(backend: Backend, games: u64) -> Option<(f64, f64)> {
    let exec = executor(backend)?;
    let game = Sliding::<T>::new();
    let mut net = NTupleNetwork::for_game::<Sliding<T>>(&seed_shapes()).unwrap();
    let untrained = play(&game, &net, 300, 99, 0).unwrap().mean_score;
    let mut engine = engine_on::<Sliding<T>>(&exec, Some(32));
    let step = 0.1 / net.lookups() as f32;
    let mut n = 0;
    engine
        .play(
            &Sliding::<T>::new(),
            &net,
            TdGames {
                first: 0,
                count: games,
                seed: 7,
                step,
            },
            &mut |_| {
                n += 1;
                Ok(())
            },
        )
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

/// Two ranks on one device stand in for two GPUs (`--gpus 2`): meeting only when their streams
/// end, both hold `w₀ + ((w_a − w₀) + (w_b − w₀)) / n`, `n` the agents that changed the weight,
/// where `w_a` and `w_b` are what each agent learned alone from `w₀` on its half of the games
/// (one unit each, so each agent's run is deterministic).
#[test]
fn multi_gpu_agents_take_each_weights_mean_change() {
    use cubesearch::train::MultiGpuTd;
    use cubesearch::Executor;
    let Some(Executor::Wgpu(gpu)) = executor(Backend::Wgpu) else {
        panic!("the wgpu executor")
    };
    let budget = gpu.limits().loop_iterations;
    let clients = [gpu.client().clone(), gpu.client().clone()];
    let base = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let step = 0.1 / base.lookups() as f32;
    // One unit an agent, 8 games each.
    let mut multi =
        MultiGpuTd::<_, Sliding<Pow2>>::new(&clients, Some(1), budget).meeting_every(u64::MAX);
    let mut merged = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let mut scores = Vec::new();
    multi
        .play(
            &Game2048::new(),
            &merged,
            TdGames {
                first: 0,
                count: 16,
                seed: 9,
                step,
            },
            &mut |e| {
                scores.push(e.score);
                Ok(())
            },
        )
        .unwrap();
    multi.sync(&mut merged).unwrap();
    let alone = |first: u64| {
        let mut net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
        let mut engine = GpuTd::<_, Game2048>::on(&gpu, Some(1));
        let mut s = Vec::new();
        engine
            .play(
                &Game2048::new(),
                &net,
                TdGames {
                    first,
                    count: 8,
                    seed: 9,
                    step,
                },
                &mut |e| {
                    s.push(e.score);
                    Ok(())
                },
            )
            .unwrap();
        engine.sync(&mut net).unwrap();
        (net, s)
    };
    let (a, sa) = alone(0);
    let (b, sb) = alone(8);
    // Each agent's games come back in order, the agents' interleaved.
    let mut want = [sa, sb].concat();
    want.sort_unstable();
    scores.sort_unstable();
    assert_eq!(scores, want, "every game, as each agent played it");
    // The first meeting (rank 0's weights to all) and the last.
    assert_eq!(multi.meetings(), 2);
    let mut changed = 0;
    for t in 0..3 {
        let (m, a, b) = (merged.table(t), a.table(t), b.table(t));
        for i in 0..m.len() {
            let changed_by = (a[i] != 0.0) as u32 + (b[i] != 0.0) as u32;
            let want = 0.0 + ((a[i] - 0.0) + (b[i] - 0.0)) / changed_by.max(1) as f32;
            assert_eq!(
                m[i].to_bits(),
                want.to_bits(),
                "table {t} weight {i}: merged {}, agents {} and {}",
                m[i],
                a[i],
                b[i]
            );
            changed += (a[i] != 0.0 && b[i] != 0.0) as usize;
        }
    }
    assert!(
        changed > 10,
        "the agents' changes overlap in {changed} weights"
    );
}

/// Agents meeting after every launch (one unit each, a launch a few moves on lavapipe): they
/// meet while their games run, every game still comes back, and the weights both end with are
/// the mean of every change: meeting-free runs from those weights give equal games on each agent.
#[test]
fn multi_gpu_agents_meet_while_their_games_run() {
    use cubesearch::train::MultiGpuTd;
    use cubesearch::Executor;
    let Some(Executor::Wgpu(gpu)) = executor(Backend::Wgpu) else {
        panic!("the wgpu executor")
    };
    // A small loop budget: many launches a game, so many meetings.
    let clients = [gpu.client().clone(), gpu.client().clone()];
    let net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let step = 0.1 / net.lookups() as f32;
    let mut multi =
        MultiGpuTd::<_, Sliding<Pow2>>::new(&clients, Some(1), Some(2_000)).meeting_every(1);
    let mut games = 0;
    multi
        .play(
            &Game2048::new(),
            &net,
            TdGames {
                first: 0,
                count: 8,
                seed: 5,
                step,
            },
            &mut |_| {
                games += 1;
                Ok(())
            },
        )
        .unwrap();
    assert_eq!(games, 8);
    assert!(multi.meetings() > 3, "no meeting while the games ran");
    let mut learned = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    multi.sync(&mut learned).unwrap();
    assert!((0..3).any(|t| learned.table(t).iter().any(|&w| w != 0.0)));
    // Both agents now hold those weights: with no learning (step 0), games 100..103 score on
    // either agent as on one engine started from them.
    let mut alone = GpuTd::<_, Game2048>::on(&gpu, Some(1));
    let reference: Vec<u64> = (100..103)
        .map(|g| {
            let mut score = 0;
            alone
                .play(
                    &Game2048::new(),
                    &learned,
                    TdGames {
                        first: g,
                        count: 1,
                        seed: 5,
                        step: 0.0,
                    },
                    &mut |e| {
                        score = e.score;
                        Ok(())
                    },
                )
                .unwrap();
            score
        })
        .collect();
    for first in [100u64, 101] {
        // One game an agent: agent 0 plays `first`, agent 1 `first + 1`.
        let mut got = Vec::new();
        multi
            .play(
                &Game2048::new(),
                &learned,
                TdGames {
                    first,
                    count: 2,
                    seed: 5,
                    step: 0.0,
                },
                &mut |e| {
                    got.push(e.score);
                    Ok(())
                },
            )
            .unwrap();
        got.sort_unstable();
        let i = (first - 100) as usize;
        let mut want = reference[i..i + 2].to_vec();
        want.sort_unstable();
        assert_eq!(
            got,
            want,
            "games {first} and {} on the two agents",
            first + 1
        );
    }
}

/// The seed's parallel update kernel (one unit per time step) on cases whose units cannot race:
/// game A's afterstate s0 (tiles 1 and 2 only, trained weights) is followed by s1 (tiles 5 and
/// 6 only, untrained, so its own update is zero); game B is one step on tiles 3 and 4. The
/// device must give what the CPU's per-step update gives.
#[test]
fn the_per_step_update_kernel_equals_the_cpu_update() {
    use cubesearch::Executor;
    use cubesearch_games::fib::Board;
    use cubesearch_kernels::td::{DeviceTd, LaneExchange, TdShape};
    use cubesearch_train::td_net;
    let Some(Executor::Wgpu(gpu)) = executor(Backend::Wgpu) else {
        panic!("the wgpu executor")
    };
    let board = |seed: u32, tiles: [u8; 2]| {
        let mut rng = cubesearch::rng::XorShift32::for_worker(seed, 0);
        let cells: [u8; 16] = std::array::from_fn(|_| tiles[rng.below(2) as usize]);
        Board::<u128>::from_cells(&cells, 5)
    };
    let (s0, s1, b0) = (board(1, [1, 2]), board(2, [5, 6]), board(3, [3, 4]));
    let (r1, rb) = (34u32, 0u32);
    let net = NTupleNetwork::for_game::<Game2584>(&seed_shapes()).unwrap();
    net.update(&Game2584::new(), s0, 0.75);
    net.update(&Game2584::new(), b0, -0.5);
    let step = 0.1 / net.lookups() as f32;
    let mut words = Vec::new();
    for (b, r) in [(s0, 0), (s1, r1), (b0, rb)] {
        let mut w = [0u32; 3];
        Fib::encode(b, &mut w);
        words.extend_from_slice(&w);
        words.push(r);
    }
    // Games of one round each would not reach s1 from s0: lay out game A as two rounds and
    // game B padded with a second, untrained step of its own.
    let pad = board(4, [7, 8]);
    let mut w = [0u32; 3];
    Fib::encode(pad, &mut w);
    words.extend_from_slice(&w);
    words.push(0);
    let shape = TdShape {
        units: 1,
        max_moves: 1,
        cap: 1,
        averaged: false,
        lanes: LaneExchange::Cube,
        steps_per_launch: 1,
        coherence: false,
        forward: false,
    };
    let mut device = DeviceTd::<_, Sliding<Fib>>::new(gpu.client(), &td_net(&net), shape).unwrap();
    device.learn_steps(&words, 2, step).unwrap();
    let got = device.read_tables().unwrap();
    // The CPU: each step's δ from the weights before the launch.
    let d0 = step * (r1 as f32 + net.value(&Game2584::new(), s1) - net.value(&Game2584::new(), s0));
    let db = step * (0.0 + net.value(&Game2584::new(), pad) - net.value(&Game2584::new(), b0));
    assert!(d0 != 0.0 && db != 0.0);
    net.update(&Game2584::new(), s0, d0);
    net.update(&Game2584::new(), b0, db);
    for (t, table) in got.iter().enumerate() {
        let want = net.table(t);
        for (i, (g, w)) in table.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-6 * w.abs().max(1.0),
                "table {t} weight {i}: GPU {g}, CPU {w}"
            );
        }
    }
}

/// A CPU re-implementation of the device's capped paths: when `cap` entries are stored and a
/// move is about to add another, the stored part is learned backward from that move's
/// `reward + V(afterstate)`, then the path starts again.
fn cpu_capped_training(
    net: &NTupleNetwork,
    games: u32,
    seed: u32,
    step: f32,
    cap: usize,
) -> Vec<u64> {
    use cubesearch::rng::XorShift32;
    use cubesearch::StochasticGame;
    use cubesearch_learn::td::greedy;
    let game = Sliding::<Fib>::new();
    let learn = |path: &[(cubesearch_games::fib::BoardOf<Fib>, u32)], mut target: f32| {
        for &(after, reward) in path.iter().rev() {
            let v = net.value(&Game2584::new(), after);
            net.update(&Game2584::new(), after, step * (target - v));
            target = reward as f32 + net.value(&Game2584::new(), after);
        }
    };
    (0..games)
        .map(|g| {
            let mut rng = XorShift32::for_worker(seed, g);
            let mut s = game.initial(&mut rng);
            let mut path = Vec::new();
            let mut score = 0u64;
            while let Some((_, after, reward)) = greedy(&game, net, s) {
                if path.len() == cap {
                    learn(&path, reward as f32 + net.value(&Game2584::new(), after));
                    path.clear();
                }
                score += reward as u64;
                path.push((after, reward));
                s = game.sample_chance(&after, &mut rng);
            }
            learn(&path, 0.0);
            score
        })
        .collect()
}

/// Games longer than a unit's path and than one launch: with `cap` 16 and 5 moves a launch,
/// every game is learned in segments over dozens of launches, and must still equal the CPU
/// re-implementation update for update.
#[test]
fn capped_paths_over_many_launches_equal_the_cpu_re_implementation() {
    use cubesearch::Executor;
    use cubesearch_kernels::td::{DeviceTd, LaneExchange, TdShape};
    use cubesearch_train::td_net;
    let Some(Executor::Wgpu(gpu)) = executor(Backend::Wgpu) else {
        panic!("the wgpu executor")
    };
    let cpu_net = NTupleNetwork::for_game::<Game2584>(&seed_shapes()).unwrap();
    let step = 0.1 / cpu_net.lookups() as f32;
    let cpu_scores = cpu_capped_training(&cpu_net, 4, 21, step, 16);
    let gpu_net = NTupleNetwork::for_game::<Game2584>(&seed_shapes()).unwrap();
    let shape = TdShape {
        units: 1,
        max_moves: 5,
        cap: 16,
        averaged: false,
        lanes: LaneExchange::Cube,
        steps_per_launch: 1,
        coherence: false,
        forward: false,
    };
    let mut device =
        DeviceTd::<_, Sliding<Fib>>::new(gpu.client(), &td_net(&gpu_net), shape).unwrap();
    let games = device
        .play_batch(Stream {
            first: 0,
            games: 4,
            seed: 21,
            step,
        })
        .unwrap();
    let gpu_scores: Vec<u64> = games.iter().map(|g| g.score as u64).collect();
    assert_eq!(cpu_scores, gpu_scores);
    assert!(games.iter().all(|g| g.moves > 3 * 16), "{games:?}");
    let mut gpu_net = gpu_net;
    for (t, table) in device.read_tables().unwrap().into_iter().enumerate() {
        gpu_net.set_table(t, table.into_iter());
    }
    assert_same_weights("2584, capped paths", &cpu_net, &gpu_net);
}

/// Runs `check`, a function generic over the runtime, on `backend`'s GPU executor (nothing
/// where CUDA is not built into the test binary).
macro_rules! on_gpu {
    ($backend:expr, $check:ident) => {
        match executor($backend) {
            None => {}
            Some(cubesearch::Executor::Wgpu(gpu)) => $check(&gpu),
            #[cfg(feature = "cuda")]
            Some(cubesearch::Executor::Cuda(gpu)) => $check(&gpu),
            Some(_) => panic!("a GPU executor"),
        }
    };
}

/// A network past the device's largest buffer is refused with an error before training, not
/// trained on weights that never arrived (the runtime's thread would panic). Three 6-tuples of
/// 2048 are 192 MiB; lavapipe's largest buffer is 128 MiB.
#[rstest]
fn a_network_too_large_for_the_device_is_refused(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(exec) = executor(backend) else {
        return;
    };
    let shapes: Vec<Vec<u8>> = vec![
        vec![0, 1, 2, 3, 4, 5],
        vec![4, 5, 6, 7, 8, 9],
        vec![0, 1, 2, 4, 5, 6],
    ];
    let net = NTupleNetwork::for_game::<Game2048>(&shapes).unwrap();
    let mut engine = engine_on::<Game2048>(&exec, Some(1));
    let mut games = 0;
    let step = 0.1 / net.lookups() as f32;
    match engine.play(
        &Game2048::new(),
        &net,
        TdGames {
            first: 0,
            count: 1,
            seed: 7,
            step,
        },
        &mut |_| {
            games += 1;
            Ok(())
        },
    ) {
        Err(e) => assert!(e.to_string().contains("largest buffer"), "{e}"),
        // A device with buffers this large trains it: then the game must come back.
        Ok(()) => assert_eq!(games, 1),
    }
}

/// Game `number` of 2584 learned with averaged updates in one launch, on the CPU
/// (`cubesearch_learn::testing::averaged_game`): its score.
fn cpu_averaged_game(
    net: &mut NTupleNetwork,
    number: u32,
    seed: u32,
    step: f32,
    steps: u32,
    coherence: Option<&mut cubesearch_learn::testing::CoherenceSums>,
) -> u64 {
    let game = Sliding::<Fib>::new();
    cubesearch_learn::testing::averaged_game(
        &game,
        net,
        number,
        AveragedRun { seed, step, steps },
        coherence,
    )
    .0
}

/// An averaged launch shape of `units` games whose 400 moves hold a zero-weight 2584 game
/// whole (so each game is played on the starting weights) and stay inside lavapipe's loop
/// budget, f32 weights, backward paths.
fn whole_game_shape(
    units: u32,
    lanes: cubesearch_kernels::td::LaneExchange,
    steps_per_launch: u32,
) -> cubesearch_kernels::td::TdShape {
    cubesearch_kernels::td::TdShape {
        units,
        max_moves: 400,
        cap: 1024,
        averaged: true,
        lanes,
        steps_per_launch,
        coherence: false,
        forward: false,
    }
}

/// The averaged update equals its CPU re-implementation bit for bit: one game in one launch (a
/// window long enough for the whole game), so the game is played on the starting weights and
/// every learned entry lands in one mean per weight. (With many units the order in which the
/// units' atomic adds land varies from run to run, and a Vulkan driver may divide within the
/// 2.5 ULP WGSL allows; the learning test below covers many windows.)
#[rstest]
fn averaged_updates_equal_the_cpu_re_implementation(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    on_gpu!(backend, averaged_matches);
}

fn averaged_matches<R: cubecl::Runtime>(gpu: &cubesearch::GpuExecutor<R>) {
    use cubesearch_kernels::td::DeviceTd;
    use cubesearch_train::td_net;
    // With planes, the seed's 24 lookups and 48 are read by four groups of eight lanes (3 and 6
    // rounds), 32 (as 4x6patt) by whole planes one V after another (`LutNet::grouped`);
    // and the seed's in two stages (a second once the two largest tiles sum to 34: the lanes pass the stage on too).
    let wider: Vec<Vec<u8>> = [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [0, 4, 8, 12],
        [1, 5, 9, 13],
        [0, 1, 4, 5],
        [5, 6, 9, 10],
    ]
    .iter()
    .map(|s| s.to_vec())
    .collect();
    let whole_planes: Vec<Vec<u8>> = wider[..4].to_vec();
    let one: &[u32] = &[];
    for (shapes, stages) in [
        (seed_shapes(), one),
        (wider, one),
        (whole_planes, one),
        (seed_shapes(), &[34]),
    ] {
        for (lanes, steps_per_launch) in lane_exchanges(gpu.client())
            .into_iter()
            .flat_map(|l| [(l, 1), (l, 4)])
        {
            for seed in [33, 34] {
                let staged = || NTupleNetwork::staged::<Game2584>(&shapes, stages).unwrap();
                let mut cpu_net = staged();
                let step = 0.1 / cpu_net.lookups() as f32;
                let cpu_scores = vec![cpu_averaged_game(
                    &mut cpu_net,
                    0,
                    seed,
                    step,
                    steps_per_launch,
                    None,
                )];
                let gpu_net = staged();
                let shape = whole_game_shape(1, lanes, steps_per_launch);
                let mut device =
                    DeviceTd::<_, Sliding<Fib>>::new(gpu.client(), &td_net(&gpu_net), shape)
                        .unwrap();
                let games = device
                    .play_batch(Stream {
                        first: 0,
                        games: 1,
                        seed,
                        step,
                    })
                    .unwrap();
                assert!(games[0].moves < 400, "{games:?}");
                assert_eq!(cpu_scores, vec![games[0].score as u64], "{lanes:?}");
                let mut gpu_net = gpu_net;
                for (t, table) in device.read_tables().unwrap().into_iter().enumerate() {
                    gpu_net.set_table(t, table.into_iter());
                }
                let what = format!(
                    "2584, {} lookups, stages {stages:?}, averaged, {lanes:?}, {steps_per_launch} steps a launch",
                    cpu_net.lookups()
                );
                assert_same_weights(&what, &cpu_net, &gpu_net);
            }
        }
    }
}

/// Two games in one averaged launch add into two copies of the sums (one a unit, so that the
/// adds every game makes to the same few weights do not all meet at one address), and the
/// apply kernel adds the copies: the weights equal the CPU's two games played on the starting
/// weights, their sums added, bit for bit. A stream's first games go one a unit in unit order
/// (unit `u` game `u`), so each game adds into its own copy however the units are scheduled.
#[rstest]
fn two_games_add_into_copies_of_the_sums_as_the_cpu_adds_them(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    on_gpu!(backend, copies_match);
}

fn copies_match<R: cubecl::Runtime>(gpu: &cubesearch::GpuExecutor<R>) {
    use cubesearch_kernels::td::DeviceTd;
    use cubesearch_train::td_net;
    for lanes in lane_exchanges(gpu.client()) {
        for seed in [33, 34] {
            let fresh = || NTupleNetwork::for_game::<Game2584>(&seed_shapes()).unwrap();
            let step = 0.1 / fresh().lookups() as f32;
            let cpu = |copies: &[&[u32]]| {
                let mut net = fresh();
                let scores = cubesearch_learn::testing::averaged_games(
                    &Sliding::<Fib>::new(),
                    &mut net,
                    copies,
                    AveragedRun {
                        seed,
                        step,
                        steps: 1,
                    },
                    None,
                );
                let mut scores: Vec<u64> = scores.into_iter().map(|(score, _)| score).collect();
                scores.sort_unstable();
                (scores, net)
            };
            let (cpu_scores, cpu_net) = cpu(&[&[0], &[1]]);
            let gpu_net = NTupleNetwork::for_game::<Game2584>(&seed_shapes()).unwrap();
            let shape = whole_game_shape(2, lanes, 1);
            let mut device =
                DeviceTd::<_, Sliding<Fib>>::new(gpu.client(), &td_net(&gpu_net), shape).unwrap();
            assert!(device.sum_copies() >= 2, "{} copies", device.sum_copies());
            let games = device
                .play_batch(Stream {
                    first: 0,
                    games: 2,
                    seed,
                    step,
                })
                .unwrap();
            assert!(games.iter().all(|g| g.moves < 400), "{games:?}");
            let mut gpu_scores: Vec<u64> = games.iter().map(|g| g.score as u64).collect();
            gpu_scores.sort_unstable();
            assert_eq!(cpu_scores, gpu_scores, "{lanes:?}");
            let mut gpu_net = gpu_net;
            for (t, table) in device.read_tables().unwrap().into_iter().enumerate() {
                gpu_net.set_table(t, table.into_iter());
            }
            let what = format!("2584, two games in two copies of the sums, {lanes:?}");
            assert_same_weights(&what, &cpu_net, &gpu_net);
        }
    }
}

/// Forward TD with averaged updates (`TdShape::forward`) equals its CPU re-implementation bit
/// for bit: a game in one launch, and in launches of 7 move choices, where each afterstate
/// learns in the launch that chooses the next move, against the value it was chosen with in an
/// earlier launch, from weights the launches between have moved.
#[rstest]
fn forward_averaged_updates_equal_the_cpu_re_implementation(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    on_gpu!(backend, forward_matches);
}

fn forward_matches<R: cubecl::Runtime>(gpu: &cubesearch::GpuExecutor<R>) {
    use cubesearch_kernels::td::{DeviceTd, TdShape};
    use cubesearch_train::td_net;
    let one: &[u32] = &[];
    for stages in [one, &[34]] {
        for lanes in lane_exchanges(gpu.client()) {
            for (per_launch, seed) in [(400, 33), (7, 34)] {
                let staged = || NTupleNetwork::staged::<Game2584>(&seed_shapes(), stages).unwrap();
                let mut cpu_net = staged();
                let step = 0.1 / cpu_net.lookups() as f32;
                let (score, _) = cubesearch_learn::testing::averaged_forward_game(
                    &Sliding::<Fib>::new(),
                    &mut cpu_net,
                    0,
                    AveragedRun {
                        seed,
                        step,
                        steps: 4,
                    },
                    per_launch,
                );
                let shape = TdShape {
                    units: 1,
                    max_moves: per_launch,
                    cap: 1,
                    averaged: true,
                    lanes,
                    steps_per_launch: 4,
                    coherence: false,
                    forward: true,
                };
                let mut gpu_net = staged();
                let mut device =
                    DeviceTd::<_, Sliding<Fib>>::new(gpu.client(), &td_net(&gpu_net), shape)
                        .unwrap();
                let games = device
                    .play_batch(Stream {
                        first: 0,
                        games: 1,
                        seed,
                        step,
                    })
                    .unwrap();
                assert!(games[0].moves > 2 * per_launch.min(40), "{games:?}");
                assert_eq!(
                    score, games[0].score as u64,
                    "{lanes:?}, {per_launch} a launch"
                );
                for (t, table) in device.read_tables().unwrap().into_iter().enumerate() {
                    gpu_net.set_table(t, table.into_iter());
                }
                let what = format!(
                    "2584 forward, stages {stages:?}, {lanes:?}, {per_launch} moves a launch"
                );
                assert_same_weights(&what, &cpu_net, &gpu_net);
            }
        }
    }
}

/// Averaged updates with temporal coherence equal their CPU re-implementation bit for bit: three
/// games one after another, a launch each, so the second and third apply their changes at the
/// rates the earlier ones left.
#[rstest]
fn averaged_coherent_updates_equal_the_cpu_re_implementation(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    on_gpu!(backend, averaged_coherent_matches);
}

fn averaged_coherent_matches<R: cubecl::Runtime>(gpu: &cubesearch::GpuExecutor<R>) {
    use cubesearch_kernels::td::{DeviceTd, TdShape};
    use cubesearch_train::td_net;
    let shapes = seed_shapes();
    for lanes in lane_exchanges(gpu.client()) {
        let mut cpu_net = NTupleNetwork::for_game::<Game2584>(&shapes).unwrap();
        let mut sums: Vec<(Vec<f32>, Vec<f32>)> = (0..cpu_net.tables())
            .map(|t| {
                let len = cpu_net.table(t).len();
                (vec![0.0; len], vec![0.0; len])
            })
            .collect();
        // Guei et al.'s alpha 1.0 with coherence.
        let step = 1.0 / cpu_net.lookups() as f32;
        let shape = TdShape {
            coherence: true,
            ..whole_game_shape(1, lanes, 4)
        };
        let gpu_net = NTupleNetwork::for_game::<Game2584>(&shapes).unwrap();
        let mut device =
            DeviceTd::<_, Sliding<Fib>>::new(gpu.client(), &td_net(&gpu_net), shape).unwrap();
        for number in 0..3 {
            let want = cpu_averaged_game(&mut cpu_net, number, 41, step, 4, Some(&mut sums));
            let games = device
                .play_batch(Stream {
                    first: number,
                    games: 1,
                    seed: 41,
                    step,
                })
                .unwrap();
            assert!(games[0].moves < 400, "{games:?}");
            assert_eq!(want, games[0].score as u64, "{lanes:?}, game {number}");
        }
        // Some weights learned at a rate below 1: the sums' sizes outgrew their sums.
        assert!(sums
            .iter()
            .any(|(e, a)| e.iter().zip(a).any(|(e, a)| e.abs() < *a)));
        let mut gpu_net = gpu_net;
        for (t, table) in device.read_tables().unwrap().into_iter().enumerate() {
            gpu_net.set_table(t, table.into_iter());
        }
        assert_same_weights(
            &format!("2584, averaged, coherence, {lanes:?}"),
            &cpu_net,
            &gpu_net,
        );
    }
}

/// A game's lanes pool through planes only in averaged launches (an immediate update's lanes
/// must see each other's adds, which takes a cube barrier) and only on planes of their number:
/// both refused up front, on every device (lavapipe has no plane ops at all).
#[rstest]
fn plane_lanes_need_averaged_updates_on_fitting_planes(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    on_gpu!(backend, plane_lanes_refused);
}

fn plane_lanes_refused<R: cubecl::Runtime>(gpu: &cubesearch::GpuExecutor<R>) {
    use cubesearch::Error;
    use cubesearch_kernels::td::{DeviceTd, LaneExchange, TdShape};
    use cubesearch_train::td_net;
    let net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let fits = cubesearch_kernels::launch::planes_fit(gpu.client());
    for averaged in [false, true] {
        let shape = TdShape {
            units: 16,
            max_moves: 32,
            cap: 512,
            averaged,
            lanes: LaneExchange::Plane,
            steps_per_launch: 1,
            coherence: false,
            forward: false,
        };
        let made = DeviceTd::<_, Sliding<Pow2>>::new(gpu.client(), &td_net(&net), shape);
        if averaged && fits {
            assert!(made.is_ok(), "{:?}", made.err());
        } else {
            assert!(
                matches!(&made, Err(Error::Unsupported(why)) if why.contains("planes")),
                "averaged {averaged}: {:?}",
                made.err()
            );
        }
    }
}

/// Many units averaging their updates learn: greedy play after training beats untrained play.
#[rstest]
fn averaged_training_with_many_units_learns(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    use cubesearch_kernels::td::AVERAGED_FROM_UNITS;
    let Some(exec) = executor(backend) else {
        return;
    };
    let game = Sliding::<Pow2>::new();
    let mut net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let untrained = play(&game, &net, 300, 99, 0).unwrap().mean_score;
    let mut engine = engine_on::<Game2048>(&exec, Some(AVERAGED_FROM_UNITS));
    let step = 0.1 / net.lookups() as f32;
    engine
        .play(
            &Game2048::new(),
            &net,
            TdGames {
                first: 0,
                count: 4096,
                seed: 7,
                step,
            },
            &mut |_| Ok(()),
        )
        .unwrap();
    engine.sync(&mut net).unwrap();
    let trained = play(&game, &net, 300, 99, 0).unwrap().mean_score;
    eprintln!("2048, {AVERAGED_FROM_UNITS} units averaged: greedy untrained {untrained:.0}, trained {trained:.0}");
    assert!(
        trained > 1.2 * untrained,
        "untrained {untrained}, trained {trained}"
    );
}

/// A time budget or a raised stop request ends a GPU run between launches: a batch whose
/// deadline has passed returns after one launch with only the games that finished, an engine
/// told to stop starts no batch, and both carry on normally once the request is lifted.
#[test]
fn a_deadline_or_a_raised_stop_ends_gpu_training_between_launches() {
    use cubesearch::Executor;
    use cubesearch_kernels::td::{DeviceTd, LaneExchange, TdShape};
    use cubesearch_train::td_net;
    let Some(Executor::Wgpu(gpu)) = executor(Backend::Wgpu) else {
        panic!("the wgpu executor")
    };
    let mut net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let step = 0.1 / net.lookups() as f32;
    let shape = TdShape {
        units: 16,
        max_moves: 32,
        cap: 512,
        averaged: false,
        lanes: LaneExchange::Cube,
        steps_per_launch: 1,
        coherence: false,
        forward: false,
    };
    let mut device = DeviceTd::<_, Sliding<Pow2>>::new(gpu.client(), &td_net(&net), shape).unwrap();
    let now = cubesearch::Stop::new().with_deadline(std::time::Instant::now());
    let cut = device
        .play_batch_until(
            Stream {
                first: 0,
                games: 64,
                seed: 3,
                step,
            },
            &now,
        )
        .unwrap();
    assert!(cut.len() < 64 && cut.iter().all(|g| g.moves > 0), "{cut:?}");
    let whole = device
        .play_batch(Stream {
            first: 64,
            games: 64,
            seed: 3,
            step,
        })
        .unwrap();
    assert_eq!(whole.len(), 64);

    let mut engine = GpuTd::<_, Game2048>::on(&gpu, Some(64));
    // A deadline passed, and a request raised (a signal), each stop it before any game.
    let raised = cubesearch::Stop::new();
    raised.request(15);
    let mut finished = 0u64;
    for stop in [now, raised] {
        engine.set_stop(&stop);
        engine
            .play(
                &Game2048::new(),
                &net,
                TdGames {
                    first: 0,
                    count: 100_000,
                    seed: 3,
                    step,
                },
                &mut |_| {
                    finished += 1;
                    Ok(())
                },
            )
            .unwrap();
    }
    assert_eq!(finished, 0);
    engine.set_stop(&cubesearch::Stop::new());
    engine
        .play(
            &Game2048::new(),
            &net,
            TdGames {
                first: 0,
                count: 64,
                seed: 3,
                step,
            },
            &mut |_| {
                finished += 1;
                Ok(())
            },
        )
        .unwrap();
    assert_eq!(finished, 64);
    engine.sync(&mut net).unwrap();
    // Units idle at a batch's end: some launched steps play nothing, and none plays twice.
    let share = engine.occupancy().unwrap();
    assert!(share > 0.0 && share <= 1.0, "{share}");
}

/// Pairs to divide: every kind of finite dividend and nonzero divisor the updates meet (sums
/// over small counts, coherence's `|E| / A`) and the corners of the format: random bit
/// patterns, exact and halfway quotients, subnormals in and out, overflow; and, past the
/// contract, infinities and a NaN.
fn division_cases() -> Vec<(f32, f32)> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as u32
    };
    let finite = |bits: u32| {
        let f = f32::from_bits(bits);
        f.is_finite().then_some(f)
    };
    let mut pairs = Vec::new();
    while pairs.len() < 40_000 {
        let (a, b) = (next(), next());
        if let (Some(a), Some(b)) = (finite(a), finite(b)) {
            if b != 0.0 {
                pairs.push((a, b));
            }
        }
    }
    for _ in 0..40_000 {
        // A sum of changes over a count of them, and coherence's rate.
        let a = f32::from_bits(next() % 0x4000_0000) - f32::from_bits(next() % 0x4000_0000);
        pairs.push((a, (next() % 5000 + 1) as f32));
        let size = f32::from_bits(next() % 0x4400_0000);
        if size > 0.0 {
            pairs.push((size * (next() % 1000) as f32 / 1000.0, size));
        }
    }
    let tiny = f32::from_bits(1);
    for (a, b) in [
        (0.0, 3.0),
        (-0.0, 3.0),
        (0.0, -3.0),
        (1.0, 3.0),
        (2.0, 3.0),
        (-7.0, 2.0),
        (6.0, 3.0),
        (1.0, 1.0),
        (f32::MAX, 0.5),
        (f32::MAX, f32::MIN_POSITIVE),
        (f32::MIN_POSITIVE, 3.0),
        (f32::MIN_POSITIVE, 2.0),
        (f32::MIN_POSITIVE, 1e30),
        (tiny, 2.0),
        (tiny * 3.0, 2.0),
        (tiny * 5.0, 2.0),
        (tiny, 3.0),
        (tiny, tiny),
        (1.0, tiny),
        (tiny * 12345.0, 7.0),
        (1.5 * f32::MIN_POSITIVE, 1.5),
        (1e-38, 1e10),
        (1.0 + f32::EPSILON, 1.0 - f32::EPSILON / 2.0),
        (f32::from_bits(0x3fff_ffff), f32::from_bits(0x3f80_0001)),
        // Past the contract, the device's own division: a diverging run still shows.
        (f32::INFINITY, 3.0),
        (f32::NEG_INFINITY, 3.0),
        (3.0, f32::INFINITY),
        (f32::NAN, 2.0),
    ] {
        pairs.push((a, b));
    }
    pairs
}

/// The device's division (`kernels::exact::div_rn`, which the averaged and coherent updates and
/// the ranks' meetings divide with) gives the CPU's bits: Vulkan and WGSL only promise 2.5 ulp
/// for `/`, and NVIDIA's Vulkan driver rounded 1 ulp off (the averaged updates' first weight
/// differed from the CPU's by 1 ulp).
#[rstest]
fn device_division_rounds_as_the_cpu(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    use cubesearch::Executor;
    use cubesearch_kernels::exact::launch_div_rn;
    let Some(exec) = executor(backend) else {
        return;
    };
    let pairs = division_cases();
    let subnormal = |f: f32| f != 0.0 && !f.is_normal() && f.is_finite();
    let quotients: Vec<f32> = pairs.iter().map(|&(a, b)| a / b).collect();
    assert!(
        quotients.iter().filter(|q| subnormal(**q)).count() > 5
            && quotients.iter().filter(|q| q.is_infinite()).count() > 100
            && pairs
                .iter()
                .filter(|p| subnormal(p.0) || subnormal(p.1))
                .count()
                > 5,
        "the cases reach subnormals and overflow"
    );
    let device = match &exec {
        Executor::Cpu(_) => unreachable!("a GPU executor"),
        #[cfg(feature = "wgpu")]
        Executor::Wgpu(gpu) => launch_div_rn(gpu.client(), &pairs),
        #[cfg(feature = "cuda")]
        Executor::Cuda(gpu) => launch_div_rn(gpu.client(), &pairs),
    }
    .unwrap();
    for ((&(a, b), cpu), gpu) in pairs.iter().zip(&quotients).zip(&device) {
        if cpu.is_nan() {
            assert!(gpu.is_nan(), "{a:e} / {b:e}: device {gpu:e}, CPU NaN");
            continue;
        }
        assert_eq!(
            gpu.to_bits(),
            cpu.to_bits(),
            "{a:e} / {b:e}: device {gpu:e}, CPU {cpu:e}"
        );
    }
}
