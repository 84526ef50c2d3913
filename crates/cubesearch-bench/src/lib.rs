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
mod expectimax;
mod reversi;
mod suites;
mod targets;

pub use args::BenchArgs;

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
    /// The JSON object for `--json`; `None` where the text is all there is (`list`).
    pub json: Option<Value>,
}

impl Report {
    /// A report of the table `text` makes and the object `json`.
    fn new(text: impl FnOnce() -> String, json: Value) -> Self {
        Report {
            text: text(),
            json: Some(json),
        }
    }
}

/// Runs the suite `args` names (`list`: the suites and what they measure).
pub fn run(common: &Common, args: &BenchArgs) -> Result<Report> {
    if args.suite == "list" {
        return Ok(Report {
            text: list(),
            json: None,
        });
    }
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

/// Every suite and what it measures, one a line.
fn list() -> String {
    let mut lines = suites::list();
    lines.extend(
        reversi::SUITES
            .iter()
            .chain(expectimax::SUITES)
            .map(|(name, about)| format!("{name:<18} {about}")),
    );
    lines.join("\n")
}
