//! The device expectimax (naive and multilevel, both folds) against the CPU search on the same
//! boards and weights: the same best action, legal actions and values, bit for bit. wgpu always
//! (lavapipe on a machine without a GPU); CUDA too in a build with the `cuda` feature.

use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Backend, ExpectimaxEval, RootValue, StochasticGame};
use cubesearch_games::fib::seed_shapes;
use cubesearch_games::fib::GpuTiles;
use cubesearch_games::fib::{BoardOf, Sliding};
use cubesearch_games::{Fib, Game2048, Game2584, Pow2};
use cubesearch_kernels::expectimax::launch::words_per_root;
use cubesearch_kernels::expectimax::TreeShape;
use cubesearch_learn::NTupleNetwork;
use cubesearch_search::boards;
use cubesearch_search::expectimax::{search, ExpectimaxOptions};
use cubesearch_search::expectimax_gpu::{
    Expectimax, ExpectimaxFold, ExpectimaxMethod, GpuExpectimax,
};
use cubesearch_search::testing::assert_same_root_values;
use cubesearch_search::{Executor, GpuExecutor};
use cubesearch_train::{CpuEngine, TdEngine};

fn trained<R: GpuTiles>(games: u32) -> NTupleNetwork {
    trained_shapes::<R>(&seed_shapes(), games)
}

fn trained_shapes<R: GpuTiles>(shapes: &[Vec<u8>], games: u32) -> NTupleNetwork {
    trained_staged::<R>(shapes, &[], games)
}

/// A network of `shapes` with a stage after each of `stages`, trained `games` games.
fn trained_staged<R: GpuTiles>(shapes: &[Vec<u8>], stages: &[u32], games: u32) -> NTupleNetwork {
    let mut net = NTupleNetwork::staged::<Sliding<R>>(shapes, stages).unwrap();
    CpuEngine::new(1)
        .learn_games(&Sliding::<R>::new(), &mut net, games, 0.1, 11)
        .unwrap();
    net
}

/// The committed benchmark boards, positions of random games (many nearly full), and a board
/// with no legal move.
fn boards<R: GpuTiles>(text: &str, random: usize, dead: &str) -> Vec<BoardOf<R>> {
    let game = Sliding::<R>::new();
    let mut out: Vec<BoardOf<R>> = boards::parse(&game, text)
        .unwrap()
        .into_iter()
        .map(|b| b.1)
        .collect();
    let mut rng = XorShift32::for_worker(77, 0);
    let mut s = game.initial(&mut rng);
    let mut legal = Vec::new();
    while out.len() < 24 + random {
        legal.clear();
        game.legal_actions(&s, &mut legal);
        if legal.is_empty() {
            s = game.initial(&mut rng);
            continue;
        }
        if rng.below(8) == 0 {
            out.push(s);
        }
        let (_, after, _) = legal[rng.below(legal.len() as u32) as usize];
        s = game.sample_chance(&after, &mut rng);
    }
    out.push(game.parse_position(dead).unwrap());
    out
}

/// The device search of a GPU searcher.
fn device(searcher: &mut Expectimax) -> &mut GpuExpectimax {
    searcher.device().expect("a GPU searcher")
}

/// A GPU searcher on `backend` (naive generation); `None` when that is CUDA and CUDA is not
/// built in (built in, it must start).
fn gpu_searcher(backend: Backend) -> Option<Expectimax> {
    match Executor::new(backend) {
        Ok((exec, _)) => {
            let mut searcher = Expectimax::new(exec);
            device(&mut searcher).set_method(ExpectimaxMethod::Naive);
            Some(searcher)
        }
        Err(e) if backend == Backend::Cuda && !cfg!(feature = "cuda") => {
            eprintln!("cuda: {e}");
            None
        }
        Err(e) => panic!("{backend:?}: {e}"),
    }
}

fn compare<R: GpuTiles>(backend: Backend, text: &str, dead: &str, max_layers: u32) {
    compare_staged::<R>(backend, text, dead, &[], max_layers);
}

/// [`compare`] with a network of three stages (a new one at 64 and at 128: the random games'
/// boards lie in all three, the file's late boards in the last).
fn compare_staged<R: GpuTiles>(
    backend: Backend,
    text: &str,
    dead: &str,
    stages: &[u32],
    max_layers: u32,
) {
    let Some(mut exec) = gpu_searcher(backend) else {
        return;
    };
    assert!(!exec.executor().is_cpu());
    // Both folds where the device has 32-unit planes (CUDA must); elsewhere asking for plane
    // ops is refused.
    let planes = device(&mut exec).fold() == ExpectimaxFold::PlaneOps;
    if backend == Backend::Cuda {
        assert!(planes, "CUDA warps are 32-unit planes");
    }
    let folds: &[ExpectimaxFold] = if planes {
        &[ExpectimaxFold::SharedMemory, ExpectimaxFold::PlaneOps]
    } else {
        &[ExpectimaxFold::SharedMemory]
    };
    if !planes {
        device(&mut exec).set_fold(ExpectimaxFold::PlaneOps);
        let refused = exec.evaluate(&Sliding::<R>::new(), &trained::<R>(1), &[], 1);
        assert!(refused.is_err(), "plane ops without 32-unit planes");
        device(&mut exec).set_fold(ExpectimaxFold::SharedMemory);
    }
    let game = Sliding::<R>::new();
    let net = trained_staged::<R>(&seed_shapes(), stages, 300);
    let all = boards::<R>(text, 16, dead);
    let mut seen = vec![0; stages.len() + 1];
    for b in &all {
        seen[net.stage(&game, b)] += 1;
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "boards in each stage: {seen:?}"
    );
    for layers in 0..=max_layers {
        // Two layers: 65536 leaf paths a root; a few roots keep the software device quick:
        // the first starter, normal and late board of the file, and the last random boards
        // and the dead one.
        let deep: Vec<BoardOf<R>> = [all[0], all[8], all[16]]
            .into_iter()
            .chain(all[all.len() - 4..].iter().copied())
            .collect();
        let roots: &[BoardOf<R>] = if layers < 2 { &all } else { &deep };
        let cpu: Vec<RootValue> = roots
            .iter()
            .map(|r| search(&game, &net, r, layers, ExpectimaxOptions::default()))
            .collect();
        assert_eq!(cpu.last().unwrap().best, None, "the dead board");
        for method in ExpectimaxMethod::ALL {
            device(&mut exec).set_method(method);
            for &planes in folds {
                device(&mut exec).set_fold(planes);
                let gpu = exec.evaluate(&game, &net, roots, layers).unwrap();
                assert_same_root_values(
                    &format!(
                        "{} stages {stages:?} {layers} layers {}, plane ops {planes}",
                        R::NAME,
                        method.name()
                    ),
                    &cpu,
                    &gpu,
                );
            }
        }
    }
}

const DEAD_2584: &str = "1,3,1,3,3,1,3,1,1,3,1,3,3,1,3,1";
const DEAD_2048: &str = "2,4,2,4,4,2,4,2,2,4,2,4,4,2,4,2";

#[test]
fn wgpu_expectimax_equals_the_cpu_2584() {
    compare::<Fib>(
        Backend::Wgpu,
        include_str!("../benches/boards-2584.txt"),
        DEAD_2584,
        2,
    );
}

#[test]
fn wgpu_expectimax_equals_the_cpu_2048() {
    compare::<Pow2>(
        Backend::Wgpu,
        include_str!("../benches/boards-2048.txt"),
        DEAD_2048,
        2,
    );
}

#[test]
fn wgpu_expectimax_reads_each_stage_of_a_network_as_the_cpu() {
    compare_staged::<Pow2>(
        Backend::Wgpu,
        include_str!("../benches/boards-2048.txt"),
        DEAD_2048,
        &[64, 128],
        1,
    );
}

#[test]
fn cuda_expectimax_reads_each_stage_of_a_network_as_the_cpu() {
    compare_staged::<Pow2>(
        Backend::Cuda,
        include_str!("../benches/boards-2048.txt"),
        DEAD_2048,
        &[64, 128],
        3,
    );
}

#[test]
fn cuda_expectimax_equals_the_cpu_up_to_three_layers() {
    compare::<Fib>(
        Backend::Cuda,
        include_str!("../benches/boards-2584.txt"),
        DEAD_2584,
        3,
    );
    compare::<Pow2>(
        Backend::Cuda,
        include_str!("../benches/boards-2048.txt"),
        DEAD_2048,
        3,
    );
}

#[test]
fn a_network_for_the_other_game_is_refused() {
    let (exec, _) = Executor::new(Backend::Wgpu).unwrap();
    let mut exec = Expectimax::new(exec);
    let net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let game = Sliding::<Fib>::new();
    let root = game
        .parse_position("1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
        .unwrap();
    let err = exec
        .evaluate(&game, &net, &[root], 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("2048"), "{err}");
}

/// The committed 2584 boards, `random` random ones and the dead board, with their 1-layer
/// values on the CPU under `net`.
fn one_layer_2584(net: &NTupleNetwork, random: usize) -> (Vec<BoardOf<Fib>>, Vec<RootValue>) {
    let game = Sliding::<Fib>::new();
    let roots = boards::<Fib>(
        include_str!("../benches/boards-2584.txt"),
        random,
        DEAD_2584,
    );
    let cpu = roots
        .iter()
        .map(|r| search(&game, net, r, 1, ExpectimaxOptions::default()))
        .collect();
    (roots, cpu)
}

/// Batches cut into chunks (here of 3 roots) and large batches (17000 roots) give the CPU's
/// values too.
#[test]
fn wgpu_chunks_and_large_batches_equal_the_cpu() {
    let resolved = cubesearch_core::backend::resolve(Backend::Wgpu).unwrap();
    let cubesearch_core::ResolvedBackend::Wgpu { device, .. } = &resolved else {
        panic!("wgpu resolved to {resolved}");
    };
    let gpu =
        GpuExecutor::<cubecl::wgpu::WgpuRuntime>::new(device, "wgpu", resolved.kind()).unwrap();
    let mut search = GpuExpectimax::new(&gpu);
    let game = Sliding::<Fib>::new();
    let net = trained::<Fib>(100);
    let (roots, cpu) = one_layer_2584(&net, 8);
    for method in ExpectimaxMethod::ALL {
        search.set_method(method);
        let tree = TreeShape::of::<Sliding<Fib>>();
        search.set_chunk_entries(3 * words_per_root(method, tree, 1, <Fib as GpuTiles>::WORDS));
        let got = search.search(&gpu, &game, &net, &roots, 1).unwrap();
        assert_same_root_values(&format!("chunks of 3, {}", method.name()), &cpu, &got);
    }
    search.set_chunk_entries(usize::MAX);
    search.set_method(ExpectimaxMethod::Multilevel);
    let many: Vec<_> = roots.iter().cycle().take(17_000).copied().collect();
    let got = search.search(&gpu, &game, &net, &many, 1).unwrap();
    let want: Vec<RootValue> = cpu.iter().cycle().take(17_000).cloned().collect();
    assert_same_root_values("17000 roots", &want, &got);
}

/// Shapes of different lengths (each lookup's cells are compiled into the kernels as they are).
/// The trainers take one size only, so the weights are drawn at random (−1 to 1, in 1/64ths).
#[test]
fn wgpu_mixed_tuple_lengths_equal_the_cpu() {
    let mut exec = gpu_searcher(Backend::Wgpu).unwrap();
    let game = Sliding::<Fib>::new();
    let shapes = [vec![0, 1, 2, 3], vec![4, 5, 6], vec![8, 12]];
    let mut net = NTupleNetwork::for_game::<Sliding<Fib>>(&shapes).unwrap();
    let mut rng = XorShift32::for_worker(11, 0);
    for t in 0..net.tables() {
        let len = net.table(t).len();
        let values: Vec<f32> = (0..len)
            .map(|_| (rng.below(129) as f32 - 64.0) / 64.0)
            .collect();
        net.set_table(t, values.into_iter());
    }
    let (roots, cpu) = one_layer_2584(&net, 4);
    for method in ExpectimaxMethod::ALL {
        device(&mut exec).set_method(method);
        let got = exec.evaluate(&game, &net, &roots, 1).unwrap();
        assert_same_root_values(&format!("mixed shapes, {}", method.name()), &cpu, &got);
    }
}

/// A network past the device's largest buffer is refused with an error, not searched with
/// weights that never arrived (lavapipe's largest buffer is 128 MiB; one 5-tuple of 5-bit cells
/// is 2^25 weights, 128 MiB, and another shape tips it over).
#[test]
fn wgpu_a_network_too_large_for_the_device_is_refused() {
    let mut exec = gpu_searcher(Backend::Wgpu).unwrap();
    let game = Sliding::<Fib>::new();
    let net =
        NTupleNetwork::for_game::<Game2584>(&[vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]]).unwrap();
    let root = game
        .parse_position("1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0")
        .unwrap();
    match exec.evaluate(&game, &net, &[root], 1) {
        Err(e) => assert!(e.to_string().contains("largest buffer"), "{e}"),
        // A device with buffers this large searches it: then it must find the legal moves.
        Ok(found) => assert!(found[0].best.is_some(), "{found:?}"),
    }
}

/// A batch of `count` roots (cycling through `roots`) searched `layers` deep in one call equals
/// its roots searched one at a time, bit for bit. At 3 layers 128 roots and more make the
/// multilevel search's middle reduction grid two-dimensional (65536 blocks and up; the naive
/// search's first reduction has 65536 blocks a root).
fn batch_equals_single_roots<R: GpuTiles>(
    backend: Backend,
    methods: &[ExpectimaxMethod],
    roots: &[BoardOf<R>],
    count: usize,
    layers: u32,
) {
    let Some(mut exec) = gpu_searcher(backend) else {
        return;
    };
    let game = Sliding::<R>::new();
    let net = trained::<R>(200);
    let batch: Vec<BoardOf<R>> = roots.iter().cycle().take(count).copied().collect();
    for &method in methods {
        device(&mut exec).set_method(method);
        let alone: Vec<RootValue> = roots
            .iter()
            .map(|r| exec.evaluate(&game, &net, &[*r], layers).unwrap().remove(0))
            .collect();
        let together = exec.evaluate(&game, &net, &batch, layers).unwrap();
        for (i, got) in together.iter().enumerate() {
            assert_eq!(got, &alone[i % roots.len()], "{} root {i}", method.name());
        }
    }
}

/// Multilevel on late boards and the dead one: few live afterstates, so 3 layers stay quick on
/// lavapipe (the naive search plays every leaf path).
#[test]
fn wgpu_a_batch_equals_its_roots_one_at_a_time() {
    let all = boards::<Fib>(include_str!("../benches/boards-2584.txt"), 0, DEAD_2584);
    let late: Vec<_> = all[16..].to_vec();
    let multilevel = [ExpectimaxMethod::Multilevel];
    batch_equals_single_roots::<Fib>(Backend::Wgpu, &multilevel, &late, 130, 3);
}

#[test]
fn cuda_a_batch_equals_its_roots_one_at_a_time() {
    let all = boards::<Fib>(include_str!("../benches/boards-2584.txt"), 8, DEAD_2584);
    batch_equals_single_roots::<Fib>(Backend::Cuda, &ExpectimaxMethod::ALL, &all, 300, 3);
}
