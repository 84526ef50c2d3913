//! `cubesearch bench expectimax` (2584) and `bench expectimax-2048`: the seed's inference table
//! (6.2–6.5) — milliseconds per move at each layer count on its starter, normal and late-game
//! boards, for CPU one thread (sequential), CPU all threads (tree-parallel), and each GPU
//! backend with naive and with multilevel generation (and, where the device has plane ops, both
//! again folding in shared memory only: the `shared` columns) — and the batched throughput (roots
//! evaluated per second when `--batch` roots go in one call).
//!
//! A move is one single-root call: upload, the whole search, read-back of the best move. Each
//! board is timed `--reps` times (median) after `--warmup` untimed calls of the column (kernel
//! compilation); a cell is the mean over the class's boards. A throughput cell is the median
//! of `--reps` calls on a GPU and one call on the CPU.

use crate::targets::{found, wanted_targets, Target};
use crate::{BenchArgs, Common, Report};
use cubesearch_core::backend::{resolve, Backend};
use cubesearch_core::{Error, ExpectimaxEval, Result};
use cubesearch_games::fib::boards::{BOARDS_2048, BOARDS_2584};
use cubesearch_games::fib::seed_shapes;
use cubesearch_games::fib::{BoardOf, GpuTiles, Sliding};
use cubesearch_games::{Fib, Pow2};
use cubesearch_learn::NTupleNetwork;
use cubesearch_search::boards::{self, BoardClass};
use cubesearch_search::expectimax_gpu::{Expectimax, ExpectimaxFold, ExpectimaxMethod};
use cubesearch_search::{CpuExecutor, Executor};
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// The suites of this file and what they measure.
pub const SUITES: &[(&str, &str)] = &[
    ("expectimax", "the seed's expectimax table (2584): ms per move at 1-3 layers on starter/normal/late boards, and roots/s"),
    ("expectimax-2048", "the same for 2048"),
];

/// Runs the suite for 2584 (`expectimax`) or 2048 (`expectimax-2048`).
pub fn run(common: &Common, args: &BenchArgs) -> Result<Report> {
    match args.suite.as_str() {
        "expectimax" | "expectimax-2584" => suite::<Fib>(common, args, BOARDS_2584),
        _ => suite::<Pow2>(common, args, BOARDS_2048),
    }
}

/// One column of the table.
struct Column {
    label: String,
    device: String,
    searcher: Expectimax,
}

/// One measured cell.
#[derive(Serialize)]
struct Cell {
    kind: &'static str,
    class: &'static str,
    layers: u32,
    column: String,
    device: String,
    boards: usize,
    ms_per_move: Option<f64>,
    roots: Option<usize>,
    roots_per_sec: Option<f64>,
}

fn columns(backend: Backend, only: &[String]) -> Result<Vec<Column>> {
    let wanted = wanted_targets(backend, only)?;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for target in wanted {
        match target {
            Target::Cpu(threads) => out.push(Column {
                label: if threads == 1 {
                    "cpu-1".to_string()
                } else {
                    format!("cpu-{threads} tree")
                },
                device: format!("CPU, {threads} threads"),
                searcher: Expectimax::new(Executor::Cpu(CpuExecutor::new(threads)?)),
            }),
            Target::Gpu(backend) => {
                let resolved = match resolve(backend) {
                    Ok(r) => r,
                    Err(e) => {
                        skipped.push((backend, e));
                        continue;
                    }
                };
                for method in ExpectimaxMethod::ALL {
                    let searcher = |fold: Option<ExpectimaxFold>| -> Result<Expectimax> {
                        let mut searcher = Expectimax::new(Executor::on(&resolved)?);
                        let device = searcher.device().expect("a GPU's search");
                        device.set_method(method);
                        if let Some(fold) = fold {
                            device.set_fold(fold);
                        }
                        Ok(searcher)
                    };
                    let mut default = searcher(None)?;
                    // Where the device folds with plane ops, a column folds in shared memory
                    // only, to show what the plane ops bring.
                    let planes =
                        default.device().map(|d| d.fold()) == Some(ExpectimaxFold::PlaneOps);
                    if planes {
                        out.push(Column {
                            label: format!("{} {} shared", backend.name(), method.name()),
                            device: resolved.device_name(),
                            searcher: searcher(Some(ExpectimaxFold::SharedMemory))?,
                        });
                    }
                    out.push(Column {
                        label: format!("{} {}", backend.name(), method.name()),
                        device: resolved.device_name(),
                        searcher: default,
                    });
                }
            }
        }
    }
    found(out, skipped)
}

fn suite<T: GpuTiles>(common: &Common, args: &BenchArgs, committed: &str) -> Result<Report> {
    let layers = args.layers();
    let game = Sliding::<T>::new();
    let text = match &args.boards {
        Some(path) => std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?,
        None => committed.to_string(),
    };
    let all = boards::parse(&game, &text)?;
    let (net, weights) = match &args.weights {
        Some(path) => (
            NTupleNetwork::load::<Sliding<T>>(Path::new(path), None)?.0,
            path.clone(),
        ),
        None => (
            NTupleNetwork::for_game::<Sliding<T>>(&seed_shapes())?,
            "all-zero network (seed shapes)".to_string(),
        ),
    };
    let mut columns = columns(common.backend, &args.only)?;
    let per_class: Vec<(BoardClass, Vec<BoardOf<T>>)> = BoardClass::ALL
        .iter()
        .map(|&c| {
            let mut b: Vec<_> = all.iter().filter(|x| x.0 == c).map(|x| x.1).collect();
            if args.per_class() > 0 {
                b.truncate(args.per_class());
            }
            (c, b)
        })
        .collect();
    let batch: Vec<BoardOf<T>> = all.iter().map(|b| b.1).cycle().take(args.batch()).collect();
    let steps = columns.len() * layers.len() * (BoardClass::ALL.len() + 1);
    let bar = common.progress(steps as u64, &args.suite);
    let mut cells = Vec::new();
    for col in columns.iter_mut() {
        for &layers in &layers {
            bar.set_message(format!("{} {layers} layers", col.label));
            let on_cpu = col.searcher.executor().is_cpu();
            let mut time = |roots: &[BoardOf<T>]| -> Result<f64> {
                let start = Instant::now();
                col.searcher.evaluate(&game, &net, roots, layers)?;
                Ok(start.elapsed().as_secs_f64())
            };
            for _ in 0..args.warmup() {
                time(&batch[..1])?;
            }
            let median = |time: &mut dyn FnMut(&[BoardOf<T>]) -> Result<f64>,
                          roots: &[BoardOf<T>],
                          reps: usize|
             -> Result<f64> {
                let mut runs: Vec<f64> = (0..reps).map(|_| time(roots)).collect::<Result<_>>()?;
                runs.sort_by(f64::total_cmp);
                Ok(runs[runs.len() / 2])
            };
            for (class, roots) in &per_class {
                let mut total = 0.0;
                for r in roots {
                    total += median(&mut time, std::slice::from_ref(r), args.reps())?;
                }
                cells.push(Cell {
                    kind: "inference",
                    class: class.name(),
                    layers,
                    column: col.label.clone(),
                    device: col.device.clone(),
                    boards: roots.len(),
                    ms_per_move: Some(1e3 * total / roots.len().max(1) as f64),
                    roots: None,
                    roots_per_sec: None,
                });
                bar.inc(1);
            }
            if layers >= 2 {
                // A CPU batch at 3 layers takes a minute on one thread: time it once.
                let reps = if on_cpu { 1 } else { args.reps() };
                let s = median(&mut time, &batch, reps)?;
                cells.push(Cell {
                    kind: "throughput",
                    class: "all",
                    layers,
                    column: col.label.clone(),
                    device: col.device.clone(),
                    boards: batch.len(),
                    ms_per_move: None,
                    roots: Some(batch.len()),
                    roots_per_sec: Some(batch.len() as f64 / s),
                });
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let labels: Vec<String> = columns.iter().map(|c| c.label.clone()).collect();
    let text = || table(&args.suite, &weights, &labels, &layers, &cells);
    Ok(Report::new(
        text,
        json!({ "suite": args.suite, "game": T::NAME, "weights": weights, "rows": cells }),
    ))
}

/// The seed's table: a row per (layers, class), a column per executor, then the speedup of
/// the fastest GPU column over CPU one thread and over the fastest CPU tree-parallel column.
fn table(suite: &str, weights: &str, labels: &[String], layers: &[u32], cells: &[Cell]) -> String {
    let find = |kind: &str, class: &str, l: u32, col: &str| {
        cells
            .iter()
            .find(|c| c.kind == kind && c.class == class && c.layers == l && c.column == col)
    };
    let gpu = |c: &&String| !c.starts_with("cpu");
    let mut out = format!(
        "{suite} — ms per move (mean over the class's boards of each board's median), weights: {weights}\n\n| layers | boards |"
    );
    for l in labels {
        out += &format!(" {l} |");
    }
    out += " best GPU × cpu-1 | best GPU × best CPU tree |\n|---:|---|";
    out += &"---:|".repeat(labels.len() + 2);
    for &l in layers {
        for class in BoardClass::ALL {
            let ms =
                |col: &String| find("inference", class.name(), l, col).and_then(|c| c.ms_per_move);
            out += &format!("\n| {l} | {} |", class.name());
            for col in labels {
                out += &ms(col).map_or(" – |".into(), |v| format!(" {v:.3} |"));
            }
            let best = |pick: &dyn Fn(&&String) -> bool| {
                labels
                    .iter()
                    .filter(pick)
                    .filter_map(ms)
                    .fold(f64::INFINITY, f64::min)
            };
            let best_gpu = best(&gpu);
            let cpu1 = best(&|c: &&String| c.as_str() == "cpu-1");
            let tree = best(&|c: &&String| c.ends_with(" tree"));
            let ratio = |cpu: f64| {
                if best_gpu.is_finite() && cpu.is_finite() {
                    format!(" {:.1} |", cpu / best_gpu)
                } else {
                    " – |".into()
                }
            };
            out += &ratio(cpu1);
            out += &ratio(tree);
        }
    }
    out += "\n\nBatched throughput (roots/s, one call of all the roots)\n\n| layers | roots |";
    for l in labels {
        out += &format!(" {l} |");
    }
    out += "\n|---:|---:|";
    out += &"---:|".repeat(labels.len());
    for &l in layers.iter().filter(|&&l| l >= 2) {
        let roots = cells
            .iter()
            .find(|c| c.kind == "throughput" && c.layers == l)
            .and_then(|c| c.roots)
            .unwrap_or(0);
        out += &format!("\n| {l} | {roots} |");
        for col in labels {
            out += &find("throughput", "all", l, col)
                .and_then(|c| c.roots_per_sec)
                .map_or(" – |".into(), |v| format!(" {v:.1} |"));
        }
    }
    out + "\n\nTiming: synchronised wall clock around upload, the whole search and read-back."
}
