//! Labelled positions and the fit to them, on Reversi: the label search against plain minimax,
//! exact labels against the search to the end, labels and positions alike on any number of
//! threads and on the device (wgpu always, CUDA too in a build with it), datasets read back as
//! written (and damaged ones refused), and a fit that learns the labels of positions it never
//! saw.

use cubesearch::games::{Board, Checkers, Reversi};
use cubesearch::learn::{
    default_shapes, generate_positions, label_positions, learn_games, Dataset, Generate, Label,
    Provenance, SelfPlay, SelfPlayPlan, TwoPlayerTupleGame,
};
use cubesearch::testing::{executor, random_positions};
use cubesearch::train::{label_on, train, EngineConfig, Fit, TrainConfig};
use cubesearch::{Backend, CpuExecutor, Executor, Game, NTupleNetwork, Outcome, Stop};
use cubesearch_games::reversi::endgame;
use rstest::rstest;
use std::path::Path;

/// A network that has learned a few hundred self-play games: weights of every sign.
fn trained() -> NTupleNetwork {
    let net =
        NTupleNetwork::staged::<Reversi>(&default_shapes::<Reversi>(), Reversi::STAGES).unwrap();
    let plan = SelfPlayPlan {
        games: 300,
        threads: 1,
        units: None,
        seed: 3,
        options: SelfPlay {
            alpha: 0.1,
            epsilon: 0.2,
        },
        stop: Stop::new(),
    };
    learn_games(&Reversi, &net, Reversi.initial(), plan, &mut |_| {});
    net
}

/// Plain minimax, every child searched: what alpha-beta must return at the root.
fn minimax(net: &NTupleNetwork, state: &Board, depth: u32) -> f32 {
    if depth == 0 || Reversi.outcome(state) != Outcome::Ongoing {
        return cubesearch_learn::selfplay::value_of(&Reversi, net, state);
    }
    Reversi
        .moves(state)
        .into_iter()
        .map(|mv| -minimax(net, &Reversi.apply(state, mv), depth - 1))
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Labels as bits: equal labels are the same bits, a zero's sign included.
fn bits(labels: &Option<Vec<f32>>) -> Option<Vec<u32>> {
    labels
        .as_ref()
        .map(|l| l.iter().map(|v| v.to_bits()).collect())
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

#[test]
fn labels_are_the_minimax_values_of_the_network() {
    let net = trained();
    let positions = random_positions(&Reversi, 40, 50, 9);
    for depth in 0..=3 {
        let plan = Label {
            depth,
            ..Label::default()
        };
        let labels = label_positions(&Reversi, &net, &positions, &plan).unwrap();
        for (p, label) in positions.iter().zip(&labels) {
            assert_eq!(*label, minimax(&net, p, depth), "depth {depth}");
        }
    }
}

/// Near the end, the endgame solver's values are the search's to the end of the game: the
/// exact labels and the searched ones agree where both reach.
#[test]
fn exact_labels_are_the_search_to_the_end() {
    let net = trained();
    let late: Vec<Board> = random_positions(&Reversi, 400, 60, 5)
        .into_iter()
        .filter(|b| (64 - (b.player | b.opponent).count_ones()) <= 7)
        .filter(|b| Reversi.outcome(b) == Outcome::Ongoing)
        .take(30)
        .collect();
    assert!(late.len() >= 10, "{} late positions", late.len());
    let solved = |b: &Board| Some(endgame::solve(b).value as f32);
    let exact = Label {
        exact: Some(&solved),
        ..Label::default()
    };
    let to_the_end = Label {
        depth: 20,
        ..Label::default()
    };
    let a = label_positions(&Reversi, &net, &late, &exact).unwrap();
    let b = label_positions(&Reversi, &net, &late, &to_the_end).unwrap();
    assert_eq!(a, b);
    assert!(a.iter().any(|v| *v != 0.0));
}

#[test]
fn positions_and_labels_are_the_same_on_any_threads() {
    let net = trained();
    let generate = Generate {
        games: 12,
        random_plies: 6,
        epsilon: 0.2,
        seed: 4,
    };
    let stop = Stop::new();
    let one = pool(1).install(|| generate_positions(&Reversi, &net, generate, &stop));
    let two = pool(2).install(|| generate_positions(&Reversi, &net, generate, &stop));
    assert_eq!(one, two);
    // Whole games after 6 random plies: about 50 positions each, none finished.
    assert!(one.len() > 12 * 40, "{} positions", one.len());
    assert!(one.iter().all(|b| Reversi.outcome(b) == Outcome::Ongoing));
    let plan = Label {
        depth: 2,
        stop: stop.clone(),
        ..Label::default()
    };
    let a = pool(1).install(|| label_positions(&Reversi, &net, &one, &plan));
    let b = pool(2).install(|| label_positions(&Reversi, &net, &one, &plan));
    assert_eq!(a, b);
    stop.request(1);
    assert!(label_positions(&Reversi, &net, &one, &plan).is_none());
}

fn dataset(count: usize) -> Dataset<Reversi> {
    let positions = random_positions(&Reversi, count, 50, 8);
    let labels = positions
        .iter()
        .map(|b| (b.player.count_ones() as f32 - b.opponent.count_ones() as f32) / 2.0)
        .collect();
    Dataset {
        positions,
        labels,
        provenance: Provenance {
            generator: "random games".into(),
            evaluation: "half the disc difference".into(),
            depth: 0,
            exact: String::new(),
            seed: 8,
            games: count as u64,
        },
    }
}

#[test]
fn a_dataset_reads_back_as_written_and_a_damaged_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.st");
    let data = dataset(200);
    data.save(&Reversi, &path).unwrap();
    assert_eq!(Dataset::load(&Reversi, &path).unwrap(), data);
    let bytes = std::fs::read(&path).unwrap();
    let refused = |bytes: &[u8], why: &str| {
        let err = Dataset::<Reversi>::from_bytes(&Reversi, bytes, Path::new("d"))
            .unwrap_err()
            .to_string();
        assert!(err.contains(why), "{err}");
    };
    refused(&bytes[..bytes.len() - 10], "corrupt or truncated");
    let mut altered = bytes.clone();
    let last = altered.len() - 1;
    altered[last] ^= 1;
    refused(&altered, "checksum");
    let other = Dataset::<cubesearch::games::Nim>::from_bytes(
        &cubesearch::games::Nim,
        &bytes,
        Path::new("d"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        other.contains("positions of reversi, not of nim"),
        "{other}"
    );
    let mut bad = data.clone();
    bad.labels[3] = f32::NAN;
    assert!(bad.save(&Reversi, &path).is_err());
    assert_eq!(
        Dataset::load(&Reversi, &path).unwrap(),
        data,
        "a refused save leaves the file as it was"
    );
}

/// The fit learns a function of the positions (half the disc difference, which the 8-tuple
/// network can express): its error on the positions it held out falls far below the labels'
/// spread, and on one thread two fits give the same weights.
#[test]
fn a_fit_learns_the_labels_of_positions_it_never_saw() {
    let data = dataset(20_000);
    let spread = (data.labels.iter().map(|l| l * l).sum::<f32>() / data.labels.len() as f32).sqrt();
    let cfg = TrainConfig {
        games: 200_000,
        alpha: Some(0.1),
        // One stage: every position teaches every weight it reads.
        stages: Some(Vec::new()),
        engine: EngineConfig {
            threads: Some(1),
            ..EngineConfig::default()
        },
        ..TrainConfig::default()
    };
    let (net, report) = train(Fit(&Reversi, &data), &cfg, |_| {}).unwrap();
    let rmse = report
        .held_out_rmse
        .expect("a fit reports its held-out error");
    assert!(
        rmse < 0.25 * spread as f64,
        "held-out RMSE {rmse} against the labels' {spread}"
    );
    let (again, _) = train(Fit(&Reversi, &data), &cfg, |_| {}).unwrap();
    let weights =
        |n: &NTupleNetwork| -> Vec<f32> { (0..n.tables()).flat_map(|t| n.table(t)).collect() };
    assert_eq!(weights(&net), weights(&again));
    let few = dataset(10);
    let err = train(Fit(&Reversi, &few), &cfg, |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("at least 40 labelled positions"), "{err}");
}

/// The device labels positions as the CPU does, bit for bit: Reversi and checkers, one ply
/// on a device whose loops are cut short (lavapipe), three on a GPU.
#[rstest]
fn device_labels_are_the_cpu_labels(#[values(Backend::Wgpu, Backend::Cuda)] backend: Backend) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let depth = if gpu.limits().and_then(|l| l.loop_iterations).is_some() {
        1
    } else {
        3
    };
    let cpu = Executor::Cpu(CpuExecutor::new(2).unwrap());
    let net = trained();
    let positions = random_positions(&Reversi, 300, 60, 12);
    for d in 0..=depth {
        let plan = Label {
            depth: d,
            ..Label::default()
        };
        let want = label_on(&cpu, &Reversi, &net, &positions, &plan).unwrap();
        let got = label_on(&gpu, &Reversi, &net, &positions, &plan).unwrap();
        assert_eq!(bits(&got), bits(&want), "Reversi, {d} plies");
    }
    let rules = Checkers::default();
    let net =
        NTupleNetwork::staged::<Checkers>(&default_shapes::<Checkers>(), Checkers::STAGES).unwrap();
    let plan = SelfPlayPlan {
        games: 100,
        threads: 1,
        units: None,
        seed: 2,
        options: SelfPlay::default(),
        stop: Stop::new(),
    };
    learn_games(&rules, &net, rules.initial(), plan, &mut |_| {});
    let positions = random_positions(&rules, 300, 80, 13);
    let plan = Label {
        depth,
        ..Label::default()
    };
    let want = label_on(&cpu, &rules, &net, &positions, &plan).unwrap();
    let got = label_on(&gpu, &rules, &net, &positions, &plan).unwrap();
    assert_eq!(bits(&got), bits(&want), "checkers, {depth} plies");
    let too_deep = Label {
        depth: 9,
        ..Label::default()
    };
    assert!(label_on(
        &gpu,
        &Reversi,
        &trained(),
        &positions_of_reversi(),
        &too_deep
    )
    .is_err());
}

/// Alpha-beta's cut-offs and best-first order on the device: three plies on any device (a
/// small network and early positions keep lavapipe's loops inside its budget, so the launch is
/// asked directly, past `label_on`'s one-ply refusal there), five on a GPU; the labels are the
/// CPU's bit for bit.
#[rstest]
fn pruned_device_labels_are_the_cpu_labels(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    use cubesearch::cubecl::prelude::Runtime;
    use cubesearch_kernels::labels::{launch_labels, LabelSearch};
    use cubesearch_search::{DeviceTask, GpuExecutor};
    struct Labels<'a>(&'a cubesearch_kernels::td::TdNet, &'a [Board], u32);
    impl DeviceTask for Labels<'_> {
        type Output = Vec<f32>;
        fn run<R: Runtime>(self, gpu: &GpuExecutor<R>) -> cubesearch::Result<Vec<f32>> {
            let search = LabelSearch {
                depth: self.2,
                loop_budget: None,
            };
            launch_labels::<R, Reversi>(gpu.client(), self.0, &Reversi, self.1, search)
        }
    }
    let Some(gpu) = executor(backend) else {
        return;
    };
    let software = gpu.limits().and_then(|l| l.loop_iterations).is_some();
    let shapes = vec![vec![0, 1, 2, 3, 4, 5], vec![9, 10, 11, 12, 13, 14]];
    let net = NTupleNetwork::staged::<Reversi>(&shapes, &[]).unwrap();
    let plan = SelfPlayPlan {
        games: 200,
        threads: 1,
        units: None,
        seed: 5,
        options: SelfPlay {
            alpha: 0.1,
            epsilon: 0.2,
        },
        stop: Stop::new(),
    };
    learn_games(&Reversi, &net, Reversi.initial(), plan, &mut |_| {});
    let (positions, deepest) = if software {
        (random_positions(&Reversi, 64, 6, 21), 3)
    } else {
        (random_positions(&Reversi, 400, 50, 21), 5)
    };
    let device = cubesearch_train::td_net(&net);
    for depth in 2..=deepest {
        let want: Vec<f32> = positions.iter().map(|p| minimax(&net, p, depth)).collect();
        let got = gpu
            .on_device(Labels(&device, &positions, depth), "")
            .unwrap();
        assert_eq!(got, want, "{depth} plies");
    }
}

fn positions_of_reversi() -> Vec<Board> {
    random_positions(&Reversi, 4, 10, 1)
}

/// Edax's patterns in 3 stages, weights drawn at random (−3.9 to 3.9, in 1/256ths).
fn edax_network() -> NTupleNetwork {
    use cubesearch::rng::XorShift32;
    let shapes = cubesearch_learn::shapes_for::<Reversi>("edax").unwrap();
    let mut net = NTupleNetwork::staged::<Reversi>(&shapes, &[30, 45]).unwrap();
    let mut rng = XorShift32::for_worker(17, 0);
    for t in 0..net.tables() {
        let len = net.table(t).len();
        let values: Vec<f32> = (0..len)
            .map(|_| (rng.below(2001) as f32 - 1000.0) / 256.0)
            .collect();
        net.set_table(t, values.into_iter());
    }
    net
}

/// A device labels with lookups of several sizes (Edax's patterns, the shorter ones padded) as
/// the CPU does, bit for bit: one ply on lavapipe, three on a GPU.
#[rstest]
fn device_labels_with_edax_patterns_are_the_cpu_labels(
    #[values(Backend::Wgpu, Backend::Cuda)] backend: Backend,
) {
    let Some(gpu) = executor(backend) else {
        return;
    };
    let software = gpu.limits().and_then(|l| l.loop_iterations).is_some();
    let cpu = Executor::Cpu(CpuExecutor::new(2).unwrap());
    let net = edax_network();
    let positions = random_positions(&Reversi, 200, 60, 31);
    for depth in 0..=if software { 1 } else { 3 } {
        let plan = Label {
            depth,
            ..Label::default()
        };
        let want = label_on(&cpu, &Reversi, &net, &positions, &plan).unwrap();
        let got = label_on(&gpu, &Reversi, &net, &positions, &plan).unwrap();
        assert_eq!(bits(&got), bits(&want), "{depth} plies");
    }
}

/// Edax's patterns (up to 10 cells, of several sizes): V read from the packed views equals the
/// reference read cell by cell, bit for bit; a fit takes the network, and self-play, whose
/// trainers take shapes of one size, refuses it before any game.
#[test]
fn edax_patterns_read_as_the_reference_and_fit() {
    use cubesearch::train::SelfPlayTd;
    use cubesearch::TupleBoard;
    let shapes = cubesearch_learn::shapes_for::<Reversi>("edax").unwrap();
    assert_eq!(shapes.iter().map(Vec::len).max(), Some(10));
    let net = edax_network();
    let mut cells = vec![0u8; 64];
    for b in random_positions(&Reversi, 200, 60, 3) {
        Reversi.cells(&b, &mut cells);
        let stage = net.stage(&Reversi, &b);
        assert_eq!(
            net.value(&Reversi, b).to_bits(),
            net.value_cells(&cells, stage).to_bits()
        );
    }
    let data = dataset(2000);
    let cfg = TrainConfig {
        games: 20_000,
        shapes: Some(shapes.clone()),
        ..TrainConfig::default()
    };
    let (_, report) = train(Fit(&Reversi, &data), &cfg, |_| {}).unwrap();
    assert!(report.held_out_rmse.unwrap().is_finite());
    let err = train(SelfPlayTd(&Reversi), &cfg, |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("differ in size"), "{err}");
}
