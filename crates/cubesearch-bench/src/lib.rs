//! The benchmark laboratory behind `cubesearch bench <suite>`: each suite times one piece of
//! work on the CPU (one thread, all cores) and on every GPU backend that answers, and returns a
//! [`Report`]: a table for people and one JSON object for programs. The command line parses
//! [`BenchArgs`], hands them to [`run`] with its [`Common`] flags, and prints the report.
//!
//! ```no_run
//! use clap::Parser;
//! use cubesearch_bench::{run, BenchArgs, Common};
//! use cubesearch_core::Backend;
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     bench: BenchArgs,
//! }
//!
//! let cli = Cli::parse_from(["bench", "nim-playouts", "--only", "cpu-1"]);
//! let common = Common {
//!     backend: Backend::Auto,
//!     seed: 1,
//!     json: false,
//!     progress_bar: |_, _, _| indicatif::ProgressBar::hidden(),
//! };
//! println!("{}", run(&common, &cli.bench)?.text);
//! # Ok::<(), cubesearch_core::Error>(())
//! ```

#![deny(missing_docs)]

mod args;
mod board_words;
mod expectimax;
mod reversi;
pub mod seed_batch;
mod suites;
mod targets;

pub use args::BenchArgs;
use args::{Columns, Flag, Takes};

use cubesearch_core::{Backend, Result};
use indicatif::ProgressBar;
use serde_json::Value;

/// What every suite takes besides its own flags: the command line's `--backend`, `--seed` and
/// `--json`, and how the caller draws progress bars.
#[derive(Clone, Copy, Debug)]
pub struct Common {
    /// The backend asked for: `auto` measures every target, any other one alone.
    pub backend: Backend,
    /// Seed of every random choice.
    pub seed: u32,
    /// Whether the report will be printed as JSON: the suites then keep their progress lines
    /// off stderr.
    pub json: bool,
    /// A progress bar over `len` steps named `what`, given `json`: the caller's style (hidden
    /// under `--json`, say).
    pub progress_bar: fn(json: bool, len: u64, what: &str) -> ProgressBar,
}

impl Common {
    /// A progress bar over `len` steps named `what`.
    fn progress(&self, len: u64, what: &str) -> ProgressBar {
        (self.progress_bar)(self.json, len, what)
    }
}

/// What a suite found, for stdout: a table for people, and the same as one JSON object.
#[derive(Clone, Debug)]
pub struct Report {
    /// The table (for `list`, the suites one a line).
    pub text: String,
    /// The same as one JSON object, for `--json`.
    pub json: Value,
}

impl Report {
    /// A report of the table `text` makes and the object `json`.
    fn new(text: impl FnOnce() -> String, json: Value) -> Self {
        Report { text: text(), json }
    }
}

/// Runs the suite `args` names (`list`: the suites and what they measure). A flag the suite
/// does not use, or an `--only` name that is none of its columns, is refused first.
pub fn run(common: &Common, args: &BenchArgs) -> Result<Report> {
    if args.suite == "list" {
        args.check("list", NOTHING)?;
        let suites: Vec<Value> = list()
            .into_iter()
            .map(|(name, about)| serde_json::json!({ "suite": name, "about": about }))
            .collect();
        return Ok(Report::new(
            || {
                list()
                    .into_iter()
                    .map(|(name, about)| format!("{name:<18} {about}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            },
            serde_json::json!({ "suites": suites }),
        ));
    }
    let Some(takes) = takes(&args.suite) else {
        let names: Vec<String> = list().into_iter().map(|(name, _)| name).collect();
        return Err(cubesearch_core::Error::parse(format!(
            "unknown bench suite '{}': one of {}",
            args.suite,
            names.join(", ")
        )));
    };
    args.check(&args.suite, takes)?;
    if args.suite == "nim-minimax" {
        return suites::nim_minimax(common, args);
    }
    if let Some(done) = reversi::run(common, args) {
        return done;
    }
    if matches!(
        args.suite.as_str(),
        "expectimax" | "expectimax-2584" | "expectimax-2048"
    ) {
        return expectimax::run(common, args);
    }
    suites::run(common, args)
}

/// A suite that takes no flag.
const NOTHING: Takes = Takes {
    flags: &[],
    columns: Columns::Targets,
};

/// The flags `suite` takes and what its `--only` names; `None` for no suite.
fn takes(suite: &str) -> Option<Takes> {
    use Flag::*;
    const CALIBRATED: &[Flag] = &[Reps, Warmup, MinSeconds, Level, Only];
    const PERFT: &[Flag] = &[Reps, Warmup, MinSeconds, Level, Only, StepsPerLaunch];
    let targets = |flags| Takes {
        flags,
        columns: Columns::Targets,
    };
    let named = |flags, names| Takes {
        flags,
        columns: Columns::Named(names),
    };
    Some(match suite {
        // One size: --level takes 0 only, and there is nothing to calibrate.
        "td-update" => targets(&[Reps, Warmup, Level, Only]),
        "td-train" => targets(&[Reps, Warmup, MinSeconds, Level, Only, Weights, Units]),
        "nim-playouts" | "checkers-playouts" | "reversi-playouts" | "mcts-tree" => {
            targets(CALIBRATED)
        }
        "checkers-perft" | "reversi-perft" => targets(PERFT),
        "checkers-mcts" => targets(&[Reps, Warmup, Level, Only, Trees, TreeBatch]),
        "nim-minimax" => named(&[Reps, Warmup, Only], &["cuda", "wgpu"]),
        "reversi-endgame" => named(&[Ffo, Level, Only], &["cpu-1", "cpu-all", "cuda", "wgpu"]),
        "reversi-tables" => NOTHING,
        "reversi-table3" => named(
            &[Reps, Level, Only],
            &["cpu-1", "cpu-all", "cpu", "cuda", "wgpu"],
        ),
        "reversi-board-words" => named(&[Reps, Only], &["cuda", "wgpu"]),
        "reversi-alphabeta" => named(
            &[Level, Only],
            &[
                "cpu-1",
                "cpu-all",
                "cpu-all frontier",
                "cuda",
                "cuda v1",
                "cuda v4",
                "cuda split",
                "cuda frontier",
                "wgpu",
                "wgpu v1",
                "wgpu v4",
                "wgpu split",
                "wgpu frontier",
            ],
        ),
        "expectimax" | "expectimax-2584" | "expectimax-2048" => {
            targets(&[Reps, Warmup, Only, Weights, Layers, Boards, PerClass, Batch])
        }
        _ => return None,
    })
}

/// Every suite and what it measures.
fn list() -> Vec<(String, String)> {
    let mut lines = suites::list();
    lines.extend(
        reversi::SUITES
            .iter()
            .chain(expectimax::SUITES)
            .map(|(name, about)| (name.to_string(), about.to_string())),
    );
    lines
}

#[cfg(test)]
mod tests {
    use super::{list, takes};

    #[test]
    fn every_listed_suite_says_what_it_takes() {
        for (name, _) in list() {
            assert!(takes(&name).is_some(), "{name} has no entry in takes()");
        }
    }
}
