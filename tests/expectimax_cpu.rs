//! The CPU expectimax against hand-worked values, the greedy player, an independent
//! one-layer reference, and itself (tree-parallel, transposition table, batching).

use cubesearch_core::rng::XorShift32;
use cubesearch_core::StochasticGame;
use cubesearch_games::fib::seed_shapes;
use cubesearch_games::fib::{BoardOf, Dir, Sliding, TileRule};
use cubesearch_games::{Fib, Game2048, Game2584, Pow2};
use cubesearch_learn::td::greedy;
use cubesearch_learn::NTupleNetwork;
use cubesearch_search::expectimax::{
    play_games, search, search_many, ExpectimaxOptions, PlayOptions,
};
use cubesearch_search::expectimax_gpu::Expectimax;
use cubesearch_search::{CpuExecutor, Executor};
use cubesearch_train::{CpuEngine, TdEngine};

/// A network trained for a few hundred games: small, but with weights of every sign.
fn trained<R: TileRule>(games: u32) -> NTupleNetwork {
    let mut net = NTupleNetwork::for_game::<Sliding<R>>(&seed_shapes()).unwrap();
    CpuEngine::new(1)
        .learn_games(&Sliding::<R>::new(), &mut net, games, 0.1, 11)
        .unwrap();
    net
}

/// Positions met in random games (early, middle and dead-end boards).
fn boards<R: TileRule>(n: usize, seed: u32) -> Vec<BoardOf<R>> {
    let game = Sliding::<R>::new();
    let mut rng = XorShift32::for_worker(seed, 0);
    let mut out = Vec::new();
    let mut s = game.initial(&mut rng);
    let mut legal = Vec::new();
    while out.len() < n {
        legal.clear();
        game.legal_actions(&s, &mut legal);
        if legal.is_empty() || rng.below(4) == 0 {
            out.push(s);
        }
        if legal.is_empty() {
            s = game.initial(&mut rng);
            continue;
        }
        let (_, after, _) = legal[rng.below(legal.len() as u32) as usize];
        s = game.sample_chance(&after, &mut rng);
    }
    out
}

fn parse<R: TileRule>(text: &str) -> BoardOf<R> {
    Sliding::<R>::new().parse_position(text).unwrap()
}

const LEFT: u32 = 0;

#[test]
fn zero_layers_is_the_greedy_afterstate_choice() {
    let game = Sliding::<Fib>::new();
    let net = trained::<Fib>(300);
    for b in boards::<Fib>(300, 3) {
        let r = search(&game, &net, &b, 0, ExpectimaxOptions::default());
        match greedy(&game, &net, b) {
            None => assert_eq!((r.best, r.value), (None, 0.0), "{b:?}"),
            Some((dir, after, reward)) => {
                let want = Dir::ALL.iter().position(|&d| d == dir).unwrap() as u32;
                assert_eq!(r.best, Some(want), "{b:?}");
                assert_eq!(r.value, reward as f32 + net.value(&Game2584::new(), after));
            }
        }
    }
}

/// V ≡ 0 makes the value the expected reward. 2584, one layer, `1 1 . .` on the top row:
/// left (and right) earn 2 and leave a 2 in a corner; a spawn on one of the 6 cells in line
/// with it (of 15 empty) can merge next turn: 1 (p 0.75) into 3, 3 (p 0.25) into 5. So left is
/// 2 + 6/15 · (0.75·3 + 0.25·5) = 3.4. Down earns 0 and leaves `1 1` that always merges for
/// 2 (no spawn allows more): 2. Up changes nothing.
#[test]
fn a_hand_worked_2584_board() {
    let game = Sliding::<Fib>::new();
    let zero = NTupleNetwork::for_game::<Game2584>(&seed_shapes()).unwrap();
    let b = parse::<Fib>("1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0");
    let r = search(&game, &zero, &b, 1, ExpectimaxOptions::default());
    let close = |a: Option<f32>, b: f32| (a.unwrap() - b).abs() < 1e-5;
    assert!(close(r.actions[0], 3.4), "{:?}", r.actions);
    assert!(close(r.actions[1], 3.4), "{:?}", r.actions);
    assert_eq!(r.actions[2], None);
    assert!(close(r.actions[3], 2.0), "{:?}", r.actions);
    assert_eq!(r.best, Some(LEFT));
    // Zero layers: only the immediate rewards.
    let r0 = search(&game, &zero, &b, 0, ExpectimaxOptions::default());
    assert_eq!(r0.actions, vec![Some(2.0), Some(2.0), None, Some(0.0)]);
}

/// The same for 2048 through the same pipeline: `2 2 . .` → left earns 4 and leaves a 4 that a
/// spawned 4 (p 0.1) in line (6 of 15 cells) merges for 8: 4 + 6/15 · 0.1 · 8 = 4.32. Down
/// earns 0 then 4.
#[test]
fn a_hand_worked_2048_board() {
    let game = Sliding::<Pow2>::new();
    let zero = NTupleNetwork::for_game::<Game2048>(&seed_shapes()).unwrap();
    let b = parse::<Pow2>("2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0");
    let r = search(&game, &zero, &b, 1, ExpectimaxOptions::default());
    let got: Vec<f32> = r.actions.iter().map(|v| v.unwrap_or(-1.0)).collect();
    for (g, w) in got.iter().zip([4.32, 4.32, -1.0, 4.0]) {
        assert!((g - w).abs() < 1e-5, "{got:?}");
    }
    assert_eq!(r.best, Some(LEFT));
}

/// One layer written out from the rules (slides, empty cells, spawn weights), independent of
/// `chance_outcomes`; a dead position is worth 0.
fn one_layer_reference<R: TileRule>(net: &NTupleNetwork, b: BoardOf<R>) -> Vec<Option<f64>> {
    let game = Sliding::<R>::new();
    let best_greedy = |s: BoardOf<R>| -> f64 {
        Dir::ALL
            .iter()
            .filter_map(|&d| {
                let (after, reward) = game.slide(s, d);
                (after != s).then(|| reward as f64 + net.value(&game, after) as f64)
            })
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
            .unwrap_or(0.0)
    };
    Dir::ALL
        .iter()
        .map(|&d| {
            let (after, reward) = game.slide(b, d);
            if after == b {
                return None;
            }
            let empty: Vec<usize> = (0..16).filter(|&i| after.cell(i, R::BITS) == 0).collect();
            let mut mean = 0.0;
            for &i in &empty {
                for &(k, w) in R::SPAWNS {
                    let p = w as f64 / R::SPAWN_TOTAL as f64 / empty.len() as f64;
                    mean += p * best_greedy(after.with_cell(i, k, R::BITS));
                }
            }
            Some(reward as f64 + mean)
        })
        .collect()
}

fn one_layer_matches<R: TileRule>() {
    let game = Sliding::<R>::new();
    let net = trained::<R>(200);
    for b in boards::<R>(60, 5) {
        let r = search(&game, &net, &b, 1, ExpectimaxOptions::default());
        let want = one_layer_reference::<R>(&net, b);
        for (got, want) in r.actions.iter().zip(&want) {
            match (got, want) {
                (Some(g), Some(w)) => assert!(
                    (*g as f64 - w).abs() <= 1e-4 * w.abs().max(1.0),
                    "{b:?}: {got:?} vs {want:?}"
                ),
                (None, None) => {}
                _ => panic!("{b:?}: legality differs: {:?} vs {want:?}", r.actions),
            }
        }
    }
}

#[test]
fn one_layer_equals_a_reference_written_from_the_rules_2584() {
    one_layer_matches::<Fib>();
}

#[test]
fn one_layer_equals_a_reference_written_from_the_rules_2048() {
    one_layer_matches::<Pow2>();
}

#[test]
fn tree_parallel_and_transposition_table_equal_the_sequential_search_exactly() {
    let game = Sliding::<Fib>::new();
    let net = trained::<Fib>(200);
    let roots = boards::<Fib>(6, 9);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    for layers in [1, 2] {
        let seq: Vec<_> = roots
            .iter()
            .map(|r| search(&game, &net, r, layers, ExpectimaxOptions::default()))
            .collect();
        let tt: Vec<_> = roots
            .iter()
            .map(|r| {
                search(
                    &game,
                    &net,
                    r,
                    layers,
                    ExpectimaxOptions {
                        transposition: true,
                        ..Default::default()
                    },
                )
            })
            .collect();
        assert_eq!(seq, tt, "transposition table, {layers} layers");
        for split in [None, Some(0), Some(1), Some(2), Some(2 * layers)] {
            for transposition in [false, true] {
                let opts = ExpectimaxOptions {
                    transposition,
                    split_ply: split,
                    ..Default::default()
                };
                // One root at a time (deep splits) and the whole batch.
                for chunk in [1, roots.len()] {
                    let par: Vec<_> = roots
                        .chunks(chunk)
                        .flat_map(|c| {
                            pool.install(|| search_many(&game, &net, c, layers, opts.clone()))
                        })
                        .collect();
                    assert_eq!(seq, par, "{layers} layers, {opts:?}, batches of {chunk}");
                }
            }
        }
    }
}

#[test]
fn zero_layer_self_play_is_the_greedy_players_and_batching_changes_nothing() {
    let game = Sliding::<Fib>::new();
    let net = trained::<Fib>(200);
    let mut exec = CpuExecutor::new(2).unwrap();
    let options = PlayOptions {
        layers: 0,
        games: 12,
        batch: 5,
        seed: 21,
        keep_history: false,
    };
    let records = play_games(&mut exec, &game, &net, options, |_, _| {}).unwrap();
    let stats = cubesearch_learn::play(&game, &net, 12, 21, 1).unwrap();
    let scores: Vec<u64> = records.iter().map(|r| r.score).collect();
    assert_eq!(scores.iter().max().copied(), Some(stats.max_score));
    let mean = scores.iter().sum::<u64>() as f64 / 12.0;
    assert_eq!(mean, stats.mean_score);
    let one_at_a_time = PlayOptions {
        batch: 1,
        keep_history: true,
        ..options
    };
    let one = play_games(&mut exec, &game, &net, one_at_a_time, |_, _| {}).unwrap();
    assert_eq!(
        records
            .iter()
            .map(|r| (r.score, r.last))
            .collect::<Vec<_>>(),
        one.iter().map(|r| (r.score, r.last)).collect::<Vec<_>>()
    );
    for r in &one {
        assert_eq!(r.history.len(), r.moves as usize);
        assert!(game.is_over(&r.last));
    }
}

#[test]
fn one_layer_plays_better_than_zero_on_average() {
    // Not a speed claim: a search that looks ahead must not lose points on the same games.
    let game = Sliding::<Pow2>::new();
    let net = trained::<Pow2>(300);
    let mut exec = CpuExecutor::new(2).unwrap();
    let mut mean = |layers| {
        let options = PlayOptions {
            layers,
            games: 16,
            batch: 16,
            seed: 4,
            keep_history: false,
        };
        let r = play_games(&mut exec, &game, &net, options, |_, _| {}).unwrap();
        r.iter().map(|r| r.score).sum::<u64>() as f64 / r.len() as f64
    };
    let (zero, one) = (mean(0), mean(1));
    assert!(one > zero, "1 layer {one} vs 0 layers {zero}");
}

/// A raised stop cuts the CPU search short: the searcher answers `Interrupted` instead of
/// values that mean nothing, and searches again once the stop is fresh.
#[test]
fn a_raised_stop_interrupts_the_cpu_search() {
    use cubesearch_core::{Error, ExpectimaxEval, Stop};
    let game = Sliding::<Fib>::new();
    let net = trained::<Fib>(20);
    let root = game.initial(&mut XorShift32::for_worker(3, 0));
    let mut searcher = Expectimax::new(Executor::Cpu(CpuExecutor::new(2).unwrap()));
    let stop = Stop::new();
    stop.request(1);
    searcher.set_options(ExpectimaxOptions {
        stop,
        ..Default::default()
    });
    let cut = searcher.evaluate(&game, &net, &[root], 2);
    assert!(matches!(cut, Err(Error::Interrupted(_))), "{cut:?}");
    searcher.set_options(ExpectimaxOptions::default());
    let found = searcher.evaluate(&game, &net, &[root], 2).unwrap();
    let alone = search(&game, &net, &root, 2, ExpectimaxOptions::default());
    assert_eq!(found, vec![alone]);
}
