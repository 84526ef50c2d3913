//! The suites measured in units per second (`cubesearch bench <suite>`), and the seed's Nim
//! minimax table. Each times a suite on CPU 1 thread, CPU all cores and every GPU backend
//! that answers. Each row: the work size doubles until one run takes `--min-seconds`, then
//! `--warmup` untimed runs and `--reps` timed runs at that size; the median is reported.
//!
//! Timing is synchronised wall-clock time around the whole executor call: upload of the inputs,
//! the kernel launch, and the read-back of the (small) results, which waits for the device.

mod nim_minimax;
mod search;
mod td;

pub(crate) use nim_minimax::nim_minimax;
use search::{depth_size, mcts, mcts_tree, mcts_tree_leaves, perft, playouts, playouts_size};
use td::{td_games_at, td_train, td_update};

use crate::targets::targets;
use crate::{BenchArgs, Common, Report};
use cubesearch_core::Game;
use cubesearch_core::{Error, Result};
use cubesearch_games::checkers::{Checkers, Rules};
use cubesearch_games::nim::{Nim, NimState};
use cubesearch_games::reversi::Reversi;
use cubesearch_search::Executor;
use indicatif::ProgressStyle;
use serde::Serialize;
use serde_json::json;
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

/// `bench list`'s suites of this file, each with what it measures.
pub(crate) fn list() -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> = SUITES
        .iter()
        .map(|s| (s.name.to_string(), format!("{} ({}/s)", s.about, s.unit)))
        .collect();
    lines.push((
        "nim-minimax".into(),
        "the seed's minimax table: ms to the first move, Nim sizes 2..8".into(),
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
    let runs_each = (args.warmup() + args.reps()) as u64;
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
        && settled(exec, level)? < args.min_seconds()
    {
        level += 1;
        on_run(Stage::Calibrating(level));
    }
    let total = args.warmup() + args.reps();
    let mut runs = Vec::with_capacity(args.reps());
    for run in 0..total {
        let (seconds, units) = time(exec, level)?;
        on_run(Stage::Timed {
            left: total - run - 1,
            last: seconds,
        });
        if run >= args.warmup() {
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
        reps: args.reps(),
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
