use cubesearch_core::rng::XorShift32;
use cubesearch_core::{Error, StochasticGame};
use cubesearch_games::fib::{
    seed_shapes, Board, BoardOf, Dir, Fib, GpuTiles, Pow2, Sliding, TileRule,
};
use cubesearch_games::{Game2048, Game2584};
use cubesearch_learn::runner::{Sharing, ROUND_MOVES};
use cubesearch_learn::{
    coherence_rate, parse_shapes, play, play_random, NTupleNetwork, TdOrder, TABLE_GAP,
};
use cubesearch_train::{
    curve_csv, starting_network, train, CpuEngine, EngineConfig, Td, TdEngine, TrainConfig,
};
use rstest::rstest;

/// A network with every weight set to a random value.
fn random_network<R: TileRule>(shapes: &[Vec<u8>], seed: u32) -> NTupleNetwork {
    random_staged::<R>(shapes, &[], seed)
}

/// [`random_network`] with a stage after each of `stages`.
fn random_staged<R: TileRule>(shapes: &[Vec<u8>], stages: &[u32], seed: u32) -> NTupleNetwork {
    let net = NTupleNetwork::staged::<Sliding<R>>(shapes, stages).unwrap();
    let mut rng = XorShift32::for_worker(seed, 0);
    // Random boards, random updates: touches many weights of every table of every stage.
    for _ in 0..20_000 * (stages.len() + 1) {
        let cells: [u8; 16] = std::array::from_fn(|_| rng.below(1 << R::BITS) as u8);
        let stage = rng.below(stages.len() as u32 + 1) as usize;
        net.update_cells(&cells, stage, rng.below(2001) as f32 / 100.0 - 10.0);
    }
    net
}

/// V(b) by the network's reference reads (from the board's cells).
fn reference_value<R: TileRule>(net: &NTupleNetwork, b: BoardOf<R>) -> f32 {
    net.value_cells(&b.cells(R::BITS), net.stage(&Sliding::<R>::new(), &b))
}

/// Moves V(b) by `step · (target − V(b))` through the reference reads.
fn reference_update<R: TileRule>(net: &NTupleNetwork, b: BoardOf<R>, target: f32, step: f32) {
    reference_move::<R>(net, b, reference_value::<R>(net, b), target, step);
}

/// Moves `b`'s weights by `step` times the error of `valued` (what V(b) read when `b` was
/// chosen) against `target`, as forward learning does.
fn reference_move<R: TileRule>(
    net: &NTupleNetwork,
    b: BoardOf<R>,
    valued: f32,
    target: f32,
    step: f32,
) {
    let stage = net.stage(&Sliding::<R>::new(), &b);
    net.update_cells(&b.cells(R::BITS), stage, step * (target - valued));
}

/// The sum of the two largest of 16 tile values, by sorting them.
fn two_largest_by_hand(mut values: [u32; 16]) -> u32 {
    values.sort_unstable();
    values[15] + values[14]
}

/// The stage of board cells `cells` by hand: how many of `stages` the sum of its two largest
/// tiles reaches.
fn stage_by_hand<R: TileRule>(cells: &[u8], stages: &[u32]) -> usize {
    let two = two_largest_by_hand(std::array::from_fn(|c| R::value(cells[c])));
    stages.iter().filter(|&&t| t <= two).count()
}

fn random_board<R: TileRule>(rng: &mut XorShift32) -> BoardOf<R> {
    let cells: [u8; 16] = std::array::from_fn(|_| rng.below(12) as u8);
    Board::from_cells(&cells, R::BITS)
}

fn check_symmetry<R: TileRule>(shapes: &[Vec<u8>]) {
    let net = random_network::<R>(shapes, 3);
    let mut rng = XorShift32::for_worker(4, 0);
    for _ in 0..200 {
        let b = random_board::<R>(&mut rng);
        let v = net.value(&Sliding::<R>::new(), b);
        for s in 0..8 {
            let t = b.transformed(s, R::BITS);
            let w = net.value(&Sliding::<R>::new(), t);
            assert!(
                (v - w).abs() <= 1e-3 * v.abs().max(1.0),
                "symmetry {s}: {v} vs {w}"
            );
        }
    }
}

#[test]
fn the_eight_symmetries_of_a_board_have_the_same_value() {
    check_symmetry::<Fib>(&seed_shapes());
    check_symmetry::<Pow2>(&seed_shapes());
    // An asymmetric shape too: a bent 5-tuple.
    check_symmetry::<Pow2>(&[vec![0, 1, 2, 5, 9]]);
}

/// Shapes that exercise the fast index path: runs of cells within a half of the board and
/// across the middle (cells 7 and 8), cells in falling order, a diagonal, and cells (9, 2)
/// that are next to each other within their halves but not on the board (a network's shapes
/// are of one size).
fn odd_shapes() -> Vec<Vec<u8>> {
    parse_shapes("0,1,2,3;5,9,2,14;3,6,9,12;15,10,5,0;6,7,8,9;11,4,13,1;12,13,14,15;9,2,7,8")
        .unwrap()
}

/// The weight indices read straight from the board agree with those read from its cells, one
/// board at a time and four at once (and so do the values), in the stage of its two largest
/// tiles.
fn check_indices<R: TileRule>(shapes: &[Vec<u8>], stages: &[u32]) {
    let net = random_staged::<R>(shapes, stages, 8);
    let mut seen = vec![0; stages.len() + 1];
    let lookups = net.lookups();
    let mut rng = XorShift32::for_worker(11, 0);
    let (mut fast, mut four, mut reference) =
        (vec![0; lookups], vec![0; 4 * lookups], vec![0; lookups]);
    for _ in 0..500 {
        let cells: [[u8; 16]; 4] =
            std::array::from_fn(|_| std::array::from_fn(|_| rng.below(1 << R::BITS) as u8));
        let boards = cells.map(|c| Board::from_cells(&c, R::BITS));
        net.indices_of(&Sliding::<R>::new(), boards, &mut four);
        let values = net.values_at(&four);
        for (k, (b, cells)) in boards.into_iter().zip(&cells).enumerate() {
            net.indices(&Sliding::<R>::new(), b, &mut fast);
            let stage = stage_by_hand::<R>(cells, stages);
            assert_eq!(net.stage(&Sliding::<R>::new(), &b), stage, "{cells:?}");
            seen[stage] += 1;
            net.cell_indices(cells, stage, &mut reference);
            assert_eq!(fast, reference, "{} {cells:?}", R::NAME);
            let lane: Vec<u32> = four.chunks_exact(4).map(|f| f[k]).collect();
            assert_eq!(lane, reference, "{} {cells:?}, board {k} of 4", R::NAME);
            let value = net.value_cells(cells, stage).to_bits();
            assert_eq!(net.value(&Sliding::<R>::new(), b).to_bits(), value);
            assert_eq!(values[k].to_bits(), value);
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "{} stages seen {seen:?}",
        R::NAME
    );
}

#[test]
fn fast_indices_match_the_cell_reference() {
    check_indices::<Fib>(&seed_shapes(), &[]);
    check_indices::<Pow2>(&seed_shapes(), &[]);
    check_indices::<Fib>(&odd_shapes(), &[]);
    check_indices::<Pow2>(&odd_shapes(), &[]);
    check_indices::<Pow2>(&parse_shapes("4,5,6,7,8,9;0,1,2,4,5,6").unwrap(), &[]);
    // Random boards' two largest tiles fall on both sides of every threshold.
    check_indices::<Pow2>(&seed_shapes(), &[16384, 32768]);
    check_indices::<Pow2>(&seed_shapes(), &[16384, 24576]);
    check_indices::<Fib>(&odd_shapes(), &[Fib::value(28)]);
}

/// The backward TD(0) pass as first written, on the reference path (weights read from cells).
fn reference_learn<R: TileRule>(net: &NTupleNetwork, path: &[(BoardOf<R>, u32)], step: f32) {
    let mut target = 0.0f32;
    for &(after, reward) in path.iter().rev() {
        reference_update::<R>(net, after, target, step);
        target = reward as f32 + reference_value::<R>(net, after);
    }
}

/// When the reference trainer learns.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Order {
    /// At the game's end, last afterstate first.
    Backward,
    /// Each afterstate once the next move is chosen, its error against its value as read when
    /// it was chosen.
    Forward,
    /// As `Forward`, its error against its value read again just before its update.
    ForwardReread,
}

/// The trainer as first written, on the reference path: game `g` from
/// `XorShift32::for_worker(seed, g)`, greedy on `value_cells` (ties to the first of left,
/// right, up, down), then [`reference_learn`]; or, learning forward, each afterstate moved
/// toward the next move's value once that move is chosen and the last toward 0, the error
/// taken as `order` says. Returns the games' scores.
fn reference_train<R: TileRule>(
    net: &NTupleNetwork,
    games: u32,
    alpha: f32,
    seed: u32,
    order: Order,
) -> Vec<u64> {
    let forward = order != Order::Backward;
    let valued_now = |b: BoardOf<R>, then: f32| match order {
        Order::ForwardReread => reference_value::<R>(net, b),
        _ => then,
    };
    let game = Sliding::<R>::new();
    let step = alpha / net.lookups() as f32;
    let mut path: Vec<(BoardOf<R>, u32)> = Vec::new();
    (0..games)
        .map(|g| {
            let mut rng = XorShift32::for_worker(seed, g);
            let mut s = game.initial(&mut rng);
            let (mut score, mut last_valued) = (0, 0.0);
            path.clear();
            loop {
                let mut best: Option<(f32, BoardOf<R>, u32, f32)> = None;
                for d in Dir::ALL {
                    if let Some((after, reward)) = game.afterstate(&s, d) {
                        let valued = reference_value::<R>(net, after);
                        let v = reward as f32 + valued;
                        if best.is_none_or(|b| v > b.0) {
                            best = Some((v, after, reward, valued));
                        }
                    }
                }
                let Some((value, after, reward, valued)) = best else {
                    break;
                };
                if let (true, Some(&(last, _))) = (forward, path.last()) {
                    reference_move::<R>(net, last, valued_now(last, last_valued), value, step);
                }
                last_valued = valued;
                score += reward as u64;
                path.push((after, reward));
                s = game.sample_chance(&after, &mut rng);
            }
            match (forward, path.last()) {
                (true, Some(&(last, _))) => {
                    reference_move::<R>(net, last, valued_now(last, last_valued), 0.0, step)
                }
                (true, None) => {}
                (false, _) => reference_learn::<R>(net, &path, step),
            }
            score
        })
        .collect()
}

/// One thread of the optimised trainer plays the same games and learns bit for bit the same
/// weights as the reference trainer.
fn check_training<R: TileRule>(shapes: &[Vec<u8>], stages: &[u32], games: u32) {
    let game = Sliding::<R>::new();
    let mut fast = NTupleNetwork::staged::<Sliding<R>>(shapes, stages).unwrap();
    let reference = NTupleNetwork::staged::<Sliding<R>>(shapes, stages).unwrap();
    let scores = CpuEngine::new(1)
        .learn_games(&game, &mut fast, games, 0.1, 21)
        .unwrap();
    assert_eq!(
        scores,
        reference_train::<R>(&reference, games, 0.1, 21, Order::Backward)
    );
    for t in 0..fast.tables() {
        let bits = |net: &NTupleNetwork| -> Vec<u32> {
            net.table(t).iter().map(|w| w.to_bits()).collect()
        };
        assert!(bits(&fast) == bits(&reference), "{} table {t}", R::NAME);
        // Every table of every stage learned.
        assert!(
            fast.table(t).iter().any(|&w| w != 0.0),
            "{} table {t}",
            R::NAME
        );
    }
}

#[test]
fn the_fast_trainer_learns_exactly_what_the_reference_learns() {
    check_training::<Fib>(&seed_shapes(), &[], 150);
    check_training::<Pow2>(&seed_shapes(), &[], 150);
    check_training::<Fib>(&odd_shapes(), &[], 60);
    check_training::<Pow2>(&odd_shapes(), &[], 60);
    // Three stages, each reached by these early games.
    check_training::<Pow2>(&seed_shapes(), &[64, 128], 150);
    check_training::<Fib>(&odd_shapes(), &[Fib::value(9), Fib::value(10)], 60);
}

/// Learning forward, one thread plays the same games and learns bit for bit the same weights
/// as the reference trainer does forward, and not those it learns backward. With temporal
/// coherence (at alpha 1.0) the reference reads each afterstate's value again before its
/// update (TDL2048+'s TC), and the trainer learns what it learns and not what the value read
/// when the afterstate was chosen gives.
fn check_forward_training<R: TileRule + GpuTiles>(
    shapes: &[Vec<u8>],
    stages: &[u32],
    games: u32,
    coherent: bool,
) {
    let game = Sliding::<R>::new();
    let alpha = if coherent { 1.0 } else { 0.1 };
    let cfg = TrainConfig {
        games: games as u64,
        alpha: Some(alpha),
        coherence: coherent,
        seed: 21,
        shapes: Some(shapes.to_vec()),
        stages: Some(stages.to_vec()),
        order: Some(TdOrder::Forward),
        ..TrainConfig::default()
    };
    let (fast, report) = train(Td(&game), &cfg, |_| {}).unwrap();
    assert_eq!(fast.stages(), stages);
    let reference = |order| {
        let mut net = NTupleNetwork::staged::<Sliding<R>>(shapes, stages).unwrap();
        if coherent {
            net.enable_coherence().expect("coherence fits");
        }
        let scores = reference_train::<R>(&net, games, alpha, 21, order);
        (net, scores.iter().sum::<u64>() as f64 / games as f64)
    };
    let (same, other) = match coherent {
        true => (Order::ForwardReread, Order::Forward),
        false => (Order::Forward, Order::Backward),
    };
    let (expected, mean) = reference(same);
    let what = format!("{} coherent {coherent}", R::NAME);
    assert_eq!(report.mean_score, mean, "{what}");
    let bits = |net: &NTupleNetwork, t: usize| -> Vec<u32> {
        net.table(t).iter().map(|w| w.to_bits()).collect()
    };
    for t in 0..fast.tables() {
        assert!(bits(&fast, t) == bits(&expected, t), "{what} table {t}");
        assert!(fast.table(t).iter().any(|&w| w != 0.0), "{what} table {t}");
    }
    let (unlike, _) = reference(other);
    assert!(bits(&fast, 0) != bits(&unlike, 0), "{what}");
}

#[test]
fn the_coherent_forward_trainer_reads_each_value_again_before_its_update() {
    check_forward_training::<Pow2>(&seed_shapes(), &[], 60, true);
    check_forward_training::<Fib>(&odd_shapes(), &[], 40, true);
    check_forward_training::<Pow2>(&seed_shapes(), &[64, 128], 60, true);
}

#[test]
fn the_forward_trainer_learns_exactly_what_the_forward_reference_learns() {
    check_forward_training::<Fib>(&seed_shapes(), &[], 150, false);
    check_forward_training::<Pow2>(&seed_shapes(), &[], 150, false);
    check_forward_training::<Pow2>(&odd_shapes(), &[], 60, false);
    check_forward_training::<Pow2>(&seed_shapes(), &[64, 128], 150, false);
}

#[test]
fn learn_on_a_path_matches_the_reference() {
    let game = Game2584::new();
    let mut rng = XorShift32::for_worker(5, 0);
    let mut path = Vec::new();
    let (mut s, mut legal) = (game.initial(&mut rng), Vec::new());
    loop {
        legal.clear();
        game.legal_actions(&s, &mut legal);
        let Some(&(_, after, reward)) = legal.first() else {
            break;
        };
        path.push((after, reward));
        s = game.sample_chance(&after, &mut rng);
    }
    assert!(path.len() > 10);
    let (a, b) = (
        random_network::<Fib>(&odd_shapes(), 2),
        random_network::<Fib>(&odd_shapes(), 2),
    );
    cubesearch_learn::td::learn(&game, &a, &path, 0.01);
    reference_learn::<Fib>(&b, &path, 0.01);
    for t in 0..odd_shapes().len() {
        assert_eq!(a.table(t), b.table(t));
    }
}

#[test]
fn a_random_network_is_not_trivially_symmetric_per_lookup() {
    // Guard for the test above: one lookup set alone (no symmetries) would differ.
    let net = random_network::<Pow2>(&seed_shapes(), 3);
    let mut rng = XorShift32::for_worker(9, 0);
    let b = random_board::<Pow2>(&mut rng);
    assert_ne!(net.value(&Sliding::<Pow2>::new(), b), 0.0);
    assert_eq!(net.lookups(), 24);
    // Three tables, each followed by its gap.
    assert_eq!(net.weight_count(), 3 * (65536 + TABLE_GAP));
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn weights_round_trip_through_a_file() {
    let dir = temp();
    let path = dir.path().join("w.safetensors");
    let net = random_network::<Pow2>(&seed_shapes(), 5);
    net.save(&path, 1234, 5678.5).unwrap();
    let (back, meta) = NTupleNetwork::load::<Game2048>(&path, None).unwrap();
    assert_eq!(meta.game, "2048");
    assert_eq!(meta.games, 1234);
    assert_eq!(meta.mean_score, 5678.5);
    assert_eq!(meta.shapes, seed_shapes());
    for t in 0..3 {
        assert_eq!(back.table(t), net.table(t));
    }
    // Saving again replaces the file and leaves no temporary file behind.
    net.save(&path, 1235, 1.0).unwrap();
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert_eq!(
        NTupleNetwork::load::<Game2048>(&path, None)
            .unwrap()
            .1
            .games,
        1235
    );
}

/// A network whose training diverged (a weight NaN or infinite) is not saved, and the file it
/// would have replaced, a checkpoint say, stays loadable.
#[test]
fn a_diverged_network_is_not_saved_over_good_weights() {
    let dir = temp();
    let path = dir.path().join("w.safetensors");
    let net = random_network::<Pow2>(&seed_shapes(), 5);
    net.save(&path, 10, 1.0).unwrap();
    let before = std::fs::read(&path).unwrap();
    for bad in [f32::NAN, f32::INFINITY] {
        let diverged = random_network::<Pow2>(&seed_shapes(), 5);
        diverged.update_at(&[70_000], bad);
        let err = diverged.save(&path, 20, 2.0).unwrap_err().to_string();
        assert!(
            err.contains("diverged") && err.contains("'tuple1'"),
            "{err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }
    let names = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(names, 1, "no temporary file left behind");
    assert_eq!(
        NTupleNetwork::load::<Game2048>(&path, None)
            .unwrap()
            .1
            .games,
        10
    );
}

#[test]
fn a_multi_stage_network_round_trips_and_resumes_only_as_itself() {
    let dir = temp();
    let path = dir.path().join("w.safetensors");
    let net = random_staged::<Pow2>(&seed_shapes(), &[16384, 32768], 5);
    assert_eq!(
        (net.tables(), net.weight_count()),
        (9, 9 * (65536 + TABLE_GAP))
    );
    net.save(&path, 7, 1.0).unwrap();
    let (back, meta) = NTupleNetwork::load::<Game2048>(&path, None).unwrap();
    assert_eq!(
        (meta.stages.as_slice(), back.stages()),
        (&[16384, 32768][..], &[16384, 32768][..])
    );
    for t in 0..net.tables() {
        assert_eq!(back.table(t), net.table(t), "table {t}");
    }
    // Stage 2's copy of a table differs from stage 0's: each was written where it belongs.
    assert_ne!(net.table(0), net.table(6));

    // A resumed run keeps the file's stages and refuses thresholds that drop any of them.
    let cfg = TrainConfig {
        games: 3,
        shapes: Some(seed_shapes()),
        resume: Some(path.clone()),
        out: Some(path.clone()),
        ..TrainConfig::default()
    };
    let (trained, _) = train(Td(&Game2048::new()), &cfg, |_| {}).unwrap();
    assert_eq!(trained.stages(), &[16384, 32768]);
    // Thresholds added to the file's split its stages.
    let finer = TrainConfig {
        stages: Some(vec![8192, 16384, 24576, 32768]),
        out: None,
        ..cfg.clone()
    };
    let (split, _) = train(Td(&Game2048::new()), &finer, |_| {}).unwrap();
    assert_eq!(split.stages(), &[8192, 16384, 24576, 32768]);
    for other in [vec![], vec![16384], vec![8192, 16384]] {
        let wrong = TrainConfig {
            stages: Some(other),
            ..cfg.clone()
        };
        assert!(matches!(
            train(Td(&Game2048::new()), &wrong, |_| {}),
            Err(Error::Parse(_))
        ));
    }
    // The stages are the file's: thresholds edited in its header load as written, and stages
    // it holds no tensors for are refused.
    let bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(11).position(|w| w == b"16384,32768").unwrap();
    let edited = |text: &[u8; 11]| {
        let mut b = bytes.clone();
        b[at..at + 11].copy_from_slice(text);
        NTupleNetwork::from_bytes::<Game2048>(&b, &path, None)
    };
    assert_eq!(edited(b"16384,32769").unwrap().0.stages(), &[16384, 32769]);
    expect_data_error(
        edited(b"2,3,4,5,6,7"),
        "tensors for 3 tuple shapes in 7 stages",
    );
    expect_data_error(edited(b"16384,16384"), "stages");
    // A staged file that does not say its stages count the two largest tiles is from before
    // they did (the largest tile alone): refused.
    let at = bytes.windows(9).position(|w| w == b"staged_by").unwrap();
    let mut older = bytes.clone();
    older[at..at + 9].copy_from_slice(b"staged_on");
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(&older, &path, None),
        "its stages count progress (a file from before 'staged_by'",
    );
}

/// Resuming a one-stage file with stages splits it: every stage starts as a copy of the file's
/// tables (so every state is valued as before), the run learns on, and the result keeps its
/// stages.
#[test]
fn a_one_stage_network_resumed_with_stages_starts_each_stage_from_its_weights() {
    let dir = temp();
    let path = dir.path().join("w.safetensors");
    let one = random_network::<Pow2>(&seed_shapes(), 6);
    one.save(&path, 5, 1.0).unwrap();
    let cfg = TrainConfig {
        games: 20,
        shapes: Some(seed_shapes()),
        resume: Some(path.clone()),
        stages: Some(vec![64, 128]),
        out: Some(dir.path().join("split.safetensors")),
        ..TrainConfig::default()
    };
    let (split, games) = cubesearch_train::starting_network::<Game2048>(&cfg, &[]).unwrap();
    assert_eq!((split.stages(), games), (&[64, 128][..], 5));
    for t in 0..split.tables() {
        assert_eq!(split.table(t), one.table(t % one.tables()), "table {t}");
    }
    let mut rng = XorShift32::for_worker(6, 1);
    for _ in 0..200 {
        let b = random_board::<Pow2>(&mut rng);
        let (game, cells) = (Sliding::<Pow2>::new(), b.cells(Pow2::BITS));
        assert_eq!(
            split.value(&game, b).to_bits(),
            one.value(&game, b).to_bits(),
            "{cells:?}"
        );
    }
    let (trained, report) = train(Td(&Game2048::new()), &cfg, |_| {}).unwrap();
    assert_eq!((trained.stages(), report.total_games), (&[64, 128][..], 25));
    assert!(
        (0..trained.tables()).any(|t| trained.table(t) != split.table(t)),
        "it learned"
    );
    // A staged network splits again by adding thresholds (Jaśkowski's weight promotion): each
    // new stage starts from the stage whose states it takes, its coherence sums too, and every
    // state keeps its value. Thresholds that drop one of its own are refused.
    let mut coherent = trained.replica();
    for t in 0..trained.tables() {
        let n = trained.table(t).len();
        let sums: Vec<f32> = (0..n).map(|i| i as f32 - t as f32).collect();
        let sizes: Vec<f32> = (0..n).map(|i| (i + t) as f32).collect();
        coherent
            .set_coherence_table(t, &sums, &sizes)
            .expect("coherence fits");
    }
    let finer = coherent
        .split_into_stages::<Game2048>(&[64, 96, 128, 256])
        .unwrap();
    let shapes = one.tables();
    for (stage, from) in [0, 1, 1, 2, 2].into_iter().enumerate() {
        for s in 0..shapes {
            let (t, old) = (stage * shapes + s, from * shapes + s);
            assert_eq!(finer.table(t), trained.table(old), "table {t}");
            let sums = coherent.coherence_table(old);
            assert_eq!(finer.coherence_table(t), sums, "table {t}'s sums");
        }
    }
    // Boards of tiles up to 2^top: the two largest sum to at most 2^(top + 1), so the small
    // tops reach the early stages.
    let game = Sliding::<Pow2>::new();
    let mut stages_seen = [false; 5];
    for top in [5, 6, 7, 11] {
        for _ in 0..200 {
            let cells: [u8; 16] = std::array::from_fn(|_| rng.below(top + 1) as u8);
            let b = Board::from_cells(&cells, Pow2::BITS);
            stages_seen[finer.stage(&game, &b)] = true;
            let (got, want) = (finer.value(&game, b), trained.value(&game, b));
            assert_eq!(got.to_bits(), want.to_bits(), "{cells:?}");
        }
    }
    assert_eq!(stages_seen, [true; 5]);
    for dropped in [&[64][..], &[32, 128], &[]] {
        assert!(matches!(
            trained.split_into_stages::<Game2048>(dropped),
            Err(Error::Parse(_))
        ));
    }
}

fn expect_data_error(
    result: cubesearch_core::Result<(NTupleNetwork, cubesearch_learn::WeightsMeta)>,
    needle: &str,
) {
    match result {
        Err(Error::Data { why, .. }) => assert!(why.contains(needle), "{why}"),
        Err(other) => panic!("expected a data error mentioning '{needle}', got {other}"),
        Ok(_) => panic!("a bad file was accepted ({needle})"),
    }
}

#[test]
fn corrupt_and_mismatched_files_are_refused() {
    let dir = temp();
    let path = dir.path().join("w.safetensors");
    let net = random_network::<Pow2>(&seed_shapes(), 6);
    net.save(&path, 10, 1.0).unwrap();
    let bytes = std::fs::read(&path).unwrap();

    // Wrong game.
    expect_data_error(
        NTupleNetwork::load::<Game2584>(&path, None),
        "for 2048, not for 2584",
    );
    // Other shapes than asked for.
    let other = parse_shapes("0,1,2,3;4,5,6,7").unwrap();
    expect_data_error(
        NTupleNetwork::load::<Game2048>(&path, Some(&other)),
        "do not match",
    );
    // Truncated anywhere: in the data, in the header, in the length prefix.
    for cut in [bytes.len() - 1, bytes.len() / 2, 100, 7, 0] {
        expect_data_error(
            NTupleNetwork::from_bytes::<Game2048>(&bytes[..cut], &path, None),
            "corrupt or truncated",
        );
    }
    // Garbage.
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(b"this is not a weights file at all", &path, None),
        "corrupt or truncated",
    );
    // A valid safetensors file that is not ours.
    let data = vec![0u8; 16];
    let view =
        safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![4], &data).unwrap();
    let foreign = safetensors::serialize([("x", view)], None).unwrap();
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(&foreign, &path, None),
        "no metadata",
    );
    // Our metadata, but a tensor of the wrong size.
    let meta: std::collections::HashMap<String, String> = [
        ("format", "cubesearch-ntuple/1"),
        ("game", "2048"),
        ("bits", "4"),
        ("shapes", "0,1,2,3"),
        ("games", "1"),
        ("mean_score", "0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let view =
        safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![4], &data).unwrap();
    let wrong = safetensors::serialize([("tuple0", view)], Some(meta.clone())).unwrap();
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(&wrong, &path, None),
        "expected F32 [65536]",
    );
    // A flipped byte in the weights themselves: the checksum catches it.
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x10;
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(&flipped, &path, None),
        "the weights are corrupt: their checksum",
    );
    // A file of one table, `tuple0`, of these weights, and this metadata.
    let one_table = |weights: &[f32], meta: &std::collections::HashMap<String, String>| {
        let data: Vec<u8> = weights.iter().flat_map(|w| w.to_le_bytes()).collect();
        let view = safetensors::tensor::TensorView::new(
            safetensors::Dtype::F32,
            vec![weights.len()],
            &data,
        )
        .unwrap();
        safetensors::serialize([("tuple0", view)], Some(meta.clone())).unwrap()
    };
    // NaN or infinite weights (which `save` never writes) are refused, naming the first.
    for bad in [f32::NAN, f32::INFINITY] {
        let mut weights = vec![0.0f32; 65536];
        weights[7] = bad;
        let nan = one_table(&weights, &meta);
        expect_data_error(
            NTupleNetwork::from_bytes::<Game2048>(&nan, &path, None),
            "weight 7 of tensor 'tuple0' is",
        );
    }
    // Finite weights whose sum over the lookups (one shape in 8 symmetries) passes f32's range
    // are refused too; just inside it they load.
    let mut weights = vec![0.0f32; 65536];
    weights[7] = 3e38;
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(&one_table(&weights, &meta), &path, None),
        "the weights of stage 0 can sum to 2.4e39",
    );
    weights[7] = -4e37;
    assert!(
        NTupleNetwork::from_bytes::<Game2048>(&one_table(&weights, &meta), &path, None).is_ok()
    );
    // Temporal coherence's sums: a flipped byte in them is caught by their own checksum when a
    // run takes them (play's load leaves them unread), and a sum missing is refused.
    let mut coherent = net.replica();
    coherent.enable_coherence().expect("coherence fits");
    coherent.update_at(&[3, 70_000], 2.5);
    let with_sums = dir.path().join("sums.safetensors");
    coherent.save(&with_sums, 10, 1.0).unwrap();
    let sums_bytes = std::fs::read(&with_sums).unwrap();
    let tensors = safetensors::SafeTensors::deserialize(&sums_bytes).unwrap();
    let sizes = tensors.tensor("coherence_sizes1").unwrap();
    let at = sizes.data().as_ptr() as usize - sums_bytes.as_ptr() as usize;
    let mut flipped = sums_bytes.clone();
    flipped[at + 5] ^= 0x10;
    std::fs::write(&with_sums, &flipped).unwrap();
    assert!(NTupleNetwork::load::<Game2048>(&with_sums, None).is_ok());
    expect_data_error(
        NTupleNetwork::load_with_coherence::<Game2048>(&with_sums, None),
        "the coherence sums are corrupt: their checksum",
    );
    let name = sums_bytes
        .windows(16)
        .position(|w| w == b"coherence_sizes0")
        .unwrap();
    let mut renamed = sums_bytes.clone();
    renamed[name..name + 16].copy_from_slice(b"coherence_sizesX");
    std::fs::write(&with_sums, &renamed).unwrap();
    expect_data_error(
        NTupleNetwork::load_with_coherence::<Game2048>(&with_sums, None),
        "tensor 'coherence_sizes0' is missing",
    );
    // A file with sums says so in its format (an older version then refuses it as newer);
    // one whose format and sums disagree, or that claims sums and holds only the weights, is
    // refused.
    let format_of = |bytes: &[u8], version: &[u8]| {
        let want = [b"cubesearch-ntuple/", version].concat();
        bytes.windows(want.len()).any(|w| w == want.as_slice())
    };
    assert!(format_of(&sums_bytes, b"2") && !format_of(&sums_bytes, b"1"));
    assert!(format_of(&bytes, b"1") && !format_of(&bytes, b"2"));
    let mut claims = meta.clone();
    claims.insert("format".into(), "cubesearch-ntuple/2".into());
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(&one_table(&[0.0; 65536], &claims), &path, None),
        "format 'cubesearch-ntuple/2' lacks 'coherence_checksum'",
    );
    claims.insert("coherence_checksum".into(), "fnv1a64:0".into());
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(&one_table(&[0.0; 65536], &claims), &path, None),
        "1 tensors for 1 tuple shapes in 1 stages, with temporal coherence's two sums a table",
    );
    claims.insert("format".into(), "cubesearch-ntuple/1".into());
    expect_data_error(
        NTupleNetwork::from_bytes::<Game2048>(&one_table(&[0.0; 65536], &claims), &path, None),
        "format 'cubesearch-ntuple/1' has 'coherence_checksum'",
    );
    // A file from before the checksum (no such metadata) still loads.
    let old = one_table(&[0.0; 65536], &meta);
    assert!(NTupleNetwork::from_bytes::<Game2048>(&old, &path, None).is_ok());
    // A missing file is an I/O error, not a panic.
    assert!(matches!(
        NTupleNetwork::load::<Game2048>(&dir.path().join("missing"), None),
        Err(Error::Io { .. })
    ));
    // The good file still loads.
    assert!(NTupleNetwork::load::<Game2048>(&path, None).is_ok());
}

#[rstest]
#[case::not_a_number("0,1,x")]
#[case::off_the_board("0,1,16")]
#[case::cell_twice("0,0,1")]
#[case::empty("")]
#[case::empty_shape("0,1;")]
#[case::table_too_big("0,1,2,3,4,5,6")] // 7 cells × 5 bits = 2^35 weights
fn bad_shapes_are_refused(#[case] text: &str) {
    assert!(parse_shapes(text)
        .and_then(|s| NTupleNetwork::for_game::<Game2584>(&s))
        .is_err());
}

/// Mean scores: random play, and greedy play after TD training, same seeds.
fn learning_beats_random<R: TileRule + GpuTiles>(games: u64, threads: usize) -> (f64, f64, f64) {
    let game = Sliding::<R>::new();
    let random = play_random(&game, 300, 99, 1).unwrap().mean_score;
    let cfg = TrainConfig {
        engine: EngineConfig {
            threads: Some(threads),
            ..EngineConfig::default()
        },
        games,
        seed: 7,
        ..TrainConfig::default()
    };
    let (net, report) = train(Td(&game), &cfg, |_| {}).unwrap();
    assert_eq!(report.games, games);
    let untrained = play(
        &game,
        &NTupleNetwork::for_game::<Sliding<R>>(&seed_shapes()).unwrap(),
        300,
        99,
        1,
    )
    .unwrap()
    .mean_score;
    let trained = play(&game, &net, 300, 99, 2).unwrap().mean_score;
    (random, untrained, trained)
}

#[test]
fn td_training_beats_random_play_on_2048() {
    let (random, untrained, trained) = learning_beats_random::<Pow2>(400, 1);
    eprintln!("2048: random {random:.0}, greedy untrained {untrained:.0}, trained {trained:.0}");
    assert!(trained > 1.5 * random, "random {random}, trained {trained}");
    assert!(
        trained > 1.2 * untrained,
        "untrained {untrained}, trained {trained}"
    );
}

#[test]
fn td_training_beats_random_play_on_2584_with_two_threads() {
    let (random, untrained, trained) = learning_beats_random::<Fib>(400, 2);
    eprintln!("2584: random {random:.0}, greedy untrained {untrained:.0}, trained {trained:.0}");
    assert!(trained > 1.5 * random, "random {random}, trained {trained}");
}

/// `auto` (the default) gives threads copies of a small network and one table of a large one,
/// whose merges would cost more than its games; `copies` stays copies until the copies
/// outgrow their limit, and `table` is always the table.
#[test]
fn auto_sharing_copies_small_networks_and_shares_large_ones() {
    use cubesearch_learn::runner::{AUTO_COPY_BYTES, MAX_COPY_BYTES};
    assert_eq!(Sharing::default(), Sharing::Auto);
    assert_eq!("auto".parse::<Sharing>().unwrap(), Sharing::Auto);
    let seed_2584 = 3 << 22; // three tables of 2^20 weights, 12 MB
    let six_tuples = 4 << 26; // 2048's 4x6patt, 256 MB
    assert_eq!(Sharing::Auto.resolve(2, seed_2584), Sharing::Copies);
    assert_eq!(Sharing::Auto.resolve(2, AUTO_COPY_BYTES), Sharing::Copies);
    assert_eq!(
        Sharing::Auto.resolve(2, AUTO_COPY_BYTES + 4),
        Sharing::Table
    );
    assert_eq!(Sharing::Auto.resolve(2, six_tuples), Sharing::Table);
    assert_eq!(Sharing::Copies.resolve(2, six_tuples), Sharing::Copies);
    assert!(16 * six_tuples > MAX_COPY_BYTES);
    assert_eq!(Sharing::Copies.resolve(16, six_tuples), Sharing::Table);
    assert_eq!(Sharing::Auto.resolve(1024, seed_2584), Sharing::Table);
    assert_eq!(Sharing::Table.resolve(2, seed_2584), Sharing::Table);
}

#[test]
fn td_training_on_copies_and_on_one_table_both_learn() {
    for sharing in [Sharing::Copies, Sharing::Table] {
        let game = Game2048::new();
        let random = play_random(&game, 300, 99, 1).unwrap().mean_score;
        let cfg = TrainConfig {
            engine: EngineConfig {
                threads: Some(3),
                sharing,
                ..EngineConfig::default()
            },
            games: 600,
            seed: 7,
            ..TrainConfig::default()
        };
        let (net, report) = train(Td(&game), &cfg, |_| {}).unwrap();
        assert_eq!(report.games, 600);
        let trained = play(&game, &net, 300, 99, 2).unwrap().mean_score;
        assert!(
            trained > 1.5 * random,
            "{sharing:?}: random {random}, trained {trained}"
        );
    }
}

/// Threads learning on copies replay a run exactly, over several rounds of merges.
#[test]
fn training_on_copies_is_reproducible() {
    let game = Game2048::new();
    // Enough games for at least two rounds of `ROUND_MOVES` on each of 3 threads (checked
    // below).
    let cfg = TrainConfig {
        engine: EngineConfig {
            threads: Some(3),
            ..EngineConfig::default()
        },
        games: 12_000,
        seed: 3,
        ..TrainConfig::default()
    };
    let (a, report_a) = train(Td(&game), &cfg, |_| {}).unwrap();
    let (b, report_b) = train(Td(&game), &cfg, |_| {}).unwrap();
    assert_eq!(report_a.mean_score, report_b.mean_score);
    assert!(
        report_a.moves > 3 * 2 * ROUND_MOVES,
        "{} moves",
        report_a.moves
    );
    for t in 0..a.shapes().len() {
        let (ta, tb) = (a.table(t), b.table(t));
        assert!(ta.iter().any(|&w| w != 0.0));
        assert!(
            ta.iter().zip(&tb).all(|(x, y)| x.to_bits() == y.to_bits()),
            "table {t}"
        );
    }
}

/// A merge moves each weight by the mean change of the copies that changed it, and gives
/// every copy the result.
#[test]
fn merging_copies_averages_their_changes() {
    let base = NTupleNetwork::for_game::<Game2048>(&[vec![0]]).unwrap();
    base.update_at(&[3], 1.0);
    let (x, y, z) = (base.replica(), base.replica(), base.replica());
    assert_ne!(x.id(), base.id());
    x.update_at(&[3], 0.5);
    x.update_at(&[5], 2.0);
    y.update_at(&[3], -0.25);
    base.merge_copies(&[&x, &y, &z], &[0, 1, 2], 0..base.weight_count());
    let mut want = vec![0.0; 16];
    want[3] = 1.0 + (0.5 - 0.25) / 2.0;
    want[5] = 2.0;
    for net in [&base, &x, &y, &z] {
        assert_eq!(net.table(0), want);
    }
    // Weights outside the range are left alone.
    x.update_at(&[0], 1.0);
    base.merge_copies(&[&x, &y, &z], &[0, 1, 2], 1..base.weight_count());
    // Copies not named as learners are not read, but they are given the result.
    y.update_at(&[7], 4.0);
    base.merge_copies(&[&x, &y, &z], &[0, 2], 7..8);
    assert_eq!([&base, &x, &y, &z].map(|n| n.table(0)[7]), [0.0; 4]);
    assert_eq!((base.table(0)[0], x.table(0)[0]), (0.0, 1.0));
}

/// Temporal coherence by hand: one weight asked +1, −1, +1, +1 in turn moves by 1 (rate 1
/// before any change), then −1 · |1|/1, then +1 · |0|/2, then +1 · |1|/3; two lookups sharing
/// a weight take their changes one after the other, the second at the rate the first left.
#[test]
fn temporal_coherence_scales_each_change_by_the_weights_own_rate() {
    assert_eq!(
        [(0.0, 0.0), (-3.0, 6.0), (2.0, 2.0)].map(|(e, a)| coherence_rate(e, a)),
        [1.0, 0.5, 1.0]
    );
    // Sums that threads sharing a table without locks left apart (one's sum beside another's
    // size) never make a change larger than asked.
    assert_eq!(
        [(5.0, 1.0), (-4.0, 2.0)].map(|(e, a)| coherence_rate(e, a)),
        [1.0; 2]
    );
    let mut net = NTupleNetwork::for_game::<Game2048>(&[vec![0]]).unwrap();
    net.enable_coherence().expect("coherence fits");
    assert!(net.coherent());
    let mut seen = Vec::new();
    for delta in [1.0, -1.0, 1.0, 1.0] {
        net.update_at(&[5], delta);
        seen.push(net.table(0)[5]);
    }
    assert_eq!(seen, [1.0, 0.0, 0.0, 1.0 / 3.0]);
    // −2 at rate 1 (E −2, A 2), then +2 twice: rate 1 (E 0, A 4), then rate 0.
    net.update_at(&[7], -2.0);
    net.update_at(&[7, 7], 2.0);
    assert_eq!(net.table(0)[7], 0.0);
    // Without coherence the same changes add up.
    let plain = NTupleNetwork::for_game::<Game2048>(&[vec![0]]).unwrap();
    plain.update_at(&[7], -2.0);
    plain.update_at(&[7, 7], 2.0);
    assert_eq!(plain.table(0)[7], 2.0);
}

/// Copies with temporal coherence merge their weights by the mean change, and each weight's
/// sums by the sum of what every copy added: a change after the merge moves at the rate of all
/// the changes the copies asked.
#[test]
fn merging_coherent_copies_adds_up_their_sums() {
    let mut base = NTupleNetwork::for_game::<Game2048>(&[vec![0]]).unwrap();
    base.enable_coherence().expect("coherence fits");
    let (x, y) = (base.replica(), base.replica());
    assert!(x.coherent());
    x.update_at(&[3], 1.0);
    y.update_at(&[3], -3.0);
    base.merge_copies(&[&x, &y], &[0, 1], 0..base.weight_count());
    // Weight −1 (the mean change); E = 1 − 3 = −2, A = 1 + 3 = 4: the next change at 1/2.
    for net in [&base, &x, &y] {
        assert_eq!(net.table(0)[3], -1.0);
        net.update_at(&[3], 1.0);
        assert_eq!(net.table(0)[3], -0.5);
    }
}

/// A run with temporal coherence keeps its sums in its file, and a run resumed from it goes on
/// at each weight's own rate: 30 games and 30 more learn bit for bit what 60 games in one run
/// do, where sums started afresh learn otherwise. Play reads the weights alone, and a run
/// without coherence saves no sums.
#[test]
fn a_coherent_run_resumed_from_its_file_learns_as_the_unbroken_run() {
    let dir = temp();
    let file = |name: &str| dir.path().join(name);
    let game = Game2048::new();
    let cfg = TrainConfig {
        engine: EngineConfig {
            threads: Some(1),
            ..EngineConfig::default()
        },
        games: 60,
        seed: 5,
        alpha: Some(1.0),
        coherence: true,
        order: Some(TdOrder::Forward),
        shapes: Some(seed_shapes()),
        ..TrainConfig::default()
    };
    // Every process of a run starts from `starting_network` (ranks that follow rank 0 too):
    // it learns with coherence from the first game.
    assert!(starting_network::<Game2048>(&cfg, &[])
        .unwrap()
        .0
        .coherent());
    let (unbroken, _) = train(Td(&game), &cfg, |_| {}).unwrap();
    let half = TrainConfig {
        games: 30,
        out: Some(file("a")),
        ..cfg.clone()
    };
    train(Td(&game), &half, |_| {}).unwrap();
    let resumed = TrainConfig {
        resume: Some(file("a")),
        out: Some(file("b")),
        ..half.clone()
    };
    let (went_on, report) = train(Td(&game), &resumed, |_| {}).unwrap();
    assert_eq!(report.total_games, 60);
    let bits = |values: Vec<f32>| values.iter().map(|w| w.to_bits()).collect::<Vec<_>>();
    let sums = |net: &NTupleNetwork, t| net.coherence_table(t).unwrap().map(bits);
    for t in 0..unbroken.tables() {
        assert!(
            bits(went_on.table(t)) == bits(unbroken.table(t)),
            "table {t}"
        );
        assert!(sums(&went_on, t) == sums(&unbroken, t), "table {t}'s sums");
        assert!(sums(&unbroken, t)[1].iter().any(|&a| a != 0), "table {t}");
    }
    let (back, meta) = NTupleNetwork::load_with_coherence::<Game2048>(&file("b"), None).unwrap();
    assert!(meta.coherence);
    assert!(sums(&back, 2) == sums(&unbroken, 2));

    // Play's load leaves the sums; saved so, the file has none, and a run resumed from it
    // with coherence starts every weight at rate 1 and learns otherwise.
    let (plain, meta) = NTupleNetwork::load::<Game2048>(&file("a"), None).unwrap();
    assert!(meta.coherence && !plain.coherent());
    plain.save(&file("bare"), 30, 0.0).unwrap();
    let (bare, meta) = NTupleNetwork::load_with_coherence::<Game2048>(&file("bare"), None).unwrap();
    assert!(!meta.coherence && bare.coherent());
    assert!(bare
        .coherence_table(0)
        .unwrap()
        .iter()
        .flatten()
        .all(|&s| s == 0.0));
    let afresh = TrainConfig {
        resume: Some(file("bare")),
        out: None,
        ..resumed.clone()
    };
    let (afresh, _) = train(Td(&game), &afresh, |_| {}).unwrap();
    assert!(bits(afresh.table(0)) != bits(unbroken.table(0)));

    // A run without coherence moves the weights without the sums, so it saves none.
    let fixed = TrainConfig {
        coherence: false,
        alpha: Some(0.1),
        games: 5,
        resume: Some(file("b")),
        out: Some(file("c")),
        ..cfg
    };
    let (net, _) = train(Td(&game), &fixed, |_| {}).unwrap();
    assert!(!net.coherent());
    let meta = NTupleNetwork::load_with_coherence::<Game2048>(&file("c"), None)
        .unwrap()
        .1;
    assert!(!meta.coherence);
}

/// The CPU trainer learns with temporal coherence (Guei et al.'s OTC: alpha 1.0), on one
/// thread and on copies, reproducibly, and not as fixed-rate TD does.
#[test]
fn td_training_with_temporal_coherence_learns() {
    let game = Game2048::new();
    let random = play_random(&game, 300, 99, 1).unwrap().mean_score;
    for threads in [1, 3] {
        let cfg = TrainConfig {
            engine: EngineConfig {
                threads: Some(threads),
                ..EngineConfig::default()
            },
            games: 600,
            seed: 7,
            alpha: Some(1.0),
            coherence: true,
            ..TrainConfig::default()
        };
        let (net, _) = train(Td(&game), &cfg, |_| {}).unwrap();
        let (again, _) = train(Td(&game), &cfg, |_| {}).unwrap();
        assert_eq!(net.table(0), again.table(0), "{threads} threads");
        let fixed = TrainConfig {
            coherence: false,
            ..cfg
        };
        let (plain, _) = train(Td(&game), &fixed, |_| {}).unwrap();
        assert_ne!(net.table(0), plain.table(0), "{threads} threads");
        let trained = play(&game, &net, 300, 99, 2).unwrap().mean_score;
        assert!(
            trained > 1.5 * random,
            "{threads} threads: random {random}, trained {trained}"
        );
    }
}

#[test]
fn one_thread_training_is_reproducible() {
    let game = Game2048::new();
    let cfg = TrainConfig {
        games: 30,
        seed: 3,
        ..TrainConfig::default()
    };
    let (a, ra) = train(Td(&game), &cfg, |_| {}).unwrap();
    let (b, rb) = train(Td(&game), &cfg, |_| {}).unwrap();
    assert_eq!(ra.curve, rb.curve);
    assert_eq!(a.table(0), b.table(0));
    let (_, rc) = train(Td(&game), &TrainConfig { seed: 4, ..cfg }, |_| {}).unwrap();
    assert_ne!(ra.curve, rc.curve);
}

#[test]
fn checkpoints_and_resume() {
    let dir = temp();
    let out = dir.path().join("w.safetensors");
    let game = Game2584::new();
    let mut reports = Vec::new();
    let cfg = TrainConfig {
        games: 20,
        checkpoint_every: 10,
        curve_every: 5,
        out: Some(out.clone()),
        progress_interval: std::time::Duration::ZERO,
        ..TrainConfig::default()
    };
    let (net, report) = train(Td(&game), &cfg, |p| reports.push(p.clone())).unwrap();
    assert_eq!(reports.len(), 20, "a report a game with a zero interval");
    assert_eq!(reports.last().unwrap().games, 20);
    assert!(reports.iter().all(|p| p.moves_per_sec > 0.0));
    assert_eq!(report.curve.len(), 4);
    assert_eq!(report.curve[3].games, 20);
    assert!(curve_csv(&report.curve).starts_with("games,mean_score,max_score\n5,"));
    let (saved, meta) = NTupleNetwork::load::<Game2584>(&out, None).unwrap();
    assert_eq!(meta.games, 20);
    assert_eq!(saved.table(2), net.table(2));

    // Resume: the count goes on and the weights start from the file.
    let resumed = TrainConfig {
        games: 5,
        resume: Some(out.clone()),
        ..cfg.clone()
    };
    let (_, report) = train(Td(&game), &resumed, |_| {}).unwrap();
    assert_eq!(report.total_games, 25);
    assert_eq!(
        NTupleNetwork::load::<Game2584>(&out, None).unwrap().1.games,
        25
    );

    // Resuming with other shapes, or into the other game, is refused.
    let wrong = TrainConfig {
        shapes: Some(parse_shapes("0,1,2,3").unwrap()),
        ..resumed.clone()
    };
    assert!(matches!(
        train(Td(&game), &wrong, |_| {}),
        Err(Error::Data { .. })
    ));
    assert!(matches!(
        train(Td(&Game2048::new()), &resumed, |_| {}),
        Err(Error::Data { .. })
    ));
    // A checkpoint that cannot be written stops training with an error.
    let unwritable = TrainConfig {
        out: Some(dir.path().join("no/such/dir/w.safetensors")),
        resume: None,
        ..cfg
    };
    assert!(matches!(
        train(Td(&game), &unwritable, |_| {}),
        Err(Error::Io { .. })
    ));
}

#[test]
fn an_optimistic_start_values_every_board_at_v_and_learning_moves_it() {
    let game = Game2048::new();
    let cfg = TrainConfig {
        games: 20,
        shapes: Some(seed_shapes()),
        optimistic: Some(320_000.0),
        ..TrainConfig::default()
    };
    let (net, games) = starting_network::<Game2048>(&cfg, &[]).unwrap();
    assert_eq!(games, 0);
    // 24 lookups: each weight is V / 24, and any board sums back to V.
    let per_weight = 320_000.0 / net.lookups() as f32;
    for t in 0..net.shapes().len() {
        assert!(net.table(t).iter().all(|&w| w == per_weight));
    }
    let mut rng = XorShift32::for_worker(9, 0);
    for _ in 0..100 {
        let v = net.value(&game, random_board::<Pow2>(&mut rng));
        assert!((v - 320_000.0).abs() < 1.0, "V = {v}");
    }

    // Training moves the weights the games reached and leaves the others where they started.
    let (trained, _) = train(Td(&game), &cfg, |_| {}).unwrap();
    let table = trained.table(0);
    assert!(table.iter().any(|&w| w != per_weight));
    assert!(table.contains(&per_weight));

    // It is a start for a new network only, and a number.
    let dir = temp();
    let out = dir.path().join("w.safetensors");
    train(
        Td(&game),
        &TrainConfig {
            out: Some(out.clone()),
            optimistic: None,
            ..cfg.clone()
        },
        |_| {},
    )
    .unwrap();
    let resumed = TrainConfig {
        resume: Some(out),
        ..cfg.clone()
    };
    assert!(matches!(
        train(Td(&game), &resumed, |_| {}),
        Err(Error::Parse(_))
    ));
    let nan = TrainConfig {
        optimistic: Some(f32::NAN),
        ..cfg
    };
    assert!(matches!(
        train(Td(&game), &nan, |_| {}),
        Err(Error::Parse(_))
    ));
}

#[test]
fn play_reports_tile_shares_and_the_executor_trait_trains() {
    let game = Game2048::new();
    let mut net = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let scores = CpuEngine::new(2)
        .learn_games(&game, &mut net, 20, 0.1, 5)
        .unwrap();
    assert_eq!(scores.len(), 20);
    assert!(net.table(0).iter().any(|&w| w != 0.0));
    let stats = play(&game, &net, 50, 1, 2).unwrap();
    assert_eq!(stats.games, 50);
    assert_eq!(
        play(&game, &net, 50, 1, 1).unwrap().mean_score,
        stats.mean_score
    );
    assert!(stats.max_score as f64 >= stats.mean_score);
    assert_eq!(stats.reach.len(), Pow2::MILESTONES.len());
    assert!(stats.reach.windows(2).all(|w| w[0].share >= w[1].share));
    // A network for the other game is refused.
    let fib = NTupleNetwork::for_game::<Game2584>(&seed_shapes()).unwrap();
    assert!(play(&game, &fib, 1, 1, 1).is_err());
}
