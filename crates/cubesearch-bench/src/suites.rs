//! The suites measured in units per second (`cubesearch bench <suite>`), and the seed's Nim
//! minimax table. Each times a suite on CPU 1 thread, CPU all cores and every GPU backend
//! that answers. Each row: the work size doubles until one run takes `--min-seconds`, then
//! `--warmup` untimed runs and `--reps` timed runs at that size; the median is reported.
//!
//! Timing is synchronised wall-clock time around the whole executor call: upload of the inputs,
//! the kernel launch, and the read-back of the (small) results, which waits for the device.

use crate::targets::targets;
use crate::{BenchArgs, Common, Report};
use cubesearch_core::backend::{cpu_threads, Backend};
use cubesearch_core::Game;
use cubesearch_core::{Error, Playouts, Result};
use cubesearch_games::checkers::{Checkers, Rules};
use cubesearch_games::nim::{Nim, NimState};
use cubesearch_games::reversi::Reversi;
use cubesearch_kernels::GpuGame;
use cubesearch_search::mcts::{Budget, Mcts, MctsConfig};
use cubesearch_search::perft::perft_split;
use cubesearch_search::{CpuExecutor, Executor};
use indicatif::ProgressStyle;
use serde::Serialize;
use serde_json::json;
use std::time::Duration;
use std::time::Instant;

/// A named piece of work measured in some unit per second. Its size is a level: calibration raises
/// the level until one run is long enough to time well.
struct Suite {
    name: &'static str,
    about: &'static str,
    unit: &'static str,
    /// Runs the suite once at a level (with a seed and the command's options) and returns the
    /// units done.
    run: fn(&mut Executor, u32, u32, &BenchArgs) -> Result<u64>,
    /// The size of a level, as printed.
    size: fn(u32) -> String,
    /// Highest level.
    max_level: u32,
    /// Measures the host alone: only CPU targets (their thread counts) run it.
    host_only: bool,
}

fn playouts_at(level: u32) -> u32 {
    4096 << level
}

fn playouts_size(level: u32) -> String {
    format!("{} games", playouts_at(level))
}

fn depth_size(level: u32) -> String {
    format!("depth {}", PERFT_FIRST_DEPTH + level)
}

/// Perft suites start here and go one ply deeper per level.
const PERFT_FIRST_DEPTH: u32 = 4;

/// Random games from `root`; the units are games.
fn playouts<G: GpuGame>(
    exec: &mut Executor,
    game: &G,
    root: G::State,
    level: u32,
    seed: u32,
) -> Result<u64> {
    let counts = exec.playouts(game, &[root], playouts_at(level), seed)?;
    Ok(counts[0].games)
}

/// perft from `root`; the units are nodes.
fn perft<G: GpuGame>(exec: &mut Executor, game: &G, root: G::State, level: u32) -> Result<u64> {
    perft_split(exec, game, &root, PERFT_FIRST_DEPTH + level)
}

/// One MCTS search of one second from `root`; the units are simulated games.
fn mcts<G: GpuGame>(
    exec: &mut Executor,
    game: &G,
    root: G::State,
    seed: u32,
    args: &BenchArgs,
) -> Result<u64> {
    let gpu = !exec.is_cpu();
    // The device wants wide launches: one tree per core but one selects 256 leaves each. The CPU
    // executor simulates on every core already, fed by one tree.
    let trees = if gpu {
        args.trees
            .unwrap_or_else(cubesearch_search::mcts::device_trees)
    } else {
        1
    };
    let config = MctsConfig {
        budget: Budget::Time(Duration::from_secs(1)),
        seed,
        batch: args.tree_batch.unwrap_or(256),
        trees,
        ..MctsConfig::default()
    };
    let (_, stats) = Mcts::new(game, root, config).search(game, exec)?;
    eprintln!(
        "  mcts: {} playouts in {:.2} s, {trees} trees, {} launches, waited for the executor {:.0}% of the time",
        stats.playouts,
        stats.seconds,
        stats.batches,
        100.0 * stats.wait_seconds / stats.seconds.max(1e-9)
    );
    Ok(stats.playouts)
}

/// Simulations answered at once, so that a search measures its host tree alone: each leaf's
/// games are "won" in a share drawn from a hash of its position (deterministic, and varied
/// enough for the trees to grow as in a real search).
struct InstantPlayouts;

impl<G: Game> Playouts<G> for InstantPlayouts {
    fn playouts(
        &mut self,
        _game: &G,
        roots: &[G::State],
        per_root: u32,
        seed: u32,
    ) -> Result<Vec<cubesearch_core::WinDrawCounts>> {
        use std::hash::{Hash, Hasher};
        Ok(roots
            .iter()
            .map(|root| {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (root, seed).hash(&mut h);
                cubesearch_core::WinDrawCounts {
                    wins: h.finish() % (per_root as u64 + 1),
                    draws: 0,
                    games: per_root as u64,
                }
            })
            .collect())
    }
}

/// Leaves an mcts-tree run selects.
fn mcts_tree_leaves(level: u32) -> u64 {
    16_384 << level
}

/// The MCTS host tree alone from the checkers start: one tree per thread of the CPU target,
/// selecting, expanding and backing up `mcts_tree_leaves(level)` leaves of 32 playouts each,
/// the playouts answered instantly. The units are leaves. A GPU search cannot simulate faster
/// than its trees make leaves, so this bounds the in-search playouts/s (× 32) on that host.
fn mcts_tree(exec: &mut Executor, level: u32, seed: u32, _: &BenchArgs) -> Result<u64> {
    let Executor::Cpu(cpu) = exec else {
        return Err(Error::parse(
            "mcts-tree measures the host's trees: one tree per thread of --only cpu-N",
        ));
    };
    let game = Checkers::default();
    let config = MctsConfig {
        budget: Budget::Playouts(mcts_tree_leaves(level) * 32),
        seed,
        trees: cpu.threads(),
        ..MctsConfig::default()
    };
    let (_, stats) =
        Mcts::new(&game, game.initial(), config).search(&game, &mut InstantPlayouts)?;
    Ok(stats.playouts / 32)
}

fn td_games_at(level: u32) -> u64 {
    1024 << level
}

/// TD(0) training of the default 2584 network (from zero weights, or `--weights`) for
/// `td_games_at(level)` games on the executor's engine (CPU threads, or the GPU with `--units`
/// games at once); the units are moves played
/// (and learned from). A fresh engine each run, so GPU figures include the weight upload and
/// the read-back at the end.
fn td_train(exec: &mut Executor, level: u32, seed: u32, args: &BenchArgs) -> Result<u64> {
    use cubesearch_games::fib::{seed_shapes, Game2584};
    use cubesearch_learn::NTupleNetwork;
    let mut net = match &args.weights {
        Some(path) => NTupleNetwork::load::<Game2584>(std::path::Path::new(path), None)?.0,
        None => NTupleNetwork::for_game::<Game2584>(&seed_shapes())?,
    };
    let step = 0.1 / net.lookups() as f32;
    let mut engine = cubesearch_train::engine_on::<Game2584>(exec, args.units);
    let mut moves = 0u64;
    engine.play(
        &Game2584::new(),
        &net,
        0,
        td_games_at(level),
        seed,
        step,
        &mut |e| {
            moves += e.moves as u64;
            Ok(())
        },
    )?;
    engine.sync(&mut net)?;
    if let Some(share) = engine.occupancy() {
        eprintln!(
            "  td-train: {:.0} % of the launched unit steps played",
            100.0 * share
        );
    }
    Ok(moves)
}

/// Games and rounds of the seed's TD-update table (6.6).
const TD_UPDATE_GAMES: usize = 1000;
const TD_UPDATE_ROUNDS: usize = 1000;

/// The histories the td-update suite learns from, made once: random 2584 games played back to
/// back (seed 1) and cut into `TD_UPDATE_GAMES` histories of `TD_UPDATE_ROUNDS`
/// `(afterstate, reward)` steps; also in the device's word form.
type Board2584 = cubesearch_games::fib::BoardOf<cubesearch_games::fib::Fib>;
/// The histories as `(afterstate, reward)` paths, and as device words.
type Histories = (Vec<Vec<(Board2584, u32)>>, Vec<u32>);
fn td_histories() -> &'static Histories {
    use cubesearch_core::rng::XorShift32;
    use cubesearch_core::StochasticGame;
    use cubesearch_games::fib::{Fib, Game2584, GpuTiles};
    static HISTORIES: std::sync::OnceLock<Histories> = std::sync::OnceLock::new();
    HISTORIES.get_or_init(|| {
        let game = Game2584::new();
        let mut rng = XorShift32::for_worker(1, 0);
        let mut state = game.initial(&mut rng);
        let mut legal = Vec::with_capacity(4);
        let histories: Vec<Vec<(Board2584, u32)>> = (0..TD_UPDATE_GAMES)
            .map(|_| {
                (0..TD_UPDATE_ROUNDS)
                    .map(|_| loop {
                        legal.clear();
                        game.legal_actions(&state, &mut legal);
                        if legal.is_empty() {
                            state = game.initial(&mut rng);
                            continue;
                        }
                        let (_, after, reward) = legal[rng.below(legal.len() as u32) as usize];
                        state = game.sample_chance(&after, &mut rng);
                        break (after, reward);
                    })
                    .collect()
            })
            .collect();
        let mut words = Vec::with_capacity(TD_UPDATE_GAMES * TD_UPDATE_ROUNDS * 4);
        let mut w = [0u32; 3];
        for (after, reward) in histories.iter().flatten() {
            Fib::encode(*after, &mut w);
            words.extend_from_slice(&w);
            words.push(*reward);
        }
        (histories, words)
    })
}

/// The seed's TD-update table: one pass of TD(0) updates over 1000 games × 1000 rounds into a
/// zero 2584 network (default shapes). The CPU learns each game backward (`learn`, the
/// trainer's update), games split over the threads; a GPU runs the seed's per-step kernel
/// (one unit per time step, all at once) and reads the weights back. Units: updates.
fn td_update(exec: &mut Executor, _level: u32, _seed: u32, _: &BenchArgs) -> Result<u64> {
    use cubesearch_games::fib::{seed_shapes, Game2584};
    use cubesearch_learn::NTupleNetwork;
    let (histories, words) = td_histories();
    let net = NTupleNetwork::for_game::<Game2584>(&seed_shapes())?;
    let step = 0.1 / net.lookups() as f32;
    match exec {
        Executor::Cpu(cpu) => {
            let threads = cpu.threads().max(1);
            let per = histories.len().div_ceil(threads);
            std::thread::scope(|scope| {
                for chunk in histories.chunks(per) {
                    let net = &net;
                    scope.spawn(move || {
                        for path in chunk {
                            cubesearch_learn::td::learn(&Game2584::new(), net, path, step);
                        }
                    });
                }
            });
        }
        gpu => gpu.on_device(
            TdSteps {
                net: &net,
                words,
                step,
            },
            "the CPU learns above",
        )?,
    }
    Ok((TD_UPDATE_GAMES * TD_UPDATE_ROUNDS) as u64)
}

/// The seed's per-step TD kernel over every recorded step, weights uploaded and read back.
struct TdSteps<'a> {
    net: &'a cubesearch_learn::NTupleNetwork,
    words: &'a [u32],
    step: f32,
}

impl cubesearch_search::DeviceTask for TdSteps<'_> {
    type Output = ();
    fn run<R: cubecl::Runtime>(self, gpu: &cubesearch_search::GpuExecutor<R>) -> Result<()> {
        use cubesearch_kernels::td::{DeviceTd, LaneExchange, TdShape};
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
        let mut device = DeviceTd::<R, cubesearch_games::fib::Game2584>::new(
            gpu.client(),
            &cubesearch_train::td_net(self.net),
            shape,
        )?;
        device.learn_steps(self.words, TD_UPDATE_ROUNDS as u32, self.step)?;
        device.read_tables().map(|_| ())
    }
}

const SUITES: &[Suite] = &[
    Suite {
        name: "td-update",
        about: "the seed's TD-update table: 1000 games × 1000 rounds of updates into a 2584 \
                network, CPU backward per game vs the seed's one-unit-per-step GPU kernel \
                (weights uploaded and read back)",
        unit: "updates",
        run: td_update,
        size: |_| "1000 × 1000".into(),
        max_level: 0,
        host_only: false,
    },
    Suite {
        name: "td-train",
        about: "TD(0) training of the default 2584 network (three 4-tuples) from zero weights \
                or --weights; GPUs play 65536 games at once (--units), so use --level ≥ 9 \
                (524288 games) there",
        unit: "moves",
        run: td_train,
        size: |l| format!("{} games", td_games_at(l)),
        max_level: 12,
        host_only: false,
    },
    Suite {
        name: "nim-playouts",
        about: "random Nim playouts from the seed's 8-heap board (1,3,...,15)",
        unit: "playouts",
        run: |e, l, s, _| playouts(e, &Nim, NimState::seed_board(8)?, l, s),
        size: playouts_size,
        max_level: 19,
        host_only: false,
    },
    Suite {
        name: "checkers-playouts",
        about: "random checkers games from the start (longest rules, draw after 50 quiet plies)",
        unit: "playouts",
        run: |e, l, s, _| playouts(e, &Checkers::default(), Checkers::default().initial(), l, s),
        size: playouts_size,
        max_level: 18,
        host_only: false,
    },
    Suite {
        name: "reversi-playouts",
        about: "random Reversi games from the start",
        unit: "playouts",
        run: |e, l, s, _| playouts(e, &Reversi, Reversi.initial(), l, s),
        size: playouts_size,
        max_level: 18,
        host_only: false,
    },
    Suite {
        name: "checkers-perft",
        about: "checkers perft from the start, american rules",
        unit: "nodes",
        run: |e, l, _, _| {
            let game = Checkers::new(Rules::American);
            perft(e, &game, game.initial(), l)
        },
        size: depth_size,
        // Depth 16: the target (165,629,569,428 nodes in ≤ 10 s on one H200).
        max_level: 12,
        host_only: false,
    },
    Suite {
        name: "reversi-perft",
        about: "Reversi perft from the start",
        unit: "nodes",
        run: |e, l, _, _| perft(e, &Reversi, Reversi.initial(), l),
        size: depth_size,
        max_level: 10,
        host_only: false,
    },
    Suite {
        name: "mcts-tree",
        about: "the MCTS host tree alone from the checkers start (leaf = 32, batch = 256), one \
                tree per thread of a cpu-N target, simulations answered instantly: the leaves \
                a host can feed a device",
        unit: "leaves",
        run: mcts_tree,
        size: |l| format!("{} leaves", mcts_tree_leaves(l)),
        max_level: 10,
        host_only: true,
    },
    Suite {
        name: "checkers-mcts",
        about: "playouts inside a 1 s MCTS search from the checkers start (leaf = 32)",
        unit: "playouts",
        run: |e, _, s, a| mcts(e, &Checkers::default(), Checkers::default().initial(), s, a),
        size: |_| "1 s search".into(),
        max_level: 0,
        host_only: false,
    },
];

/// One measured row.
#[derive(Serialize)]
struct Row {
    suite: &'static str,
    backend: String,
    device: String,
    size: String,
    units: u64,
    unit: &'static str,
    median_seconds: f64,
    min_seconds: f64,
    per_second: f64,
    reps: usize,
}

/// `bench list`'s lines for the suites of this file.
pub(crate) fn list() -> Vec<String> {
    let mut lines: Vec<String> = SUITES
        .iter()
        .map(|s| format!("{:<18} {} ({}/s)", s.name, s.about, s.unit))
        .collect();
    lines.push(format!(
        "{:<18} the seed's minimax table: ms to the first move, Nim sizes 2..8",
        "nim-minimax"
    ));
    lines
}

/// Runs the suite of [`SUITES`] that `args` names.
pub(crate) fn run(common: &Common, args: &BenchArgs) -> Result<Report> {
    let suite = SUITES
        .iter()
        .find(|s| s.name == args.suite)
        .ok_or_else(|| {
            let mut names: Vec<_> = SUITES.iter().map(|s| s.name).collect();
            names.extend(["nim-minimax", "expectimax", "expectimax-2048"]);
            Error::parse(format!(
                "unknown bench suite '{}': one of {}",
                args.suite,
                names.join(", ")
            ))
        })?;
    if args.reps == 0 {
        return Err(Error::parse("--reps must be at least 1"));
    }
    let mut targets = targets(common.backend, &args.only)?;
    if let Some(steps) = args.steps_per_launch {
        targets = targets
            .into_iter()
            .map(|(name, about, exec)| (name, about, exec.with_steps_per_launch(steps)))
            .collect();
    }
    if suite.host_only {
        targets.retain(|(_, _, exec)| exec.is_cpu());
        if targets.is_empty() {
            return Err(Error::parse(format!(
                "{} measures the host: ask for CPU targets (--only cpu-1,cpu-16)",
                suite.name
            )));
        }
    }
    // One step a timed run. Targets differ by orders of magnitude (cpu-1 against a GPU), so
    // a rate over all of them would promise nothing: the bar says what the current target has
    // left, from its own last run, and how many targets follow.
    let runs_each = (args.warmup + args.reps) as u64;
    let total = targets.len() as u64 * runs_each;
    let bar = common.progress(total, suite.name);
    if let Ok(style) =
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} runs {elapsed_precise}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    let mut rows = Vec::new();
    let count = targets.len();
    for (i, (label, device, mut exec)) in targets.into_iter().enumerate() {
        let mut on_run = |stage: Stage| {
            if let Stage::Timed { .. } = stage {
                bar.inc(1);
            }
            let fixed = args.level.is_some();
            bar.set_message(stage.describe(suite.name, &label, fixed, count - 1 - i));
        };
        on_run(Stage::Calibrating(args.level.unwrap_or(0)));
        rows.push(measure(
            suite,
            &label,
            &device,
            &mut exec,
            args,
            common.seed,
            &mut on_run,
        )?);
    }
    bar.finish_and_clear();
    let table = || table(suite, &rows);
    Ok(Report::new(
        table,
        json!({ "suite": suite.name, "timing": TIMING, "rows": rows }),
    ))
}

const TIMING: &str =
    "synchronised wall clock around upload, launch and read-back; median of the timed reps";

/// Where a target's measurement is, for the progress bar.
#[derive(Clone, Copy, Debug)]
enum Stage {
    /// Finding the level whose run lasts `--min-seconds`.
    Calibrating(u32),
    /// A warm-up or timed run ended after `last` seconds; `left` runs remain.
    Timed { left: usize, last: f64 },
}

impl Stage {
    /// The bar's message: what the current target has left, from its own last run, and how
    /// many targets follow (`fixed`: `--level` was given, so nothing is calibrated).
    fn describe(self, suite: &str, label: &str, fixed: bool, targets_after: usize) -> String {
        let now = match self {
            Stage::Calibrating(_) if fixed => "compiling".into(),
            Stage::Calibrating(level) => format!("calibrating, level {level}"),
            Stage::Timed { left, last } => format!("about {:.0} s left here", left as f64 * last),
        };
        let after = match targets_after {
            0 => String::new(),
            1 => ", then 1 more target".into(),
            n => format!(", then {n} more targets"),
        };
        format!("{suite} on {label}: {now}{after}")
    }
}

fn measure(
    suite: &Suite,
    label: &str,
    device: &str,
    exec: &mut Executor,
    args: &BenchArgs,
    seed: u32,
    on_run: &mut dyn FnMut(Stage),
) -> Result<Row> {
    let time = |exec: &mut Executor, level: u32| -> Result<(f64, u64)> {
        let start = Instant::now();
        let units = (suite.run)(exec, level, seed, args)?;
        Ok((start.elapsed().as_secs_f64(), units))
    };
    // One untimed run compiles the kernels (NVRTC, shader compilers) so calibration times work;
    // then the level rises until one run is long enough to time well, unless --level fixes it.
    time(exec, 0)?;
    if args.level.is_some_and(|l| l > suite.max_level) {
        return Err(Error::parse(format!(
            "--level goes up to {} for {}",
            suite.max_level, suite.name
        )));
    }
    let mut level = args.level.unwrap_or(0);
    // Each level may compile a new kernel (perft depths are compile-time constants): time its
    // second run.
    let settled = |exec: &mut Executor, level| -> Result<f64> {
        time(exec, level)?;
        Ok(time(exec, level)?.0)
    };
    while args.level.is_none()
        && level < suite.max_level
        && settled(exec, level)? < args.min_seconds
    {
        level += 1;
        on_run(Stage::Calibrating(level));
    }
    let total = args.warmup + args.reps;
    let mut runs = Vec::with_capacity(args.reps);
    for run in 0..total {
        let (seconds, units) = time(exec, level)?;
        on_run(Stage::Timed {
            left: total - run - 1,
            last: seconds,
        });
        if run >= args.warmup {
            runs.push((seconds, units));
        }
    }
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (median, units) = runs[runs.len() / 2];
    Ok(Row {
        suite: suite.name,
        backend: label.to_string(),
        device: device.to_string(),
        size: (suite.size)(level),
        units,
        unit: suite.unit,
        median_seconds: median,
        min_seconds: runs[0].0,
        per_second: units as f64 / median,
        reps: args.reps,
    })
}

fn table(suite: &Suite, rows: &[Row]) -> String {
    let cpu_all = rows
        .iter()
        .filter(|r| r.backend.starts_with("cpu-"))
        .map(|r| r.per_second)
        .fold(0.0, f64::max);
    let mut out = format!(
        "{} — {}\n\n| backend | device | size | {} per run | median s | {}/s | × best CPU |\n|---|---|---|---:|---:|---:|---:|\n",
        suite.name, suite.about, suite.unit, suite.unit
    );
    for r in rows {
        let ratio = if cpu_all > 0.0 {
            format!("{:.1}", r.per_second / cpu_all)
        } else {
            "–".into()
        };
        out += &format!(
            "| {} | {} | {} | {} | {:.4} | {:.3e} | {ratio} |\n",
            r.backend, r.device, r.size, r.units, r.median_seconds, r.per_second
        );
    }
    out + &format!("\nTiming: {TIMING}.")
}

/// The seed's Nim minimax table: milliseconds to the first move for board sizes 2..8 at depth 7
/// and size 8 at depth 5; columns CPU one thread (`cpu`), CPU all cores (`cpu-split`), and each
/// GPU strategy on each GPU backend. Warm-up run first (kernel compilation), then the median.
pub(crate) fn nim_minimax(common: &Common, args: &BenchArgs) -> Result<Report> {
    use cubesearch_search::minimax::{solve, Strategy};
    // The seed's own figures (Jetson Nano): C v0 and CUDA v4, ms.
    const SEED: [(usize, u32, &str, &str); 8] = [
        (2, 7, "0.00", "0.16"),
        (3, 7, "0.00", "6.50"),
        (4, 7, "10.00", "21.89"),
        (5, 7, "160.00", "107.41"),
        (6, 7, "810.00", "452.11"),
        (7, 7, "4690.00", "1438.71"),
        (8, 7, "–", "3829.33"),
        (8, 5, "550.00", "82.14"),
    ];
    let mut columns: Vec<(String, Executor, Strategy)> = Vec::new();
    let all = cpu_threads();
    columns.push((
        "cpu-1".into(),
        Executor::Cpu(CpuExecutor::new(1)?),
        Strategy::Cpu,
    ));
    columns.push((
        format!("cpu-{all}"),
        Executor::Cpu(CpuExecutor::new(all)?),
        Strategy::CpuSplit,
    ));
    columns.push((
        format!("cpu-{all} split"),
        Executor::Cpu(CpuExecutor::new(all)?),
        Strategy::Split,
    ));
    for backend in [Backend::Cuda, Backend::Wgpu] {
        if !args.only.is_empty() && !args.only.iter().any(|o| o == backend.name()) {
            continue;
        }
        for strategy in [Strategy::V1, Strategy::V2, Strategy::V4, Strategy::Split] {
            match Executor::new(backend) {
                Ok((exec, _)) => {
                    columns.push((format!("{} {strategy}", backend.name()), exec, strategy))
                }
                Err(e) => {
                    eprintln!("bench: skipping {backend}: {e}");
                    break;
                }
            }
        }
    }
    let bar = common.progress((SEED.len() * columns.len()) as u64, "nim-minimax");
    let mut rows = Vec::new();
    for (size, depth, seed_c, seed_cuda) in SEED {
        let board = NimState::seed_board(size)?;
        let mut cells = Vec::new();
        for (label, exec, strategy) in columns.iter_mut() {
            // cpu-split runs on rayon's global pool: give it this column's threads.
            let run = |exec: &mut Executor| -> Result<(f64, i32, Option<u64>)> {
                let start = Instant::now();
                let solved = solve(exec, &Nim, &board, depth, *strategy)?;
                Ok((
                    start.elapsed().as_secs_f64() * 1e3,
                    solved.solution.value,
                    solved.solution.nodes,
                ))
            };
            for _ in 0..args.warmup.max(1) {
                run(exec)?;
            }
            let mut runs: Vec<(f64, i32, Option<u64>)> =
                (0..args.reps).map(|_| run(exec)).collect::<Result<_>>()?;
            runs.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (ms, value, nodes) = runs[runs.len() / 2];
            cells.push(json!({ "column": label, "ms": ms, "value": value, "nodes": nodes }));
            bar.inc(1);
        }
        rows.push(json!({ "size": size, "depth": depth, "seed_c_ms": seed_c, "seed_cuda_v4_ms": seed_cuda, "cells": cells }));
    }
    bar.finish_and_clear();
    let text = || {
        let mut out = String::from("nim-minimax — ms to the first move (median), the seed's board of size n (heaps 1, 3, …, 2n−1)\n\n| size | depth | seed C v0 (Jetson) | seed CUDA v4 (Jetson) |");
        for (label, _, _) in &columns {
            out += &format!(" {label} |");
        }
        out += "\n|---:|---:|---:|---:|";
        out += &"---:|".repeat(columns.len());
        for row in &rows {
            out += &format!(
                "\n| {} | {} | {} | {} |",
                row["size"],
                row["depth"],
                row["seed_c_ms"].as_str().unwrap_or(""),
                row["seed_cuda_v4_ms"].as_str().unwrap_or("")
            );
            for cell in row["cells"].as_array().into_iter().flatten() {
                out += &format!(" {:.3} |", cell["ms"].as_f64().unwrap_or(f64::NAN));
            }
        }
        out += "\n\nNodes visited and nodes/s (v4 walks v1's tree but brings back only its answer, so its \
                nodes are v1's), and the speed-up in time over the CPU baseline (root split on all cores):\n\n| size | depth |";
        for (label, _, _) in &columns {
            out += &format!(" {label} |");
        }
        out += "\n|---:|---:|";
        out += &"---|".repeat(columns.len());
        for row in &rows {
            out += &format!("\n| {} | {} |", row["size"], row["depth"]);
            let cells = row["cells"].as_array().cloned().unwrap_or_default();
            let baseline = cells
                .get(1)
                .and_then(|c| c["ms"].as_f64())
                .unwrap_or(f64::NAN);
            for (i, cell) in cells.iter().enumerate() {
                let ms = cell["ms"].as_f64().unwrap_or(f64::NAN);
                // v4 (the column after v2) repeats v1's count.
                let nodes = cell["nodes"].as_u64().or_else(|| {
                    cells
                        .get(i.wrapping_sub(2))
                        .and_then(|c| c["nodes"].as_u64())
                });
                match nodes {
                    Some(n) => {
                        out += &format!(
                            " {n} ({:.2e}/s, ×{:.1}) |",
                            n as f64 / ms * 1e3,
                            baseline / ms
                        )
                    }
                    None => out += " – |",
                }
            }
        }
        out += "\n\nThe GPU overtakes the CPU baseline (cpu-all at depth 7) from size:";
        for (i, (label, _, _)) in columns.iter().enumerate().skip(2) {
            let faster = |row: &serde_json::Value| {
                let cells = row["cells"].as_array().cloned().unwrap_or_default();
                cells[i]["ms"].as_f64() < cells[1]["ms"].as_f64()
            };
            let depth7: Vec<&serde_json::Value> = rows.iter().filter(|r| r["depth"] == 7).collect();
            let from = (0..depth7.len()).find(|&k| depth7[k..].iter().all(|r| faster(r)));
            out += &format!(
                " {label}: {};",
                from.map(|k| depth7[k]["size"].to_string())
                    .unwrap_or_else(|| "never".into())
            );
        }
        out + "\n\nEvery cell returns the same value (checked by the tests); GPU times include upload, launch and read-back."
    };
    Ok(Report::new(
        text,
        json!({ "suite": "nim-minimax", "rows": rows }),
    ))
}

#[cfg(test)]
mod tests {
    use super::Stage;

    #[test]
    fn the_bar_promises_only_what_the_current_target_has_left() {
        let timed = Stage::Timed { left: 3, last: 2.0 };
        assert_eq!(
            timed.describe("td-train", "cpu-1", true, 2),
            "td-train on cpu-1: about 6 s left here, then 2 more targets"
        );
        assert_eq!(
            Stage::Calibrating(4).describe("td-train", "cuda", false, 1),
            "td-train on cuda: calibrating, level 4, then 1 more target"
        );
        assert_eq!(
            Stage::Calibrating(0).describe("td-train", "cuda", true, 0),
            "td-train on cuda: compiling"
        );
    }
}
