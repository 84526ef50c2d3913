//! cubesearch: game-tree search on GPUs.
//!
//! Search kernels are written once in CubeCL and run on CUDA and on wgpu (any Vulkan, Metal or
//! DX12 GPU, and Mesa's lavapipe on machines without one). This facade re-exports the pieces a
//! user needs: the game traits, backends and executors, the games, and the search pipelines.
//!
//! ```
//! use cubesearch::{Backend, Executor, Game, Playouts};
//! use cubesearch::games::Nim;
//!
//! let (mut exec, device) = Executor::new(Backend::Auto)?;
//! let root = Nim.parse_position("1,3,5,7")?;
//! let counts = exec.playouts(&Nim, &[root], 100_000, 42)?;
//! println!("{device}: {} wins of {}", counts[0].wins, counts[0].games);
//! # Ok::<(), cubesearch::Error>(())
//! ```
//!
//! At the root: the game traits ([`Game`], [`StochasticGame`], their device twins [`DeviceGame`]
//! and [`DeviceStochasticGame`] tied to them by [`GpuGame`] and [`GpuStochasticGame`], and
//! [`TupleBoard`]/[`TupleGame`] for n-tuple networks), the backends and executors, the kinds of
//! device work an executor runs ([`Playouts`], [`Perft`], [`SubtreeSearch`], [`ExpectimaxEval`])
//! with their results, [`NTupleNetwork`], [`Error`] and [`Stop`]. The modules:
//!
//! | module | what |
//! |---|---|
//! | [`games`] | the built-in games |
//! | [`mcts`], [`minimax`], [`perft`], [`expectimax`] | the search pipelines |
//! | [`players`] | players of two-player games, the specs that name them, games and matches |
//! | [`learn`], [`train`] | n-tuple networks' shapes, play and self-play; training runs |
//! | [`device`], [`cubecl`] | what a game's `#[cube]` twin needs |
//! | [`backend`], [`rng`] | backend resolution; the host RNG the kernels match |
//! | `testing` | with the feature `testing` (a game author's dev-dependency): device-against-host checks |

#![deny(missing_docs)]

/// CubeCL, as `#[cube]` code needs it: its macros write paths that start `cubecl::`, so a game
/// author's module brings the name into scope (`use cubesearch::cubecl::{self, prelude::*};`)
/// and needs no dependency of its own on it.
pub use cubecl;
pub use cubesearch_core::{
    AfterstateValue, Backend, Error, ExpectimaxEval, Game, Outcome, Perft, Playouts, Result,
    RootValue, StochasticGame, Stop, SubtreeSearch, WinDrawCounts,
};
pub use cubesearch_kernels::{DeviceGame, DeviceStochasticGame, GpuGame, GpuStochasticGame};
pub use cubesearch_learn::{NTupleNetwork, TupleBoard, TupleGame};
pub use cubesearch_search::{CpuExecutor, DeviceTask, Executor, GpuExecutor};

/// Backends: what [`Backend::Auto`] resolves to, and which backends this build and machine
/// offer.
pub mod backend {
    pub use cubesearch_core::backend::{info, resolve, BackendInfo, ResolvedBackend};
}

/// The host RNG: one xorshift32 stream a worker, as the kernels draw them.
pub mod rng {
    pub use cubesearch_core::rng::XorShift32;
}

/// What a game's `#[cube]` twin uses besides its traits: the outcome codes of
/// [`DeviceGame::outcome`], the result of [`DeviceStochasticGame::act`], the device RNG, and the
/// device half of a two-player game that learns by self-play.
pub mod device {
    pub use cubesearch_kernels::device_game::{DRAW, LOSS, ONGOING, WIN};
    pub use cubesearch_kernels::rng;
    pub use cubesearch_kernels::selfplay::DeviceTupleGame;
    pub use cubesearch_kernels::stochastic::Acted;
}

/// MCTS on a game:
///
/// ```
/// use cubesearch::games::Nim;
/// use cubesearch::mcts::{Budget, Mcts, MctsConfig};
/// use cubesearch::{Backend, Executor, Game};
///
/// let (mut exec, device) = Executor::new(Backend::Auto)?; // wgpu, else the CPU
/// let root = Nim.parse_position("1,3,5")?;
/// let config = MctsConfig { budget: Budget::Playouts(2_000), seed: 1, ..MctsConfig::default() };
/// let mut search = Mcts::new(root, config);
/// let (best, stats) = search.search(&mut exec, &Nim)?;
/// assert!(best.is_some() && stats.playouts >= 2_000);
/// println!("{device}: {}", Nim.format_move(&root, best.unwrap()));
/// # Ok::<(), cubesearch::Error>(())
/// ```
pub mod mcts {
    pub use cubesearch_search::mcts::{
        flat_monte_carlo, flat_scores, Budget, Mcts, MctsConfig, SearchStats,
    };
}

/// Minimax on a game (Nim: +1 win, −1 loss, 0 unknown at the depth cut-off; Reversi: its
/// evaluation, finished games scaled above it):
///
/// ```
/// use cubesearch::games::Nim;
/// use cubesearch::minimax::{self, Strategy};
/// use cubesearch::{Backend, Executor, Game};
///
/// let (mut exec, _) = Executor::new(Backend::Auto)?;
/// let root = Nim.parse_position("1,2,4")?; // nim-sum 7: the side to move wins
/// let solved = minimax::solve(&mut exec, &Nim, &root, 7, Strategy::Split)?;
/// assert_eq!(solved.solution.value, 1);
/// let cpu = minimax::solve(&mut exec, &Nim, &root, 7, "cpu".parse()?)?;
/// assert_eq!(cpu.solution.value, solved.solution.value);
/// assert!("fast".parse::<Strategy>().is_err()); // unknown strategy 'fast': cpu, cpu-split, …
/// # Ok::<(), cubesearch::Error>(())
/// ```
pub mod minimax {
    pub use cubesearch_search::minimax::{
        default_gpu_strategy, order_by_score, solve, solve_iterative, MoveOrder, ProbCut,
        SearchOptions, Solution, Solved, Strategy,
    };
}

/// Perft on a game:
///
/// ```
/// use cubesearch::games::Reversi;
/// use cubesearch::perft::perft_divide;
/// use cubesearch::{Backend, Executor, Game};
///
/// let (mut exec, _) = Executor::new(Backend::Auto)?;
/// let result = perft_divide(&mut exec, &Reversi, &Reversi.initial(), 4, |_, _| {})?;
/// assert_eq!(result.nodes, 244); // docs/RULES.md's table
/// assert_eq!(result.divide.len(), 4);
/// # Ok::<(), cubesearch::Error>(())
/// ```
pub mod perft {
    pub use cubesearch_search::perft::{perft, perft_divide, perft_split, PerftResult};
}

/// Expectimax of one-player games with chance, valued by an [`AfterstateValue`] (an
/// [`NTupleNetwork`]): on the CPU,
///
/// ```
/// use cubesearch::games::seed_shapes;
/// use cubesearch::games::Game2584;
/// use cubesearch::rng::XorShift32;
/// use cubesearch::{expectimax, NTupleNetwork, StochasticGame};
///
/// let game = Game2584::new();
/// let network = NTupleNetwork::for_game::<Game2584>(&seed_shapes())?; // all zero: rewards only
/// let root = game.initial(&mut XorShift32::for_worker(5, 0));
/// let one_layer = expectimax::search(&game, &network, &root, 1, Default::default());
/// assert!(one_layer.best.is_some()); // a fresh board always has a move
/// # Ok::<(), cubesearch::Error>(())
/// ```
///
/// and, through an [`Expectimax`](expectimax::Expectimax) searcher that keeps the network on
/// the device and its buffers from call to call, on a GPU, with the same best actions as the
/// CPU:
///
/// ```
/// use cubesearch::expectimax::{Expectimax, ExpectimaxMethod};
/// use cubesearch::games::seed_shapes;
/// use cubesearch::games::Game2584;
/// use cubesearch::rng::XorShift32;
/// use cubesearch::{Backend, CpuExecutor, Executor, ExpectimaxEval, NTupleNetwork, StochasticGame};
///
/// let game = Game2584::new();
/// let network = NTupleNetwork::for_game::<Game2584>(&seed_shapes())?;
/// let roots: Vec<_> = (0..4).map(|i| game.initial(&mut XorShift32::for_worker(5, i))).collect();
/// let (exec, device) = Executor::new(Backend::Auto)?;
/// let mut gpu = Expectimax::new(exec);
/// if let Some(search) = gpu.device() {
///     search.set_method(ExpectimaxMethod::Multilevel);
/// }
/// let mut cpu = Expectimax::new(Executor::Cpu(CpuExecutor::new(1)?));
/// let on_device = gpu.evaluate(&game, &network, &roots, 1)?;
/// let on_cpu = cpu.evaluate(&game, &network, &roots, 1)?;
/// for (d, c) in on_device.iter().zip(&on_cpu) {
///     assert_eq!(d.best, c.best, "{device}");
/// }
/// # Ok::<(), cubesearch::Error>(())
/// ```
pub mod expectimax {
    pub use cubesearch_search::expectimax::{
        play_games, search, ExpectimaxOptions, PlayOptions, StochasticGameRecord,
    };
    pub use cubesearch_search::expectimax_gpu::{Expectimax, ExpectimaxMethod};
}

/// Players of two-player games, the specs that name them, and matches between two
/// ([`players::play_match`]: colours, openings, Elo, a results file). A game between two specs,
/// read once into typed values (Reversi adds `easy` and `medium`; 2584 and 2048 read
/// `expectimax:layers=2,weights=FILE` as a [`players::StochasticPlayerSpec`]):
///
/// ```
/// use cubesearch::games::Nim;
/// use cubesearch::players::{play_game, Exec, Limit, PlayerSpec, StochasticPlayerSpec};
/// use cubesearch::{Backend, Game};
///
/// let first: PlayerSpec<Nim> = "flat:k=64,exec=cpu".parse()?;
/// let mut first = first.build(Backend::Auto, 1)?;
/// let mut second = "random".parse::<PlayerSpec<Nim>>()?.build(Backend::Auto, 2)?;
/// let start = Nim.parse_position("1,3,5,7")?;
/// let record = play_game(&Nim, start, [first.as_mut(), second.as_mut()], |_, _, _| Ok(()))?;
/// assert!(record.result == 1 || record.result == -1); // Nim has no draws
///
/// let spec: PlayerSpec<Nim> = "alphabeta:depth=6,exec=gpu".parse()?;
/// let PlayerSpec::AlphaBeta(ab) = &spec else { unreachable!() };
/// assert_eq!((ab.limit, ab.exec), (Limit::Depth(6), Exec::Gpu));
/// let err = "mcts:time=fast".parse::<PlayerSpec<Nim>>().unwrap_err().to_string();
/// assert!(err.contains("bad duration 'fast'"), "{err}");
/// let err = "alien".parse::<PlayerSpec<Nim>>().unwrap_err().to_string();
/// assert!(err.contains("human, random, flat:"), "{err}");
/// assert!(matches!("random".parse()?, StochasticPlayerSpec::Random));
/// # Ok::<(), cubesearch::Error>(())
/// ```
pub mod players {
    pub use cubesearch_players::learned::{Evaluated, ValueLeaves};
    pub use cubesearch_players::spec::{Exec, Limit};
    pub use cubesearch_players::{
        play_game, play_match, Elo, GameRecord, Match, MatchGame, MatchOptions, MatchReport,
        MoveLimits, NamedPlayers, NoNamed, Opening, Openings, Player, PlayerSpec, SearchReport,
        StochasticPlayerSpec, Tally,
    };
}

/// n-tuple networks over any [`TupleGame`] or two-player [`learn::TwoPlayerTupleGame`]: the
/// shapes and views a game gives them, greedy play statistics, weights files, and self-play on
/// the CPU (training runs: [`train`]).
pub mod learn {
    // `play` names a module and its function in cubesearch-learn: only the function is offered.
    pub use cubesearch_learn::labels::{generate_positions, label_positions, Generate, Label};
    pub use cubesearch_learn::play::play;
    pub use cubesearch_learn::selfplay::{learn_games, SelfPlay, SelfPlayPlan, TwoPlayerTupleGame};
    pub use cubesearch_learn::{
        default_shapes, pack_views, square_symmetries, Dataset, PlayStats, Provenance, TdOrder,
        WeightsMeta,
    };
}

/// TD(0) self-play training: one [`train::TrainConfig`] says what to train and where, and
/// [`train::train`] runs it on CPU threads, one GPU, several GPUs or NCCL ranks:
///
/// ```
/// use cubesearch::games::Game2584;
/// use cubesearch::learn::play;
/// use cubesearch::train::{train, EngineConfig, Td, TrainConfig};
/// let game = Game2584::new();
/// let cfg = TrainConfig {
///     games: 300,
///     engine: EngineConfig { threads: Some(0), ..EngineConfig::default() },
///     ..TrainConfig::default()
/// };
/// let (net, report) = train(Td(&game), &cfg, |p| eprintln!("{} games, mean {:.0}", p.games, p.recent_mean_score))?;
/// let stats = play(&game, &net, 100, 7, 0)?;
/// println!("{} → {}", report.mean_score, stats.mean_score);
/// # Ok::<(), cubesearch::Error>(())
/// ```
///
/// Every engine plays through one seam, [`train::TdEngine`]; on whichever executor a backend
/// resolves to:
///
/// ```
/// use cubesearch::games::seed_shapes;
/// use cubesearch::games::Game2584;
/// use cubesearch::train::{engine_on, TdEngine};
/// use cubesearch::{Backend, Executor, NTupleNetwork};
///
/// let (exec, _) = Executor::new(Backend::Auto)?;
/// let mut net = NTupleNetwork::for_game::<Game2584>(&seed_shapes())?;
/// // 65,536 games at once on a GPU (64 on lavapipe), CPU threads on the CPU.
/// let mut engine = engine_on::<Game2584>(&exec, None);
/// let scores = engine.learn_games(&Game2584::new(), &mut net, 64, 0.1, 7)?;
/// assert_eq!(scores.len(), 64);
/// assert!(net.table(0).iter().any(|&w| w != 0.0));
/// # Ok::<(), cubesearch::Error>(())
/// ```
///
/// Ranks, one a GPU, meet through a collective (NCCL across processes with the features
/// `ranks` and `cuda`; threads of one process here) and sum the weights' changes on the devices. Rank 0
/// leads; the others follow its calls:
///
/// ```
/// use cubesearch::games::seed_shapes;
/// use cubesearch::games::Game2584;
/// use cubesearch::testing::executor;
/// use cubesearch::train::{GpuTd, LocalCollective, RankTd, TdEngine, TdGames};
/// use cubesearch::{Backend, Executor, NTupleNetwork};
///
/// let Some(Executor::Wgpu(gpu)) = executor(Backend::Wgpu) else { return Ok(()) };
/// let net = NTupleNetwork::for_game::<Game2584>(&seed_shapes())?;
/// let [lead, follow]: [LocalCollective; 2] = LocalCollective::group(2).try_into().ok().unwrap();
/// let mut leader = RankTd::new(GpuTd::<_, Game2584>::on(&gpu, Some(4)), lead);
/// let mut follower = RankTd::new(GpuTd::<_, Game2584>::on(&gpu, Some(4)), follow);
/// let mut games = 0;
/// std::thread::scope(|s| {
///     let followed = s.spawn(|| follower.follow(&net));
///     let batch = TdGames { first: 0, count: 16, seed: 1, step: 0.01 };
///     leader.play(&Game2584::new(), &net, batch, &mut |_| { games += 1; Ok(()) })?;
///     leader.finish()?;
///     followed.join().unwrap().map(|_| ())
/// })?;
/// assert_eq!(games, 16); // both ranks' games, on the leader
/// # Ok::<(), cubesearch::Error>(())
/// ```
pub mod train {
    pub use cubesearch_train::collective::LocalCollective;
    pub use cubesearch_train::selfplay::{default_alpha, learn_self_play};
    pub use cubesearch_train::{
        engine_on, label_on, train, train_on, CpuEngine, EngineConfig, Fit, GpuTd, Method,
        MultiGpuTd, Placement, RankTd, SelfPlayTd, Td, TdEngine, TdGames, TrainConfig,
        TrainProgress, TrainReport,
    };
}

/// The games: their host types; each implements [`Game`] or [`StochasticGame`] and names its
/// device twin.
pub mod games {
    pub use cubesearch_games::checkers::{Checkers, CheckersMove, CheckersState, Rules, Side};
    pub use cubesearch_games::fib::{seed_shapes, Game2048, Game2584};
    pub use cubesearch_games::nim::{Nim, NimMove, NimState};
    pub use cubesearch_games::reversi::{Board, Colour, Reversi, ReversiMove, ReversiState};
}

/// Holding a game's device rules to its host rules:
///
/// ```
/// use cubesearch::games::Nim;
/// use cubesearch::testing::{assert_same, executor};
/// use cubesearch::{Backend, CpuExecutor, Game, Perft};
///
/// // In a test: the same perft on the CPU oracle and on each GPU backend built in.
/// let roots = [Nim.parse_position("1,2,3")?, Nim.parse_position("2,2")?];
/// let cpu = CpuExecutor::new(1)?.perft(&Nim, &roots, 3)?;
/// for backend in [Backend::Wgpu, Backend::Cuda] {
///     if let Some(mut gpu) = executor(backend) {
///         assert_same("nim perft(3)", &cpu, &gpu.perft(&Nim, &roots, 3)?);
///     }
/// }
/// # Ok::<(), cubesearch::Error>(())
/// ```
#[cfg(feature = "testing")]
pub mod testing {
    pub use cubesearch_learn::testing::check_views;
    pub use cubesearch_search::testing::{
        assert_same, assert_same_root_values, assert_same_weights, assert_stochastic_rules_match,
        assert_two_player_rules_match, executor, lane_exchanges, random_positions,
        random_stochastic_positions,
    };
    pub use cubesearch_search::StochasticRules;
}

/// README's Rust blocks, compiled and run as doctests so that the front door's snippet keeps
/// building against the API it shows.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
